#!/bin/bash
# SPDX-License-Identifier: MIT
# Real-hardware test for amd_ibs: records ibs_op and ibs_fetch samples of a memory workload
# and checks that they decode (precise IPs, load/store ops with data addresses, latencies).
# Exits 77 (skipped) without an IBS PMU (not AMD, virtualised, IBS disabled in firmware) or
# without the privilege IBS needs (it has no hardware privilege filter: root/CAP_PERFMON or
# a low perf_event_paranoid; `hwsample list` says which).
set -u
: "${HWS_BIN:?}" "${HWS_WORKLOADS:?}"
root=${HWS_SYSFS_ROOT:-/sys}
[ -e "$root/bus/event_source/devices/ibs_op" ] || { echo "SKIP: no ibs_op PMU ($("$HWS_BIN" list 2>&1 | grep -A1 '^amd_ibs' | tail -1 | sed 's/^ *//'))"; exit 77; }
wl=$HWS_WORKLOADS/memdemo
[ -x "$wl" ] || wl=$HWS_WORKLOADS/cpuburn
[ -x "$wl" ] || { echo "SKIP: no workload built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kv=$(uname -r | awk -F. '{ printf "%d", $1 * 256 + $2 }')
mode=""
[ "$kv" -lt $((6 * 256 + 2)) ] && mode="-a" # per-process IBS needs 6.2
fail=0
for pmu in ibs_op ibs_fetch; do
	"$HWS_BIN" -b $pmu $mode -c 100000 -o "$tmp/$pmu.data" -- "$wl" >"$tmp/rec.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		if [ $rc -eq 4 ] || grep -qiE 'EACCES|permission|paranoid' "$tmp/rec.log"; then
			echo "SKIP: not allowed to open $pmu: $(tail -1 "$tmp/rec.log")"
			exit 77
		fi
		echo "FAIL: record $pmu: $(cat "$tmp/rec.log")"
		fail=1
		continue
	fi
	"$HWS_BIN" dump --json --raw -i "$tmp/$pmu.data" >"$tmp/$pmu.jsonl" || { echo "FAIL: dump $pmu"; fail=1; continue; }
	n=$(grep -c "\"pmu\":\"$pmu\"" "$tmp/$pmu.jsonl")
	p=$(grep -c '"precise":true' "$tmp/$pmu.jsonl")
	echo "$pmu: $n samples, $p precise"
	[ "$n" -gt 0 ] && [ "$p" -gt 0 ] || { echo "FAIL: no decoded $pmu samples"; fail=1; }
	if [ $pmu = ibs_op ]; then
		grep -q '"op":"load".*"addr":\|"addr":.*"op":"load"' "$tmp/$pmu.jsonl" ||
			{ echo "FAIL: no load with a data address"; fail=1; }
		grep -q '"lat_total":' "$tmp/$pmu.jsonl" || { echo "FAIL: no latency"; fail=1; }
	fi
done
exit $fail
