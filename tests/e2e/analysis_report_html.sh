#!/bin/bash
# SPDX-License-Identifier: MIT
# report --html: one self-contained page (no script, no external URL) of SVG plots, rendered
# by headless Chromium, on a sw recording made here (cpu-clock + page-faults -d of memdemo)
# and on generated Intel PEBS, AMD IBS, Arm SPE and c2c files:
#  - the plots are in the DOM (svg ids: loss, top-functions, top-objects, data-source,
#    latency-levels, heatmap ... as the file's fields allow) and their numbers, as text, equal
#    `report --ascii`'s: summary line, every top table row (count, %, label), data-source
#    levels, lat_total buckets, samples and loss per CPU; the heat map's cells sum to the
#    samples of every data object of the text report (analysis_report_html_check.py);
#  - a screenshot is not blank (distinct colours and non-white pixels, png_colours.py);
#  - the c2c file also gets its c2c page, linked from the report page;
#  - a file whose binary has a hostile name ('<!--<script>&"...') renders its full tables
#    with the name as text (no raw '<!--' in the page);
#  - the page stays small on a 200k-sample file (bounded by --top and the heat map grid).
# Skips (77) without chromium (scripts/deps.sh installs it).
. "$(dirname "$0")/lib/common.sh"
need_gen intel_pebs amd_ibs arm_spe c2c
command -v python3 >/dev/null || skip "python3 not installed"
CHR=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHR" ] || skip "chromium not installed (apt-get install -y chromium; scripts/deps.sh)"
D=$(dirname "$0")
chrome() { # chrome URL ARGS...
	local url=$1; shift
	timeout 120 "$CHR" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$TMP/profile" "$@" "$url" 2>>"$TMP/chrome.err"
}

# page NAME FILE EXPECTED-SVG-IDS: write, render and check the page of FILE
page() {
	local name=$1 f=$2 ids=$3 out
	out=$TMP/$name.html
	"$HWS_BIN" report -i "$f" --html "$out" >"$TMP/$name.stdout" 2>"$TMP/$name.err" ||
		{ fail "$name: report --html: $(head -c 300 "$TMP/$name.err")"; return; }
	eq "$name: --html alone prints nothing" "$(wc -c <"$TMP/$name.stdout")" 0
	check "$name: no external resource, no script" \
		sh -c "! grep -qiE '(src|href)=\"?(https?:)?//|<script' '$out'"
	"$HWS_BIN" report -i "$f" --ascii >"$TMP/$name.txt" 2>/dev/null || fail "$name: report"
	"$HWS_BIN" report -i "$f" --ascii --top 100000 >"$TMP/$name.all.txt" 2>/dev/null
	chrome "file://$out" --dump-dom >"$TMP/$name.dom" || { fail "$name: chromium --dump-dom"; return; }
	if python3 "$D/analysis_report_html_check.py" "$TMP/$name.dom" "$TMP/$name.txt" \
		"$TMP/$name.all.txt" --expect "$ids" >"$TMP/$name.cmp"; then
		check "$name: $(grep -c '^ok' "$TMP/$name.cmp") checks: $(tr '\n' ' ' <"$TMP/$name.cmp" | head -c 400)" true
	else
		check "$name: $(tail -1 "$TMP/$name.cmp" | head -c 400)" false
	fi
}

# a non-blank screenshot: many colours (bars, heat map), a share of non-white pixels
shot() { # NAME
	rm -f "$TMP/$1.png"
	chrome "file://$TMP/$1.html" --screenshot="$TMP/$1.png" --window-size=1000,700 >/dev/null
	[ -s "$TMP/$1.png" ] || { fail "$1: no screenshot"; return; }
	read -r ncol nonwhite < <(python3 "$D/png_colours.py" "$TMP/$1.png")
	check "$1: screenshot has $ncol colours (>= 16), $nonwhite permille not white (>= 20)" \
		test "${ncol:-0}" -ge 16 -a "${nonwhite:-0}" -ge 20
}

# sw: recorded here (skipped when software events cannot be opened)
W=${HWS_WORKLOADS:-}/memdemo
if [ -x "$W" ] && "$HWS_BIN" -q -b sw -e cpu-clock,page-faults -F 2000 -d -o "$TMP/sw.data" -- \
	"$W" >/dev/null 2>"$TMP/sw.rec"; then
	page sw "$TMP/sw.data" loss,top-functions,top-code-addresses,top-objects,heatmap
	shot sw
