# SPDX-License-Identifier: MIT
# Every PERF_TYPE_SOFTWARE event records and perf agrees on what was recorded; --dry-run
# prints the exact attr; -F and -c select frequency and period mode.
# hws-test: static-too
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events
faulter="$HWS_WORKLOADS/faulter"

# event name, min samples expected from "faulter 16; sleep 0.05" with -c 1 (0 = may be none)
while read -r ev min; do
	"$HWS_BIN" -b sw -e "$ev" -c 1 -d -o "$TMP/$ev.data" -- sh -c "$faulter 16; sleep 0.05" 2>"$TMP/$ev.err"
	eq "$ev: exit code" "$?" 0
	hws=$(summary_total "$TMP/$ev.err")
	eq "$ev: hwsample and perf count the same samples" "$hws" "$(perf_script_lines "$TMP/$ev.data")"
	check "$ev: at least $min samples (got $hws)" [ "${hws:-0}" -ge "$min" ]
	if [ "${hws:-0}" -gt 0 ]; then
		names=$(perf script -F event -i "$TMP/$ev.data" 2>/dev/null | tr -d ' :' | sort -u)
		eq "$ev: perf sees the event name" "$names" "$ev"
	fi
done <<'LIST'
cpu-clock 1
task-clock 1
page-faults 4000
minor-faults 4000
major-faults 0
context-switches 1
cpu-migrations 0
alignment-faults 0
emulation-faults 0
LIST

# the faulting data address of page faults: inside the faulter's 16 MiB mapping, page by page
perf script -F addr -i "$TMP/page-faults.data" 2>/dev/null | awk '{print $1}' | sort -u >"$TMP/addrs"
check "page-faults: thousands of distinct fault addresses" [ "$(wc -l <"$TMP/addrs")" -ge 4000 ]

# dummy: no samples, but the side-band (COMM of the workload) is there
"$HWS_BIN" -q -b sw -e dummy -o "$TMP/dummy.data" -- true 2>/dev/null
eq "dummy: exit code" "$?" 0
check "dummy: COMM of the workload recorded" sh -c "perf report -D -i '$TMP/dummy.data' 2>/dev/null | grep -q 'PERF_RECORD_COMM.*true'"

# aliases and modifiers
"$HWS_BIN" --dry-run -b sw -e cs,faults,migrations,cpu-clock:u -- true >"$TMP/alias" 2>&1
eq "aliases: exit code" "$?" 0
check "aliases: cs is context-switches (config 0x3)" sh -c "grep -A3 'event 0: cs' '$TMP/alias' | grep -q 'config *0x3'"
check "cpu-clock:u excludes the kernel" sh -c "sed -n '/event 3: cpu-clock:u/,/event 4/p' '$TMP/alias' | grep -q 'exclude_kernel *1'"

# --dry-run prints the exact attr, field by field, and opens nothing
"$HWS_BIN" --dry-run -b sw -e page-faults -c 1 -o "$TMP/never.data" -- true >"$TMP/dry" 2>&1
eq "dry run: exit code" "$?" 0
check "dry run: nothing written" [ ! -e "$TMP/never.data" ]
expect() { CHECKS=$((CHECKS + 1)); grep -qE "^  $1 +$2\$" "$TMP/dry" || fail "dry run: want '$1 $2', got '$(grep -E "^  $1 " "$TMP/dry")'"; }
expect type 1
expect config 0x2
expect sample_period 1
# no PERIOD with -c, as perf's: with it the kernel samples every software event whatever
# the period (perf_swevent_event())
expect sample_type "IP\|TID\|TIME\|ADDR\|CPU\|IDENTIFIER"
expect freq 0
expect disabled 1
expect inherit 1
expect enable_on_exec 1
expect sample_id_all 1
expect mmap 1
expect mmap2 1
expect comm 1
expect task 1
expect mmap_data 1
expect watermark 1
expect wakeup_watermark 131072
# -F: frequency mode
"$HWS_BIN" --dry-run -b sw -e cpu-clock -F 997 -a -- true >"$TMP/dryF" 2>&1
check "-F 997: freq mode" grep -qE '^  freq +1$' "$TMP/dryF"
check "-F 997: sample_freq" grep -qE '^  sample_freq +997$' "$TMP/dryF"
check "-F 997: the period sampled" grep -qE '^  sample_type +.*PERIOD' "$TMP/dryF"
check "-a: no enable_on_exec" grep -qE '^  enable_on_exec +0$' "$TMP/dryF"
check "-a: mode named" grep -q 'mode: system-wide' "$TMP/dryF"
# -c N: a sample every N events (it was every event: PERF_SAMPLE_PERIOD was set)
if [ -x "${HWS_WORKLOADS:-}/faulter" ]; then
	for c in 1 100; do
		"$HWS_BIN" -q -b sw -e page-faults -c $c -o "$TMP/c$c.data" -- "$HWS_WORKLOADS/faulter" 16 \
			>/dev/null 2>&1
	done
	n1=$("$HWS_BIN" dump -i "$TMP/c1.data" 2>/dev/null | wc -l)
	n100=$("$HWS_BIN" dump -i "$TMP/c100.data" 2>/dev/null | wc -l)
	check "-c 100: about a hundredth of -c 1's samples ($n100 of $n1)" \
		test "$n1" -gt 4000 -a $((n100 * 80)) -lt "$n1" -a $((n100 * 125)) -gt "$n1"
	eq "-c 100: every sample's period is 100" \
		"$("$HWS_BIN" dump -i "$TMP/c100.data" --json | grep -o '"period":[0-9]*' | sort -u)" \
		'"period":100'
fi
# default: cpu-clock at 4000 Hz, as perf
"$HWS_BIN" --dry-run -b sw -- true >"$TMP/dryD" 2>&1
check "default event cpu-clock at 4000 Hz" sh -c "grep -q 'event 0: cpu-clock' '$TMP/dryD' && grep -qE '^  sample_freq +4000$' '$TMP/dryD'"
# --overwrite: backward ring, no watermark
"$HWS_BIN" --dry-run -b sw --overwrite -- true >"$TMP/dryO" 2>&1
check "--overwrite: write_backward" grep -qE '^  write_backward +1$' "$TMP/dryO"
finish
