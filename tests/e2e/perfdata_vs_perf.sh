#!/bin/bash
# SPDX-License-Identifier: MIT
# Cross-check hwsample's perf.data reader and writer against the real perf (linux-perf):
#  1. every record (offset, size, type) of every perf_data_converter fixture and of files
#     recorded here (software events, a tracepoint, pipe mode) equals the "event: N" lines
#     of `perf report -D`, and every PERF_RECORD_SAMPLE (offset, time/cpu, pid, tid, ip,
#     period, addr) equals perf's sample line;
#  2. per-record-type counts equal `perf report --stats`;
#  3. files written by hwsample's writer (file and pipe mode, 3 events, ids, sample_id_all)
#     are read by perf with the same records and samples;
#  4. the corrupted fixture gives an error naming the offset and record, exit non-zero.
# Tool: tests/gen/gen_perfdata (records | samples | stats | synth).
. "$(dirname "$0")/lib/common.sh"
: "${HWS_FIXTURES:?}"
TOOL=$HWS_GEN/gen_perfdata
FIX=$HWS_FIXTURES/perf_data_converter
need_perf
need_gen perfdata
need_perf_runs

# perf -D: "0xOFF@FILE [0xSIZE]: event: TYPE" -> "0xOFF 0xSIZE TYPE" (from a saved dump)
perf_records() {
	sed -nE 's/^(0x[0-9a-f]+|0)@[^ ]* \[(0x[0-9a-f]+)\]: event: ([0-9]+)$/\1 \2 \3/p' "$1"
}
# perf -D sample lines -> "0xOFF PRE pid tid ip period addr" (PRE: token before the offset)
perf_d_samples() {
	awk '
		/PERF_RECORD_SAMPLE\(/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^0x/ && $(i+1) ~ /^\[0x/) break;
			pre = (i > 1) ? $(i-1) : "-";
			for (j = i; j <= NF; j++) if ($j ~ /^-?[0-9]+\/-?[0-9]+:$/) break;
			split($j, pt, "[/:]");
			ip = $(j+1); per = $(j+3); addr = $(j+5);
			if (addr == "0") addr = "0";
			printf "%s %s %s %s %s %s %s\n", $i, pre, pt[1], pt[2], ip, per, addr;
		}' "$1" | sort
}
dump() { # file -> $TMP/dump (perf report -D, only the lines we use)
	perf report -D -i "$1" 2>/dev/null | grep -E 'event: [0-9]+$|PERF_RECORD_SAMPLE\(' >"$TMP/dump"
}
our_samples() {
	"$TOOL" samples "$1" 2>/dev/null | awk '{ if ($7 == "0") $7 = "0"; print }' | sort
}

compare() { # name file: one check
	local name=$1 f=$2 fails=$FAILS
	CHECKS=$((CHECKS + 1))
	dump "$f"
	perf_records "$TMP/dump" | sort >"$TMP/p.rec"
	# (perf -D prints no "event:" line for a COMPRESSED record itself, only its contents)
	"$TOOL" records "$f" 2>"$TMP/err" | awk '$3 != 81' | sort >"$TMP/o.rec"
	if [ ! -s "$TMP/p.rec" ]; then
		fail "$name: perf shows no records"; return
	fi
	if ! diff -q "$TMP/p.rec" "$TMP/o.rec" >/dev/null; then
		fail "$name: records differ from perf report -D"
		diff "$TMP/p.rec" "$TMP/o.rec" | head -5
	fi
	perf_d_samples "$TMP/dump" >"$TMP/p.smp"
	our_samples "$f" >"$TMP/o.smp"
	if ! diff -q "$TMP/p.smp" "$TMP/o.smp" >/dev/null; then
		fail "$name: samples differ from perf report -D"
		diff "$TMP/p.smp" "$TMP/o.smp" | head -5
	fi
	# per-type counts vs perf report --stats (names as perf prints them)
	perf report --stats -i "$f" 2>/dev/null |
		sed -nE '/^Aggregated/,/stats:$/ s/^ *([A-Z_0-9]+) events: *([0-9]+).*/\1 \2/p' |
		sort >"$TMP/p.st"
	"$TOOL" stats "$f" 2>/dev/null | sort >"$TMP/o.st"
	# (perf 6.1's --stats cannot skip a pipe's TRACING_DATA payload: nothing to compare)
	if [ ! -s "$TMP/p.st" ]; then
		echo "note $name: perf report --stats failed, counts compared via -D only"
	elif ! diff -q "$TMP/p.st" "$TMP/o.st" >/dev/null; then
		fail "$name: counts differ from perf report --stats"
		diff "$TMP/p.st" "$TMP/o.st" | head -5
	fi
	# perf script's view of the same samples (tid, cpu, time)
	# (sorted: perf script delivers in time order; --no-itrace: no samples made from PT)
	perf script --no-itrace -F tid,cpu,time --ns -i "$f" 2>/dev/null |
		awk '{ gsub(/[\[\]:]/, "") } NF == 3 && $3 ~ /^[0-9]+\.[0-9]+$/ { print $1, $2 + 0, $3 }' |
		sort >"$TMP/p.scr"
	"$TOOL" script "$f" 2>/dev/null | sort >"$TMP/o.scr"
	if [ ! -s "$TMP/p.scr" ]; then # no CPU in sample_type: perf script refuses -F cpu
		perf script --no-itrace -F tid,time --ns -i "$f" 2>/dev/null |
			awk '{ gsub(/:/, "") } NF == 2 && $2 ~ /^[0-9]+\.[0-9]+$/ { print $1, $2 }' |
			sort >"$TMP/p.scr"
		"$TOOL" script "$f" 2>/dev/null | awk '{ print $1, $3 }' | sort >"$TMP/o.scr"
	fi
	if [ -s "$TMP/p.scr" ] && ! diff -q "$TMP/p.scr" "$TMP/o.scr" >/dev/null; then
		fail "$name: samples differ from perf script"
		diff "$TMP/p.scr" "$TMP/o.scr" | head -5
	fi
	[ "$FAILS" = "$fails" ] || return
	echo "ok $name: $(wc -l <"$TMP/o.rec") records, $(wc -l <"$TMP/o.smp") samples, $(wc -l <"$TMP/p.scr") perf script lines"
}

