#!/bin/bash
# SPDX-License-Identifier: MIT
# c2c report --html: one self-contained page (no external URL) that headless Chromium
# renders: the line table has a row per contended line, it sorts (#sort= in the URL), and
# the heat maps (offset x thread) exist for the top lines with writes and false/true
# sharing offsets marked. Skips (77) without chromium.
. "$(dirname "$0")/lib/common.sh"
GEN=$HWS_GEN/gen_c2c
need_gen c2c
CHR=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHR" ] || skip "chromium not installed (apt-get install -y chromium)"
chrome() { # chrome URL ARGS...
	local url=$1; shift
	timeout 120 "$CHR" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$TMP/profile" "$@" "$url" 2>>"$TMP/chrome.err"
}
"$GEN" -o "$TMP/f.data" -v intel -n 8000 -s 5 -t "$TMP/truth" || fail "generate"
"$HWS_BIN" c2c report -i "$TMP/f.data" --html "$TMP/c2c.html" >"$TMP/stdout" || fail "report --html"
eq "--html alone prints nothing" "$(wc -c <"$TMP/stdout")" 0
grep -qiE '(src|href)="?(https?:)?//' "$TMP/c2c.html" && fail "page refers to external resources"
eq "one data block" "$(grep -c 'id="c2c-data"' "$TMP/c2c.html")" 1

chrome "file://$TMP/c2c.html" --dump-dom >"$TMP/dom.html" || fail "chromium --dump-dom"
grep -q 'data-rendered="1"' "$TMP/dom.html" || { fail "script did not run: $(tail -3 "$TMP/chrome.err")"; finish; exit; }
rows() { grep -o '<tbody>.*</tbody>' "$1" | head -1 | sed 's/<tr>/\n<tr>/g' | grep -c '^<tr>'; }
eq "table rows" "$(rows "$TMP/dom.html")" 4
eq "heat maps" "$(grep -o 'class="heatmap"' "$TMP/dom.html" | wc -l)" 4
grep -q 'cls-false-sharing' "$TMP/dom.html" || fail "no false-sharing cell"
grep -q 'cls-true-sharing' "$TMP/dom.html" || fail "no true-sharing cell"
grep -q '<td [^>]*class="fs"[^>]*>W</td>' "$TMP/dom.html" || fail "no write mark on a false-sharing offset"
grep -q 'class="ts"' "$TMP/dom.html" || fail "no true-sharing offset cell"
fs=$(awk '$3 == "c2c_fs_counters" {print $1}' "$TMP/truth")
grep -q "data-line=\"$fs\"" "$TMP/dom.html" || fail "no heat map for c2c_fs_counters ($fs)"

# sorting: by Records ascending, the first row has the fewest records
chrome "file://$TMP/c2c.html#sort=Records:asc" --dump-dom >"$TMP/dom2.html"
recs=$(grep -o '<td data-col="records"[^>]*>[0-9]*</td>' "$TMP/dom2.html" | sed 's/<[^>]*>//g' | tr '\n' ' ')
eq "rows sorted by records" "$recs" "$(echo "$recs" | tr ' ' '\n' | grep . | sort -n | tr '\n' ' ')"
[ "$(echo "$recs" | wc -w)" = 4 ] || fail "sorted table rows: '$recs'"

chrome "file://$TMP/c2c.html" --screenshot="$TMP/shot.png" --window-size=1200,900 >/dev/null
[ -s "$TMP/shot.png" ] || fail "no screenshot"
finish
