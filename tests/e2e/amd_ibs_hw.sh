#!/bin/bash
# SPDX-License-Identifier: MIT
# Real-hardware test for amd_ibs: records ibs_op and ibs_fetch samples of a memory workload
# and checks that they decode (precise IPs, load/store ops with data addresses, latencies).
# Exits 77 (skipped) without an IBS PMU (not AMD, virtualised, IBS disabled in firmware) or
# without the privilege IBS needs (it has no hardware privilege filter: root/CAP_PERFMON or
# a low perf_event_paranoid; `hwsample list` says which).
. "$(dirname "$0")/lib/common.sh"
: "${HWS_WORKLOADS:?}"
root=${HWS_SYSFS_ROOT:-/sys}
[ -e "$root/bus/event_source/devices/ibs_op" ] ||
	skip "no ibs_op PMU ($("$HWS_BIN" list 2>&1 | grep -A1 '^amd_ibs' | tail -1 | sed 's/^ *//'))"
wl=$HWS_WORKLOADS/memdemo
[ -x "$wl" ] || wl=$HWS_WORKLOADS/cpuburn
[ -x "$wl" ] || skip "no workload built"
kv=$(uname -r | awk -F. '{ printf "%d", $1 * 256 + $2 }')
mode=""
[ "$kv" -lt $((6 * 256 + 2)) ] && mode="-a" # per-process IBS needs 6.2
for pmu in ibs_op ibs_fetch; do
	"$HWS_BIN" -b $pmu $mode -c 100000 -o "$TMP/$pmu.data" -- "$wl" >"$TMP/rec.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		if [ $rc -eq 4 ] || grep -qiE 'EACCES|permission|paranoid' "$TMP/rec.log"; then
			skip "not allowed to open $pmu: $(tail -1 "$TMP/rec.log")"
		fi
		fail "record $pmu: $(cat "$TMP/rec.log")"
		continue
	fi
	check "dump $pmu" "$HWS_BIN" dump --json --raw -i "$TMP/$pmu.data" >"$TMP/$pmu.jsonl" ||
		continue
	n=$(grep -c "\"pmu\":\"$pmu\"" "$TMP/$pmu.jsonl")
	p=$(grep -c '"precise":true' "$TMP/$pmu.jsonl")
	echo "$pmu: $n samples, $p precise"
	check "decoded $pmu samples, precise ones among them" [ "$n" -gt 0 -a "$p" -gt 0 ]
	if [ $pmu = ibs_op ]; then
		check "a load with a data address" \
			grep -q '"op":"load".*"addr":\|"addr":.*"op":"load"' "$TMP/$pmu.jsonl"
		check "a latency" grep -q '"lat_total":' "$TMP/$pmu.jsonl"
	fi
done
finish
