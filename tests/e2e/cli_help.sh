# SPDX-License-Identifier: MIT
# hws-test: lock perf_event_paranoid
# The command line as a new user meets it: hwsample --help and CMD --help with examples and
# the exit codes, hwsample help CMD, the man page (rendered from core/cli/hwsample.1.rst),
# the bash completion (subcommands, -b values, controls of the chosen backend, config files),
# hwsample list (usable or why not: no PMU, kernel too old; controls with ranges and
# defaults), -v.
. "$(dirname "$0")/lib/common.sh"

cd "$HWS_SOURCE_DIR" || exit 1

"$HWS_BIN" --help >"$TMP/out" 2>&1
eq "--help: exit" $? 0
for w in record dump report list c2c convert 'Examples:' 'hwsample -c cfg/l3-miss.conf' 'Exit codes: 0 ok, 1 runtime error, 2 usage error' '3 not supported here' '4 permission denied' '-v'; do
	check "--help mentions '$w'" grep -qF -- "$w" "$TMP/out"
done
"$HWS_BIN" >/dev/null 2>&1
eq "no arguments: usage error" $? 2
for c in record dump report list c2c convert; do
	"$HWS_BIN" "$c" --help >"$TMP/out" 2>&1
	eq "$c --help: exit" $? 0
	check "$c --help: usage line" grep -q "^usage: hwsample" "$TMP/out"
	check "$c --help: examples" grep -qi "^examples:" "$TMP/out"
	"$HWS_BIN" help "$c" >"$TMP/out2" 2>&1
	eq "help $c: exit" $? 0
	check "help $c = $c --help" cmp -s "$TMP/out" "$TMP/out2"
done
"$HWS_BIN" help nosuch >/dev/null 2>&1
eq "help nosuch: usage error" $? 2
"$HWS_BIN" record --help >"$TMP/out"
for w in '-c FILE' '--config FILE' '--count PERIOD' '--duration' '--no-status' 'Command-line values override the config file' 'hwsample -c cfg/load-latency.conf --dry-run' 'Exit codes:'; do
	check "record --help mentions '$w'" grep -qF -- "$w" "$TMP/out"
done
"$HWS_BIN" --version | grep -qE '^hwsample [0-9]+\.[0-9]+'
eq "--version" $? 0

# man page: the build's, or rendered here from the source
man_page=$HWS_BUILD_DIR/man/hwsample.1
if [ ! -s "$man_page" ]; then
	r2m=$(command -v rst2man || command -v rst2man.py || true)
	if [ -n "$r2m" ]; then
		"$r2m" --halt=warning core/cli/hwsample.1.rst "$TMP/hwsample.1"
		eq "rst2man renders the man page without warnings" $? 0
		man_page=$TMP/hwsample.1
	else
		echo "note: rst2man (python3-docutils) not installed: man page not checked"
		man_page=
	fi
