#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Compare `hwsample report --stdio --hierarchy --sort ...` with
`perf report --stdio --hierarchy --sort ...`:
  analysis_report_hier_cmp.py PERF_OUT HWS_OUT [--tol 0.01]
Per section (`# Samples: N of event 'E'`): the sample count line, the column header line
(indent, "Overhead", the key names joined by " / ") byte for byte, and the tree: every entry
as (its path of names from the top level, percentage), names with whitespace normalized,
percentages to --tol; the layout of each line (the column of its '%', which gives its
level, and the spaces between the '%' and the name) equal to perf's for that level; and in
hwsample's output the entries under one parent in decreasing overhead. Entries of equal
percentage may come in any order (perf's ties are its hash order). A deepest-level entry of at
most 0.05% that only perf has pairs with one of the same parent and percentage that only
hwsample has (a symbol alias: a kernel or ld.so address with several names; printed as a
note). Prints the first
differences and exits 1 when the outputs differ, 0 when they agree.
"""
import re
import sys

LEAF_TOL = 0.05  # percent: leaves this small may be named differently (symbol aliases)


def sections(path):
    secs = {}
    cur = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n").rstrip()
        m = re.match(r"# Samples: (\S+)\s*of event '(.*)'", line)
        if m:
            cur = secs.setdefault(m.group(2), {"samples": m.group(1), "header": None,
                                               "rows": [], "layout": {}, "order": []})
            stack = []
            continue
        if cur is None:
            continue
        if re.match(r"^# +Overhead  ", line):
            cur["header"] = line
            continue
        m = re.match(r"^( *)(-?[0-9.]+)%( +)(.*)$", line)
        if not m or line.startswith("#"):
            continue
        pos = len(m.group(1)) + len(m.group(2))
        name = " ".join(m.group(4).split())
        if not cur["rows"]:
            cur["base"] = pos
        depth = (pos - cur["base"]) // 3
        del stack[depth:]
        stack.append(name)
        pct = float(m.group(2))
        cur["rows"].append((tuple(stack), pct))
        cur["depth"] = max(cur.get("depth", 0), len(stack))
        cur["layout"].setdefault(depth, set()).add((pos, len(m.group(3))))
        cur["order"].append((tuple(stack[:-1]), pct))
    return secs


def main():
    tol = 0.01
    args = sys.argv[1:]
    if "--tol" in args:
        i = args.index("--tol")
        tol = float(args[i + 1])
        del args[i : i + 2]
    perf, hws = sections(args[0]), sections(args[1])
    if not perf:  # nothing compared: both failing alike is not agreement
        print("perf's output has no section (`# Samples: ... of event`): nothing to compare")
        return 1
    errs = []
    if set(perf) != set(hws):
        errs.append("events: perf %s, hwsample %s" % (sorted(perf), sorted(hws)))
    for ev in sorted(set(perf) & set(hws)):
        p, h = perf[ev], hws[ev]
        if p["samples"] != h["samples"]:
            errs.append("%s: samples perf %s, hwsample %s" % (ev, p["samples"], h["samples"]))
        if p["header"] != h["header"]:
            errs.append("%s: header perf %r, hwsample %r" % (ev, p["header"], h["header"]))
        if p["layout"] != h["layout"]:
            errs.append("%s: layout ('%%' column, spaces after it, per level) perf %s, hwsample %s"
                        % (ev, sorted(p["layout"].items()), sorted(h["layout"].items())))
        last = {}
        for parent, pct in h["order"]:
            if parent in last and pct > last[parent] + 1e-9:
                errs.append("%s: under %s: %.2f%% after %.2f%%" % (ev, parent, pct, last[parent]))
            last[parent] = pct
        hp = {}
        for path, pct in h["rows"]:
            hp.setdefault(path, []).append(pct)
        only_p = []
        for path, pct in p["rows"]:
            got = hp.get(path)
            if not got:
                # perf cuts a name to the width its column had when the entry was added (a
                # comm changed at exec: "perf-ex" for perf-exec): accept a prefix
                for k, v in hp.items():
                    if v and len(k) == len(path) and all(a.startswith(b) for a, b in zip(k, path)):
                        path, got = k, v
                        break
            if not got:
                only_p.append((path, pct))
                continue
            best = min(got, key=lambda x: abs(x - pct))
            got.remove(best)
            if abs(best - pct) > tol + 1e-9:
                errs.append("%s: %s: perf %.2f%%, hwsample %.2f%%" % (ev, " / ".join(path), pct, best))
        only_h = [(path, pct) for path, pcts in hp.items() for pct in pcts]
        # a tiny leaf named otherwise (a symbol alias at the same address: the flat view
        # differs the same way, see analysis_report_cmp.py) pairs with its counterpart
        for path, pct in list(only_p):
            for other in only_h:
                if (pct <= LEAF_TOL and len(path) == len(other[0]) == p["depth"] and
                        other[0][:-1] == path[:-1] and abs(other[1] - pct) <= tol + 1e-9):
                    print("  note: %s: leaf named %r by perf, %r by hwsample (%.2f%%)"
                          % (ev, path[-1], other[0][-1], pct))
                    only_h.remove(other)
                    only_p.remove((path, pct))
                    break
        for path, pct in only_p:
            errs.append("%s: entry only in perf: %.2f%% %s" % (ev, pct, " / ".join(path)))
        for path, pct in only_h:
            errs.append("%s: entry only in hwsample: %.2f%% %s" % (ev, pct, " / ".join(path)))
    n = sum(len(s["rows"]) for s in perf.values())
    if not n:
        errs.append("perf printed no entries")
    if errs:
        for e in errs[:12]:
            print("  " + e)
        print("differ: %d differences (%d perf entries)" % (len(errs), n))
        return 1
    print("same: %d entries in %d sections" % (n, len(perf)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
