#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The statistics columns of `hwsample report --mem --stdio --sort cpu,sample,weight,avg_weight`
(perf mem report's Samples, and the row's total and average weight) against the samples:
  analysis_report_stats_check.py SCRIPT_OUT HWS_OUT
SCRIPT_OUT: `perf script -F cpu,event,weight` of the same file. Per event and CPU: the number
of samples, the sum of their weights (as perf mem report, a sample without one weighs 1), that
sum over the number (to 0.1), and the row's share of the event's weight (--mem: overhead by
weight, to 0.01). Exit 0 when every row agrees and every
CPU of the samples has its row.
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from analysis_report_cmp import sections  # noqa: E402


def main():
    want = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    for line in open(sys.argv[1], errors="replace"):
        m = re.match(r"^\s*\[(\d+)\]\s+(\S+):\s+(\d+)\s*$", line)
        if m:
            w = want[m.group(2)][int(m.group(1))]
            w[0] += 1
            w[1] += int(m.group(3)) or 1  # --mem: a sample without a weight weighs 1
    secs = sections(sys.argv[2])
    ok = bool(want)
    for event, cpus in want.items():
        total = sum(w for _, w in cpus.values())
        rows = {}
        for pct, cols in secs.get(event, {"rows": []})["rows"]:
            c = cols.split()
            if len(c) != 4:
                print("%s: row %r: not CPU, samples, weight, average" % (event, cols))
                ok = False
                continue
            rows[int(c[0])] = (pct, int(c[1]), int(c[2]), float(c[3]))
        for cpu, (n, w) in sorted(cpus.items()):
            got = rows.pop(cpu, None)
            exp = (100.0 * w / total if total else 0.0, n, w, round(w / n, 1))
            if not got or abs(got[0] - exp[0]) > 0.01 or got[1:3] != exp[1:3] or \
                    abs(got[3] - exp[3]) > 0.051:
                print("%s CPU %d: hwsample %s, the samples %s" % (event, cpu, got, exp))
                ok = False
        if rows:
            print("%s: rows of no sample's CPU: %s" % (event, sorted(rows)))
            ok = False
        print("%s: %d CPUs, %d samples" % (event, len(cpus), sum(n for n, _ in cpus.values())))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
