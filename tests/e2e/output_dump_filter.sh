#!/bin/bash
# SPDX-License-Identifier: MIT
# dump's filters (--pid, --tid, --comms, --dsos, --symbols, -C, --time) against perf script's
# on the same files, and the comm column of the text line:
#  1. a perf recording of three processes (sh, ls, memdemo; cpu-clock and page-faults with
#     -d --sample-cpu): for each filter, `dump -F comm,pid,tid,cpu,time,event,ip --ns FILTER` prints
#     exactly perf script's lines (each filter keeps some samples and drops others), with
#     sym,dso for --dsos/--symbols of the workload; --json with the filter prints as many
#     samples (the JSON path has no symbols of its own: the filter's names come from the
#     side-band records all the same);
#  2. a hwsample recording: the same for a few filters (--time in seconds, and percentages of
#     the span its HEADER_SAMPLE_TIME gives);
#  3. the text line starts with the comm as perf script's first column (16 columns,
#     right-aligned), sample by sample; without symbols (--no-sym) it starts with the time;
#  4. a malformed filter is a usage error (exit 2) naming the option.
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
need_sw_events
W=${HWS_WORKLOADS:-}/memdemo
[ -x "$W" ] || skip "workload $W not built"
F=comm,pid,tid,cpu,time,event,ip

same() { # what file "filter" [fields] [min-dropped]: dump -F = perf script -F with the filter
	local what=$1 f=$2 flt=$3 fl=${4:-$F} all n
	# shellcheck disable=SC2086
	perf script -i "$f" -F "$fl" --ns $flt >"$TMP/p.txt" 2>/dev/null
	# shellcheck disable=SC2086
	"$HWS_BIN" dump -i "$f" -F "$fl" --ns $flt >"$TMP/h.txt" 2>"$TMP/h.err"
	n=$(wc -l <"$TMP/p.txt")
	all=$(perf_samples "$f")
	check "$what: perf script keeps some samples and drops some ($n of $all)" \
		test "$n" -gt 0 -a "$n" -lt "$all"
	check "$what: dump -F prints perf script's $n lines" cmp -s "$TMP/p.txt" "$TMP/h.txt" ||
		{ diff "$TMP/p.txt" "$TMP/h.txt" | head -4 >&2; head -c 300 "$TMP/h.err" >&2; }
	if [ "$fl" = "$F" ]; then
		# shellcheck disable=SC2086
		eq "$what: dump --json prints as many samples" \
			"$("$HWS_BIN" dump -i "$f" --json $flt 2>/dev/null | wc -l)" "$n"
	fi
}

perf record -q -e cpu-clock/period=50000/,page-faults/period=4/ -d --sample-cpu -o "$TMP/m.data" -- \
	sh -c "ls / >/dev/null; $W >/dev/null; ls /usr >/dev/null" >/dev/null 2>"$TMP/rec.err" ||
	skip "perf record failed: $(head -c 300 "$TMP/rec.err")"
pid=$(perf script -i "$TMP/m.data" -F comm,pid 2>/dev/null | awk '$1 == "memdemo" {print $2; exit}')
tid=$(perf script -i "$TMP/m.data" -F comm,tid 2>/dev/null | awk '$1 == "ls" {print $2; exit}')
sym=$(perf report -i "$TMP/m.data" --stdio --no-children -q --sort sym --dsos memdemo 2>/dev/null |
	awk '{for (i = 1; i < NF; i++) if ($i == "[.]") {print $(i + 1); exit}}')
read -r t1 t2 < <(perf script -i "$TMP/m.data" -F time --ns 2>/dev/null | tr -d ':' |
	awk '{t[NR] = $1} END {print t[int(NR / 4)], t[int(NR / 2)]}')
check "the recording has a memdemo pid ($pid), an ls tid ($tid), a memdemo function ($sym)" \
	test -n "$pid" -a -n "$tid" -a -n "$sym"
