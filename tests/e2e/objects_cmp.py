#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
objects_cmp.py EXPECT DUMP_JSON: the "object" of every sample of objects_truth's touching
functions (by the sample's "sym") equals the workload's design (its "expect TOUCH KIND SITE
SIZE ELEM FIELD" lines): kind; site function (heap, anon) or variable name (static); size;
offset % ELEM == FIELD. Each touching function needs samples. Exit 1 with every mismatch.
"""
import json
import sys

want = {}
for line in open(sys.argv[1]):
    w = line.split()
    if len(w) == 7 and w[0] == "expect":
        want[w[1]] = (w[2], w[3], int(w[4]), int(w[5]), int(w[6]))
if len(want) < 12:
    print(f"objects_cmp: {len(want)} expect lines, not 12")
    sys.exit(1)
seen = {k: 0 for k in want}
bad = 0
for n, line in enumerate(open(sys.argv[2])):
    s = json.loads(line)
    fn = s.get("sym", "").split("+")[0]
    if fn not in want:
        continue
    kind, site, size, elem, field = want[fn]
    seen[fn] += 1
    o = s.get("object")
    if not o:
        print(f"sample {n} ({fn}, addr {s.get('addr')}): no object, want {kind}")
        bad += 1
        continue
    got_site = o.get("site", o.get("name", "-")).split("+")[0] if kind != "stack" else "-"
    errs = []
    if o["kind"] != kind:
        errs.append(f"kind {o['kind']} != {kind}")
    elif kind != "stack":
        if got_site != site:
            errs.append(f"site {got_site} != {site}")
        if o["size"] != size:
            errs.append(f"size {o['size']} != {size}")
        if o["offset"] % elem != field:
            errs.append(f"offset {o['offset']} % {elem} != {field}")
        if int(o["base"], 16) + o["offset"] != int(s["addr"], 16):
            errs.append("base + offset != addr")
    if errs:
        print(f"sample {n} ({fn}, addr {s.get('addr')}): " + "; ".join(errs))
        bad += 1
for fn, k in seen.items():
    if k == 0:
        print(f"no sample of {fn}")
        bad += 1
print("objects_cmp: " + ", ".join(f"{fn} {k}" for fn, k in seen.items()))
sys.exit(1 if bad else 0)
