#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample recordings carry HEADER_CACHE as perf writes it: perf report --header-only -I
# shows the same "CPU cache info" for a hwsample and a perf recording of this machine (and
# the same bytes), and for a fake sysfs tree (HWS_SYSFS_ROOT) exactly its caches, a cache
# shared by several CPUs once, sorted by level. c2c report takes the line size from the
# file's L1 data cache; --line-size still wins.
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events
command -v jq >/dev/null || skip "jq not installed"

# perf's "CPU cache info" lines of a file
cache_info() { perf report --header-only -I -i "$1" 2>/dev/null | sed -n '/^# CPU cache info:/,/^# [^ ]/p' | grep '^#  '; }
report() { "$HWS_BIN" c2c report --json "$@" | jq -r '"\(.line_size) \(.line_size_source)"'; }

# 1. this machine, against perf record
if [ -d /sys/devices/system/cpu/cpu0/cache/index0 ]; then
	check "hwsample record" "$HWS_BIN" -q -b sw -e cpu-clock -c 1000000 -o "$TMP/h.data" -- true
	check "perf record" perf record -q -e cpu-clock -c 1000000 -o "$TMP/p.data" -- true
	cache_info "$TMP/h.data" >"$TMP/h.cache"
	cache_info "$TMP/p.data" >"$TMP/p.cache"
	[ -s "$TMP/h.cache" ] || fail "no CPU cache info in the hwsample file"
	eq "cache info as perf's" "$(cat "$TMP/h.cache")" "$(cat "$TMP/p.cache")"
	# the L1 data line of cpu0 (index with level 1 and type Data or Unified)
	want=
	for d in /sys/devices/system/cpu/cpu0/cache/index*; do
		if [ "$(cat "$d/level")" = 1 ] && grep -qE 'Data|Unified' "$d/type"; then
			want=$(cat "$d/coherency_line_size")
			break
		fi
	done
	eq "c2c line size from this host" "$(report -i "$TMP/h.data")" "$want file host L1d (CACHE header)"
else
	echo "note: no /sys/devices/system/cpu/cpu0/cache here: host comparison skipped"
fi

# 2. a fake machine: 128-byte lines, private L1s, one L2 for both CPUs
S=$TMP/sys
mkdir -p "$S"
ln -s /sys/bus "$S/bus" # the software PMU for recording
ncpu=$(($(sed 's/.*-//' /sys/devices/system/cpu/present) + 1))
[ "$ncpu" -gt 2 ] && ncpu=2
mkcache() { # mkcache CPU INDEX LEVEL TYPE LINE SETS WAYS SIZE MAP
	local d=$S/devices/system/cpu/cpu$1/cache/index$2
	mkdir -p "$d"
	echo "$3" >"$d/level"
	echo "$4" >"$d/type"
	echo "$5" >"$d/coherency_line_size"
	echo "$6" >"$d/number_of_sets"
	echo "$7" >"$d/ways_of_associativity"
	echo "$8" >"$d/size"
	echo "$9" >"$d/shared_cpu_list"
}
want=
for ((c = 0; c < ncpu; c++)); do
	mkcache $c 0 2 Unified 128 2048 16 2048K "0-$((ncpu - 1))"
	mkcache $c 1 1 Data 128 64 8 64K $c
	mkcache $c 2 1 Instruction 64 64 8 32K $c
	# perf prints "L%d %-15s %8s [%s]" (level, type, size, shared CPUs)
	want+=$(printf '#  L1 %-15s %8s [%s]\n#  L1 %-15s %8s [%s]' Data 64K $c Instruction 32K $c)$'\n'
done
want+=$(printf '#  L2 %-15s %8s [%s]' Unified 2048K "0-$((ncpu - 1))")
HWS_SYSFS_ROOT=$S "$HWS_BIN" -q -b sw -e cpu-clock -c 1000000 -o "$TMP/f.data" -- true ||
	fail "record with a fake sysfs tree"
eq "fake tree: cache info (level order, shared L2 once)" "$(cache_info "$TMP/f.data")" "$want"
eq "fake tree: c2c line size" "$(report -i "$TMP/f.data")" "128 file host L1d (CACHE header)"
eq "fake tree: --line-size wins" "$(report -i "$TMP/f.data" --line-size 64)" "64 --line-size"
# a file without the header: the arch default
GEN=$HWS_GEN/gen_c2c
if [ -x "$GEN" ]; then
	check "generate" "$GEN" -o "$TMP/g.data" -v intel -n 200 -s 1
	eq "no CACHE header: arch default" "$(report -i "$TMP/g.data")" "64 default for the file's arch"
fi
finish
