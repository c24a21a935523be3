#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A text report past 64 MiB is printed whole, as perf prints every row: report --mem of 360,000
# generated PEBS samples whose data addresses are all distinct (one row each, ~70 MB of text)
# exits 0 with nothing on stderr and as many rows as perf report --mem-mode --stdio, the last
# section whole. (The library's text buffers default to a 64 MiB cap; report's is memory only.)
# Normal build only: under ASan the report alone takes half a minute.
. "$(dirname "$0")/lib/common.sh"
need_gen intel_pebs
[ "${HWS_SANITIZE:-0}" = 1 ] && skip "a 70 MB report under ASan takes too long (runs in the normal build)"
"$HWS_GEN/gen_intel_pebs" -o "$TMP/p.data" -n 360000 -s 12 -m spr >/dev/null || die "generate"
"$HWS_BIN" report --mem -i "$TMP/p.data" >"$TMP/out" 2>"$TMP/err"
eq "report --mem: exit status" "$?" 0
eq "report --mem: stderr" "$(head -c 300 "$TMP/err")" ""
size=$(stat -c %s "$TMP/out")
check "report --mem: past 64 MiB ($size bytes)" [ "$size" -gt $((64 << 20)) ]
rows=$(grep -c '^ ' "$TMP/out")
# the last row is whole: the table's columns end with Local INSTR Latency, a number
eq "report --mem: last row whole" "$(grep "^ " "$TMP/out" | tail -n 1 | grep -cE '  [0-9]+ *$')" 1
if have_perf; then
	eq "report --mem: rows as perf's" "$rows" \
		"$(perf report --mem-mode --stdio -i "$TMP/p.data" 2>/dev/null | grep -c '^ ')"
else
	echo "note: perf not installed: rows not compared ($rows)"
fi
finish
