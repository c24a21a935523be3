# SPDX-License-Identifier: MIT
# Stopping the whole workload: --duration and SIGTERM to hwsample stop the workload's
# process group, grandchildren included (SIGTERM, then SIGKILL after 2 s for those that
# ignore it); a workload that ends leaving a grandchild running has it stopped too, and the
# summary says so. After hwsample ends, nothing of the workload runs. The file is complete.
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events

# process $1 is gone (or a zombie nobody reaped)
# the workload's leader and grandchild (their pids, printed on stderr) are gone
all_gone() {
	local what=$1 err=$2 p
	for who in leader grandchild; do
		p=$(sed -n "s/^$who //p" "$err")
		check "$what: the workload's $who ran (${p:-?})" [ -n "$p" ]
		[ -n "$p" ] && check "$what: the workload's $who is gone" gone "$p"
	done
	check "$what: perf reads the file" sh -c "perf report --stats -i '${err%.err}.data' >/dev/null 2>&1"
}
elapsed() { echo "$(date +%s.%N) - $1" | bc; }

cat >"$TMP/gc.sh" <<'EOF'
echo "leader $$" >&2
sleep 300 &
echo "grandchild $!" >&2
while :; do :; done
EOF

# --duration
t0=$(date +%s.%N)
"$HWS_BIN" -b sw -e cpu-clock -o "$TMP/d.data" --duration 1 -- sh "$TMP/gc.sh" 2>"$TMP/d.err"
eq "--duration: exit code" "$?" 0
t=$(elapsed "$t0")
check "--duration: stops on time (${t}s)" [ "$(echo "$t >= 1 && $t < 6" | bc)" = 1 ]
check "--duration: summary" grep -q "hwsample stopped it" "$TMP/d.err"
all_gone "--duration" "$TMP/d.err"

# SIGTERM to hwsample
"$HWS_BIN" -b sw -e cpu-clock -o "$TMP/t.data" -- sh "$TMP/gc.sh" 2>"$TMP/t.err" &
hp=$!
for i in $(seq 50); do grep -q grandchild "$TMP/t.err" 2>/dev/null && break; sleep 0.1; done
t0=$(date +%s.%N)
kill -TERM $hp
wait $hp
eq "SIGTERM: exit code (the workload's, killed by SIGTERM)" "$?" 143
t=$(elapsed "$t0")
check "SIGTERM: prompt (${t}s)" [ "$(echo "$t < 5" | bc)" = 1 ]
all_gone "SIGTERM" "$TMP/t.err"

# the leader ends by itself, a grandchild runs on: stopped, and said
"$HWS_BIN" -b sw -e cpu-clock -o "$TMP/l.data" -- \
	sh -c 'echo "leader $$" >&2; sleep 300 & echo "grandchild $!" >&2; exit 3' 2>"$TMP/l.err"
eq "leftover: exit code (the leader's)" "$?" 3
check "leftover: summary says it stopped them" grep -qxF \
	"  processes the workload started were still running in its process group: hwsample stopped them (SIGTERM)" \
	"$TMP/l.err"
all_gone "leftover" "$TMP/l.err"

# a grandchild that ignores SIGTERM: SIGKILL after the grace period (the leader ends once
# the grandchild ignores it)
t0=$(date +%s.%N)
"$HWS_BIN" -b sw -e cpu-clock -o "$TMP/k.data" -- sh -c 'echo "leader $$" >&2;
	sh -c "trap \"\" TERM; touch \"$1\"; while :; do sleep 1; done" & echo "grandchild $!" >&2;
	while [ ! -e "$1" ]; do sleep 0.05; done; exit 0' sh "$TMP/ready" 2>"$TMP/k.err"
eq "SIGTERM ignored: exit code" "$?" 0
t=$(elapsed "$t0")
check "SIGTERM ignored: SIGKILL after about 2 s (${t}s)" [ "$(echo "$t >= 1.9 && $t < 8" | bc)" = 1 ]
check "SIGTERM ignored: summary says SIGKILL" grep -q "(SIGTERM, then SIGKILL)" "$TMP/k.err"
all_gone "SIGTERM ignored" "$TMP/k.err"
finish
