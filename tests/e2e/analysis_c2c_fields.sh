#!/bin/bash
# SPDX-License-Identifier: MIT
# c2c names the data of its lines (core/analysis/c2c_names.c): tests/gen/gen_c2c -F writes
# Intel PEBS (and AMD IBS) samples of its own globals, built with -g: thread 4243 writes
# struct counters .a, thread 4245 writes .b of the same line (false sharing), and
# threads 4246 and 4247 write .a and .b of struct padded_counters, 64 bytes apart (two private
# lines, the control); on a third line threads 4248 and 4249 write .a and 4250 .b (mixed:
# .a is truly shared). The report names both fields of the shared line with the threads that
# wrote each: --json "fields" (label, type, field, type offset, writers), each row's "type",
# "field" and "object", the named verdict ("sharing_text") in --json, --stdio and the --html
# page (whose rendered DOM shows it when chromium is installed); the padded fields are on
# lines of their own, not reported, their rows typed .a and .b under --show-all.
. "$(dirname "$0")/lib/common.sh"
GEN=$HWS_GEN/gen_c2c
need_gen c2c
command -v jq >/dev/null || skip "jq not installed"

want_text="false sharing: struct counters.a (+0, written by tid 4243) and .b (+8, written by tid 4245)"
for v in intel ibs; do
	f=$TMP/$v.data
	check "$v: generate" "$GEN" -F -o "$f" -v $v -n 6000 -s 3 -t "$TMP/truth"
	"$HWS_BIN" c2c report -i "$f" --json >"$TMP/r.json" 2>"$TMP/err" || fail "$v: exit $?: $(cat "$TMP/err")"
	"$HWS_BIN" c2c report -i "$f" --json --show-all >"$TMP/all.json" 2>/dev/null
	a=$(awk '$3 == "c2c_fields" {print $1}' "$TMP/truth")
	pa=$(awk '$3 == "c2c_fields_padded.a" {print $1}' "$TMP/truth")
	pb=$(awk '$3 == "c2c_fields_padded.b" {print $1}' "$TMP/truth")
	L() { jq -c --arg a "$1" ".lines[] | select(.address == \$a) | $2" "${3:-$TMP/r.json}"; }
	eq "$v: lines reported" "$(jq '.lines | length' "$TMP/r.json")" 2
	m=$(awk '$3 == "c2c_fields_mixed" {print $1}' "$TMP/truth")
	eq "$v: mixed line" "$(L "$m" '[.class, .sharing_text]')" \
		'["mixed","false sharing: struct counters.a (+0, written by tids 4248, 4249) and .b (+8, written by tid 4250); true sharing: struct counters.a (+0, written by tids 4248, 4249)"]'
	eq "$v: class" "$(L "$a" .class)" '"false-sharing"'
	eq "$v: fields" "$(L "$a" '[.fields[] | {label: .label, type: .type, field: .field, type_offset: .type_offset, offset: .offset, writers: .writers, sharing: .sharing}]')" \
		'[{"label":"struct counters.a","type":"struct counters","field":"a","type_offset":0,"offset":0,"writers":[4243],"sharing":"false"},{"label":"struct counters.b","type":"struct counters","field":"b","type_offset":8,"offset":8,"writers":[4245],"sharing":"false"}]'
	eq "$v: named verdict" "$(L "$a" .sharing_text)" "\"$want_text\""
	# every row: its type and field by its offset, its object the static variable
	eq "$v: rows typed by offset" "$(L "$a" '[.entries[] | "\(.offset) \(.type) \(.field) \(.type_offset) \(.object) \(.object_offset)"] | unique')" \
		'["0 struct counters a 0 [static] c2c_fields (64 bytes) 0","8 struct counters b 8 [static] c2c_fields (64 bytes) 8"]'
	# the control: padded apart, each field on its own (private) line
	eq "$v: padded .a not reported" "$(L "$pa" .class)" ""
	eq "$v: padded .b not reported" "$(L "$pb" .class)" ""
	eq "$v: padded .a line" "$(L "$pa" '[.class, .sharing_text, [.fields[] | .label, .writers]]' "$TMP/all.json")" \
		'["private",null,["struct padded_counters.a",[4246]]]'
	eq "$v: padded .b line" "$(L "$pb" '[.class, .sharing_text, [.fields[] | .label, .writers]]' "$TMP/all.json")" \
		'["private",null,["struct padded_counters.b",[4247]]]'
	# text: the verdict under the line, each offset's type
	"$HWS_BIN" c2c report -i "$f" --stdio >"$TMP/r.txt" 2>/dev/null || fail "$v: --stdio exit $?"
	check "$v: --stdio names the fields" grep -qF "         $want_text" "$TMP/r.txt"
	check "$v: --stdio types offset 8" grep -qE "off 0x8 .*struct counters \+8 \(b\)" "$TMP/r.txt"
	# without symbols there is nothing to name
	"$HWS_BIN" c2c report -i "$f" --json --no-sym >"$TMP/ns.json" 2>/dev/null
	eq "$v: --no-sym: no fields" "$(jq -c '[.lines[] | has("fields")] | unique' "$TMP/ns.json")" '[false]'
done

# HTML: the verdict and the rows' types are in the page's data, shown as text
"$HWS_BIN" c2c report -i "$TMP/intel.data" --html "$TMP/c2c.html" >/dev/null 2>&1 || fail "--html exit $?"
check "--html carries the named verdict" grep -qF "\"sharing_text\":\"$want_text\"" "$TMP/c2c.html"
CHR=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$CHR" ]; then
	timeout 120 "$CHR" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$TMP/profile" --dump-dom "file://$TMP/c2c.html" >"$TMP/dom.html" 2>/dev/null
	check "--html renders the verdict in the line table" \
		grep -qF "<td data-col=\"sharing_text\" class=\"l\">$want_text</td>" "$TMP/dom.html"
	check "--html row types" grep -qF "<td class=\"l\">struct counters +8 (b)</td>" "$TMP/dom.html"
else
	echo "note: chromium not installed: the rendered page is not checked"
fi
finish
