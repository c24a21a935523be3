#!/bin/bash
# SPDX-License-Identifier: MIT
# PLT entries named "name@plt": tests/workloads/plt_calls.c, built here without PIE (fixed
# addresses) and with -fno-builtin, calls strlen() through its PLT entry; perf record puts
# an execute breakpoint on that entry (objdump's <strlen@plt> address), so every sample is in
# the PLT. hwsample dump names each sample strlen@plt, at offset 0, in the workload's file, as
# objdump labels the entry (and as newer perf names PLT entries; perf 6.1 shows the address
# inside _init there, since its _init symbol covers the PLT). The samples, addresses and dso
# equal perf script's.
. "$(dirname "$0")/lib/common.sh"
need_perf
perf version >/dev/null 2>&1 || skip "perf does not run"
command -v objdump >/dev/null || skip "objdump (binutils) not installed"
[ "$(uname -m)" = x86_64 ] || skip "the test's breakpoint and objdump labels are for x86-64"
cc -O1 -g -fno-builtin -fno-pie -no-pie -o "$TMP/plt_calls" \
	"$HWS_SOURCE_DIR/tests/workloads/plt_calls.c" || skip "no C compiler"
A=$(objdump -d "$TMP/plt_calls" | awk '/<strlen@plt>:/ {print "0x" $1; exit}')
[ -n "$A" ] || skip "no strlen@plt entry in the build"
perf record -q -e "mem:$A:x" -c 1 -o "$TMP/b.data" -- "$TMP/plt_calls" 2000 >/dev/null 2>"$TMP/rec.err" ||
	skip "perf record of a breakpoint event failed: $(head -c 200 "$TMP/rec.err")"

perf script -i "$TMP/b.data" -F ip,dso 2>/dev/null >"$TMP/p.txt"
"$HWS_BIN" dump -i "$TMP/b.data" -F ip,dso 2>/dev/null >"$TMP/h.txt"
check "perf script has the 2000 breakpoint samples" test "$(wc -l <"$TMP/p.txt")" -ge 2000
check "dump -F ip,dso equals perf script" cmp -s "$TMP/p.txt" "$TMP/h.txt"
"$HWS_BIN" dump -i "$TMP/b.data" -F ip,sym,symoff 2>/dev/null | sort | uniq -c >"$TMP/names"
eq "every sample named strlen@plt+0x0" "$(awk '{print $1, $3}' "$TMP/names")" \
	"$(wc -l <"$TMP/p.txt") strlen@plt+0x0"
"$HWS_BIN" report -i "$TMP/b.data" --ascii >"$TMP/rep.txt" 2>&1
check "report names it too" grep -q " strlen@plt  \[plt_calls\]" "$TMP/rep.txt"
finish
