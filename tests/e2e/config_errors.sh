# SPDX-License-Identifier: MIT
# Every way a config file can be wrong: the error names FILE:LINE and the valid choices, the
# exit code is 2 (3 when no configured backend exists here), and nothing is opened: no
# perf_event_open (checked with strace where it is installed), no workload started, no
# output file.
. "$(dirname "$0")/lib/common.sh"

cd "$TMP"
ZEN4=$HWS_SOURCE_DIR/tests/sysfs/amd-zen4
have_strace=0
command -v strace >/dev/null 2>&1 && strace -f -qq -e trace=none true 2>/dev/null && have_strace=1

# bad TEXT RC PATTERN [ENV=... ] -- extra args
bad() {
	local what=$1 text=$2 rc_want=$3 pat=$4
	shift 4
	printf '%b' "$text" >"$TMP/c.conf"
	rm -f "$TMP/ran" "$TMP/out.data" "$TMP/strace"
	# (a config file that is a FIFO or a device must not hang: timeout says so with 124)
	local run=(timeout 60 "$HWS_BIN" ${OPT:--c} "${CONF:-./c.conf}" -o "$TMP/out.data" "$@" -- touch "$TMP/ran")
	if [ "${HWS_SANITIZE:-0}" = 1 ]; then
		# LeakSanitizer cannot run under ptrace: check leaks in a plain run first
		"${run[@]}" >/dev/null 2>"$TMP/err"
		local rc0=$?
		eq "$what: exit code without strace ($(head -c 300 "$TMP/err"))" $rc0 "$rc_want"
	fi
	if [ $have_strace = 1 ]; then
		run=(env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
			strace -f -qq -o "$TMP/strace" -e trace=perf_event_open "${run[@]}")
	fi
	"${run[@]}" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	eq "$what: exit code ($(head -c 300 "$TMP/err"))" "$rc" "$rc_want"
	CHECKS=$((CHECKS + 1))
	grep -qE -- "$pat" "$TMP/err" || fail "$what: message does not match /$pat/: $(head -c 400 "$TMP/err")"
	check "$what: workload not started" test ! -e "$TMP/ran"
	check "$what: no output file" test ! -e "$TMP/out.data"
	if [ $have_strace = 1 ]; then
		CHECKS=$((CHECKS + 1))
		if grep -q perf_event_open "$TMP/strace"; then fail "$what: perf_event_open was called"; fi
	fi
}

bad "unknown section" '[run]\nbackend = auto\n\n[ibs_opp]\nl3missonly = 1\n' 2 \
	'^hwsample: \./c\.conf:4: unknown section \[ibs_opp\]; valid sections: run, amd_ibs, ibs_op, ibs_fetch, arm_spe, arm_spe_N, intel_pebs, cpu, .*sw'
bad "unknown [run] key" '[run]\nfreqency = 100\n' 2 \
	"^hwsample: \./c\.conf:2: unknown key 'freqency' in \[run\]; valid keys: backend, events, period, freq, mode, cpus, mmap_pages, aux_pages, overwrite, snapshot, output, duration"
bad "wrong type" '[run]\nbackend = sw\nfreq = fast\n' 2 \
	"\./c\.conf:3: freq = 'fast': expected a whole number 1\.\.4294967295"
bad "wrong type (bool)" '[run]\noverwrite = sometimes\n' 2 \
	"\./c\.conf:2: overwrite = 'sometimes': expected true or false"
bad "out of range" '[run]\n# ring\nmmap_pages = 0\n' 2 '\./c\.conf:3: mmap_pages = 0: out of range, valid 1\.\.1048576'
bad "bad mode" '[run]\nmode = all\n' 2 "\./c\.conf:2: mode = 'all': valid values: default\|per-thread\|system-wide\|cpus"
bad "mode cpus without cpus" '[run]\nmode = cpus\n' 2 '\./c\.conf:2: mode = cpus needs cpus = LIST'
bad "bad cpu list" '[run]\nmode = cpus\ncpus = 0-x\n' 2 "\./c\.conf:3: cpus = '0-x': not a CPU list"
bad "bad duration" '[run]\nduration = soon\n' 2 "\./c\.conf:2: duration = 'soon': expected a number of seconds"
bad "period and freq" '[run]\nperiod = 1000\nfreq = 100\n' 2 '\./c\.conf:2: give period or freq, not both \(freq at \./c\.conf:3\)'
bad "key twice" '[run]\nfreq = 100\nfreq = 200\n' 2 '\./c\.conf:3: freq is set twice in \[run\] \(first at \./c\.conf:2\)'
bad "section twice" '[sw]\n[run]\n[sw]\n' 2 '\./c\.conf:3: section \[sw\] appears twice \(first at line 1\)'
bad "not INI" '[run]\nthis is not ini\n' 2 '\./c\.conf:2: not INI syntax'
bad "key outside a section" 'freq = 100\n[run]\n' 2 "\./c\.conf:1: 'freq' is outside any section"
bad "control the backend lacks" '[run]\nbackend = sw\n[sw]\nevents = cpu-clock\nfoo = 1\n' 2 \
	"\./c\.conf:5: sw \(PMU default\) has no control 'foo'; valid: none \(and events, period, freq, pmu\)"
