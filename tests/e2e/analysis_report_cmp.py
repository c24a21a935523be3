#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Compare `hwsample report --stdio --sort ...` with `perf report --stdio --no-children --sort ...`:
  analysis_report_cmp.py PERF_OUT HWS_OUT [--tol 0.01] [--merge-same]
Per section (`# Samples: N of event 'E'`): the sample count line, and the rows as a multiset
of (percentage, key columns) with whitespace normalized; percentages must agree to --tol.
Rows of equal percentage may come in any order (ties are perf's hash order). A perf column
cut to a prefix of hwsample's (perf sizes a column when an entry is added) still matches.
Linear in the rows: exact matches by dict lookup first, then the rest of perf's rows against
hwsample's unmatched ones indexed by their words less one (a cut column). Prints the first
differences and exits 1 when the outputs differ or perf's has no section, 0 when they agree.
--merge-same: rows of equal text in a section are one row on each side, their percentages
summed (to --tol plus 0.005 for each row summed past the first, each rounded): perf 6.1 orders
data addresses by (int64_t)(r - l), which is no order across kernel, user and zero addresses,
so its tree can leave one address (0 above all: SPE records without one) in several rows.
"""
import re
import sys


def sections(path):
    secs = {}
    cur = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        # "of events": a group's leader or its events side by side (perf's group view)
        m = re.match(r"# Samples: (\S+)\s*of events? '(.*)'( \(time slices: .*\))?$", line)
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


def take(errs, ev, cols, pct, got, tol):
    """match perf's row (pct, cols) with the nearest of hwsample's percentages @got"""
    best = min(got, key=lambda x: abs(x - pct))
    got.remove(best)
    if abs(best - pct) > tol + 1e-9:
        errs.append("%s: %s: perf %.2f%%, hwsample %.2f%%" % (ev, cols, pct, best))


def pow2_prefix(w):
    """@w cut to the longest power-of-two length (what cut_index() files it under)"""
    return w[: 1 << (len(w).bit_length() - 1)] if w else w


def cut_index(hp):
    """hwsample's unmatched rows, per number of words and word position, under each
    power-of-two prefix of their word there (1, 2, 4, ... characters and the whole word): the
    rows a perf row with cut words can match are in the list of any of its words, under that
    word's pow2_prefix()"""
    idx, order = {}, {}
    for k, v in hp.items():
        if not v:
            continue
        order[k] = len(order)
        ht = k.split(" ")
        for i, w in enumerate(ht):
            n = 1
            while n <= len(w):
                idx.setdefault((len(ht), i, w[:n]), []).append(k)
                n *= 2
            if n // 2 != len(w):
                idx.setdefault((len(ht), i, w), []).append(k)
    return idx, order


def cut_match(cut, hp, cols):
    """the first hwsample row (in its order) with perf's @cols as a word-wise prefix: perf cuts
    a column to the width it computed when the entry was added (a comm that changed at exec:
    "perf-ex" for perf-exec)"""
    idx, order = cut
    pt = cols.split(" ")
    best = None
    for i, w in enumerate(pt):
        c = idx.get((len(pt), i, pow2_prefix(w)), ())
        if best is None or len(c) < len(best):
            best = c
    found = [
        k
        for k in best or ()
        if hp[k] and all(h.startswith(q) for h, q in zip(k.split(" "), pt))
    ]
    return min(found, key=order.get) if found else None


def main():
    tol = 0.01
    args = sys.argv[1:]
    if "--tol" in args:
        i = args.index("--tol")
        tol = float(args[i + 1])
        del args[i : i + 2]
    merge = "--merge-same" in args
    if merge:
        args.remove("--merge-same")
    perf, hws = sections(args[0]), sections(args[1])
    slack = {}
    if merge:
        for secs in (perf, hws):
            for ev, sec in secs.items():
                m = {}
                for pct, cols in sec["rows"]:
                    t = m.setdefault(cols, [0.0, 0])
                    t[0] += pct
                    t[1] += 1
                sec["rows"] = [(t[0], cols) for cols, t in m.items()]
                for cols, t in m.items():
                    k = (ev, cols)
                    slack[k] = max(slack.get(k, 0.0), 0.005 * (t[1] - 1))
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
        hp = {}
        for pct, cols in h["rows"]:
            hp.setdefault(cols, []).append(pct)
        # exact matches first (dict lookups), then perf's cut columns among what is left
        left = []
        for pct, cols in p["rows"]:
            got = hp.get(cols)
            if got:
                take(errs, ev, cols, pct, got, tol + slack.get((ev, cols), 0.0))
            else:
                left.append((pct, cols))
        if left:
            cut = cut_index(hp)
            for pct, cols in left:
                k = cut_match(cut, hp, cols)
                if k is None:
                    errs.append("%s: row only in perf: %.2f%% %s" % (ev, pct, cols))
                else:
                    take(errs, ev, k, pct, hp[k], tol)
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
