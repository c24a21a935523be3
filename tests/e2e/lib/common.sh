# SPDX-License-Identifier: MIT
# Shared helpers for tests/e2e/*.sh. Source it: . "$(dirname "$0")/lib/common.sh"
set -u
: "${HWS_BIN:?run through ctest (HWS_BIN unset)}"
TMP=$(mktemp -d /tmp/hws-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
CHECKS=0
# python3 as the build found it (tests/CMakeLists.txt: HWS_PYTHON), not through PATH's shims
if [ -n "${HWS_PYTHON:-}" ] && [ -x "$HWS_PYTHON" ]; then
	python3() { "$HWS_PYTHON" "$@"; }
fi
# perf 6.1's _init+OFF for a PLT entry made the entry's name, on perf's output only: a filter
# (tests/e2e/lib/perf61_plt.py; --srcline FILE for perf report --sort srcline's rows)
perf61_plt() { python3 "$HWS_SOURCE_DIR/tests/e2e/lib/perf61_plt.py" "$@"; }
# report_same WHAT PERF_OUT HWS_OUT [analysis_report_cmp.py options]: one check that the two
# reports agree (same sections, sample counts, rows, percentages), naming the first differences
# and hwsample's stderr ($TMP/h.err) when they do not
report_same() {
	local what=$1 p=$2 h=$3
	shift 3
	if python3 "$HWS_SOURCE_DIR/tests/e2e/analysis_report_cmp.py" "$p" "$h" "$@" \
		>"$TMP/cmp.txt"; then
		check "$what: $(tail -1 "$TMP/cmp.txt")" true
	else
		check "$what: $(head -3 "$TMP/cmp.txt" | tr '\n' ' ') $(head -c 300 "$TMP/h.err" 2>/dev/null)" false
	fi
}

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
# check and eq count one check each and return non-zero when it fails (check ... || return)
check() { # check "what" command...
	local what=$1; shift
	CHECKS=$((CHECKS + 1))
	if ! "$@"; then fail "$what"; return 1; fi
}
eq() { # eq "what" got want
	CHECKS=$((CHECKS + 1))
	if [ "$2" != "$3" ]; then fail "$1: got '$2' want '$3'"; return 1; fi
}
not() { ! "$@"; } # check "what" not grep -q ...
skip() { echo "SKIP: $*"; exit 77; }
die() { fail "$*"; finish; exit 1; } # a failure after which the script cannot go on
need_perf() { command -v perf >/dev/null 2>&1 || skip "perf (Debian linux-perf) not installed"; }
# perf installed and working (Debian's wrapper fails when no perf matches the running kernel)
need_perf_runs() { need_perf; perf version >/dev/null 2>&1 || skip "perf does not run"; }
have_perf() { command -v perf >/dev/null 2>&1 && perf version >/dev/null 2>&1; }
need_python3() { command -v python3 >/dev/null 2>&1 || skip "python3 not installed${1:+ ($1)}"; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
# need_gen NAME...: the test data generators tests/gen/gen_NAME, built in $HWS_GEN
need_gen() {
	local g
	for g; do
		[ -x "${HWS_GEN:?run through ctest (HWS_GEN unset)}/gen_$g" ] || skip "$HWS_GEN/gen_$g not built"
	done
}
# PID has exited (or is a zombie)
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
# hwsample --dry-run ARGS...: the printed attrs in $TMP/out, the messages in $TMP/err
dry() { "$HWS_BIN" --dry-run "$@" >"$TMP/out" 2>"$TMP/err"; }
# can we open software events at all here?
need_sw_events() {
	"$HWS_BIN" -q -b sw -e cpu-clock -c 1000000 -o "$TMP/probe.data" -- true >/dev/null 2>&1 ||
		skip "perf_event_open of software events refused here (perf_event_paranoid / seccomp)"
}
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
# number of SAMPLE records perf counts in a file
perf_samples() { perf report --stats -i "$1" 2>/dev/null | awk '/^ *SAMPLE events:/ {print $3; exit}'; }
perf_script_lines() { perf script -i "$1" 2>/dev/null | wc -l; }
# hwsample's own sample total from its summary (stderr of a record run)
summary_total() { sed -n 's/^  total \([0-9]*\) samples.*/\1/p' "$1"; }
finish() {
	echo "$CHECKS checks, $FAILS failed"
	[ "$FAILS" = 0 ]
}
