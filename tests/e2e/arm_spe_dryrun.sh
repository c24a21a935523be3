#!/bin/bash
# SPDX-License-Identifier: MIT
#
# `hwsample --dry-run -b arm_spe ...` on the fake sysfs trees of three kernel generations
# (tests/sysfs/arm-n1-6.1, arm-v2-6.12, arm-newer): the exact attr fields for control
# combinations, and every error through the CLI (message + exit code: 2 usage, 3 absent).
. "$(dirname "$0")/lib/common.sh"
: "${HWS_SOURCE_DIR:?}"
R=$HWS_SOURCE_DIR/tests/sysfs

# tree, expected "type config config1 config2 sample_period sample_type", args...
expect() {
	local tree=$1 want=$2
	shift 2
	local out got rc
	out=$(HWS_SYSFS_ROOT=$R/$tree "$HWS_BIN" --dry-run "$@" 2>&1)
	rc=$?
	eq "[$tree $*]: exit status ($out)" "$rc" 0 || return
	got=$(echo "$out" | awk '$1=="type"||$1=="config"||$1=="config1"||$1=="config2"||
		$1=="sample_period"||$1=="sample_type" {v[$1]=$2}
		END {print v["type"], v["config"], v["config1"], v["config2"], v["sample_period"],
		v["sample_type"]}')
	eq "[$tree $*]" "$got" "$want" && echo "ok   [$tree $*]: $got"
}

# tree, exit code, message substring, args...
expect_err() {
	local tree=$1 code=$2 msg=$3
	shift 3
	local out rc
	out=$(HWS_SYSFS_ROOT=$R/$tree "$HWS_BIN" --dry-run "$@" 2>&1)
	rc=$?
	eq "[$tree $*]: exit code ($out)" "$rc" "$code" &&
		check "[$tree $*]: message has '$msg': $out" grep -qF -- "$msg" <<<"$out" &&
		echo "ok   [$tree $*]: exit $rc"
}

ST=IP\|TID\|TIME\|CPU\|DATA_SRC\|IDENTIFIER
expect arm-n1-6.1 "9 0x1 0x0 0x0 1024 $ST" -b arm_spe -a true
expect arm-n1-6.1 "9 0x200000001 0x0 0x40 1024 $ST" -b arm_spe load_filter=1 min_latency=64 -a true
expect arm-n1-6.1 "9 0x600010001 0x12 0x0 8192 $ST" -b arm_spe_0 load_filter=1 store_filter=1 \
	jitter=1 event_filter=0x12 -c 8192 -a true
expect arm-n1-6.1 "9 0x3 0x0 0x0 1024 $ST|PHYS_ADDR" -b arm_spe pa_enable=1 -a true
expect arm-n1-6.1 "9 0x1 0x0 0x0 1024 $ST" -b arm_spe -c 10 -a true # raised to min_interval
expect arm-v2-6.12 "10 0x800000001 0x0 0x0 256 $ST" -b arm_spe discard=1 -a true
expect arm-newer "11 0x68000000001 0x0 0x0 512 $ST" -b arm_spe simd_filter=1 float_filter=1 \
	float_filter_mask=1 -a true
expect arm-newer "12 0x1000000001 0x0 0x0 2048 $ST" -b arm_spe_1 branch_filter_mask=1 -a true

expect_err arm-n1-6.1 2 "unknown control 'foo'; valid controls: branch_filter event_filter" \
	-b arm_spe foo=1 -a true
expect_err arm-n1-6.1 2 "min_latency=5000 is too wide for its 12-bit field; valid range 0..4095" \
	-b arm_spe min_latency=5000 -a true
expect_err arm-n1-6.1 2 "a frequency (-F) is not supported: the SPE driver needs a fixed sampling interval; give a period (-c) instead" -b arm_spe -F 1000 -a true
expect_err arm-n1-6.1 2 "'discard' needs Linux 6.14+" -b arm_spe discard=1 -a true
# config3/config4: past the 6.1 uapi attr; core passes attr.size 136/144 and prints the words
out=$(HWS_SYSFS_ROOT=$R/arm-newer "$HWS_BIN" --dry-run -b arm_spe_1 inv_event_filter=0x80 -a true 2>&1)
check "[arm-newer inv_event_filter=0x80]: config3 0x80: $out" grep -qF "config3                    0x80" <<<"$out"
check "[arm-newer inv_event_filter=0x80]: size 136" grep -qF "size                       136" <<<"$out"
out=$(HWS_SYSFS_ROOT=$R/arm-newer "$HWS_BIN" --dry-run -b arm_spe data_src_filter=1 -a true 2>&1)
check "[arm-newer data_src_filter=1]: config4 0x1: $out" grep -qF "config4                    0x1" <<<"$out"
check "[arm-newer data_src_filter=1]: size 144" grep -qF "size                       144" <<<"$out"
expect_err arm-n1-6.1 3 "arm_spe_2: no such PMU; this machine has arm_spe_0" -b arm_spe_2 -a true
expect_err intel-skl 3 "no arm_spe_<n> PMU" -b arm_spe -a true
finish
