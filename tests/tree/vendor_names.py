#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Core decides nothing by vendor: backends answer through their ops and caps. The vendor names
are the names and PMU names of the backends under backends/ that are not software (no
HWS_CAP_SOFTWARE in their caps), read from their ops tables (.name = "...") and *_pmus[]
arrays; "cpu", perf's core PMU on every x86, is too generic to count. A PMU name ending in '_' (a prefix, "arm_spe_") also covers what
follows ("arm_spe_0"). Comments may name them (they cite perf's functions); string literals
may not, in C sources and headers:
 - of the library (include/hwsample/, core/ outside core/cli/): no literal names a vendor,
   by those names or by the vendors' and samplers' own (PRODUCTS: "Intel PEBS", ...);
 - of the CLI (core/cli/): a vendor name may appear only inside prose (usage, help, a
   message, an example command line): a literal that is only a vendor name ("amd_ibs") is
   how code compares, passes or tables a vendor, and is refused.
EXCEPTIONS below lists the known ones, each with its reason; an exception that no longer
occurs is an error too (so the list shrinks as they are fixed). Exit 1 with every
violation named.
"""
import os
import re
import sys

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")

# (file, vendor name, why it is still there)
EXCEPTIONS = [
    ("core/record/config.c", "ibs_op",
     "example section in the message for an item outside any section"),
    ("core/cli/cmd_list.c", "amd_ibs",
     "min_kernel[]: kernel that introduced each backend's driver, for `list`; the backends' "
     "detect() could say it"),
    ("core/cli/cmd_list.c", "intel_pebs", "min_kernel[], as above"),
    ("core/cli/cmd_list.c", "arm_spe", "min_kernel[], as above"),
]


def c_literals(text):
    """The string literals of C source @text (comments and character literals skipped),
    as (line, contents without the quotes, escapes left as written)."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif c in "\"'":
            j, start = i + 1, line
            while j < n and text[j] != c:
                if text[j] == "\\":
                    j += 1
                if j < n and text[j] == "\n":
                    line += 1
                j += 1
            if c == '"':
                out.append((start, text[i + 1:j]))
            i = j + 1
        else:
            i += 1
    return out


def vendor_names():
    names, found = set(), []
    bdir = os.path.join(top, "backends")
    for b in sorted(os.listdir(bdir)):
        d = os.path.join(bdir, b)
        if not os.path.isdir(d):
            continue
        text = "".join(open(os.path.join(d, f)).read() for f in sorted(os.listdir(d))
                       if f.endswith(".c"))
        m = re.search(r"struct\s+hws_backend_ops\s+\w+\s*=\s*\{(.*?)\n\};", text, re.S)
        if not m:
            continue
        ops = m.group(1)
        name = re.search(r'\.name\s*=\s*"([^"]+)"', ops)
        if not name or "HWS_CAP_SOFTWARE" in ops:
            continue
        found.append(name.group(1))
        names.add(name.group(1))
        pm = re.search(r"\.pmus\s*=\s*(\w+)", ops)
        arr = pm and re.search(r"\b" + pm.group(1) + r"\[\]\s*=\s*\{([^}]*)\}", text)
        if arr:
            names.update(p for p in re.findall(r'"([^"]+)"', arr.group(1)) if p != "cpu")
    return names, found


names, backends = vendor_names()
if len(backends) < 3:
    print(f"FAIL: found the vendor backends {backends} under backends/: the parser is broken")
    sys.exit(1)
pattern = re.compile("|".join(
    r"(?<![A-Za-z0-9_])" + re.escape(n) + (r"\w*" if n.endswith("_") else r"(?![A-Za-z0-9_])")
    for n in sorted(names, key=len, reverse=True)))

# vendors and their samplers, as prose names them (library strings only)
PRODUCTS = re.compile(r"\b(Intel|AMD|Arm|ARM|PEBS|IBS|SPE|GenuineIntel|AuthenticAMD)\b")

bad, seen = [], set()


def check(path, cli):
    rel = os.path.relpath(path, top)
    for line, lit in c_literals(open(path, errors="replace").read()):
        if not cli:
            for m in PRODUCTS.finditer(lit):
                bad.append(f'{rel}:{line}: "{lit[:60]}": names {m.group(0)} in a library '
                           "string; ask the backend (ops, caps)")
        for m in pattern.finditer(lit):
            v = m.group(0)
            if cli and lit.strip() != v:
                continue  # prose
            exc = [e for e in EXCEPTIONS if e[0] == rel and (e[1] == v or v.startswith(e[1]))]
            if exc:
                seen.add(exc[0])
                continue
            what = ("a literal that is only a vendor name (code deciding by vendor)" if cli
                    else "a vendor name in a library string")
            bad.append(f'{rel}:{line}: "{lit[:60]}": {what}; ask the backend (ops, caps)')


for root, _, files in os.walk(os.path.join(top, "core")):
    for f in sorted(files):
        if f.endswith((".c", ".h")):
            p = os.path.join(root, f)
            check(p, os.path.relpath(p, top).startswith("core/cli/"))
for f in sorted(os.listdir(os.path.join(top, "include/hwsample"))):
    if f.endswith(".h"):
        check(os.path.join(top, "include/hwsample", f), False)
for e in EXCEPTIONS:
    if e not in seen:
        bad.append(f"{e[0]}: no '{e[1]}' any more: drop it from EXCEPTIONS in "
                   "tests/tree/vendor_names.py")

for b in bad:
    print("FAIL:", b)
print(f"vendor names ({', '.join(sorted(names))}): {len(bad)} violations")
sys.exit(1 if bad else 0)
