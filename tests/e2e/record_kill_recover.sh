#!/bin/bash
# SPDX-License-Identifier: MIT
# Crash-safe recording: `hwsample record` (cpu-clock, a busy workload) killed with SIGKILL at
# 20 random moments, some 50-400 ms after the start (maybe before its first round: rounds
# come every 200 ms here), most 50-400 ms after its first round of samples. Every file must
# read: hwsample dump exits 1 saying the file is unfinished, why, and how many samples it
# recovered up to which byte, and
#   - recovers exactly the SAMPLE records a small independent parser (python, below) finds
#     whole from the data offset to the first record cut short, at the byte it names;
#   - recovers at least every sample the header vouched for just before the kill (the
#     data size read from the file right before SIGKILL: the rounds written by then);
#   - the header followed the rounds: the first data size seen was below the 256 KiB
#     write buffer (it is rewritten at each round, not only when the buffer fills);
#   - the rounds before the kill hold what they should: at least 80% of the samples a
#     complete twin run takes per second of the workload's CPU time (sum of cpu-clock
#     periods), times the CPU time the workload had used at the kill less 0.4 s (what the
#     rings may hold since the last round: rounds come every 200 ms);
#   - perf (where it reads the file: up to the header's data size) counts exactly the
#     samples the independent parser finds inside that data size;
#   - hwsample report and c2c report say the same of such a file, with exit 1.
# Then `perf record` killed the same way (data size 0 in its header, feature bits set,
# records after it): hwsample recovers every whole SAMPLE record the parser finds (perf 6.1
# itself gives up on such files: "failed to process sample"; if a perf can read one, the
# counts must agree).
. "$(dirname "$0")/lib/common.sh"
need_sw_events
need_python3
W=${HWS_WORKLOADS:-}/cpuburn
[ -x "$W" ] || skip "workload $W not built"
HAVE_PERF=0
have_perf && HAVE_PERF=1

# scan FILE [PRE]: the file as an independent parser sees it, one line:
# "data_size samples_inside_data_size samples_to_cut end cut_bytes samples_inside_PRE
#  period_sum_ns feature_words"
cat >"$TMP/scan.py" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pre = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if len(b) < 104:
    print('none'); sys.exit()
aoff, asz, doff, dsz = struct.unpack_from('<4Q', b, 24)
feats = sum(1 for w in struct.unpack_from('<4Q', b, 72) if w)
st = struct.unpack_from('<Q', b, aoff + 24)[0] if asz and aoff + 32 <= len(b) else 0
# PERIOD (1<<8) follows IDENTIFIER (1<<16), IP, TID, TIME, ADDR, ID, STREAM_ID, CPU (1<<0..7)
ppos = 8 + 8 * sum(1 for bit in (1 << 16, 1, 2, 4, 8, 64, 512, 128) if st & bit)
off, n_in, n_all, n_pre, psum = doff, 0, 0, 0, 0
while off + 8 <= len(b):
    t, m, s = struct.unpack_from('<IHH', b, off)
    if s < 8 or t >= 96:
        break
    tot = s
    if t == 71:  # AUXTRACE: its payload follows
        if s < 16 or off + 16 > len(b):
            break
        tot += struct.unpack_from('<Q', b, off + 8)[0]
    if off + tot > len(b):
        break
    if t == 9:
        n_all += 1
        n_in += off + tot <= doff + dsz
        n_pre += off + tot <= doff + pre
        if st & 256 and ppos + 8 <= s:
            psum += struct.unpack_from('<Q', b, off + ppos)[0]
    off += tot
