#!/bin/bash
# SPDX-License-Identifier: MIT
# JIT code named by its perf map, as perf names it: tests/workloads/jit_perfmap runs two
# functions it wrote into anonymous executable memory and lists them in /tmp/perf-PID.map.
# On a perf recording and on a hwsample recording of it:
#  1. report --sort comm,dso,sym and dso,sym equal perf report's ("[JIT] tid PID", the map's
#     names, one with spaces in it), dump -F ip,sym,symoff,dso equals perf script's;
#  2. without the map file: the same rows as perf's (the JIT memory's addresses), and
#     "[unknown] (/tmp/perf-PID.map)" in dump -F as in perf script;
#  3. a map file that is a symlink is not followed (no names), a map with malformed lines
#     names what its good lines name.
. "$(dirname "$0")/lib/common.sh"
need_perf
perf version >/dev/null 2>&1 || skip "perf does not run"
need_sw_events
command -v python3 >/dev/null || skip "python3 not installed"
[ "$(uname -m)" = x86_64 ] || skip "the workload writes x86-64 code"
W=${HWS_WORKLOADS:-}/jit_perfmap
[ -x "$W" ] || skip "workload $W not built"
CMP=$HWS_SOURCE_DIR/tests/e2e/analysis_report_cmp.py
MAPS=()
trap 'rm -f "${MAPS[@]}"; rm -rf "$TMP"' EXIT

same() { # what file keys
	perf report -i "$2" --stdio --no-children --sort "$3" >"$TMP/p.txt" 2>/dev/null
	"$HWS_BIN" report -i "$2" --stdio --sort "$3" >"$TMP/h.txt" 2>"$TMP/h.err"
	if python3 "$CMP" "$TMP/p.txt" "$TMP/h.txt" >"$TMP/cmp.txt"; then
		check "$1: $(tail -1 "$TMP/cmp.txt")" true
	else
		check "$1: $(head -3 "$TMP/cmp.txt" | tr '\n' ' ')" false
	fi
}
script_same() { # what file: the JIT samples' lines of perf script -F and dump -F
	perf script -i "$2" -F ip,sym,symoff,dso 2>/dev/null | grep "/tmp/perf-" >"$TMP/ps.txt"
	"$HWS_BIN" dump -i "$2" -F ip,sym,symoff,dso 2>/dev/null | grep "/tmp/perf-" >"$TMP/hs.txt"
	check "$1: perf script has JIT samples" test -s "$TMP/ps.txt"
	check "$1: dump -F ip,sym,symoff,dso equals perf script" cmp -s "$TMP/ps.txt" "$TMP/hs.txt"
}

for who in perf hwsample; do
	f=$TMP/$who.data
	if [ $who = perf ]; then
		HWS_KEEP_PERFMAP=1 perf record -q -e cpu-clock -c 250000 -o "$f" -- "$W" 150 \
			>"$TMP/out" 2>"$TMP/err" || skip "perf record failed: $(head -c 200 "$TMP/err")"
	else
		HWS_KEEP_PERFMAP=1 "$HWS_BIN" record -q -b sw -e cpu-clock -c 250000 -o "$f" -- \
			"$W" 150 >"$TMP/out" 2>"$TMP/err" || die "hwsample record: $(head -c 200 "$TMP/err")"
	fi
	pid=$(awk '/^jit_perfmap:/ {print $2}' "$TMP/out")
	map=/tmp/perf-$pid.map
	MAPS+=("$map")
	check "$who: the workload wrote $map" test -s "$map"
	for k in comm,dso,sym dso,sym; do
		same "$who recording, map file --sort $k" "$f" "$k"
	done
	check "$who: a row for jit_hot in [JIT] tid $pid" \
		grep -q "\[JIT\] tid $pid  *\[\.\] jit_hot" "$TMP/h.txt"
	check "$who: the name with spaces whole" grep -q "LazyCompile:\*warm /app/warm.js:12" "$TMP/h.txt"
	script_same "$who recording, map file" "$f"

	mv "$map" "$map.keep"
	same "$who recording, no map file --sort dso,sym" "$f" dso,sym
	script_same "$who recording, no map file" "$f"
	check "$who, no map file: [unknown]" grep -q "\[unknown\] (/tmp/perf-$pid.map)" "$TMP/hs.txt"

	if [ $who = hwsample ]; then
		MAPS+=("$map.keep" "$map.other")
		cp "$map.keep" "$map.other"
		ln -s "$map.other" "$map"
		"$HWS_BIN" report -i "$f" --stdio --sort dso,sym >"$TMP/h.txt" 2>&1
		check "a symlinked map file is not followed" bash -c "! grep -q jit_hot '$TMP/h.txt'"
		rm -f "$map"
		{
			echo "garbage line"
			echo "1234"
			echo "10 20 ab"
			grep jit_hot "$map.keep"
			echo "1 0 sized-zero"
		} >"$map"
		"$HWS_BIN" report -i "$f" --stdio --sort dso,sym >"$TMP/h.txt" 2>&1
		check "malformed lines skipped: jit_hot named" grep -q "\[\.\] jit_hot" "$TMP/h.txt"
		check "malformed lines skipped: warm not named" bash -c "! grep -q LazyCompile '$TMP/h.txt'"
	fi
	rm -f "$map"
	mv "$map.keep" "$map"
done
finish
