#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build-ids of the sampled files, as perf record keeps them:
#  - perf buildid-list on an hwsample recording lists the workload, libc and the kernel
#    (when samples hit it) with the build-ids readelf -n (and /sys/kernel/notes) show,
#    every listed file's id is its readelf one;
#  - each file is in the build-id cache (<cache><path>/<id>/elf, equal to the file, and the
#    .build-id/<2>/<rest> link), so perf archive succeeds and packs them;
#  - the workload rebuilt with other function names at its path: hwsample dump (and perf
#    script) still name the recording's functions, from the cache copy;
#  - -N: the file lists the build-ids but nothing is copied; -B: no build-ids.
# HOME is a temporary directory: perf and hwsample both use $HOME/.debug.
. "$(dirname "$0")/lib/common.sh"
need_sw_events
need_perf_runs
command -v readelf >/dev/null || skip "readelf (binutils) not installed"
export HOME=$TMP/home
unset PERF_BUILDID_DIR
mkdir -p "$HOME"
cache=$HOME/.debug

# v1 spins in bid_alpha, v2 (same path) in bid_beta: different build-ids and names
mk() {
	printf '%s\n' "volatile unsigned long sink;" \
		"__attribute__((noinline)) void $1(long n) { for (long i = 0; i < n; i++) sink += i * 7; }" \
		"int main(int c, char **v) { (void)v; $1(c > 5 ? 1 : 300000000L); return 0; }" \
		>"$TMP/prog.c"
	cc -O1 -Wl,--build-id -o "$TMP/prog" "$TMP/prog.c"
}
mk bid_alpha || skip "no C compiler"
rbid() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ {print $3; exit}'; }
old=$(rbid "$TMP/prog")
[ -n "$old" ] || skip "the compiler wrote no build-id"

"$HWS_BIN" record -q -b sw -e cpu-clock -o "$TMP/h.data" -- "$TMP/prog" >/dev/null 2>"$TMP/err"
eq "record: exit" $? 0
perf buildid-list -i "$TMP/h.data" >"$TMP/list" 2>"$TMP/list.err"
eq "perf buildid-list: exit" $? 0
eq "the workload's build-id, as readelf -n" "$(awk -v f="$TMP/prog" '$2 == f {print $1}' "$TMP/list")" "$old"
kb=$(perf buildid-list -k 2>/dev/null)
# the kernel is listed when samples hit it (as perf): then with its build-id
if [ -n "$kb" ] && "$HWS_BIN" dump -i "$TMP/h.data" -F ip,dso 2>/dev/null | grep -q kernel.kallsyms; then
	eq "the kernel's build-id" "$(awk '$2 == "[kernel.kallsyms]" {print $1}' "$TMP/list")" "$kb"
else
	eq "no kernel samples: no kernel entry" "$(grep -c 'kernel.kallsyms' "$TMP/list")" 0
fi
bad=0
while read -r id path; do
	case $path in
	/*) [ "$(rbid "$path")" = "$id" ] || { echo "  $path: listed $id, readelf $(rbid "$path")"; bad=$((bad + 1)); } ;;
	esac
done <"$TMP/list"
eq "every listed file's build-id is readelf's" "$bad" 0
check "no file listed twice" test "$(awk '{print $2}' "$TMP/list" | sort | uniq -d | wc -l)" = 0

check "cache copy of the workload equals it" cmp -s "$cache$TMP/prog/$old/elf" "$TMP/prog"
check "cache .build-id link" test "$(readlink -f "$cache/.build-id/${old:0:2}/${old:2}")" = \
	"$(readlink -f "$cache$TMP/prog/$old")"
(cd "$TMP" && perf archive h.data >/dev/null 2>"$TMP/arch.err")
eq "perf archive: exit" $? 0
check "the archive holds the workload" sh -c "tar tjf '$TMP/h.data.tar.bz2' | grep -q '${TMP#/}/prog/$old/elf'"

# rebuilt: other names at the same path; the recording's names come from the cache
"$HWS_BIN" dump -i "$TMP/h.data" -F ip,sym 2>/dev/null | awk '{print $2}' | sort | uniq -c | sort -rn >"$TMP/n1"
check "dump names bid_alpha" grep -q " bid_alpha$" "$TMP/n1"
mk bid_beta
check "rebuilt: another build-id" test "$(rbid "$TMP/prog")" != "$old"
"$HWS_BIN" dump -i "$TMP/h.data" -F ip,sym 2>/dev/null | awk '{print $2}' | sort | uniq -c | sort -rn >"$TMP/n2"
eq "after the rebuild, dump names what it named before" "$(cat "$TMP/n2")" "$(cat "$TMP/n1")"
not grep -q bid_beta "$TMP/n2" || fail "dump names the rebuilt binary's function"
perf script -i "$TMP/h.data" -F ip,sym,dso 2>/dev/null >"$TMP/p.txt"
"$HWS_BIN" dump -i "$TMP/h.data" -F ip,sym,dso 2>/dev/null >"$TMP/d.txt"
check "after the rebuild, dump -F ip,sym,dso equals perf script's" cmp -s "$TMP/p.txt" "$TMP/d.txt"
# without the copy: no names in that file (as perf), never the rebuilt file's
rm -rf "$cache$TMP/prog"
"$HWS_BIN" dump -i "$TMP/h.data" -F ip,sym,dso 2>/dev/null >"$TMP/n3"
not grep -q "bid_\(alpha\|beta\)" "$TMP/n3" || fail "no cache copy: a name from the rebuilt file"

# -N: listed, not copied; -B: nothing listed
mk bid_gamma
new=$(rbid "$TMP/prog")
"$HWS_BIN" record -q -N -b sw -e cpu-clock -o "$TMP/n.data" -- "$TMP/prog" >/dev/null 2>&1
eq "-N: listed" "$(perf buildid-list -i "$TMP/n.data" 2>/dev/null | awk -v f="$TMP/prog" '$2 == f {print $1}')" "$new"
check "-N: not copied" test ! -e "$cache$TMP/prog/$new"
"$HWS_BIN" record -q -B -b sw -e cpu-clock -o "$TMP/b.data" -- "$TMP/prog" >/dev/null 2>&1
eq "-B: nothing listed" "$(perf buildid-list -i "$TMP/b.data" 2>/dev/null | wc -l)" 0
check "-B: not copied" test ! -e "$cache$TMP/prog/$new"
finish
