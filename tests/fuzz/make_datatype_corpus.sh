#!/bin/bash
# SPDX-License-Identifier: MIT
# Seed corpus of fuzz_datatype: the types_truth workload (-O2 -g) with the PC of a touching
# instruction of each of its functions (a global, a stack variable, a pointer variable, a
# parameter followed through the function, a nested member), and damaged copies: DWARF
# bytes overwritten, instruction bytes overwritten, the file cut short, a bad ELF header.
# Usage: make_datatype_corpus.sh BUILD_DIR
set -e
b=${1:?usage: make_datatype_corpus.sh BUILD_DIR}
out=$(dirname "$0")/corpus/datatype
wl=$b/tests/workloads/types_truth
mkdir -p "$out"
objdump -d --no-show-raw-insn "$wl" >"$out.dis"
trap 'rm -f "$out.dis"' EXIT
python3 - "$wl" "$out" "$out.dis" <<'PY'
import os, random, re, struct, subprocess, sys
wl, out, dis = sys.argv[1:]
elf = open(wl, "rb").read()
pcs, fn = {}, None
for line in open(dis):
    m = re.match(r"[0-9a-f]+ <(touch_[a-z]+)", line)
    if m:
        fn = m.group(1)
        continue
    m = re.match(r"\s+([0-9a-f]+):\s+mov\S*\s+.*\(", line)
    if fn and m and fn not in pcs:
        pcs[fn] = int(m.group(1), 16)
def sec(name):
    o = subprocess.run(["readelf", "-SW", wl], capture_output=True, text=True).stdout
    for l in o.splitlines():
        m = re.search(r"\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", l)
        if m and m.group(1) == name:
            return int(m.group(2), 16), int(m.group(3), 16)
def w(name, pc, b, daddr=0):
    open(os.path.join(out, name), "wb").write(struct.pack("<QQ", pc, daddr) + b)
for fn, pc in sorted(pcs.items()):
    w(fn, pc, elf)
rnd = random.Random(21)
pc = pcs["touch_param"]
for name in (".debug_info", ".debug_abbrev", ".debug_loclists", ".eh_frame"):
    s = sec(name)
    if not s:
        continue
    b = bytearray(elf)
    for _ in range(16):
        i = s[0] + rnd.randrange(s[1])
        b[i] = rnd.randrange(256)
    w("damaged" + name, pc, bytes(b))
s = sec(".text")
b = bytearray(elf)
b[s[0]:s[0] + s[1]] = bytes([0xff]) * s[1]
w("text-0xff", pc, bytes(b))
w("cut", pc, elf[: len(elf) * 2 // 3])
w("bad-elf", pc, b"\x7fELX" + elf[4:])
w("global-daddr", 0, elf, 0x5068)
PY
