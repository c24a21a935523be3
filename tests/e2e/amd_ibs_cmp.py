# SPDX-License-Identifier: MIT
"""Compare `perf report -D` IBS decoding with `hwsample dump --json --raw`, field by field.

usage: amd_ibs_cmp.py PERF_D_OUTPUT HWSAMPLE_JSONL FAMILY MODEL

Every field perf prints for an IBS sample (register values, bit fields, counts, addresses) must
be equal to the same field in hwsample's raw object; fields perf omits by rule (erratum #1293,
PhyAddrValid, DcLinAddrValid, BrnRet, RipInvalid, Zen 4 extensions) must be omitted for the
same reason in hwsample's decoding. Samples perf prints no IBS lines for (Val/En clear) must
be absent from hwsample's output. hwsample's shared fields (ip, addr, phys_addr, period, pid)
are cross-checked against what perf printed. Exits 1 with the first differences.
"""
import json
import re
import sys

TOKEN = re.compile(r"([A-Za-z][A-Za-z0-9]*) +(\d+)(\S*)")

# perf name -> (register key in raw JSON or None for top level, field name)
FETCH_CTL = {
    "MaxCnt": (None, "MaxCnt"), "Cnt": (None, "Cnt"), "Lat": ("IbsFetchCtl", "FetchLat"),
    "En": ("IbsFetchCtl", "FetchEn"), "Val": ("IbsFetchCtl", "FetchVal"),
    "Comp": ("IbsFetchCtl", "FetchComp"), "IcMiss": ("IbsFetchCtl", "IcMiss"),
    "PhyAddrValid": ("IbsFetchCtl", "PhyAddrValid"),
    "L1TlbMiss": ("IbsFetchCtl", "L1TlbMiss"), "L2TlbMiss": ("IbsFetchCtl", "L2TlbMiss"),
    "RandEn": ("IbsFetchCtl", "RandEn"), "L2Miss": ("IbsFetchCtl", "FetchL2Miss"),
    "L3MissOnly": ("IbsFetchCtl", "L3MissOnly"), "FetchOcMiss": ("IbsFetchCtl", "FetchOcMiss"),
    "FetchL3Miss": ("IbsFetchCtl", "FetchL3Miss"),
}
OP_CTL = {
    "MaxCnt": (None, "MaxCnt"), "L3MissOnly": ("IbsOpCtl", "L3MissOnly"),
    "En": ("IbsOpCtl", "OpEn"), "Val": ("IbsOpCtl", "OpVal"), "CntCtl": ("IbsOpCtl", "CntCtl"),
    "CurCnt": ("IbsOpCtl", "OpCurCnt"),
}
OP_DATA = {k: ("IbsOpData", k) for k in (
    "CompToRetCtr", "TagToRetCtr", "OpReturn", "OpBrnTaken", "OpBrnMisp", "BrnRet",
    "RipInvalid", "BrnFuse", "Microcode")}
OP_DATA2 = {"CacheHitSt": ("IbsOpData2", "CacheHitSt"), "RmtNode": ("IbsOpData2", "RmtNode"),
            "DataSrc": (None, "DataSrc")}
OP_DATA3 = {k: ("IbsOpData3", k) for k in (
    "LdOp", "StOp", "DcL1TlbMiss", "DcL2TlbMiss", "DcL1TlbHit2M", "DcL1TlbHit1G",
    "DcL2TlbHit2M", "DcMiss", "DcMisAcc", "DcWcMemAcc", "DcUcMemAcc", "DcLockedOp",
    "DcMissNoMabAlloc", "DcLinAddrValid", "DcPhyAddrValid", "DcL2TlbHit1G", "L2Miss", "SwPf",
    "OpMemWidth", "OpDcMissOpenMemReqs", "DcMissLat", "TlbRefillLat")}
EXTD = {"IbsItlbRefillLat": ("IcIbsExtdCtl", "IbsItlbRefillLat")}

# line tag -> (raw register holding the printed hex value, field table)
LINES = {
    "ibs_fetch_ctl": ("IbsFetchCtl", FETCH_CTL), "ic_ibs_ext_ctl": ("IcIbsExtdCtl", EXTD),
    "IbsFetchLinAd": ("IbsFetchLinAd", None), "IbsFetchPhysAd": ("IbsFetchPhysAd", None),
    "ibs_op_ctl": ("IbsOpCtl", OP_CTL), "IbsOpRip": ("IbsOpRip", None),
    "ibs_op_data": ("IbsOpData", OP_DATA), "ibs_op_data2": ("IbsOpData2", OP_DATA2),
    "ibs_op_data3": ("IbsOpData3", OP_DATA3), "IbsDCLinAd": ("IbsDcLinAd", None),
    "IbsDCPhysAd": ("IbsDcPhysAd", None), "IbsBrTarget": ("IbsBrTarget", None),
}
PGSZ = {"4KB": 0, "2MB": 1, "1GB": 2}
PGSZ_1347 = {"4KB": 0, "16KB": 1, "2MB": 2, "1GB": 3}
SAMPLE = re.compile(r"^(\d+) (\d+) 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE\([^)]*\): "
                    r"(-?\d+)/(-?\d+): 0x([0-9a-f]+) period: (\d+)")


