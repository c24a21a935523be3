#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# vDSO names: tests/workloads/vdso_clock calls clock_gettime() in a loop, served by the
# vDSO. hwsample record keeps the vDSO image in the build-id cache ([vdso]/<id>/vdso) and
# lists [vdso] in HEADER_BUILD_ID with the id perf record lists; hwsample dump names the
# vDSO samples (__vdso_clock_gettime ...) exactly as perf script does, on hwsample's file and
# on perf's, and the names come from the cached image (no copy: [vdso] stays unnamed).
. "$(dirname "$0")/lib/common.sh"
need_sw_events
need_perf_runs
W=$HWS_WORKLOADS/vdso_clock
[ -x "$W" ] || skip "tests/workloads/vdso_clock not built"
grep -q '\[vdso\]' /proc/self/maps || skip "no vDSO on this machine"
export HOME=$TMP/home
unset PERF_BUILDID_DIR
mkdir -p "$HOME"

"$HWS_BIN" record -q -b sw -e cpu-clock -o "$TMP/h.data" -- "$W" 3000000 >/dev/null 2>&1
eq "hwsample record: exit" $? 0
perf record -q -e cpu-clock -o "$TMP/p.data" -- "$W" 3000000 >/dev/null 2>&1
eq "perf record: exit" $? 0
hv=$(perf buildid-list -i "$TMP/h.data" 2>/dev/null | awk '$2 == "[vdso]" {print $1}')
pv=$(perf buildid-list -i "$TMP/p.data" 2>/dev/null | awk '$2 == "[vdso]" {print $1}')
check "hwsample's file lists [vdso]" test -n "$hv"
eq "[vdso] build-id as perf record's" "$hv" "$pv"
check "the vDSO image in the cache" test -s "$HOME/.debug/[vdso]/$hv/vdso"

for f in h p; do
	# a sample in a PLT stub: perf 6.1 names it _init (or "@plt"), hwsample NAME@plt as
	# newer perf (symbols_plt.sh); both become "PLT" (and _init itself, run once, too)
	perf script -i "$TMP/$f.data" -F ip,sym,dso 2>/dev/null |
		sed -E 's/^( +[0-9a-f]+) (_init|@plt) \(/\1 PLT (/' >"$TMP/$f.perf"
	"$HWS_BIN" dump -i "$TMP/$f.data" -F ip,sym,dso 2>/dev/null |
		sed -E 's/^( +[0-9a-f]+) ([^ ]+@plt|_init) \(/\1 PLT (/' >"$TMP/$f.hws"
	n=$(grep -c '(\[vdso\])' "$TMP/$f.perf")
	check "$f.data: most samples in the vDSO" test "$n" -gt "$(($(wc -l <"$TMP/$f.perf") / 2))"
	check "$f.data: perf names them" grep -q ' __vdso_clock_gettime (\[vdso\])' "$TMP/$f.perf"
	check "$f.data: dump -F ip,sym,dso equals perf script's" cmp -s "$TMP/$f.perf" "$TMP/$f.hws" ||
		diff "$TMP/$f.perf" "$TMP/$f.hws" | head -8
done
"$HWS_BIN" report -i "$TMP/h.data" --ascii >"$TMP/rep" 2>&1
check "report names __vdso_clock_gettime" grep -q "__vdso_clock_gettime  \[vdso\]" "$TMP/rep"

# the names come from the cached image: without it, none
mv "$HOME/.debug/[vdso]" "$TMP/vdso.saved"
"$HWS_BIN" dump -i "$TMP/h.data" -F ip,sym,dso 2>/dev/null >"$TMP/nocopy"
not grep -q '__vdso' "$TMP/nocopy" || fail "vDSO named without the cached image"
finish
