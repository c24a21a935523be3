#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
No source file over 1,500 lines: every .c and .h file under core/, backends/, include/ and
tests/ (generated and build trees aside) has at most MAX_LINES lines, so a file that grows
past it is split by concern (as core/analysis/report_sort.c was into report_chain.c,
report_render.c and report_memtext.c) before it lands. Exit 1 naming each file over, with its
line count.
"""
import os
import sys

MAX_LINES = 1500
top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
DIRS = ("core", "backends", "include", "tests")

files = []
for d in DIRS:
    for root, dirs, names in os.walk(os.path.join(top, d)):
        dirs[:] = [x for x in dirs if not x.startswith("build") and x != "corpus"]
        files += [os.path.join(root, n) for n in sorted(names) if n.endswith((".c", ".h"))]
if len(files) < 50:
    print(f"FAIL: only {len(files)} C files found under {top}: wrong directory?")
    sys.exit(1)

bad = []
for f in files:
    with open(f, "rb") as fh:
        n = sum(1 for _ in fh)
    if n > MAX_LINES:
        bad.append((os.path.relpath(f, top), n))
for f, n in bad:
    print(f"FAIL: {f}: {n} lines (at most {MAX_LINES}: split it by concern)")
if bad:
    sys.exit(1)
print(f"ok: {len(files)} files, none over {MAX_LINES} lines")
