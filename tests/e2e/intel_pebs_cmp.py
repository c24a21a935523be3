#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare hwsample's decoding of PEBS-style samples with perf's, sample by sample.

usage: intel_pebs_cmp.py PERF_REPORT_D PERF_SCRIPT HWS_JSONL [FLAGS]

PERF_REPORT_D: `perf report -D` output (raw values: time, cpu, pid/tid, misc, ip, period, addr,
  weight var1,var2,var3 or plain weight, data_src hex, phys_addr, page sizes).
PERF_SCRIPT: `perf script -F event,tid,cpu,ip,addr,data_src,weight,ins_lat,phys_addr` (perf's
  decoded data source text, and the weight / ins_lat perf derives from WEIGHT_STRUCT);
  FLAGS (comma list): "plain" for files with PERF_SAMPLE_WEIGHT (no ins_lat column),
  "nophys" for files without PERF_SAMPLE_PHYS_ADDR (no phys_addr column).
HWS_JSONL: `hwsample dump --json --raw`.

The decoded data source is compared by mapping perf's text onto hwsample's normalized
classes (mem_level, snoop, tlb, op) with the precedence documented in core/util/datasrc.c; for
level texts outside the kernel's tables (random data_src values) only the raw value and the
bit-level checks (op, snoop, tlb, lock, blk) are compared.
"""
import json
import re
import sys

SAMPLE_RE = re.compile(
    r"^(\d+) (\d+) 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE\(IP, (0x[0-9a-f]+)\): "
    r"(\d+)/(\d+): (0x[0-9a-f]+) period: (\d+) addr: (0x[0-9a-f]+)")


def parse_report_d(path):
    out = []
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            m = SAMPLE_RE.match(line)
            if m:
                cur = dict(cpu=int(m[1]), time=int(m[2]), misc=int(m[3], 16), pid=int(m[4]),
                           tid=int(m[5]), ip=int(m[6], 16), period=int(m[7]),
                           addr=int(m[8], 16))
                out.append(cur)
                continue
            if cur is None:
                continue
            s = line.strip()
            if s.startswith("... weight:"):
                parts = s.split(":", 1)[1].strip().split(",")
                if len(parts) == 3:
                    cur["var"] = (int(parts[0], 0), int(parts[1], 16), int(parts[2], 16))
                else:
                    cur["weight"] = int(parts[0], 0)
            elif s.startswith(". data_src:"):
                cur["data_src"] = int(s.split(":", 1)[1], 16)
            elif s.startswith(".. phys_addr:"):
                cur["phys"] = int(s.split(":", 1)[1], 16)
            elif s.startswith(".. data page size:"):
                cur["dps"] = s.split(":", 1)[1].strip()
            elif s.startswith(".. code page size:"):
                cur["cps"] = s.split(":", 1)[1].strip()
    return out


def parse_script(path, plain, nophys):
    """perf prints the decoded data source into a fixed-width buffer, so for odd values the
    text is cut short; fields that may be cut are left out (None)."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            if "|OP " not in line:
                continue
            head, rest = line.split("|OP ", 1)
            nn = 4 - bool(plain) - bool(nophys)
            nums = rest.split()[-nn:]
            if plain:
                nums.insert(1, "0")
            if nophys:
                nums.append("0")
            text = "OP " + rest.rsplit(None, nn)[0]
            hm = re.match(r"\s*(\d+)\s+\[(\d+)\]\s+(.*?):\s+([0-9a-f]+)\s+([0-9a-f]+)\s*$", head)
            if not hm:
                raise SystemExit("cannot parse perf script line: " + line)
            d = dict(tid=int(hm[1]), cpu=int(hm[2]), event=hm[3], addr=int(hm[4], 16),
                     data_src=int(hm[5], 16))
            d["weight"], d["ins_lat"] = int(nums[0]), int(nums[1])
            d["ip"], d["phys"] = int(nums[2], 16), int(nums[3], 16)
            fields = text.split("|")
            # perf's builtin-script.c data_src__fprintf: "%16x %s" into char[100], so the decoded
            # text holds at most 82 characters ("|OP ..."); within a word (6 chars) of
            # that the last field may be cut (its trailing blanks look like padding)
            complete = fields if len(fields) >= 6 and len(text) + 1 < 82 - 6 else fields[:-1]
            for k in ("OP", "LVL", "SNP", "TLB", "LCK", "BLK"):
                d[k] = None
            for fl in complete:
                k, _, v = fl.partition(" ")
                if k in d:
                    d[k] = v.strip()
            out.append(d)
    return out


