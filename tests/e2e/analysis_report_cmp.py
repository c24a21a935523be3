#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Compare `hwsample report --stdio --sort ...` with `perf report --stdio --no-children --sort ...`:
  analysis_report_cmp.py PERF_OUT HWS_OUT [--tol 0.01]
Per section (`# Samples: N of event 'E'`): the sample count line, and the rows as a multiset
of (percentage, key columns) with whitespace normalized; percentages must agree to --tol.
Rows of equal percentage may come in any order (ties are perf's hash order). A perf column
cut to a prefix of hwsample's (perf sizes a column when an entry is added) still matches. Prints the first
differences and exits 1 when the outputs differ, 0 when they agree.
"""
import re
import sys


def sections(path):
    secs = {}
    cur = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"# Samples: (\S+)\s*of event '(.*)'( \(time slices: .*\))?$", line)
        if m:
            count = m.group(1) + (m.group(3) or "")
            cur = secs.setdefault(m.group(2), {"samples": count, "rows": []})
            continue
        m = re.match(r"^\s+(-?[0-9.]+)%\s+(.*)$", line)
        if cur is not None and m and not line.startswith("#"):
            cols = " ".join(m.group(2).split())
            # perf adds an empty "IPC [IPC Coverage]" column to symbol sorts
            if cols.endswith(" - -"):
                cols = cols[:-4]
            cur["rows"].append((float(m.group(1)), cols))
    return secs


def main():
    tol = 0.01
    args = sys.argv[1:]
    if "--tol" in args:
        i = args.index("--tol")
        tol = float(args[i + 1])
        del args[i : i + 2]
    perf, hws = sections(args[0]), sections(args[1])
    errs = []
    if set(perf) != set(hws):
        errs.append("events: perf %s, hwsample %s" % (sorted(perf), sorted(hws)))
    for ev in sorted(set(perf) & set(hws)):
        p, h = perf[ev], hws[ev]
        if p["samples"] != h["samples"]:
            errs.append("%s: samples perf %s, hwsample %s" % (ev, p["samples"], h["samples"]))
        hp = {}
        for pct, cols in h["rows"]:
            hp.setdefault(cols, []).append(pct)
        for pct, cols in p["rows"]:
            got = hp.get(cols)
            if not got:
                # perf cuts a column to the width it computed when the entry was added (a
                # comm that changed at exec: "perf-ex" for perf-exec): accept a prefix
                pt = cols.split(" ")
                for k, v in hp.items():
                    ht = k.split(" ")
                    if v and len(ht) == len(pt) and all(h.startswith(q) for h, q in zip(ht, pt)):
                        cols, got = k, v
                        break
            if not got:
                errs.append("%s: row only in perf: %.2f%% %s" % (ev, pct, cols))
                continue
            best = min(got, key=lambda x: abs(x - pct))
            got.remove(best)
            if abs(best - pct) > tol + 1e-9:
                errs.append("%s: %s: perf %.2f%%, hwsample %.2f%%" % (ev, cols, pct, best))
        for cols, pcts in hp.items():
            for pct in pcts:
                errs.append("%s: row only in hwsample: %.2f%% %s" % (ev, pct, cols))
    nrows = sum(len(s["rows"]) for s in perf.values())
    if errs:
        for e in errs[:12]:
            print("  " + e)
        print("differ: %d differences (%d perf rows)" % (len(errs), nrows))
        return 1
    print("same: %d sections, %d rows" % (len(perf), nrows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
