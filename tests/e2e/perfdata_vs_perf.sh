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
set -u
TOOL=${HWS_GEN:-build/tests/gen}/gen_perfdata
FIX=${HWS_FIXTURES:-tests/fixtures}/perf_data_converter
command -v perf >/dev/null || { echo "SKIP: perf not installed"; exit 77; }
[ -x "$TOOL" ] || { echo "SKIP: $TOOL not built"; exit 77; }
perf version >/dev/null 2>&1 || { echo "SKIP: perf does not run"; exit 77; }

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
checks=0

# perf -D: "0xOFF@FILE [0xSIZE]: event: TYPE" -> "0xOFF 0xSIZE TYPE" (from a saved dump)
perf_records() {
	sed -nE 's/^(0x[0-9a-f]+|0)@[^ ]* \[(0x[0-9a-f]+)\]: event: ([0-9]+)$/\1 \2 \3/p' "$1"
}
# perf -D sample lines -> "0xOFF PRE pid tid ip period addr" (PRE: token before the offset)
perf_samples() {
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
dump() { # file -> $T/dump (perf report -D, only the lines we use)
	perf report -D -i "$1" 2>/dev/null | grep -E 'event: [0-9]+$|PERF_RECORD_SAMPLE\(' >"$T/dump"
}
our_samples() {
	"$TOOL" samples "$1" 2>/dev/null | awk '{ if ($7 == "0") $7 = "0"; print }' | sort
}

compare() { # name file [expected-error]
	local name=$1 f=$2 bad=0
	checks=$((checks + 1))
	dump "$f"
	perf_records "$T/dump" | sort >"$T/p.rec"
	# (perf -D prints no "event:" line for a COMPRESSED record itself, only its contents)
	"$TOOL" records "$f" 2>"$T/err" | awk '$3 != 81' | sort >"$T/o.rec"
	if [ ! -s "$T/p.rec" ]; then
		echo "FAIL $name: perf shows no records"; fail=1; return
	fi
	if ! diff -q "$T/p.rec" "$T/o.rec" >/dev/null; then
		echo "FAIL $name: records differ from perf report -D"
		diff "$T/p.rec" "$T/o.rec" | head -5
		bad=1
	fi
	perf_samples "$T/dump" >"$T/p.smp"
	our_samples "$f" >"$T/o.smp"
	if ! diff -q "$T/p.smp" "$T/o.smp" >/dev/null; then
		echo "FAIL $name: samples differ from perf report -D"
		diff "$T/p.smp" "$T/o.smp" | head -5
		bad=1
	fi
	# per-type counts vs perf report --stats (names as perf prints them)
	perf report --stats -i "$f" 2>/dev/null |
		sed -nE '/^Aggregated/,/stats:$/ s/^ *([A-Z_0-9]+) events: *([0-9]+).*/\1 \2/p' |
		sort >"$T/p.st"
	"$TOOL" stats "$f" 2>/dev/null | sort >"$T/o.st"
	# (perf 6.1's --stats cannot skip a pipe's TRACING_DATA payload: nothing to compare)
	if [ ! -s "$T/p.st" ]; then
		echo "note $name: perf report --stats failed, counts compared via -D only"
	elif ! diff -q "$T/p.st" "$T/o.st" >/dev/null; then
		echo "FAIL $name: counts differ from perf report --stats"
		diff "$T/p.st" "$T/o.st" | head -5
		bad=1
	fi
	# perf script's view of the same samples (tid, cpu, time)
	# (sorted: perf script delivers in time order; --no-itrace: no samples made from PT)
	perf script --no-itrace -F tid,cpu,time --ns -i "$f" 2>/dev/null |
		awk '{ gsub(/[\[\]:]/, "") } NF == 3 && $3 ~ /^[0-9]+\.[0-9]+$/ { print $1, $2 + 0, $3 }' |
		sort >"$T/p.scr"
	"$TOOL" script "$f" 2>/dev/null | sort >"$T/o.scr"
	if [ ! -s "$T/p.scr" ]; then # no CPU in sample_type: perf script refuses -F cpu
		perf script --no-itrace -F tid,time --ns -i "$f" 2>/dev/null |
			awk '{ gsub(/:/, "") } NF == 2 && $2 ~ /^[0-9]+\.[0-9]+$/ { print $1, $2 }' |
			sort >"$T/p.scr"
		"$TOOL" script "$f" 2>/dev/null | awk '{ print $1, $3 }' | sort >"$T/o.scr"
	fi
	if [ -s "$T/p.scr" ] && ! diff -q "$T/p.scr" "$T/o.scr" >/dev/null; then
		echo "FAIL $name: samples differ from perf script"
		diff "$T/p.scr" "$T/o.scr" | head -5
		bad=1
	fi
	[ $bad = 0 ] || { fail=1; return; }
	echo "ok $name: $(wc -l <"$T/o.rec") records, $(wc -l <"$T/o.smp") samples, $(wc -l <"$T/p.scr") perf script lines"
}

for f in "$FIX"/perf.data.*; do
	case $f in *.txt | *corrupted*) continue ;; esac
	compare "$(basename "$f")" "$f"
