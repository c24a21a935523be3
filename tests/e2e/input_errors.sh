# SPDX-License-Identifier: MIT
# Input mistakes are errors that say what is wrong, never empty output (exit 2):
#  - -e naming no event of the file (dump, report, c2c report; files and pipes): the error
#    lists the file's events as perf evlist names them;
#  - options the chosen backend cannot honour: c2c record -b sw (no data sources), -S without
#    an AUX PMU, --phys-data with no event that has a physical address; -m ,N without an AUX
#    event is warned about; a directory as --kallsyms or -i. Nothing is recorded for a refusal.
#  - --phys-data on software page faults does what perf's does: the same physical addresses.
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events
cd "$TMP" || exit 1

# run WHAT RC PATTERN CMD...: exit code and message (stderr), no output file o.data
run() {
	local what=$1 rc_want=$2 pat=$3
	shift 3
	rm -f o.data
	"$@" >out 2>err
	local rc=$?
	eq "$what: exit code ($(head -c 300 err))" "$rc" "$rc_want"
	CHECKS=$((CHECKS + 1))
	grep -qE -- "$pat" err || fail "$what: message does not match /$pat/: $(head -c 400 err)"
}

# a file with two events; perf evlist names them
perf record -q -e cpu-clock:u -e page-faults -c 10 -o p.data -- "$HWS_BIN" list >/dev/null 2>perr ||
	skip "perf record failed: $(head -c 200 perr)"
evs=$(perf evlist -i p.data 2>/dev/null | paste -sd, | sed 's/,/, /g')
eq "perf evlist names the events" "$evs" "cpu-clock:u, page-faults"
"$HWS_BIN" -q -b sw -e cpu-clock,page-faults -c 100000 -o - -- sh -c '"$0" list >/dev/null' "$HWS_BIN" \
	>h.pipe 2>/dev/null </dev/null
for cmd in dump report "c2c report"; do
	# shellcheck disable=SC2086
	run "$cmd -e nosuch" 2 "^hwsample $cmd: -e nosuch: no such event in p\.data; its events: $evs\$" \
		"$HWS_BIN" $cmd -i p.data -e nosuch
	check "$cmd -e nosuch: nothing on stdout" test ! -s out
	# perf's name with its modifier is the name; the bare name is not an event of this file
	# shellcheck disable=SC2086
	run "$cmd -e cpu-clock (the file has cpu-clock:u)" 2 "its events: $evs\$" "$HWS_BIN" $cmd -i p.data -e cpu-clock
	# shellcheck disable=SC2086
	run "$cmd -e nosuch on a pipe" 2 \
		"^hwsample $cmd: -e nosuch: no such event in the input \(stdin\); its events: cpu-clock, page-faults\$" \
		"$HWS_BIN" $cmd -i - -e nosuch <h.pipe
	check "$cmd -e nosuch on a pipe: nothing on stdout" test ! -s out
done
# the events named as perf names them select their samples, as many as perf script shows
for ev in cpu-clock:u page-faults; do
	n=$("$HWS_BIN" dump -i p.data -e "$ev" 2>/dev/null | wc -l)
	eq "dump -e $ev: perf script's count" "$n" "$(perf script -i p.data -F event 2>/dev/null | grep -c "^ *$ev:")"
	check "dump -e $ev: some samples" test "$n" -gt 0
done
"$HWS_BIN" report -i p.data -e page-faults --ascii >out 2>err
eq "report -e page-faults: exit ($(head -c 200 err))" $? 0
"$HWS_BIN" c2c report -i p.data -e page-faults >out 2>err
eq "c2c report -e page-faults: exit ($(head -c 200 err))" $? 0

# c2c record with a backend that gives no data sources
run "c2c record -b sw" 2 \
	'^hwsample c2c record: sw cannot record for c2c: c2c needs memory samples with data addresses and data sources, which only a sampling PMU gives \(AMD IBS op, Intel PEBS load latency, Arm SPE\)' \
	"$HWS_BIN" c2c record -b sw -o o.data -- touch ran
check "c2c record -b sw: nothing recorded" test ! -e o.data -a ! -e ran

# -S (AUX snapshot) needs an AUX PMU
run "-S with sw" 2 '^hwsample: -S \(AUX snapshot mode\) needs an event with an AUX area, from a PMU such as arm_spe .*use --overwrite' \
	"$HWS_BIN" -S -b sw -e cpu-clock -o o.data -- touch ran