else
	echo "note: no sw recording ($(head -c 200 "$TMP/sw.rec" 2>/dev/null)): sw page not checked"
fi

"$HWS_GEN/gen_intel_pebs" -o "$TMP/pebs.data" -n 3000 -s 7 >/dev/null || fail "gen pebs"
page pebs "$TMP/pebs.data" loss,top-functions,top-objects,data-source,tlb,op,latency-lat_total,latency-levels,heatmap
shot pebs
"$HWS_GEN/gen_amd_ibs" -o "$TMP/ibs.data" -n 3000 -s 7 >/dev/null || fail "gen ibs"
page ibs "$TMP/ibs.data" loss,top-functions,top-objects,data-source,latency-levels,heatmap
"$HWS_GEN/gen_arm_spe" -o "$TMP/spe.data" -n 3000 -s 7 >/dev/null || fail "gen spe"
page spe "$TMP/spe.data" loss,top-functions,top-objects,data-source,latency-levels,heatmap

# c2c: the c2c page is written beside the report and linked
"$HWS_GEN/gen_c2c" -o "$TMP/c2c.data" -v intel -n 8000 -s 5 -t "$TMP/truth" >/dev/null || fail "gen c2c"
page c2c "$TMP/c2c.data" loss,top-functions,top-objects,data-source,heatmap
check "c2c: link to the c2c page" grep -q '<a href="c2c.c2c.html">' "$TMP/c2c.html"
check "c2c: the c2c page exists" test -s "$TMP/c2c.c2c.html"
check "c2c: the c2c page is hwsample c2c's" grep -q 'id="c2c-data"' "$TMP/c2c.c2c.html"
lines=$("$HWS_BIN" c2c report -i "$TMP/c2c.data" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["lines"]))')
check "c2c: the link counts c2c report's $lines lines" grep -q "^<p id=\"c2c\">$lines contended" "$TMP/c2c.html"
check "sw/pebs: no c2c page without contended lines" test ! -e "$TMP/sw.c2c.html"

# hostile names: gen_c2c's binary copied to a path of the same length whose file name holds
# '<!--<script>&"', the file's MMAP names rewritten to it: the page shows every row
GEN=$HWS_GEN/gen_c2c
n=${#GEN}
base="$TMP/<!--<script>&\"x"
pad=$((n - ${#base}))
if [ "$pad" -ge 1 ]; then
	hostile="$base$(head -c "$pad" /dev/zero | tr '\0' a)"
	cp "$GEN" "$hostile"
	python3 -c '
import sys
a, b, f = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3]
d = open(f, "rb").read()
assert len(a) == len(b) and a in d
open(f, "wb").write(d.replace(a, b))
' "$GEN" "$hostile" "$TMP/c2c.data" || fail "rewrite MMAP names"
	page hostile "$TMP/c2c.data" loss,top-functions,top-code-addresses,top-objects,heatmap
	check "hostile: the name is in the text report" grep -q '<!--<script>&"x' "$TMP/hostile.txt"
	check "hostile: the name is in the page, escaped" grep -q '&lt;!--&lt;script&gt;&amp;&quot;x' "$TMP/hostile.html"
	check "hostile: no raw '<!--' in the page" sh -c "! grep -q '<!--' '$TMP/hostile.html'"
	shot hostile
else
	echo "note: build path too short for the hostile name: not checked"
fi

# bounded size: 200k samples give a page no larger than a few hundred KiB
"$HWS_GEN/gen_intel_pebs" -o "$TMP/big.data" -n 200000 -s 9 >/dev/null || fail "gen big"
"$HWS_BIN" report -i "$TMP/big.data" --html "$TMP/big.html" || fail "big: report --html"
sz=$(wc -c <"$TMP/big.html")
check "200k samples: page of $sz bytes (<= 600000)" test "$sz" -le 600000
cells=$(grep -o 'data-n=' "$TMP/big.html" | wc -l)
check "200k samples: $cells heat map cells (<= 64 x 48)" test "$cells" -le 3072

# errors: --html with perf's sorted view is a usage error; an unwritable path an error
"$HWS_BIN" report -i "$TMP/pebs.data" --html "$TMP/x.html" --sort sym >/dev/null 2>"$TMP/e1"
eq "--html --sort sym: usage error" $? 2
"$HWS_BIN" report -i "$TMP/pebs.data" --html "$TMP/no/such/dir.html" >/dev/null 2>"$TMP/e2"
eq "--html to a missing directory: error" $? 1
check "the error names the file" grep -q 'no/such/dir.html' "$TMP/e2"
finish
