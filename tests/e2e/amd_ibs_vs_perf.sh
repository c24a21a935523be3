#!/bin/bash
# SPDX-License-Identifier: MIT
# Differential test of the amd_ibs decoder against the real perf tool: for each Zen
# generation and several seeds, gen_amd_ibs writes random-but-valid IBS op and fetch
# samples (with CPUID, PMU_MAPPINGS and, for Zen 4/5, PMU_CAPS headers); `perf report -D`
# decodes the IBS registers, `hwsample dump --json --raw` decodes the same file, and
# amd_ibs_cmp.py compares every field perf prints. Skips (77) without perf or python3.
. "$(dirname "$0")/lib/common.sh"
: "${HWS_SOURCE_DIR:?}"
GEN=$HWS_GEN/gen_amd_ibs
N=${IBS_VS_PERF_SAMPLES:-1500}
need_perf
need_python3
[ -x "$GEN" ] || die "$GEN not built"
need_perf_runs
for g in zen2:23:49 zen3:25:1 zen4:25:17 zen5:26:17; do
	IFS=: read -r gen fam model <<<"$g"
	for seed in 1 2 3; do
		f=$TMP/$gen-$seed.data
		"$GEN" -o "$f" -g "$gen" -n "$N" -s "$seed" --invalid 3 || die "generator"
		perf report -D -i "$f" 2>/dev/null >"$TMP/perf.txt"
		check "hwsample dump on $gen seed $seed" \
			"$HWS_BIN" dump --json --raw -i "$f" >"$TMP/hws.jsonl" || continue
		printf '%s seed %s: ' "$gen" "$seed"
		check "$gen seed $seed: perf report -D and hwsample agree (amd_ibs_cmp.py)" \
			python3 "$HWS_SOURCE_DIR/tests/e2e/amd_ibs_cmp.py" "$TMP/perf.txt" "$TMP/hws.jsonl" \
			"$fam" "$model"
	done
done
finish
