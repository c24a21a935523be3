#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
capstone is optional (CMakeLists.txt: without libcapstone-dev the type keys say "type profiling
needs capstone"), but every build here has it, so nothing else compiles the code paths without
it. This compiles the files that hold both (core/symbols/datatype*.c) without
HWS_HAVE_CAPSTONE, with the tree's warning set as errors (-fsyntax-only: a second or so).
Exit 1 with the compiler's messages.
"""
import glob
import os
import shutil
import subprocess
import sys

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
cc = shutil.which("cc") or shutil.which("gcc")
if not cc:
    print("SKIP: no C compiler")
    sys.exit(77)
files = sorted(glob.glob(os.path.join(top, "core", "symbols", "datatype*.c")))
if not files:
    print(f"FAIL: no core/symbols/datatype*.c under {top}")
    sys.exit(1)
flags = ["-fsyntax-only", "-std=gnu11", "-D_GNU_SOURCE", '-DHWS_VERSION="0"',
         "-I" + os.path.join(top, "core"), "-I" + os.path.join(top, "include"),
         "-Wall", "-Wextra", "-Wshadow", "-Wmissing-prototypes", "-Wstrict-prototypes",
         "-Wno-unused-parameter", "-Werror"]
bad = 0
for f in files:
    r = subprocess.run([cc] + flags + [f], capture_output=True, text=True)
    if r.returncode:
        print(f"FAIL: {os.path.relpath(f, top)} without capstone:\n{r.stderr}")
        bad += 1
if bad:
    sys.exit(1)
print(f"ok: {len(files)} files compile without capstone")
