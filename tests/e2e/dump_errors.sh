#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample dump / report on broken input: a record with size 0 in the middle of a perf
# recording, a file truncated inside a record, a truncated pipe stream, and randomly
# corrupted copies. Each must give an error naming the byte offset (and record type; the
# truncated file: the message of an unfinished file, naming the offset where its whole
# records end), exit 1, and print exactly the samples decoded before the bad record;
# corrupted copies must never crash or hang (exit 0 or 1 within the time limit).
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
W=${HWS_WORKLOADS:-}/memdemo
[ -x "$W" ] || skip "workload $W not built"

perf record -q -e cpu-clock/period=500000/ -e page-faults/period=4/ -d --sample-cpu \
	-o "$TMP/f.data" -- "$W" >/dev/null 2>"$TMP/rec.err" ||
	skip "perf record failed: $(head -c 300 "$TMP/rec.err")"

# offsets of SAMPLE records, from perf itself: "... 0xOFF [0xSIZE]: PERF_RECORD_SAMPLE"
# (perf -D prints samples in time order: sort them back into file order)
perf report -D -i "$TMP/f.data" 2>/dev/null |
	sed -nE 's/.* (0x[0-9a-f]+) \[(0x[0-9a-f]+)\]: PERF_RECORD_SAMPLE.*/\1 \2/p' |
	while read -r o s; do printf '%016x %s %s\n' "$o" "$o" "$s"; done | sort |
	cut -d' ' -f2- >"$TMP/samples"
nsamp=$(wc -l <"$TMP/samples")
check "perf sees samples ($nsamp)" test "$nsamp" -gt 200
k=$((nsamp / 2))
off=$(sed -n "${k}p" "$TMP/samples" | cut -d' ' -f1)

# 1. size 0 in the header of sample #k
cp "$TMP/f.data" "$TMP/z.data"
printf '\x00\x00' | dd of="$TMP/z.data" bs=1 seek=$((off + 6)) conv=notrunc 2>/dev/null
"$HWS_BIN" dump -i "$TMP/z.data" --json >"$TMP/z.out" 2>"$TMP/z.err"
eq "size 0: exit code" "$?" 1
check "size 0: error names offset $off" grep -q "offset $off" "$TMP/z.err"
check "size 0: error names the record type" grep -q "SAMPLE" "$TMP/z.err"
eq "size 0: samples before the bad record are printed" "$(wc -l <"$TMP/z.out")" $((k - 1))
"$HWS_BIN" report -i "$TMP/z.data" --ascii >"$TMP/zr.out" 2>"$TMP/zr.err"
eq "report on size 0: exit code" "$?" 1
check "report on size 0: error names offset" grep -q "offset $off" "$TMP/zr.err"
check "report on size 0: report of the samples before it" \
	grep -q "# hwsample report: $((k - 1)) samples" "$TMP/zr.out"

# 2. truncated inside sample #k (file mode: header says the data goes on): an unfinished
# file, read up to the record cut short, which ends the data
size=$(sed -n "${k}p" "$TMP/samples" | cut -d' ' -f2)
cp "$TMP/f.data" "$TMP/t.data"
truncate -s $((off + size / 2)) "$TMP/t.data"
"$HWS_BIN" dump -i "$TMP/t.data" --csv >"$TMP/t.out" 2>"$TMP/t.err"
eq "truncated: exit code" "$?" 1
check "truncated: unfinished, $((k - 1)) samples up to byte $((off)) (sample #$k cut short)" \
	grep -q "t.data is unfinished (data size past the end of the file.*): $((k - 1)) samples recovered up to byte $((off)) (the $((size / 2)) bytes after it are no whole record)" "$TMP/t.err"
eq "truncated: earlier samples printed (csv + header)" "$(wc -l <"$TMP/t.out")" "$k"

# 3. truncated pipe stream
perf record -q -e cpu-clock/period=500000/ -o - -- "$W" 2>/dev/null >"$TMP/p.data"
psize=$(stat -c %s "$TMP/p.data")
head -c $(((psize * 2 / 3) | 5)) "$TMP/p.data" | "$HWS_BIN" dump -i - >"$TMP/p.out" 2>"$TMP/p.err"
eq "truncated pipe: exit code" "${PIPESTATUS[1]}" 1
check "truncated pipe: error with offset" grep -q "offset 0x" "$TMP/p.err"
check "truncated pipe: earlier samples printed" test "$(wc -l <"$TMP/p.out")" -gt 10

# 4. random corruption: never a crash, a hang or a sanitizer report
fsize=$(stat -c %s "$TMP/f.data")
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
	cp "$TMP/f.data" "$TMP/r.data"
	RANDOM=$seed
	for i in $(seq 1 40); do
		pos=$(( (RANDOM * 32768 + RANDOM) % fsize ))
		printf "\\x$(printf %02x $((RANDOM % 256)))" |
			dd of="$TMP/r.data" bs=1 seek=$pos conv=notrunc 2>/dev/null
	done
	for mode in "dump --json" "report --ascii"; do
		timeout 60 "$HWS_BIN" $mode -i "$TMP/r.data" >/dev/null 2>"$TMP/r.err"
		rc=$?
		check "corrupt seed $seed ($mode): exit 0/1, got $rc" test "$rc" -le 1
		check "corrupt seed $seed ($mode): no sanitizer report" \
			bash -c "! grep -q 'Sanitizer' '$TMP/r.err'"
	done
done

echo "dump_errors: $CHECKS checks, $FAILS failed"
[ "$FAILS" = 0 ]
