#!/bin/bash
# SPDX-License-Identifier: MIT
# An AUX event (SPE) recorded per CPU asks for SWITCH_CPU_WIDE records (attr.context_switch
# on the side-band event, as perf's SPE recording does) so the decoder can give samples
# without a CONTEXT packet their task; per-thread recordings and non-AUX events do not.
# Checked with --dry-run on the fake arm_spe sysfs tree.
# hws-test: static-too
. "$(dirname "$0")/lib/common.sh"
R=$HWS_SOURCE_DIR/tests/sysfs
cs() { # args... -> value of context_switch of event 0
	HWS_SYSFS_ROOT=$R/arm-n1-6.1 "$HWS_BIN" --dry-run "$@" 2>&1 |
		awk '$1 == "event" {n++} n == 1 && $1 == "context_switch" {print $2; exit}'
}
eq "SPE -a: context_switch" "$(cs -b arm_spe -a)" 1
eq "SPE -- prog: context_switch" "$(cs -b arm_spe -- true)" 1
eq "SPE --per-thread: no context_switch" "$(cs -b arm_spe --per-thread -- true)" 0
eq "sw -a: no context_switch" "$(cs -b sw -e cpu-clock -a)" 0
finish
