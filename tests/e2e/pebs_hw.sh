#!/bin/bash
# SPDX-License-Identifier: MIT
# Real-hardware test for intel_pebs: records perf-mem style loads (ldlat=30) and stores of a
# memory workload and checks that they decode (precise IPs, load/store ops with data
# addresses, load latencies, data sources) and that perf reads the same file. Exits 77
# (skipped) where PEBS is not usable (not Intel, VM without PEBS, no core PMU: the reason
# comes from the backend's detect, as `hwsample list` prints it) or not permitted.
set -u
: "${HWS_BIN:?}" "${HWS_WORKLOADS:?}"
[ -z "${HWS_SYSFS_ROOT:-}" ] || { echo "SKIP: HWS_SYSFS_ROOT fakes the machine"; exit 77; }
why=$("$HWS_BIN" list 2>&1 | awk '/^intel_pebs/ { print; getline; print; exit }')
grep -q '^intel_pebs *usable' <<<"$why" ||
	{ echo "SKIP: intel_pebs not usable here: $(tail -1 <<<"$why" | sed 's/^ *//')"; exit 77; }
wl=$HWS_WORKLOADS/memdemo
[ -x "$wl" ] || wl=$HWS_WORKLOADS/cpuburn
[ -x "$wl" ] || { echo "SKIP: no workload built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$HWS_BIN" -b intel_pebs ldlat=30 -c 2003 -o "$tmp/p.data" -- "$wl" >"$tmp/rec.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	if grep -qiE 'EACCES|permission|paranoid' "$tmp/rec.log"; then
		echo "SKIP: not allowed: $(tail -1 "$tmp/rec.log")"
		exit 77
	fi
	echo "FAIL: record: $(cat "$tmp/rec.log")"
	exit 1
fi
"$HWS_BIN" dump --json -i "$tmp/p.data" >"$tmp/d.jsonl" || { echo "FAIL: dump"; exit 1; }
n=$(wc -l <"$tmp/d.jsonl")
loads=$(grep -c '"op":"load".*"addr":' "$tmp/d.jsonl")
lat=$(grep -c '"lat_total":' "$tmp/d.jsonl")
ds=$(grep -c '"mem_level":"' "$tmp/d.jsonl")
prec=$(grep -c '"precise":true' "$tmp/d.jsonl")
echo "samples $n, loads with address $loads, with latency $lat, with data source $ds, precise $prec"
fail=0
[ "$n" -gt 0 ] && [ "$loads" -gt 0 ] && [ "$lat" -gt 0 ] && [ "$ds" -gt 0 ] && [ "$prec" -gt 0 ] ||
	fail=1
if command -v perf >/dev/null; then
	ps=$(perf script -F ip -i "$tmp/p.data" 2>/dev/null | wc -l)
	[ "$ps" -eq "$n" ] || { echo "FAIL: perf script sees $ps samples, hwsample $n"; fail=1; }
fi
exit $fail
