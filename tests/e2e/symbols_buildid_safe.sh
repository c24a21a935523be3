#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Files hwsample writes are never written through a planted symlink:
#  - the build-id cache's temporary kallsyms copy: a symlink planted where the old code
#    wrote it ([kernel.kallsyms]/<id>/.kallsyms.<pid>) is left alone, its target untouched,
#    and the copy still lands in place;
#  - record -o FILE where FILE is a symlink to a file that does not exist yet (a shared
#    directory): refused with a message naming it, the target is not created; where it is
#    a symlink to a regular file, that file is untouched (the link moves to FILE.old, as perf
#    moves an existing output file).
. "$(dirname "$0")/lib/common.sh"
need_sw_events
echo precious >"$TMP/victim"
export HWS_BIN

bid=$(perf buildid-list -k 2>/dev/null || true)
text=$(awk '$3 == "_text" {print $1; exit}' /proc/kallsyms)
if [ -n "$bid" ] && [ -n "$text" ] && [ "$text" != 0000000000000000 ]; then
	dir=$TMP/cache/[kernel.kallsyms]/$bid
	mkdir -p "$dir"
	# plant the old temporary name for the pid the recording will have ($$ of sh -c, which
	# exec keeps)
	PERF_BUILDID_DIR=$TMP/cache D=$dir V=$TMP/victim O=$TMP/b.data sh -c \
		'ln -s "$V" "$D/.kallsyms.$$" && exec "$HWS_BIN" -q -b sw -e cpu-clock -o "$O" -- true' \
		>/dev/null 2>"$TMP/err"
	eq "record with a planted symlink in the cache: exit" $? 0
	eq "planted symlink's target untouched" "$(cat "$TMP/victim")" precious
	check "kallsyms copy in place" test -s "$dir/kallsyms" -a ! -L "$dir/kallsyms"
	eq "the copy's _text" "$(awk '$3 == "_text" {print $1; exit}' "$dir/kallsyms")" "$text"
	eq "no temporary left" "$(find "$dir" -name '.kallsyms.*' ! -type l | wc -l)" 0
else
	echo "note: no kernel build-id or kallsyms addresses hidden: cache check skipped"
fi

# -o through a dangling symlink: refused, nothing created at its target
ln -s "$TMP/created-by-attacker" "$TMP/out.data"
"$HWS_BIN" -q -N -b sw -e cpu-clock -o "$TMP/out.data" -- true >/dev/null 2>"$TMP/err"
eq "-o dangling symlink: exit" $? 1
check "-o dangling symlink: target not created" test ! -e "$TMP/created-by-attacker"
check "-o dangling symlink: says it is a symbolic link" grep -q "symbolic link" "$TMP/err"

# -o a symlink to a regular file: the file keeps its content, a new regular file is written
ln -s "$TMP/victim" "$TMP/out2.data"
"$HWS_BIN" -q -N -b sw -e cpu-clock -o "$TMP/out2.data" -- true >/dev/null 2>"$TMP/err"
eq "-o symlink to a file: exit" $? 0
eq "-o symlink to a file: target untouched" "$(cat "$TMP/victim")" precious
check "-o symlink to a file: output is a regular file" test -f "$TMP/out2.data" -a ! -L "$TMP/out2.data"
"$HWS_BIN" dump -i "$TMP/out2.data" >/dev/null 2>&1
eq "-o symlink to a file: output readable" $? 0
finish
