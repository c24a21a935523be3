#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample c2c record picks the c2c events of the machine's memory-sampling PMU (checked with
# --dry-run on fake sysfs trees of Intel Ice Lake, AMD Zen 4 and Arm Neoverse N1 with a
# matching /proc/cpuinfo), and says clearly that it cannot run (exit 3) where there is none.
. "$(dirname "$0")/lib/common.sh"
S=$HWS_SOURCE_DIR/tests/sysfs
dry() { # dry TREE VENDOR_CPUINFO -> output in $TMP/out
	HWS_PROC_CPUINFO=$TMP/cpuinfo.$2 HWS_SYSFS_ROOT=$S/$1 "$HWS_BIN" c2c record --dry-run -- true \
		>"$TMP/out" 2>&1
}
printf 'vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n' >"$TMP/cpuinfo.amd"
printf 'vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 106\n' >"$TMP/cpuinfo.intel"
printf 'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\n' >"$TMP/cpuinfo.arm"

dry intel-icl intel
eq "intel: exit" $? 0
eq "intel: events" "$(grep -c '^event ' "$TMP/out")" 2
grep -q '^event 0: cpu/mem-loads,ldlat=30/' "$TMP/out" || fail "intel: no mem-loads ldlat=30: $(head -3 "$TMP/out")"
grep -q '^event 1: cpu/mem-stores/' "$TMP/out" || fail "intel: no mem-stores"
eq "intel: sample_type has ADDR+DATA_SRC+WEIGHT" \
	"$(grep -c 'sample_type .*ADDR.*DATA_SRC.*WEIGHT' "$TMP/out")" 2

dry amd-zen4 amd
eq "amd: exit" $? 0
grep -q '^event 0: ibs_op' "$TMP/out" || fail "amd: not ibs_op: $(head -3 "$TMP/out")"
grep -q 'sample_type .*RAW' "$TMP/out" || fail "amd: no RAW"

dry arm-n1-6.1 arm
eq "arm: exit" $? 0
for c in load_filter store_filter pa_enable min_latency=0x1e; do
	grep -q "^event 0: arm_spe_0/.*$c" "$TMP/out" || fail "arm: no $c: $(head -2 "$TMP/out")"
done

"$HWS_BIN" c2c record --dry-run --ldlat 64 -b intel_pebs -- true >/dev/null 2>&1 # any exit: no crash
# --ldlat reaches the backend as its control (whether intel_pebs accepts ldlat next to
# mem-stores is the backend's business; -v shows the record command c2c built)
HWS_PROC_CPUINFO=$TMP/cpuinfo.intel HWS_SYSFS_ROOT=$S/intel-icl \
	"$HWS_BIN" -v c2c record --dry-run --ldlat 64 -- true >"$TMP/out" 2>&1
grep -q 'running: hwsample record -b intel_pebs -e mem-loads,mem-stores ldlat=64 ' "$TMP/out" ||
	fail "--ldlat 64 not passed: $(head -2 "$TMP/out")"
HWS_PROC_CPUINFO=$TMP/cpuinfo.arm HWS_SYSFS_ROOT=$S/arm-n1-6.1 \
	"$HWS_BIN" c2c record --dry-run --ldlat 64 -- true >"$TMP/out" 2>&1
grep -q '^event 0: arm_spe_0/.*min_latency=0x40' "$TMP/out" || fail "arm: --ldlat 64: $(head -2 "$TMP/out")"
"$HWS_BIN" c2c record --ldlat x -- true >/dev/null 2>&1
eq "bad --ldlat" $? 2

# no PMU: exit 3 and advice
HWS_PROC_CPUINFO=$TMP/cpuinfo.intel HWS_SYSFS_ROOT=$S/intel-vm-nopebs "$HWS_BIN" c2c record -- true \
	>"$TMP/out" 2>&1
eq "no PMU: exit" $? 3
grep -q 'c2c report -i FILE' "$TMP/out" || fail "no PMU: no advice: $(cat "$TMP/out")"
"$HWS_BIN" c2c --help | grep -q 'Examples:' || fail "--help"
"$HWS_BIN" c2c bogus >/dev/null 2>&1
eq "unknown c2c command" $? 2
finish
