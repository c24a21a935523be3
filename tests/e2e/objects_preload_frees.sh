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
. "$(dirname "$0")/lib/common.sh"
LIB=$HWS_BUILD_DIR/hws-objects.so
WL=$HWS_WORKLOADS/alloc_churn
[ -f "$LIB" ] && [ -x "$WL" ] || { echo "objects_preload_frees: $LIB or $WL not built" >&2; exit 1; }
for min in 1024 1500; do
	rm -rf "$TMP/o" && mkdir "$TMP/o"
	HWS_OBJECTS_DIR=$TMP/o HWS_OBJECTS_MIN=$min LD_PRELOAD=$LIB "$WL" 1 >"$TMP/out"
	eq "alloc_churn with the recorder (min $min): exit" "$?" 0
	check "min $min: one records file" [ "$(ls "$TMP/o" | wc -l)" = 1 ]
	check "min $min: blocks and frees as the threshold says" python3 - "$TMP"/o/*.objs "$min" "$TMP/sizes" <<'PY'
import array, os, struct, sys
path, lo, cache = sys.argv[1], int(sys.argv[2]), sys.argv[3]
M = (1 << 64) - 1
# alloc_churn's sizes (tests/workloads/alloc_churn.c, alloc_bench.h's xorshift64), worked
# out by the first run
sizes = array.array("I")
if os.path.exists(cache):
    with open(cache, "rb") as f:
        sizes.fromfile(f, 1000000)
else:
    x = 88172645463325252
    for i in range(1000000):
        x ^= (x << 13) & M
        x ^= x >> 7
        x ^= (x << 17) & M
        sizes.append(16 + (x >> 8) % 993 if x & 3 else 1024 + (x >> 8) % (15 * 1024))
    with open(cache, "wb") as f:
        sizes.tofile(f)
sizes = sizes.tolist()
chunk = lambda n: (n + 8 + 15) & ~15  # glibc x86-64: the request and its header, 16-aligned
need = ((lo + 8 + 7) & ~7)
with open(path, "rb") as f:  # the header, then the records used (the file is sparse, 1 GiB)
    data = f.read(128)
    rec_size, = struct.unpack_from("<I", data, 12)
    used, = struct.unpack_from("<Q", data, 40)
    data += f.read(used)
allocs, frees = [], []
for off in range(128, 128 + used, rec_size):
    t, n = data[off], data[off + 1]
    if t == 11:  # ALLOCS: (time, addr, size, fn << 32 | site) each
        for j in range(n):
            allocs.append(struct.unpack_from("<QQQQ", data, off + 8 + 32 * j)[:3])
    elif t == 8:  # FREES: (time, addr) each
        for j in range(n):
            frees.append(struct.unpack_from("<QQ", data, off + 8 + 16 * j))
    elif t in (1, 2, 3):
        sys.exit("unexpected single ALLOC/FREE/REALLOC record %d" % t)
want_sizes = [s for s in sizes if s >= lo]
got_sizes = [a[2] for a in allocs]
want_lo = sum(1 for s in sizes if chunk(s) >= need)
want_hi = sum(1 for s in sizes if chunk(s) + 16 >= need)
extra = got_sizes[len(want_sizes):]
print("min %d: %d blocks recorded (%d of the sequence reach it, then %s), %d frees recorded "
      "(rule: %d-%d)" % (lo, len(allocs), len(want_sizes), extra, len(frees), want_lo, want_hi))
ok = got_sizes[:len(want_sizes)] == want_sizes and len(extra) <= 2 and min(extra + [lo]) >= lo
if not ok:
    print("block sizes differ from the sequence's at", next((i for i, (a, b) in
          enumerate(zip(got_sizes, want_sizes)) if a != b), min(len(got_sizes), len(want_sizes))))
# every recorded block is freed after it was made (addresses are reused: match in time order)
pending = {}
for t, a, s in allocs[:len(want_sizes)]:
    pending.setdefault(a, []).append(t)
for t, a in sorted(frees):
    if pending.get(a) and pending[a][0] <= t:
        pending[a].pop(0)
left = sum(len(v) for v in pending.values())
if left:
    print("%d recorded blocks have no recorded free" % left)
in_rule = want_lo <= len(frees) <= want_hi + len(extra)
if not in_rule:
    print("frees recorded: %d, the chunk rule gives %d-%d" % (len(frees), want_lo, want_hi))
sys.exit(0 if ok and not left and in_rule else 1)
PY
done
finish
