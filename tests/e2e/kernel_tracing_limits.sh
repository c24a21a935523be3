#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tracing data from a file is bounded before libtraceevent parses it, and the names it
# carries stay data. From a real sched:sched_switch recording, tests/e2e/lib/hostile_tracing.py
# makes files whose HEADER_TRACING_DATA has:
#  - deep: print fmt nested 30,000 parentheses deep (overflowed libtraceevent's stack in
#    dump --raw): no crash, a warning naming HEADER_TRACING_DATA and the limit;
#  - many: 20,000 event formats: refused past 8192, quickly;
#  - crash, nofield, bracket, index, ternary, divstr, divline, quote, strcat, tab: formats
#    libtraceevent's parser crashes on (fuzz_sw finds: bytes 0x80 in a field name, a print
#    fmt naming a field the format does not declare, a format whose text ends in "prev_comm["
#    followed by a NUL byte, a print fmt with "REC->prev_comm[0];" (an array index then ';':
#    a SEGV in its parser), the same after "? A : B", 1/"" (SIGFPE in its constant folding),
#    1 then a newline then %0 (the same on the print fmt's second line), a quote in a field's
#    declaration (its tokenizer reads on over the next ones: a field named later goes
#    undeclared), a ternary's third operand of two strings (one token to it) then ';', the
#    same with a tab inside the string (its tokenizer ends a string at a tab: "R<TAB>" ";"
#    reads as "R " then ';'):
#    refused before libtraceevent sees them (the child-process probe of backends/sw/sw_tp.c
#    stays for crashes not known yet): dump goes on, every sample printed, a warning names
#    the reason;
#  - names: a system name with '"', '\', ESC[31m, BEL, CR LF, invalid UTF-8 and
#    '<!--<script>': dump --raw --json is valid JSON on every line and the name round-trips
#    (invalid bytes as U+FFFD), the text line holds no control character, CSV parses with
#    the same number of columns on every row.
. "$(dirname "$0")/lib/common.sh"
need_root
command -v python3 >/dev/null || skip "python3 not installed"
gen=$(dirname "$0")/lib/hostile_tracing.py
"$HWS_BIN" -q -b sw -e sched:sched_switch -a -o "$TMP/tp.data" -- sleep 0.2 >/dev/null 2>&1 ||
	skip "cannot record sched:sched_switch here"

python3 "$gen" "$TMP/tp.data" "$TMP/deep.data" deep
timeout 60 "$HWS_BIN" dump --raw -i "$TMP/deep.data" >/dev/null 2>"$TMP/err"
eq "deep print fmt: dump --raw exit" $? 0
check "deep print fmt: warns naming the record and the limit" \
	grep -q "HEADER_TRACING_DATA.*nested more than 64 deep" "$TMP/err"

python3 "$gen" "$TMP/tp.data" "$TMP/many.data" many
start=$(date +%s%N)
timeout 60 "$HWS_BIN" dump --raw -i "$TMP/many.data" >/dev/null 2>"$TMP/err"
eq "20000 formats: exit" $? 0
ms=$((($(date +%s%N) - start) / 1000000))
check "20000 formats: refused past 8192" grep -q "beyond 8192 formats" "$TMP/err"
check "20000 formats: in under 20 s ($ms ms)" [ "$ms" -lt 20000 ]

n_ok=$("$HWS_BIN" dump -i "$TMP/tp.data" 2>/dev/null | wc -l)
for mode in crash nofield bracket index ternary divstr divline quote strcat tab; do
	python3 "$gen" "$TMP/tp.data" "$TMP/$mode.data" $mode
	n=$(timeout 60 "$HWS_BIN" dump --raw --json -i "$TMP/$mode.data" 2>"$TMP/err" | wc -l)
	eq "$mode: dump --raw exit" "${PIPESTATUS[0]}" 0
	eq "$mode: every sample printed" "$n" "$n_ok"
	case $mode in
	crash) why="is not ASCII text" ;;
	bracket) why="is cut short after a '\\[' (an array size with nothing after it)" ;;
	index) why="is using an array index followed by an operator libtraceevent cannot parse" ;;
	ternary | strcat | tab)
		why="is using a ternary followed by an operator libtraceevent cannot parse" ;;
	divstr) why="is dividing by an expression" ;;
	divline) why="is dividing by zero" ;;
	quote) why="is quoting in its field declarations" ;;
	*) why="is naming a field it does not declare" ;;
	esac
	check "$mode: warns that sched_switch's format $why" \
		grep -q "event format [0-9]* (sched_switch) of system 'sched' $why" "$TMP/err"
	check "$mode: said once (and that fields are not decoded)" [ "$(wc -l <"$TMP/err")" = 2 ]
done

python3 "$gen" "$TMP/tp.data" "$TMP/names.data" names
"$HWS_BIN" dump --raw --json -i "$TMP/names.data" >"$TMP/j" 2>/dev/null
eq "hostile names: dump --json exit" $? 0
check "hostile names: every line valid JSON, name round-trips" python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1], "rb"):
    d = json.loads(line.decode("utf-8"))   # strict UTF-8, strict JSON
    assert set(d) <= {"time", "cpu", "pid", "tid", "event", "backend", "period", "ip",
                      "precise", "raw"}, d.keys()
    tp = d["raw"]["tracepoint"]
    assert tp == "schedev\"il\\\x1b[31m\x07<!--<script>alert(1)</script>,\ufffd\ufffd\r\nX:sched_switch", tp
    n += 1
assert n > 0
' "$TMP/j"
"$HWS_BIN" dump --raw -i "$TMP/names.data" >"$TMP/t" 2>/dev/null
eq "hostile names: text exit" $? 0
check "hostile names: text has no control characters but newlines" python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
bad = [c for c in b if (c < 0x20 and c != 0x0a) or c == 0x7f]
assert not bad and b, bad[:5]
b.decode("utf-8")
' "$TMP/t"
"$HWS_BIN" dump --raw --csv -i "$TMP/names.data" >"$TMP/c" 2>/dev/null
eq "hostile names: csv exit" $? 0
check "hostile names: CSV rows all as wide as the header" python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8", errors="strict")))
assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows), len(rows)
assert "<!--<script>" in rows[1][-1]
' "$TMP/c"
finish
