# SPDX-License-Identifier: MIT
# Command-line values override the config file, and --dry-run says where each value came
# from; -c is a config file or perf's period depending on its argument; several backends in
# one run; duration stops a real run (software events) and the file is complete.
. "$(dirname "$0")/lib/common.sh"

cd "$TMP"
ZEN4=$HWS_SOURCE_DIR/tests/sysfs/amd-zen4
has() { # what regex
	CHECKS=$((CHECKS + 1))
	grep -qE -- "$2" "$TMP/out" || fail "$1: no /$2/ in: $(head -c 1500 "$TMP/out") $(cat "$TMP/err")"
}
hasnt() {
	CHECKS=$((CHECKS + 1))
	if grep -qE -- "$2" "$TMP/out"; then fail "$1: unexpected /$2/"; fi
}

cat >sw.conf <<'CONF'
[run]
backend = sw
freq = 1000
mode = per-thread
mmap_pages = 100
duration = 3
output = from-file.data

[sw]
events = cpu-clock
CONF

# the file alone
dry -c sw.conf -- true
eq "file alone: exit" $? 0
has "file freq" '^  sample_freq +1000$'
has "file freq: where" '^    run\.freq = 1000 +sw\.conf:3$'
has "file events: where" '^    sw\.events = cpu-clock +sw\.conf:10$'
has "file section" '^  \[sw\] at sw\.conf:9: selected$'
has "file mode" '^mode: per-thread$'
has "file pages rounded" '^mmap pages: 128 per ring$'
check "rounding is said" grep -q 'sw.conf:5: rounding mmap_pages 100 up to 128' "$TMP/err"
has "file output" '^output: from-file\.data$'
has "file duration" '^duration: 3 s$'
has "event from the section" '^  from \[sw\] at sw\.conf:9$'

# every override
dry -c sw.conf -F 2000 -e page-faults -a -m 8 -o cli.data --duration 1
eq "overrides: exit" $? 0
has "-F wins" '^  sample_freq +2000$'
has "-F: where" '^    run\.freq = 2000 +command line$'
has "-e wins" '^event 0: page-faults '
hasnt "-e replaces the section's events" '^event 1:'
has "-a wins over mode" '^mode: system-wide \(-a\)$'
hasnt "mode from the file is gone" 'run\.mode = per-thread'
has "-m wins" '^mmap pages: 8 per ring$'
has "-o wins" '^output: cli\.data$'
has "--duration wins" '^duration: 1 s$'
has "--duration: where" '^    run\.duration = 1 +command line$'

# -c PERIOD (perf) replaces the file's freq
dry -c sw.conf -c 5000 -- true
eq "-c period with a config: exit" $? 0
has "-c period" '^  sample_period +5000$'
hasnt "no freq left" 'sample_freq'
has "-c period: where" '^    run\.period = 5000 +command line$'

# -c: file or period
dry -b sw -e cpu-clock -c 10000 -- true
eq "-c 10000: exit" $? 0
has "-c 10000 is the period" '^  sample_period +10000$'
hasnt "-c 10000 is no config" '^config:'
cp sw.conf myconf
dry -c myconf -- true
has "-c existing file without extension is a config" '^config: myconf'
cp sw.conf 12conf
dry -c 12conf -- true
eq "-c 12conf (starts with a digit): a period" $? 2
check "-c 12conf: period error" grep -q "\-c '12conf': expected a positive whole number" "$TMP/err"
dry --config 12conf -- true
eq "--config 12conf: exit" $? 0
has "--config always a file" '^config: 12conf'
dry -c ./missing.conf -- true
eq "-c ./missing.conf: exit" $? 2
check "-c missing: names the file" grep -q "cannot read config file ./missing.conf" "$TMP/err"
dry -b sw -e cpu-clock --count 77 -- true
has "--count is the period" '^  sample_period +77$'

# a section's rate beats [run]'s, the command line beats both
printf '[run]\nbackend = sw\nfreq = 1000\n[sw]\nevents = cpu-clock\nperiod = 7\n' >sec.conf
dry -c sec.conf -- true
has "section period beats run freq" '^  sample_period +7$'
dry -c sec.conf -F 300 -- true
has "command line beats the section" '^  sample_freq +300$'

