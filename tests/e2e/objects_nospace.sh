#!/bin/bash
# SPDX-License-Identifier: MIT
# A full file system under hws-objects.so's records: the program it is preloaded into runs to
# its end with the output it has alone (it died of SIGBUS when a store met a page of the
# sparse records file that the file system had no room for), the file's header says
# HWS_OBJFILE_F_NOSPACE and counts the dropped records, and the records written before are
# whole: the blocks recorded are the first of alloc_churn's known sequence of sizes. On a
# 4 MiB tmpfs and a 16 MiB ext4 image (both mounted here: skipped without mount rights), with
# HWS_OBJECTS_KEEP_FREE=0 (records may fill it); with the default (64 MiB left free for the
# samples) nothing is recorded there and the program runs the same. hwsample record on such a
# file system: the samples are written (exit 0), its summary names the full file system and
# report says that allocations were not recorded (checks: tests/e2e/objects_churn_check.py).
. "$(dirname "$0")/lib/common.sh"
LIB=$HWS_BUILD_DIR/hws-objects.so
WL=$HWS_WORKLOADS/alloc_churn
CHECK=$HWS_SOURCE_DIR/tests/e2e/objects_churn_check.py
[ -f "$LIB" ] && [ -x "$WL" ] || { echo "objects_nospace: $LIB or $WL not built" >&2; exit 1; }
mkdir -p "$TMP/fs"
trap 'umount "$TMP/fs" 2>/dev/null; rm -rf "$TMP"' EXIT
mount -t tmpfs -o size=4m tmpfs "$TMP/fs" 2>/dev/null ||
	skip "cannot mount a 4 MiB tmpfs here (not root?)"
umount "$TMP/fs"
"$WL" 1 >"$TMP/bare.out"
eq "alloc_churn alone: exit" "$?" 0

# a fresh small file system on $TMP/fs: tmpfs or ext4
small() {
	if [ "$1" = tmpfs ]; then
		mount -t tmpfs -o size=4m tmpfs "$TMP/fs"
	else
		truncate -s 16M "$TMP/e4.img" && mkfs.ext4 -q -F "$TMP/e4.img" &&
			mount -o loop "$TMP/e4.img" "$TMP/fs"
	fi
}

for fs in tmpfs ext4; do
	if ! small $fs 2>"$TMP/err"; then
		echo "note: no $fs file system mounted here ($(head -c 200 "$TMP/err")): not checked"
		continue
	fi
	mkdir "$TMP/fs/o"
	HWS_OBJECTS_KEEP_FREE=0 HWS_OBJECTS_DIR=$TMP/fs/o LD_PRELOAD=$LIB "$WL" 1 >"$TMP/out" \
		2>"$TMP/err"
	eq "$fs full: the program's exit" "$?" 0
	check "$fs full: the program's output as alone" cmp -s "$TMP/out" "$TMP/bare.out"
	check "$fs full: header flag, dropped records, the first blocks whole" \
		python3 "$CHECK" nospace "$TMP"/fs/o/*.objs some
	if [ $fs = tmpfs ]; then
		rm -rf "$TMP/fs/o" && mkdir "$TMP/fs/o"
		HWS_OBJECTS_DIR=$TMP/fs/o LD_PRELOAD=$LIB "$WL" 1 >"$TMP/out" 2>"$TMP/err"
		eq "less than 64 MiB free: the program's exit" "$?" 0
		check "less than 64 MiB free: the program's output as alone" \
			cmp -s "$TMP/out" "$TMP/bare.out"
		check "less than 64 MiB free: nothing recorded, the header says why" \
			python3 "$CHECK" nospace "$TMP"/fs/o/*.objs none
	fi
	umount "$TMP/fs"
done

# hwsample record with its output on that small file system: the records leave 64 MiB free
# there, so none are kept, the samples are written (exit 0), and record and report say why
if small tmpfs 2>/dev/null; then
	"$HWS_BIN" record -b sw -e cpu-clock -c 1000000 --objects -o "$TMP/fs/x.data" -- "$WL" 1 \
		>"$TMP/out" 2>"$TMP/err"
	eq "record: exit" "$?" 0
	check "record: the program's output as alone" cmp -s "$TMP/out" "$TMP/bare.out"
	check "record's summary names the full file system" \
		grep -q "objects: .*some dropped: no space left on the output's file system" "$TMP/err"
	check "record's summary names the default headroom" grep -q "leave 64 MiB free there" "$TMP/err"
	check "record: samples written" grep -q "cpu-clock" \
		<("$HWS_BIN" report -i "$TMP/fs/x.data" --stdio 2>/dev/null)
	"$HWS_BIN" report -i "$TMP/fs/x.data" --sort object >/dev/null 2>"$TMP/err"
	check "report: allocations not recorded, the file system had no room" \
		grep -q "allocations were not recorded.*no room left" "$TMP/err"
	# another headroom (3 MiB of the 4): some records kept, the rest dropped, and named so
	rm -f "$TMP/fs/x.data"
	HWS_OBJECTS_KEEP_FREE=3145728 "$HWS_BIN" record -b sw -e cpu-clock -c 1000000 --objects \
		-o "$TMP/fs/x.data" -- "$WL" 1 >"$TMP/out" 2>"$TMP/err"
	eq "record, 3 MiB headroom: exit" "$?" 0
	check "record's summary names the headroom set" grep -q "leave 3 MiB free there" "$TMP/err"
	umount "$TMP/fs"
fi
finish
