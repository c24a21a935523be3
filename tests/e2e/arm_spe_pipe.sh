# SPDX-License-Identifier: MIT
# Pipe mode: PMU_MAPPINGS arrives after the HEADER_ATTRs, so the decoder must pick the arm_spe
# backend then. The same SPE records written as a file and as a pipe stream decode to the
# same samples, and no chunk is reported as a gap (AUXTRACE sizes are padded, offsets not).
. "$(dirname "$0")/lib/common.sh"
gen="$HWS_GEN/gen_arm_spe"
[ -x "$gen" ] || die "missing $gen"
for seed in 3 7; do
	"$gen" -o "$TMP/f.data" -n 3000 -s $seed -c 2 >/dev/null 2>&1
	"$gen" -o "$TMP/p.data" -n 3000 -s $seed -c 2 --pipe >/dev/null 2>&1
	"$HWS_BIN" dump --json -i "$TMP/f.data" 2>"$TMP/f.err" | sort >"$TMP/f.json"
	"$HWS_BIN" dump --json -i - <"$TMP/p.data" 2>"$TMP/p.err" | sort >"$TMP/p.json"
	n=$(wc -l <"$TMP/f.json")
	check "seed $seed: file mode decodes samples ($n)" [ "$n" -gt 1000 ]
	check "seed $seed: pipe mode decodes the same samples" cmp -s "$TMP/f.json" "$TMP/p.json"
	gaps=$("$HWS_BIN" report -i "$TMP/f.data" 2>/dev/null | awk '/^event .*gaps/ {for (i = 1; i <= NF; i++) if ($i == "gaps") c = i; next} c && $2 == "arm_spe" {s += $c} END {print s + 0}')
	eq "seed $seed: no false AUX gaps" "$gaps" 0
done
finish
