#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The tree is the architecture: core/<layer>/ may include only headers of lower layers (and its
own), public headers included, and a public header only headers below it; backends include only
<hwsample/...> and their own files. Layers, low to high (core/CMakeLists.txt):
    util < kernel < plugin, symbols < perfdata < record, output < decode < objects < analysis < cli
Layers of the same rank (plugin and symbols; record and output) do not include each other.
Also: no core/ source lists its files by glob; every .c of a core layer is listed in its
CMakeLists.txt. Exit 1 with every violation named.
"""
import os
import re
import sys

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
RANK = {"util": 0, "kernel": 1, "plugin": 2, "symbols": 2, "perfdata": 3, "record": 4,
        "output": 4, "decode": 5, "objects": 6, "analysis": 7, "cli": 8}
# the layer each public header belongs to
PUBLIC = {
    "common.h": "util", "abi.h": "util", "errors.h": "util", "strbuf.h": "util", "sample.h": "util", "fmt.h": "util",
    "ring.h": "kernel", "aux.h": "kernel", "pmu.h": "kernel", "tracing.h": "kernel",
    "backend.h": "plugin", "backend_abi.h": "plugin", "host.h": "kernel", "registry.h": "plugin", "symbols.h": "symbols", "datatype.h": "symbols",
    "perfdata.h": "perfdata", "session.h": "record", "synth.h": "record", "config.h": "record",
    "output.h": "output", "decode.h": "decode", "objects.h": "objects", "report.h": "analysis", "c2c.h": "analysis", "filter.h": "symbols", "convert.h": "analysis",
    "hwsample.h": "cli",
}
INC = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
bad = []


def allowed(frm, to):
    return to == frm or RANK[to] < RANK[frm]


def layer_of(inc, here):
    if inc.startswith("hwsample/"):
        h = inc[len("hwsample/"):]
        if h not in PUBLIC:
            bad.append(f"include/hwsample/{h}: not given a layer in tests/tree/layers.py")
            return None
        return PUBLIC[h]
    first = inc.split("/")[0]
    if first in RANK:
        return first
    if "/" not in inc and here is not None:
        return here  # a header of the same folder
    return None  # system header


for h in sorted(os.listdir(os.path.join(top, "include/hwsample"))):
    if not h.endswith(".h"):
        continue
    if h not in PUBLIC:
        bad.append(f"include/hwsample/{h}: not given a layer in tests/tree/layers.py")
        continue
    text = open(os.path.join(top, "include/hwsample", h)).read()
    for inc in INC.findall(text):
        lay = layer_of(inc, None)
        if lay and not allowed(PUBLIC[h], lay):
            bad.append(f"include/hwsample/{h} ({PUBLIC[h]}) includes {inc} ({lay})")

core = os.path.join(top, "core")
for lay in sorted(os.listdir(core)):
    d = os.path.join(core, lay)
    if not os.path.isdir(d):
        continue
    if lay not in RANK:
        bad.append(f"core/{lay}/: a folder that is no layer (add it to tests/tree/layers.py "
                   "and core/CMakeLists.txt)")
        continue
    cm = os.path.join(d, "CMakeLists.txt")
    listed = open(cm).read() if os.path.exists(cm) else open(os.path.join(core, "CMakeLists.txt")).read()
    if re.search(r"file\s*\(\s*GLOB", listed):
        bad.append(f"core/{lay}: sources listed by file(GLOB), not by name")
    for f in sorted(os.listdir(d)):
        if not f.endswith((".c", ".h")):
            continue
        if f.endswith(".c") and not re.search(r"(^|[\s/])" + re.escape(f) + r"\b", listed):
            bad.append(f"core/{lay}/{f}: not listed in its CMakeLists.txt")
        for inc in INC.findall(open(os.path.join(d, f)).read()):
            to = layer_of(inc, lay)
            if to and not allowed(lay, to):
                bad.append(f"core/{lay}/{f} ({lay}) includes {inc} ({to})")

for root, _, files in os.walk(os.path.join(top, "backends")):
    for f in files:
        if not f.endswith((".c", ".h")):
            continue
        where = os.path.relpath(os.path.join(root, f), top)
        for inc in INC.findall(open(os.path.join(root, f)).read()):
            if inc.startswith("hwsample/"):
                if PUBLIC.get(inc[len("hwsample/"):]) not in ("util", "kernel", "plugin"):
                    bad.append(f"{where}: includes {inc}, which is not part of the backend ABI")
            elif ".." in inc or inc.split("/")[0] in RANK or inc.startswith("core/"):
                bad.append(f"{where}: includes {inc} (backends include only <hwsample/...>, "
                           "their own files and system headers)")

for b in bad:
    print("FAIL:", b)
print(f"layers: {len(bad)} violations")
sys.exit(1 if bad else 0)
