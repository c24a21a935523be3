#!/bin/bash
# SPDX-License-Identifier: MIT
# With HWS_DECODE_THREADS=1 the decoder reads the next rounds in a thread while the current
# ones are dispatched, and with HWS_DUMP_THREADS=1 dump formats in another (no --sym, no
# --raw). The output must be byte
# for byte what one thread prints (HWS_DECODE_THREADS=0 HWS_DUMP_THREADS=0) for JSON, CSV
# and text, with --limit and -e, on files with many rounds and batches (PEBS, SPE AUX with
# AUXTRACE_INFO/TIME_CONV, a real fixture), and for report; a closed pipe or a full disk must
# end the run with the usual exit code, never a hang; a corrupt file still prints every
# sample before the bad record.
# hws-test: static-too
. "$(dirname "$0")/lib/common.sh"
need_gen intel_pebs arm_spe
B=$HWS_GEN
[ "$(nproc)" -ge 2 ] || skip "one CPU: dump never starts the formatter thread"

"$B/gen_intel_pebs" -o "$TMP/pebs.data" -n 30000 -m spr -s 3 >/dev/null || fail "pebs gen"
"$B/gen_arm_spe" -o "$TMP/spe.data" -n 20000 -c 2 -s 5 >/dev/null || fail "spe gen"
files="$TMP/pebs.data $TMP/spe.data $HWS_FIXTURES/perf_data_converter/perf.data.weight_struct"

for f in $files; do
	n=$(basename "$f")
	for args in "--json" "--csv" "--no-sym" "--json --limit 9000" "--csv -e cpu/mem-stores/P"; do
		# shellcheck disable=SC2086
		HWS_DECODE_THREADS=0 HWS_DUMP_THREADS=0 "$HWS_BIN" dump -i "$f" $args >"$TMP/one" \
			2>"$TMP/one.err"
		r1=$?
		# shellcheck disable=SC2086
		HWS_DECODE_THREADS=1 HWS_DUMP_THREADS=1 "$HWS_BIN" dump -i "$f" $args >"$TMP/two" \
			2>"$TMP/two.err"
		r2=$?
		eq "$n $args: exit code" "$r2" "$r1"
		check "$n $args: same output as one thread ($(wc -l <"$TMP/one") lines)" \
			cmp -s "$TMP/one" "$TMP/two"
		check "$n $args: same stderr" cmp -s "$TMP/one.err" "$TMP/two.err"
	done
done
for f in $files; do
	HWS_DECODE_THREADS=0 "$HWS_BIN" report -i "$f" >"$TMP/r1" 2>&1
	HWS_DECODE_THREADS=1 "$HWS_BIN" report -i "$f" >"$TMP/r2" 2>&1
	check "report $(basename "$f"): same as one thread" cmp -s "$TMP/r1" "$TMP/r2"
done
eq "limit honoured" "$("$HWS_BIN" dump -i "$TMP/pebs.data" --json --limit 9000 2>/dev/null | wc -l)" 9000
check "the -e case selects something" test "$("$HWS_BIN" dump -i "$TMP/pebs.data" --csv \
	-e cpu/mem-stores/P 2>/dev/null | wc -l)" -gt 100

# closed pipe: the reader of the output goes away after one line
HWS_DECODE_THREADS=1 HWS_DUMP_THREADS=1 timeout 20 bash -c "'$HWS_BIN' dump -i '$TMP/pebs.data' --json 2>'$TMP/pipe.err' | head -1 >/dev/null"
eq "closed pipe: no hang" "$?" 0
# full disk
HWS_DECODE_THREADS=1 HWS_DUMP_THREADS=1 timeout 20 "$HWS_BIN" dump -i "$TMP/pebs.data" \
	--json >/dev/full 2>"$TMP/full.err"
eq "/dev/full: exit code 1 (no hang)" "$?" 1
check "/dev/full: says write error" grep -q "write error" "$TMP/full.err"

# corrupt: zero the size of a record in the middle; both paths print the same prefix
size=$(stat -c %s "$TMP/pebs.data")
cp "$TMP/pebs.data" "$TMP/bad.data"
# a record boundary: the first SAMPLE (type 9) past the middle, from gen_perfdata records
if [ -x "$B/gen_perfdata" ]; then
	off=
	while read -r o _ t; do
		if [ "$t" = 9 ] && [ $((o)) -gt $((size / 2)) ]; then
			off=$((o))
			break
		fi
	done < <("$B/gen_perfdata" records "$TMP/pebs.data" 2>/dev/null)
	if [ -n "$off" ]; then
		printf '\x00\x00' | dd of="$TMP/bad.data" bs=1 seek=$((off + 6)) conv=notrunc 2>/dev/null
		HWS_DECODE_THREADS=0 HWS_DUMP_THREADS=0 "$HWS_BIN" dump -i "$TMP/bad.data" --json \
			>"$TMP/b1" 2>/dev/null
		r1=$?
		HWS_DECODE_THREADS=1 HWS_DUMP_THREADS=1 "$HWS_BIN" dump -i "$TMP/bad.data" --json \
			>"$TMP/b2" 2>/dev/null
		r2=$?
		eq "corrupt: exit code 1" "$r2" 1
		eq "corrupt: same exit code as one thread" "$r2" "$r1"
		check "corrupt: same samples before the bad record ($(wc -l <"$TMP/b1"))" \
			cmp -s "$TMP/b1" "$TMP/b2"
		check "corrupt: thousands of samples before it" test "$(wc -l <"$TMP/b2")" -gt 5000
	else
		fail "no SAMPLE record found past the middle"
	fi
fi
finish
