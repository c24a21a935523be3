# SPDX-License-Identifier: MIT
# The workload at a terminal (an interactive bash on a pseudo-terminal, driven by
# record_tty.py): its process group gets the terminal, so Ctrl-C reaches it and its
# grandchild (hwsample finishes the file and exits 130), Ctrl-Z stops it and hwsample (the
# shell shows the job stopped) and fg continues both, it can read the terminal, and Ctrl-C
# in a script's loop stops the script as it does with perf record.
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events
need_python3 "drives the terminal"
command -v bash >/dev/null 2>&1 || skip "bash not installed"
PY=$(dirname "$0")/record_tty.py

cat >"$TMP/gc.sh" <<'EOS'
sleep 300 &
printf 'leader %s\ngrandchild %s\n' $$ $! >gc.pids
cat gc.pids >&2
while :; do :; done
EOS

term() { # term SCENARIO: the terminal's text in $TMP/$1.out, the helper's notes in .notes
	rm -f "$TMP/gc.pids" "$TMP/tty.data"
	timeout 90 python3 "$PY" "$HWS_BIN" "$TMP" "$1" >"$TMP/$1.out" 2>"$TMP/$1.notes"
}
workload_gone() {
	local p
	for who in leader grandchild; do
		p=$(sed -n "s/^$who //p" "$TMP/gc.pids" 2>/dev/null)
		check "$1: the workload's $who ran (${p:-?})" [ -n "$p" ]
		[ -n "$p" ] && check "$1: the workload's $who is gone" gone "$p"
	done
}
file_ok() {
	check "$1: perf reads the file" sh -c "perf report --stats -i '$TMP/tty.data' >/dev/null 2>&1"
	check "$1: it has samples" [ "$(perf_samples "$TMP/tty.data")" -gt 0 ]
}

term ctrl-c
check "Ctrl-C: the summary says the workload was interrupted ($(tail -c 600 "$TMP/ctrl-c.out"))" \
	grep -q "workload killed by signal 2 (Interrupt)" "$TMP/ctrl-c.out"
check "Ctrl-C: exit status 130" grep -qx "rc=130" "$TMP/ctrl-c.out"
workload_gone "Ctrl-C"
file_ok "Ctrl-C"

term ctrl-z
check "Ctrl-Z: the shell shows the job stopped ($(tail -c 600 "$TMP/ctrl-z.out"))" \
	grep -q "Stopped.*hwsample" "$TMP/ctrl-z.out"
check "Ctrl-Z: the workload and hwsample stopped ($(cat "$TMP/ctrl-z.notes"))" \
	grep -qx "stopped: leader T hwsample T" "$TMP/ctrl-z.notes"
check "fg: both running again" grep -qE "^fg: leader R hwsample [RS]$" "$TMP/ctrl-z.notes"
check "fg, then Ctrl-C: exit status 130" grep -qx "rc=130" "$TMP/ctrl-z.out"
workload_gone "Ctrl-Z"
file_ok "Ctrl-Z"

term read
check "the workload reads the terminal ($(tail -c 600 "$TMP/read.out"))" grep -qx "got:hello" "$TMP/read.out"
check "reading: its status" grep -qx "rc=5" "$TMP/read.out"

term loop
check "Ctrl-C in a script's loop stops the script ($(tail -c 600 "$TMP/loop.out"))" \
	sh -c "! grep -qxE 'iter:2|loop-done' '$TMP/loop.out'"
check "loop: the script ended by SIGINT (130)" grep -qx "rc=130" "$TMP/loop.out"
finish
