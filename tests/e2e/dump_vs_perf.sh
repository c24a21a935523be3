#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample dump against the real perf on perf's own recordings:
#  1. file mode: `perf record -e cpu-clock,page-faults -d --sample-cpu` of a demo workload;
#     every sample of `hwsample dump --csv` (time, cpu, pid, tid, event, period, ip, addr)
#     equals `perf script -F ...` sample by sample (as a sorted multiset: perf script sorts by
#     time, dump keeps file order), and --json has the same samples;
#  2. pipe mode: `perf record -o - | tee | hwsample dump -i -` equals `perf script -i -` of
#     the same bytes;
#  3. the perf_data_converter fixtures with samples decode to the same count as perf script.
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
W=${HWS_WORKLOADS:-}/memdemo
[ -x "$W" ] || skip "workload $W not built"

# perf script -> "time cpu pid tid event period ip addr" (hex without 0x, time in ns)
perf_norm() {
	perf script "$@" -F pid,tid,cpu,time,period,event,addr,ip --ns 2>/dev/null | awk '{
		split($1, pt, "/"); cpu = $2; gsub(/[\[\]]/, "", cpu);
		t = $3; sub(/:$/, "", t); split(t, ts, "."); t = ts[1] ts[2]; sub(/^0+/, "", t);
		ev = $5; sub(/:$/, "", ev);
		addr = $6; ip = $7; sub(/^0+/, "", addr); sub(/^0+/, "", ip);
		if (addr == "") addr = "0"; if (ip == "") ip = "0";
		printf "%s %d %s %s %s %s %s %s\n", t, cpu, pt[1], pt[2], ev, $4, ip, addr }'
}
# hwsample dump --csv -> same
hws_norm() {
	awk -F, 'NR > 1 {
		ip = $8; addr = $10; sub(/^0x/, "", ip); sub(/^0x/, "", addr);
		sub(/^0+/, "", ip); sub(/^0+/, "", addr);
		if (addr == "") addr = "0"; if (ip == "") ip = "0";
		printf "%s %d %s %s %s %s %s %s\n", $1, $2, $3, $4, $5, $7, ip, addr }'
}

# 1. file mode
perf record -q -e cpu-clock/period=1000000/ -e page-faults/period=8/ -d --sample-cpu \
	-o "$TMP/f.data" -- "$W" >/dev/null 2>"$TMP/rec.err" ||
	skip "perf record failed: $(head -c 300 "$TMP/rec.err")"
perf_norm -i "$TMP/f.data" | sort >"$TMP/perf.txt"
"$HWS_BIN" dump -i "$TMP/f.data" --csv >"$TMP/hws.csv" 2>"$TMP/hws.err"
eq "dump exit code" "$?" 0
hws_norm <"$TMP/hws.csv" | sort >"$TMP/hws.txt"
n=$(wc -l <"$TMP/perf.txt")
check "perf script has samples of both events ($n)" \
	test "$n" -gt 100 -a "$(grep -c ' page-faults' "$TMP/perf.txt")" -gt 10
eq "dump sample count = perf script" "$(wc -l <"$TMP/hws.txt")" "$n"
check "dump samples = perf script samples (time cpu pid tid event period ip addr)" \
	cmp -s "$TMP/perf.txt" "$TMP/hws.txt"
if ! cmp -s "$TMP/perf.txt" "$TMP/hws.txt"; then
	diff "$TMP/perf.txt" "$TMP/hws.txt" | head -5 >&2
fi
# JSON: same samples, every line valid
"$HWS_BIN" dump -i "$TMP/f.data" --json >"$TMP/hws.json"
eq "json lines" "$(wc -l <"$TMP/hws.json")" "$n"
if command -v jq >/dev/null; then
	jq -r '[.time, .cpu, .pid, .tid, .event, .period, .ip, .addr] | @tsv' "$TMP/hws.json" |
		awk -F'\t' '{ ip = $7; addr = $8; sub(/^0x/, "", ip); sub(/^0x/, "", addr);
			sub(/^0+/, "", ip); sub(/^0+/, "", addr); if (addr == "") addr = "0";
			if (ip == "") ip = "0";
			printf "%s %d %s %s %s %s %s %s\n", $1, $2, $3, $4, $5, $6, ip, addr }' |
		sort >"$TMP/hws_json.txt"
	check "json samples = perf script samples" cmp -s "$TMP/perf.txt" "$TMP/hws_json.txt"
