#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Real Arm SPE hardware: record a memory workload with the arm_spe backend and check the
# decoded samples (loads with data addresses, precise IPs, latencies, data sources), and
# that perf reads the file hwsample wrote. Skips (77) with the reason where there is no
# arm_spe_<n> PMU (x86, cloud VMs, kernels without the driver) or no permission.
. "$(dirname "$0")/lib/common.sh"
: "${HWS_WORKLOADS:?}"
shopt -s nullglob
pmus=(/sys/bus/event_source/devices/arm_spe_*)
[ ${#pmus[@]} -gt 0 ] ||
	skip "no arm_spe_<n> PMU on this machine ($(uname -m)); SPE needs bare-metal Armv8.2+"
"$HWS_BIN" -b arm_spe load_filter=1 store_filter=1 -c 4096 -o "$TMP/spe.data" -- \
	"$HWS_WORKLOADS/memdemo" >"$TMP/rec.out" 2>&1
rc=$?
case $rc in
0) ;;
3 | 4) skip "record not possible here (exit $rc): $(tail -1 "$TMP/rec.out")" ;;
*) cat "$TMP/rec.out"; die "record exit $rc" ;;
esac
"$HWS_BIN" dump --json -i "$TMP/spe.data" >"$TMP/d.json" || die "dump"
n=$(grep -c '"backend":"arm_spe"' "$TMP/d.json")
ld=$(grep '"backend":"arm_spe"' "$TMP/d.json" | grep -c '"addr":.*"op":"load"')
lat=$(grep -c '"lat_total":' "$TMP/d.json")
echo "samples $n, loads with address $ld, with latency $lat"
check "usable SPE samples: loads with an address, latencies" [ "$n" -gt 0 -a "$ld" -gt 0 -a "$lat" -gt 0 ]
if command -v perf >/dev/null; then
	pn=$(perf script -i "$TMP/spe.data" --itrace=i1i 2>/dev/null | wc -l)
	echo "perf script --itrace=i1i: $pn samples"
	eq "perf sees hwsample's records" "$pn" "$n"
fi
finish
