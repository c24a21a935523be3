#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample report against the real perf:
#  1. a cpu-clock recording of the demo workload: total samples equal `perf report --stats`,
#     and the sample count of every function in hwsample's "Top functions" table equals
#     `perf report --sort sym -F sample,sym` for that function;
#  2. perf_data_converter fixtures: LOST_SAMPLES totals equal the sum of perf -D's
#     "lost samples" lines; the weight_struct (PEBS load latency) recording's data-source
#     levels and lat_total log2 buckets equal what perf script prints for it;
#  3. options: --sort, --top, --ascii, usage errors.
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
W=${HWS_WORKLOADS:-}/memdemo
[ -x "$W" ] || skip "workload $W not built"
FIX=${HWS_FIXTURES:-}/perf_data_converter

# 1. functions
perf record -q -e cpu-clock/period=250000/ -o "$TMP/r.data" -- "$W" >/dev/null 2>"$TMP/rec.err" ||
	skip "perf record failed: $(head -c 300 "$TMP/rec.err")"
"$HWS_BIN" report -i "$TMP/r.data" --ascii --top 8 >"$TMP/rep.txt" 2>"$TMP/rep.err"
eq "report exit code" "$?" 0
total=$(perf report --stats -i "$TMP/r.data" 2>/dev/null | awk '/^ *SAMPLE events:/ {print $3; exit}')
check "report header has perf's sample total ($total)" \
	grep -q "^# hwsample report: $total samples" "$TMP/rep.txt"
perf report -i "$TMP/r.data" --stdio -q --sort sym -F sample,sym 2>/dev/null |
	awk 'NF >= 3 {print $3, $1}' | sort >"$TMP/perf_syms"
# "   count  pct%  bar  name  [dso]" rows of the Top functions table
awk '/^== Top functions/ {on = 1; next} /^== / {on = 0} on && $1 ~ /^[0-9]+$/ && $2 ~ /%$/ {print $4, $1}' \
	"$TMP/rep.txt" | sort >"$TMP/hws_syms"
n=0
while read -r name cnt; do
	case "$name" in \[*) continue ;; esac # "[dso]" rows: no symbol
	want=$(awk -v n="$name" '$1 == n {print $2}' "$TMP/perf_syms")
	eq "function $name: samples like perf report" "$cnt" "${want:-absent}"
	n=$((n + 1))
done <"$TMP/hws_syms"
check "several named functions compared ($n)" test "$n" -ge 3
check "workload function chase on top" \
	grep -A3 "^== Top functions" "$TMP/rep.txt" | grep -q " chase  \[memdemo\]"
check "loss table" grep -q "^loss: none recorded" "$TMP/rep.txt"

# 2a. LOST_SAMPLES
for f in "$FIX"/perf.data.lost_samples-4.4 "$FIX"/perf.data.piped.lost_samples-4.4; do
	[ -f "$f" ] || continue
	want=$(perf report -D -i "$f" 2>/dev/null |
		sed -nE 's/.*PERF_RECORD_LOST_SAMPLES: .*lost samples :([0-9]+).*/\1/p' |
		awk '{s += $1} END {print s + 0}')
	"$HWS_BIN" report -i - --ascii <"$f" >"$TMP/l.txt" 2>&1
	st=$? # here: a $(...) in the message would reset $?
	eq "$(basename "$f"): exit" "$st" 0
	check "$(basename "$f"): $want samples dropped by the PMU" \
		grep -q "^loss: .* $want samples dropped by the PMU" "$TMP/l.txt"
done

