# SPDX-License-Identifier: MIT
# hws-test: lock perf_event_paranoid
# Permission problems are diagnosed from what the kernel says, exit 4, and name the fix:
#  - perf_event_open refused (a seccomp filter, as in containers): hwsample list says
#    "refused" whatever perf_event_paranoid suggests, record exits 4 and names seccomp;
#  - hwsample list at each perf_event_paranoid level tells what perf_event_open really does
#    for an unprivileged user (perf, run as that user, is the oracle), not what the level
#    means on some other kernel (Debian's 3 refuses everything, upstream's acts as 2);
#  - tracefs there but unreadable (mode 700, the default), files unreadable, or tracefs not
#    mounted and the user may not mount it: exit 4 with the fix, never "not mounted" when it
#    is. Faked with tmpfs trees over /sys/kernel/tracing in a private mount namespace
#    (never by mounting tracefs with mode=/gid=: its options are global to the machine).
. "$(dirname "$0")/lib/common.sh"
need_root
DENY=${HWS_WORKLOADS:-}/deny_perf
[ -x "$DENY" ] || skip "$DENY not built"

# 1. perf_event_open refused by seccomp, as root
"$DENY" true 2>"$TMP/err" || skip "no seccomp filter here: $(cat "$TMP/err")"
"$DENY" "$HWS_BIN" list >"$TMP/out" 2>&1
eq "seccomp: list exit" $? 0
check "seccomp: list says what perf_event_open answered ($(head -1 "$TMP/out"))" \
	grep -qE '^kernel .*, perf_event_paranoid -?[0-9]+, privileged \(root or CAP_PERFMON\), perf_event_open tried: refused \(Permission denied\)$' "$TMP/out"
check "seccomp: sw not usable: permission" grep -qE '^sw +not usable: permission' "$TMP/out"
check "seccomp: the reason is not the sysctl" grep -q 'a seccomp filter (container) or a security module refuses perf_event_open' "$TMP/out"
"$DENY" "$HWS_BIN" -b sw -e cpu-clock -o "$TMP/d.data" -- true >/dev/null 2>"$TMP/err"
rc=$?
eq "seccomp: record exit ($(cat "$TMP/err"))" $rc 4
check "seccomp: record names it" grep -q 'permission denied although hwsample runs as root: a seccomp filter' "$TMP/err"
check "seccomp: no file left" test ! -e "$TMP/d.data"
if command -v perf >/dev/null; then
	"$DENY" perf stat -e cpu-clock true >/dev/null 2>&1
	check "seccomp: perf is refused too (the oracle agrees)" test $? != 0
fi
"$HWS_BIN" list >"$TMP/out" 2>&1
check "no filter: root may do everything" grep -qE '^kernel .*, privileged \(root or CAP_PERFMON\), perf_event_open tried: every mode allowed$' "$TMP/out"

U=$(unpriv_user)
if [ -z "$U" ]; then
	echo "SKIPPED: the unprivileged checks (list per perf_event_paranoid level, tracefs" \
		"permissions): no usable unprivileged user (see the note above)"
	finish
	exit
fi
chmod 1777 "$TMP"
as_user() { runuser -u "$U" -- "$@"; }

# 2. list per perf_event_paranoid level against what perf does for the same user
need_perf
par0=$(cat /proc/sys/kernel/perf_event_paranoid)
trap 'echo "$par0" >/proc/sys/kernel/perf_event_paranoid; rm -rf "$TMP"' EXIT
for level in 3 1 0; do
	echo "$level" >/proc/sys/kernel/perf_event_paranoid
	as_user "$HWS_BIN" list >"$TMP/out" 2>&1
	eq "paranoid $level: list exit" $? 0
	head=$(head -1 "$TMP/out")
	as_user perf stat -e cpu-clock:u true >/dev/null 2>&1 && pu=1 || pu=0
	# (:k: a plain cpu-clock falls back to user space only in perf stat)
	as_user perf stat -e cpu-clock:k true >/dev/null 2>&1 && pk=1 || pk=0
	as_user perf stat -a -e cpu-clock:u true >/dev/null 2>&1 && pa=1 || pa=0
	check "paranoid $level: the level is shown ($head)" grep -qE "^kernel .*, perf_event_paranoid $level, unprivileged, perf_event_open tried: " <<<"$head"
	if [ $pu = 0 ]; then
		want='refused \(Permission denied\)'
	elif [ $pk = 1 ] && [ $pa = 1 ]; then
		want='every mode allowed'
	else
		want="own processes, $([ $pk = 1 ] && echo 'user and kernel' || echo 'user space only')$([ $pa = 1 ] && echo ', -a/-C allowed' || echo ' \(no -a/-C\)')"
	fi
	check "paranoid $level: list agrees with perf (user $pu kernel $pk cpu-wide $pa): $head" \
		grep -qE "perf_event_open tried: $want\$" <<<"$head"
	if [ $pu = 1 ]; then
		check "paranoid $level: sw usable" grep -qE '^sw +usable' "$TMP/out"
		as_user "$HWS_BIN" -q -b sw -e cpu-clock:u -o "$TMP/u$level.data" -- true >/dev/null 2>"$TMP/err"
		rc=$?
		eq "paranoid $level: what list promises, record does ($(cat "$TMP/err"))" $rc 0
		if [ $pk = 0 ]; then
			# kernel samples refused: user space only, as perf stat did, said in user words
			as_user "$HWS_BIN" -q -b sw -e cpu-clock -o "$TMP/k$level.data" -- true >/dev/null 2>"$TMP/err"
			rc=$?
			eq "paranoid $level: cpu-clock falls back to user space ($(cat "$TMP/err"))" $rc 0
			check "paranoid $level: the fallback is said without a module prefix" \
				grep -qE "^hwsample: cpu-clock: no permission for kernel samples \(kernel.perf_event_paranoid is $level\): recording user space only" "$TMP/err"
		fi
	else
		check "paranoid $level: sw not usable: permission" grep -qE '^sw +not usable: permission' "$TMP/out"
		check "paranoid $level: the fix" grep -q 'give hwsample CAP_PERFMON, or sysctl kernel.perf_event_paranoid=2' "$TMP/out"
		as_user "$HWS_BIN" -q -b sw -e cpu-clock:u -o "$TMP/u$level.data" -- true >/dev/null 2>&1
		eq "paranoid $level: record refused as list said" $? 4
	fi
