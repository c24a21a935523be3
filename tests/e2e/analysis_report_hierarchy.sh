#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample report --hierarchy against perf report --stdio --hierarchy with the same --sort
# on the same files (analysis_report_hier_cmp.py: same sections and sample counts, the
# column header byte for byte, the same tree of entries with the same percentages to 0.01,
# each level's indent and spacing as perf's, entries by decreasing overhead):
#  1. a perf recording of three processes (cpu-clock and page-faults: two sections):
#     comm,dso,sym; comm,dso; pid,sym; and the default keys (no --sort);
#  2. a hwsample recording of memdemo: comm,dso,sym and sym (one level). (Filters are not
#     compared: perf 6.1 --hierarchy with --comms/--dsos prints no entry at all.)
#  3. --hierarchy with a column that is no level (--mem's default view) is a usage error.
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
need_python3
need_sw_events
W=${HWS_WORKLOADS:-}/memdemo
[ -x "$W" ] || skip "workload $W not built"
CMP=$HWS_SOURCE_DIR/tests/e2e/analysis_report_hier_cmp.py

same() { # what file "hwsample args" "perf args"
	local what=$1 f=$2 h=$3 p=$4
	# shellcheck disable=SC2086
	perf report -i "$f" --stdio --hierarchy $p >"$TMP/p.txt" 2>/dev/null
	# shellcheck disable=SC2086
	"$HWS_BIN" report -i "$f" --stdio --hierarchy $h >"$TMP/h.txt" 2>"$TMP/h.err"
	if python3 "$CMP" "$TMP/p.txt" "$TMP/h.txt" >"$TMP/cmp.txt"; then
		check "$what: $(tail -1 "$TMP/cmp.txt")" true
	else
		check "$what: $(head -3 "$TMP/cmp.txt" | tr '\n' ' ') hwsample stderr: $(head -c 300 "$TMP/h.err")" false
	fi
}

perf record -q -e cpu-clock/period=50000/,page-faults/period=4/ -o "$TMP/m.data" -- \
	sh -c "ls / >/dev/null; $W >/dev/null; ls /usr >/dev/null" >/dev/null 2>"$TMP/rec.err" ||
	skip "perf record failed: $(head -c 300 "$TMP/rec.err")"
for k in comm,dso,sym comm,dso pid,sym; do
	same "perf recording --sort $k" "$TMP/m.data" "--sort $k" "--sort $k"
done
same "perf recording, default keys" "$TMP/m.data" "" ""
check "three levels: entries at three indents" \
	test "$("$HWS_BIN" report -i "$TMP/m.data" --hierarchy --sort comm,dso,sym |
		awk '/^ +[0-9.]+%/ {print index($0, "%")}' | sort -u | wc -l)" = 3

if "$HWS_BIN" record -q -b sw -e cpu-clock -c 100000 -o "$TMP/hw.data" -- "$W" >/dev/null 2>&1; then
	same "hwsample recording --sort comm,dso,sym" "$TMP/hw.data" "--sort comm,dso,sym" \
		"--sort comm,dso,sym"
	same "hwsample recording --sort sym" "$TMP/hw.data" "--sort sym" "--sort sym"
else
	fail "hwsample record failed"
fi

"$HWS_BIN" report -i "$TMP/m.data" --hierarchy --mem >/dev/null 2>"$TMP/err"
eq "--hierarchy --mem (a Samples column): exit code" "$?" 2
check "--hierarchy --mem: says to give the levels" grep -q -- "--sort KEY" "$TMP/err"
finish
