#!/bin/bash
# SPDX-License-Identifier: MIT
# c2c report's filters (--pid, --tid, --comms, --dsos, --symbols, -C, --time) on generated
# Intel-style c2c files (tests/gen/gen_c2c: 8 threads on 8 CPUs, known sharing), against
# perf script given the same filter on the same file (perf c2c report 6.1 has no filters;
# its unfiltered totals are compared in c2c_vs_perf.sh): the samples perf script keeps, read
# through their perf data_src text, give the totals of `c2c report --json --show-all FILTER`
# (records, loads, stores, HITM total/local/remote) and the HITM count of every cache line;
# each filter keeps some samples and drops others (--comms of the one process keeps all).
# A malformed filter is a usage error (exit 2) naming the option.
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
need_python3
need_gen c2c
GEN=$HWS_GEN/gen_c2c

cmp_totals() { # what file "filter" [all]
	local what=$1 f=$2 flt=$3
	# shellcheck disable=SC2086
	perf script -i "$f" -F tid,addr,data_src $flt >"$TMP/p.txt" 2>/dev/null
	# shellcheck disable=SC2086
	"$HWS_BIN" c2c report -i "$f" --json --show-all $flt >"$TMP/h.json" 2>"$TMP/h.err"
	eq "$what: c2c report exit code" "$?" 0
	python3 - "$TMP/p.txt" "$TMP/h.json" "$(perf script -i "$f" -F tid 2>/dev/null | wc -l)" "${4:-}" <<'EOF' >"$TMP/cmp.txt"
import json, sys
lines = [l for l in open(sys.argv[1]) if "|OP " in l]
h = json.load(open(sys.argv[2]))
total, keep_all = int(sys.argv[3]), sys.argv[4] == "all"
t = {"records": 0, "loads": 0, "stores": 0, "hitm": 0, "local": 0, "remote": 0}
per_line = {}
for l in lines:
    f = l.split()
    addr = int(f[1], 16)
    ds = l[l.index("|OP "):]
    t["records"] += 1
    t["loads"] += "|OP LOAD" in ds
    t["stores"] += "|OP STORE" in ds
    if "SNP HitM" in ds:
        t["hitm"] += 1
        t["remote" if "Remote" in ds else "local"] += 1
        per_line[addr & ~63] = per_line.get(addr & ~63, 0) + 1
ht = h["totals"]
got = {"records": ht["records"], "loads": ht["loads"], "stores": ht["stores"],
       "hitm": ht["hitm"]["total"], "local": ht["hitm"]["local"], "remote": ht["hitm"]["remote"]}
hl = {int(x["address"], 16): x["hitm"]["total"] for x in h["lines"] if x["hitm"]["total"]}
errs = []
if got != t:
    errs.append("totals: perf script %s, c2c report %s" % (t, got))
if hl != per_line:
    d = sorted(set(hl.items()) ^ set(per_line.items()))[:3]
    errs.append("HITM per line differ (%d vs %d lines; e.g. %s)" % (len(per_line), len(hl), d))
if not t["records"] or (t["records"] == total) != keep_all:
    errs.append("the filter keeps %d of %d samples" % (t["records"], total))
print("; ".join(errs) if errs else "%d of %d samples, %d HITM on %d lines" %
      (t["records"], total, t["hitm"], len(per_line)))
sys.exit(1 if errs else 0)
EOF
	check "$what: $(cat "$TMP/cmp.txt") $(head -c 200 "$TMP/h.err")" [ "${PIPESTATUS[0]}" = 0 ]
}

for seed in 3 7; do
	f=$TMP/c$seed.data
	check "generate (seed $seed)" "$GEN" -o "$f" -v intel -n 20000 -s $seed
	read -r sym1 sym2 < <(perf script -i "$f" -F ip,sym 2>/dev/null | awk '{print $2}' | sort |
		uniq -c | sort -rn | awk 'NR <= 2 {printf "%s ", $2}')
	read -r t1 t2 < <(perf script -i "$f" -F time --ns 2>/dev/null | tr -d ':' |
		awk '{t[NR] = $1} END {print t[int(NR / 4)], t[int(NR / 2)]}')
	for flt in "--tid 4243,4244" "--tid 4247" "-C 0-3" "--cpu 4,6" "--pid 4242 --cpu 5-7" \
		"--symbols $sym1" "--symbols $sym1,$sym2" "--time $t1,$t2" "--time $t2," \
		"--tid 4243,4247 --symbols $sym1"; do
		cmp_totals "seed $seed: $flt" "$f" "$flt"
	done
	cmp_totals "seed $seed: --comms c2c-gen (every sample)" "$f" "--comms c2c-gen" all
	cmp_totals "seed $seed: --dsos gen_c2c (every ip is in it)" "$f" "--dsos gen_c2c" all
done
check "the truth lines are found with the filter too" \
	grep -q '"class":"false-sharing"' <("$HWS_BIN" c2c report -i "$TMP/c3.data" --json --tid 4243,4244,4247,4248)

"$HWS_BIN" c2c report -i "$TMP/c3.data" --tid 12a >/dev/null 2>"$TMP/err"
eq "--tid 12a: exit code" "$?" 2
check "--tid 12a: names the option" grep -q "^hwsample c2c report: --tid '12a': expected numbers" "$TMP/err"
"$HWS_BIN" c2c report -i "$TMP/c3.data" --symbols , >/dev/null 2>"$TMP/err"
eq "--symbols ,: exit code" "$?" 2
check "--symbols ,: names the option" grep -q "^hwsample c2c report: --symbols ',': expected names" "$TMP/err"
finish
