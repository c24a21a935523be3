#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Compare `perf script -F ip,sym [--no-inline]` with `test_unwind --dwarf-names [--no-inline]`
on the same perf.data (tests/e2e/decode_unwind.sh). Usage: decode_unwind_cmp.py PERF OURS EXE

Per sample (both in time order, blank-line separated), frame by frame:
  - the ip (dso-relative) of every frame must be equal: that is the unwinder's output;
  - inline entries ("name (inlined)") must be equal;
  - a frame's own function must be our ELF symbol name or our DWARF name. perf takes the
    name of a frame with inline data from addr2line, which gives the DWARF name ("foo" for
    the ELF symbol "foo.part.0") and marks it "(inlined)" when it differs from perf's ELF
    symbol; without inline data perf prints its ELF symbol;
  - in the workload EXE the names must be exactly these (but for a PLT entry, which perf 6.1
    may call _init, its _init covering the PLT: ours must then be NAME@plt); in other files
    (libc, ld.so) a different name for the same ip is counted, not failed: which alias of a symbol
    (qsort_r / __qsort_r / __GI___qsort_r) or versioned name is shown is the symbolizer's
    choice (core/symbols), not the unwinder's.
Prints a summary; exit 1 with the first differences when any check fails.
"""
import sys


def samples(path):
    out, cur = [], None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            if cur:
                out.append(cur)
            cur = None
            continue
        ip, _, rest = line.strip().partition(" ")
        if cur is None:
            cur = []
        cur.append((ip, rest.rstrip()))
    if cur:
        out.append(cur)
    return out


def main():
    perf, ours, exe = samples(sys.argv[1]), samples(sys.argv[2]), sys.argv[3]
    bad, alias, frames, inl, plt = [], 0, 0, 0, 0
    if len(perf) != len(ours):
        print(f"samples: perf {len(perf)}, ours {len(ours)}")
        return 1
    for n, (ps, us) in enumerate(zip(perf, ours)):
        if len(ps) != len(us):
            bad.append(f"sample {n}: {len(ps)} frames in perf, {len(us)} ours\n  perf {ps}\n  ours {us}")
            continue
        for (pip, pname), (uip, uname) in zip(ps, us):
            frames += 1
            if pip != uip:
                bad.append(f"sample {n}: ip {pip} in perf, {uip} ours")
                break
            if uname.endswith(" (inlined)"):
                inl += 1
                if pname != uname:
                    bad.append(f"sample {n} ip {uip}: perf '{pname}', ours '{uname}'")
                continue
            elf, dwarf, dso = (uname.split("|") + ["", ""])[:3]
            pn = pname[:-len(" (inlined)")] if pname.endswith(" (inlined)") else pname
            if pn == elf or (pn == dwarf and (pname != pn or pn == elf)):
                continue
            if dso == exe and pname == "_init" and elf.endswith("@plt"):
                # perf 6.1's _init covers the PLT (lib/perf61_plt.py); ours names the entry
                plt += 1
                continue
            if dso == exe:
                bad.append(f"sample {n} ip {uip} in {exe}: perf '{pname}', ours '{uname}'")
            else:
                alias += 1
    print(f"{len(perf)} samples, {frames} frames ({inl} inline) compared; "
          f"{alias} names of other files differ (aliases); {plt} PLT entries perf 6.1 calls _init; "
          f"{len(bad)} differences")
    for b in bad[:20]:
        print(b)
    return 1 if bad else 0


sys.exit(main())
