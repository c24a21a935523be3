#!/bin/bash
# SPDX-License-Identifier: MIT
# The two real IBS records of tests/fixtures/60secs (see its SOURCES.md), wrapped in a
# perf.data with the headers perf needs (gen_amd_ibs --60secs): hwsample's decoding must
# match `perf report -D` field by field (amd_ibs_cmp.py), and the shared sample must hold the
# values SOURCES.md states -- in particular the op sample is not a load/store, so its stale
# IbsDcLinAd/IbsDcPhysAd (0x7fffeccb7e10 / 0x1) must not be reported as addresses.
. "$(dirname "$0")/lib/common.sh"
: "${HWS_SOURCE_DIR:?}" "${HWS_FIXTURES:?}"
need_python3
"$HWS_GEN/gen_amd_ibs" -o "$TMP/60.data" -g zen2 --60secs "$HWS_FIXTURES/60secs" ||
	die "could not wrap the fixture"
"$HWS_BIN" dump --json --raw -i "$TMP/60.data" >"$TMP/hws.jsonl" || die "dump"
[ "$(wc -l <"$TMP/hws.jsonl")" = 2 ] || { cat "$TMP/hws.jsonl"; die "want 2 samples"; }
sed -n 1p "$TMP/hws.jsonl" >"$TMP/fetch.json"
sed -n 2p "$TMP/hws.jsonl" >"$TMP/op.json"
for s in '"event":"ibs_fetch//pp"' '"ip":"0xdee91a"' '"precise":true' '"pid":3619' '"cpu":38' \
	'"period":35034' '"time":50306000115460' '"lat_total":190' '"mem_level":"l1"' \
	'"IbsFetchCtl":{"value":"0x700be088e088e"' '"FetchMaxCnt":2190' '"FetchCnt":2190' \
	'"FetchLat":190' '"IbsFetchPhysAd":"0x40806e191a"' '"IcIbsExtdCtl":{"value":"0x0"'; do
	check "fetch has $s" grep -qF -- "$s" "$TMP/fetch.json"
done
check "fetch (PhyAddrValid is clear) has no \"phys_addr\"" not grep -qF '"phys_addr"' "$TMP/fetch.json"
for s in '"event":"ibs_op//pp"' '"ip":"0x7fffecd43aef"' '"precise":true' '"period":468095' \
	'"time":50306000214025' '"op":"other"' '"lat_total":7' '"lat_ins":2' \
	'"IbsOpCtl":{"value":"0x5300067248"' '"OpCurCnt":83' '"Microcode":1' \
	'"IbsOpData2":{"value":"0x22"' '"IbsOpData3":{"value":"0x0"' \
	'"IbsDcLinAd":"0x7fffeccb7e10"' '"IbsDcPhysAd":"0x1"' '"IbsBrTarget":"0x7fffecd43aef"'; do
	check "op has $s" grep -qF -- "$s" "$TMP/op.json"
done
for s in '"addr"' '"phys_addr"' '"data_src"' '"mem_level"' '"branch_target"' '"lat_miss"'; do
	check "op (not a load/store, not a branch) has no $s" not grep -qF -- "$s" "$TMP/op.json"
done
if have_perf; then
	perf report -D -i "$TMP/60.data" 2>/dev/null >"$TMP/perf.txt"
	check "perf report -D and hwsample agree (amd_ibs_cmp.py)" \
		python3 "$HWS_SOURCE_DIR/tests/e2e/amd_ibs_cmp.py" "$TMP/perf.txt" "$TMP/hws.jsonl" 23 49
else
	echo "perf not installed: skipped the perf cross-check"
fi
finish
