#!/bin/bash
# SPDX-License-Identifier: MIT
# Differential test of the intel_pebs decoder against the real perf tool. gen_intel_pebs
# writes PEBS-style samples as the kernel records them for perf mem (random but realistic
# DATA_SRC from the SNB/SKL/Gracemont tables, TLB/lock/blk bits, WEIGHT_STRUCT var1/var2 or
# plain WEIGHT, PHYS_ADDR, page sizes, and a share of random data_src values) for Skylake,
# Sapphire Rapids and Alder Lake; perf report -D and perf script -F ... decode the file, and
# `hwsample dump --json --raw` decodes the same file; intel_pebs_cmp.py compares every sample.
# The real Skylake-SP recording perf.data.weight_struct is compared the same way.
# Skips (77) without perf or python3.
. "$(dirname "$0")/lib/common.sh"
: "${HWS_SOURCE_DIR:?}" "${HWS_FIXTURES:?}"
GEN=$HWS_GEN/gen_intel_pebs
CMP=$HWS_SOURCE_DIR/tests/e2e/intel_pebs_cmp.py
N=${PEBS_VS_PERF_SAMPLES:-2000}
need_perf
need_python3
need_perf_runs
[ -x "$GEN" ] || die "$GEN not built"
compare() { # name file [flags: plain,nophys]
	local name=$1 f=$2 flags=${3:-}
	local fields=event,tid,cpu,ip,addr,data_src,weight
	[[ $flags == *plain* ]] || fields+=,ins_lat
	[[ $flags == *nophys* ]] || fields+=,phys_addr
	perf report -D -i "$f" 2>/dev/null >"$TMP/d.txt"
	perf script -F "$fields" -i "$f" 2>/dev/null >"$TMP/s.txt"
	check "hwsample dump on $name" "$HWS_BIN" dump --json --raw -i "$f" >"$TMP/h.jsonl" || return
	printf '%s: ' "$name"
	check "$name: perf and hwsample agree (intel_pebs_cmp.py)" \
		python3 "$CMP" "$TMP/d.txt" "$TMP/s.txt" "$TMP/h.jsonl" $flags
}

for m in skl spr adl; do
	for seed in 1 2; do
		f=$TMP/$m-$seed.data
		"$GEN" -o "$f" -n "$N" -m "$m" -s "$seed" --garbage 5 --page-sizes || die "generator"
		compare "$m seed $seed" "$f"
	done
done
f=$TMP/skl-plain.data
"$GEN" -o "$f" -n "$N" -m skl -s 3 --plain-weight || die "generator"
compare "skl plain WEIGHT" "$f" plain

# the real recording (Skylake-SP, perf 5.17): no PHYS_ADDR there, perf prints 0
compare "perf.data.weight_struct" "$HWS_FIXTURES/perf_data_converter/perf.data.weight_struct" \
	nophys
finish
