#!/bin/bash
# SPDX-License-Identifier: MIT
# Makes tests/fuzz/corpus/sw/: fuzz_sw inputs (tests/fuzz/fuzz_sw.c: flags byte, blob length,
# HEADER_TRACING_DATA blob, one RAW payload) cut from real tracepoint recordings: hwsample's
# (sched:sched_switch, sched:sched_process_exec with its __data_loc filename, irq_vectors /
# syscalls if present) and perf's (the same events, perf's full tracing data with
# header_page, ftrace formats, kallsyms and printk sections): for each file its blob with up
# to 3 samples' RAW payloads, plus the blob with no RAW.
# Usage: tests/fuzz/make_sw_corpus.sh BUILD_DIR   (run from the source tree; needs perf, root)
set -euo pipefail
b=${1:?usage: $0 BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/tests/fuzz/corpus/sw
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ev="-e sched:sched_switch -e sched:sched_process_exec -e syscalls:sys_enter_openat"
"$b/hwsample" -q -b sw $ev -o "$tmp/hws.data" -- /bin/sh -c 'cat /dev/null; ls / >/dev/null' \
	>/dev/null 2>&1
perf record -q $ev -o "$tmp/perf.data" -- /bin/sh -c 'cat /dev/null; ls / >/dev/null' \
	>/dev/null 2>&1
mkdir -p "$out"
rm -f "$out"/tp-*
python3 - "$out" "$tmp/hws.data" "$tmp/perf.data" <<'PY'
import struct, sys
out = sys.argv[1]
for path in sys.argv[2:]:
    d = open(path, "rb").read()
    (magic, hsize, attr_size, a_off, a_size, d_off, d_size, t_off, t_size) = struct.unpack_from("<8sQQQQQQQQ", d)
    feats = int.from_bytes(d[72:104], "little")
    # feature sections follow the data, one (offset, size) per set bit, in bit order
    secs, p = {}, d_off + d_size
    for bit in range(256):
        if feats >> bit & 1:
            secs[bit] = struct.unpack_from("<QQ", d, p); p += 16
    if 1 not in secs:
        sys.exit(f"{path}: no HEADER_TRACING_DATA")
    o, n = secs[1]
    blob = d[o:o + n]
    # attrs: sample_type of each (ids not needed: every event here has the same layout)
    st = struct.unpack_from("<Q", d, a_off + 24)[0]
    raws, p, end = [], d_off, d_off + d_size
    while p + 8 <= end and len(raws) < 3:
        typ, misc, size = struct.unpack_from("<IHH", d, p)
        if size < 8: break
        if typ == 9:
            q = p + 8
            for bit in (0x10000, 0x1, 0x2, 0x4, 0x8, 0x40, 0x200, 0x80, 0x100):
                if st & bit: q += 8  # IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD
            if st & 0x20:  # CALLCHAIN
                nr = struct.unpack_from("<Q", d, q)[0]; q += 8 + 8 * nr
            if st & 0x400:  # RAW
                rs = struct.unpack_from("<I", d, q)[0]
                raws.append(d[q + 4:q + 4 + rs])
        p += size
    name = "hws" if "hws" in path else "perf"
    hdr = lambda flags: bytes([flags]) + struct.pack("<I", len(blob))
    open(f"{out}/tp-{name}-noraw", "wb").write(hdr(1) + blob)
    for i, r in enumerate(raws):
        open(f"{out}/tp-{name}-{i}", "wb").write(hdr(0) + blob + r)
    print(f"{path}: blob {len(blob)} bytes, {len(raws)} samples")
PY
chmod 644 "$out"/tp-*
ls "$out" | wc -l
