#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The report perf would print for a sort key perf 6.1 does not have, made from its samples.

  script_rows.py KEYS [--mem] [--dsos LIST] < `perf script -F comm,tid,period,event,data_src,[weight,]ip,sym,symoff,dso`
  script_rows.py KEYS --ibs-D < `perf report -D` of a file of ibs_op samples

writes `perf report --stdio --no-children --sort KEYS`'s layout: per event a `# Samples: N  of
event 'E'` line (N as perf abbreviates it) and one `PCT%  KEY  KEY ...` row per group of
samples, PCT the group's share of the event's period (--mem: of its weight, a sample without
one weighing 1, as perf mem report; needs `weight` in -F). --dsos (names as key dso gives them):
rows of these files' samples only, the sample count and the shares still of every sample of the
event, as perf report's filters (its default --percentage absolute). analysis_report_cmp.py then compares
it with hwsample's report like perf's own. Keys (perf's names and values as newer perf prints
them, hwsample's report as its tests hold it to perf 6.1's layout):
  tid     TID:COMM (perf's pid key, a row per thread named by its latest comm)
  event   the event's name
  comm    COMM                dso     the file's base name ([kernel.kallsyms] as it is)
  symoff  [.] SYM+0xOFF ([k] for the kernel's; a sample without a symbol: [?] [unknown],
          which hwsample never prints: filter such samples out with --dsos); a row per
          function and offset (static functions of one name: a row each)
  op      Load, Store, Prefetch, Exec or N/A (data_src's mem_op bits; perf script prints the
          value in hex before its |OP ...| text)
--ibs-D: the samples of perf's -D dump with IBS registers decoded (ibs_op_data3's LdOp and
StOp give the op as the kernel sets mem_op: a load, else a store, else N/A; the event is
ibs_op//, period and tid from the PERF_RECORD_SAMPLE line, comm ":TID" as a thread without COMM).
"""
import collections
import re
import sys

# perf script's data_src text is cut to 82 characters (here, before the weight and the ip): the
# text ends where a number (the weight) or a hex number and a symbol follow, none of perf's
# words being one
_LINE = re.compile(
    r"^\s*(?P<comm>.*?)\s+(?P<tid>-?\d+)\s+(?P<period>\d+)\s+(?P<event>\S+):"
    r"\s+(?P<ds>[0-9a-f]+) \|OP .*?(?:\s+(?P<weight>\d+))?\s+"
    r"(?P<ip>[0-9a-f]+) (?P<sym>.*) \((?P<dso>[^()]*)\)$"
)
_OPS = ((2, "Load"), (4, "Store"), (8, "Prefetch"), (16, "Exec"))


def op_name(ds):
    for bit, name in _OPS:
        if ds & bit:
            return name
    return "N/A"


def key_of(k, s, last_comm):
    if k == "tid":
        return "%d:%s" % (s["tid"], last_comm[s["tid"]])
    if k in ("comm", "event"):
        return s[k]
    if k == "dso":
        d = s["dso"]
        return d if d.startswith("[") else d.rsplit("/", 1)[-1]
    if k == "symoff":
        if s["sym"] == "[unknown]":
            return "[?] [unknown]"
        kern = s["dso"].startswith("[kernel") or s["ip"] >> 63
        return "[%s] %s" % ("k" if kern else ".", s["sym"])
    if k == "op":
        return op_name(s["ds"])
    raise SystemExit("script_rows.py: key %r not made here" % k)


def from_script(lines):
    for line in lines:
        m = _LINE.match(line.rstrip("\n"))
        if m:
            yield {
                "comm": m.group("comm"),
                "tid": int(m.group("tid")),
                "period": int(m.group("period")),
                "weight": int(m.group("weight") or 0),
                "event": m.group("event"),
                "ds": int(m.group("ds"), 16),
                "ip": int(m.group("ip"), 16),
                "sym": m.group("sym"),
                "dso": m.group("dso"),
            }


def from_ibs_dump(lines):
    """perf -D prints a record's IBS registers before its PERF_RECORD_SAMPLE line"""
    op = None
    for line in lines:
        m = re.match(r"^ibs_op_data3:\s+[0-9a-f]+ LdOp (\d) StOp (\d)", line)
        if m:
            op = 2 if m.group(1) == "1" else 4 if m.group(2) == "1" else 1
            continue
        m = re.search(r"PERF_RECORD_SAMPLE\(.*\): (-?\d+)/(-?\d+): 0x([0-9a-f]+) period: (\d+)", line)
        if m:
            if op is None:
                raise SystemExit("script_rows.py: a sample without ibs_op_data3: " + line)
            tid = int(m.group(2))
            yield {"comm": ":%d" % tid, "tid": tid, "period": int(m.group(4)), "weight": 0,
                   "event": "ibs_op//", "ds": op, "ip": int(m.group(3), 16), "sym": "",
                   "dso": ""}
            op = None


def abbrev(n):
    """perf's sample count: 259K for 259123 (hists__fprintf_nr_sample_events)"""
    unit = ""
    for u in "KMG":
        if n <= 1000:
            break
        n //= 1000
        unit = u
    return "%d%s" % (n, unit)


def main():
    keys = sys.argv[1].split(",")
    mem = "--mem" in sys.argv
    dsos = None
    if "--dsos" in sys.argv:
        dsos = set(sys.argv[sys.argv.index("--dsos") + 1].split(","))
    src = from_ibs_dump if "--ibs-D" in sys.argv else from_script
    samples = list(src(sys.stdin))
    last_comm = {s["tid"]: s["comm"] for s in samples}  # in time order: the latest wins
    groups = collections.defaultdict(collections.Counter)
    count, totals = collections.Counter(), collections.Counter()
    for s in samples:
        w = (s["weight"] or 1) if mem else s["period"]
        count[s["event"]] += 1
        totals[s["event"]] += w
        if dsos is None or key_of("dso", s, last_comm) in dsos:
            key = tuple(key_of(k, s, last_comm) for k in keys)
            if "symoff" in keys:  # two functions of one name (static ones): two rows
                off = re.search(r"\+0x([0-9a-f]+)$", s["sym"])
                key += (s["ip"] - int(off.group(1), 16) if off else s["ip"],)
            groups[s["event"]][key] += w
    if not samples:
        raise SystemExit("script_rows.py: no samples read")
    for ev in count:
        g, total = groups[ev], totals[ev]
        print("# Samples: %s  of event '%s'" % (abbrev(count[ev]), ev))
        for k, w in sorted(g.items(), key=lambda x: -x[1]):
            print("  %6.2f%%  %s" % (100.0 * w / total if total else 0.0, "  ".join(k[:len(keys)])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
