#!/bin/bash
# SPDX-License-Identifier: MIT
# report --sort srcline where no line table covers the sample: perf 6.1 asks binutils'
# addr2line, which still finds an ELF function symbol there and prints "FILE:?" (perf shows
# "FILE:0"), or finds nothing ("??:0", perf shows SYM+OFFSET). A program linked from a unit
# with debug info and one without (a static and a global function) is built here without PIE;
# perf record puts execute breakpoints on an instruction of each of: the static function
# (perf: "nodbg.c:0"), the global one ("??:0"), crt's _init ("??:0") and the strlen PLT entry
# (addr2line finds nothing: SYM+OFFSET, which perf 6.1 writes _init+OFF, its _init covering
# the PLT (symbols_plt.sh), and hwsample strlen@plt+0). Every event's rows of
# `report --stdio --sort srcline` equal perf report --stdio --no-children --sort srcline's
# but that one PLT name; and again with the main unit's own lines (a breakpoint in main).
. "$(dirname "$0")/lib/common.sh"
need_perf
perf version >/dev/null 2>&1 || skip "perf does not run"
command -v objdump >/dev/null || skip "objdump (binutils) not installed"
[ "$(uname -m)" = x86_64 ] || skip "the test's breakpoints and objdump labels are for x86-64"
cat >"$TMP/dbg.c" <<'EOF'
#include <string.h>
int nd_global(int x);
int main(int argc, char **argv)
{
	int r = nd_global(argc);
	return r + (int)strlen(argv[0]) < 0;
}
EOF
cat >"$TMP/nodbg.c" <<'EOF'
static __attribute__((noinline)) int nd_local(int x)
{
	int s = 0;
	for (int i = 0; i < x * 1000; i++)
		s += i ^ x;
	return s;
}
int nd_global(int x)
{
	return nd_local(x) + 1;
}
EOF
cc -O1 -fno-pie -c -o "$TMP/nodbg.o" "$TMP/nodbg.c" &&
	cc -O1 -g -fno-builtin -fno-pie -no-pie -o "$TMP/prog" "$TMP/dbg.c" "$TMP/nodbg.o" ||
	skip "no C compiler"
objdump -d --no-show-raw-insn "$TMP/prog" >"$TMP/dis"
# the address of the second instruction of function $1 (objdump's label)
second() { awk -v f="<$1>:" '$2 == f {m = 1; next} m && /^ +[0-9a-f]+:/ {
	if (++n == 2) {sub(":", "", $1); print "0x" $1; exit}}' "$TMP/dis"; }
ev=()
for f in nd_local nd_global _init strlen@plt; do
	a=$(second "$f")
	[ -n "$a" ] || die "no instruction of $f in the build"
	ev+=(-e "mem:$a:x")
done
perf record -q "${ev[@]}" -c 1 -o "$TMP/b.data" -- "$TMP/prog" >/dev/null 2>"$TMP/rec.err" ||
	skip "perf record of breakpoint events failed: $(head -c 200 "$TMP/rec.err")"
M=$(second main)
perf record -q -e "mem:$M:x" -c 1 -o "$TMP/m.data" -- "$TMP/prog" >/dev/null 2>"$TMP/rec.err" ||
	die "perf record of a breakpoint in main: $(head -c 200 "$TMP/rec.err")"

rows() { grep -E '^# Samples|^ +[0-9]' | sed 's/ *$//'; }
for f in b m; do
	perf report -i "$TMP/$f.data" --stdio --no-children --sort srcline 2>/dev/null | rows >"$TMP/$f.p"
	"$HWS_BIN" report -i "$TMP/$f.data" --stdio --sort srcline 2>/dev/null | rows >"$TMP/$f.h"
done
check "perf report: one row per breakpoint event (4)" test "$(grep -c '^ ' "$TMP/b.p")" = 4
eq "the static function of the unit without lines: perf's nodbg.c:0" \
	"$(grep -c ' nodbg\.c:0$' "$TMP/b.p")" 1
eq "the global function and _init: perf's ??:0" "$(grep -c ' ??:0$' "$TMP/b.p")" 2
# perf 6.1's SYM+OFFSET (decimal) for the PLT: _init+OFF, OFF = strlen@plt - _init, or the entry
P=$(awk '$2 == "<strlen@plt>:" {print "0x" $1}' "$TMP/dis")
I=$(awk '$2 == "<_init>:" {print "0x" $1}' "$TMP/dis")
S=$(($(second strlen@plt) - P))
check "the PLT entry: perf's _init+$((P - I + S)) or strlen@plt+$S" \
	grep -qE " (_init\+$((P - I + S))|strlen@plt\+$S)$" "$TMP/b.p"
check "the PLT entry: hwsample's strlen@plt+$S" grep -qE " strlen@plt\+$S$" "$TMP/b.h"
perf61_plt --srcline "$TMP/prog" <"$TMP/b.p" >"$TMP/b.p2"
# perf's _init+OFF made the entry's name (lib/perf61_plt.py)
check "report --sort srcline equals perf report's (its PLT name made the entry's)" \
	cmp -s "$TMP/b.p2" "$TMP/b.h" || diff "$TMP/b.p2" "$TMP/b.h" >&2
check "main's own line: perf report shows dbg.c:LINE" grep -qE ' dbg\.c:[0-9]+$' "$TMP/m.p"
check "main's own line: report --sort srcline equals perf report's" cmp -s "$TMP/m.p" "$TMP/m.h" ||
	diff "$TMP/m.p" "$TMP/m.h" >&2
finish
