#!/bin/bash
# SPDX-License-Identifier: MIT
# Regular files are mapped and their records handed out in place; HWS_NO_MMAP=1 reads them
# through the 1 MiB read() window instead, and a pipe reads them as a stream. All three must
# print the same samples, loss summary and exit code: on every fixture, on generated PEBS
# and SPE AUX files (payloads in place), and on truncated and bit-flipped copies (the same
# records before the same error). A file that shrinks while mapped ends with an error.
# hws-test: static-too
. "$(dirname "$0")/lib/common.sh"
need_gen intel_pebs arm_spe
B=$HWS_GEN

"$B/gen_intel_pebs" -o "$TMP/pebs.data" -n 20000 -m spr -s 7 >/dev/null || fail "pebs gen"
"$B/gen_arm_spe" -o "$TMP/spe.data" -n 20000 -c 2 -s 3 >/dev/null || fail "spe gen"
files="$TMP/pebs.data $TMP/spe.data"
for f in "$HWS_FIXTURES"/*/perf.data* "$HWS_FIXTURES"/*/*.data; do
	[ -f "$f" ] && case $f in *.txt) ;; *) files="$files $f" ;; esac
done

# truncated and bit-flipped copies of the generated files
size=$(stat -c %s "$TMP/pebs.data")
for cut in 100 $((size / 3)) $((size / 2 + 5)) $((size - 9)); do
	head -c "$cut" "$TMP/pebs.data" >"$TMP/cut.$cut.data"
	files="$files $TMP/cut.$cut.data"
done
for off in 4000 $((size / 2)); do
	cp "$TMP/pebs.data" "$TMP/flip.$off.data"
	printf '\xff\xff' | dd of="$TMP/flip.$off.data" bs=1 seek="$off" conv=notrunc status=none
	files="$files $TMP/flip.$off.data"
done
ssize=$(stat -c %s "$TMP/spe.data")
head -c $((ssize * 2 / 3)) "$TMP/spe.data" >"$TMP/spe.cut.data"
files="$files $TMP/spe.cut.data"

n=0
for f in $files; do
	"$HWS_BIN" dump -i "$f" --json --raw >"$TMP/map" 2>"$TMP/map.err"
	r1=$?
	HWS_NO_MMAP=1 "$HWS_BIN" dump -i "$f" --json --raw >"$TMP/read" 2>"$TMP/read.err"
	r2=$?
	eq "$(basename "$f"): exit code mapped vs read()" "$r1" "$r2"
	check "$(basename "$f"): samples mapped vs read()" cmp -s "$TMP/map" "$TMP/read"
	check "$(basename "$f"): messages mapped vs read()" cmp -s "$TMP/map.err" "$TMP/read.err"
	n=$((n + $(wc -l <"$TMP/map")))
done
# pipe-mode recordings: by name (mapped), as stdin redirected from the file, and through a
# real pipe (the streaming reader) print the same
for f in "$HWS_FIXTURES"/perf_data_converter/perf.data.piped.*; do
	[ -f "$f" ] || continue
	"$HWS_BIN" dump -i "$f" --json >"$TMP/map" 2>/dev/null
	r1=$?
	"$HWS_BIN" dump -i - --json <"$f" >"$TMP/pipe" 2>/dev/null
	r2=$?
	# shellcheck disable=SC2002
	cat "$f" | "$HWS_BIN" dump -i - --json >"$TMP/pipe2" 2>/dev/null
	r3=$?
	eq "$(basename "$f"): exit code mapped vs stdin" "$r1" "$r2"
	eq "$(basename "$f"): exit code mapped vs pipe" "$r1" "$r3"
	check "$(basename "$f"): samples mapped vs pipe" cmp -s "$TMP/map" "$TMP/pipe2"
done
[ "$n" -gt 40000 ] || fail "too few samples compared ($n)"

# the file shrinks while dump reads it (blocked on a full pipe): mid-page, the rest of the
# page reads as zeros and the reader says the file shrank; at a page boundary the mapping
# raises SIGBUS and the CLI says what happened. Either way exit 1, never a signal death.
"$B/gen_intel_pebs" -o "$TMP/big.data" -n 200000 -m spr -s 3 >/dev/null || fail "pebs gen"
mkfifo "$TMP/fifo"
for cut in 1000000 1003520; do
	cp "$TMP/big.data" "$TMP/shrink.data"
	"$HWS_BIN" dump -i "$TMP/shrink.data" --json >"$TMP/fifo" 2>"$TMP/shrink.err" &
	pid=$!
	exec 3<"$TMP/fifo"
	read -r _ <&3 # dump is running; the pipe fills behind this read
	sleep 0.2
	truncate -s "$cut" "$TMP/shrink.data"
	cat <&3 >/dev/null
	exec 3<&-
	wait "$pid"
	eq "shrunk to $cut: exit code" "$?" 1
	check "shrunk to $cut: the message says the file shrank" grep -q shrank "$TMP/shrink.err"
done
echo "perfdata_mmap: $CHECKS checks over $n sample lines, $FAILS failures"
[ "$FAILS" = 0 ]
