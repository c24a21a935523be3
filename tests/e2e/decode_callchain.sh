#!/bin/bash
# SPDX-License-Identifier: MIT
# Call chains read back (core/decode/callchain.c, dump): tests/workloads/callchain (known chains:
# four noinline levels, recursion, a libc qsort callback, an inlined helper), built with and
# without frame pointers, recorded with `hwsample -g` and with `perf record -g` (cpu-clock).
# For every sample of every file, the frames `hwsample dump --sym` prints equal those
# `perf script` prints for the same file (address, dso, and symbol+offset in the workload and
# the kernel: tests/e2e/cc_cmp.py), both ways round. Also: dump --json gives every sample its
# "callchain" with as many frames as the text, innermost first (frame 0 = the sample's ip);
# the recursion shows cc_recurse 5 times in one chain (the 6th call, depth 0, is a tail
# call); the callback cc_cmp is seen; samples of a file recorded without -g have no
# "callchain".
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events
WL=$HWS_WORKLOADS
CMP="python3 $HWS_SOURCE_DIR/tests/e2e/cc_cmp.py"

for prog in callchain callchain_nofp; do
	"$HWS_BIN" -q -b sw -e cpu-clock -c 500000 -g -o "$TMP/h-$prog.data" -- "$WL/$prog" 0.3 \
		>/dev/null 2>"$TMP/err"
	eq "$prog: hwsample -g exit" "$?" 0
	perf record -q -e cpu-clock -c 500000 -g -o "$TMP/p-$prog.data" -- "$WL/$prog" 0.3 \
		>/dev/null 2>&1
	eq "$prog: perf record -g exit" "$?" 0
	# frame pointers: many chains through several workload functions; without them fewer
	deep=5
	[ $prog = callchain_nofp ] && deep=0
	for who in h p; do
		f=$TMP/$who-$prog.data
		perf script -i "$f" -F comm,tid,time,ip,sym,symoff,dso >"$TMP/perf.txt" 2>/dev/null
		"$HWS_BIN" dump -i "$f" --sym >"$TMP/hws.txt" 2>"$TMP/err"
		check "$prog/$who: dump exit" [ $? = 0 ]
		$CMP "$TMP/perf.txt" "$TMP/hws.txt" "$WL/$prog" $deep
		check "$prog/$who: frames equal perf script's" [ $? = 0 ]
	done
done

# JSON: frames = text frames; frame 0 = ip; recursion; callback
f=$TMP/h-callchain.data
"$HWS_BIN" dump -i "$f" --json --sym >"$TMP/j.json"
"$HWS_BIN" dump -i "$f" --sym >"$TMP/t.txt"
python3 - "$TMP/j.json" "$TMP/t.txt" <<'PY'
import json, sys
js = [json.loads(l) for l in open(sys.argv[1])]
tx, cur = [], None
for l in open(sys.argv[2]):
    if l.startswith("\t"):
        tx[-1] += 1
    elif l.strip():
        tx.append(0)
bad = 0
rec = cmp_seen = 0
for n, s in enumerate(js):
    cc = s.get("callchain", [])
    if len(cc) != tx[n]:
        print(f"sample {n}: json {len(cc)} frames, text {tx[n]}"); bad += 1
    if cc and cc[0]["ip"] != s["ip"]:
        print(f"sample {n}: frame 0 {cc[0]['ip']} is not the ip {s['ip']}"); bad += 1
    syms = [f.get("sym", "").split("+")[0] for f in cc]
    if syms.count("cc_recurse") >= 5:
        rec += 1
    if "cc_cmp" in syms:
        cmp_seen += 1
    if any(not f["ip"].startswith("0x") for f in cc):
        bad += 1
print(f"{len(js)} samples, {rec} with 5+ cc_recurse frames, {cmp_seen} in cc_cmp, {bad} bad")
sys.exit(1 if bad or not rec or not cmp_seen or len(js) != len(tx) else 0)
PY
check "json callchain: frames, order, recursion, callback" [ $? = 0 ]

# a file without call chains: no "callchain" key, and dump --json without --sym: ip only
# --max-stack N: the same frames as perf script --max-stack N, both files
for who in h p; do
	f=$TMP/$who-callchain.data
	"$HWS_BIN" dump -i "$f" --max-stack 3 2>/dev/null | awk '/^\t/ {print $1, $NF}' >"$TMP/ms.h"
	perf script -i "$f" -F ip,dso --max-stack=3 2>/dev/null | awk '/^\t/ {print $1, $NF}' >"$TMP/ms.p"
	check "$who: dump --max-stack 3 frames equal perf script --max-stack=3's ($(wc -l <"$TMP/ms.p"))" \
		cmp -s "$TMP/ms.h" "$TMP/ms.p"
	most=$("$HWS_BIN" dump -i "$f" --json --max-stack 3 2>/dev/null |
		python3 -c 'import json,sys; print(max(len(json.loads(l).get("callchain",[])) for l in sys.stdin))')
	eq "$who: --max-stack 3: at most 3 frames in JSON" "$most" 3
done
"$HWS_BIN" dump -i "$TMP/h-callchain.data" --max-stack 0 >/dev/null 2>"$TMP/err"
eq "--max-stack 0 is a usage error" "$?" 2
check "--max-stack 0: says the range" grep -q "1 to 65535" "$TMP/err"

"$HWS_BIN" -q -b sw -e cpu-clock -c 500000 -o "$TMP/plain.data" -- "$WL/callchain" 0.05 2>/dev/null
eq "no -g: no callchain key" "$("$HWS_BIN" dump -i "$TMP/plain.data" --json | grep -c callchain)" 0
eq "json without --sym: frames have ip only" \
	"$("$HWS_BIN" dump -i "$f" --json | head -50 | grep -o '"callchain":\[[^]]*\]' |
		grep -c '"sym"')" 0
finish