for f in "$FIX"/perf.data.*; do
	case $f in *.txt | *corrupted*) continue ;; esac
	compare "$(basename "$f")" "$f"
done

# the corrupted fixture: clean error with offset + record, non-zero exit, prefix decoded
CHECKS=$((CHECKS + 1))
c=$FIX/perf.data.piped.corrupted.zero_size_sample-3.2
if "$TOOL" stats "$c" >"$TMP/c.out" 2>"$TMP/c.err"; then
	fail "corrupted: exit 0"
elif ! grep -qE '^error: offset 0x[0-9a-f]+: record SAMPLE \(type 9\) size 0' "$TMP/c.err"; then
	fail "corrupted: message: $(cat "$TMP/c.err")"
elif ! grep -q '^MMAP 468$' "$TMP/c.out"; then
	fail "corrupted: records before the error not printed"
else
	echo "ok corrupted: $(cat "$TMP/c.err")"
fi

# recordings made here (software events, tracepoint, pipe mode)
if perf record -q -o "$TMP/sw.data" -e cpu-clock,page-faults -F 999 -d -- ls / >/dev/null 2>&1; then
	compare "recorded sw" "$TMP/sw.data"
	perf record -q -o - -e cpu-clock,page-faults -F 999 -d -- ls / 2>/dev/null >"$TMP/pipe.data"
	compare "recorded pipe" "$TMP/pipe.data"
	# perf record -z: zstd COMPRESSED records (decoded through a dlopen'ed libzstd)
	if perf record -q -z -o "$TMP/z.data" -e page-faults -d -- ls / >/dev/null 2>&1 &&
		[ -e /usr/lib/x86_64-linux-gnu/libzstd.so.1 -o -e /usr/lib/aarch64-linux-gnu/libzstd.so.1 -o -e /usr/lib64/libzstd.so.1 ]; then
		compare "recorded compressed (-z)" "$TMP/z.data"
		perf record -q -z -o - -e page-faults -d -- ls / 2>/dev/null >"$TMP/zp.data"
		compare "recorded compressed pipe (-z -o -)" "$TMP/zp.data"
	fi
	# stdin pipe: same records as the pipe file read by path
	perf record -q -o - -e page-faults -d -- ls / 2>/dev/null | "$TOOL" stats - >"$TMP/s1" 2>&1
	check "pipe from stdin: $(cat "$TMP/s1")" grep -q '^SAMPLE [1-9]' "$TMP/s1"
else
	echo "note: perf record (software events) unavailable here, skipped"
fi
if perf record -q -o "$TMP/tp.data" -e sched:sched_switch -a -- sleep 0.05 >/dev/null 2>&1; then
	compare "recorded tracepoint" "$TMP/tp.data"
	perf record -q -o - -e sched:sched_switch -a -- sleep 0.05 2>/dev/null >"$TMP/tpp.data"
	compare "recorded tracepoint pipe (TRACING_DATA record)" "$TMP/tpp.data"
else
	echo "note: perf record -e sched:sched_switch unavailable, skipped"
fi

# our writer, read back by perf
check "writer file" "$TOOL" synth "$TMP/syn.data" && compare "writer file" "$TMP/syn.data"
check "writer pipe" "$TOOL" synth-pipe "$TMP/synp.data" && compare "writer pipe" "$TMP/synp.data"
CHECKS=$((CHECKS + 1))
"$TOOL" synth - | perf report --stats -i - 2>/dev/null | grep -qE 'SAMPLE events: +30' ||
	fail "writer to stdout (pipe) not read by perf"
# perf script sees the names and fields the writer gave
n=$(perf script -i "$TMP/syn.data" -F event,ip,period 2>/dev/null | grep -c 'page-faults: .*2000 *400')
[ "$n" = 10 ] || n=$(perf script -i "$TMP/syn.data" -F event,period,ip 2>/dev/null | grep -c 'page-faults:')
eq "perf script on writer file: page-faults samples" "$n" 10

# the other byte order (file mode; perf 6.1 cannot swap pipe-mode FEATURE records): perf
# decodes the converted file to the same samples as the original, and so do we
for f in "$TMP/syn.data" "$TMP/sw.data"; do
	[ -f "$f" ] || continue
	check "swap $f" "$TOOL" swap "$f" "$TMP/be.data" || continue
	dump "$f"
	perf_d_samples "$TMP/dump" >"$TMP/p1"
	dump "$TMP/be.data"
	perf_d_samples "$TMP/dump" >"$TMP/p2"
	check "big-endian $(basename "$f"): perf decodes the same samples" \
		cmp -s "$TMP/p1" "$TMP/p2" && check "big-endian $(basename "$f"): perf decodes samples" \
		[ -s "$TMP/p1" ] || continue
	compare "big-endian $(basename "$f")" "$TMP/be.data"
done

finish
