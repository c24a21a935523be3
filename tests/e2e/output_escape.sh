#!/bin/bash
# SPDX-License-Identifier: MIT
# Names from the file are data in the c2c HTML page: the recording's binary is copied to a
# path holding '<!--<script>' and a quote (that name becomes the dso of every row, inside the
# page's JSON block), the file's MMAP names are rewritten to it (same length), and headless
# Chromium must still run the page's script and render the whole table (an unescaped
# '<!--<script>' left the page empty). Also dump --json and --csv of that file parse.
. "$(dirname "$0")/lib/common.sh"
GEN=$HWS_GEN/gen_c2c
need_gen c2c
CHR=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHR" ] || skip "chromium not installed (apt-get install -y chromium)"
"$GEN" -o "$TMP/f.data" -v intel -n 8000 -s 5 -t "$TMP/truth" >/dev/null || fail "generate"
# a path as long as $GEN's, under $TMP, with the hostile characters in its directory name
n=${#GEN}
base="$TMP/<!--<script>\"x"
pad=$((n - ${#base} - 2))
[ "$pad" -ge 1 ] || skip "build path too short to rewrite in place"
dir="$base$(head -c "$pad" /dev/zero | tr '\0' a)"
mkdir -p "$dir" && cp "$GEN" "$dir/g"
eq "hostile path length" "${#dir}" $((n - 2))
python3 -c '
import sys
a, b, f = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3]
d = open(f, "rb").read()
assert len(a) == len(b) and a in d
open(f, "wb").write(d.replace(a, b))
' "$GEN" "$dir/g" "$TMP/f.data" || fail "rewrite MMAP names"
"$HWS_BIN" c2c report -i "$TMP/f.data" --html "$TMP/c2c.html" >/dev/null || fail "report --html"
check "the hostile name is in the page (escaped)" grep -q 'u003c!--\\u003cscript' "$TMP/c2c.html"
check "no raw '<!--' in the page" sh -c "! grep -q '<!--' '$TMP/c2c.html'"
timeout 120 "$CHR" --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/profile" \
	--dump-dom "file://$TMP/c2c.html" >"$TMP/dom.html" 2>>"$TMP/chrome.err" || fail "chromium"
check "page script ran" grep -q 'data-rendered="1"' "$TMP/dom.html"
rows() { grep -o '<tbody>.*</tbody>' "$1" | head -1 | sed 's/<tr>/\n<tr>/g' | grep -c '^<tr>'; }
eq "table rows" "$(rows "$TMP/dom.html")" 4
"$HWS_BIN" c2c report -i "$TMP/f.data" --json >"$TMP/c2c.json" 2>/dev/null
check "c2c --json parses and names the dso" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert "<!--<script>" in json.dumps(d, ensure_ascii=False)
' "$TMP/c2c.json"
finish
