#!/bin/bash
# SPDX-License-Identifier: MIT
# Seed corpus of fuzz_objects: the allocation records of a real run of
# tests/workloads/objects_truth under hws-objects.so (one process's file: header + records,
# as the perf.data feature holds them), two files in a row, and damaged copies (cut short,
# bad magic, used past the end, records out of order). Usage: make_objects_corpus.sh BUILD
set -e
b=${1:?usage: make_objects_corpus.sh BUILD_DIR}
out=$(dirname "$0")/corpus/objects
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$out"
HWS_OBJECTS_DIR=$d LD_PRELOAD=$b/hws-objects.so "$b/tests/workloads/objects_truth" >/dev/null
python3 - "$d" "$out" <<'PY'
import glob, os, struct, sys
d, out = sys.argv[1:]
f = sorted(glob.glob(os.path.join(d, "*.objs")))[0]
raw = open(f, "rb").read(128)
used = struct.unpack_from("<Q", raw, 40)[0]
one = open(f, "rb").read(128 + used)
def w(name, b):
    open(os.path.join(out, name), "wb").write(b)
w("run", one)
w("two-files", one + one)
w("cut", one[: len(one) - 37])
w("bad-magic", b"X" + one[1:])
big = bytearray(one); struct.pack_into("<Q", big, 40, used * 100); w("used-past-end", bytes(big))
recs = [one[128 + i * 80: 128 + (i + 1) * 80] for i in range(used // 80)]
w("reversed", one[:128] + b"".join(reversed(recs)))
w("header-only", one[:128])
PY
ls "$out"
