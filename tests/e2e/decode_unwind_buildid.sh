#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The DWARF unwinder reads the recorded file, not whatever is at its path now: the workload
# tests/workloads/unwind_chains copied to $TMP is recorded with --call-graph dwarf (its
# build-id in HEADER_BUILD_ID, a copy of it in the build-id cache $HOME/.debug), then
# replaced at that path by the same source built another way (another build-id, other
# code addresses and CFI). hwsample dump's frames ("ip dso" per frame) are then still the
# ones perf script showed on the original, and perf script's (perf also reads its cache)
# still the same; without the cache copy hwsample's frames are no longer those (the test
# sees the file's change).
. "$(dirname "$0")/lib/common.sh"
need_sw_events
need_perf_runs
W=${HWS_WORKLOADS:-}/unwind_chains
SRC=${HWS_SOURCE_DIR:-}/tests/workloads/unwind_chains.c
[ -x "$W" ] || skip "workload $W not built"
[ -r "$SRC" ] || skip "workload source $SRC not found"
command -v cc >/dev/null || skip "no C compiler"
export HOME=$TMP/home
unset PERF_BUILDID_DIR
mkdir -p "$HOME"
rbid() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ {print $3; exit}'; }

frames_hws() { "$HWS_BIN" dump -i "$1" --no-inline 2>/dev/null | awk '/^\t/ {print $1, $NF}'; }
frames_perf() { perf script -i "$1" -F ip,dso --no-inline 2>/dev/null | awk '/^\t/ {print $1, $NF}'; }

cp "$W" "$TMP/wl"
old=$(rbid "$TMP/wl")
[ -n "$old" ] || skip "the workload has no build-id"
"$HWS_BIN" record -q -b sw -e cpu-clock:u -F 1000 --call-graph dwarf -o "$TMP/h.data" \
	-- "$TMP/wl" 150 >/dev/null 2>&1
eq "record --call-graph dwarf: exit" $? 0
check "the workload's copy is in the build-id cache" test -f "$HOME/.debug$TMP/wl/$old/elf"
frames_perf "$TMP/h.data" >"$TMP/perf.before"
frames_hws "$TMP/h.data" >"$TMP/hws.before"
n=$(grep -c "$TMP/wl" "$TMP/perf.before")
check "perf shows frames in the workload ($n)" test "$n" -gt 50
check "before: hwsample's frames equal perf script's" cmp -s "$TMP/hws.before" "$TMP/perf.before"

# another binary at the path: built -O0 with frame pointers (other addresses, other CFI)
cc -O0 -g -fno-omit-frame-pointer -Wl,--build-id -o "$TMP/wl.new" "$SRC" || die "cc failed"
mv -f "$TMP/wl.new" "$TMP/wl"
check "replaced: another build-id" test "$(rbid "$TMP/wl")" != "$old"
frames_hws "$TMP/h.data" >"$TMP/hws.after"
check "replaced: hwsample's frames are still perf script's on the original" \
	cmp -s "$TMP/hws.after" "$TMP/perf.before" ||
	diff "$TMP/hws.after" "$TMP/perf.before" | head -10
frames_perf "$TMP/h.data" >"$TMP/perf.after"
check "replaced: perf script's frames (from its cache) unchanged" \
	cmp -s "$TMP/perf.after" "$TMP/perf.before"

# no copy: the replaced file is not read in its place, the frames through it are gone
rm -rf "$HOME/.debug$TMP/wl"
frames_hws "$TMP/h.data" >"$TMP/hws.nocopy"
not cmp -s "$TMP/hws.nocopy" "$TMP/perf.before" || fail "no cache copy: the frames did not change"
finish
