#!/bin/bash
# SPDX-License-Identifier: MIT
# Seed corpus of fuzz_inline (tests/fuzz/fuzz_inline.c: u64 address, then the ELF file mapped
# whole at 0x555555554000): the callchain_nofp workload (-O1 -g: cc_mix inlined into cc_leaf
# and cc_cmp) and a small program with two levels of always_inline functions (-O2 -g, built
# here), each at an address that `addr2line -i` says is inside an inlined body (the deepest
# one found), and damaged copies of the nested program: bytes of .debug_info, .debug_abbrev,
# .debug_line, .debug_aranges, .debug_rnglists and .symtab overwritten, the file cut short, a
# bad ELF header.
# Usage: make_inline_corpus.sh BUILD_DIR
set -e
b=${1:?usage: make_inline_corpus.sh BUILD_DIR}
out=$(dirname "$0")/corpus/inline
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
cat >"$tmp/nested.c" <<'EOF'
static volatile int sink;
static inline __attribute__((always_inline)) int inner(int x)
{
	sink += x * 3;
	return sink ^ x;
}
static inline __attribute__((always_inline)) int middle(int x)
{
	int a = inner(x + 1);
	sink += a;
	return a + inner(x * 5);
}
__attribute__((noinline)) int outer(int x)
{
	int r = middle(x);
	sink -= r;
	return r;
}
int main(int argc, char **argv)
{
	(void)argv;
	return outer(argc) & 1;
}
EOF
cc -O2 -g -fPIE -pie -o "$tmp/nested" "$tmp/nested.c"
python3 - "$out" "$tmp/nested" "$b/tests/workloads/callchain_nofp" <<'PY'
import os, random, re, struct, subprocess, sys
out, nested, wl = sys.argv[1:]
BASE = 0x555555554000

def run(*a, inp=None):
    return subprocess.run(a, input=inp, capture_output=True, text=True, check=True).stdout

def bias(path):
    # the first LOAD maps file offset 0: address = BASE + v - (its vaddr - its offset)
    for l in run("readelf", "-lW", path).splitlines():
        m = re.match(r"\s+LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)", l)
        if m:
            return BASE - int(m.group(2), 16) + int(m.group(1), 16)

def deepest(path, fn):
    """the address of @fn with the longest addr2line -i chain"""
    for l in run("nm", "-S", "--defined-only", path).splitlines():
        p = l.split()
        if len(p) == 4 and p[3] == fn:
            start, size = int(p[0], 16), int(p[1], 16)
    addrs = "".join("0x%x\n" % a for a in range(start, start + size))
    best, cur, depth = (0, start), None, 0
    for l in run("addr2line", "-i", "-f", "-a", "-e", path, inp=addrs).splitlines():
        if l.startswith("0x"):
            cur, depth = int(l, 16), 0
        elif ":" in l:
            depth += 1
            best = max(best, (depth, -cur))
    return -best[1], best[0]

def sec(path, name):
    for l in run("readelf", "-SW", path).splitlines():
        m = re.search(r"\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", l)
        if m and m.group(1) == name:
            return int(m.group(2), 16), int(m.group(3), 16)

def w(name, addr, b):
    open(os.path.join(out, name), "wb").write(struct.pack("<Q", addr) + b)

elf = open(nested, "rb").read()
a, d = deepest(nested, "outer")
assert d >= 3, "no two-level inlining in the nested program"
addr = bias(nested) + a
w("nested", addr, elf)
for fn in ("cc_leaf", "cc_cmp"):
    a, d = deepest(wl, fn)
    assert d >= 2, "no inlining in " + fn
    w("callchain_nofp-" + fn, bias(wl) + a, open(wl, "rb").read())
rnd = random.Random(19)
for name in (".debug_info", ".debug_abbrev", ".debug_line", ".debug_aranges",
             ".debug_rnglists", ".symtab"):
    s = sec(nested, name)
    if not s:
        continue
    b = bytearray(elf)
    for _ in range(12):
        b[s[0] + rnd.randrange(s[1])] = rnd.randrange(256)
    w("damaged" + name, addr, bytes(b))
w("cut", addr, elf[: len(elf) * 2 // 3])
w("bad-elf", addr, b"\x7fELX" + elf[4:])
PY