done
echo "$par0" >/proc/sys/kernel/perf_event_paranoid

# 3. tracefs permissions as the unprivileged user, on fake trees in a private mount namespace
if ! unshare -m true 2>/dev/null; then
	echo "SKIPPED: tracefs permission checks: unshare -m is not allowed here"
	finish
	exit
fi
id=$(cat /sys/kernel/tracing/events/sched/sched_switch/id 2>/dev/null || echo 300)
cat >"$TMP/ns.sh" <<EOF
set -u
T=/sys/kernel/tracing
run() { runuser -u $U -- "$HWS_BIN" --dry-run -b sw -e sched:sched_switch -- true >"$TMP/\$1.out" 2>"$TMP/\$1.err"; echo \$? >"$TMP/\$1.rc"; }
# no debugfs copy of tracing either
mount -t tmpfs -o mode=755 none /sys/kernel/debug
# a: tracefs mounted 0700 (the kernel's default)
mount -t tmpfs -o mode=700 none \$T && mkdir -p \$T/events/sched/sched_switch && echo $id >\$T/events/sched/sched_switch/id
run a
umount \$T
# b: the directory is open, the event's files are root's (0440)
mount -t tmpfs -o mode=755 none \$T && mkdir -p \$T/events/sched/sched_switch && echo $id >\$T/events/sched/sched_switch/id && chmod 440 \$T/events/sched/sched_switch/id
run b
# ok: the same tree readable: the tracepoint resolves (the fake tree is the one used)
chmod 444 \$T/events/sched/sched_switch/id
run ok
umount \$T
# c: not mounted at all, and a user may not mount it
mount -t tmpfs -o mode=755 none \$T
run c
umount \$T
EOF
unshare -m sh "$TMP/ns.sh"
eq "tracefs 0700: exit ($(cat "$TMP/a.err"))" "$(cat "$TMP/a.rc")" 4
check "tracefs 0700: a permission problem, not 'not mounted'" grep -q 'sched:sched_switch: no permission to read tracefs (/sys/kernel/tracing)' "$TMP/a.err"
check "tracefs 0700: the fix" grep -q 'run as root, or (as root) let a group of this user read tracefs: mount -o remount,gid=GROUP,mode=750 /sys/kernel/tracing' "$TMP/a.err"
check "tracefs 0700: no 'not mounted'" bash -c "! grep -q 'not mounted' '$TMP/a.err'"
eq "event files 0440: exit ($(cat "$TMP/b.err"))" "$(cat "$TMP/b.rc")" 4
check "event files 0440: names the file" grep -q 'no permission to read /sys/kernel/tracing/events/sched/sched_switch/id: run as root' "$TMP/b.err"
eq "readable fake tree: exit ($(cat "$TMP/ok.err"))" "$(cat "$TMP/ok.rc")" 0
check "readable fake tree: the tracepoint's id is the tree's" grep -qE "^  config +$(printf '0x%x' "$id")\$" "$TMP/ok.out"
eq "not mounted, user: exit ($(cat "$TMP/c.err"))" "$(cat "$TMP/c.rc")" 4
check "not mounted, user: mounting needs root" grep -q 'tracefs is not mounted, and mounting it needs root: run as root, or (as root) mount -t tracefs nodev /sys/kernel/tracing' "$TMP/c.err"
check "the fake trees stayed in their namespace" test "$(stat -f -c %T /sys/kernel/tracing)" != tmpfs
finish
