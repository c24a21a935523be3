#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perf 6.1's name for an address in a program's PLT, turned into the entry's own name.

A program's _init (crti.o's, with no size) is extended by perf 6.1 up to the next symbol, over
.plt; the synthesized NAME@plt symbols overlap it, and which of the two perf's symbol tree
finds first depends on the tree's shape, so perf 6.1 prints `_init+0xOFF` for some entries of a
build and `NAME@plt+0xOFF` for others. hwsample names the entry, as objdump and newer perf do.

rewrite_line() turns perf's `_init+0xOFF (FILE)` into `NAME@plt+0xOFF2 (FILE)` when objdump -d
of FILE labels that address NAME@plt (the entry: from its label up to the next label); any
other line is returned as it is. Used on perf's side only, so hwsample's lines must equal the
result: a hwsample that printed _init+0xOFF there would differ.

As a filter: perf61_plt.py < perf-script-output > rewritten; with --srcline FILE, perf
report --sort srcline's `_init+OFF` rows of FILE (rewrite_srcline())."""
import re
import subprocess
import sys

_PAT = re.compile(r"(?<=\s)_init\+0x([0-9a-f]+) \(([^()]+)\)$")
_LABEL = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_cache = {}


def _labels(path):
    """(address, label) of every label in FILE's .init and PLT sections, sorted; None when
    objdump cannot read it or it has no _init."""
    if path not in _cache:
        try:
            out = subprocess.run(
                ["objdump", "-d", "--no-show-raw-insn", "-j", ".init", "-j", ".plt",
                 "-j", ".plt.sec", "-j", ".plt.got", path],
                capture_output=True, text=True, check=False).stdout
        except OSError:
            out = ""
        labels = sorted((int(m.group(1), 16), m.group(2))
                        for m in map(_LABEL.match, out.splitlines()) if m)
        _cache[path] = labels if any(n == "_init" for _, n in labels) else None
    return _cache[path]


def _entry(path, init_off):
    """(NAME@plt, offset in it) of the address _init + @init_off of @path, or None"""
    labels = _labels(path)
    if not labels:
        return None
    init = next(a for a, n in labels if n == "_init")
    addr = init + init_off
    for (start, name), nxt in zip(labels, labels[1:] + [(None, None)]):
        if start <= addr < (start + 16 if nxt[0] is None else nxt[0]):
            return (name, addr - start) if name.endswith("@plt") else None
    return None


def rewrite_line(line):
    m = _PAT.search(line)
    e = m and _entry(m.group(2), int(m.group(1), 16))
    if not e:
        return line
    return line[:m.start()] + f"{e[0]}+0x{e[1]:x} ({m.group(2)})"


_SRCLINE = re.compile(r"(?<=\s)_init\+([0-9]+)(\s*)$")


def rewrite_srcline(line, path):
    """perf report --sort srcline's row `_init+OFF` (decimal: perf's SYM+OFFSET where addr2line
    finds nothing) of a file @path as `NAME@plt+OFF2` where objdump labels the entry"""
    m = _SRCLINE.search(line)
    e = m and _entry(path, int(m.group(1)))
    if not e:
        return line
    return line[:m.start()] + f"{e[0]}+{e[1]}" + m.group(2)


if __name__ == "__main__":
    # perf61_plt.py [--srcline FILE] < perf output > rewritten
    src = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "--srcline" else None
    for ln in sys.stdin:
        end = "\n" if ln.endswith("\n") else ""
        ln = ln.rstrip("\n")
        sys.stdout.write((rewrite_srcline(ln, src) if src else rewrite_line(ln)) + end)
