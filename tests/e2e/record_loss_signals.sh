# SPDX-License-Identifier: MIT
# Loss is never silent, signals leave complete files, overwrite mode dumps on SIGUSR2.
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events

faulter="$HWS_WORKLOADS/faulter"
[ -x "$faulter" ] || die "missing $faulter"

# -m 1 (one 4 KiB page) with one sample per page fault: the ring overflows, and the lost
# records hwsample reports equal the sum of PERF_RECORD_LOST perf finds in the file
# The reader runs at nice 19 on the workload's CPU (the workload back at nice 0), so it cannot
# keep up by preempting the workload at every wakeup, as it can on a loaded machine.
if [ "$(id -u)" = 0 ] && command -v taskset >/dev/null; then
	slow="taskset -c 0 nice -n 19"
	back="nice -n -19"
else
	slow="" back=""
fi
$slow "$HWS_BIN" -b sw -e page-faults -c 1 -m 1 -o "$TMP/loss.data" -- $back "$faulter" 200 2>"$TMP/loss.err"
eq "loss: exit code" "$?" 0
hws_lost=$(sed -n 's/^  total .* lost \([0-9]*\) records.*/\1/p' "$TMP/loss.err")
perf_lost=$(perf report -D -i "$TMP/loss.data" 2>/dev/null | sed -n 's/.*PERF_RECORD_LOST:.*lost:\([0-9]*\).*/\1/p' | awk '{s += $1} END {print s + 0}')
check "loss: some records lost with -m 1 (got ${hws_lost:-none})" [ "${hws_lost:-0}" -gt 0 ]
eq "loss: hwsample's lost count equals perf's PERF_RECORD_LOST sum" "$hws_lost" "$perf_lost"
check "loss: the summary warns and names the fix" grep -q "use a larger -m" "$TMP/loss.err"
eq "loss: samples still agree with perf" "$(summary_total "$TMP/loss.err")" "$(perf_samples "$TMP/loss.data")"

# -m 3 is rounded up to 4 pages as perf does, and says so
"$HWS_BIN" -q -b sw -e cpu-clock -m 3 -o "$TMP/m3.data" -- true 2>"$TMP/m3.err"
eq "-m 3: exit code" "$?" 0
check "-m 3: rounding is reported" grep -q "rounding -m 3 up to 4 pages" "$TMP/m3.err"
"$HWS_BIN" -q --dry-run -b sw -e cpu-clock -m 3 -- true >"$TMP/m3.dry" 2>/dev/null
check "-m 3: dry run shows 4 pages" grep -q "mmap pages: 4" "$TMP/m3.dry"

# SIGINT and SIGTERM mid-run: a complete file perf reads, samples agree; hwsample stops the
# workload with SIGTERM and exits with its status, 143, as perf record does
printf 'while :; do :; done\n' >"$TMP/spinner.sh"
for sig in INT TERM; do
	"$HWS_BIN" -b sw -e cpu-clock -F 1000 -o "$TMP/sig$sig.data" -- sh "$TMP/spinner.sh" 2>"$TMP/sig$sig.err" &
	hp=$!
	sleep 1
	kill -$sig $hp
	wait $hp
	eq "SIG$sig: exit code (the workload's: killed by SIGTERM)" "$?" 143
	check "SIG$sig: the summary says how the workload ended" \
		grep -q "workload killed by signal 15 (Terminated): hwsample stopped it" "$TMP/sig$sig.err"
	check "SIG$sig: perf reads the file" sh -c "perf report --stats -i '$TMP/sig$sig.data' >/dev/null 2>&1"
	n=$(perf_samples "$TMP/sig$sig.data")
	# a loaded 2-CPU machine may give the spinner little CPU: any samples will do, the
	# point is that they all reached a complete file
	check "SIG$sig: samples in the file (${n:-0})" [ "${n:-0}" -gt 0 ]
	eq "SIG$sig: summary equals perf" "$(summary_total "$TMP/sig$sig.err")" "$n"
	CHECKS=$((CHECKS + 1))
	if pgrep -f "$TMP/spinner.sh" >/dev/null; then fail "SIG$sig: the workload still runs"; fi
done

# overwrite (flight recorder): backward rings, dumped on SIGUSR2 and at exit
"$HWS_BIN" -b sw -e cpu-clock -F 1000 --overwrite -m 8 -o "$TMP/ow.data" -- sh "$TMP/spinner.sh" 2>"$TMP/ow.err" &
hp=$!
sleep 1
kill -USR2 $hp
sleep 0.5
kill -INT $hp
wait $hp
eq "overwrite: exit code (the workload's)" "$?" 143
n=$(perf_samples "$TMP/ow.data")
check "overwrite: samples dumped (${n:-0})" [ "${n:-0}" -gt 0 ]
check "overwrite: attr has write_backward" sh -c "perf report --header-only -i '$TMP/ow.data' 2>/dev/null | grep -q 'write_backward = 1'"
# samples are in time order within the file (the backward ring is handed out oldest first)
perf script -F time -i "$TMP/ow.data" 2>/dev/null | tr -d ' :' > "$TMP/ow.times"
check "overwrite: perf script times sorted" sort -c -n "$TMP/ow.times"
# the flight recorder keeps only the newest: the ring (8 pages) holds far fewer than 1.5 s of samples
check "overwrite: bounded by ring size (${n:-0} < 1500)" [ "${n:-0}" -lt 1500 ]
finish
