# SPDX-License-Identifier: MIT
# The status line: on a terminal (a pseudo-terminal from script(1)), one line rewritten about
# once a second with elapsed time, samples and rate, loss, bytes written and ring fill; it is
# erased before the summary. Not shown when stderr is a file or a pipe, nor with -q or
# --no-status. Run as a new user would: hwsample -c cfg/cpu-profile.conf ...
. "$(dirname "$0")/lib/common.sh"

command -v script >/dev/null 2>&1 || skip "script(1) (util-linux) not installed"
need_sw_events
cd "$HWS_SOURCE_DIR" || exit 1

# tty RUN-ARGS...: run hwsample under a pseudo-terminal, typescript in $TMP/ts
tty() {
	local cmd="$HWS_BIN"
	for a in "$@"; do cmd+=" $(printf '%q' "$a")"; done
	script -qfec "$cmd" "$TMP/ts" >/dev/null 2>&1
	# one line per \r-separated update
	tr '\r' '\n' <"$TMP/ts" | sed 's/\x1b\[K//g' >"$TMP/lines"
}

tty -c cfg/cpu-profile.conf -a --duration 3.5 -o "$TMP/s.data"
check "typescript written" test -s "$TMP/ts"
# loss in the summary's words, only the counters that are not 0 (else "nothing lost")
WORD='(lost [0-9]+ records|lost samples [0-9]+|throttled [0-9]+ times|AUX truncated [0-9]+ collisions [0-9]+)'
LOSS="(nothing lost|$WORD(, $WORD)*)"
STATUS="^\\[ ([0-9]+)s \\] ([0-9]+) samples \\(([0-9]+)/s\\), $LOSS, [0-9.]+ [KM]B written, ring max [0-9]+%\$"
grep -E "$STATUS" "$TMP/lines" >"$TMP/status"
n=$(wc -l <"$TMP/status")
check "about one update a second over 3.5 s (got $n: $(head -c 600 "$TMP/lines"))" test "$n" -ge 2 -a "$n" -le 5
check "rewritten in place (carriage return + erase line)" grep -q $'\r\x1b\\[K\\[ 1s \\]' "$TMP/ts"
# elapsed seconds go up, sample counts never go down
prev_t=0 prev_s=0 ok=1
while read -r line; do
	[[ $line =~ $STATUS ]] || continue
	t=${BASH_REMATCH[1]} s=${BASH_REMATCH[2]}
	[ "$t" -gt "$prev_t" ] && [ "$s" -ge "$prev_s" ] || ok=0
	prev_t=$t prev_s=$s
done <"$TMP/status"
check "elapsed increases, samples never decrease ($(cat "$TMP/status"))" test $ok = 1
check "samples counted while running" test "$prev_s" -gt 0
# the line is erased before the summary, and the summary has the totals and the hint
# (a library message, e.g. a ring that overflowed, may erase it earlier and take its place)
check "erased before the summary" grep -q '^\[ hwsample: recorded' "$TMP/lines"
check "summary not glued to a status line" test "$(grep -c '%\[ hwsample: recorded' "$TMP/lines")" = 0
check "summary per event" grep -qE '^  cpu-clock +[0-9]+ samples +\(cpu[0-9]+ [0-9]+' "$TMP/lines"
check "summary totals" grep -qE '^  total [0-9]+ samples, lost [0-9]+ records, lost samples [0-9]+, throttled [0-9]+ times; ring max fill [0-9]+%; [0-9.]+ [KM]B written' "$TMP/lines"
check "next-command hint" grep -q "next: hwsample report -i $TMP/s.data" "$TMP/lines"
final=$(sed -n 's/^  total \([0-9]*\) samples.*/\1/p' "$TMP/lines")
check "final total >= last status ($final >= $prev_s)" test "${final:-0}" -ge "$prev_s"

# not a terminal: no status line, no escape sequences
"$HWS_BIN" -c cfg/cpu-profile.conf -a --duration 1.2 -o "$TMP/n.data" 2>"$TMP/err" </dev/null
check "stderr to a file: no status line" test -z "$(grep -c $'\x1b' "$TMP/err" | grep -v '^0$')"
check "stderr to a file: summary still there" grep -q '^\[ hwsample: recorded' "$TMP/err"

