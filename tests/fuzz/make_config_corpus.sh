#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Seeds tests/fuzz/corpus/config/ for fuzz_config: the shipped cfg/*.conf and the edge cases
# of tests/e2e/record_config_limits.sh (BOM, a long line, duplicates, a key outside any
# section). Run from anywhere; rewrites the directory.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/tests/fuzz/corpus/config
rm -rf "$out"
mkdir -p "$out"
cp "$top"/cfg/*.conf "$out"/
printf '\xef\xbb\xbf[run]\nfreq = 100\n' >"$out/bom"
printf '[run]\nevents = %s\n' "$(head -c 300 /dev/zero | tr '\0' a)" >"$out/long_line"
printf '[run]\nfreq = 1\nfreq = 2\n[run]\n' >"$out/twice"
printf 'freq = 1\n[ibs_op]\n  continued\nk = v ; c\n' >"$out/outside"