check "-S with sw: nothing recorded" test ! -e o.data -a ! -e ran
printf '[run]\nbackend = sw\nsnapshot = true\n' >snap.conf
run "snapshot = true in a config file" 2 '^hwsample: snapshot = true at \./snap\.conf:3 \(AUX snapshot mode\) needs an event with an AUX area' \
	"$HWS_BIN" -c ./snap.conf -o o.data -- true
S=$HWS_SOURCE_DIR/tests/sysfs
HWS_SYSFS_ROOT=$S/intel-icl run "-S with intel_pebs (fake Ice Lake)" 2 'needs an event with an AUX area' \
	"$HWS_BIN" --dry-run -S -b intel_pebs -- true
HWS_SYSFS_ROOT=$S/arm-n1-6.1 "$HWS_BIN" --dry-run -S -b arm_spe -- true >out 2>err
eq "-S with arm_spe (fake N1): accepted ($(head -c 200 err))" $? 0
check "-S with arm_spe: AUX event" grep -q '^event 0: arm_spe_0/' out
# -m ,N without an AUX event: warned, recorded
run "-m 4,16 with sw" 0 '^hwsample: -m ,16: no event of this run has an AUX area .*the AUX page count is not used' \
	"$HWS_BIN" -q -b sw -e cpu-clock -m 4,16 -o o.data -- true
check "-m 4,16 with sw: recorded" test -s o.data

# --phys-data: refused where no event can have a physical address
run "--phys-data on cpu-clock" 2 \
	'^hwsample: --phys-data: no event of this run can give physical addresses \(cpu-clock\): .*page faults' \
	"$HWS_BIN" --phys-data -b sw -e cpu-clock -o o.data -- touch ran
check "--phys-data on cpu-clock: nothing recorded" test ! -e o.data -a ! -e ran
# ... and on page faults it samples them as perf does: same addresses as perf script reads
"$HWS_BIN" -q --phys-data -b sw -e page-faults -c 1 -o ph.data -- "$HWS_WORKLOADS/faulter" 4 2>err
eq "--phys-data on page-faults: exit ($(head -c 200 err))" $? 0
"$HWS_BIN" --dry-run --phys-data -b sw -e page-faults -- true >out
check "--phys-data on page-faults: PHYS_ADDR sampled" grep -qE '^  sample_type .*PHYS_ADDR' out
perf script -i ph.data -F phys_addr 2>/dev/null | while read -r a; do printf '0x%x\n' "0x$a"; done |
	sort >perf.phys
"$HWS_BIN" dump -i ph.data --json 2>/dev/null | sed -nE 's/.*"phys_addr":"([^"]*)".*/\1/p' |
	sort >hws.phys
check "--phys-data: perf reads as many samples ($(wc -l <perf.phys))" test "$(wc -l <perf.phys)" -gt 1000
check "--phys-data: hwsample's physical addresses are perf's" cmp -s perf.phys hws.phys
check "--phys-data: some are resident pages (non-zero)" grep -qv '^0x0$' hws.phys

# a library message reaches the user as the program's, without a module prefix
echo garbage >g.data
run "dump of a non-perf.data file" 1 '^hwsample: offset 0: file too short for a perf\.data header \(8 bytes\)$' \
	"$HWS_BIN" dump -i g.data
check "dump of a non-perf.data file: then the command's error" grep -q '^hwsample dump: g\.data: not a perf\.data file' err
check "dump of a non-perf.data file: no 'perfdata:' prefix" bash -c "! grep -q 'perfdata:' err"

# a directory where a file is expected
mkdir -p ks.d
for cmd in dump report "c2c report"; do
	# shellcheck disable=SC2086
	run "$cmd --kallsyms DIR" 2 "^hwsample $cmd: --kallsyms ks\.d: is a directory, not a file" \
		"$HWS_BIN" $cmd -i p.data --kallsyms ks.d
	# shellcheck disable=SC2086
	run "$cmd -i DIR" 2 "^hwsample $cmd: -i ks\.d: is a directory, not a perf.data file" \
		"$HWS_BIN" $cmd -i ks.d
	CHECKS=$((CHECKS + 1))
	grep -q 'too short' err && fail "$cmd -i DIR: a misleading 'too short' message"
done
finish