HWS_SYSFS_ROOT=$ZEN4 HWS_PROC_CPUINFO=$ZEN4/cpuinfo \
	bad "control the PMU lacks (fake Zen 4)" '[ibs_op]\nl3misonly = 1\n' 2 \
	"\./c\.conf:2: amd_ibs \(PMU ibs_op\) has no control 'l3misonly'; valid: cnt_ctl, l3missonly" \
	--dry-run
HWS_SYSFS_ROOT=$ZEN4 HWS_PROC_CPUINFO=$ZEN4/cpuinfo \
	bad "control out of range (fake Zen 4)" '[run]\n[ibs_op]\nl3missonly = 2\n' 2 \
	'\./c\.conf:3: l3missonly = 2: out of range, valid 0\.\.1 \(sample only ops'
HWS_SYSFS_ROOT=$ZEN4 HWS_PROC_CPUINFO=$ZEN4/cpuinfo \
	bad "control not a number (fake Zen 4)" '[ibs_op]\nl3missonly = on\n' 2 \
	"\./c\.conf:2: l3missonly = 'on': expected a whole number 0\.\.1"
HWS_SYSFS_ROOT=$ZEN4 HWS_PROC_CPUINFO=$ZEN4/cpuinfo \
	bad "pmu of another backend" '[amd_ibs]\npmu = cpu\n' 2 '\./c\.conf:2: pmu = cpu is not a PMU of amd_ibs; valid: ibs_op, ibs_fetch'
bad "unknown event in a section" '[run]\nbackend = sw\n[sw]\nevents = cpu-clok\n' 2 \
	"\./c\.conf:3: \[sw\]: .*unknown event 'cpu-clok'.*cpu-clock"
bad "unknown backend in [run]" '[run]\nbackend = nosuch\n' 2 "no backend or PMU named 'nosuch'; available backends:"
CONF=./nope.conf bad "missing file" '' 2 "cannot read config file \./nope\.conf: No such file"
bad "two config files" '[run]\n' 2 'only one config file' -c ./other.conf
# not a config file at all: the file's name and what it is; nothing read from FIFOs/devices
mkdir -p "$TMP/cdir"
CONF=./cdir/ bad "a directory" '' 2 '^hwsample: \./cdir/: a directory, not a config file \(an INI file'
OPT=--config CONF=cdir bad "a directory (--config)" '' 2 '^hwsample: cdir: a directory, not a config file'
: >"$TMP/empty.conf"
OPT=--config CONF=./empty.conf bad "an empty file" '' 2 \
	'^hwsample: \./empty\.conf: the config file is empty: it needs a \[run\] or backend section'
bad "only comments" '# all commented out\n; [run]\n\n' 2 \
	'^hwsample: \./c\.conf: the config file has no section \(only comments or blank lines\)'
CONF=/dev/zero bad "a character device" '' 2 '^hwsample: /dev/zero: a character device, not a config file'
rm -f "$TMP/fifo" && mkfifo "$TMP/fifo"
CONF=./fifo bad "a FIFO (no writer: must not hang)" '' 2 '^hwsample: \./fifo: a FIFO, not a config file'
rm -f "$TMP/fifo"
# only hardware this VM lacks (fake trees of other machines make them absent for sure)
HWS_SYSFS_ROOT=$HWS_SOURCE_DIR/tests/sysfs/intel-none HWS_PROC_CPUINFO=$HWS_SOURCE_DIR/tests/sysfs/intel-none/cpuinfo \
	bad "no configured backend usable here" '[run]\nbackend = auto\n[ibs_op]\nl3missonly = 1\n[arm_spe]\nload_filter = 1\n' 3 \
	'none of the backends \./c\.conf configures is usable here'
CHECKS=$((CHECKS + 1))
grep -qE '^  \[arm_spe\] \(\./c\.conf:5\): no arm_spe' "$TMP/err" || fail "each section's reason: $(cat "$TMP/err")"

# a good file with the same command line does start the workload and write the file
if need_sw_events 2>/dev/null; then :; fi
printf '[run]\nbackend = sw\n[sw]\nevents = page-faults\nperiod = 1\n' >"$TMP/c.conf"
"$HWS_BIN" -q -c ./c.conf -o "$TMP/out.data" -- touch "$TMP/ran" 2>"$TMP/err"
rc=$?
if [ $rc = 4 ] || grep -q "permission" "$TMP/err"; then
	echo "note: software events refused here; the positive control is skipped"
else
	eq "good file: exit code ($(cat "$TMP/err"))" "$rc" 0
	check "good file: workload ran" test -e "$TMP/ran"
	check "good file: output written" test -s "$TMP/out.data"
fi
finish
