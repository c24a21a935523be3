#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hws-objects.so's records of tests/workloads/alloc_churn (1 million blocks) against the
workload's known sequence of sizes (tests/e2e/objects_preload_frees.sh and
tests/e2e/objects_nospace.sh).

  objects_churn_check.py frees FILE MIN CACHE
      the heap blocks recorded are exactly those of at least MIN bytes, in order, with their
      sizes (stdio's buffer may follow them); every one's free is recorded after it; the
      number of frees lies within glibc's chunk rule. CACHE keeps the sizes between runs.
  objects_churn_check.py threads FILE THREADS CACHE
      alloc_churn 1 THREADS: each of THREADS threads other than the main one recorded exactly
      the sequence's blocks of 1 KiB or more, in order, and none was dropped.
  objects_churn_check.py nospace FILE some|none
      the header says the file system had no room (HWS_OBJFILE_F_NOSPACE) and counts dropped
      records; the blocks recorded are the first of the sequence's blocks of 1 KiB or more
      (some of them, or none).
Exit 0 when it holds.
"""
import array
import os
import struct
import sys

HDR = 128  # sizeof(struct hws_objfile)
N = 1000000
M = (1 << 64) - 1


def churn_sizes(cache=None):
    """alloc_churn's block sizes (tests/workloads/alloc_churn.c, alloc_bench.h's xorshift64)"""
    sizes = array.array("I")
    if cache and os.path.exists(cache):
        with open(cache, "rb") as f:
            sizes.fromfile(f, N)
        return sizes.tolist()
    x = 88172645463325252
    for _ in range(N):
        x ^= (x << 13) & M
        x ^= x >> 7
        x ^= (x << 17) & M
        sizes.append(16 + (x >> 8) % 993 if x & 3 else 1024 + (x >> 8) % (15 * 1024))
    if cache:
        with open(cache, "wb") as f:
            sizes.tofile(f)
    return sizes.tolist()


def read_objs(path, tids=None):
    """the header's fields and the (time, addr, size) blocks and (time, addr) frees recorded
    (with @tids a dict: each block's thread id appended to the list of its size there);
    only the header and the records used are read (the file is sparse, 1 GiB)"""
    with open(path, "rb") as f:
        data = f.read(HDR)
        rec_size, = struct.unpack_from("<I", data, 12)
        used, cap, dropped = struct.unpack_from("<QQQ", data, 40)
        flags, = struct.unpack_from("<Q", data, 88)
        data += f.read(min(used, cap))
    allocs, frees = [], []
    for off in range(HDR, len(data) - rec_size + 1, rec_size):
        t, n = data[off], data[off + 1]
        if t == 11:  # ALLOCS: (time, addr, size, fn << 32 | site) each
            tid, = struct.unpack_from("<I", data, off + 4)
            for j in range(n):
                allocs.append(struct.unpack_from("<QQQQ", data, off + 8 + 32 * j)[:3])
                if tids is not None:
                    tids.setdefault(tid, []).append(allocs[-1][2])
        elif t == 8:  # FREES: (time, addr) each
            for j in range(n):
                frees.append(struct.unpack_from("<QQ", data, off + 8 + 16 * j))
        elif t in (1, 3):  # heap blocks go in ALLOCS, frees in FREES (a FREE: a TLS end)
            sys.exit("unexpected single ALLOC/REALLOC record %d" % t)
    return {"flags": flags, "dropped": dropped}, allocs, frees


def check_frees(path, lo, cache):
    sizes = churn_sizes(cache)
    _, allocs, frees = read_objs(path)
    chunk = lambda n: (n + 8 + 15) & ~15  # glibc x86-64: the request and its header, 16-aligned
    need = (lo + 8 + 7) & ~7
    want_sizes = [s for s in sizes if s >= lo]
    got_sizes = [a[2] for a in allocs]
    want_lo = sum(1 for s in sizes if chunk(s) >= need)
    want_hi = sum(1 for s in sizes if chunk(s) + 16 >= need)
    extra = got_sizes[len(want_sizes):]
    print("min %d: %d blocks recorded (%d of the sequence reach it, then %s), %d frees "
          "recorded (rule: %d-%d)" % (lo, len(allocs), len(want_sizes), extra, len(frees),
                                      want_lo, want_hi))
    ok = got_sizes[:len(want_sizes)] == want_sizes and len(extra) <= 2 and \
        min(extra + [lo]) >= lo
    if not ok:
        print("block sizes differ from the sequence's at", next(
            (i for i, (a, b) in enumerate(zip(got_sizes, want_sizes)) if a != b),
            min(len(got_sizes), len(want_sizes))))
    # every recorded block is freed after it was made (addresses are reused: match in time)
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
    return ok and not left and in_rule


def check_threads(path, nthreads, cache):
    want = [s for s in churn_sizes(cache) if s >= 1024]
    tids = {}
    hdr, _, _ = read_objs(path, tids)
    pid, = struct.unpack_from("<I", open(path, "rb").read(HDR), 16)
    threads = {t: v for t, v in tids.items() if t != pid}
    same = sum(1 for v in threads.values() if v == want)
    print("%d threads recorded blocks, %d of them exactly the sequence's %d; dropped %d, "
          "flags %d" % (len(threads), same, len(want), hdr["dropped"], hdr["flags"]))
    for t, v in threads.items():
        if v != want:
            i = next((i for i, (a, b) in enumerate(zip(v, want)) if a != b), min(len(v), len(want)))
            print("thread %d: %d blocks, differ from the sequence at %d" % (t, len(v), i))
    return len(threads) == nthreads and same == nthreads and not hdr["dropped"] and \
        not hdr["flags"]


def check_nospace(path, how):
    sizes = [s for s in churn_sizes() if s >= 1024]
    hdr, allocs, _ = read_objs(path)
    got = [a[2] for a in allocs]
    print("flags %d, dropped %d, %d blocks recorded of %d" %
          (hdr["flags"], hdr["dropped"], len(got), len(sizes)))
    some = (0 < len(got) < len(sizes)) if how == "some" else not got
    return bool(hdr["flags"] & 1) and hdr["dropped"] > 0 and some and got == sizes[:len(got)]


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "frees":
        ok = check_frees(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 5 and sys.argv[1] == "threads":
        ok = check_threads(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "nospace" and sys.argv[3] in ("some", "none"):
        ok = check_nospace(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
    sys.exit(0 if ok else 1)
