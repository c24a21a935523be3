#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare the call chains of `perf script -F comm,tid,time,ip,sym,symoff,dso` (file A) and
`hwsample dump --sym` text (file B), sample by sample (both in time order): same number of
samples, and per sample the same frames: same address (as perf prints it), same dso (perf's
[kernel.kallsyms] for kernel frames), and the same symbol+offset where the frame is in the
workload or the kernel (libc/ld.so symbols have aliases that each tool may pick differently).
Prints a summary; exit 1 on any difference, with the first few shown.
usage: cc_cmp.py PERF_SCRIPT_OUT HWS_DUMP_OUT WORKLOAD_PATH [MIN_DEEP]
MIN_DEEP: at least this many samples must have a frame in the workload below main (a chain
that went through several workload functions). perf 6.1's `_init+0xOFF` for an address in a
PLT entry is first turned into the entry's name (lib/perf61_plt.py), which hwsample gives."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from perf61_plt import rewrite_line  # noqa: E402


def parse(path, fix=lambda line: line):
    samples = []
    for line in open(path, errors="replace"):
        line = fix(line.rstrip("\n"))
        if not line:
            continue
        if line.startswith("\t"):
            f = line.strip()
            addr, _, rest = f.partition(" ")
            i = rest.rfind(" (")
            sym, dso = (rest[:i], rest[i + 2:-1]) if i >= 0 else (rest, "")
            samples[-1].append((addr, sym, dso))
        else:
            samples.append([])
    return samples


def main():
    a, b, wl = parse(sys.argv[1], rewrite_line), parse(sys.argv[2]), sys.argv[3]
    min_deep = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    bad = []
    if len(a) != len(b):
        print(f"samples: perf script {len(a)}, hwsample {len(b)}")
        sys.exit(1)
    frames = deep = named = 0
    for n, (fa, fb) in enumerate(zip(a, b)):
        frames += len(fa)
        if len(fa) != len(fb):
            bad.append(f"sample {n}: {len(fa)} frames vs {len(fb)}: {fa} / {fb}")
            continue
        wl_funcs = set()
        for k, (x, y) in enumerate(zip(fa, fb)):
            if x[0] != y[0] or x[2] != y[2]:
                bad.append(f"sample {n} frame {k}: perf {x} hwsample {y}")
            elif x[2] == wl or (x[2] == "[kernel.kallsyms]" and x[1] != "[unknown]"):
                named += 1
                if x[1] != y[1]:
                    bad.append(f"sample {n} frame {k}: perf {x} hwsample {y}")
            if x[2] == wl:
                wl_funcs.add(x[1].split("+")[0])
        if len(wl_funcs - {"main"}) >= 2:
            deep += 1
    print(f"{len(a)} samples, {frames} frames, {named} named frames compared, "
          f"{deep} samples with 2+ workload functions, {len(bad)} differences")
    for m in bad[:8]:
        print("  " + m)
    if bad or not frames or deep < min_deep:
        sys.exit(1)


main()
