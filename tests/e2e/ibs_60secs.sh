#!/bin/bash
# SPDX-License-Identifier: MIT
# The two real IBS records of tests/fixtures/60secs (see its SOURCES.md), wrapped in a
# perf.data with the headers perf needs (gen_amd_ibs --60secs): hwsample's decoding must
# match `perf report -D` field by field (ibs_cmp.py), and the shared sample must hold the
# values SOURCES.md states -- in particular the op sample is not a load/store, so its stale
# IbsDcLinAd/IbsDcPhysAd (0x7fffeccb7e10 / 0x1) must not be reported as addresses.
set -u
: "${HWS_BUILD_DIR:?}" "${HWS_SOURCE_DIR:?}" "${HWS_BIN:?}" "${HWS_FIXTURES:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$HWS_GEN/gen_amd_ibs" -o "$tmp/60.data" -g zen2 --60secs "$HWS_FIXTURES/60secs" ||
	{ echo "FAIL: could not wrap the fixture"; exit 1; }
"$HWS_BIN" dump --json --raw -i "$tmp/60.data" >"$tmp/hws.jsonl" || { echo "FAIL: dump"; exit 1; }
[ "$(wc -l <"$tmp/hws.jsonl")" = 2 ] || { echo "FAIL: want 2 samples"; cat "$tmp/hws.jsonl"; exit 1; }
fetch=$(sed -n 1p "$tmp/hws.jsonl")
op=$(sed -n 2p "$tmp/hws.jsonl")
has() { grep -qF -- "$2" <<<"$1" || { echo "FAIL: $3 lacks $2"; fail=1; }; }
hasnt() { ! grep -qF -- "$2" <<<"$1" || { echo "FAIL: $3 has $2"; fail=1; }; }
for s in '"event":"ibs_fetch//pp"' '"ip":"0xdee91a"' '"precise":true' '"pid":3619' '"cpu":38' \
	'"period":35034' '"time":50306000115460' '"lat_total":190' '"mem_level":"l1"' \
	'"IbsFetchCtl":{"value":"0x700be088e088e"' '"FetchMaxCnt":2190' '"FetchCnt":2190' \
	'"FetchLat":190' '"IbsFetchPhysAd":"0x40806e191a"' '"IcIbsExtdCtl":{"value":"0x0"'; do
	has "$fetch" "$s" fetch
done
hasnt "$fetch" '"phys_addr"' "fetch (PhyAddrValid is clear)"
for s in '"event":"ibs_op//pp"' '"ip":"0x7fffecd43aef"' '"precise":true' '"period":468095' \
	'"time":50306000214025' '"op":"other"' '"lat_total":7' '"lat_ins":2' \
	'"IbsOpCtl":{"value":"0x5300067248"' '"OpCurCnt":83' '"Microcode":1' \
	'"IbsOpData2":{"value":"0x22"' '"IbsOpData3":{"value":"0x0"' \
	'"IbsDcLinAd":"0x7fffeccb7e10"' '"IbsDcPhysAd":"0x1"' '"IbsBrTarget":"0x7fffecd43aef"'; do
	has "$op" "$s" op
done
for s in '"addr"' '"phys_addr"' '"data_src"' '"mem_level"' '"branch_target"' '"lat_miss"'; do
	hasnt "$op" "$s" "op (not a load/store, not a branch)"
done
if command -v perf >/dev/null && perf version >/dev/null 2>&1; then
	perf report -D -i "$tmp/60.data" 2>/dev/null >"$tmp/perf.txt"
	python3 "$HWS_SOURCE_DIR/tests/e2e/ibs_cmp.py" "$tmp/perf.txt" "$tmp/hws.jsonl" 23 49 || fail=1
else
	echo "perf not installed: skipped the perf cross-check"
fi
exit $fail
