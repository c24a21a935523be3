# SPDX-License-Identifier: MIT
# Pipe mode (-o -) under real conditions:
#  1. a workload that prints thousands of lines: every line reaches stderr (its stdout is
#     hwsample's stderr, as with perf), none the stream; hwsample dump -i - and
#     perf script -i - decode the stream through a pipe with the summary's sample count;
#  2. a tracepoint: its formats come before the first sample, so dump --json --raw has the
#     fields of every sample and perf script -i - prints them (it crashed before);
#  3. the reader goes away (| head -c 1000, or a reader that never reads and exits): hwsample
#     says so, exits 1 promptly, and the workload and its grandchild are gone;
#  4. stdout closed (>&-) or read-only: -o - is a usage error (2) naming the problem; file
#     mode still works with stdout closed (no event fd lands on fd 1).
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events

# process $1 is gone (or a zombie nobody reaped)

# 1. thousands of lines on the workload's stdout
"$HWS_BIN" -b sw -e page-faults -c 1 -o - -- seq 20000 2>"$TMP/seq.err" |
	tee "$TMP/seq.stream" | "$HWS_BIN" dump -i - >"$TMP/seq.dump" 2>"$TMP/seq.derr"
st=("${PIPESTATUS[@]}")
eq "lines: record exit code" "${st[0]}" 0
eq "lines: dump -i - exit code" "${st[2]}" 0
eq "lines: every line on stderr, in order" "$(grep -xE '[0-9]+' "$TMP/seq.err" | md5sum)" \
	"$(seq 20000 | md5sum)"
eq "lines: the stream starts with the pipe header" "$(head -c 8 "$TMP/seq.stream")" PERFILE2
total=$(summary_total "$TMP/seq.err")
check "lines: samples recorded (${total:-none})" [ "${total:-0}" -gt 0 ]
eq "lines: hwsample dump -i - has the summary's samples" "$(wc -l <"$TMP/seq.dump")" "$total"
perf script -i - <"$TMP/seq.stream" >"$TMP/seq.perf" 2>"$TMP/seq.perr"
eq "lines: perf script -i - exit code" "$?" 0
eq "lines: perf script -i - has the summary's samples" "$(wc -l <"$TMP/seq.perf")" "$total"
check "lines: perf script sees the workload" grep -q ' seq ' "$TMP/seq.perf"

# 2. a tracepoint through a pipe
"$HWS_BIN" -b sw -e sched:sched_switch -a -o - -- sleep 0.3 2>"$TMP/tp.err" |
	tee "$TMP/tp.stream" | "$HWS_BIN" dump -i - --json --raw >"$TMP/tp.json" 2>"$TMP/tp.derr"
st=("${PIPESTATUS[@]}")
eq "tracepoint: record exit code" "${st[0]}" 0
eq "tracepoint: dump exit code" "${st[2]}" 0
n=$(wc -l <"$TMP/tp.json")
check "tracepoint: samples (${n})" [ "$n" -gt 0 ]
eq "tracepoint: dump has the summary's samples" "$n" "$(summary_total "$TMP/tp.err")"
eq "tracepoint: every sample has its fields" \
	"$(grep -c '"raw":{"tracepoint":"sched:sched_switch","prev_comm":' "$TMP/tp.json")" "$n"
check "tracepoint: no empty raw" sh -c "! grep -q '\"raw\":{}' '$TMP/tp.json'"
perf script -i - <"$TMP/tp.stream" >"$TMP/tp.perf" 2>"$TMP/tp.perr"
eq "tracepoint: perf script -i - exit code (no crash)" "$?" 0
eq "tracepoint: perf script -i - prints every sample with its fields" \
	"$(grep -c 'sched:sched_switch: prev_comm=.* ==> next_comm=' "$TMP/tp.perf")" "$n"
# the same next_pid sequence from both readers (in perf's order also when a CPU's sample
# reached the stream a round after a later one of the other CPU: both hold rounds back)
grep -o '"next_pid":[0-9]*' "$TMP/tp.json" | cut -d: -f2 >"$TMP/tp.h"
sed -n 's/.* next_pid=\([0-9]*\) .*/\1/p' "$TMP/tp.perf" >"$TMP/tp.p"
check "tracepoint: hwsample and perf decode the same fields" cmp -s "$TMP/tp.h" "$TMP/tp.p"

# 3. the reader goes away
cat >"$TMP/gc.sh" <<'EOF'
echo "leader $$" >&2
sleep 300 &
echo "grandchild $!" >&2
while :; do :; done
EOF
t0=$(date +%s.%N)
timeout 60 "$HWS_BIN" -b sw -e cpu-clock -F 4000 -o - -- sh "$TMP/gc.sh" 2>"$TMP/h.err" |
	head -c 1000 >/dev/null
rc=${PIPESTATUS[0]}
t=$(echo "$(date +%s.%N) - $t0" | bc)
eq "reader gone (head -c 1000): exit code" "$rc" 1
check "reader gone: said so ($(cat "$TMP/h.err"))" \
	grep -qx "hwsample: the reader of the output pipe went away: stopping" "$TMP/h.err"
check "reader gone: prompt (${t}s)" [ "$(echo "$t < 10" | bc)" = 1 ]
for who in leader grandchild; do
	p=$(sed -n "s/^$who //p" "$TMP/h.err")
	check "reader gone: the workload's $who ran (${p:-?})" [ -n "$p" ]
	[ -n "$p" ] && check "reader gone: the workload's $who is gone" gone "$p"
done

# a reader that exits without reading, while the workload makes no samples: hwsample notices
# the closed pipe (no write fails) and stops
t0=$(date +%s.%N)
timeout 60 "$HWS_BIN" -b sw -e page-faults -o - -- sh -c 'echo "leader $$" >&2; exec sleep 300' \
	2>"$TMP/q.err" | sleep 1
rc=${PIPESTATUS[0]}
t=$(echo "$(date +%s.%N) - $t0" | bc)
eq "idle reader gone: exit code" "$rc" 1
check "idle reader gone: said so" grep -q "the reader of the output pipe went away" "$TMP/q.err"
check "idle reader gone: prompt (${t}s)" [ "$(echo "$t < 10" | bc)" = 1 ]
p=$(sed -n "s/^leader //p" "$TMP/q.err")
[ -n "$p" ] && check "idle reader gone: the workload is gone" gone "$p"

# 4. stdout closed or read-only
echo x >"$TMP/marker.txt"
"$HWS_BIN" -b sw -e cpu-clock -o - -- sh -c "echo ran >'$TMP/ran'" 2>"$TMP/c.err" >&-
eq "-o - with stdout closed: usage error" "$?" 2
check "-o - with stdout closed: named ($(cat "$TMP/c.err"))" \
	grep -q -- "-o -: standard output is closed" "$TMP/c.err"
check "-o - with stdout closed: the workload did not run" test ! -e "$TMP/ran"
"$HWS_BIN" -b sw -e cpu-clock -o - -- true 2>"$TMP/r.err" 1<"$TMP/marker.txt"
eq "-o - with stdout read-only: usage error" "$?" 2
check "-o - with stdout read-only: named" grep -q "open for reading only" "$TMP/r.err"
eq "-o - with stdout read-only: nothing written into it" "$(cat "$TMP/marker.txt")" x
"$HWS_BIN" -q -b sw -e page-faults -c 1 -o "$TMP/closed.data" -- true >&-
eq "file mode with stdout closed: exit code" "$?" 0
check "file mode with stdout closed: perf reads the file" \
	sh -c "perf report --stats -i '$TMP/closed.data' >/dev/null 2>&1"
finish
