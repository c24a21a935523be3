#!/bin/bash
# SPDX-License-Identifier: MIT
# hws-objects.so's threshold, block by block: tests/workloads/alloc_churn (a million blocks of
# a known pseudo-random sequence of sizes, each freed) runs with the recorder preloaded as
# record --objects preloads it, and its records file is read here: the heap blocks recorded
# are exactly those of at least HWS_OBJECTS_MIN bytes, in order, with their sizes; and the
# frees recorded are those of the blocks whose glibc chunk reaches the threshold's chunk:
# every recorded block's free (its address freed after it was made), at least the blocks
# whose request makes such a chunk (the request and its 8-byte header, rounded up to 16)
# and at most those a chunk 16 bytes larger than that would (malloc hands out a whole free
# chunk when the rest would be too small to split); the reader ignores frees of blocks it
# does not know. stdio's buffer (printf at the end) may follow the sequence's blocks. At
# the default 1024 bytes and at 1500 (blocks of 1497-1499 bytes then give frees only).
# The checks: tests/e2e/objects_churn_check.py.
. "$(dirname "$0")/lib/common.sh"
LIB=$HWS_BUILD_DIR/hws-objects.so
WL=$HWS_WORKLOADS/alloc_churn
CHECK=$HWS_SOURCE_DIR/tests/e2e/objects_churn_check.py
[ -f "$LIB" ] && [ -x "$WL" ] ||
	{ echo "objects_preload_frees: $LIB or $WL not built" >&2; exit 1; }
for min in 1024 1500; do
	rm -rf "$TMP/o" && mkdir "$TMP/o"
	HWS_OBJECTS_DIR=$TMP/o HWS_OBJECTS_MIN=$min LD_PRELOAD=$LIB "$WL" 1 >"$TMP/out"
	eq "alloc_churn with the recorder (min $min): exit" "$?" 0
	check "min $min: one records file" [ "$(ls "$TMP/o" | wc -l)" = 1 ]
	check "min $min: blocks and frees as the threshold says" \
		python3 "$CHECK" frees "$TMP"/o/*.objs "$min" "$TMP/sizes"
done
# four threads making the sequence at once (on this machine's CPUs, more threads than CPUs):
# they reserve the file's records together and wait for each other where the zeros written
# ahead of the records end; no record of any is lost or overwritten
rm -rf "$TMP/o" && mkdir "$TMP/o"
HWS_OBJECTS_DIR=$TMP/o LD_PRELOAD=$LIB "$WL" 1 4 >"$TMP/out"
eq "alloc_churn, 4 threads, with the recorder: exit" "$?" 0
check "4 threads: every thread's blocks recorded, whole and in order" \
	python3 "$CHECK" threads "$TMP"/o/*.objs 4 "$TMP/sizes"
finish
