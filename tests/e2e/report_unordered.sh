#!/bin/bash
# SPDX-License-Identifier: MIT
# `report` and `c2c report` take samples in file order (the decoder's unordered delivery:
# they only aggregate), each sample seeing the side-band as in time order (those near a
# COMM/MMAP/FORK in time wait and go in time order). HWS_DECODE_ORDERED=1 forces time order.
# Both must print the same report, the same stderr and exit with the same code: on every
# fixture, on generated PEBS / IBS / Intel c2c files, on an SPE AUX file (which always decodes
# in time order), on a system-wide perf recording here (COMM/MMAP/FORK from several CPUs'
# rings, a process started every few ms: sort keys and filters that name processes, DSOs and
# symbols at each sample's time), and on truncated and bit-flipped copies (the same records
# before the same error).
# hws-test: static-too
. "$(dirname "$0")/lib/common.sh"
need_gen intel_pebs c2c arm_spe
B=$HWS_GEN

"$B/gen_intel_pebs" -o "$TMP/pebs.data" -n 20000 -m spr -s 11 >/dev/null || fail "pebs gen"
"$B/gen_c2c" -o "$TMP/c2c.data" -v intel -n 20000 -s 5 >/dev/null || fail "c2c gen"
"$B/gen_c2c" -o "$TMP/ibs.data" -v ibs-zen4 -n 20000 -s 6 >/dev/null || fail "ibs gen"
"$B/gen_arm_spe" -o "$TMP/spe.data" -n 5000 -c 2 -s 4 --switches >/dev/null || fail "spe gen"
files="$TMP/pebs.data $TMP/c2c.data $TMP/ibs.data $TMP/spe.data"
if command -v perf >/dev/null 2>&1 &&
	# small rings (-m 4): a round every few ms, as in a busy machine's recording
	perf record -q -a -m 4 -e cpu-clock -c 50000 -o "$TMP/sys.data" -- \
		sh -c 'for i in $(seq 60); do ls -R /usr/lib/x86_64-linux-gnu >/dev/null; done' \
		>/dev/null 2>&1; then
	files="$files $TMP/sys.data"
	for cmd in "report --stdio --sort comm,dso,sym" "report --stdio --sort pid,sym --comm ls" \
		"report --stdio --sort sym --dso libc.so.6" "report --stdio --hierarchy --sort comm,dso"; do
		# shellcheck disable=SC2086
		HWS_LOG_LEVEL=9 "$HWS_BIN" $cmd -i "$TMP/sys.data" >"$TMP/u" 2>"$TMP/u.err"
		r1=$?
		# shellcheck disable=SC2086
		HWS_DECODE_ORDERED=1 "$HWS_BIN" $cmd -i "$TMP/sys.data" >"$TMP/o" 2>/dev/null
		eq "sys.data $cmd: exit code" "$r1" "$?"
		# a system-wide recording names other processes' code as it is when reported: a
		# parallel ctest's e2e/symbols_jit removes its /tmp/perf-PID.map (jit_hot becomes
		# an address), other tests write to the build-id cache. Unordered again after: a
		# difference of the order is one from both unordered reports
		# shellcheck disable=SC2086
		"$HWS_BIN" $cmd -i "$TMP/sys.data" >"$TMP/u2" 2>/dev/null
		cmp -s "$TMP/u" "$TMP/u2" ||
			echo "note: sys.data $cmd: the files it names changed between two reports"
		if ! check "sys.data $cmd: same report" \
			sh -c "cmp -s '$TMP/u' '$TMP/o' || cmp -s '$TMP/u2' '$TMP/o'"; then
			diff "$TMP/u" "$TMP/o" | head -20
		fi
	done
	# both ways were taken: most samples at once, those near a process's start held
	line=$(grep -o 'unordered: [0-9]* samples went at once, [0-9]* held' "$TMP/u.err")
	set -- $line
	check "sys.data: samples delivered at once ($line)" [ "${2:-0}" -gt 0 ]
	check "sys.data: samples held for time order ($line)" [ "${7:-0}" -gt 0 ]
else
	echo "note: perf record -a not possible here: system-wide recording not compared"
fi
for f in "$HWS_FIXTURES"/*/perf.data* "$HWS_FIXTURES"/*/*.data; do
	[ -f "$f" ] && case $f in *.txt) ;; *) files="$files $f" ;; esac
done
size=$(stat -c %s "$TMP/c2c.data")
for cut in 200 $((size / 3)) $((size / 2 + 5)) $((size - 9)); do
	head -c "$cut" "$TMP/c2c.data" >"$TMP/cut.$cut.data"
	files="$files $TMP/cut.$cut.data"
done
for off in 5000 $((size / 2)); do
	cp "$TMP/c2c.data" "$TMP/flip.$off.data"
	printf '\xff\xff' | dd of="$TMP/flip.$off.data" bs=1 seek="$off" conv=notrunc status=none
	files="$files $TMP/flip.$off.data"
done

n=0
for f in $files; do
	for cmd in "report --stdio" "report --stdio --sort latency" "c2c report --stdio" \
		"c2c report --json"; do
		# shellcheck disable=SC2086
		"$HWS_BIN" $cmd -i "$f" >"$TMP/u" 2>"$TMP/u.err"
		r1=$?
		# shellcheck disable=SC2086
		HWS_DECODE_ORDERED=1 "$HWS_BIN" $cmd -i "$f" >"$TMP/o" 2>"$TMP/o.err"
		r2=$?
		eq "$(basename "$f") $cmd: exit code" "$r1" "$r2"
		check "$(basename "$f") $cmd: same report" cmp -s "$TMP/u" "$TMP/o"
		check "$(basename "$f") $cmd: same stderr" cmp -s "$TMP/u.err" "$TMP/o.err"
		[ -s "$TMP/u" ] && n=$((n + 1))
	done
done
# the comparison is not empty: most runs printed a report
check "reports printed ($n)" [ "$n" -ge 40 ]
finish