fi
if [ -n "$man_page" ]; then
	check "man page is troff" grep -q '^\.TH "\?HWSAMPLE' "$man_page"
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=100 man -l "$man_page" 2>/dev/null | col -b >"$TMP/man.txt"
	else
		sed 's/\\f[BIRP]//g' "$man_page" >"$TMP/man.txt"
	fi
	for s in NAME SYNOPSIS DESCRIPTION 'RECORD OPTIONS' 'CONFIG FILES' 'EXIT STATUS' ENVIRONMENT EXAMPLES; do
		check "man: section $s" grep -q "^$s" "$TMP/man.txt"
	done
	# every [run] key the parser knows is documented (the parser lists them in its error)
	printf '[run]\nnosuchkey = 1\n' >"$TMP/k.conf"
	keys=$("$HWS_BIN" -c "$TMP/k.conf" --dry-run 2>&1 | sed -n 's/.*valid keys: //p' | tr -d ',')
	check "parser lists its keys" test -n "$keys"
	for k in $keys; do
		check "man documents [run] key '$k'" grep -qw -- "$k" "$TMP/man.txt"
	done
	for c in "$HWS_SOURCE_DIR"/cfg/*.conf; do
		check "man names $(basename "$c")" grep -qF "$(basename "$c")" "$TMP/man.txt"
	done
fi

# bash completion
comp() { # words... -> completions on stdout
	bash -c '
		. "$0"
		COMP_WORDS=("${@}"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_hwsample 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"' \
		scripts/hwsample-completion.bash "$@"
}
comp_has() { # want words... : the completion of words includes want
	local want=$1
	shift
	comp "$@" | grep -qxF -- "$want"
}
check "completion: subcommands" test "$(comp "$HWS_BIN" "" | sort | tr '\n' ' ')" = "c2c convert dump help list record report "
check "completion: -b offers auto and every backend" test "$(comp "$HWS_BIN" -b "" | grep -cxE 'auto|sw|amd_ibs|arm_spe|intel_pebs')" = 5
check "completion: -b PMU names" comp_has ibs_fetch "$HWS_BIN" -b ibs
check "completion: -b comma list" comp_has ibs_op,ibs_fetch "$HWS_BIN" -b ibs_op,ibs_f
ZEN4=$HWS_SOURCE_DIR/tests/sysfs/amd-zen4
got=$(HWS_SYSFS_ROOT=$ZEN4 comp "$HWS_BIN" -b ibs_op "" | sort | tr '\n' ' ')
eq "completion: controls of ibs_op on Zen 4" "$got" "cnt_ctl= l3missonly= "
got=$(HWS_SYSFS_ROOT=$HWS_SOURCE_DIR/tests/sysfs/arm-n1-6.1 comp "$HWS_BIN" record -b arm_spe min | tr '\n' ' ')
eq "completion: SPE control prefix" "$got" "min_latency= "
check "completion: config files" comp_has cfg/l3-miss.conf "$HWS_BIN" -c cfg/l3
check "completion: record options" comp_has --duration "$HWS_BIN" --dur
check "completion: workload after --" comp_has true "$HWS_BIN" -b sw -- tru
check "completion: list options" comp_has --controls "$HWS_BIN" list --co

# list: usable or why not, controls with ranges and defaults
HWS_SYSFS_ROOT=$ZEN4 HWS_PROC_CPUINFO=$ZEN4/cpuinfo "$HWS_BIN" list >"$TMP/out"
eq "list: exit" $? 0
check "list: kernel and paranoid line" grep -qE '^kernel .*, perf_event_paranoid -?[0-9]+, ' "$TMP/out"
check "list: amd_ibs usable on Zen 4" grep -qE '^amd_ibs +usable ' "$TMP/out"
check "list: arm_spe: no PMU, and why" grep -qE '^arm_spe +not usable: no PMU ' "$TMP/out"
check "list: the reason" grep -q 'not an Arm machine' "$TMP/out"
check "list: control with range and default" grep -qE '^      l3missonly +0\.\.1 \(default 0\)  sample only' "$TMP/out"
HWS_KERNEL_VERSION=4.9.0 HWS_SYSFS_ROOT=$HWS_SOURCE_DIR/tests/sysfs/arm-n1-6.1 "$HWS_BIN" list --backend arm_spe >"$TMP/out"
check "list: kernel too old" grep -qE '^arm_spe +not usable: kernel too old ' "$TMP/out"
check "list: kernel too old: which kernel" grep -q 'needs Linux 4.15 or later (this is 4.9.0' "$TMP/out"
HWS_SYSFS_ROOT=$ZEN4 "$HWS_BIN" list --controls ibs_fetch >"$TMP/out"
check "list --controls: one key= a line" test "$(sort "$TMP/out" | tr '\n' ' ')" = "l3missonly= rand_en= "
"$HWS_BIN" list --controls nosuch >/dev/null 2>&1
eq "list --controls nosuch: usage error" $? 2
"$HWS_BIN" list --backend nosuch >/dev/null 2>&1
eq "list --backend nosuch: usage error" $? 2
# an unprivileged user sees what perf_event_open allows it (tried, not guessed from the level;
# tests/e2e/permissions.sh compares it with perf at several levels)
if [ -n "$(unpriv_user)" ]; then
	par=$(cat /proc/sys/kernel/perf_event_paranoid)
	runuser -u hwsample-test -- "$HWS_BIN" list >"$TMP/out" 2>&1
	eq "unprivileged list: exit" $? 0
	check "unprivileged list: paranoid $par named, open tried" grep -qE "^kernel .*, perf_event_paranoid $par, unprivileged, perf_event_open tried: " "$TMP/out"
	chmod 1777 "$TMP"
	if runuser -u hwsample-test -- "$HWS_BIN" -q -b sw -e cpu-clock:u -o "$TMP/u.data" -- true >/dev/null 2>&1; then
		check "unprivileged: record works, list says sw usable" grep -qE '^sw +usable' "$TMP/out"
	else
		check "unprivileged: record refused, list says why" grep -qE '^sw +not usable: permission' "$TMP/out"
	fi
	"$HWS_BIN" list >"$TMP/out" 2>&1
	check "root list: privileged" grep -qE '^kernel .*, privileged \(root or CAP_PERFMON\), perf_event_open tried: ' "$TMP/out"
else
	echo "note: not root: unprivileged list not checked"
fi
"$HWS_BIN" -v list >"$TMP/out" 2>&1
check "-v list: plugin paths" grep -qE '^    plugin: ' "$TMP/out"
"$HWS_BIN" list >"$TMP/out" 2>&1
check "list without -v: no plugin paths" test "$(grep -c '^    plugin: ' "$TMP/out")" = 0
finish
