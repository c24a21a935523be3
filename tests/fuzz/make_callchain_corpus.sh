#!/bin/bash
# SPDX-License-Identifier: MIT
# Makes the call-chain seeds of the fuzz corpus (tests/fuzz/corpus/{decode,perfdata}/callchain_*):
#   callchain_markers    written by tests/unit/test_decode_callchain: kernel and user markers, a
#                        chain of markers only, nr 0, an unknown marker, an nr that overruns
#                        its record, a sample of an event without CALLCHAIN
#   callchain_hws_fp     `hwsample -b sw -e page-faults -c 1 -g -- true`
#   callchain_perf_fp    `perf record -e page-faults -c 1 -g -- true`
#   callchain_perf_dwarf `perf record -e page-faults -c 4 --call-graph dwarf,512 -- true`
#                        (REGS_USER + STACK_USER samples)
# Usage: tests/fuzz/make_callchain_corpus.sh BUILD_DIR   (run from the source tree)
set -euo pipefail
b=${1:?usage: $0 BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
d=$top/tests/fuzz/corpus/decode
p=$top/tests/fuzz/corpus/perfdata
"$b/tests/test_decode_callchain" "$d/callchain_markers" >/dev/null
"$b/hwsample" -q -b sw -e page-faults -c 1 -g -N -o "$d/callchain_hws_fp" -- true
perf record -q -e page-faults -c 1 -g -o "$d/callchain_perf_fp" -- true
perf record -q -e page-faults -c 4 --call-graph dwarf,512 -o "$d/callchain_perf_dwarf" -- true
chmod 644 "$d"/callchain_*
for f in callchain_markers callchain_hws_fp callchain_perf_dwarf; do
	cp "$d/$f" "$p/$f"
done
