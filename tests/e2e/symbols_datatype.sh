#!/bin/bash
# SPDX-License-Identifier: MIT
# Data types (core/symbols/datatype.c, perf's data-type profiling): tests/workloads/
# types_truth (-O2 -g) touches structs whose fields lie on pages of their own through a
# global array, a local array, a malloc'd pointer in a register, a struct pointer parameter
# and a nested member, once per page, and prints its design ("expect FUNC TYPE OFFSET
# FIELD"). Recorded with `hwsample -b sw -e page-faults -c 1 -d` (the fault's IP is the
# touching instruction), every sample of each touching function has, in dump --json --sym,
# the type, offset and field of the design, and each function has samples; report --sort
# typeoff / type print perf's columns ("struct pair +4096 (second)", "Data Type Offset") with
# the design's rows, and "(unknown)" for samples of code without debug info.
. "$(dirname "$0")/lib/common.sh"
need_sw_events
WL=$HWS_WORKLOADS/types_truth
f=$TMP/t.data

if ! "$HWS_BIN" report -i /dev/null --sort typeoff >/dev/null 2>"$TMP/err" &&
	grep -q "needs capstone" "$TMP/err"; then
	skip "this hwsample was built without capstone"
fi

"$HWS_BIN" record -b sw -e page-faults -c 1 -d -o "$f" -- "$WL" >"$TMP/expect" 2>"$TMP/err"
eq "record exit" "$?" 0
check "the workload printed its design" [ "$(grep -c '^expect ' "$TMP/expect")" -eq 6 ]
# capstone is opened at the first instruction decoded, not linked: other commands never load
# its library (77,000 relocations at start)
check "hwsample does not link capstone" bash -c "! readelf -d '$HWS_BIN' | grep -q capstone"
LD_DEBUG=files "$HWS_BIN" report -i "$f" --stdio --sort sym >/dev/null 2>"$TMP/ld"
check "report --sort sym does not load capstone" [ "$(grep -c 'file=libcapstone' "$TMP/ld")" = 0 ]
LD_DEBUG=files "$HWS_BIN" report -i "$f" --stdio --sort typeoff >/dev/null 2>"$TMP/ld"
check "report --sort typeoff loads it" grep -q 'file=libcapstone' "$TMP/ld"
"$HWS_BIN" dump -i "$f" --json --sym >"$TMP/d.json" 2>"$TMP/err"
eq "dump --json --sym exit" "$?" 0
check "every touching sample has the design's type, offset and field" \
	python3 - "$TMP/expect" "$TMP/d.json" <<'PY'
import collections, json, sys
want = {}
for line in open(sys.argv[1]):
    w = line.split()
    if w and w[0] == "expect":
        want[w[1]] = (" ".join(w[2:-2]), int(w[-2]), w[-1])
seen, bad = collections.Counter(), []
for line in open(sys.argv[2]):
    s = json.loads(line)
    fn = (s.get("sym") or "").split(".")[0].split("+")[0]
    if fn not in want:
        continue
    t = s.get("type") or {}
    got = (t.get("name"), t.get("offset"), t.get("field"))
    if got[0] == "(stack operation)": # a call's push on a new stack page
        continue
    seen[fn] += 1
    if got != want[fn]:
        bad.append((fn, s.get("ip"), got, want[fn]))
missing = [fn for fn in want if not seen[fn]]
print(f"samples per function: {dict(seen)}; wrong: {bad[:5]}; without samples: {missing}")
sys.exit(1 if bad or missing else 0)
PY

"$HWS_BIN" report -i "$f" --sort sym,typeoff --stdio >"$TMP/rep" 2>"$TMP/err"
eq "report --sort sym,typeoff exit" "$?" 0
check "report: perf's header" grep -q "Data Type Offset" "$TMP/rep"
check "report: touch_param row" \
	grep -Eq "\] touch_param[.a-z0-9]* +struct pair \+4096 \(second\) *$" "$TMP/rep"
check "report: nested member row" \
	grep -Eq "\] touch_nested[.a-z0-9]* +struct outer \+8184 \(in\.y\) *$" "$TMP/rep"
check "report: touch_first row" \
	grep -Eq "\] touch_first[.a-z0-9]* +struct pair \+8 \(first\) *$" "$TMP/rep"
check "report: code without debug info is (unknown)" grep -Eq " \(unknown\) *$" "$TMP/rep"
"$HWS_BIN" report -i "$f" --sort type --stdio >"$TMP/rep1" 2>"$TMP/err"
eq "report --sort type exit" "$?" 0
check "report --sort type: one row per type" \
	[ "$(grep -Ec '%  struct pair *$' "$TMP/rep1")" -eq 1 ]
check "report --sort type: perf's header" grep -q "Data Type *$" "$TMP/rep1"
# the struct pair row counts every touching sample of struct pair (design: 4 functions)
n=$(python3 -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) if (json.loads(l).get("type") or {}).get("name") == "struct pair"))' "$TMP/d.json")
"$HWS_BIN" report -i "$f" --sort sample,type --stdio >"$TMP/rep2" 2>"$TMP/err"
check "report --sort sample,type: the struct pair row has dump's $n samples" \
	grep -Eq "%  +$n  struct pair *$" "$TMP/rep2"
finish
