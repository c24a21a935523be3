#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample c2c record picks the machine's memory-sampling PMU, whose backend encodes its c2c
# events (checked with --dry-run on fake sysfs trees of Intel Ice Lake, AMD Zen 4/5 and Arm
# Neoverse N1 with a matching /proc/cpuinfo), and says clearly that it cannot run (exit 3)
# where there is none.
. "$(dirname "$0")/lib/common.sh"
S=$HWS_SOURCE_DIR/tests/sysfs
c2c_dry() { # c2c_dry TREE VENDOR_CPUINFO [c2c record options] -> output in $TMP/out
	local t=$1 v=$2
	shift 2
	HWS_PROC_CPUINFO=$TMP/cpuinfo.$v HWS_SYSFS_ROOT=$S/$t "$HWS_BIN" c2c record --dry-run "$@" \
		-- true >"$TMP/out" 2>&1
}
printf 'vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n' >"$TMP/cpuinfo.amd"
printf 'vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n' >"$TMP/cpuinfo.amd5"
printf 'vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 106\n' >"$TMP/cpuinfo.intel"
printf 'CPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\n' >"$TMP/cpuinfo.arm"

c2c_dry intel-icl intel
eq "intel: exit" $? 0
eq "intel: events" "$(grep -c '^event ' "$TMP/out")" 2
grep -q '^event 0: cpu/mem-loads,ldlat=30/' "$TMP/out" || fail "intel: no mem-loads ldlat=30: $(head -3 "$TMP/out")"
grep -q '^event 1: cpu/mem-stores/' "$TMP/out" || fail "intel: no mem-stores"
eq "intel: sample_type has ADDR+DATA_SRC+WEIGHT" \
	"$(grep -c 'sample_type .*ADDR.*DATA_SRC.*WEIGHT' "$TMP/out")" 2

c2c_dry amd-zen4 amd
eq "amd: exit" $? 0
grep -q '^event 0: ibs_op' "$TMP/out" || fail "amd: not ibs_op: $(head -3 "$TMP/out")"
grep -q 'sample_type .*RAW' "$TMP/out" || fail "amd: no RAW"

c2c_dry arm-n1-6.1 arm
eq "arm: exit" $? 0
for c in load_filter store_filter pa_enable min_latency=0x1e; do
	grep -q "^event 0: arm_spe_0/.*$c" "$TMP/out" || fail "arm: no $c: $(head -2 "$TMP/out")"
done

"$HWS_BIN" c2c record --dry-run --ldlat 64 -b intel_pebs -- true >/dev/null 2>&1 # any exit: no crash
# --ldlat reaches the backend (the request's load latency threshold): the threshold of the
# loads where the hardware filters them by latency, nothing on AMD (perf c2c takes every op)
c2c_dry intel-icl intel --ldlat 64
eq "intel: --ldlat 64: exit" $? 0
grep -q '^event 0: cpu/mem-loads,ldlat=64/' "$TMP/out" || fail "intel: --ldlat 64: $(head -2 "$TMP/out")"
grep -q '^event 1: cpu/mem-stores/' "$TMP/out" || fail "intel: --ldlat 64: no mem-stores"
c2c_dry intel-icl intel --ldlat 2
eq "intel: --ldlat 2: exit" $? 2
grep -q 'ldlat=2 out of range: the load-latency threshold is 3\.\.65535' "$TMP/out" ||
	fail "intel: --ldlat 2: $(cat "$TMP/out")"
c2c_dry arm-n1-6.1 arm --ldlat 64
grep -q '^event 0: arm_spe_0/.*min_latency=0x40' "$TMP/out" || fail "arm: --ldlat 64: $(head -2 "$TMP/out")"
c2c_dry arm-n1-6.1 arm min_latency=5 # the user's control wins
grep -q '^event 0: arm_spe_0/load_filter,min_latency=0x5,pa_enable,store_filter,ts_enable/' \
	"$TMP/out" || fail "arm: min_latency=5: $(head -2 "$TMP/out")"
c2c_dry amd-zen5 amd5 --ldlat 64
grep -q '^event 0: ibs_op// ' "$TMP/out" || fail "amd: --ldlat 64 used: $(head -2 "$TMP/out")"
c2c_dry amd-zen4 amd -b ibs_fetch # c2c needs op samples
grep -q '^event 0: ibs_op// ' "$TMP/out" || fail "amd: -b ibs_fetch: $(head -2 "$TMP/out")"
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
