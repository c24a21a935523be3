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
perf_samples() { perf report --stats -i "$1" 2>/dev/null | awk '/^ *SAMPLE events:/ {print $3; exit}'; }
perf_script_lines() { perf script -i "$1" 2>/dev/null | wc -l; }
# hwsample's own sample total from its summary (stderr of a record run)
summary_total() { sed -n 's/^  total \([0-9]*\) samples.*/\1/p' "$1"; }
finish() {
	echo "$CHECKS checks, $FAILS failed"
	[ "$FAILS" = 0 ]
}
