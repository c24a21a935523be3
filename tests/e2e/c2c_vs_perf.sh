#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample c2c report and perf c2c report --stdio on the same Intel-style file (HITM
# data_src, NUMA_TOPOLOGY + NRCPUS headers written by gen_c2c), and on an AMD file as
# perf c2c record writes it (kernel IBS data_src, no RAW), agree on the shared
# lines, their order, their HITM counts (total, local, remote) and stores, and on the trace
# totals.
. "$(dirname "$0")/lib/common.sh"
need_perf
GEN=$HWS_GEN/gen_c2c
need_gen c2c
command -v jq >/dev/null || skip "jq not installed"

perf_pareto() {
	awk '/Shared Cache Line Distribution Pareto/ {t = 1}
	     t && $1 ~ /^[0-9]+$/ && $NF ~ /^0x/ && NF <= 8 {line = $NF; next}
	     t && $1 ~ /%$/ && $6 ~ /^0x/ {print line, $6, $9, $1, $2, $3, $4}' "$1" | sort
}
hws_pareto() {
	jq -r '.lines[] | select(.hitm.total > 0) as $l | [$l.entries[] |
		{k: "\($l.address) \(.offset) \(.ip)", r: .hitm.remote, lc: .hitm.local,
		 h: .store.l1_hit, m: .store.l1_miss}] | group_by(.k)[] |
		{k: .[0].k, r: (map(.r) | add), lc: (map(.lc) | add), h: (map(.h) | add), m: (map(.m) | add)} |
		[.k, $l.hitm.remote, $l.hitm.local, $l.store.l1_hit, $l.store.l1_miss, .r, .lc, .h, .m] | @tsv' "$1" |
		awk -F'\t' 'function p(a, b) { return sprintf("%.2f%%", b ? 100 * a / b : 0) }
		{split($1, k, " "); printf "%s 0x%x %s %s %s %s %s\n", k[1], k[2], k[3], p($6, $2), p($7, $3), p($8, $4), p($9, $5)}' | sort
}
# Intel PEBS style (two seeds) and AMD as perf c2c record stores it (kernel data_src)
for run in intel:3 intel:11 ibs-perf:5; do
	v=${run%:*} seed=${run#*:}
	f=$TMP/$v.$seed.data
	check "generate" "$GEN" -o "$f" -v "$v" -n 30000 -s $seed
	perf c2c report --stdio -i "$f" >"$TMP/perf.txt" 2>"$TMP/perf.err" ||
		{ fail "perf c2c report failed: $(head -3 "$TMP/perf.err")"; continue; }
	"$HWS_BIN" c2c report -i "$f" --json >"$TMP/h.json" || fail "hwsample c2c report"
	# perf: rows of the Shared Data Cache Line Table: idx addr node pacnt hitm% tot lcl rmt
	# records loads stores ...
	awk '/Shared Data Cache Line Table/ {t = 1; next}
	     /Shared Cache Line Distribution Pareto/ {t = 0}
	     t && $1 ~ /^[0-9]+$/ && $2 ~ /^0x/ {print $2, $6, $7, $8, $11}' "$TMP/perf.txt" >"$TMP/perf.rows"
	jq -r '.lines[] | select(.hitm.total > 0) | "\(.address) \(.hitm.total) \(.hitm.local) \(.hitm.remote) \(.stores)"' \
		"$TMP/h.json" >"$TMP/h.rows"
	n=$(wc -l <"$TMP/perf.rows")
	[ "$n" -ge 4 ] || fail "$v seed $seed: perf shows only $n shared lines"
	eq "$v seed $seed: shared lines (addr hitm lcl rmt stores), in order" "$(cat "$TMP/h.rows")" "$(cat "$TMP/perf.rows")"
	eq "$v seed $seed: top line" "$(head -1 "$TMP/h.rows" | cut -d' ' -f1)" "$(head -1 "$TMP/perf.rows" | cut -d' ' -f1)"
	# trace totals
	pv() { awk -F: -v k="$1" '$1 ~ "^  "k" *$" {gsub(/ /, "", $2); print $2; exit}' "$TMP/perf.txt"; }
	eq "$v seed $seed: local HITM" "$(jq .totals.hitm.local "$TMP/h.json")" "$(pv 'Load Local HITM')"
	eq "$v seed $seed: remote HITM" "$(jq .totals.hitm.remote "$TMP/h.json")" "$(pv 'Load Remote HITM')"
	eq "$v seed $seed: loads" "$(jq .totals.loads "$TMP/h.json")" "$(pv 'Load Operations')"
	eq "$v seed $seed: stores" "$(jq .totals.stores "$TMP/h.json")" "$(pv 'Store Operations')"
	eq "$v seed $seed: store L1 hit" "$(jq .totals.store.l1_hit "$TMP/h.json")" "$(pv 'Store L1D Hit')"
	eq "$v seed $seed: store L1 miss" "$(jq .totals.store.l1_miss "$TMP/h.json")" "$(pv 'Store L1D Miss')"
	eq "$v seed $seed: L1 hits" "$(jq .totals.load_hits.l1 "$TMP/h.json")" "$(pv 'Load L1D hit')"
	eq "$v seed $seed: remote DRAM" "$(jq .totals.load_hits.remote_dram "$TMP/h.json")" "$(pv 'Load Remote DRAM')"
	# Pareto: per line, offset and code address, the shares of remote/local HITM and of
	# L1-hit/L1-miss stores (perf groups rows by offset,iaddr; so does this)
	perf_pareto "$TMP/perf.txt" >"$TMP/perf.par"
	hws_pareto "$TMP/h.json" >"$TMP/h.par"
	[ "$(wc -l <"$TMP/perf.par")" -ge 8 ] || fail "$v seed $seed: perf Pareto rows: $(wc -l <"$TMP/perf.par")"
	eq "$v seed $seed: Pareto rows (line off ip rmt% lcl% st-l1hit% st-l1miss%)" "$(cat "$TMP/h.par")" "$(cat "$TMP/perf.par")"
	eq "$v seed $seed: shared lines" "$(jq '[.lines[] | select(.hitm.total > 0)] | length' "$TMP/h.json")" "$(pv 'Total Shared Cache Lines')"
done
# a real Intel recording (perf_data_converter fixture, WEIGHT_STRUCT + DATA_SRC): the
# per-sample classes agree with perf's
f=$HWS_FIXTURES/perf_data_converter/perf.data.weight_struct
if [ -f "$f" ]; then
	perf c2c report --stdio -i "$f" >"$TMP/perf.txt" 2>/dev/null || fail "perf c2c on fixture"
	"$HWS_BIN" c2c report -i "$f" --json >"$TMP/h.json" || fail "hwsample c2c on fixture"
	eq "fixture: records" "$(jq .totals.records "$TMP/h.json")" "$(pv 'Total records')"
	eq "fixture: locked" "$(jq .totals.locks "$TMP/h.json")" "$(pv 'Locked Load/Store Operations')"
	eq "fixture: loads" "$(jq .totals.loads "$TMP/h.json")" "$(pv 'Load Operations')"
	eq "fixture: fill buffer" "$(jq .totals.load_hits.lfb "$TMP/h.json")" "$(pv 'Load Fill Buffer Hit')"
	eq "fixture: L1" "$(jq .totals.load_hits.l1 "$TMP/h.json")" "$(pv 'Load L1D hit')"
	eq "fixture: L2" "$(jq .totals.load_hits.l2 "$TMP/h.json")" "$(pv 'Load L2D hit')"
	eq "fixture: LLC" "$(jq '.totals.load_hits.llc + .totals.hitm.local' "$TMP/h.json")" "$(pv 'Load LLC hit')"
	eq "fixture: shared lines" "$(jq '.lines | length' "$TMP/h.json")" "$(pv 'Total Shared Cache Lines')"
fi
finish
