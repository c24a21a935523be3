# SPDX-License-Identifier: MIT
# -p PID -- CMD records PID while CMD runs, as perf record -p PID -- sleep 1: the events on
# PID are enabled at once (no enable_on_exec), CMD only times the run and is not recorded;
# the exit status is CMD's. Same with -a and a workload. Compared with perf record.
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events

sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2>/dev/null; rm -rf "$TMP"' EXIT

# pids (one a line, with their sample counts) of the samples in file $1
pids_of() { perf script -F pid -i "$1" 2>/dev/null | awk '{n[$1]++} END {for (p in n) print p, n[p]}'; }

t0=$(date +%s.%N)
"$HWS_BIN" -b sw -e cpu-clock -F 1000 -p "$busy" -o "$TMP/h.data" -- sleep 1 2>"$TMP/h.err"
eq "hwsample -p PID -- sleep 1: exit code (sleep's)" "$?" 0
t=$(echo "$(date +%s.%N) - $t0" | bc)
check "hwsample: ran about as long as the sleep (${t}s)" [ "$(echo "$t >= 0.9 && $t < 10" | bc)" = 1 ]
perf record -q -e cpu-clock -F 1000 -p "$busy" -o "$TMP/p.data" -- sleep 1 2>/dev/null
eq "perf record -p PID -- sleep 1: exit code" "$?" 0

pids_of "$TMP/h.data" >"$TMP/h.pids"
pids_of "$TMP/p.data" >"$TMP/p.pids"
hn=$(awk -v p="$busy" '$1 == p {print $2}' "$TMP/h.pids")
pn=$(awk -v p="$busy" '$1 == p {print $2}' "$TMP/p.pids")
# a loaded 2-CPU VM may give the busy loop little CPU: a tenth of a second's worth will do
check "hwsample: samples of PID (${hn:-0})" [ "${hn:-0}" -ge 100 ]
check "perf: samples of PID (${pn:-0})" [ "${pn:-0}" -ge 100 ]
eq "hwsample: only PID sampled (the sleep is not)" "$(cut -d' ' -f1 "$TMP/h.pids" | tr '\n' ' ')" "$busy "
eq "perf: only PID sampled" "$(cut -d' ' -f1 "$TMP/p.pids" | tr '\n' ' ')" "$busy "
eq "hwsample's summary equals the file" "$(summary_total "$TMP/h.err")" "$(perf_samples "$TMP/h.data")"
# events enabled at once, as perf's: no enable_on_exec in either file's attr
for f in h p; do
	check "$f: no enable_on_exec" sh -c "! perf report --header-only -i '$TMP/$f.data' 2>/dev/null | grep -q 'enable_on_exec = 1'"
done
check "dry run: no enable_on_exec with -p" sh -c \
	"'$HWS_BIN' --dry-run -b sw -e cpu-clock -p $busy -- sleep 1 | grep -qE '^ +enable_on_exec +0$'"
check "dry run: enable_on_exec on a workload" sh -c \
	"'$HWS_BIN' --dry-run -b sw -e cpu-clock -- sleep 1 | grep -qE '^ +enable_on_exec +1$'"

# the exit status is the timing command's
"$HWS_BIN" -q -b sw -e cpu-clock -p "$busy" -o "$TMP/s.data" -- sh -c 'sleep 0.2; exit 3'
eq "-p PID -- CMD: CMD's exit status" "$?" 3

# -a with a workload: enabled at once, PID among the samples
"$HWS_BIN" -q -b sw -e cpu-clock -F 1000 -a -o "$TMP/a.data" -- sleep 0.5
eq "-a -- sleep: exit code" "$?" 0
an=$(pids_of "$TMP/a.data" | awk -v p="$busy" '$1 == p {print $2}')
check "-a -- sleep: samples of the busy process (${an:-0})" [ "${an:-0}" -ge 50 ]
finish
