#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build-ids in pipe mode (record -o -): PERF_RECORD_HEADER_BUILD_ID records in the stream,
# each before the first sample of its file (where perf inject -b puts them; a pipe has no
# HEADER_BUILD_ID section):
#  - perf buildid-list -i - lists the workload with readelf's build-id, every listed file
#    with its readelf one, the kernel with /sys/kernel/notes' when kernel samples hit it;
#    perf script -i - reads the stream without a complaint;
#  - the workload rebuilt with other function names at its path: hwsample dump -i - still
#    names the recording's functions (from the build-id cache copy record made), as dump
#    of the same stream did before the rebuild;
#  - -B: no such records.
. "$(dirname "$0")/lib/common.sh"
need_sw_events
need_perf_runs
command -v readelf >/dev/null || skip "readelf (binutils) not installed"
export HOME=$TMP/home
unset PERF_BUILDID_DIR
mkdir -p "$HOME"
cache=$HOME/.debug

mk() {
	printf '%s\n' "volatile unsigned long sink;" \
		"__attribute__((noinline)) void $1(long n) { for (long i = 0; i < n; i++) sink += i * 7; }" \
		"int main(int c, char **v) { (void)v; $1(c > 5 ? 1 : 200000000L); return 0; }" \
		>"$TMP/prog.c"
	cc -O1 -Wl,--build-id -o "$TMP/prog" "$TMP/prog.c"
}
mk bid_alpha || skip "no C compiler"
rbid() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ {print $3; exit}'; }
old=$(rbid "$TMP/prog")
[ -n "$old" ] || skip "the compiler wrote no build-id"

"$HWS_BIN" record -q -b sw -e cpu-clock -o - -- "$TMP/prog" 2>"$TMP/err" | cat >"$TMP/p.data"
eq "record -o -: exit" "${PIPESTATUS[0]}" 0
n=$(perf script -D -i - <"$TMP/p.data" 2>/dev/null | grep -ac 'PERF_RECORD_BUILD_ID')
check "the stream has BUILD_ID records ($n)" test "$n" -gt 0
perf buildid-list -i - <"$TMP/p.data" >"$TMP/list" 2>"$TMP/list.err"
eq "perf buildid-list -i -: exit" $? 0
eq "the workload's build-id, as readelf -n" "$(awk -v f="$TMP/prog" '$2 == f {print $1}' "$TMP/list")" "$old"
bad=0
while read -r id path; do
	case $path in
	/*) [ "$(rbid "$path")" = "$id" ] || { echo "  $path: listed '$id', readelf $(rbid "$path")"; bad=$((bad + 1)); } ;;
	esac
done <"$TMP/list"
eq "every listed file's build-id is readelf's" "$bad" 0
kb=$(perf buildid-list -k 2>/dev/null)
if [ -n "$kb" ] && "$HWS_BIN" dump -i - -F ip,sym,dso <"$TMP/p.data" 2>/dev/null | grep -q kernel.kallsyms; then
	eq "kernel samples: the kernel's build-id" "$(awk '$2 == "[kernel.kallsyms]" {print $1}' "$TMP/list")" "$kb"
fi
perf script -i - <"$TMP/p.data" >/dev/null 2>"$TMP/ps.err"
eq "perf script -i -: exit" $? 0
eq "perf script -i -: no complaint" "$(grep -ci 'unknown\|unsupported\|invalid\|error' "$TMP/ps.err")" 0
check "the workload's copy in the build-id cache" cmp -s "$cache$TMP/prog/$old/elf" "$TMP/prog"

"$HWS_BIN" dump -i - -F ip,sym <"$TMP/p.data" 2>/dev/null | awk '{print $2}' | sort | uniq -c | sort -rn >"$TMP/n1"
check "dump -i - names bid_alpha" grep -q " bid_alpha$" "$TMP/n1"
mk bid_beta
check "rebuilt: another build-id" test "$(rbid "$TMP/prog")" != "$old"
"$HWS_BIN" dump -i - -F ip,sym <"$TMP/p.data" 2>/dev/null | awk '{print $2}' | sort | uniq -c | sort -rn >"$TMP/n2"
eq "after the rebuild, dump -i - names what it named before" "$(cat "$TMP/n2")" "$(cat "$TMP/n1")"
not grep -q bid_beta "$TMP/n2" || fail "dump -i - names the rebuilt binary's function"

"$HWS_BIN" record -q -B -b sw -e cpu-clock -o - -- "$TMP/prog" 2>/dev/null | cat >"$TMP/b.data"
eq "-B: no BUILD_ID records" "$(perf script -D -i - <"$TMP/b.data" 2>/dev/null | grep -ac 'PERF_RECORD_BUILD_ID')" 0
finish