def exp_op(t):
    toks = t.split(" or ")
    for name, cls in (("LOAD", "load"), ("STORE", "store"), ("PFETCH", "load"), ("EXEC", "other")):
        if name in toks:
            return cls
    return "unknown"


def exp_snoop(t):
    toks = t.split(" or ")
    if "HitM" in toks:
        return "hitm"
    if "Peer" in toks:
        return "peer"
    if "Hit" in toks or "Fwd" in toks:
        return "hit"
    if "Miss" in toks:
        return "miss"
    if "None" in toks:
        return "none"
    return "unknown"


def exp_tlb(t):
    words = t.replace(" or ", " ").split()
    if "miss" in words:
        return "miss"
    if "hit" in words:
        l1, l2 = "L1" in words, "L2" in words
        if l1 and not l2:
            return "l1_hit"
        if l2 and not l1:
            return "l2_hit"
        return "hit"
    return "unknown"


NUM_CLASS = {"L1": "l1", "LFB/MAB": "lfb", "L2": "l2", "L3": "l3", "L4": "l3",
             "Any cache": "l3", "RAM": "dram"}
LVL_CLASS = {"L1": "l1", "LFB/MAB": "lfb", "L2": "l2", "L3": "l3", "Local RAM": "dram",
             "Remote RAM (1 hop)": "rdram", "Remote RAM (2 hops)": "rdram",
             "Remote Cache (1 hop)": "rcache", "Remote Cache (2 hops)": "rcache",
             "I/O": "io", "Uncached": "uncached"}


def exp_level(t, snp):
    """perf 6.1 LVL text (and SNP text, for SNOOPX_PEER) -> hwsample mem_level, or None when
    the text is not one the kernel's tables produce."""
    lvl = exp_level_text(t)
    if lvl in ("l1", "l2", "l3") and "Peer" in (snp or "").split(" or "):
        return "peer_cache"  # a local cache level served by a peer (core/util/datasrc.c)
    return lvl


def exp_level_text(t):
    if t.endswith(" miss"):
        return "unknown" if " hit" not in t else None
    if not t.endswith(" hit"):
        return None
    t = t[:-4]
    remote = t.startswith("Remote ")
    if remote:
        t = t[len("Remote "):]
    lvl, _, num = t.rpartition(" or ")
    if not _:
        lvl, num = "", t
    if num in NUM_CLASS:
        c = NUM_CLASS[num]
        if c == "dram":
            return "remote_dram" if remote else "local_dram"
        if c in ("l2", "l3") and remote:
            return "remote_cache"
        return c
    if num not in ("N/A", "") and lvl:
        return None
    key = lvl if lvl else num
    if key not in LVL_CLASS:
        return None
    c = LVL_CLASS[key]
    return {"dram": "remote_dram" if remote else "local_dram", "rdram": "remote_dram",
            "rcache": "remote_cache"}.get(c, c)


