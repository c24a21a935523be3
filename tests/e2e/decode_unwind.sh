#!/bin/bash
# SPDX-License-Identifier: MIT
# core/decode/unwind.c against perf's own DWARF unwinding: `perf record --call-graph dwarf
# -e cpu-clock:u` of tests/workloads/unwind_chains (-O2, no frame pointers: only the CFI
# finds callers), then every sample is unwound by test_unwind (public reader, internal sample
# parse, core/symbols from MMAP2/COMM, the unwinder) and compared with
# `perf script -F ip,sym --no-inline` and with `perf script -F ip,sym` (inline frames):
# same samples, same ips frame by frame, same names (decode_unwind_cmp.py has the rules);
# and the known chains of the workload are all there: noinline levels, recursion, a call
# through libc's qsort, two inlined functions. The fast path (unwind_cfi.c: libdw's CFI rules
# cached and evaluated without libdw's walk) gives what libdw's walk gives (--no-fast): the
# same frames, unwinding errors and counts.
. "$(dirname "$0")/lib/common.sh"
need_perf
perf version >/dev/null 2>&1 || skip "perf does not run"
W=${HWS_WORKLOADS:-}/unwind_chains
D=$HWS_BUILD_DIR/tests/test_unwind
[ -x "$W" ] || skip "workload $W not built"
[ -x "$D" ] || skip "$D not built"
CMP="$(dirname "$0")/decode_unwind_cmp.py"

perf record -q --call-graph dwarf -e cpu-clock:u -F 1000 -o "$TMP/p.data" "$W" 400 \
	>/dev/null 2>"$TMP/rec.err" || skip "perf record --call-graph dwarf failed: $(head -1 "$TMP/rec.err")"
perf script -i "$TMP/p.data" -F ip,sym --no-inline >"$TMP/perf-noinl.txt" 2>/dev/null
perf script -i "$TMP/p.data" -F ip,sym >"$TMP/perf-inl.txt" 2>/dev/null
n=$(grep -c uc_ "$TMP/perf-noinl.txt")
[ "$n" -gt 20 ] || skip "perf recorded too few samples of the workload ($n frames)"

check "test_unwind --no-inline" "$D" --no-inline --dwarf-names "$TMP/p.data" \
	>"$TMP/ours-noinl.txt" 2>"$TMP/ours-noinl.err"
check "test_unwind" "$D" --dwarf-names "$TMP/p.data" >"$TMP/ours-inl.txt" 2>"$TMP/ours-inl.err"
cat "$TMP/ours-inl.err"
check "test_unwind --no-fast" "$D" --no-fast --dwarf-names "$TMP/p.data" >"$TMP/slow-inl.txt" \
	2>"$TMP/slow-inl.err"
eq "fast path: the frames of libdw's walk" "$(cmp "$TMP/ours-inl.txt" "$TMP/slow-inl.txt" 2>&1)" ""
eq "fast path: the errors and counts of libdw's walk" \
	"$(diff <(sort "$TMP/ours-inl.err") <(sort "$TMP/slow-inl.err"))" ""
# the decoder's unwinder (unwind_only: debug files without .debug_frame not opened) gives
# the same frames and errors, by its fast path and by libdw's walk
for o in "" --no-fast; do
	check "test_unwind --no-inline --unwind-only $o" "$D" --no-inline --unwind-only $o \
		"$TMP/p.data" >"$TMP/only.txt" 2>"$TMP/only.err"
	eq "unwind_only $o: the frames without it" "$(sed 's/|.*//' "$TMP/ours-noinl.txt" |
		cmp - "$TMP/only.txt" 2>&1)" ""
	eq "unwind_only $o: the errors and counts without it" \
		"$(diff <(grep -v '^#' "$TMP/ours-noinl.err" | sort) <(grep -v '^#' "$TMP/only.err" | sort))" ""
done
check "same frames as perf script --no-inline" python3 "$CMP" "$TMP/perf-noinl.txt" \
	"$TMP/ours-noinl.txt" unwind_chains
check "same frames as perf script (inline frames)" python3 "$CMP" "$TMP/perf-inl.txt" \
	"$TMP/ours-inl.txt" unwind_chains

# the chains the workload makes, in our output (names only, innermost first)
chains() { # file -> one line per sample: names joined by ' <- '
	awk '/^$/ { if (s != "") print s; s = ""; next }
	     { sub(/^[ \t]*[0-9a-f]+ /, ""); sub(/\|.*/, ""); s = (s == "" ? $0 : s " <- " $0) }
	     END { if (s != "") print s }' "$1"
}
chains "$TMP/ours-inl.txt" >"$TMP/chains.txt"
has() { grep -qF -- "$2" "$TMP/chains.txt" || fail "no sample with the chain $1: $2"; }
has levels "uc_spin <- uc_level3 <- uc_level2 <- uc_level1 <- main"
has recursion "uc_spin <- uc_recurse <- uc_recurse <- uc_recurse <- uc_recurse <- uc_recurse <- uc_recurse <- uc_recurse <- main"
has inline "uc_hash (inlined) <- uc_mix (inlined) <- uc_outer <- main"
grep -E -q "^uc_spin <- uc_cmp <- .* <- uc_sort <- main" "$TMP/chains.txt" ||
	fail "no sample with the chain through libc: uc_spin <- uc_cmp <- (qsort) <- uc_sort <- main"
grep -q "errors, 0 timeouts" "$TMP/ours-inl.err" || fail "unwinding timed out: $(cat "$TMP/ours-inl.err")"
finish
