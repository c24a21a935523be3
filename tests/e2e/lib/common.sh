# SPDX-License-Identifier: MIT
# Shared helpers for tests/e2e/*.sh. Source it: . "$(dirname "$0")/lib/common.sh"
set -u
: "${HWS_BIN:?run through ctest (HWS_BIN unset)}"
TMP=$(mktemp -d /tmp/hws-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
CHECKS=0

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
check() { # check "what" command...
	local what=$1; shift
	CHECKS=$((CHECKS + 1))
	if ! "$@"; then fail "$what"; fi
}
eq() { # eq "what" got want
	CHECKS=$((CHECKS + 1))
	if [ "$2" != "$3" ]; then fail "$1: got '$2' want '$3'"; fi
}
skip() { echo "SKIP: $*"; exit 77; }
need_perf() { command -v perf >/dev/null 2>&1 || skip "perf (Debian linux-perf) not installed"; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
# can we open software events at all here?
need_sw_events() {
	"$HWS_BIN" -q -b sw -e cpu-clock -c 1000000 -o "$TMP/probe.data" -- true >/dev/null 2>&1 ||
		skip "perf_event_open of software events refused here (perf_event_paranoid / seccomp)"
}
# number of SAMPLE records perf counts in a file
# An unprivileged user for permission tests: prints its name, or nothing (with the reason on
# stderr) when we are not root, the tools are missing, or that user cannot execute $HWS_BIN
# (e.g. the tree was cloned under a private directory such as one made by mktemp -d).
unpriv_user() {
	[ "$(id -u)" = 0 ] && command -v useradd >/dev/null && command -v runuser >/dev/null ||
		{ echo "note: not root or no useradd/runuser: unprivileged checks skipped" >&2; return; }
	id hwsample-test >/dev/null 2>&1 || useradd -M -s /bin/sh hwsample-test 2>/dev/null
	if ! runuser -u hwsample-test -- test -x "$HWS_BIN"; then
		echo "note: user hwsample-test cannot execute $HWS_BIN (a parent directory is private): unprivileged checks skipped" >&2
		return
	fi
	echo hwsample-test
}
perf_samples() { perf report --stats -i "$1" 2>/dev/null | awk '/^ *SAMPLE events:/ {print $3; exit}'; }
perf_script_lines() { perf script -i "$1" 2>/dev/null | wc -l; }
# hwsample's own sample total from its summary (stderr of a record run)
summary_total() { sed -n 's/^  total \([0-9]*\) samples.*/\1/p' "$1"; }
finish() {
	echo "$CHECKS checks, $FAILS failed"
	[ "$FAILS" = 0 ]
}
