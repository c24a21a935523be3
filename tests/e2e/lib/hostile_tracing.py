#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rewrite the HEADER_TRACING_DATA of a perf.data file (file mode) into a hostile one.

usage: hostile_tracing.py IN OUT MODE
  deep    every event format's print fmt becomes 30,000 nested parentheses (libtraceevent
          parses it recursively: without a bound before it, the stack overflows)
  names   system names get quotes, backslashes, control characters, an
          escape sequence, invalid UTF-8 and '<!--<script>' (data that must stay data)
  many    one system with 20,000 copies of its first event format
  crash   sched_switch's __print_flags(REC->prev_state ...) with 18 bytes 0x80 inside the
          field name (a fuzz_sw find: libtraceevent 1.7 dereferences NULL parsing it)
  nofield sched_switch's field prev_state declared as nrev_state, so that its print fmt's
          REC->prev_state names no field (another fuzz_sw find: the same NULL dereference)
  bracket sched_switch's "char prev_comm[" followed by a NUL byte (libtraceevent reads the
          format up to it, then calls strcmp() on a NULL token: a third fuzz_sw find)
  index   sched_switch's print fmt with "REC->prev_comm[0];" for "REC->prev_comm,": after an
          array index, an operator without a priority (';') makes libtraceevent 1.7 go on
          with a NULL argument (a SEGV: the fourth fuzz_sw find)
  ternary sched_switch's print fmt with ': "R";' for ': "R",': the same after a ternary's
          third operand (the fifth)
  divstr  sched_switch's print fmt with an argument 1/"" (libtraceevent folds the string
          as 0: SIGFPE, the sixth)
  divline sched_switch's print fmt with an argument "1\n%0" (a division by zero on the
          print fmt's second line: the seventh)
  quote   sched_switch's "char prev_comm[16']": libtraceevent's tokenizer reads the quote
          on over the next declarations, prev_state is then undeclared to it and its
          __print_flags(REC->prev_state ...) dereferences NULL (the eighth)
  strcat  sched_switch's print fmt with ': "R" "";' for ': "R",': the ternary's third
          operand two strings, which its tokenizer joins into one, then ';' (the ninth)
  tab     the same with ': "R<TAB>" ";",': its tokenizer ends "R at the tab, joins " " to
          it and goes on with ';' (found reading its tokenizer, not by the fuzzer)
The data section and every other feature section are kept byte for byte (offsets moved).
"""
import struct
import sys

# the modes that rewrite one piece of sched_switch's format: (what, with what)
REPLACE = {
    "crash": (b"__print_flags(REC->prev_state",
              b"__print_flags(REC->prev_st" + b"\x80" * 18 + b"ate"),
    "nofield": (b" prev_state;", b" nrev_state;"),
    "bracket": (b"char prev_comm[", b"char prev_comm[\0"),
    "index": (b"REC->prev_comm,", b"REC->prev_comm[0];"),
    "ternary": (b': "R",', b': "R";'),
    "divstr": (b"REC->prev_prio,", b'REC->prev_prio, 1/"",'),
    "divline": (b"REC->prev_prio,", b"REC->prev_prio, 1\n%0,"),
    "quote": (b"char prev_comm[16]", b"char prev_comm[16']"),
    "strcat": (b': "R",', b': "R" "";'),
    "tab": (b': "R",', b': "R\t" ";",'),
}

HOSTILE = b'ev"il\\\x1b[31m\x07<!--<script>alert(1)</script>,\xff\xfe\r\nX'


def parse_tracing(b):
    """list of parts: ('raw', bytes) or ('sys', name) then ('fmt', bytes) items, in order"""
    p = 10
    ver_end = b.index(b"\0", p)
    p = ver_end + 1 + 2 + 4
    out = [("raw", b[:p])]
    for _ in range(2):  # header_page, header_event
        e = b.index(b"\0", p)
        (size,) = struct.unpack_from("<Q", b, e + 1)
        out.append(("raw", b[p : e + 9 + size]))
        p = e + 9 + size
    (n,) = struct.unpack_from("<I", b, p)
    out.append(("raw", b[p : p + 4]))
    p += 4
    for _ in range(n):  # ftrace formats
        (size,) = struct.unpack_from("<Q", b, p)
        out.append(("raw", b[p : p + 8 + size]))
        p += 8 + size
    (nsys,) = struct.unpack_from("<I", b, p)
    out.append(("nsys", nsys))
    p += 4
    for _ in range(nsys):
        e = b.index(b"\0", p)
        sysname = b[p:e]
        (n,) = struct.unpack_from("<I", b, e + 1)
        p = e + 5
        fmts = []
        for _ in range(n):
            (size,) = struct.unpack_from("<Q", b, p)
            fmts.append(b[p + 8 : p + 8 + size])
            p += 8 + size
        out.append(("sys", (sysname, fmts)))
    out.append(("raw", b[p:]))
    return out


def build_tracing(parts):
    o = []
    for kind, v in parts:
        if kind == "raw":
            o.append(v)
        elif kind == "nsys":
            o.append(struct.pack("<I", v))
        else:
            name, fmts = v
            o.append(name + b"\0" + struct.pack("<I", len(fmts)))
            for f in fmts:
                o.append(struct.pack("<Q", len(f)) + f)
    return b"".join(o)


def rewrite(parts, mode):
    for i, (kind, v) in enumerate(parts):
        if kind != "sys":
            continue
        name, fmts = v
        if mode == "deep":
            n = 30000
            fmts = [f[: f.index(b"print fmt:")] + b'print fmt: "%d", ' + b"(" * n + b"1" +
                    b")" * n + b"\n" if b"print fmt:" in f else f for f in fmts]
        elif mode == "names":
            name = name + HOSTILE.replace(b"\0", b"")
        elif mode in REPLACE:
            old, new = REPLACE[mode]
            fmts = [f.replace(old, new) for f in fmts]
        elif mode == "many":
            fmts = fmts[:1] * 20000
        parts[i] = ("sys", (name, fmts))
    return parts


def main():
    src, dst, mode = sys.argv[1:4]
    b = open(src, "rb").read()
    if b[:8] != b"PERFILE2":
        sys.exit("not a perf.data file (file mode)")
    data_off, data_size = struct.unpack_from("<QQ", b, 40)
    feat = int.from_bytes(b[72:104], "little")
    bits = [i for i in range(256) if feat >> i & 1]
    if 1 not in bits:
        sys.exit("no HEADER_TRACING_DATA in " + src)
    idx = data_off + data_size
    secs = [struct.unpack_from("<QQ", b, idx + 16 * k) for k in range(len(bits))]
    payloads = [b[o : o + s] for o, s in secs]
    k = bits.index(1)
    payloads[k] = build_tracing(rewrite(parse_tracing(payloads[k]), mode))
    out = bytearray(b[:idx])
    at = idx + 16 * len(bits)
    table = b""
    for pl in payloads:
        table += struct.pack("<QQ", at, len(pl))
        at += len(pl)
    out += table + b"".join(payloads)
    open(dst, "wb").write(out)


main()
