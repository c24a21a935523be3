#!/bin/bash
# SPDX-License-Identifier: MIT
# Differential test of the amd_ibs decoder against the real perf tool: for each Zen
# generation and several seeds, gen_amd_ibs writes random-but-valid IBS op and fetch
# samples (with CPUID, PMU_MAPPINGS and, for Zen 4/5, PMU_CAPS headers); `perf report -D`
# decodes the IBS registers, `hwsample dump --json --raw` decodes the same file, and
# ibs_cmp.py compares every field perf prints. Skips (77) without perf or python3.
set -u
: "${HWS_BUILD_DIR:?}" "${HWS_SOURCE_DIR:?}" "${HWS_BIN:?}"
GEN=$HWS_GEN/gen_amd_ibs
N=${IBS_VS_PERF_SAMPLES:-1500}
command -v perf >/dev/null || { echo "SKIP: perf not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
[ -x "$GEN" ] || { echo "FAIL: $GEN not built"; exit 1; }
perf version >/dev/null 2>&1 || { echo "SKIP: perf does not run"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for g in zen2:23:49 zen3:25:1 zen4:25:17 zen5:26:17; do
	IFS=: read -r gen fam model <<<"$g"
	for seed in 1 2 3; do
		f=$tmp/$gen-$seed.data
		"$GEN" -o "$f" -g "$gen" -n "$N" -s "$seed" --invalid 3 || { echo "FAIL: generator"; exit 1; }
		perf report -D -i "$f" 2>/dev/null >"$tmp/perf.txt"
		"$HWS_BIN" dump --json --raw -i "$f" >"$tmp/hws.jsonl" ||
			{ echo "FAIL: hwsample dump on $gen seed $seed"; fail=1; continue; }
		printf '%s seed %s: ' "$gen" "$seed"
		python3 "$HWS_SOURCE_DIR/tests/e2e/ibs_cmp.py" "$tmp/perf.txt" "$tmp/hws.jsonl" \
			"$fam" "$model" || fail=1
	done
done
exit $fail
