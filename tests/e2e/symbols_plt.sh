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
# perf 6.1's names through tests/e2e/lib/perf61_plt.py (its _init+0xOFF made the entry objdump
# labels there, as the e2e tests comparing names with perf script do) equal dump's
perf script -i "$TMP/b.data" -F ip,sym,symoff,dso 2>/dev/null | perf61_plt >"$TMP/pn.txt"
"$HWS_BIN" dump -i "$TMP/b.data" -F ip,sym,symoff,dso 2>/dev/null >"$TMP/hn.txt"
check "perf script's _init+0xOFF names, made the PLT entry's, equal dump -F ip,sym,symoff,dso" \
	cmp -s "$TMP/pn.txt" "$TMP/hn.txt"
"$HWS_BIN" dump -i "$TMP/b.data" -F ip,sym,symoff 2>/dev/null | sort | uniq -c >"$TMP/names"
eq "every sample named strlen@plt+0x0" "$(awk '{print $1, $3}' "$TMP/names")" \
	"$(wc -l <"$TMP/p.txt") strlen@plt+0x0"
"$HWS_BIN" report -i "$TMP/b.data" --ascii >"$TMP/rep.txt" 2>&1
check "report names it too" grep -q " strlen@plt  \[plt_calls\]" "$TMP/rep.txt"

# An IFUNC's PLT entry: in a static executable, strlen() is an IFUNC called through .plt
# (8-byte entries, an IRELATIVE relocation of its GOT slot, no symbol): named by the IFUNC
# symbol at the relocation's resolver address as newer perf does (perf 6.1 and objdump show
# _init+OFF there); the samples equal perf script's.
if cc -O1 -g -fno-builtin -static -o "$TMP/plt_static" \
	"$HWS_SOURCE_DIR/tests/workloads/plt_calls.c" 2>/dev/null; then
	S=$(objdump -d --no-show-raw-insn "$TMP/plt_static" |
		awk '/<main>:/ {m = 1} m && /call.*<(_init\+|\*ABS\*)/ {print "0x" $3; exit}')
	[ -n "$S" ] || die "no call through the static executable's .plt in main()"
	perf record -q -e "mem:$S:x" -c 1 -o "$TMP/s.data" -- "$TMP/plt_static" 300 \
		>/dev/null 2>"$TMP/rec.err" || die "perf record of the static workload: $(head -c 200 "$TMP/rec.err")"
	perf script -i "$TMP/s.data" -F ip,dso 2>/dev/null >"$TMP/sp.txt"
	"$HWS_BIN" dump -i "$TMP/s.data" -F ip,dso 2>/dev/null >"$TMP/sh.txt"
	check "static: at least the 300 calls sampled" test "$(wc -l <"$TMP/sp.txt")" -ge 300
	check "static: dump -F ip,dso equals perf script" cmp -s "$TMP/sp.txt" "$TMP/sh.txt"
	eq "static: every sample named strlen@plt+0x0 (IFUNC entry)" \
		"$("$HWS_BIN" dump -i "$TMP/s.data" -F ip,sym,symoff 2>/dev/null | awk '{print $2}' | sort -u)" \
		"strlen@plt+0x0"
else
	echo "skipped: the static IFUNC PLT check (no static libc: libc6-dev's libc.a)"
fi
finish
