#!/bin/bash
# SPDX-License-Identifier: MIT
# Recording call chains (core/record/session.c, CLI, config): the attr bits --dry-run prints
# for -g, --call-graph fp and --call-graph dwarf[,SIZE] (as perf record sets them: CALLCHAIN;
# dwarf: REGS_USER with perf's register mask, STACK_USER with SIZE rounded up to 8,
# exclude_callchain_user, ADDR + DATA_SRC + mmap_data) on software events and on the fake IBS
# and PEBS sysfs trees, equal to what perf record -vv prints for the same options on sw;
# c2c record -g; [run] call_graph with its origin; bad values (exit 2) and Arm SPE refused
# (exit 3) with a message that says its records carry no call chain. Then a real
# --call-graph dwarf recording: perf script reads it, and hwsample's kernel frames equal
# perf's (the unwound user frames are checked by decode_callchain_dwarf.sh).
. "$(dirname "$0")/lib/common.sh"
S=$HWS_SOURCE_DIR/tests/sysfs

# "sample_type regs_user stack_user exclude_callchain_user mmap_data" of event 0 of a dry run
attrs() {
	"$@" --dry-run -- true 2>&1 | awk '
		/^event / { n = $2 + 0 }
		n == 0 && $1 == "sample_type" { st = $2 }
		n == 0 && $1 == "sample_regs_user" { ru = $2 }
		n == 0 && $1 == "sample_stack_user" { su = $2 }
		n == 0 && $1 == "exclude_callchain_user" { ecu = $2 }
		n == 0 && $1 == "mmap_data" { md = $2 }
		END { print st, ru, su, ecu, md }'
}
has() { [[ " ${1//|/ } " == *" $2 "* ]]; }
hasnt() { ! has "$@"; }

case $(uname -m) in
x86_64) MASK=0xff0fff ;;
aarch64) MASK=0x1ffffffff ;;
*) MASK= ;;
esac

read -r st ru su ecu md <<<"$(attrs "$HWS_BIN" -b sw -e cpu-clock -g)"
check "sw -g: CALLCHAIN" has "$st" CALLCHAIN
check "sw -g: no REGS_USER" hasnt "$st" REGS_USER
eq "sw -g: regs/stack/exclude" "$ru $su $ecu" "0x0 0 0"
eq "--call-graph fp = -g" "$(attrs "$HWS_BIN" -b sw -e cpu-clock --call-graph fp)" \
	"$(attrs "$HWS_BIN" -b sw -e cpu-clock -g)"
read -r st ru su ecu md <<<"$(attrs "$HWS_BIN" -b sw -e cpu-clock --call-graph dwarf)"
for b in CALLCHAIN REGS_USER STACK_USER ADDR DATA_SRC; do
	check "sw dwarf: $b" has "$st" $b
done
[ -n "$MASK" ] && eq "sw dwarf: regs mask" "$ru" $MASK
eq "sw dwarf: default stack 8192, exclude_callchain_user, mmap_data" "$su $ecu $md" "8192 1 1"
read -r st ru su ecu md <<<"$(attrs "$HWS_BIN" -b sw -e page-faults --call-graph dwarf,4001)"
eq "dwarf,4001: rounded up to 4008" "$su" 4008
read -r st ru su ecu md <<<"$(attrs "$HWS_BIN" -b sw -e sched:sched_switch --call-graph dwarf,4096)"
if [ -n "$st" ]; then
	check "tracepoint dwarf: CALLCHAIN" has "$st" CALLCHAIN
	eq "tracepoint dwarf,4096: stack" "$su" 4096
fi

