#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare two `report --stdio -g ...` outputs (perf's, hwsample's) with call graphs.

usage: analysis_report_cg_cmp.py PERF.txt HWSAMPLE.txt [IGNORE_REGEX]

Per section (event): the sample count and event count lines, every row (its key columns,
whitespace normalized) with its Children / Self (or Overhead) percentages to 0.01, and
under each row its call graph as a set of nodes: graph / fractal nodes are identified by
their path of names from the row (a node's names are its "--xx.xx%--" line and the lines
continuing it), flat entries by their name list, folded ones by their ';'-joined stack,
each with its percentage (to 0.01). Rows whose key, and nodes with a name, matching
IGNORE_REGEX are left out. Order is not compared: perf orders equal values by
addresses in memory. Prints the first differences and exits 1, else a summary and 0.
"""
import re
import sys

ROW = re.compile(r"^\s+(\d+\.\d+)%(?:\s+(\d+\.\d+)%)?\s+(\S.*?)\s*$")
PCT_NODE = re.compile(r"--(\d+\.\d+)%--(.*)$")
FLAT_HEAD = re.compile(r"^\s+(\d+\.\d+)%\s*$")
FOLDED = re.compile(r"^(\d+\.\d+)% (.*)$")


def graph_nodes(path):
    """path -> {section idx: {row key: {node path: pct}}} for graph / fractal lines"""
    out = []
    rowkey = None
    stack = []
    nodes = None
    with open(path, errors="replace") as f:
        lines = [l.rstrip("\n") for l in f]
    sec = -1
    seen = {}
    for line in lines:
        if line.startswith("# Samples:"):
            sec += 1
            out.append({})
            seen = {}
            continue
        if sec < 0 or line.startswith("#"):
            continue
        m = ROW.match(line)
        if m and not PCT_NODE.search(line) and not FLAT_HEAD.match(line):
            flush(stack, nodes)
            rowkey = " ".join(m.group(3).split())
            if rowkey in seen:
                rowkey += " #2"
            seen[rowkey] = 1
            nodes = {}
            out[sec][rowkey] = nodes
            stack = []
            continue
        if nodes is None or not line.strip() or FOLDED.match(line) or FLAT_HEAD.match(line):
            continue
        body = line.rstrip()
        if set(body.strip()) <= set("|"):
            continue
        m = PCT_NODE.search(body)
        if m:
            col = m.start(2)
            while stack and stack[-1][0] >= col:
                flush_one(stack.pop(), nodes)
            parent = stack[-1][1] if stack else ()
            name = m.group(2).strip()
            if name.startswith("[...]"):  # perf 6.1 may add " (inlined)" (uninitialized)
                name = "[...]"
            stack.append([col, parent + (name,), m.group(1), len(parent)])
            continue
        i = body.find("---")
        if i >= 0 and not stack:
            stack.append([i + 3, (body[i + 3:].strip(),), None, 0])
            continue
        col = len(body) - len(body.lstrip(" |"))
        while stack and stack[-1][0] > col:
            flush_one(stack.pop(), nodes)
        if stack and stack[-1][0] == col:
            stack[-1][1] = stack[-1][1] + (body[col:].strip(),)
        else:  # flat entries' names and the like: not a graph
            pass
    flush(stack, nodes)
    return out


def flush_one(n, nodes):
    if n[2] is not None:
        nodes[n[1]] = float(n[2])
    else:
        nodes[("---",) + n[1]] = None


def flush(stack, nodes):
    if nodes is None:
        return
    while stack:
        flush_one(stack.pop(), nodes)


def rows(path):
    out = []
    sec = None
    cur = None
    flat = None
    seen = {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# Samples:") :
                sec = {"head": [" ".join(line.split())], "rows": {}}
                out.append(sec)
                seen = {}
                continue
            if sec is None:
                continue
            if line.startswith("# Event count"):
                sec["head"].append(" ".join(line.split()))
                continue
            if line.startswith("#"):
                continue
            m = ROW.match(line)
            if m and not PCT_NODE.search(line) and not FLAT_HEAD.match(line):
                key = " ".join(m.group(3).split())
                if key in seen:
                    key += " #2"
                seen[key] = 1
                cur = {"pct": tuple(float(x) for x in m.groups()[:2] if x is not None),
                       "other": {}}
                sec["rows"][key] = cur
                flat = None
                continue
            if cur is None:
                continue
            if not line.strip():
                if flat:
                    cur["other"][("flat",) + tuple(flat[1])] = flat[0]
                flat = None
                continue
            m = FOLDED.match(line)
            if m:
                cur["other"][("folded", m.group(2))] = float(m.group(1))
                continue
            m = FLAT_HEAD.match(line)
            if m:
                flat = [float(m.group(1)), []]
                continue
            if flat is not None:
                flat[1].append(line.strip())
    return out


def close(a, b):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 0.0101


def merge_split_rows(rp, rh):
    """perf 6.1 now and then shows one entry as two rows of the same text (seen with
    --children -g caller on a dwarf recording: "__libc_start_call_main" 90% and 10%, one
    row with any --time filter): where hwsample has that row once, perf's two are one row
    with their percentages added; the graphs under such a row are not compared (perf's
    two graphs are pruned and merged each on its own). Returns the merged rows' keys per
    section."""
    merged = []
    for sp, sh in zip(rp, rh):
        keys = set()
        for k in [k for k in sp["rows"] if k.endswith(" #2")]:
            base = k[:-3]
            if base not in sp["rows"] or base not in sh["rows"] or k in sh["rows"]:
                continue
            a, b = sp["rows"][base], sp["rows"].pop(k)
            if len(a["pct"]) == len(b["pct"]):
                a["pct"] = tuple(x + y for x, y in zip(a["pct"], b["pct"]))
            keys.add(base)
        merged.append(keys)
    return merged


def main():
    p, h = sys.argv[1], sys.argv[2]
    ign = re.compile(sys.argv[3]) if len(sys.argv) > 3 else None

    def keep(x):
        parts = [p for e in (x if isinstance(x, tuple) else (x,)) for p in str(e).split(";")]
        return not ign or not any(ign.search(p) for p in parts)
    rp, rh = rows(p), rows(h)
    gp, gh = graph_nodes(p), graph_nodes(h)
    merged = merge_split_rows(rp, rh)
    errs = []
    if len(rp) != len(rh):
        errs.append(f"sections: perf {len(rp)}, hwsample {len(rh)}")
    nrows = nnodes = 0
    for si, (sp, sh) in enumerate(zip(rp, rh)):
        if sp["head"] != sh["head"]:
            errs.append(f"section {si} header: perf {sp['head']} hwsample {sh['head']}")
        kp = set(k for k in sp["rows"] if keep(k))
        kh = set(k for k in sh["rows"] if keep(k))
        for k in sorted(kp - kh)[:5]:
            errs.append(f"row only in perf: {k} {sp['rows'][k]['pct']}")
        for k in sorted(kh - kp)[:5]:
            errs.append(f"row only in hwsample: {k} {sh['rows'][k]['pct']}")
        for k in sorted(kp & kh):
            a, b = sp["rows"][k], sh["rows"][k]
            nrows += 1
            if len(a["pct"]) != len(b["pct"]) or not all(
                    close(x, y) for x, y in zip(a["pct"], b["pct"])):
                errs.append(f"row {k}: perf {a['pct']} hwsample {b['pct']}")
            if k in merged[si]:
                continue
            for d1, d2, what in ((a["other"], b["other"], "flat/folded"),
                                 (gp[si].get(k, {}), gh[si].get(k, {}), "graph")):
                for n in sorted(set(x for x in set(d1) | set(d2) if keep(x)), key=str):
                    nnodes += 1
                    if n not in d1 or n not in d2:
                        errs.append(f"row {k}: {what} node {n} only in "
                                    f"{'perf' if n in d1 else 'hwsample'}: "
                                    f"{d1.get(n, d2.get(n))}")
                    elif not close(d1[n], d2[n]):
                        errs.append(f"row {k}: {what} node {n}: perf {d1[n]} hwsample {d2[n]}")
    if errs:
        for e in errs[:12]:
            print(e)
        print(f"{len(errs)} differences")
        return 1
    n = sum(len(m) for m in merged)
    split = f" (perf's split rows merged, their graphs not compared: {n})" if n else ""
    print(f"same: {len(rp)} sections, {nrows} rows, {nnodes} call-graph nodes{split}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
