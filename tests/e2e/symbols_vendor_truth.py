#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
symbols_vendor_truth.py: the samples and their ground truth for tests/e2e/symbols_vendor_truth.sh.

  symbols_vendor_truth.py plan WORKLOAD OUTPUT REAL_JSON SAMPLES TRUTH
      From the binary (objdump -d, nm -S: nothing hard-coded but the workload's design),
      the workload's output (its "expect" lines: the type and field each function touches;
      "block NAME ADDRESS": where its heap blocks and g_pairs are) and the page-fault
      recording's dump (REAL_JSON: the process, a time when every block is live, the stack
      pointer of touch_stack), write SAMPLES (gen_c2c -S: "TIME PID TID IP ADDR load|store")
      and TRUTH (one JSON line per sample: ip, addr, the object's kind, label, size, offset,
      the type's name, offset, field).
  symbols_vendor_truth.py dump TRUTH DUMP_JSON
      Every sample of the dump, in order, has the truth's ip, addr, object and type.
  symbols_vendor_truth.py report TRUTH REPORT KEY
      KEY object: the rows of report --sort sample,object,offset ("N  [kind] label (size
      bytes)  offset") are the truth's counts; KEY type: of --sort sample,type,typeoff.
  symbols_vendor_truth.py tags TRUTH TAGS
      go tool pprof -tags: the counts of the object, type and typeoff labels are the truth's.
"""
import collections
import json
import re
import subprocess
import sys

MEMOP = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s+(.*?)\s*(?:#.*)?$")
SKIP = ("lea", "nop", "call", "jmp", "push", "pop", "ret", "data16", "xchg", "prefetch")


def disasm(path):
    """{function: [(address, mnemonic, operands)]} of the text"""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    fns, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            cur = fns.setdefault(m.group(2), [])
            continue
        m = MEMOP.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return fns


def accesses(insns):
    """(address, 'load'|'store', displacement, base register) of each memory access"""
    res = []
    for a, mn, ops in insns:
        if mn.startswith(SKIP) or "(" not in ops:
            continue
        parts = re.findall(r"[^,(]*\([^)]*\)|[^,]+", ops)
        store = "(" in parts[-1]
        mem = parts[-1] if store else next(p for p in parts if "(" in p)
        m = re.match(r"^\s*(-?0x[0-9a-f]+|-?\d+)?\((%\w+)", mem)
        disp = int(m.group(1), 0) if m and m.group(1) else 0
        res.append((a, "store" if store else "load", disp, m.group(2) if m else None))
    return res


def plan(wl, output, real_json, samples_path, truth_path):
    fns = disasm(wl)
    syms = {}
    for line in subprocess.run(["nm", "-S", wl], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        w = line.split()
        if len(w) == 4:
            syms[w[3]] = (int(w[0], 16), int(w[1], 16))
    design, blocks = {}, {}
    for line in open(output):
        w = line.split()
        if w[:1] == ["expect"]:
            design[w[1]] = (" ".join(w[2:-2]), int(w[-2]), w[-1])
        elif w[:1] == ["block"]:
            blocks[w[1]] = int(w[2], 16)
    # the load address of the executable: where the program saw g_pairs, less its ELF address
    base = blocks["g_pairs"] - syms["g_pairs"][0]
    real = [json.loads(l) for l in open(real_json)]
    mine = [s for s in real if s.get("sym", "").split("+")[0] in design]
    pid, tid = mine[0]["pid"], mine[0]["tid"]
    # a time when every block is live: after touch_nested's last fault (its blocks are the
    # last malloc'd), before the frees at the end
    t0 = max(s["time"] for s in mine if s["sym"].startswith("touch_nested")) + 1

    def site(fn, nth):
        """the return address of the nth call of malloc in fn (the allocation's site)"""
        ins = fns[fn]
        calls = [i for i, (a, mn, ops) in enumerate(ins) if mn == "call" and "<malloc@plt>" in ops]
        ret = ins[calls[nth] + 1][0]
        return f"{fn}+{ret - syms[fn][0]:#x}"

    gsize = syms["g_pairs"][1]
    elem = gsize // 32  # struct pair: the design's 2 * N elements
    heap = {  # block: (site, size)
        "h": (site("touch_heap", 0), 4 * elem),
        "p": (site("main", 0), 16 * elem),
        "o": (site("main", 1), 16 * elem),  # struct outer is as big as struct pair
    }
    # the stack pointer of touch_stack: one of its faults, less its store's displacement
    rsp = None
    st = {a + base: d for a, _, d, r in accesses(fns["touch_stack"]) if r == "%rsp"}
    for s in mine:
        if int(s["ip"], 16) in st:
            rsp = int(s["addr"], 16) - st[int(s["ip"], 16)]
    if rsp is None:
        sys.exit("no page fault of touch_stack's stores in the recording")

    out = []

    def add(fn, ip, op, addr, obj, ty):
        out.append({"fn": fn, "ip": ip, "op": op, "addr": addr, "object": obj, "type": ty})

    def heap_obj(b, off):
        s, size = heap[b]
        return {"kind": "heap", "label": f"[heap] {s}", "size": size, "offset": off,
                "site": s}

    def static_obj(off):
        return {"kind": "static", "label": "[static] g_pairs", "size": gsize, "offset": off,
                "name": "g_pairs"}

    for fn in ("touch_global", "touch_first", "touch_stack", "touch_heap", "touch_param",
               "touch_nested", "consume"):
        acc = [x for x in accesses(fns[fn]) if fn != "touch_stack" or x[3] == "%rsp"]
        if not acc:
            sys.exit(f"{fn}: no memory access found in its code")
        for a, op, disp, reg in acc:
            ip = a + base
            if fn == "touch_global":  # g_pairs[i].second, i < N
                for i in (0, 5, 15):
                    off = i * elem + design[fn][1]
                    add(fn, ip, op, blocks["g_pairs"] + off, static_obj(off), design[fn])
            elif fn == "touch_first":  # g_pairs[i].first[8], N <= i < 2N
                for i in (16, 20, 31):
                    off = i * elem + design[fn][1]
                    add(fn, ip, op, blocks["g_pairs"] + off, static_obj(off), design[fn])
            elif fn == "touch_stack":
                add(fn, ip, op, rsp + disp, {"kind": "stack", "label": f"[stack] tid {tid}"},
                    design[fn])
            elif fn == "touch_heap":  # h[k].second at its displacement from h
                add(fn, ip, op, blocks["h"] + disp, heap_obj("h", disp), design[fn])
            elif fn in ("touch_param", "touch_nested"):  # a loop: elements i of p, o
                b = "p" if fn == "touch_param" else "o"
                for i in (0, 7, 15):
                    off = i * elem + design[fn][1]
                    add(fn, ip, op, blocks[b] + off, heap_obj(b, off), design[fn])
            else:  # consume: loads of p[i].second of every block it reads (struct pair)
                want = design["touch_param"]
                for b, i in (("h", 3), ("p", 9)):
                    off = i * elem + want[1]
                    add(fn, ip, op, blocks[b] + off, heap_obj(b, off), want)
                off = 30 * elem + want[1]
                add(fn, ip, op, blocks["g_pairs"] + off, static_obj(off), want)
    with open(samples_path, "w") as f, open(truth_path, "w") as t:
        for k, s in enumerate(out):
            s["time"] = t0 + k
            f.write(f"{s['time']} {pid} {tid} {s['ip']:#x} {s['addr']:#x} {s['op']}\n")
            t.write(json.dumps(s) + "\n")
    print(f"{len(out)} samples of {len(set(s['fn'] for s in out))} functions, "
          f"executable at {base:#x}, pid {pid}, stack pointer of touch_stack {rsp:#x}")


def typeoff(ty):
    name, off, field = ty
    return f"{name} {off:+d} ({field})"


def label(o):
    return o["label"] + (f" ({o['size']} bytes)" if o["kind"] != "stack" else "")


def check_dump(truth_path, dump_path):
    truth = [json.loads(l) for l in open(truth_path)]
    got = [json.loads(l) for l in open(dump_path)]
    bad = []
    if len(got) != len(truth):
        bad.append(f"{len(got)} samples in the dump, {len(truth)} written")
    for n, (w, s) in enumerate(zip(truth, got)):
        errs = []
        if int(s.get("ip", "0"), 16) != w["ip"] or int(s.get("addr", "0"), 16) != w["addr"]:
            errs.append(f"ip/addr {s.get('ip')}/{s.get('addr')} != {w['ip']:#x}/{w['addr']:#x}")
        o, wo = s.get("object") or {}, w["object"]
        if o.get("kind") != wo["kind"]:
            errs.append(f"object kind {o.get('kind')} != {wo['kind']}")
        elif wo["kind"] != "stack":
            for k in ("site", "name", "size", "offset"):
                if k in wo and o.get(k) != wo[k]:
                    errs.append(f"object {k} {o.get(k)} != {wo[k]}")
            if o.get("base") and int(o["base"], 16) + o.get("offset", 0) != w["addr"]:
                errs.append("object base + offset != addr")
        t = s.get("type") or {}
        wt = w["type"]
        if (t.get("name"), t.get("offset"), t.get("field")) != tuple(wt):
            errs.append(f"type {t.get('name')} +{t.get('offset')} ({t.get('field')}) "
                        f"!= {typeoff(wt)}")
        if errs:
            bad.append(f"sample {n} ({w['fn']} {w['op']} ip {w['ip']:#x} addr {w['addr']:#x}): "
                       + "; ".join(errs))
    print("\n".join(bad[:15]))
    print(f"{len(truth)} samples, {len(bad)} differing from the truth")
    return 1 if bad or not truth else 0


def check_report(truth_path, report_path, key):
    truth = [json.loads(l) for l in open(truth_path)]
    want = collections.Counter()
    for w in truth:
        if key == "object":
            off = w["object"].get("offset")
            want[(label(w["object"]), str(off) if off is not None else None)] += 1
        else:
            want[(w["type"][0], typeoff(w["type"]))] += 1
    got = collections.Counter()
    for line in open(report_path):
        if line.startswith("#") or not line.strip():
            continue
        m = re.match(r"^\s*[0-9.]+%\s+(\d+)\s+(.*?)\s*$", line)
        if not m:
            continue
        n, rest = int(m.group(1)), m.group(2)
        if key == "object":
            r = re.match(r"^(.*?)\s+\+?(\d+)$", rest)
            if r and not rest.startswith("[stack]"):
                got[(r.group(1), r.group(2))] += n
            elif rest.startswith("[stack]"):  # a stack row's offset is the thread's own
                got[(re.sub(r"\s+\S+$", "", rest) if r else rest, None)] += n
        else:
            r = re.match(r"^(.*?)\s{2,}(.*)$", rest)
            if r:
                got[(r.group(1), r.group(2))] += n
    diff = {k: (want[k], got[k]) for k in set(want) | set(got) if want[k] != got[k]}
    print(f"{sum(want.values())} samples in {len(want)} rows; rows differing "
          f"(truth, report): {dict(list(diff.items())[:8])}")
    return 1 if diff or not want else 0


def check_tags(truth_path, tags_path):
    truth = [json.loads(l) for l in open(truth_path)]
    want = {"object": collections.Counter(), "type": collections.Counter(),
            "typeoff": collections.Counter()}
    for w in truth:
        want["object"][w["object"]["label"]] += 1
        want["type"][w["type"][0]] += 1
        want["typeoff"][typeoff(w["type"])] += 1
    bad = tags_differ(want, read_tags(tags_path, want))
    print(f"labels object {len(want['object'])}, type {len(want['type'])}, typeoff "
          f"{len(want['typeoff'])} values; differing (truth, profile): {bad}")
    return 1 if bad else 0


def read_tags(tags_path, keys):
    """the sample counts per value of labels @keys in `go tool pprof -tags` output"""
    got = {k: collections.Counter() for k in keys}
    cur = None
    for line in open(tags_path):
        m = re.match(r"^\s*(\w+): Total", line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"^\s*([0-9.]+) \(\s*[0-9.]+%\): (.*?)\s*$", line)
        if m and cur in got:
            got[cur][m.group(2)] += int(float(m.group(1)))
    return got


def tags_differ(want, got):
    bad = {k: {v: (want[k][v], got[k][v]) for v in set(want[k]) | set(got[k])
               if want[k][v] != got[k][v]} for k in want}
    return {k: v for k, v in bad.items() if v}


def check_dump_tags(dump_path, tags_path, need):
    """a profile's type and typeoff labels count every typed sample of `dump --json` (with
    type @need among them)"""
    want = {"type": collections.Counter(), "typeoff": collections.Counter()}
    for line in open(dump_path):
        t = json.loads(line).get("type")
        if not t:
            continue
        want["type"][t["name"]] += 1
        want["typeoff"][t["name"] if "offset" not in t else
                        f"{t['name']} {t['offset']:+d} ({t.get('field', 'no field')})"] += 1
    bad = tags_differ(want, read_tags(tags_path, want))
    print(f"{sum(want['type'].values())} typed samples; differing (dump, profile): {bad}")
    return 1 if bad or not want["type"][need] else 0


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "plan":
        plan(*args)
    elif cmd == "dump":
        sys.exit(check_dump(*args))
    elif cmd == "report":
        sys.exit(check_report(*args))
    elif cmd == "tags":
        sys.exit(check_tags(*args))
    elif cmd == "dumptags":
        sys.exit(check_dump_tags(*args))
    else:
        sys.exit(f"unknown command {cmd}")