# as perf record sets them (perf prints only non-zero fields)
if command -v perf >/dev/null; then
	p=$(perf record -vv -e cpu-clock --call-graph dwarf,4096 -o "$TMP/x.data" -- true 2>&1 |
		awk '$1 == "sample_regs_user" || $1 == "sample_stack_user" ||
			$1 == "exclude_callchain_user" {print $1, $2}' | sort | head -3 | tr '\n' ' ')
	read -r st ru su ecu md <<<"$(attrs "$HWS_BIN" -b sw -e cpu-clock --call-graph dwarf,4096)"
	eq "dwarf,4096 as perf record" "$p" \
		"exclude_callchain_user $ecu sample_regs_user $ru sample_stack_user $su "
fi

# IBS and PEBS (fake sysfs trees): the same bits on the backends' events
read -r st ru su ecu md <<<"$(attrs env HWS_SYSFS_ROOT=$S/amd-zen4 "$HWS_BIN" -b ibs_op -g)"
check "ibs_op -g: CALLCHAIN" has "$st" CALLCHAIN
check "ibs_op -g: RAW kept" has "$st" RAW
read -r st ru su ecu md <<<"$(attrs env HWS_SYSFS_ROOT=$S/amd-zen4 "$HWS_BIN" -b ibs_op \
	--call-graph dwarf,4096)"
eq "ibs_op dwarf,4096: stack, exclude" "$su $ecu" "4096 1"
read -r st ru su ecu md <<<"$(attrs env HWS_SYSFS_ROOT=$S/intel-icl LIBPFM_FORCE_PMU=icl \
	"$HWS_BIN" -b intel_pebs -g)"
check "intel_pebs -g: CALLCHAIN (no large PEBS)" has "$st" CALLCHAIN
read -r st ru su ecu md <<<"$(attrs env HWS_SYSFS_ROOT=$S/intel-icl LIBPFM_FORCE_PMU=icl \
	"$HWS_BIN" -b intel_pebs --call-graph dwarf,4096)"
eq "intel_pebs dwarf,4096: stack, exclude" "$su $ecu" "4096 1"
read -r st ru su ecu md <<<"$(attrs env HWS_SYSFS_ROOT=$S/amd-zen4 "$HWS_BIN" c2c record -g)"
check "c2c record -g: CALLCHAIN" has "$st" CALLCHAIN

# Arm SPE: refused, exit 3 (not supported), saying why
out=$(HWS_SYSFS_ROOT=$S/arm-n1-6.1 "$HWS_BIN" -b arm_spe -g --dry-run -- true 2>&1)
eq "arm_spe -g: exit 3" "$?" 3
check "arm_spe -g: says no call chain" grep -q "carry no call chain" <<<"$out"
check "arm_spe -g: names the option" grep -q -- "-g/--call-graph" <<<"$out"
HWS_SYSFS_ROOT=$S/arm-n1-6.1 "$HWS_BIN" -b arm_spe --dry-run -- true >/dev/null 2>&1
eq "arm_spe without -g still fine" "$?" 0

# usage errors: exit 2 with the valid forms
for bad in foo dwarf,0 dwarf,x dwarf,70000 dwarf4096; do
	out=$("$HWS_BIN" -b sw --call-graph "$bad" --dry-run -- true 2>&1)
	eq "--call-graph $bad: exit 2" "$?" 2
	check "--call-graph $bad: lists the valid forms" grep -q "valid: fp, dwarf" <<<"$out"
done

# config file: call_graph with its origin; the command line wins
printf '[run]\nbackend = sw\nevents = cpu-clock\ncall_graph = dwarf,2048\n' >"$TMP/cg.conf"
out=$("$HWS_BIN" -c "$TMP/cg.conf" --dry-run -- true 2>&1)
check "config: origin shown" grep -q "run.call_graph = dwarf,2048 *$TMP/cg.conf:4" <<<"$out"
check "config: stack 2048" grep -q "sample_stack_user *2048" <<<"$out"
out=$("$HWS_BIN" -c "$TMP/cg.conf" -g --dry-run -- true 2>&1)
check "config + -g: command line" grep -q "run.call_graph = fp *command line" <<<"$out"
check "config + -g: no stack copy" grep -q "sample_stack_user *0" <<<"$out"
printf '[run]\nbackend = sw\ncall_graph = lbr2\n' >"$TMP/bad.conf"
out=$("$HWS_BIN" -c "$TMP/bad.conf" --dry-run -- true 2>&1)
eq "config: bad call_graph exit 2" "$?" 2
check "config: bad value names file:line" grep -q "bad.conf:3: call_graph = lbr2" <<<"$out"

# a real dwarf recording: perf reads it; the kernel part of each chain equals perf's
if command -v perf >/dev/null &&
	"$HWS_BIN" -q -b sw -e cpu-clock -c 1000000 -o "$TMP/probe.data" -- true >/dev/null 2>&1; then
	"$HWS_BIN" -q -b sw -e cpu-clock -c 500000 --call-graph dwarf,4096 -o "$TMP/d.data" -- \
		"$HWS_WORKLOADS/faulter" 64 >/dev/null 2>&1
	eq "dwarf record exit" "$?" 0
	perf script -i "$TMP/d.data" -F comm,tid,time,ip,sym,symoff,dso 2>"$TMP/perr" |
		awk '/^\t/ && !/kernel.kallsyms/ {next} {print}' >"$TMP/pk.txt"
	check "perf script reads the dwarf file" [ -s "$TMP/pk.txt" ]
	"$HWS_BIN" dump -i "$TMP/d.data" --sym |
		awk '/^\t/ && !/kernel.kallsyms/ {next} {print}' >"$TMP/hk.txt"
	python3 "$HWS_SOURCE_DIR/tests/e2e/cc_cmp.py" "$TMP/pk.txt" "$TMP/hk.txt" /nonexistent
	check "dwarf: kernel frames equal perf script's" [ $? = 0 ]
fi
finish
