#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare a pprof profile, as Go's own pprof reads it, with hwsample dump of the same file.

usage: analysis_pprof_cmp.py PROFILE DUMP.json COMMS.txt [--data-frames] [--keep EXPR]

PROFILE is read with `go tool pprof -raw` (samples with their location ids, values and
labels; locations with address and function), -top (totals per sample type) and -tags.
DUMP.json is `hwsample dump --json --sym` of the input, COMMS.txt `hwsample dump -F comm`
(one line per sample, same order). --keep EXPR: a Python expression over a dump sample `s`
and its comm `c` choosing the samples the profile should hold (the filters it was made with).

Checks: every (stack of addresses, labels) of the dump has the same samples, summed period
and summed lat_total in the profile and the profile has nothing else; each address's
function equals dump's symbol (without +offset) or is absent where dump has none; data
frames (--data-frames) are "[data] SYMBOL"; dump's "type" is the labels type and typeoff
(perf's columns); -top's total equals dump's summed period (the
default type); -tags lists every label the samples have. Prints one line per failure and a summary.
"""
import collections
import json
import re
import subprocess
import sys

args = sys.argv[1:]
data_frames = "--data-frames" in args
keep = None
if "--keep" in args:
    keep = args[args.index("--keep") + 1]
    del args[args.index("--keep"):args.index("--keep") + 2]
args = [a for a in args if a != "--data-frames"]
prof, dump_json, comms = args[:3]
bad = []


def pprof(*opts):
    r = subprocess.run(["go", "tool", "pprof", *opts, prof], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"go tool pprof {' '.join(opts)} failed: {r.stderr.strip()[:500]}")
    return r.stdout


def short_dso(d):
    if d == "[kernel]":
        return "[kernel.kallsyms]"
    return d if d.startswith("[") else "[" + d.rsplit("/", 1)[-1] + "]"


def symname(sym):
    """dump's symbol without +offset; None where dump names only the map ("[kernel]+0x..")"""
    n = re.sub(r"\+0x[0-9a-f]+$", "", sym)
    return None if n.startswith("[") else n


# ---- the dump: what the profile should hold
want = collections.defaultdict(lambda: [0, 0, 0])
want_names = set()
has_lat = False
js = [json.loads(l) for l in open(dump_json)]
cs = [l.rstrip("\n").strip() for l in open(comms)]
if len(js) != len(cs):
    sys.exit(f"dump --json has {len(js)} samples, dump -F comm {len(cs)}")
for s, c in zip(js, cs):
    if keep and not eval(keep, {}, {"s": s, "c": c}):
        continue
    frames = []
    if data_frames and "addr" in s:
        a = int(s["addr"], 16)
        n = symname(s["data_sym"]) if "data_sym" in s else None
        name = "[data] " + (n or (short_dso(s["data_dso"]) if "data_dso" in s else "[unknown]"))
        frames.append(a)
        want_names.add((a, name))
    chain = s.get("callchain") or ([{"ip": s["ip"], **({"sym": s["sym"]} if "sym" in s else {})}]
                                   if "ip" in s else [])
    for f in chain:
        a = int(f["ip"], 16)
        frames.append(a)
        want_names.add((a, symname(f["sym"]) if "sym" in f else None))
    lab = {}
    if "pid" in s:
        lab["pid"], lab["tid"] = str(s["pid"]), str(s["tid"])
    if "cpu" in s:
        lab["cpu"] = str(s["cpu"])
    if c and not re.fullmatch(r":\d+", c):  # perf's ":PID" stands for no comm
        lab["comm"] = c
    if "event" in s:
        lab["event"] = s["event"]
    if "op" in s or "mem_level" in s:
        lab["op"] = s.get("op", "unknown")
    if "mem_level" in s:
        for k in ("mem_level", "snoop", "tlb"):
            lab[k] = s.get(k, "unknown")
    if "type" in s:  # perf's --sort type, typeoff columns
        t = s["type"]
        lab["type"] = t["name"]
        lab["typeoff"] = (t["name"] if "offset" not in t else
                          f"{t['name']} {t['offset']:+d} ({t.get('field', 'no field')})")
    has_lat |= "lat_total" in s
    v = want[(tuple(frames), tuple(sorted(lab.items())))]
    v[0] += 1
    v[1] += s.get("period", 1)
    v[2] += s.get("lat_total", 0)

