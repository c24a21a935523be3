# SPDX-License-Identifier: MIT
# Exit status: once the recording succeeded, hwsample exits with the workload's status as
# perf record does (its exit code; 128+N when signal N killed it), after a summary that says
# how the workload ended; --duration stopping it is a success (0); hwsample's own failures
# keep their codes (1-4) whatever the workload would have done.
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events

# run WHAT CODE WORDING SCRIPT: hwsample and perf record on `sh -c SCRIPT`
run() {
	"$HWS_BIN" -b sw -e cpu-clock -o "$TMP/x.data" -- sh -c "$4" 2>"$TMP/x.err"
	eq "$1: hwsample's exit code" "$?" "$2"
	check "$1: summary says '$3' ($(tail -1 "$TMP/x.err"))" grep -qxF "  $3" "$TMP/x.err"
	check "$1: perf reads the file" sh -c "perf report --stats -i '$TMP/x.data' >/dev/null 2>&1"
	# (through sh, whose report of perf's re-raised SIGSEGV goes to /dev/null)
	sh -c 'perf record -q -e cpu-clock -o "$1" -- sh -c "$2" >/dev/null 2>&1' sh \
		"$TMP/p.data" "$4" 2>/dev/null
	eq "$1: same exit code as perf record" "$?" "$2"
}
run "exit 0" 0 "workload exited with status 0" 'exit 0'
run "exit 7" 7 "workload exited with status 7" 'exit 7'
run "segfault" 139 "workload killed by signal 11 (Segmentation fault)" 'kill -SEGV $$'

# -q: no summary, the same status
"$HWS_BIN" -q -b sw -e cpu-clock -o "$TMP/q.data" -- sh -c 'exit 7' 2>"$TMP/q.err"
eq "-q: exit code" "$?" 7
check "-q: nothing printed" test ! -s "$TMP/q.err"

# --duration stopping the workload: 0, as perf stat --timeout; the summary says who ended it
"$HWS_BIN" -b sw -e cpu-clock -o "$TMP/d.data" --duration 0.5 -- sleep 30 2>"$TMP/d.err"
eq "--duration: exit code" "$?" 0
check "--duration: summary" \
	grep -qxF "  workload killed by signal 15 (Terminated): hwsample stopped it" "$TMP/d.err"
# the workload ending before --duration: its own status
"$HWS_BIN" -q -b sw -e cpu-clock -o "$TMP/d2.data" --duration 30 -- sh -c 'exit 5'
eq "--duration, workload ends first: its status" "$?" 5
# no workload: 0
"$HWS_BIN" -q -b sw -e cpu-clock -a --duration 0.3 -o "$TMP/a.data"
eq "no workload: exit code" "$?" 0

# hwsample's own failures keep their codes, and the workload does not run
ran=$TMP/ran
wl="touch '$ran'; exit 7"
"$HWS_BIN" -b sw --nosuch -o "$TMP/e.data" -- sh -c "$wl" 2>/dev/null
eq "bad option: usage error" "$?" 2
"$HWS_BIN" -b sw -e no-such-event -o "$TMP/e.data" -- sh -c "$wl" 2>/dev/null
eq "unknown event: usage error" "$?" 2
"$HWS_BIN" -b sw -e cpu-clock -o "$TMP/no/such/dir/e.data" -- sh -c "$wl" 2>/dev/null
eq "output not writable: runtime error" "$?" 1
"$HWS_BIN" -b sw -e cpu-clock -o "$TMP/e.data" -- "$TMP/no-such-program" 2>"$TMP/e.err"
eq "program not found: runtime error" "$?" 1
check "program not found: said so" grep -q "cannot run" "$TMP/e.err"
if ! "$HWS_BIN" list 2>/dev/null | grep -qE '^amd_ibs +usable'; then
	"$HWS_BIN" -b amd_ibs -o "$TMP/e.data" -- sh -c "$wl" 2>/dev/null
	eq "backend not usable here: not supported" "$?" 3
fi
check "the workload never ran when hwsample failed" test ! -e "$ran"
finish
