# SPDX-License-Identifier: MIT
# Shared by the scripts/bench-* comparisons: hwsample and perf on the same input, run in
# alternating rounds (hwsample, perf, hwsample, perf, ...) so both see the same machine.
#
# Why alternate and report per-round ratios: on the shared development VMs the host's load
# changes the speed of a run by up to 1.7x from one minute to the next, and it slows
# hwsample's short, high-IPC runs more than perf's long, cache-missing ones (measured: dump
# --json 110 ms or 185 ms on the same file within a minute, perf script 1.29 s or 1.56 s).
# The best run of each is one number (the speed on a quiet host); the median of the ratios
# of the two runs of each round, with their range, says what a user sees on a busy one.
#
#   . scripts/bench-lib.sh
#   bench_pair ROUNDS LABEL -- HWSAMPLE_CMD... -- PERF_CMD...
# prints a block of figures and sets the ratios perf/hwsample BENCH_MIN_CPU, BENCH_MIN_WALL
# (best run against best run) and BENCH_MED_CPU, BENCH_MED_WALL (median of the rounds' ratios).
# BENCH_A and BENCH_B name the two commands in the figures (default hwsample and perf).
# BENCH_PREP, when set, is a command run before every run, outside its measurement.

# bench_run OUT CMD...: one run under perf stat (stdout, stderr to /dev/null); appends
# "cpu_ms wall_ms" to OUT. CPU is task-clock (user + sys, all threads); wall is perf stat's
# elapsed time of the child alone.
bench_run() {
	local out=$1 st
	shift
	st=$(mktemp)
	perf stat -e task-clock -o "$st" "$@" >/dev/null 2>&1 || true
	awk '/task-clock/ {c = $1; gsub(",", "", c)} /seconds time elapsed/ {w = $1 * 1000}
	     END {if (c == "" || w == "") exit 1; printf "%.2f %.2f\n", c, w}' "$st" >>"$out" || {
		echo "bench: perf stat gave no figures for: $*" >&2
		rm -f "$st"
		return 1
	}
	rm -f "$st"
}

# _bench_med FILE COL: median of column COL
_bench_med() {
	cut -d' ' -f"$2" "$1" | sort -g |
		awk '{a[NR] = $1} END {printf "%.3f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

# _bench_min FILE COL
_bench_min() { cut -d' ' -f"$2" "$1" | sort -g | head -1; }
_bench_max() { cut -d' ' -f"$2" "$1" | sort -g | tail -1; }

bench_pair() {
	local rounds=$1 label=$2 d a=() b=() which=a i
	shift 2
	[ "${1:-}" = "--" ] || { echo "bench_pair: usage: ROUNDS LABEL -- CMD... -- CMD..." >&2; return 2; }
	shift
	for i in "$@"; do
		if [ "$i" = "--" ] && [ $which = a ]; then which=b; continue; fi
		if [ $which = a ]; then a+=("$i"); else b+=("$i"); fi
	done
	d=$(mktemp -d)
	"${a[@]}" >/dev/null 2>&1 || true # warm the page cache and the binaries
	"${b[@]}" >/dev/null 2>&1 || true
	for ((i = 0; i < rounds; i++)); do
		${BENCH_PREP:+eval "$BENCH_PREP"}
		bench_run "$d/a" "${a[@]}" || { rm -rf "$d"; return 1; }
		${BENCH_PREP:+eval "$BENCH_PREP"}
		bench_run "$d/b" "${b[@]}" || { rm -rf "$d"; return 1; }
	done
	paste -d' ' "$d/a" "$d/b" | awk '{printf "%.3f %.3f\n", $3 / $1, $4 / $2}' >"$d/r"
	BENCH_MIN_CPU=$(echo "$(_bench_min "$d/b" 1) / $(_bench_min "$d/a" 1)" | bc -l)
	BENCH_MIN_WALL=$(echo "$(_bench_min "$d/b" 2) / $(_bench_min "$d/a" 2)" | bc -l)
	BENCH_MED_CPU=$(_bench_med "$d/r" 1)
	BENCH_MED_WALL=$(_bench_med "$d/r" 2)
	echo "$label: $rounds alternating rounds (ms)"
	printf "  %-10s cpu best %8.1f  median %8.1f   wall best %8.1f  median %8.1f\n" \
		"${BENCH_A:-hwsample}" "$(_bench_min "$d/a" 1)" "$(_bench_med "$d/a" 1)" \
		"$(_bench_min "$d/a" 2)" "$(_bench_med "$d/a" 2)"
	printf "  %-10s cpu best %8.1f  median %8.1f   wall best %8.1f  median %8.1f\n" \
		"${BENCH_B:-perf}" "$(_bench_min "$d/b" 1)" "$(_bench_med "$d/b" 1)" \
		"$(_bench_min "$d/b" 2)" "$(_bench_med "$d/b" 2)"
	printf "  %s/%s: best vs best %.1fx cpu, %.1fx wall; per round median %.1fx cpu" \
		"${BENCH_B:-perf}" "${BENCH_A:-hwsample}" "$BENCH_MIN_CPU" "$BENCH_MIN_WALL" "$BENCH_MED_CPU"
	printf " (%.1f-%.1f), %.1fx wall (%.1f-%.1f)\n" "$(_bench_min "$d/r" 1)" "$(_bench_max "$d/r" 1)" \
		"$BENCH_MED_WALL" "$(_bench_min "$d/r" 2)" "$(_bench_max "$d/r" 2)"
	rm -rf "$d"
}