fi
# --event: only that event
pf=$(awk '{print $5}' "$TMP/perf.txt" | grep -m1 '^page-faults')
eq "--event $pf" "$("$HWS_BIN" dump -i "$TMP/f.data" --json -e "$pf" | wc -l)" \
	"$(awk -v e="$pf" '$5 == e' "$TMP/perf.txt" | wc -l)"
# --limit
eq "--limit 7" "$("$HWS_BIN" dump -i "$TMP/f.data" --json --limit 7 | wc -l)" 7
# symbols: per-function sample counts of the workload's functions equal perf script's
perf script -i "$TMP/f.data" -F ip,sym 2>/dev/null | awk '$2 ~ /^(main|chase|stream|touch)$/ {print $2}' |
	sort | uniq -c >"$TMP/perf_syms"
"$HWS_BIN" dump -i "$TMP/f.data" --json --sym | jq -r '.sym // empty' | sed 's/+0x.*//' |
	awk '$1 ~ /^(main|chase|stream|touch)$/' | sort | uniq -c >"$TMP/hws_syms"
check "workload functions found" test "$(wc -l <"$TMP/perf_syms")" -ge 2
check "per-function counts = perf script ($(tr -s ' \n' ' ' <"$TMP/perf_syms"))" \
	cmp -s "$TMP/perf_syms" "$TMP/hws_syms"
check "text dump shows symbols" grep -q " touch+0x" <("$HWS_BIN" dump -i "$TMP/f.data")

# 2. pipe mode through a real pipe
perf record -q -e cpu-clock/period=1000000/ -e page-faults/period=8/ -d --sample-cpu -o - \
	-- "$W" 2>/dev/null | tee "$TMP/p.data" | "$HWS_BIN" dump -i - --csv >"$TMP/hwsp.csv"
eq "pipe dump exit code" "${PIPESTATUS[2]}" 0
perf_norm -i - <"$TMP/p.data" | sort >"$TMP/perfp.txt"
hws_norm <"$TMP/hwsp.csv" | sort >"$TMP/hwsp.txt"
check "pipe mode has samples" test "$(wc -l <"$TMP/perfp.txt")" -gt 100
check "pipe dump samples = perf script -i - samples" cmp -s "$TMP/perfp.txt" "$TMP/hwsp.txt"

# 3. recorded elsewhere (other kernels, other machines): sample counts
FIX=${HWS_FIXTURES:-}/perf_data_converter
for f in "$FIX"/perf.data.lost_samples-4.4 "$FIX"/perf.data.weight_struct; do
	[ -f "$f" ] || continue
	want=$(perf script -i "$f" -F ip 2>/dev/null | wc -l)
	got=$("$HWS_BIN" dump -i "$f" --csv 2>/dev/null | tail -n +2 | wc -l)
	eq "$(basename "$f"): samples" "$got" "$want"
done

# 4. PEBS load-latency samples recorded on Intel (WEIGHT_STRUCT, DATA_SRC): the perf fields and
#    the weight (lat_total) equal perf script; --raw carries the backend's decoded fields
f=$FIX/perf.data.weight_struct
if [ -f "$f" ] && command -v jq >/dev/null; then
	perf_norm -i "$f" | sort >"$TMP/w_perf.txt"
	perf script -i "$f" -F pid,tid,time,weight --ns 2>/dev/null |
		awk '{ t = $2; sub(/:$/, "", t); split(t, ts, "."); print $1, ts[1] ts[2], $3 }' |
		sort >"$TMP/w_perf_weight.txt"
	"$HWS_BIN" dump -i "$f" --csv | hws_norm | sort >"$TMP/w_hws.txt"
	check "weight_struct: samples = perf script" cmp -s "$TMP/w_perf.txt" "$TMP/w_hws.txt"
	"$HWS_BIN" dump -i "$f" --json --raw >"$TMP/w.json"
	jq -r '"\(.pid)/\(.tid) \(.time) \(.lat_total)"' "$TMP/w.json" | sort >"$TMP/w_hws_weight.txt"
	check "weight_struct: lat_total = perf's weight" \
		cmp -s "$TMP/w_perf_weight.txt" "$TMP/w_hws_weight.txt"
	eq "weight_struct: every sample has a raw object with var1 = lat_total" \
		"$(jq -c 'select(.raw.var1 == .lat_total and .backend == "intel_pebs")' "$TMP/w.json" | wc -l)" \
		"$(wc -l <"$TMP/w_perf.txt")"
	eq "weight_struct: no raw without --raw" "$("$HWS_BIN" dump -i "$f" --json | grep -c '"raw"')" 0
fi

echo "dump_vs_perf: $CHECKS checks, $FAILS failed"
[ "$FAILS" = 0 ]
