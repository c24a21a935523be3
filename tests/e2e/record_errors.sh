# SPDX-License-Identifier: MIT
# hws-test: lock perf_event_paranoid
# Bad input gets a clear error that names the problem and the fix, a non-zero exit code,
# and never leaves a half-written file.
. "$(dirname "$0")/lib/common.sh"

expect_err() { # what, exit-code, pattern, args...
	local what=$1 code=$2 pat=$3; shift 3
	"$HWS_BIN" "$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	eq "$what: exit code" "$rc" "$code"
	CHECKS=$((CHECKS + 1))
	if ! grep -qiE -- "$pat" "$TMP/err"; then
		fail "$what: message does not match /$pat/: $(head -c 400 "$TMP/err")"
	fi
}

cd "$TMP"
expect_err "nonexistent backend" 2 "no backend or PMU named 'nosuch'.*available backends:.*sw" -b nosuch -- true
expect_err "unknown sw event" 2 "unknown event 'cpu-clok'.*software events: cpu-clock" -b sw -e cpu-clok -- true
expect_err "empty event name" 2 "-e '': an empty event name" -b sw -e '' -- true
expect_err "empty event in a list" 2 "-e 'cpu-clock,,page-faults': an empty event name" -b sw -e cpu-clock,,page-faults -- true
expect_err "empty output name" 1 "cannot create '': No such file" -b sw -o '' -- true
expect_err "unknown tracepoint" 2 "unknown tracepoint nosys:noevent" -b sw -e nosys:noevent -- true
expect_err "control on sw" 2 "has no controls.*foo=1" -b sw foo=1 -- true
expect_err "negative period" 2 "-c '-5': expected a positive whole number" -b sw -c -5 -- true
expect_err "zero period" 2 "-c 0: out of range" -b sw -c 0 -- true
expect_err "absurd period" 2 "-c '99999999999999999999999': expected a positive whole number" -b sw -c 99999999999999999999999 -- true
expect_err "junk period" 2 "-c '10x': expected a positive whole number" -b sw -c 10x -- true
expect_err "frequency above the kernel limit" 2 "exceeds the kernel's limit.*perf_event_max_sample_rate" -b sw -F 100000000 -- true
expect_err "both -F and -c" 2 "either -F FREQ or -c PERIOD" -b sw -F 100 -c 100 -- true
expect_err "-m 0" 2 "-m 0: out of range" -b sw -m 0 -- true
expect_err "-m junk" 2 "-m 'x': expected" -b sw -m x -- true
expect_err "bad -C" 2 "-C 0-x: not a CPU list" -b sw -C 0-x -- true
expect_err "offline CPU" 2 "CPU 4000 is not online" -b sw -C 4000 -- true
expect_err "nothing to record" 2 "nothing to record" -b sw
expect_err "unknown option" 2 "unknown option '--bogus'" -b sw --bogus -- true
expect_err "-p of a dead process" 1 "no such process" -b sw -p 999999999
expect_err "workload not found" 1 "cannot run '/nonexistent/prog': No such file" -b sw -o "$TMP/nf.data" -- /nonexistent/prog
check "workload not found: no output left behind" [ ! -e "$TMP/nf.data" ]
# and an existing output survives a failed start
echo keep >"$TMP/keep.data"
"$HWS_BIN" -b sw -o "$TMP/keep.data" -- /nonexistent/prog 2>/dev/null
eq "failed start keeps the previous file" "$(cat "$TMP/keep.data")" keep

# plugins: a missing directory, and a plugin built against a newer ABI
if [ "${HWS_BIN_STATIC:-}" != "$HWS_BIN" ]; then
	expect_err "missing plugin dir" 1 "backend directory /nonexistent/plugins \(--backend-dir\) does not exist" --backend-dir /nonexistent/plugins list
	HWS_BACKEND_DIR=/nonexistent/env "$HWS_BIN" list >/dev/null 2>"$TMP/err"
	eq "missing \$HWS_BACKEND_DIR: exit code" "$?" 1
	check "missing \$HWS_BACKEND_DIR named" grep -q '/nonexistent/env (\$HWS_BACKEND_DIR) does not exist' "$TMP/err"
	mkdir -p "$TMP/plugins"
	cat >"$TMP/bad.c" <<'CEOF'
