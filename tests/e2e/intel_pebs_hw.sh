#!/bin/bash
# SPDX-License-Identifier: MIT
# Real-hardware test for intel_pebs: records perf-mem style loads (ldlat=30) and stores of a
# memory workload and checks that they decode (precise IPs, load/store ops with data
# addresses, load latencies, data sources) and that perf reads the same file. Exits 77
# (skipped) where PEBS is not usable (not Intel, VM without PEBS, no core PMU: the reason
# comes from the backend's detect, as `hwsample list` prints it) or not permitted.
. "$(dirname "$0")/lib/common.sh"
: "${HWS_WORKLOADS:?}"
[ -z "${HWS_SYSFS_ROOT:-}" ] || skip "HWS_SYSFS_ROOT fakes the machine"
why=$("$HWS_BIN" list 2>&1 | awk '/^intel_pebs/ { print; getline; print; exit }')
grep -q '^intel_pebs *usable' <<<"$why" ||
	skip "intel_pebs not usable here: $(tail -1 <<<"$why" | sed 's/^ *//')"
wl=$HWS_WORKLOADS/memdemo
[ -x "$wl" ] || wl=$HWS_WORKLOADS/cpuburn
[ -x "$wl" ] || skip "no workload built"
"$HWS_BIN" -b intel_pebs ldlat=30 -c 2003 -o "$TMP/p.data" -- "$wl" >"$TMP/rec.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	if grep -qiE 'EACCES|permission|paranoid' "$TMP/rec.log"; then
		skip "not allowed: $(tail -1 "$TMP/rec.log")"
	fi
	die "record: $(cat "$TMP/rec.log")"
fi
"$HWS_BIN" dump --json -i "$TMP/p.data" >"$TMP/d.jsonl" || die "dump"
n=$(wc -l <"$TMP/d.jsonl")
loads=$(grep -c '"op":"load".*"addr":' "$TMP/d.jsonl")
lat=$(grep -c '"lat_total":' "$TMP/d.jsonl")
ds=$(grep -c '"mem_level":"' "$TMP/d.jsonl")
prec=$(grep -c '"precise":true' "$TMP/d.jsonl")
echo "samples $n, loads with address $loads, with latency $lat, with data source $ds, precise $prec"
check "samples, loads with an address, latencies, data sources and precise IPs" \
	[ "$n" -gt 0 -a "$loads" -gt 0 -a "$lat" -gt 0 -a "$ds" -gt 0 -a "$prec" -gt 0 ]
if command -v perf >/dev/null; then
	eq "perf script sees hwsample's samples" "$(perf script -F ip -i "$TMP/p.data" 2>/dev/null | wc -l)" "$n"
fi
finish
