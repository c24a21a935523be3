#!/bin/bash
# SPDX-License-Identifier: MIT
# Makes tests/fuzz/corpus/unwind/: real --call-graph dwarf samples of the unwind_chains
# workload as fuzz_unwind inputs (where the executable and libc were mapped, the user
# registers, the stack copy; see tests/fuzz/fuzz_unwind.c), 16 samples spread over a
# `perf record --call-graph dwarf -e cpu-clock:u` run, written by test_unwind --corpus.
# Usage: tests/fuzz/make_unwind_corpus.sh BUILD_DIR   (run from the source tree; needs perf)
set -euo pipefail
b=${1:?usage: $0 BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/tests/fuzz/corpus/unwind
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf record -q --call-graph dwarf -e cpu-clock:u -F 1000 -o "$tmp/p.data" \
	"$b/tests/workloads/unwind_chains" 300 >/dev/null
mkdir -p "$out"
rm -f "$out"/sample-*
"$b/tests/test_unwind" --corpus "$out" "$tmp/p.data" >/dev/null
chmod 644 "$out"/sample-*
ls "$out" | wc -l
