# SPDX-License-Identifier: MIT
# The record path in perf's four modes, on software events: the number of samples hwsample
# reports equals what perf script and perf report --stats count in the file it wrote.
# hws-test: static-too
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events

spin='i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done'
run_mode() { # name, args...
	local name=$1; shift
	"$HWS_BIN" -b sw -e cpu-clock,page-faults -F 2000 -o "$TMP/$name.data" "$@" 2>"$TMP/$name.err"
	local rc=$?
	eq "$name: exit code" "$rc" 0
	local hws; hws=$(summary_total "$TMP/$name.err")
	local stats; stats=$(perf_samples "$TMP/$name.data")
	local script; script=$(perf_script_lines "$TMP/$name.data")
	check "$name: some samples recorded" [ "${hws:-0}" -gt 0 ]
	eq "$name: hwsample summary vs perf report --stats" "$hws" "$stats"
	eq "$name: hwsample summary vs perf script" "$hws" "$script"
}
run_mode default -- sh -c "$spin"
run_mode per_thread --per-thread -- sh -c "$spin"
run_mode cpu_list -C 0 -- sh -c "$spin"
run_mode system_wide -a -- sh -c "$spin"

# per-CPU rings: -a on every online CPU gives samples on each CPU (cpu-clock ticks idle too)
# (its own run with one spinner per CPU: this kernel does not tick cpu-clock on an idle CPU,
# perf record -a sees the same)
ncpu=$(getconf _NPROCESSORS_ONLN)
"$HWS_BIN" -q -b sw -e cpu-clock -F 1000 -a -o "$TMP/allcpu.data" -- \
	sh -c "for c in \$(seq $ncpu); do (i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done) & done; wait" 2>/dev/null
seen=$(perf script -F cpu -i "$TMP/allcpu.data" 2>/dev/null | sort -u | wc -l)
eq "system_wide: samples on every CPU" "$seen" "$ncpu"
# -a synthesizes side-band for processes that already existed: COMM, FORK of extra
# threads, MMAP2 of their executable maps, and the kernel map
sleep 5 &
old=$!
"$HWS_BIN" -q -b sw -e cpu-clock -a -o "$TMP/synth.data" -- sleep 0.1 2>/dev/null
perf report -D -i "$TMP/synth.data" 2>/dev/null >"$TMP/synth.txt"
kill $old 2>/dev/null; wait $old 2>/dev/null
check "-a: COMM of a process started before the run" grep -q "PERF_RECORD_COMM: sleep:$old/$old" "$TMP/synth.txt"
check "-a: MMAP2 of its executable" grep -qE "PERF_RECORD_MMAP2 $old/$old: .*r-xp .*/sleep" "$TMP/synth.txt"
check "-a: kernel map synthesized" grep -q "kernel.kallsyms" "$TMP/synth.txt"
# -C 0: only CPU 0
cpus=$(perf script -F cpu -i "$TMP/cpu_list.data" 2>/dev/null | sort -u | tr -d ' []')
eq "cpu_list: only cpu 0" "$cpus" "000"

# the default mode follows children (inherit): a forked child's samples are recorded. The
# parent spins too: a parent that only forks and waits is on the CPU for less than a sample
# period and was sometimes never sampled (1 pid seen on a loaded machine)
"$HWS_BIN" -q -b sw -e cpu-clock -F 2000 -o "$TMP/inh.data" -- sh -c "$spin; sh -c '$spin'" 2>/dev/null
nproc_seen=$(perf script -F pid -i "$TMP/inh.data" 2>/dev/null | sort -u | wc -l)
check "inherit: samples from parent and child ($nproc_seen pids)" [ "$nproc_seen" -ge 2 ]
# --per-thread does not inherit: only the parent shell
"$HWS_BIN" -q -b sw -e cpu-clock -F 2000 --per-thread -o "$TMP/noinh.data" -- sh -c "sh -c '$spin'; true" 2>/dev/null
nproc_seen=$(perf script -F pid -i "$TMP/noinh.data" 2>/dev/null | sort -u | wc -l)
check "per-thread: no child samples ($nproc_seen pids)" [ "$nproc_seen" -le 1 ]

# page faults carry the data address with -d, and perf sees ADDR
"$HWS_BIN" -q -b sw -e page-faults -c 1 -d -o "$TMP/pf.data" -- sh -c 'true' 2>/dev/null
naddr=$(perf script -F addr -i "$TMP/pf.data" 2>/dev/null | grep -c '[0-9a-f]')
check "page-faults -d: addresses present ($naddr)" [ "$naddr" -gt 0 ]

# pipe mode (-o -): perf script and hwsample dump read the stream as it is written
"$HWS_BIN" -b sw -e cpu-clock -F 2000 -o - -- sh -c "$spin" 2>"$TMP/pipe.err" >"$TMP/pipe.data"
eq "-o -: exit code" "$?" 0
n_hws=$(summary_total "$TMP/pipe.err")
check "-o -: samples recorded (${n_hws:-0})" [ "${n_hws:-0}" -gt 0 ]
eq "-o -: perf script reads the stream" "$(perf script -i - <"$TMP/pipe.data" 2>/dev/null | wc -l)" "$n_hws"
eq "-o -: hwsample dump reads the stream" "$("$HWS_BIN" dump -i - <"$TMP/pipe.data" 2>/dev/null | grep -c cpu-clock)" "$n_hws"

# -p PID attaches to a running process; side-band synthesized (COMM of the target present)
sh -c "while :; do $spin; done" &
bp=$!
"$HWS_BIN" -b sw -e cpu-clock -F 1000 -p $bp -o "$TMP/pid.data" 2>"$TMP/pid.err" &
hp=$!
sleep 1
kill -INT $hp
wait $hp
eq "-p: exit code after SIGINT" "$?" 0
kill $bp 2>/dev/null; wait $bp 2>/dev/null
check "-p: samples recorded" [ "$(perf_samples "$TMP/pid.data")" -gt 0 ]
check "-p: COMM synthesized for the target" sh -c "perf report -D -i '$TMP/pid.data' 2>/dev/null | grep -q 'PERF_RECORD_COMM: sh:$bp/$bp'"
check "-p: samples of the target pid" sh -c "perf script -F pid -i '$TMP/pid.data' 2>/dev/null | grep -qw $bp"
finish