# 2b. data source and latency of PEBS load-latency samples (WEIGHT_STRUCT)
f=$FIX/perf.data.weight_struct
if [ -f "$f" ]; then
	"$HWS_BIN" report -i "$f" --ascii >"$TMP/w.txt" 2>&1
	eq "weight_struct: exit" "$?" 0
	perf script -i "$f" -F weight,data_src 2>/dev/null >"$TMP/w_perf.txt"
	for lv in "L1:l1" "LFB/MAB:lfb" "L2:l2" "L3:l3"; do
		pat=${lv%%:*} ours=${lv##*:}
		want=$(grep -c "|LVL $pat " "$TMP/w_perf.txt")
		got=$(awk -v l="$ours" '/^== Data source/ {on = 1; next} /^-- / {on = 0}
			on && $1 == l {print $2}' "$TMP/w.txt")
		eq "weight_struct: level $ours samples" "${got:-0}" "$want"
	done
	# perf's weight column is var1 (the load latency) = lat_total
	awk '{print $NF}' "$TMP/w_perf.txt" | awk '{ b = 0; v = $1; while (v >= 1) { b++; v = int(v / 2) }
		lo = b ? 2 ^ (b - 1) : 0; hi = b ? 2 ^ b - 1 : 0; print lo "-" hi }' |
		sort | uniq -c | awk '{print $2, $1}' | sort >"$TMP/w_perf_b"
	awk '/^== Latency lat_total/ {on = 1; next} /^== / {on = 0} on && $2 > 0 {print $1, $2}' \
		"$TMP/w.txt" | sort >"$TMP/w_hws_b"
	check "weight_struct: lat_total histogram = perf script weights" \
		cmp -s "$TMP/w_perf_b" "$TMP/w_hws_b"
	# var2 (instruction latency) is 0 in every sample of this file: no lat_ins section
	check "weight_struct: no lat_ins when var2 is 0" bash -c "! grep -q 'Latency lat_ins' '$TMP/w.txt'"
fi

# 3. options
"$HWS_BIN" report -i "$TMP/r.data" --ascii --top 2 --sort period >"$TMP/o.txt"
eq "--top 2 rows" "$(awk '/^== Top functions/ {on = 1; next} /^== / {on = 0} on && $1 ~ /^[0-9]+$/ && $2 ~ /%$/' \
	"$TMP/o.txt" | wc -l)" 2
check "--sort period header" grep -q "Top functions (by period, top 2" "$TMP/o.txt"
check "--ascii has no Unicode blocks" bash -c "! grep -q '█' '$TMP/o.txt'"
"$HWS_BIN" report -i "$TMP/r.data" --unicode --top 2 >"$TMP/u.txt"
check "--unicode bars" grep -q '█' "$TMP/u.txt"
"$HWS_BIN" report -i "$TMP/r.data" --ascii -e no-such-event >"$TMP/e.txt" 2>"$TMP/e.err"
eq "--event naming no event of the file: usage error" "$?" 2
check "--event naming no event: the file's events, as perf evlist names them" \
	grep -qF "its events: $(perf evlist -i "$TMP/r.data" 2>/dev/null | paste -sd, | sed 's/,/, /g')" "$TMP/e.err"
check "--event naming no event: no report" test ! -s "$TMP/e.txt"
"$HWS_BIN" report -i "$TMP/r.data" --ascii -e "$(perf evlist -i "$TMP/r.data" 2>/dev/null | head -1)" >"$TMP/e.txt"
check "--event with perf's name: every sample" grep -q "^# hwsample report: $total samples" "$TMP/e.txt"
check "--event: the counts table lists the event" grep -q "^cpu-clock" "$TMP/e.txt"
"$HWS_BIN" report -i "$TMP/r.data" --sort bogus >/dev/null 2>&1
eq "bad --sort: usage exit" "$?" 2
"$HWS_BIN" report -i "$TMP/nonexistent.data" >/dev/null 2>"$TMP/ne.err"
eq "missing file: exit" "$?" 1
check "missing file: message names it" grep -q "nonexistent.data" "$TMP/ne.err"
"$HWS_BIN" report --help | grep -q "Examples:"
eq "--help" "$?" 0

echo "report_vs_perf: $CHECKS checks, $FAILS failed"
[ "$FAILS" = 0 ]
