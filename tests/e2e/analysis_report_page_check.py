#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
`hwsample report --stdio --sort data_page` against the samples themselves (perf 6.1 has no
page key to compare with):
  analysis_report_page_check.py SCRIPT_OUT HWS_OUT
SCRIPT_OUT: `perf script -F pid,period,event,addr` of the same file. Per event, the samples
grouped by their data address's 4 KiB page (and, below the kernel's half, by process: the same
user page of two processes is two rows), each group's share of the event's period: the rows
hwsample prints must be these groups, as a multiset of (page, percentage) with percentages to
0.01, each row's address a page boundary. Also at least one page must hold several samples (so
the grouping is exercised). Exit 0 when it holds.
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from analysis_report_cmp import sections  # noqa: E402


def expected(path):
    groups = collections.defaultdict(collections.Counter)
    count = collections.defaultdict(collections.Counter)
    for line in open(path, errors="replace"):
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+(\S+):\s+([0-9a-f]+)\s*$", line)
        if not m:
            continue
        pid, period, event = int(m.group(1)), int(m.group(2)), m.group(3)
        addr = int(m.group(4), 16)
        key = (addr & ~4095, pid if addr < (1 << 63) else 0)
        groups[event][key] += period
        count[event][key] += 1
    return groups, count


def main():
    groups, count = expected(sys.argv[1])
    secs = sections(sys.argv[2])
    ok = bool(groups)
    several = 0
    for event, g in groups.items():
        total = sum(g.values())
        want = sorted((page, 100.0 * p / total) for (page, _), p in g.items())
        several += sum(1 for n in count[event].values() if n > 1)
        sec = secs.get(event)
        if sec is None:
            print("%s: no section in hwsample's report" % event)
            ok = False
            continue
        got = []
        for pct, cols in sec["rows"]:
            # perf's "%-#.*llx": page 0 without the 0x
            m = re.match(r"^\[[.kX]\] (?:0x)?([0-9a-f]{16})$", cols)
            if not m:
                print("%s: row %r is not a page" % (event, cols))
                ok = False
                continue
            got.append((int(m.group(1), 16), pct))
        got.sort()
        bad = [r for r in got if r[0] & 4095]
        if bad:
            print("%s: not page boundaries: %s" % (event, bad[:3]))
            ok = False
        if len(got) != len(want) or any(
                a[0] != b[0] or abs(a[1] - b[1]) > 0.01 for a, b in zip(got, want)):
            ok = False
            print("%s: %d rows, the samples give %d" % (event, len(got), len(want)))
            for a, b in zip(got, want):
                if a[0] != b[0] or abs(a[1] - b[1]) > 0.01:
                    print("  first difference: hwsample %#x %.2f%%, samples %#x %.2f%%" %
                          (a[0], a[1], b[0], b[1]))
                    break
        print("%s: %d pages (page, process) of %d samples" %
              (event, len(want), sum(count[event].values())))
    if not several:
        print("no page holds several samples: the grouping is not exercised")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
