#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Real Arm SPE hardware: record a memory workload with the arm_spe backend and check the
# decoded samples (loads with data addresses, precise IPs, latencies, data sources), and
# that perf reads the file hwsample wrote. Skips (77) with the reason where there is no
# arm_spe_<n> PMU (x86, cloud VMs, kernels without the driver) or no permission.
set -u
: "${HWS_BIN:?}" "${HWS_WORKLOADS:?}"
shopt -s nullglob
pmus=(/sys/bus/event_source/devices/arm_spe_*)
[ ${#pmus[@]} -gt 0 ] || {
	echo "SKIP: no arm_spe_<n> PMU on this machine ($(uname -m)); SPE needs bare-metal Armv8.2+"
	exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$HWS_BIN" -b arm_spe load_filter=1 store_filter=1 -c 4096 -o "$T/spe.data" -- \
	"$HWS_WORKLOADS/memdemo" >"$T/rec.out" 2>&1
rc=$?
case $rc in
0) ;;
3 | 4) echo "SKIP: record not possible here (exit $rc): $(tail -1 "$T/rec.out")"; exit 77 ;;
*) echo "FAIL: record exit $rc"; cat "$T/rec.out"; exit 1 ;;
esac
"$HWS_BIN" dump --json -i "$T/spe.data" >"$T/d.json" || { echo "FAIL: dump"; exit 1; }
n=$(grep -c '"backend":"arm_spe"' "$T/d.json")
ld=$(grep '"backend":"arm_spe"' "$T/d.json" | grep -c '"addr":.*"op":"load"')
lat=$(grep -c '"lat_total":' "$T/d.json")
echo "samples $n, loads with address $ld, with latency $lat"
[ "$n" -gt 0 ] && [ "$ld" -gt 0 ] && [ "$lat" -gt 0 ] || { echo "FAIL: no usable SPE samples"; exit 1; }
if command -v perf >/dev/null; then
	pn=$(perf script -i "$T/spe.data" --itrace=i1i 2>/dev/null | wc -l)
	echo "perf script --itrace=i1i: $pn samples"
	[ "$pn" -eq "$n" ] || { echo "FAIL: perf sees $pn records, hwsample $n"; exit 1; }
fi
exit 0
