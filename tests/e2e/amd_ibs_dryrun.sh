#!/bin/bash
# SPDX-License-Identifier: MIT
# amd_ibs through the CLI on the fake sysfs trees tests/sysfs/amd-*: `hwsample -b ... --dry-run`
# prints the exact attr for many control combinations (checked line by line), every
# user-facing error exits non-zero with its actionable message, and `hwsample list` shows
# ibs_op/ibs_fetch with the controls the tree's kernel lists. The kernel version of a fake
# machine comes from HWS_KERNEL_VERSION.
. "$(dirname "$0")/lib/common.sh"
: "${HWS_SOURCE_DIR:?}"
trees=$HWS_SOURCE_DIR/tests/sysfs
ST_MEM="IP|TID|TIME|ADDR|CPU|PERIOD|RAW|DATA_SRC|IDENTIFIER|WEIGHT_STRUCT"
ST_BASE="IP|TID|TIME|CPU|PERIOD|RAW|IDENTIFIER"

# ok TREE KERNEL "ARGS" "field=value;field=value;..."
ok() {
	local out rc want f v line
	out=$(HWS_SYSFS_ROOT=$trees/$1 HWS_KERNEL_VERSION=$2 "$HWS_BIN" $3 --dry-run -- true 2>&1)
	rc=$?
	eq "[$1 $2 $3]: exit status ($out)" "$rc" 0 || return
	IFS=';' read -ra want <<<"$4"
	for f in "${want[@]}"; do
		v=${f#*=}
		f=${f%%=*}
		line=$(grep -E "^  $f +" <<<"$out" | head -1 | awk '{print $2}')
		eq "[$1 $2 $3]: $f" "$line" "$v"
	done
}

# bad TREE KERNEL "ARGS" "substring|substring..."
bad() {
	local out rc s subs
	out=$(env HWS_SYSFS_ROOT=$trees/$1 HWS_KERNEL_VERSION=$2 ${HWS_PROC_CPUINFO_OVERRIDE:+HWS_PROC_CPUINFO=$HWS_PROC_CPUINFO_OVERRIDE} \
		"$HWS_BIN" $3 --dry-run -- true 2>&1)
	rc=$?
	check "[$1 $2 $3]: fails (exit $rc), as it should" [ "$rc" -ne 0 ] || return
	IFS='|' read -ra subs <<<"$4"
	for s in "${subs[@]}"; do
		check "[$1 $2 $3]: message has '$s': $out" grep -qF -- "$s" <<<"$out"
	done
}

# --- attrs on every generation ---
ok amd-zen4 6.8.0 "-b ibs_op l3missonly=1" "type=9;config=0x10000;config1=0x0;config2=0x0;sample_type=$ST_MEM;freq=1;sample_freq=4000;precise_ip=0;exclude_kernel=0"
ok amd-zen4 6.8.0 "-b ibs_op l3missonly=1 cnt_ctl=1 -c 65536" "config=0x90000;sample_period=65536;freq=0"
ok amd-zen4 6.8.0 "-b ibs_fetch l3missonly=1 rand_en=1" "type=8;config=0xa00000000000000;sample_type=$ST_BASE"
ok amd-zen4 6.8.0 "-b ibs_op -F 1000" "config=0x0;freq=1;sample_freq=1000"
ok amd-zen4 6.1.0 "-b ibs_op -a" "type=9;sample_type=$ST_MEM"
ok amd-zen3 6.2.0 "-b ibs_op cnt_ctl=1 -c 100000" "type=9;config=0x80000;sample_period=100000"
ok amd-zen3 6.2.0 "-b ibs_fetch rand_en=1" "type=8;config=0x200000000000000"
ok amd-zen2 5.15.0 "-b ibs_op -a cnt_ctl=0x1" "config=0x80000;sample_type=$ST_BASE"
ok amd-zen5 6.15.0 "-b ibs_op ldlat=256 swfilt=1" "config=0x0;config1=0x100;config2=0x1"
ok amd-zen5 6.15.0 "-b ibs_op ldlat=2048 l3missonly=1" "config=0x10000;config1=0x800"
ok amd-zen5 6.15.0 "-b ibs_fetch swfilt=1 l3missonly=1" "type=8;config=0x800000000000000;config2=0x1"
ok amd-zen5 6.15.0 "-b amd_ibs" "type=9;config=0x0"

# --- errors a user can act on ---
bad amd-zen3 6.2.0 "-b ibs_op bogus=1" "unknown control 'bogus'|valid controls for ibs_op on this machine: cnt_ctl"
bad amd-zen5 6.15.0 "-b ibs_fetch cnt_ctl=1" "it is a ibs_op control|l3missonly, rand_en, swfilt"
bad amd-zen4 6.8.0 "-b ibs_op l3missonly=2" "too wide|0..1"
bad amd-zen5 6.15.0 "-b ibs_op ldlat=4000" "128..2048"
bad amd-zen3 6.8.0 "-b ibs_op l3missonly=1" "Zen 3|Zen 4|Linux 5.19"
bad amd-zen4 6.8.0 "-b ibs_op ldlat=128" "Zen 5|Linux 6.15"
bad amd-zen4 6.8.0 "-b ibs_op swfilt=1" "Linux 6.14"
bad amd-zen4 6.1.0 "-b ibs_op" "needs Linux 6.2|6.1.0|-a"
bad amd-zen4 6.8.0 "-b ibs_op -c 100001" "multiple of 16|use a period (-c) of 100000 or 100016"
bad amd-zen4 6.8.0 "-b ibs_fetch -c 2000000" "16 to 1048560"
bad amd-vm 6.8.0 "-b ibs_op" "virtualised|bare metal"
bad amd-ibs-off 6.8.0 "-b ibs_op" "disabled in firmware|BIOS"
HWS_PROC_CPUINFO_OVERRIDE=$trees/amd-vm/cpuinfo-intel bad amd-vm 6.8.0 "-b ibs_op" "AMD feature|GenuineIntel"

# --- list ---
out=$(HWS_SYSFS_ROOT=$trees/amd-zen5 "$HWS_BIN" list 2>&1)
for s in "pmu ibs_op" "pmu ibs_fetch" "ldlat" "128..2048" "(config1:0-11)" "swfilt" "(config2:0)" "rand_en"; do
	check "list (zen5) has '$s'" grep -qF -- "$s" <<<"$out"
done
out=$(HWS_SYSFS_ROOT=$trees/amd-vm "$HWS_BIN" list 2>&1)
check "list (vm): amd_ibs marked not usable" grep -q "amd_ibs.*not usable" <<<"$out"
check "list (vm): the reason" grep -q "virtualised" <<<"$out"
finish