def main():
    rep = parse_report_d(sys.argv[1])
    flags = sys.argv[4].split(",") if len(sys.argv) > 4 else []
    scr = parse_script(sys.argv[2], "plain" in flags, "nophys" in flags)
    with open(sys.argv[3]) as f:
        hws = [json.loads(line) for line in f if line.strip()]
    # hwsample dump keeps file order; perf sorts samples by time (stable)
    hws.sort(key=lambda h: h.get("time", 0))
    errors = []
    if not (len(rep) == len(scr) == len(hws)):
        print("FAIL: counts differ: report -D %d, script %d, hwsample %d"
              % (len(rep), len(scr), len(hws)))
        return 1
    lvl_checked = 0

    def err(i, what, got, want):
        if len(errors) < 20:
            errors.append("sample %d: %s: hwsample %r, perf %r" % (i, what, got, want))
        else:
            errors.append(None)

    for i, (r, s, h) in enumerate(zip(rep, scr, hws)):
        raw = h.get("raw", {})
        for k in ("time", "cpu", "pid", "tid", "period"):
            if h.get(k) != r[k]:
                err(i, k, h.get(k), r[k])
        if int(h.get("ip", "0x0"), 16) != r["ip"]:
            err(i, "ip", h.get("ip"), hex(r["ip"]))
        if h.get("precise", False) != bool(r["misc"] & 0x4000):
            err(i, "precise", h.get("precise"), hex(r["misc"]))
        if int(h.get("addr", "0x0"), 16) != r["addr"]:
            err(i, "addr", h.get("addr"), hex(r["addr"]))
        if int(h.get("phys_addr", "0x0"), 16) != r.get("phys", 0):
            err(i, "phys_addr", h.get("phys_addr"), hex(r.get("phys", 0)))
        if s["phys"] != r.get("phys", 0):
            err(i, "script phys vs -D", s["phys"], r.get("phys", 0))
        if h.get("data_src", 0) != r["data_src"] or s["data_src"] != r["data_src"]:
            err(i, "data_src", h.get("data_src"), (r["data_src"], s["data_src"]))
        if h.get("event") != s["event"]:
            err(i, "event", h.get("event"), s["event"])
        # weights
        if "var" in r:
            v1, v2, v3 = r["var"]
            full = v1 | v2 << 32 | v3 << 48
            if (raw.get("var1"), raw.get("var2"), raw.get("var3")) != (v1, v2, v3):
                err(i, "weight parts", (raw.get("var1"), raw.get("var2"), raw.get("var3")),
                    r["var"])
        else:
            full = r["weight"]
            if "var1" in raw and raw.get("var1") != full & 0xffffffff:
                err(i, "var1 of a plain weight", raw.get("var1"), full)
        if raw.get("weight") != full:
            err(i, "raw weight", raw.get("weight"), full)
        if h.get("lat_total", 0) != s["weight"]:
            err(i, "lat_total vs perf script weight", h.get("lat_total", 0), s["weight"])
        if h.get("lat_ins", 0) != s["ins_lat"]:
            err(i, "lat_ins vs perf script ins_lat", h.get("lat_ins", 0), s["ins_lat"])
        for k, pk in (("data_page_size", "dps"), ("code_page_size", "cps")):
            if pk in r:
                want = {"4K": 4096, "2M": 2 << 20, "1G": 1 << 30, "1024M": 1 << 30}.get(r[pk])
                if raw.get(k) != want:
                    err(i, k, raw.get(k), r[pk])
        # decoded data source
        op_bits = r["data_src"] & 0x1f
        # perf prints N/A when the NA bit is set, whatever else is; the kernel never sets
        # NA together with another op, so such random values are not compared
        ambiguous_op = (op_bits & 1) and (op_bits & ~1)
        if s["OP"] is not None and not ambiguous_op and \
                h.get("op", "unknown") != exp_op(s["OP"]):
            err(i, "op", h.get("op"), s["OP"])
        if s["SNP"] is not None and h.get("snoop", "unknown") != exp_snoop(s["SNP"]):
            err(i, "snoop", h.get("snoop"), s["SNP"])
        if s["TLB"] is not None and h.get("tlb", "unknown") != exp_tlb(s["TLB"]):
            err(i, "tlb", h.get("tlb"), s["TLB"])
        fields = raw.get("data_src_fields", {})
        # perf prints N/A when a field's NA bit is set, whatever else is set: such
        # combinations (never written by the kernel) are only compared as raw values
        lock_bits = r["data_src"] >> 24 & 3
        blk_bits = r["data_src"] >> 40 & 7
        if s["LCK"] is not None and lock_bits != 3 and \
                ("LOCKED" in fields.get("mem_lock", [])) != (s["LCK"] == "Yes"):
            err(i, "lock", fields.get("mem_lock"), s["LCK"])
        blk = fields.get("mem_blk", [])
        want_blk = set((s["BLK"] or "").split()) - {"N/A"}
        got_blk = {b.capitalize() for b in blk if b != "NA"}
        if s["BLK"] is not None and not ((blk_bits & 1) and (blk_bits & 6)) and \
                got_blk != want_blk:
            err(i, "blk", blk, s["BLK"])
        lvl = exp_level(s["LVL"], s["SNP"]) if s["LVL"] is not None else None
        if s["SNP"] is None and lvl in ("l1", "l2", "l3"):
            lvl = None  # peer unknown: SNP text cut
        if lvl is not None:
            lvl_checked += 1
            if h.get("mem_level", "unknown") != lvl:
                err(i, "mem_level", h.get("mem_level"), s["LVL"])
    if errors:
        for e in errors:
            if e:
                print("  " + e)
        print("FAIL: %d mismatches in %d samples" % (len(errors), len(hws)))
        return 1
    print("ok: %d samples equal (%d with a kernel-table level checked)" % (len(hws), lvl_checked))
    return 0


if __name__ == "__main__":
    sys.exit(main())
