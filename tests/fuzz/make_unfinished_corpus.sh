#!/bin/bash
# SPDX-License-Identifier: MIT
# Makes the unfinished perf.data files of the fuzz corpus (tests/fuzz/corpus/perfdata/
# unfinished_*), as recorders killed at different moments leave them:
#   unfinished_killed        hwsample's writer killed after its second round (`gen_perfdata
#                            synth-killed`): header, ids and attrs, data size at that round,
#                            no features
#   unfinished_tail          the same, killed between writing a round and updating the data
#                            size: data size at the first round, whole records after it, then
#                            half a record
#   unfinished_cut           `gen_perfdata synth` (a finished file) cut inside its data:
#                            data size past the end of the file
#   unfinished_perf_size0    perf 4.4's lost_samples file as perf leaves it when killed: data
#                            size 0 with the feature bits set, the features missing, the last
#                            record cut short
# Usage: tests/fuzz/make_unfinished_corpus.sh BUILD_DIR   (run from the source tree)
set -euo pipefail
b=${1:?usage: $0 BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/tests/fuzz/corpus/perfdata
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$b/tests/gen/gen_perfdata" synth-killed "$out/unfinished_killed"
chmod 644 "$out/unfinished_killed"
"$b/tests/gen/gen_perfdata" synth "$tmp/synth.data"
python3 - "$out" "$tmp/synth.data" "$top/tests/fuzz/corpus/perfdata/lost_samples-4.4" <<'PY'
import struct, sys
out, synth, perf44 = sys.argv[1:4]

def records(b, off, end):
    """file offsets of the whole records in [off, end)"""
    offs = []
    while off + 8 <= end:
        t, m, s = struct.unpack_from('<IHH', b, off)
        if s < 8 or off + s > end:
            break
        offs.append(off)
        off += s
    return offs, off

k = bytearray(open(out + '/unfinished_killed', 'rb').read())
doff, dsz = struct.unpack_from('<2Q', k, 40)
offs, end = records(k, doff, doff + dsz)
rounds = [o for o in offs if struct.unpack_from('<I', k, o)[0] == 68]  # FINISHED_ROUND
struct.pack_into('<Q', k, 48, rounds[0] + 8 - doff)
half = k[offs[2]:offs[2] + struct.unpack_from('<H', k, offs[2] + 6)[0] // 2]
open(out + '/unfinished_tail', 'wb').write(bytes(k[:end]) + bytes(half))

s = open(synth, 'rb').read()
doff, dsz = struct.unpack_from('<2Q', s, 40)
open(out + '/unfinished_cut', 'wb').write(s[:doff + dsz // 2 + 3])

p = bytearray(open(perf44, 'rb').read())
doff, dsz = struct.unpack_from('<2Q', p, 40)
struct.pack_into('<Q', p, 48, 0)
open(out + '/unfinished_perf_size0', 'wb').write(bytes(p[:doff + dsz - 5]))
PY
ls -l "$out"/unfinished_*
