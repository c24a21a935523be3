#!/bin/bash
# SPDX-License-Identifier: MIT
# --call-graph dwarf end to end: core/decode/callchain.c hands each sample's registers and
# stack copy to core/decode/unwind.c and appends the user frames after the kernel's. The
# workload tests/workloads/unwind_chains (no frame pointers: only the CFI finds callers) is
# recorded by hwsample and by perf with --call-graph dwarf; for every sample of both files,
# `hwsample dump` (text) shows the same frames, address and object, as
# `perf script -F ip,dso --no-inline` (dump --no-inline), and dump --json carries the same chain. A file whose
# mapped binary became a FIFO (names come from the recording) is read without blocking: the
# unwinder skips it, dump ends and prints every sample.
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
W=${HWS_WORKLOADS:-}/unwind_chains
[ -x "$W" ] || skip "workload $W not built"

# frames of every sample as "ip dso" lines, in file order
# (both without inlined entries: symbols_inline.sh compares those)
frames_hws() { "$HWS_BIN" dump -i "$1" --no-inline 2>/dev/null | awk '/^\t/ {print $1, $NF}'; }
frames_perf() { perf script -i "$1" -F ip,dso --no-inline 2>/dev/null | awk '/^\t/ {print $1, $NF}'; }

check "hwsample records --call-graph dwarf" "$HWS_BIN" -q -b sw -e cpu-clock:u -F 1000 \
	--call-graph dwarf -o "$TMP/h.data" -- "$W" 200
perf record -q --call-graph dwarf -e cpu-clock:u -F 1000 -o "$TMP/p.data" "$W" 200 \
	>/dev/null 2>&1 || die "perf record --call-graph dwarf failed"
for f in h p; do
	frames_hws "$TMP/$f.data" >"$TMP/$f.hws"
	frames_perf "$TMP/$f.data" >"$TMP/$f.perf"
	n=$(grep -c . "$TMP/$f.perf")
	check "$f.data: perf shows user frames ($n)" test "$n" -gt 100
	check "$f.data: hwsample's frames equal perf script's" cmp -s "$TMP/$f.hws" "$TMP/$f.perf" ||
		diff "$TMP/$f.hws" "$TMP/$f.perf" | head -10
	check "$f.data: the chain reaches main through qsort" grep -q 'uc_sort' \
		<("$HWS_BIN" dump -i "$TMP/$f.data" --sym 2>/dev/null)
	# JSON: as many frames as the text dump
	nj=$("$HWS_BIN" dump -i "$TMP/$f.data" --json 2>/dev/null |
		python3 -c 'import json,sys; print(sum(len(json.loads(l).get("callchain",[])) for l in sys.stdin))')
	eq "$f.data: JSON frames = text frames" "$nj" "$(grep -c . "$TMP/$f.hws")"
done
# the workload's path turned into a FIFO: opening it must neither block nor read it
cp "$W" "$TMP/wl"
"$HWS_BIN" -q -b sw -e cpu-clock:u -F 1000 --call-graph dwarf -o "$TMP/f.data" -- "$TMP/wl" 50 \
	>/dev/null 2>&1
n=$("$HWS_BIN" dump -i "$TMP/f.data" 2>/dev/null | grep -c ' ip 0x')
rm "$TMP/wl" && mkfifo "$TMP/wl"
m=$(timeout 60 "$HWS_BIN" dump -i "$TMP/f.data" 2>/dev/null | grep -c ' ip 0x')
eq "binary now a FIFO: dump ends and prints every sample" "$m" "$n"
finish