# -q and --no-status on a terminal
tty -c cfg/cpu-profile.conf -a --duration 1.2 --no-status -o "$TMP/q.data"
check "--no-status: no status line" test "$(grep -cE "$STATUS" "$TMP/lines")" = 0
check "--no-status: summary kept" grep -q '^\[ hwsample: recorded' "$TMP/lines"
tty -q -c cfg/cpu-profile.conf -a --duration 1.2 -o "$TMP/q.data"
check "-q: nothing on the terminal ($(head -c 300 "$TMP/lines"))" test "$(grep -cE "$STATUS|recorded" "$TMP/lines")" = 0

# loss: the status line and the summary count the same loss in the same words. One sample per
# page fault into a one-page ring (-m 1) while a workload faults for 3 s: records are lost
# (here about a fifth of them).
faulter=${HWS_WORKLOADS:-}/faulter
if [ -x "$faulter" ]; then
	# a wide terminal: the status line is cut to the terminal's width (80 columns in script)
	script -qfec "stty cols 200; $HWS_BIN -b sw -e page-faults -c 1 -m 1 --duration 3 -o $TMP/l.data -- \
		sh -c 'while :; do $faulter 16; done'" "$TMP/ts" >/dev/null 2>&1
	tr '\r' '\n' <"$TMP/ts" | sed 's/\x1b\[K//g' >"$TMP/lines"
	grep -E '^\[ [0-9]+s \] ' "$TMP/lines" >"$TMP/status"
	check "lossy run: status lines shown" test -s "$TMP/status"
	check "lossy run: every status line in the summary's words ($(grep -vE "$STATUS" "$TMP/status" | head -2))" \
		test "$(grep -cvE "$STATUS" "$TMP/status")" = 0
	tot=$(grep -E '^  total [0-9]+ samples, ' "$TMP/lines")
	check "lossy run: summary total line ($tot)" test -n "$tot"
	# every counter of every status line is at most the summary's (they only grow)
	for w in 'lost ([0-9]+) records' 'lost samples ([0-9]+)' 'throttled ([0-9]+) times'; do
		fin=$(sed -nE "s/.*$w.*/\1/p" <<<"$tot")
		max=$(sed -nE "s/.*$w.*/\1/p" "$TMP/status" | sort -n | tail -1)
		check "lossy run: '$w' in status (${max:-0}) <= summary (${fin:-none})" \
			test -n "$fin" -a "${max:-0}" -le "${fin:-0}"
	done
	lost=$(sed -nE 's/.*lost ([0-9]+) records.*/\1/p' <<<"$tot")
	if [ "${lost:-0}" -gt 0 ]; then
		check "lossy run: the per-CPU summary says 'lost N records' too" \
			grep -qE '^  page-faults +[0-9]+ samples +\(.*cpu[0-9]+ [0-9]+ lost [0-9]+ records' "$TMP/lines"
		# the ring's own warning (once, at the first loss) is the program's, in the same words
		check "lossy run: the live warning is user-facing" \
			grep -qE '^hwsample: lost [0-9]+ records: a ring buffer was full .*use a larger ring \(-m\) or a lower rate \(-c/-F\)' "$TMP/lines"
		check "lossy run: no module prefix" test "$(grep -cE '^(hwsample: )?(ring|aux|session): ' "$TMP/lines")" = 0
	fi
	if grep -qE 'lost [0-9]+ records' "$TMP/status"; then
		check "lossy run: the summary warns about the lost records" \
			grep -q "WARNING: $lost records were lost because the ring was full" "$TMP/lines"
	else
		echo "note: no status line showed lost records (loss ${lost:-?} after the last update)"
	fi
	# a library warning never lands on the status line: the line is erased first
	check "lossy run: no message glued to a status line" \
		test "$(grep -cE '% ?hwsample' "$TMP/lines")" = 0
else
	echo "note: $faulter not built: the lossy status line is not checked"
fi
finish
