#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print "COLOURS NONWHITE_PERMILLE" of an 8-bit RGB/RGBA PNG (a Chromium screenshot):
the number of distinct pixel colours and the share of pixels that are not white, in 1/1000.
Decoded with zlib from the standard library (no imaging package)."""
import struct
import sys
import zlib


def main(path):
    d = open(path, "rb").read()
    if d[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(d):
        n, t = struct.unpack(">I4s", d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + n]
        if t == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                sys.exit("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif t == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours, nonwhite = set(), 0
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp):
            px = bytes(line[x:x + 3])
            colours.add(px)
            if px != b"\xff\xff\xff":
                nonwhite += 1
        prev = line
    print(len(colours), nonwhite * 1000 // (w * h))


main(sys.argv[1])