#include <hwsample/backend.h>
static const struct hws_backend_ops ops = { .abi_version = 99, .size = sizeof(ops), .name = "bad" };
HWS_BACKEND_DEFINE(ops)
CEOF
	cat >"$TMP/nocb.c" <<'CEOF'
#include <hwsample/backend.h>
static int init(void *p, const struct hws_host *h) { return 0; }
static const struct hws_backend_ops ops = { .abi_version = HWS_BACKEND_ABI_VERSION, .size = sizeof(ops), .name = "nocb", .init = init };
HWS_BACKEND_DEFINE(ops)
CEOF
	if cc -shared -fPIC -I"$HWS_SOURCE_DIR/include" -o "$TMP/plugins/hws-bad.so" "$TMP/bad.c" 2>/dev/null; then
		expect_err "plugin with a newer ABI" 1 "hws-bad.so: backend plugin ABI version 99, this hwsample supports 3..3: rebuild" --backend-dir "$TMP/plugins" list
		rm "$TMP/plugins/hws-bad.so"
		cc -shared -fPIC -I"$HWS_SOURCE_DIR/include" -o "$TMP/plugins/hws-nocb.so" "$TMP/nocb.c"
		expect_err "plugin missing a callback" 1 "hws-nocb.so: backend plugin lacks required callback 'detect'" --backend-dir "$TMP/plugins" list
		rm "$TMP/plugins/hws-nocb.so"
		echo "not an elf" >"$TMP/plugins/hws-junk.so"
		expect_err "plugin that is not a shared object" 1 "cannot load backend plugin .*hws-junk.so" --backend-dir "$TMP/plugins" list
	fi
	# every plugin resolves nothing from core: only libc/libs, no hws_ symbols
	for so in "$HWS_BACKEND_DIR"/hws-*.so; do
		[ -e "$so" ] || continue
		CHECKS=$((CHECKS + 1))
		if nm -D --undefined-only "$so" | grep -q ' hws_'; then fail "$so has undefined hws_ symbols"; fi
	done
fi

# no permission: an unprivileged user with kernel.perf_event_paranoid=2 cannot record -a
if [ -n "$(unpriv_user)" ]; then
	old=$(cat /proc/sys/kernel/perf_event_paranoid)
	echo 2 >/proc/sys/kernel/perf_event_paranoid
	chmod 1777 "$TMP"
	runuser -u hwsample-test -- "$HWS_BIN" -b sw -e cpu-clock -a -o "$TMP/u.data" -- true >/dev/null 2>"$TMP/err"
	rc=$?
	eq "unprivileged -a: exit code" "$rc" 4
	check "unprivileged -a: names paranoid and the fix" grep -qE "permission denied. kernel.perf_event_paranoid is 2; run as root, give hwsample CAP_PERFMON" "$TMP/err"
	# ring larger than the unprivileged mlock limit (perf_event_mlock_kb) -> clear error
	runuser -u hwsample-test -- sh -c "ulimit -l 64; '$HWS_BIN' -b sw -e cpu-clock -m 4096 -o '$TMP/u2.data' -- true" >/dev/null 2>"$TMP/err"
	rc=$?
	eq "mlock limit: exit code" "$rc" 4
	check "mlock limit: names the limit and the fix" grep -q "locked-memory limit refuses it (kernel.perf_event_mlock_kb" "$TMP/err"
	# per-task user-only recording still works unprivileged
	runuser -u hwsample-test -- "$HWS_BIN" -q -b sw -e cpu-clock:u -o "$TMP/u3.data" -- true >/dev/null 2>"$TMP/err"
	eq "unprivileged per-task cpu-clock:u works" "$?" 0
	echo 3 >/proc/sys/kernel/perf_event_paranoid
	runuser -u hwsample-test -- "$HWS_BIN" -b sw -e cpu-clock -o "$TMP/u4.data" -- true >/dev/null 2>"$TMP/err"
	rc=$?
	echo "$old" >/proc/sys/kernel/perf_event_paranoid
	if [ $rc != 0 ]; then
		eq "paranoid 3: exit code" "$rc" 4
		check "paranoid 3: names paranoid" grep -q "perf_event_paranoid is 3" "$TMP/err"
	else
		echo "note: this kernel lets paranoid=3 users open per-task events (no Debian paranoid-3 patch)"
	fi
fi
finish
