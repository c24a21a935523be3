#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
The whole tree is clean under the repo's .clang-format (kernel style): every .c and .h file
under core/, backends/, include/ and tests/ formats to itself with clang-format 14 (Debian
12's; other versions lay some constructs out differently, so those skip with exit 77). Hand-
aligned tables opt out between /* clang-format off */ and /* clang-format on */, which must
say why after the colon. Fix drift with:
    clang-format -i $(git ls-files '*.c' '*.h')
Exit 1 naming each file that would change.
"""
import os
import re
import shutil
import subprocess
import sys

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
DIRS = ("core", "backends", "include", "tests")
cf = shutil.which("clang-format-14") or shutil.which("clang-format")
if not cf:
    print("SKIP: no clang-format (apt-get install clang-format)")
    sys.exit(77)
ver = subprocess.run([cf, "--version"], capture_output=True, text=True).stdout
m = re.search(r"version (\d+)", ver)
if not m or m.group(1) != "14":
    print(f"SKIP: {cf} is not clang-format 14 ({ver.strip()}): its layout differs")
    sys.exit(77)

files = []
for d in DIRS:
    for root, dirs, names in os.walk(os.path.join(top, d)):
        dirs[:] = [x for x in dirs if not x.startswith("build") and x != "corpus"]
        files += [os.path.join(root, n) for n in sorted(names) if n.endswith((".c", ".h"))]
if len(files) < 50:
    print(f"FAIL: only {len(files)} C files found under {top}: wrong directory?")
    sys.exit(1)

bad = []
off = re.compile(r"/\* clang-format off(.*?)\*/")
for f in files:
    src = open(f, encoding="utf-8", errors="replace").read()
    for mm in off.finditer(src):
        if not mm.group(1).startswith(":") or len(mm.group(1)) < 8:
            bad.append(f"{f}: 'clang-format off' without a reason ('/* clang-format off: why */')")
    out = subprocess.run([cf, "--style=file", f], capture_output=True, text=True, cwd=top)
    if out.returncode:
        bad.append(f"{f}: clang-format failed: {out.stderr.strip()}")
    elif out.stdout != src:
        bad.append(f"{os.path.relpath(f, top)}: not clang-formatted (clang-format -i {os.path.relpath(f, top)})")
for b in bad:
    print("FAIL:", b)
print(f"{len(files)} files, {len(bad)} not formatted")
sys.exit(1 if bad else 0)