done

# the corrupted fixture: clean error with offset + record, non-zero exit, prefix decoded
checks=$((checks + 1))
c=$FIX/perf.data.piped.corrupted.zero_size_sample-3.2
if "$TOOL" stats "$c" >"$T/c.out" 2>"$T/c.err"; then
	echo "FAIL corrupted: exit 0"; fail=1
elif ! grep -qE '^error: offset 0x[0-9a-f]+: record SAMPLE \(type 9\) size 0' "$T/c.err"; then
	echo "FAIL corrupted: message: $(cat "$T/c.err")"; fail=1
elif ! grep -q '^MMAP 468$' "$T/c.out"; then
	echo "FAIL corrupted: records before the error not printed"; fail=1
else
	echo "ok corrupted: $(cat "$T/c.err")"
fi

# recordings made here (software events, tracepoint, pipe mode)
if perf record -q -o "$T/sw.data" -e cpu-clock,page-faults -F 999 -d -- ls / >/dev/null 2>&1; then
	compare "recorded sw" "$T/sw.data"
	perf record -q -o - -e cpu-clock,page-faults -F 999 -d -- ls / 2>/dev/null >"$T/pipe.data"
	compare "recorded pipe" "$T/pipe.data"
	# perf record -z: zstd COMPRESSED records (decoded through a dlopen'ed libzstd)
	if perf record -q -z -o "$T/z.data" -e page-faults -d -- ls / >/dev/null 2>&1 &&
		[ -e /usr/lib/x86_64-linux-gnu/libzstd.so.1 -o -e /usr/lib/aarch64-linux-gnu/libzstd.so.1 -o -e /usr/lib64/libzstd.so.1 ]; then
		compare "recorded compressed (-z)" "$T/z.data"
		perf record -q -z -o - -e page-faults -d -- ls / 2>/dev/null >"$T/zp.data"
		compare "recorded compressed pipe (-z -o -)" "$T/zp.data"
	fi
	# stdin pipe: same records as the pipe file read by path
	checks=$((checks + 1))
	perf record -q -o - -e page-faults -d -- ls / 2>/dev/null | "$TOOL" stats - >"$T/s1" 2>&1
	grep -q '^SAMPLE [1-9]' "$T/s1" || { echo "FAIL pipe from stdin: $(cat "$T/s1")"; fail=1; }
else
	echo "note: perf record (software events) unavailable here, skipped"
fi
if perf record -q -o "$T/tp.data" -e sched:sched_switch -a -- sleep 0.05 >/dev/null 2>&1; then
	compare "recorded tracepoint" "$T/tp.data"
	perf record -q -o - -e sched:sched_switch -a -- sleep 0.05 2>/dev/null >"$T/tpp.data"
	compare "recorded tracepoint pipe (TRACING_DATA record)" "$T/tpp.data"
else
	echo "note: perf record -e sched:sched_switch unavailable, skipped"
fi

# our writer, read back by perf
"$TOOL" synth "$T/syn.data" && compare "writer file" "$T/syn.data" ||
	{ echo "FAIL writer file"; fail=1; }
"$TOOL" synth-pipe "$T/synp.data" && compare "writer pipe" "$T/synp.data" ||
	{ echo "FAIL writer pipe"; fail=1; }
checks=$((checks + 1))
"$TOOL" synth - | perf report --stats -i - 2>/dev/null | grep -qE 'SAMPLE events: +30' ||
	{ echo "FAIL writer to stdout (pipe) not read by perf"; fail=1; }
# perf script sees the names and fields the writer gave
checks=$((checks + 1))
n=$(perf script -i "$T/syn.data" -F event,ip,period 2>/dev/null | grep -c 'page-faults: .*2000 *400')
[ "$n" = 10 ] || n=$(perf script -i "$T/syn.data" -F event,period,ip 2>/dev/null | grep -c 'page-faults:')
[ "$n" = 10 ] || { echo "FAIL perf script on writer file: $n page-faults samples"; fail=1; }

# the other byte order (file mode; perf 6.1 cannot swap pipe-mode FEATURE records): perf
# decodes the converted file to the same samples as the original, and so do we
for f in "$T/syn.data" "$T/sw.data"; do
	[ -f "$f" ] || continue
	checks=$((checks + 1))
	if ! "$TOOL" swap "$f" "$T/be.data"; then
		echo "FAIL swap $f"; fail=1; continue
	fi
	dump "$f"
	perf_samples "$T/dump" >"$T/p1"
	dump "$T/be.data"
	perf_samples "$T/dump" >"$T/p2"
	if ! diff -q "$T/p1" "$T/p2" >/dev/null || [ ! -s "$T/p1" ]; then
		echo "FAIL big-endian $(basename "$f"): perf decodes other samples"; fail=1; continue
	fi
	compare "big-endian $(basename "$f")" "$T/be.data"
done

echo "$checks checks, fail=$fail"
exit $fail