for flt in "--comms memdemo" "--comms memdemo,ls" "--pid $pid" "--tid $tid" "--dsos memdemo" \
	"--dsos [kernel.kallsyms]" "--dsos $W" "--symbols $sym" "--time 10%/2" \
	"--time 0%-50%" "--time $t1,$t2" "--time $t1," "--comms ls --dsos libc.so.6" \
	"--pid $pid --time 50%-100%"; do
	same "$flt" "$TMP/m.data" "$flt"
done
same "--dsos memdemo with names" "$TMP/m.data" "--dsos memdemo" "$F,sym,dso"
same "--symbols $sym with names" "$TMP/m.data" "--symbols $sym" "$F,sym,symoff,dso"
# -C: the recording's CPUs (on a 1-CPU machine every sample is on CPU 0: nothing dropped)
if [ "$(perf script -i "$TMP/m.data" -F cpu 2>/dev/null | sort -u | wc -l)" -gt 1 ]; then
	same "-C 0" "$TMP/m.data" "-C 0"
	same "--cpu 1" "$TMP/m.data" "--cpu 1"
fi

# 2. a file written by hwsample
if "$HWS_BIN" record -q -b sw -e cpu-clock -c 100000 -o "$TMP/hw.data" -- \
	sh -c "ls / >/dev/null; $W >/dev/null" >/dev/null 2>&1; then
	read -r t1 t2 < <(perf script -i "$TMP/hw.data" -F time --ns 2>/dev/null | tr -d ':' |
		awk '{t[NR] = $1} END {print t[int(NR / 3)], t[int(2 * NR / 3)]}')
	for flt in "--comms memdemo" "--dsos [kernel.kallsyms]" "--time $t1,$t2" "--time 10%/2" \
		"--time 25%-75%"; do
		same "hwsample file $flt" "$TMP/hw.data" "$flt"
	done
else
	fail "hwsample record failed"
fi

# 3. the text line: comm first, as perf script's first column
perf script -i "$TMP/m.data" -F comm 2>/dev/null | cut -c1-16 >"$TMP/pc.txt"
"$HWS_BIN" dump -i "$TMP/m.data" 2>/dev/null | grep -v '^\s*$' | grep -v $'^\t' | cut -c1-17 >"$TMP/hc.txt"
check "text line: perf script printed comms" test -s "$TMP/pc.txt"
check "text line: the comm column is a 16-column field and a space" \
	not grep -qv '^.\{16\} $' "$TMP/hc.txt"
sed -i 's/ $//' "$TMP/hc.txt"
check "text line: the comm of each sample is perf script's" cmp -s "$TMP/pc.txt" "$TMP/hc.txt" ||
	diff "$TMP/pc.txt" "$TMP/hc.txt" | head -4 >&2
check "text line with the comm, then time [cpu] pid/tid event:" \
	grep -qE "^ +memdemo [0-9]+\.[0-9]{9} \[[0-9]{3}\] $pid/$pid cpu-clock[^ ]*: 50000 ip 0x" \
	<("$HWS_BIN" dump -i "$TMP/m.data" 2>/dev/null)
check "--no-sym: the line starts with the time" \
	grep -qE "^[0-9]+\.[0-9]{9} \[[0-9]{3}\] $pid/$pid cpu-clock[^ ]*: 50000 ip 0x[0-9a-f]+ addr 0x" \
	<("$HWS_BIN" dump -i "$TMP/m.data" --no-sym 2>/dev/null)

# 4. usage errors
"$HWS_BIN" dump -i "$TMP/m.data" --cpu x >/dev/null 2>"$TMP/err"
eq "--cpu x: exit code" "$?" 2
check "--cpu x: names the option" grep -q "^hwsample dump: --cpu 'x': expected CPU numbers" "$TMP/err"
"$HWS_BIN" dump -i "$TMP/m.data" --time 5,abc >/dev/null 2>"$TMP/err"
eq "--time 5,abc: exit code" "$?" 2
finish
