#!/bin/bash
# SPDX-License-Identifier: MIT
# Differential test of the intel_pebs decoder against the real perf tool. gen_intel_pebs
# writes PEBS-style samples as the kernel records them for perf mem (random but realistic
# DATA_SRC from the SNB/SKL/Gracemont tables, TLB/lock/blk bits, WEIGHT_STRUCT var1/var2 or
# plain WEIGHT, PHYS_ADDR, page sizes, and a share of random data_src values) for Skylake,
# Sapphire Rapids and Alder Lake; perf report -D and perf script -F ... decode the file, and
# `hwsample dump --json --raw` decodes the same file; pebs_cmp.py compares every sample.
# The real Skylake-SP recording perf.data.weight_struct is compared the same way.
# Skips (77) without perf or python3.
set -u
: "${HWS_BUILD_DIR:?}" "${HWS_SOURCE_DIR:?}" "${HWS_BIN:?}"
GEN=$HWS_GEN/gen_intel_pebs
CMP=$HWS_SOURCE_DIR/tests/e2e/pebs_cmp.py
N=${PEBS_VS_PERF_SAMPLES:-2000}
command -v perf >/dev/null || { echo "SKIP: perf not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
perf version >/dev/null 2>&1 || { echo "SKIP: perf does not run"; exit 77; }
[ -x "$GEN" ] || { echo "FAIL: $GEN not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # name file [flags: plain,nophys]
	local name=$1 f=$2 flags=${3:-}
	local fields=event,tid,cpu,ip,addr,data_src,weight
	[[ $flags == *plain* ]] || fields+=,ins_lat
	[[ $flags == *nophys* ]] || fields+=,phys_addr
	perf report -D -i "$f" 2>/dev/null >"$tmp/d.txt"
	perf script -F "$fields" -i "$f" 2>/dev/null >"$tmp/s.txt"
	if ! "$HWS_BIN" dump --json --raw -i "$f" >"$tmp/h.jsonl"; then
		echo "FAIL: hwsample dump on $name"
		fail=1
		return
	fi
	printf '%s: ' "$name"
	python3 "$CMP" "$tmp/d.txt" "$tmp/s.txt" "$tmp/h.jsonl" $flags || fail=1
}

for m in skl spr adl; do
	for seed in 1 2; do
		f=$tmp/$m-$seed.data
		"$GEN" -o "$f" -n "$N" -m "$m" -s "$seed" --garbage 5 --page-sizes ||
			{ echo "FAIL: generator"; exit 1; }
		check "$m seed $seed" "$f"
	done
done
f=$tmp/skl-plain.data
"$GEN" -o "$f" -n "$N" -m skl -s 3 --plain-weight || { echo "FAIL: generator"; exit 1; }
check "skl plain WEIGHT" "$f" plain

# the real recording (Skylake-SP, perf 5.17): no PHYS_ADDR there, perf prints 0
check "perf.data.weight_struct" "$HWS_FIXTURES/perf_data_converter/perf.data.weight_struct" \
	nophys
exit $fail