# backend sections on a fake Zen 4: -b picks sections, KEY=VALUE overrides a control
cat >ibs.conf <<'CONF'
[run]
backend = auto
[ibs_op]
l3missonly = 1
period = 65536
[ibs_fetch]
rand_en = 1
CONF
export HWS_SYSFS_ROOT=$ZEN4 HWS_PROC_CPUINFO=$ZEN4/cpuinfo
dry -c ibs.conf -- true
eq "zen4 auto: exit" $? 0
has "auto takes every section of the backend (op)" '^event 0: ibs_op/l3missonly=1/ '
has "auto takes every section of the backend (fetch)" '^event 1: ibs_fetch/rand_en=1/ '
dry -c ibs.conf -b ibs_fetch -- true
has "-b selects one section" '^event 0: ibs_fetch/rand_en=1/ '
hasnt "-b drops the other" 'ibs_op/'
has "-b: where" '^    run\.backend = ibs_fetch +command line$'
dry -c ibs.conf l3missonly=0 -- true
has "KEY=VALUE overrides the file's control" '^event 0: ibs_op/l3missonly=0/ '
has "KEY=VALUE: where" '^    l3missonly=0 +command line'
has "KEY=VALUE goes where the PMU has it" '^event 1: ibs_fetch/rand_en=1,l3missonly=0/ '
dry -c ibs.conf cnt_ctl=1 -- true
has "control only ibs_op has" '^event 0: ibs_op/l3missonly=1,cnt_ctl=1/ '
has "not given to ibs_fetch" '^event 1: ibs_fetch/rand_en=1/ '
# several backends without a config
dry -b ibs_op,ibs_fetch -c 100000 -- true
eq "-b ibs_op,ibs_fetch: exit" $? 0
has "two PMUs (op)" '^event 0: ibs_op// \(pmu ibs_op, backend amd_ibs\)'
has "two PMUs (fetch)" '^event 1: ibs_fetch// \(pmu ibs_fetch, backend amd_ibs\)'
dry -b ibs_op,sw -e cpu-clock -- true
eq "-b ibs_op,sw -e cpu-clock: ibs_op has no such event" $? 2
printf '[run]\nbackend = ibs_op, sw\n[sw]\nevents = page-faults\n' >mix.conf
dry -c mix.conf -- true
eq "two backends from a file: exit" $? 0
has "two backends (ibs_op, defaults)" '^event 0: ibs_op// '
has "two backends (sw)" '^event 1: page-faults \(pmu software, backend sw\)'
has "defaults are said" '^  from backend amd_ibs pmu ibs_op \(defaults\)$'
unset HWS_SYSFS_ROOT HWS_PROC_CPUINFO

# real runs with software events: duration stops them, the file is complete
need_sw_events
printf '[run]\nbackend = sw\nmode = system-wide\nduration = 1\n[sw]\nevents = cpu-clock\nfreq = 500\n' >run.conf
start=$(date +%s%N)
"$HWS_BIN" -c run.conf -o "$TMP/run.data" 2>"$TMP/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
eq "duration run: exit ($(cat "$TMP/err"))" $rc 0
check "duration run: took about 1 s ($ms ms)" test $ms -ge 900 -a $ms -lt 5000
check "duration run: said so" grep -q "stopped after 1 s (duration); the file is complete" "$TMP/err"
check "duration run: samples" test "$(summary_total "$TMP/err")" -gt 0
check "duration run: a next-command hint" grep -q "next: hwsample report -i $TMP/run.data" "$TMP/err"
if command -v perf >/dev/null 2>&1; then
	eq "perf reads it: same sample count" "$(perf_samples "$TMP/run.data")" "$(summary_total "$TMP/err")"
fi
start=$(date +%s%N)
"$HWS_BIN" -q -b sw -e cpu-clock --duration 0.5 -o "$TMP/w.data" -- sleep 30 2>"$TMP/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
eq "duration with a workload: exit" $rc 0
check "duration with a workload: stopped it ($ms ms)" test $ms -lt 5000
check "duration with a workload: file" test -s "$TMP/w.data"
finish
