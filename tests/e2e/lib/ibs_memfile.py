#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An IBS op recording (PERF_SAMPLE_RAW registers) as the kernel records it for perf mem.

  ibs_memfile.py IN OUT FAMILY MODEL ZEN4 < `perf report -D -i IN`
(FAMILY, MODEL: the header's cpuid; ZEN4 1 with zen4_ibs_extensions=1)

perf 6.1 makes no memory data of IBS RAW samples; the kernel does when a recording asks for
PERF_SAMPLE_ADDR, DATA_SRC and WEIGHT_STRUCT (Linux arch/x86/events/amd/ibs.c,
perf_ibs_parse_ld_st_data(), the rules below). This writes IN with those three fields added to every sample, their values made here
from the registers perf -D prints (data3's fields by their bits, checked against the values perf
prints beside them; data2's DataSrc, RmtNode and CacheHitSt by their bits), so that perf
report --mem-mode on OUT shows what perf
would on a kernel-written recording of the same samples:
  - mem_op from LdOp/StOp; another op keeps PERF_MEM_NA, no address, no weight;
  - level: DcUcMemAcc (not I/O) uncached; !DcMiss L1; !L2Miss L2 (erratum #1293 on family
    0x19 models 0-0xf: not with SwPf or DcMissNoMabAlloc, which also void data2); loads by
    DataSrc (Zen 4: the 5-bit code), RmtNode making DRAM (Zen 4: also PMEM, CXL) remote;
    else DcMissNoMabAlloc LFB, else N/A;
  - snoop HITM for loads beyond L2 with CacheHitSt 0 from a cache source (not on family 0x19
    models 0-0xf and 0x20-0x5f); dTLB when DcLinAddrValid (and, with the OpDtlbPgSize
    capability, DcPhyAddrValid); lock from DcLockedOp;
  - weight (loads with DcMiss): DcMissLat, TagToRetCtr as var2; address IbsDCLinAd when
    DcLinAddrValid.
The file's attrs get the three sample_type bits; records, their order and every other byte stay
(the feature sections move by the bytes added). Exit 1 on a file it does not expect.
"""
import re
import struct
import sys

ADDR, DATA_SRC, WEIGHT_STRUCT = 1 << 3, 1 << 15, 1 << 24
# the generator's sample_type: IDENTIFIER | IP | TID | TIME | CPU | PERIOD | RAW
EXPECT = (1 << 16) | (1 << 0) | (1 << 1) | (1 << 2) | (1 << 7) | (1 << 8) | (1 << 10)

# union perf_mem_data_src (Linux include/uapi/linux/perf_event.h)
OP_LOAD, OP_STORE = 0x02, 0x04
LVL = {"NA": 0x01, "HIT": 0x02, "L1": 0x08, "LFB": 0x10, "L2": 0x20, "L3": 0x40,
       "LOC_RAM": 0x80, "REM_RAM1": 0x100, "REM_CCE1": 0x400, "REM_CCE2": 0x800,
       "IO": 0x1000, "UNC": 0x2000}
LN = {"L1": 1, "L2": 2, "L3": 3, "CXL": 9, "IO": 0xa, "ANY_CACHE": 0xb, "LFB": 0xc,
      "RAM": 0xd, "PMEM": 0xe, "NA": 0xf, "UNC": 8}
PERF_MEM_NA = 0x5080021


def lvl(*names):
    v = LVL["HIT"]
    for n in names:
        v |= LVL[n]
    return v << 5


def lnum(n):
    return LN[n] << 33


REMOTE = 1 << 37


def hops(n):
    """PERF_MEM_HOPS_n: 0 is 1 (remote core, same node), 1 is 2, ..."""
    return (n + 1) << 43


# DataSrc codes: legacy (3 bits) and Zen 4 (5 bits), loads only
LEGACY = {2: lvl("L3", "REM_CCE1") | lnum("ANY_CACHE") | hops(0),
          3: lvl("LOC_RAM") | lnum("RAM"),
          4: lvl("REM_CCE2") | lnum("ANY_CACHE") | REMOTE | hops(1),
          7: lvl("IO") | lnum("IO")}
LEGACY_RMT = {3}
ZEN4 = {1: lvl("L3") | lnum("L3"),
        2: lvl("REM_CCE1") | lnum("ANY_CACHE") | REMOTE | hops(0),
        3: lvl("LOC_RAM") | lnum("RAM"),
        5: lvl("REM_CCE2") | lnum("ANY_CACHE") | REMOTE | hops(1),
        6: lnum("PMEM"),
        7: lvl("IO") | lnum("IO"),
        8: lnum("CXL")}
ZEN4_RMT = {3, 6, 8}
REM_DRAM = lvl("REM_RAM1") | lnum("RAM") | REMOTE | hops(1)


def mem_fields(r, fam, model, zen4, pgsize):
    """(data_src, addr, weight) of one sample's registers (dict of perf -D's fields)"""
    d3 = r["data3"]
    load, store = d3["LdOp"], d3["StOp"]
    if not load and not store:
        return PERF_MEM_NA, 0, 0
    ds = (PERF_MEM_NA & ~0x1F) | (OP_LOAD if load else OP_STORE)
    err1293 = fam == 0x19 and model <= 0xF and (d3["SwPf"] or d3["DcMissNoMabAlloc"])
    d2 = 0 if err1293 else r["data2"]
    src = ((d2 >> 6) & 3) << 3 | (d2 & 7) if zen4 else d2 & 7
    rmt = (d2 >> 4) & 1
    # level (lvl and lvl_num cleared, the value or'ed in, as perf_ibs_get_data_src())
    ds &= ~(0x3FFF << 5 | 0xF << 33)
    if d3["DcUcMemAcc"] and src != 7:
        v = lvl("UNC") | lnum("UNC")
    elif not d3["DcMiss"]:
        v = lvl("L1") | lnum("L1")
    elif not d3["L2Miss"] and not err1293:
        v = lvl("L2") | lnum("L2")
    else:
        table, rmt_ok = (ZEN4, ZEN4_RMT) if zen4 else (LEGACY, LEGACY_RMT)
        v = table.get(src, 0) if load else 0
        if v and rmt and src in rmt_ok:
            v = REM_DRAM if src == 3 else v | REMOTE | hops(1)
        if not v:
            v = lvl("LFB") | lnum("LFB") if d3["DcMissNoMabAlloc"] else LVL["NA"] << 5 | lnum("NA")
    ds |= v
    lvlbits = (ds >> 5) & 0x3FFF
    hit_st_ok = not (fam == 0x19 and (model <= 0xF or 0x20 <= model <= 0x5F))
    if hit_st_ok and load and not lvlbits & (LVL["L1"] | LVL["L2"]) and not (d2 >> 5) & 1:
        if (zen4 and src in (1, 2, 5)) or (not zen4 and src == 2):
            ds = (ds & ~(0x1F << 19)) | (0x10 << 19)  # SNOOP_HITM
    if d3["DcLinAddrValid"] and (not pgsize or d3["DcPhyAddrValid"]):
        # PERF_MEM_TLB_: HIT 0x02, MISS 0x04, L1 0x08, L2 0x10
        t = 0x0A if not d3["DcL1TlbMiss"] else 0x12 if not d3["DcL2TlbMiss"] else 0x14
        ds = (ds & ~(0x7F << 26)) | (t << 26)
    if d3["DcLockedOp"]:
        ds = (ds & ~(0x3 << 24)) | (0x2 << 24)  # PERF_MEM_LOCK_LOCKED
    addr = r.get("linad", 0) if d3["DcLinAddrValid"] else 0
    weight = 0
    if load and d3["DcMiss"]:
        weight = d3["DcMissLat"] | r["tag_to_ret"] << 32
    return ds, addr, weight


# IbsOpData3 (AMD PPR; Linux union ibs_op_data3): name (as perf -D prints it): (bit, width)
D3 = {"LdOp": (0, 1), "StOp": (1, 1), "DcL1TlbMiss": (2, 1), "DcL2TlbMiss": (3, 1),
      "DcMiss": (7, 1), "DcUcMemAcc": (14, 1), "DcLockedOp": (15, 1),
      "DcMissNoMabAlloc": (16, 1), "DcLinAddrValid": (17, 1), "DcPhyAddrValid": (18, 1),
      "L2Miss": (20, 1), "SwPf": (21, 1), "DcMissLat": (32, 16)}


def parse_dump(lines):
    """per record offset, the registers perf -D decoded"""
    recs, cur = {}, None
    for line in lines:
        m = re.match(r"^(0x[0-9a-f]+)@\S+ \[0x[0-9a-f]+\]: event: 9$", line.rstrip())
        if m:
            cur = recs.setdefault(int(m.group(1), 16), {})
            continue
        if cur is None:
            continue
        if line.startswith("ibs_op_data3:"):
            f = line.split()
            v = int(f[1], 16)
            d3 = {name: (v >> bit) & ((1 << width) - 1) for name, (bit, width) in D3.items()}
            # perf's names for the fields it prints (not all: Zen 3 has no L2Miss there)
            for i in range(2, len(f) - 1):
                if f[i] in D3 and f[i + 1].isdigit() and int(f[i + 1]) != d3[f[i]]:
                    raise SystemExit("ibs_memfile.py: %s: perf says %s, the bits %d"
                                     % (f[i], f[i + 1], d3[f[i]]))
            cur["data3"] = d3
        elif line.startswith("ibs_op_data2:"):
            cur["data2"] = int(line.split()[1], 16)
        elif line.startswith("ibs_op_data:"):
            cur["tag_to_ret"] = int(re.search(r"TagToRetCtr\s+(\d+)", line).group(1))
        elif line.startswith("IbsDCLinAd:"):
            cur["linad"] = int(line.split()[1], 16)
    return recs


def main():
    src, dst = sys.argv[1], sys.argv[2]
    regs = parse_dump(sys.stdin)
    b = bytearray(open(src, "rb").read())
    if b[:8] != b"PERFILE2":
        raise SystemExit("ibs_memfile.py: %s: not a perf.data file" % src)
    attr_size, a_off, a_size, d_off, d_size = struct.unpack_from("<Q QQ QQ", b, 16)
    feat_bits = struct.unpack_from("<4Q", b, 72)
    # the family, model and Zen 4 extensions: perf's header text, given on the command line
    fam, model = int(sys.argv[3]), int(sys.argv[4])
    zen4 = sys.argv[5] == "1"
    for off in range(a_off, a_off + a_size, attr_size):
        st = struct.unpack_from("<Q", b, off + 24)[0]
        if st != EXPECT:
            raise SystemExit("ibs_memfile.py: sample_type %#x, not the generator's" % st)
        struct.pack_into("<Q", b, off + 24, st | ADDR | DATA_SRC | WEIGHT_STRUCT)
    out = bytearray()
    p, end, n = d_off, d_off + d_size, 0
    while p < end:
        typ, misc, size = struct.unpack_from("<IHH", b, p)
        rec = bytes(b[p:p + size])
        if typ == 9:
            r = regs.get(p)
            if not r or "data3" not in r:
                raise SystemExit("ibs_memfile.py: no ibs_op_data3 for the sample at %#x" % p)
            ident, ip, pidtid, time, cpu, period = struct.unpack_from("<QQQQQQ", rec, 8)
            rawsz = struct.unpack_from("<I", rec, 56)[0]
            raw = rec[56:60 + rawsz]
            caps = struct.unpack_from("<I", raw, 4)[0]
            ds, addr, weight = mem_fields(r, fam, model, zen4, caps & (1 << 19))
            body = struct.pack("<QQQQQQQ", ident, ip, pidtid, time, addr, cpu, period)
            body += raw + struct.pack("<QQ", weight, ds)
            rec = struct.pack("<IHH", typ, misc, 8 + len(body)) + body
            n += 1
        out += rec
        p += size
    delta = len(out) - d_size
    tail = bytearray(b[end:])
    nfeat = sum(bin(x).count("1") for x in feat_bits)
    for i in range(nfeat):
        o, s = struct.unpack_from("<QQ", tail, 16 * i)
        struct.pack_into("<QQ", tail, 16 * i, o + delta, s)
    struct.pack_into("<Q", b, 48, len(out))  # data.size
    open(dst, "wb").write(bytes(b[:d_off]) + bytes(out) + bytes(tail))
    print("%d samples with ADDR, WEIGHT_STRUCT and DATA_SRC" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
