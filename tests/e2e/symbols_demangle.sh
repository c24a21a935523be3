#!/bin/bash
# SPDX-License-Identifier: MIT
# C++ names as perf shows them: tests/workloads/cxx_names.cc (a namespaced function, a
# member of a class template, a function of an anonymous namespace), built here with g++,
# recorded by hwsample (cpu-clock):
#  1. dump -F ip,sym,symoff,dso equals perf script's lines for the workload's own samples
#     (demangled, without parameters, as perf 6.1 prints them; a sample in a PLT entry, which
#     perf 6.1 may call _init+0xOFF, is the entry's name: lib/perf61_plt.py);
#  2. --no-demangle equals perf script --no-demangle (the mangled _Z names);
#  3. report's top functions are the demangled names, with perf report --sort sym's counts;
#  4. report --sort sym --no-demangle equals perf report --sort sym --no-demangle (mangled);
#  5. a template member whose demangled name is over 1,000 bytes: report --sort sym prints it
#     whole, as perf report does (it was cut at 511 bytes).
# (Rust: no Rust compiler is needed to check the demangler; tests/unit/test_symbols_names.c
# checks Rust legacy and v0 names as strings.)
. "$(dirname "$0")/lib/common.sh"
need_perf
perf version >/dev/null 2>&1 || skip "perf does not run"
need_sw_events
command -v g++ >/dev/null || skip "g++ not installed (scripts/deps.sh installs it)"
g++ -O1 -g -o "$TMP/cxx_names" "$HWS_SOURCE_DIR/tests/workloads/cxx_names.cc" || skip "g++ failed"

"$HWS_BIN" record -q -b sw -e cpu-clock -c 250000 -o "$TMP/c.data" -- "$TMP/cxx_names" >/dev/null 2>&1
eq "record exit code" "$?" 0
for dm in "" --no-demangle; do
	# perf 6.1's _init+0xOFF for a PLT address becomes the entry's name (lib/perf61_plt.py)
	perf script -i "$TMP/c.data" -F ip,sym,symoff,dso $dm 2>/dev/null | perf61_plt |
		grep "cxx_names)$" >"$TMP/p.txt"
	"$HWS_BIN" dump -i "$TMP/c.data" -F ip,sym,symoff,dso $dm 2>/dev/null | grep "cxx_names)$" >"$TMP/h.txt"
	check "perf script ${dm:-(demangled)}: samples in the workload" test -s "$TMP/p.txt"
	check "dump ${dm:-(demangled)} names equal perf script's" cmp -s "$TMP/p.txt" "$TMP/h.txt" ||
		diff "$TMP/p.txt" "$TMP/h.txt" | head -4 >&2
	if [ -z "$dm" ]; then
		check "hws_demo::spin demangled" grep -q " hws_demo::spin+0x" "$TMP/h.txt"
		check "class template member demangled" grep -q " hws_demo::Acc<long>::add+0x" "$TMP/h.txt"
		check "anonymous namespace demangled" grep -q " (anonymous namespace)::hidden+0x" "$TMP/h.txt"
	else
		check "mangled names with --no-demangle" grep -q " _ZN8hws_demo4spinEli+0x" "$TMP/h.txt"
	fi
done

"$HWS_BIN" report -i "$TMP/c.data" --ascii --top 50 >"$TMP/rep.txt" 2>&1
perf report -i "$TMP/c.data" --stdio -q --sort sym -F sample,sym 2>/dev/null |
	grep -E "hws_demo|anonymous" | sed 's/^ *\([0-9]*\) *\[\.\] *//; s/ *$//' | sort >"$TMP/perf_names"
check "report shows the demangled names" grep -q "hws_demo::Acc<long>::add  \[cxx_names\]" "$TMP/rep.txt"
while read -r name; do
	want=$(perf report -i "$TMP/c.data" --stdio -q --sort sym -F sample,sym 2>/dev/null |
		grep -F "] $name" | awk '{print $1; exit}')
	got=$(grep -F "  $name  [cxx_names]" "$TMP/rep.txt" | awk '{print $1; exit}')
	eq "report samples of $name" "$got" "$want"
done <"$TMP/perf_names"

# 4. report --no-demangle: perf report's rows, mangled names
for dm in "" --no-demangle; do
	perf report -i "$TMP/c.data" --stdio --no-children -q --sort sym $dm 2>/dev/null |
		grep -F "_Z" | sed 's/ *$//' >"$TMP/pr.txt"
	"$HWS_BIN" report -i "$TMP/c.data" --stdio --sort sym $dm 2>/dev/null |
		grep -F "_Z" | sed 's/ *$//' >"$TMP/hr.txt"
	if [ -n "$dm" ]; then
		check "perf report --no-demangle shows mangled names" test -s "$TMP/pr.txt"
		check "report --no-demangle rows equal perf report --no-demangle's" \
			cmp -s "$TMP/pr.txt" "$TMP/hr.txt" || diff "$TMP/pr.txt" "$TMP/hr.txt" | head -4 >&2
	else
		check "report (demangled) shows no _Z name of the workload" \
			not grep -q "_ZN8hws_demo" "$TMP/hr.txt"
	fi
done

perf report -i "$TMP/c.data" --stdio --no-children -q --sort sym 2>/dev/null |
	grep -F "hws_long::Wide<" | sed 's/ *$//' >"$TMP/pl.txt"
"$HWS_BIN" report -i "$TMP/c.data" --stdio --sort sym 2>/dev/null |
	grep -F "hws_long::Wide<" | sed 's/ *$//' >"$TMP/hl.txt"
check "perf report names the long template member" test -s "$TMP/pl.txt"
check "its name is over 1,000 bytes ($(awk '{print length($0)}' "$TMP/hl.txt" | head -1))" \
	awk 'length($0) > 1000 {ok = 1} END {exit !ok}' "$TMP/hl.txt"
check "report --sort sym prints it whole, as perf report" cmp -s "$TMP/pl.txt" "$TMP/hl.txt" ||
	diff "$TMP/pl.txt" "$TMP/hl.txt" | cut -c1-200 | head -4 >&2
finish
