#!/bin/bash
# SPDX-License-Identifier: MIT
# Heap blocks typed by their allocation site (hws_datatypes__alloc, core/symbols/datatype.c):
# tests/workloads/alloc_types allocates a struct table (optimized code: the pointer variable
# is the result register or a copy of it) and a struct grid (a -O0 function: the result is
# stored to the variable's stack slot) and a void * block (the control), and writes every
# page of each with memset (libc code without DWARF: the instruction says nothing). Recorded
# with `hwsample -b sw -e page-faults -c 1 -d --objects`, every fault in a typed block has,
# in dump --json --sym, the block's type and the field of the design at its offset (the
# workload prints the fields' byte ranges), each typed site has samples on two fields or
# more, the void * block has no type, report --sort type,typeoff shows the fields, and the
# pprof profile's type and typeoff labels count what dump says.
. "$(dirname "$0")/lib/common.sh"
need_sw_events
WL=$HWS_WORKLOADS/alloc_types
f=$TMP/a.data

if ! "$HWS_BIN" report -i /dev/null --sort typeoff >/dev/null 2>"$TMP/err" &&
	grep -q "needs capstone" "$TMP/err"; then
	skip "this hwsample was built without capstone"
fi
"$HWS_BIN" record -b sw -e page-faults -c 1 -d --objects -o "$f" -- "$WL" >"$TMP/expect" 2>"$TMP/err"
eq "record exit" "$?" 0
check "the workload printed its design" [ "$(grep -c '^field ' "$TMP/expect")" -eq 6 ]
"$HWS_BIN" dump -i "$f" --json --sym >"$TMP/d.json" 2>"$TMP/err"
eq "dump --json exit" "$?" 0
check "every fault in a typed block has its type and the field at its offset" \
	python3 - "$TMP/expect" "$TMP/d.json" <<'PY'
import collections, json, sys
fields, types, untyped = collections.defaultdict(list), {}, set()
for line in open(sys.argv[1]):
    w = line.split()
    if w and w[0] == "field":
        site, name, lo, hi = w[1], w[-3], int(w[-2]), int(w[-1])
        types[site] = " ".join(w[2:-3])
        fields[site].append((lo, hi, name))
    elif w and w[0] == "untyped":
        untyped.add(w[1])
seen, bad, raw = collections.defaultdict(set), [], 0
for line in open(sys.argv[2]):
    s = json.loads(line)
    o = s.get("object") or {}
    if o.get("kind") != "heap":
        continue
    site = (o.get("site") or "").split("+")[0]
    t = s.get("type")
    if site in untyped:
        raw += 1
        if t:
            bad.append(("untyped", site, t))
        continue
    if site not in types:
        continue
    off = o["offset"]
    want = [n for lo, hi, n in fields[site] if lo <= off < hi]
    got = (t or {}).get("name"), (t or {}).get("field"), (t or {}).get("offset")
    if got != (types[site], want[0] if want else None, off):
        bad.append((site, off, got))
    seen[site].add(got[1])
few = [s for s in types if len(seen[s]) < 2]
print(f"fields seen per site: {dict(seen)}; void * samples: {raw}; wrong: {bad[:5]}; sites with < 2 fields: {few}")
sys.exit(1 if bad or few or not raw else 0)
PY
"$HWS_BIN" report -i "$f" --sort type,typeoff --stdio >"$TMP/r.txt" 2>"$TMP/err"
eq "report --sort type,typeoff exit" "$?" 0
check "report: struct table rows with fields" grep -qE "struct table +struct table \+[0-9]+ \((hdr|body|tail)\)" "$TMP/r.txt"
check "report: struct grid rows with fields" grep -qE "struct grid +struct grid \+[0-9]+ \((north|south|east)\)" "$TMP/r.txt"
# convert --to-pprof: the type and typeoff labels are dump's types, the sites' ones included
if command -v go >/dev/null 2>&1; then
	export GOCACHE=$TMP/gocache GOPATH=$TMP/gopath
	"$HWS_BIN" convert -i "$f" --to-pprof "$TMP/p.pb.gz" 2>"$TMP/err"
	eq "convert --to-pprof exit" "$?" 0
	go tool pprof -tags -sample_index=samples "$TMP/p.pb.gz" >"$TMP/tags" 2>&1
	python3 "$HWS_SOURCE_DIR/tests/e2e/symbols_vendor_truth.py" dumptags "$TMP/d.json" \
		"$TMP/tags" "struct table" >"$TMP/cmp" 2>&1
	st=$? # here: a $(...) in the message would reset $?
	check "pprof: type and typeoff labels of every typed sample, as dump's: $(tail -1 "$TMP/cmp")" \
		[ "$st" = 0 ]
else
	echo "note: go not installed: the pprof labels are not checked"
fi
finish