def parse_perf(path):
    samples, cur = [], {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = SAMPLE.match(line)
            if m:
                samples.append({"cpu": int(m.group(1)), "time": int(m.group(2)),
                                "pid": int(m.group(3)), "ip": int(m.group(5), 16),
                                "period": int(m.group(6)), "ibs": cur})
                cur = {}
                continue
            tag, sep, rest = line.partition(":\t")
            if sep and tag in LINES:
                cur[tag] = rest
    return samples


def value(raw, key):
    reg, field = key
    obj = raw if reg is None else raw.get(reg)
    if not isinstance(obj, dict) or field not in obj:
        return None
    return obj[field]


def main():
    perf_out, jsonl, family, model = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    zen3_errata = family == 0x19 and model < 0x10
    perf = parse_perf(perf_out)
    hws = {}
    with open(jsonl) as f:
        for line in f:
            o = json.loads(line)
            hws[o["time"]] = o
    errors, fields, ibs_samples = [], 0, 0

    def err(t, msg):
        if len(errors) < 30:
            errors.append("time %d: %s" % (t, msg))

    for p in perf:
        t, ibs = p["time"], p["ibs"]
        h = hws.get(t)
        if not ibs:
            if h is not None:
                err(t, "perf shows no IBS data (invalid sample) but hwsample decoded it")
            continue
        ibs_samples += 1
        if h is None:
            err(t, "perf decoded an IBS sample that hwsample did not output")
            continue
        raw = h.get("raw", {})
        printed = set(ibs)
        for tag, text in ibs.items():
            reg, table = LINES[tag]
            hexval, _, rest = text.partition(" ")
            want = int(hexval, 16)
            got = raw.get(reg)
            got = got.get("value") if isinstance(got, dict) else got
            fields += 1
            if got is None or int(got, 16) != want:
                err(t, "%s: perf 0x%x, hwsample %s" % (tag, want, got))
            if table is None:
                continue
            for name, num, suffix in TOKEN.findall(rest):
                if name == "OpMemWidth":
                    v = value(raw, table[name])
                    fields += 1
                    if v is None or 1 << (v - 1) != int(num):
                        err(t, "OpMemWidth: perf %s bytes, hwsample field %s" % (num, v))
                    continue
                if name == "L1TlbPgSz":
                    v = value(raw, ("IbsFetchCtl", "L1TlbPgSz"))
                    table_ = PGSZ_1347 if zen3_errata else PGSZ
                    fields += 1
                    if table_.get(num + suffix) != v:
                        err(t, "L1TlbPgSz: perf %s%s, hwsample %s" % (num, suffix, v))
                    continue
                if name not in table:
                    err(t, "%s: perf prints unknown field %s" % (tag, name))
                    continue
                v = value(raw, table[name])
                fields += 1
                if v is None or int(v) != int(num):
                    err(t, "%s.%s: perf %s, hwsample %s" % (tag, name, num, v))
            if tag == "ibs_fetch_ctl" and "RESERVED" in rest:
                fields += 1
                if value(raw, ("IbsFetchCtl", "L1TlbPgSz")) != 3:
                    err(t, "L1TlbPgSz RESERVED but hwsample != 3")
        # presence rules: what perf omits, hwsample's decoding must not report either
        if "ibs_op_ctl" in ibs:
            d3 = raw.get("IbsOpData3", {})
            mem = d3.get("LdOp") or d3.get("StOp")
            rip_ok = "IbsOpRip" in printed
            if rip_ok != (raw.get("IbsOpData", {}).get("RipInvalid") == 0):
                err(t, "IbsOpRip presence differs from RipInvalid")
            if ("ibs_op_data2" in printed) == bool(raw.get("erratum_1293")):
                err(t, "op_data2 presence differs from hwsample erratum_1293")
            if rip_ok and int(h.get("ip", "0x0"), 16) != int(ibs["IbsOpRip"].split()[0], 16):
                err(t, "ip != IbsOpRip")
            if rip_ok != bool(h.get("precise")):
                err(t, "precise flag differs from RipInvalid")
            lin = "IbsDCLinAd" in printed
            if ("addr" in h) != (lin and bool(mem)):
                err(t, "addr presence: perf DcLinAddrValid %d, LdOp|StOp %d, hwsample %s" %
                    (lin, bool(mem), h.get("addr")))
            if "addr" in h and int(h["addr"], 16) != int(ibs["IbsDCLinAd"], 16):
                err(t, "addr != IbsDCLinAd")
            phys = "IbsDCPhysAd" in printed
            if ("phys_addr" in h) != (phys and bool(mem)):
                err(t, "phys_addr presence differs")
            if "phys_addr" in h and int(h["phys_addr"], 16) != int(ibs["IbsDCPhysAd"], 16):
                err(t, "phys_addr != IbsDCPhysAd")
            brt = "IbsBrTarget" in printed
            if brt != ("branch_target" in h):
                err(t, "branch_target presence differs from perf's IbsBrTarget")
            if brt and int(h["branch_target"], 16) != int(ibs["IbsBrTarget"], 16):
                err(t, "branch_target != IbsBrTarget")
            if "lat_total" not in h or h["lat_total"] != raw["IbsOpData"]["TagToRetCtr"]:
                err(t, "lat_total != TagToRetCtr")
        else:
            if int(h.get("ip", "0x0"), 16) != int(ibs["IbsFetchLinAd"], 16):
                err(t, "fetch ip != IbsFetchLinAd")
            if ("phys_addr" in h) != ("IbsFetchPhysAd" in printed):
                err(t, "fetch phys_addr presence differs from PhyAddrValid")
        if h.get("period") != p["period"] or h.get("pid") != p["pid"] or h.get("cpu") != p["cpu"]:
            err(t, "period/pid/cpu differ: perf %s hwsample %s/%s/%s" %
                (p, h.get("period"), h.get("pid"), h.get("cpu")))
        fields += 1
    if not perf or not ibs_samples:
        errors.append("no IBS samples in perf's output")
    extra = set(hws) - set(p["time"] for p in perf)
    if extra:
        errors.append("%d hwsample samples perf does not have" % len(extra))
    for e in errors:
        print("MISMATCH", e)
    print("compared %d IBS samples (%d perf samples), %d fields" % (ibs_samples, len(perf), fields))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