print(dsz, n_in, n_all, off, len(b) - off, n_pre, psum, feats)
EOF
scan() { python3 "$TMP/scan.py" "$@"; }
# data size in the header of $1 (0 when the file or its header is not there yet)
dsize() { [ -s "$1" ] && od -An -t u8 -j 48 -N 8 "$1" 2>/dev/null | tr -d ' ' || echo 0; }
# SIGKILL for process $1, then for its children (the workload); KIDS_CPU: the CPU time
# (clock ticks) the children had used just before
kill_all() {
	local kids k
	kids=$(cat /proc/"$1"/task/*/children 2>/dev/null)
	KIDS_CPU=0
	for k in $kids; do
		KIDS_CPU=$((KIDS_CPU + $(awk '{print $14 + $15}' /proc/"$k"/stat 2>/dev/null || echo 0)))
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	# shellcheck disable=SC2086
	[ -n "$kids" ] && kill -KILL $kids 2>/dev/null
	return 0
}
ms() { echo $(($(date +%s%N) / 1000000)); }

TCK=$(getconf CLK_TCK)
# the complete twin run: samples per second of the workload's CPU time (cpu-clock periods
# are CPU nanoseconds)
"$HWS_BIN" -q -b sw -e cpu-clock -F 4000 -o "$TMP/twin.data" -- "$W" 4 >/dev/null 2>&1
read -r _ twin_n _ _ _ _ twin_psum twin_feats <<<"$(scan "$TMP/twin.data")"
check "twin run: complete file with samples ($twin_n)" [ "${twin_n:-0}" -gt 100 ]
check "twin run: features" [ "${twin_feats:-0}" -gt 0 ]
twin_rate=$(python3 -c "print(int(${twin_n:-0} / max(${twin_psum:-1}, 1) * 1e9))")
echo "twin run: $twin_n samples, $twin_rate per CPU second"

RANDOM=$(($(date +%s) % 32768))
kills=0 with_rounds=0 perf_checked=0 rate_checked=0
for i in $(seq 1 20); do
	f=$TMP/k$i.data
	"$HWS_BIN" -q -b sw -e cpu-clock -F 4000 -o "$f" -- "$W" 40 >/dev/null 2>"$TMP/k$i.rec" &
	hp=$!
	t0=$(ms)
	first=0
	if [ $((i % 4)) = 1 ]; then
		sleep "0.$(printf %03d $((RANDOM % 350 + 50)))" # maybe before the first round
	else
		# the first round with samples (bounded wait): the header's data size grows past
		# the side-band records written before the workload starts
		while [ "$(dsize "$f")" = 0 ] && [ $(($(ms) - t0)) -lt 5000 ]; do sleep 0.01; done
		sb=$(dsize "$f")
		while [ "$(dsize "$f")" = "$sb" ] && [ $(($(ms) - t0)) -lt 5000 ]; do sleep 0.01; done
		first=$(dsize "$f")
		sleep "0.$(printf %03d $((RANDOM % 350 + 50)))"
	fi
	pre=$(dsize "$f")
	kill_all "$hp"
	kills=$((kills + 1))
	if [ ! -s "$f" ]; then
		echo "kill $i: killed before it created the file"
		continue
	fi
	"$HWS_BIN" dump -i "$f" --csv >"$TMP/k$i.csv" 2>"$TMP/k$i.err"
	rc=$?
	read -r ds n_in n_all end cut n_pre psum feats <<<"$(scan "$f" "$pre")"
	cpu=$KIDS_CPU
	echo "kill $i: data size $pre before the kill, $ds after; samples: $n_pre before," \
		"$n_in inside, $n_all whole to byte $end (+$cut); workload CPU $cpu ticks"
	if [ "$(stat -c %s "$f")" = 104 ]; then
		# killed between creating the file and writing its attrs (microseconds): the
		# placeholder header, an empty file
		eq "kill $i: placeholder file reads empty" "$rc:$(wc -l <"$TMP/k$i.csv")" "0:1"
		continue
	fi
	eq "kill $i: exit code" "$rc" 1
	eq "kill $i: no feature bits" "$feats" 0
	if [ "$ds" = 0 ]; then why="data size 0"; else why="no header features"; fi
	msg="k$i.data is unfinished ($why[^)]*): $n_all samples recovered up to byte $end"
	[ "$cut" != 0 ] && msg="$msg (the $cut bytes after it are no whole record)"
	check "kill $i: message '$msg' (got: $(cat "$TMP/k$i.err"))" grep -q "$msg\$" "$TMP/k$i.err"
	eq "kill $i: every whole sample printed" "$(($(wc -l <"$TMP/k$i.csv") - 1))" "$n_all"
	check "kill $i: at least the samples of the rounds before the kill ($n_all >= $n_pre)" \
		[ "$n_all" -ge "$n_pre" ]
	check "kill $i: data size never goes back ($pre <= $ds)" [ "$pre" -le "$ds" ]
	if [ "$first" != 0 ]; then
		with_rounds=$((with_rounds + 1))
		check "kill $i: data size follows the rounds (first seen $first < 262144)" \
			[ "$first" -lt 262144 ]
		last_f=$f last_msg=$msg
	fi
	# the rounds before the kill: samples for all but the last 0.4 s of the workload's CPU
	want=$(python3 -c "print(max(0, int(0.8 * $twin_rate * ($cpu / $TCK - 0.4))))")
	[ "$want" -gt 0 ] && rate_checked=$((rate_checked + 1))
	check "kill $i: the rounds before the kill ($n_all >= $want: $cpu ticks of CPU)" \
		[ "$n_all" -ge "$want" ]
	if [ "$HAVE_PERF" = 1 ] && [ $((i % 3)) = 0 ]; then
		perf_checked=$((perf_checked + 1))
		pn=$(perf_samples "$f")
		eq "kill $i: perf counts the samples inside the data size" "${pn:-0}" "$n_in"
	fi
done
check "most kills came after a round ($with_rounds)" [ "$with_rounds" -ge 12 ]
echo "$rate_checked kills came late enough for the CPU-time bound to ask for samples"
# report and c2c report say the same of the last such file
if [ -n "${last_f:-}" ]; then
	for cmd in report "c2c report"; do
		# shellcheck disable=SC2086
		"$HWS_BIN" $cmd -i "$last_f" >/dev/null 2>"$TMP/cmd.err"
		eq "$cmd: exit code" "$?" 1
		check "$cmd: the same message" grep -q "^hwsample $cmd: .*$last_msg\$" "$TMP/cmd.err"
	done
fi
[ "$HAVE_PERF" = 1 ] && check "perf cross-checks ran ($perf_checked)" [ "$perf_checked" -ge 5 ]

# perf record killed: data size 0, feature bits set at its start, records after them
if [ "$HAVE_PERF" = 1 ]; then
	for i in 1 2 3; do
		f=$TMP/p$i.data
		# small rings (-m 8): perf writes what it reads at each wakeup, so some records
		# reach the file soon even on a loaded machine
		perf record -q -m 8 -e cpu-clock -F 4000 -o "$f" -- "$W" 40 >/dev/null 2>&1 &
		pp=$!
		t0=$(ms)
		while [ "$(stat -c %s "$f" 2>/dev/null || echo 0)" -lt 20000 ] &&
			[ $(($(ms) - t0)) -lt 10000 ]; do sleep 0.01; done
		sleep "0.$(printf %03d $((RANDOM % 350 + 50)))"
		kill_all "$pp"
		"$HWS_BIN" dump -i "$f" --csv >"$TMP/p$i.csv" 2>"$TMP/p$i.err"
		rc=$?
		read -r ds n_in n_all end cut n_pre psum feats <<<"$(scan "$f")"
		echo "perf kill $i: data size $ds, $n_all whole samples to byte $end (+$cut)"
		eq "perf kill $i: data size 0 in perf's header" "$ds" 0
		check "perf kill $i: samples in the file ($n_all)" [ "$n_all" -gt 0 ]
		eq "perf kill $i: exit code" "$rc" 1
		msg="p$i.data is unfinished (data size 0[^)]*): $n_all samples recovered up to byte $end"
		[ "$cut" != 0 ] && msg="$msg (the $cut bytes after it are no whole record)"
		check "perf kill $i: message '$msg' (got: $(cat "$TMP/p$i.err"))" grep -q "$msg\$" "$TMP/p$i.err"
		eq "perf kill $i: every whole sample printed" "$(($(wc -l <"$TMP/p$i.csv") - 1))" "$n_all"
		pn=$(perf_samples "$f")
		if [ -n "$pn" ]; then
			eq "perf kill $i: perf reads it too, same count" "$pn" "$n_all"
		else
			echo "perf kill $i: perf cannot read the file (as perf 6.1 on killed files)"
		fi
	done
fi
finish