# ---- the profile as go tool pprof -raw prints it
raw = pprof("-raw").splitlines()
got = collections.defaultdict(lambda: [0, 0, 0])
locs, types, samples = {}, [], []
sec = None
for l in raw:
    if l.startswith("Samples:"):
        sec = "types"
        continue
    if l.startswith("Locations"):
        sec = "loc"
        continue
    if l.startswith("Mappings"):
        sec = None
        continue
    if sec == "types":
        types = [t.replace("[dflt]", "") for t in l.split()]
        sec = "samples"
    elif sec == "samples":
        m = re.match(r"^\s+([-\d ]+):((?: \d+)*)\s*$", l)
        if m:
            samples.append([[int(x) for x in m.group(1).split()],
                            [int(x) for x in m.group(2).split()], {}])
        elif samples and l.strip():
            for k, v in re.findall(r"(\w+):\[(.*?)\](?= \w+:\[|\s*$)", l):
                samples[-1][2][k] = re.sub(r"^(-?\d+) id$", r"\1", v)  # numbers: unit "id"
    elif sec == "loc":
        m = re.match(r"^\s*(\d+): (0x[0-9a-f]+) (?:M=\d+ )?(.*)$", l)
        if m:
            rest = m.group(3).strip()
            n = re.match(r"^(.*) (\S*):(-?\d+) s=(-?\d+)$", rest)
            locs[int(m.group(1))] = (int(m.group(2), 16), n.group(1) if n else None)
        elif l.startswith("             ") and l.strip():
            pass  # an inlined function's line: none are written yet
want_types = ["samples/count", "event/count"] + (["latency/cycles"] if has_lat else [])
if types != want_types:
    bad.append(f"sample types {types}, want {want_types}")
got_names = set()
for vals, ids, lab in samples:
    frames = tuple(locs[i][0] for i in ids)
    for i in ids:
        got_names.add(locs[i])
    g = got[(frames, tuple(sorted(lab.items())))]
    for k in range(len(vals)):
        g[k] += vals[k]
for k in set(want) | set(got):
    if want.get(k) != got.get(k):
        bad.append(f"stack {[hex(a) for a in k[0]][:6]} labels {dict(k[1])}: "
                   f"profile {got.get(k)}, dump {want.get(k)}")
        if len(bad) > 20:
            break
# a data address dump names only by its map ("[data] [memdemo]") may get its variable in the
# profile: dump looks it up at the sample's time, the profile once all maps are known (a
# page fault of exec() clearing .bss comes before the MMAP of that segment)
later = {(a, n) for a, n in got_names - want_names
         if n and n.startswith("[data] ") and any(a == w and wn and wn.startswith("[data] [")
                                                    for w, wn in want_names - got_names)}
want_names -= {(a, wn) for a, wn in want_names if any(a == g for g, _ in later)}
got_names -= later
for a, n in sorted(want_names ^ got_names, key=lambda x: (x[0], x[1] or ""))[:10]:
    bad.append(f"address {a:#x} function {n!r} only in the "
               f"{'dump' if (a, n) in want_names else 'profile'}")

# ---- totals per sample type (-top) and labels (-tags)
tot = [sum(v[k] for v in want.values()) for k in range(3)]
# one -top (each go tool run costs): the default type, event; the others' sums are in -raw
out = pprof("-top", "-nodecount=1")
m = re.search(r"Total samples = (\d+)", out) or re.search(r"of (\d+) total", out)
if tot[1] and (int(m.group(1)) if m else None) != tot[1]:
    bad.append(f"-top: total {m.group(1) if m else None}, dump's summed period {tot[1]}")
tags = pprof("-tags", "-sample_index=samples")
keys = {k for key in want for k, _ in key[1]}
for k in keys:
    if not re.search(rf"^ *{k}: Total {tot[0]}\b", tags, re.M):
        bad.append(f"-tags: label {k} not on every sample (total {tot[0]})"
                   if all(k in dict(key[1]) for key in want) else "")
bad = [b for b in bad if b]
print("\n".join(bad[:30]))
print(f"{len(js)} dump samples, {tot[0]} kept, {len(want)} stacks x labels, "
      f"{len(samples)} pprof samples, {len(locs)} locations, "
      f"{len(later)} data addresses named only in the profile, {len(bad)} differences")
sys.exit(1 if bad or not tot[0] else 0)
