#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel symbols that outlive the boot, as perf does them:
#  - hwsample record writes the kernel's build-id (HEADER_BUILD_ID, read back by
#    perf buildid-list) and copies /proc/kallsyms into perf's build-id cache
#    ($PERF_BUILDID_DIR/[kernel.kallsyms]/<id>/kallsyms, .build-id link); -N does not;
#  - report reads that copy instead of having the kernel generate /proc/kallsyms (the debug
#    log says which), with the same output as with /proc/kallsyms itself (--kallsyms), and
#    falls back to /proc/kallsyms when the copy does not match the running kernel;
#  - KASLR: a kallsyms whose kernel lies elsewhere (every address moved, as after a reboot)
#    is moved back to the file's kernel MMAP: the report is the same;
#  - --kallsyms with a missing file is a usage error naming the file.
. "$(dirname "$0")/lib/common.sh"
need_perf
need_sw_events
bid=$(perf buildid-list -k 2>/dev/null)
[ -n "$bid" ] || skip "the running kernel shows no build-id (/sys/kernel/notes)"
text=$(awk '$3 == "_text" {print $1; exit}' /proc/kallsyms)
[ -n "$text" ] && [ "$text" != 0000000000000000 ] || skip "kallsyms addresses hidden (kptr_restrict)"

export PERF_BUILDID_DIR=$TMP/cache
# kernel time: copying zeros through a pipe, system-wide
"$HWS_BIN" -q -b sw -e cpu-clock -F 2000 -a -o "$TMP/k.data" -- \
	sh -c 'dd if=/dev/zero bs=64k count=20000 2>/dev/null | cat >/dev/null' >/dev/null 2>&1
eq "record exit" $? 0
eq "file names the kernel build-id" "$(perf buildid-list -i "$TMP/k.data" 2>/dev/null |
	awk '$2 == "[kernel.kallsyms]" {print $1}')" "$bid"
copy=$TMP/cache/[kernel.kallsyms]/$bid/kallsyms
check "kallsyms copied to the build-id cache" test -s "$copy"
eq "the copy's _text" "$(awk '$3 == "_text" {print $1; exit}' "$copy")" "$text"
check ".build-id link" test "$(readlink "$TMP/cache/.build-id/${bid:0:2}/${bid:2}")" = \
	"../../[kernel.kallsyms]/$bid"
PERF_BUILDID_DIR=$TMP/cache2 "$HWS_BIN" -q -N -b sw -e cpu-clock -o "$TMP/n.data" -- true \
	>/dev/null 2>&1
check "-N: no copy" test ! -e "$TMP/cache2"

"$HWS_BIN" report -i "$TMP/k.data" --stdio >"$TMP/copy.txt" 2>"$TMP/copy.err"
eq "report exit" $? 0
HWS_LOG_LEVEL=3 "$HWS_BIN" report -i "$TMP/k.data" --stdio 2>&1 >/dev/null |
	grep 'kernel names from' >"$TMP/log"
check "report read the copy" grep -qF "kernel names from $copy" "$TMP/log"
check "there are kernel symbols to compare" grep -q '\[kernel\]' "$TMP/copy.txt"
"$HWS_BIN" report -i "$TMP/k.data" --stdio --kallsyms /proc/kallsyms >"$TMP/live.txt" 2>&1
check "same report as with /proc/kallsyms" cmp -s "$TMP/copy.txt" "$TMP/live.txt"
PERF_BUILDID_DIR=$TMP/empty "$HWS_BIN" report -i "$TMP/k.data" --stdio >"$TMP/nocache.txt" 2>&1
# kernel rows only: user files of this system-wide run may have changed since (other tests'
# binaries), and without the cache their old copies are gone, as perf would see it
check "same kernel rows without a cache" cmp -s <(grep '\[kernel' "$TMP/copy.txt") \
	<(grep '\[kernel' "$TMP/nocache.txt")

# a copy that does not start as the running kernel's kallsyms does: not used
cp "$copy" "$TMP/good"
sed -i '1s/^ffffffff8/ffffffff9/; 1s/^0/1/' "$copy"
HWS_LOG_LEVEL=3 "$HWS_BIN" report -i "$TMP/k.data" --stdio >"$TMP/bad.txt" 2>"$TMP/bad.err"
check "a differing copy is not used" grep -q 'does not start as /proc/kallsyms' "$TMP/bad.err"
check "... and the report is the same" cmp -s "$TMP/copy.txt" "$TMP/bad.txt"
cp "$TMP/good" "$copy"

# KASLR: every address moved by 16 MiB (as another boot would list them)
perl -pe 's/^([0-9a-f]{16})/sprintf("%016x", hex($1) ? hex($1) + 0x1000000 : 0)/e' \
	/proc/kallsyms >"$TMP/moved"
check "moved kallsyms made" grep -q "_text" "$TMP/moved"
HWS_LOG_LEVEL=2 "$HWS_BIN" report -i "$TMP/k.data" --stdio --kallsyms "$TMP/moved" \
	>"$TMP/moved.txt" 2>"$TMP/moved.err"
check "KASLR move noticed" grep -q 'lies -0x1000000 bytes from this kallsyms' "$TMP/moved.err"
check "moved back: the same report" cmp -s "$TMP/copy.txt" "$TMP/moved.txt"

"$HWS_BIN" report -i "$TMP/k.data" --kallsyms "$TMP/nosuch" >/dev/null 2>"$TMP/err"
eq "--kallsyms missing file: usage error" $? 2
check "... names the file" grep -q "kallsyms $TMP/nosuch: No such file" "$TMP/err"
finish
