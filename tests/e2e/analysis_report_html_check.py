#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a `hwsample report --html` page, as headless Chromium dumped its DOM, against the
text report of the same file (`report --ascii --top N`, same N as the page):
 - the summary line (samples, total period) is the text's first line;
 - every top table of the text (functions, code addresses, data objects, data addresses) is
   an <svg> with the same id-less title, with the same rows: count, percentage, label;
 - the data-source levels, and the lat_total histogram, rows equal the text's;
 - the loss chart has one row per CPU whose samples and lost counts are the sums of the
   text's counts rows of that CPU;
 - the heat map's cells sum to the caption's count, and (with ALL, the text report run
   with --top 100000) they and the caption's samples without a time sum to the samples of
   every data object of the text report.
Usage: analysis_report_html_check.py DOM.html TEXT.txt [ALL.txt] [--expect id,id,...]
Prints one line per check; exit 1 on the first failure.
"""
import re
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    """svg id -> list of rows (dict class -> text); heat map data-n values; texts by id"""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.svgs = {}
        self.svg = None
        self.row = None
        self.cls = None
        self.heat = []
        self.ids = {}
        self.cur_id = None
        self.h2 = []
        self.in_h = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svg = a.get("id", "")
            self.svgs[self.svg] = []
        elif tag == "g" and a.get("class") == "row" and self.svg is not None:
            self.row = {}
            self.svgs[self.svg].append(self.row)
        elif tag == "text" and self.row is not None:
            self.cls = a.get("class")
        elif tag == "rect" and self.svg == "heatmap" and "data-n" in a:
            self.heat.append(int(a["data-n"]))
        if tag in ("p", "h2", "h3") and "id" in a:
            self.cur_id = a["id"]
            self.ids[self.cur_id] = ""
        if tag in ("h2", "h3"):
            self.in_h = True
            self.h2.append("")

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg = None
        elif tag == "g":
            self.row = None
        elif tag == "text":
            self.cls = None
        elif tag in ("p", "h2", "h3"):
            self.cur_id = None
            self.in_h = False

    def handle_data(self, data):
        if self.row is not None and self.cls:
            self.row[self.cls] = self.row.get(self.cls, "") + data
        if self.cur_id:
            self.ids[self.cur_id] += data
        if self.in_h:
            self.h2[-1] += data


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


def text_sections(path):
    """title -> list of (count, pct, label) rows of the text report's bar tables"""
    secs, cur, first = {}, None, None
    row = re.compile(r"^\s*(\d+)\s+(\d+\.\d)%  [# ]{30}  (.*)$")
    lvl = re.compile(r"^\s*(\S+)\s+(\d+)\s+(\d+\.\d)%  [# ]{30}( |$)")
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        line = line.rstrip("\n")
        if first is None:
            first = line
        m = re.match(r"^\n?== (.*?) ==$", line)
        if m:
            cur = m.group(1)
            secs[cur] = []
            continue
        if line.startswith("-- "):
            cur = None
            continue
        m = lvl.match(line)
        if m and cur is not None and cur.startswith(("Data source", "Latency")):
            secs[cur].append((m.group(2), m.group(3) + "%", m.group(1)))
            continue
        m = row.match(line)
        if m and cur is not None:
            secs[cur].append((m.group(1), m.group(2) + "%", m.group(3)))
    return first, secs


def counts_rows(path):
    """cpu -> [samples, lost + lost_smpl] from the text's counts table"""
    cpus, on, aux = {}, False, False
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        if line.startswith("== Samples and loss"):
            on = True
            continue
        if on and (not line.strip() or line.startswith("loss:") or line.startswith("==")):
            break
        if on and line.startswith("event "):
            aux = "aux_recs" in line
            continue
        if not on or line.startswith("total "):
            continue
        # EVENT BACKEND CPU samples period skipped errors lost lost_smpl throttle unthrtl [5 AUX]
        f = line.split()
        k = len(f) - (14 if aux else 9)
        c = cpus.setdefault(f[k], [0, 0])
        c[0] += int(f[k + 1])
        c[1] += int(f[k + 5]) + int(f[k + 6])
    return cpus


def main():
    args = sys.argv[1:]
    expect = []
    if "--expect" in args:
        i = args.index("--expect")
        expect = [x for x in args[i + 1].split(",") if x]
        del args[i:i + 2]
    dom_path, txt_path = args[0], args[1]
    all_path = args[2] if len(args) > 2 else None
    d = Dom()
    d.feed(open(dom_path, encoding="utf-8").read())
    first, secs = text_sections(txt_path)
    for e in expect:
        if e not in d.svgs:
            fail("no <svg id=%s> in the page (has %s)" % (e, sorted(d.svgs)))
    ok("plots present: " + ",".join(sorted(d.svgs)))
    summ = d.ids.get("summary", "").strip()
    if summ != first.strip():
        fail("summary %r != text %r" % (summ, first))
    ok("summary: " + summ)
    ids = {"Top functions": "top-functions", "Top code addresses": "top-code-addresses",
           "Top data objects": "top-objects", "Top data addresses": "top-data-addresses",
           "Latency lat_total": "latency-lat_total"}
    checked = 0
    for title, rows in secs.items():
        sid = None
        for t, i in ids.items():
            if title.startswith(t):
                sid = i
        if title.startswith("Data source"):
            sid = "data-source"
        if not sid:
            continue
        if sid not in d.svgs:
            fail("text section %r has no <svg id=%s>" % (title, sid))
        got = [(r.get("n", ""), r.get("pct", ""), r.get("label", "")) for r in d.svgs[sid]]
        if got != rows:
            for a, b in zip(got, rows):
                if a != b:
                    fail("%s: page row %r != text row %r" % (sid, a, b))
            fail("%s: %d page rows, %d text rows" % (sid, len(got), len(rows)))
        if title.startswith("Top") and not any(h.strip() == title.replace(" ==", "")
                                                for h in d.h2):
            fail("no heading %r in the page" % title)
        checked += 1
        ok("%s: %d rows equal the text's" % (sid, len(rows)))
    if checked == 0:
        fail("no table compared")
    cpus = counts_rows(txt_path)
    got = {}
    for r in d.svgs.get("loss", []):
        cpu = r["label"].split()[-1]
        got[cpu] = [int(r["n"]), int(r["nlost"])]
    if got != cpus:
        fail("loss per CPU %r != text %r" % (got, cpus))
    ok("loss per CPU: %d CPUs, samples and lost equal the text's" % len(cpus))
    if "heatmap" in d.svgs:
        cap = d.ids.get("heatmap-caption", "")
        m = re.match(r"(\d+) samples with a data address and a time", cap)
        if not m or int(m.group(1)) != sum(d.heat):
            fail("heat map cells sum %d, caption %r" % (sum(d.heat), cap))
        if all_path:
            _, alls = text_sections(all_path)
            objs = [v for k, v in alls.items() if k.startswith("Top data objects")]
            n = sum(int(r[0]) for r in objs[0]) if objs else 0
            m = re.search(r"(\d+) samples without a time", cap)
            untimed = int(m.group(1)) if m else -1
            if n != sum(d.heat) + untimed:
                fail("heat map counts %d samples (+ %d without a time), the data objects "
                     "of the text %d" % (sum(d.heat), untimed, n))
        ok("heat map: %d cells, %d samples" % (len(d.heat), sum(d.heat)))


main()
