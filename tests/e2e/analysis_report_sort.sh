#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample report --sort / --mem / filters against perf report (analysis_report_cmp.py: same
# sections, sample counts, rows and percentages to 0.01, whitespace normalized):
#  1. a cpu-clock recording of memdemo by perf and one by hwsample: every code key alone and
#     in combinations (comm, pid, dso, sym, cpu, comm,dso,sym, pid,sym, dso,sym);
#  2. a multi-process recording (cpu-clock + page-faults with -d: two sections, two units):
#     comm, pid, dso, cpu, comm,dso (symbol names of libraries are the names half of issue 20);
#     data_page against the samples' own pages (analysis_report_page_check.py);
#  3. filters on it: --comms, --pid, --tid, --dsos, --symbols, --time (slices, ranges), and
#     --time percentages on hwsample's recording (its HEADER_SAMPLE_TIME);
#  4. memory keys with --mem-mode on the perf_data_converter PEBS recording and generated
#     PEBS files (Skylake, Sapphire Rapids, Alder Lake): mem, snoop, tlb, locked, blocked,
#     symbol_daddr, dso_daddr, dcacheline, local_weight, combinations, and the default
#     `perf mem report` view; the statistics columns sample, weight and avg_weight against
#     the samples (analysis_report_stats_check.py);
#  5. srcline as perf 6.1 prints it (the file's last component, "SYM+OFFSET" without a line,
#     "DSO[VADDR]" without a symbol) on the memdemo recording and on a stripped non-PIE
#     program built here (no symbols: sym and srcline give the map-relative address and the
#     vaddr as perf does).
. "$(dirname "$0")/lib/common.sh"
need_perf
perf version >/dev/null 2>&1 || skip "perf does not run"
command -v python3 >/dev/null || skip "python3 not installed"
W=${HWS_WORKLOADS:-}/memdemo
[ -x "$W" ] || skip "workload $W not built"
CMP=$HWS_SOURCE_DIR/tests/e2e/analysis_report_cmp.py
GEN=$HWS_GEN/gen_intel_pebs
FIX=${HWS_FIXTURES:-}/perf_data_converter

same() { # what file "hwsample args" "perf args" [perf command]
	local what=$1 f=$2 h=$3 p=$4 cmd=${5:-report}
	# shellcheck disable=SC2086
	perf $cmd -i "$f" --stdio $p >"$TMP/p.txt" 2>/dev/null
	[ -z "${PSED:-}" ] || sed -i "$PSED" "$TMP/p.txt"
	# shellcheck disable=SC2086
	[ -z "${PFILT:-}" ] || { $PFILT <"$TMP/p.txt" >"$TMP/p.f" && mv "$TMP/p.f" "$TMP/p.txt"; }
	# shellcheck disable=SC2086
	"$HWS_BIN" report -i "$f" --stdio $h >"$TMP/h.txt" 2>"$TMP/h.err"
	# a sample in a PLT: perf 6.1 names some of its entries "@plt" (by their place in
	# .rela.plt, which IRELATIVE entries do not follow) and a program's own "_init" (the
	# symbol before .plt), hwsample NAME@plt as newer perf does (e2e/symbols_plt compares
	# PLT names): such rows are left out on both sides (scripts/bench-report does the same)
	sed -i -E '/\[\.\] ([^ ]*@plt|_init) *$/d' "$TMP/p.txt" "$TMP/h.txt"
	if python3 "$CMP" "$TMP/p.txt" "$TMP/h.txt" >"$TMP/cmp.txt"; then
		check "$what: $(tail -1 "$TMP/cmp.txt")" true
	else
		check "$what: $(head -3 "$TMP/cmp.txt" | tr '\n' ' ') hwsample stderr: $(head -c 300 "$TMP/h.err")" false
	fi
}

perf record -q -e cpu-clock/period=250000/ -o "$TMP/cc.data" -- "$W" >/dev/null 2>"$TMP/rec.err" ||
	skip "perf record failed: $(head -c 300 "$TMP/rec.err")"
for k in comm pid dso sym cpu comm,dso,sym pid,sym; do
	same "perf recording --sort $k" "$TMP/cc.data" "--sort $k" "--no-children --sort $k"
done
if "$HWS_BIN" record -q -b sw -e cpu-clock -c 250000 -o "$TMP/hw.data" -- "$W" >/dev/null 2>&1; then
	for k in pid sym comm,dso,sym; do
		same "hwsample recording --sort $k" "$TMP/hw.data" "--sort $k" "--no-children --sort $k"
	done
	# percentages of the recording's span: its HEADER_SAMPLE_TIME (perf needs it too)
	for flt in "--time 10%/2" "--time 0%-50%"; do
		same "hwsample recording: filter $flt" "$TMP/hw.data" "--sort comm,dso $flt" \
			"--no-children --sort comm,dso $flt"
	done
fi

perf record -q -e cpu-clock,page-faults -c 20000 -d -o "$TMP/m.data" -- \
	sh -c "ls / >/dev/null; $W >/dev/null; ls /usr >/dev/null" >/dev/null 2>"$TMP/rec.err" ||
	skip "perf record failed: $(head -c 300 "$TMP/rec.err")"
check "two events: two sections" test "$("$HWS_BIN" report -i "$TMP/m.data" --sort comm | grep -c '^# Samples:')" = 2
for k in comm pid dso comm,dso; do
	same "two events --sort $k" "$TMP/m.data" "--sort $k" "--no-children --sort $k"
done
# --sort data_page (perf 6.1 has no page key): the rows are the samples' data pages (by process
# below the kernel's half) with their share of the period (analysis_report_page_check.py), on
# that file and on one of every page fault of memdemo, where some pages take several samples
perf record -q -e page-faults -c 1 -d -o "$TMP/pf.data" -- sh -c "$W >/dev/null" \
	>/dev/null 2>"$TMP/rec.err" || skip "perf record failed: $(head -c 300 "$TMP/rec.err")"
for f in m pf; do
	perf script -i "$TMP/$f.data" -F pid,period,event,addr >"$TMP/$f.script" 2>/dev/null
	"$HWS_BIN" report -i "$TMP/$f.data" --sort data_page --stdio >"$TMP/$f.page" 2>/dev/null
	check "$f.data --sort data_page: the samples' pages and shares" \
		python3 "$HWS_SOURCE_DIR/tests/e2e/analysis_report_page_check.py" "$TMP/$f.script" \
		"$TMP/$f.page"
done
for flt in "--comms memdemo" "--comms memdemo,ls" "--dsos memdemo" \
	"--comms memdemo --dsos memdemo" "--time 10%/2" "--time 0%-50%"; do
	same "filter $flt" "$TMP/m.data" "--sort comm,dso $flt" "--no-children --sort comm,dso $flt"
done
pid=$(perf report -i "$TMP/cc.data" --stdio --no-children --sort pid 2>/dev/null |
	awk '/%/ && /:memdemo/ {split($2, a, ":"); print a[1]; exit}')
for flt in "--pid $pid" "--tid $pid"; do
	same "filter $flt" "$TMP/cc.data" "--sort comm,dso $flt" "--no-children --sort comm,dso $flt"
done
# the idle task: a system-wide recording has no COMM for pid 0, perf names it "swapper"; and
# threads switched out after their exit: the kernel gives them tid -1 in their process (pid
# N/-1), and perf's thread row is the tid's alone, one `-1::-1` row for all such processes:
# two processes start and join threads throughout the recording
churn='import threading, time
end = time.time() + 1.5
while time.time() < end:
    t = threading.Thread(target=lambda: None); t.start(); t.join()'
python3 -c "$churn" & c1=$!
python3 -c "$churn" & c2=$!
if perf record -q -e sched:sched_switch,sched:sched_waking -a -o "$TMP/sw.data" -- sleep 0.5 \
	>/dev/null 2>&1; then
	n=$(perf script -i "$TMP/sw.data" -F pid,tid 2>/dev/null | awk '/\/-1 *$/ {print $1}' |
		sort -u | wc -l)
	echo "note: $n processes with samples of exited threads (tid -1)"
	for k in comm pid comm,dso,sym; do
		same "system-wide sched events --sort $k" "$TMP/sw.data" "--sort $k" \
			"--no-children --sort $k"
	done
	if grep -q "^ *[0-9.]*% *swapper " "$TMP/p.txt"; then
		check "system-wide: the idle task's rows are swapper's" \
			grep -q "^ *[0-9.]*% *swapper *\[kernel.kallsyms\]" "$TMP/h.txt"
	else
		echo "note: no sample of the idle task in this recording: its name not compared"
	fi
fi
wait $c1 $c2
# a thread's comm is its own (pthread_setname_np: a COMM of its tid; a new thread inherits its
# creator's): thread_names runs threads named hot-a, hot-b, phase-1 then phase-2, and one
# unnamed. Rows, filters and dump's comm column as perf's, on perf's and hwsample's recordings
TN=${HWS_WORKLOADS:-}/thread_names
if [ -x "$TN" ]; then
	perf record -q -e cpu-clock -c 250000 -o "$TMP/tn.data" -- "$TN" >/dev/null 2>&1
	"$HWS_BIN" record -q -b sw -e cpu-clock -c 250000 -o "$TMP/tn-h.data" -- "$TN" >/dev/null 2>&1
	for f in tn tn-h; do
		[ -s "$TMP/$f.data" ] || { check "$f: recorded" false; continue; }
		same "named threads ($f) --sort comm" "$TMP/$f.data" "--sort comm" \
			"--no-children --sort comm"
		for c in hot-a hot-b phase-1 phase-2 thread_names; do
			check "named threads ($f): a row for $c" grep -q "% *$c *\$" "$TMP/h.txt"
		done
		for k in pid comm,sym; do
			same "named threads ($f) --sort $k" "$TMP/$f.data" "--sort $k" "--no-children --sort $k"
		done
		flt="--sort comm,sym --comms hot-a,phase-2"
		same "named threads ($f) $flt" "$TMP/$f.data" "$flt" "--no-children $flt"
		perf script -i "$TMP/$f.data" -F comm,tid 2>/dev/null | awk '{print $1, $2}' | sort |
			uniq -c >"$TMP/tn-p.txt"
		"$HWS_BIN" dump -i "$TMP/$f.data" 2>/dev/null |
			awk '{for (i = 2; i <= NF; i++) if ($i ~ /^-?[0-9]+\/-?[0-9]+$/) {
				split($i, a, "/"); print $1, a[2]; break }}' | sort | uniq -c >"$TMP/tn-h.txt"
		check "named threads ($f): dump's comm and tid per sample as perf script's" \
			cmp -s "$TMP/tn-p.txt" "$TMP/tn-h.txt"
	done
else
	echo "note: $TN not built: thread comms not compared"
fi
# CPU filters need samples with CPU numbers: hwsample's recording has them, perf's of one
# program not (perf refuses -C there: "File does not contain CPU events"; so does hwsample)
if [ -f "$TMP/hw.data" ]; then
	cpu=$(perf report -i "$TMP/hw.data" --stdio --no-children --sort cpu 2>/dev/null |
		awk '/^ +[0-9.]+%/ {print $2 + 0; exit}')
	for flt in "-C ${cpu:-0}" "--cpu 0-1"; do
		same "filter $flt" "$TMP/hw.data" "--sort comm,dso $flt" "--no-children --sort comm,dso $flt"
	done
fi
"$HWS_BIN" report -i "$TMP/cc.data" --sort comm -C 0 >"$TMP/c.out" 2>"$TMP/e.err"
eq "-C on a file without CPU numbers: usage error" "$?" 2
check "-C without CPU numbers: says so" grep -q "carry no CPU number" "$TMP/e.err"
same "filter --symbols with --sort sym" "$TMP/m.data" "--sort comm,sym --symbols chase,main" \
	"--no-children --sort comm,sym --symbols chase,main"
t0=$("$HWS_BIN" dump -i "$TMP/m.data" --no-sym 2>/dev/null | awk 'NR == 1 {print $1}')
t1=$(awk -v t="$t0" 'BEGIN {printf "%.6f", t + 0.05}')
same "filter --time $t0,$t1" "$TMP/m.data" "--sort comm,dso --time $t0,$t1" \
	"--no-children --sort comm,dso --time $t0,$t1"
"$HWS_BIN" report -i "$TMP/m.data" --sort comm --time 5%-1% >/dev/null 2>"$TMP/e.err"
eq "--time with a backwards range: usage error" "$?" 2
check "--time error names the option" grep -q -- "--time" "$TMP/e.err"
# a file without samples (a period no run reaches): perf's "no samples" note, exit 0, and
# no sort of an empty table (qsort(NULL, 0): undefined, fatal in the sanitizer build)
if "$HWS_BIN" record -q -b sw -e page-faults -c 1000000000 -o "$TMP/empty.data" -- true \
	>/dev/null 2>&1; then
	for a in "--sort comm,dso,sym" "--sort comm --hierarchy" "--mem" ""; do
		# shellcheck disable=SC2086
		"$HWS_BIN" report -i "$TMP/empty.data" --stdio $a >/dev/null 2>"$TMP/e.err"
		eq "no samples, report $a: exit 0 (as perf)" "$?" 0
		check "no samples, report $a: says so" grep -q "empty.data has no samples" "$TMP/e.err"
	done
fi
# and a file with samples does not say so (the table of every event counts them through the
# decoder's counts, -e through report's own callback)
for a in "" "-e $(perf evlist -i "$TMP/m.data" 2>/dev/null | head -1)"; do
	# shellcheck disable=SC2086
	"$HWS_BIN" report -i "$TMP/m.data" --sort comm --stdio $a >/dev/null 2>"$TMP/e.err"
	eq "samples, report $a: exit 0" "$?" 0
	check "samples, report $a: no 'has no samples'" not grep -q "has no samples" "$TMP/e.err"
done
"$HWS_BIN" report -i "$TMP/m.data" --sort bogus >/dev/null 2>"$TMP/e.err"
eq "unknown sort key: usage error" "$?" 2
check "unknown sort key named" grep -q "'bogus'" "$TMP/e.err"

# srcline: memdemo is built with -flto, for which binutils' addr2line (perf 6.1's) names the
# file "<artificial>" (the LTO unit's DW_AT_name; libdw gives the line table's memdemo.c):
# that one name is mapped. ld.so is left out (binutils 2.40 names a file by a DWARF 5 file
# index one off there: glibc sysdeps/x86/dl-get-cpu-features.c line 321 for
# glibc sysdeps/x86/dl-cacheinfo.h's line 321).
# A sample in a PLT entry: perf 6.1's SYM+OFFSET there may be _init+OFF (its _init covers the
# PLT), made the entry's name as objdump labels it (lib/perf61_plt.py); hwsample gives NAME@plt.
PSED='s/<artificial>:/memdemo.c:/' PFILT="perf61_plt --srcline $W" same "srcline (memdemo)" \
	"$TMP/cc.data" "--sort srcline --dsos memdemo" "--no-children --sort srcline --dsos memdemo"
same "srcline (kernel: SYM+OFFSET)" "$TMP/cc.data" "--sort srcline --dsos [kernel.kallsyms]" \
	"--no-children --sort srcline --dsos [kernel.kallsyms]"
if command -v cc >/dev/null; then
	cat >"$TMP/np.c" <<'C'
volatile unsigned long sink;
__attribute__((noinline)) void f1(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * 3; }
__attribute__((noinline)) void f2(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink ^= i << 1; }
int main(void) { f1(100000000); f2(50000000); return 0; }
C
	cc -O1 -no-pie -s -o "$TMP/np" "$TMP/np.c" || check "cc -no-pie builds" false
	perf record -q -e cpu-clock/period=250000/ -o "$TMP/np.data" -- "$TMP/np" >/dev/null 2>&1
	for k in sym dso,sym srcline; do
		same "stripped non-PIE program --sort $k" "$TMP/np.data" "--sort $k --dsos np" \
			"--no-children --sort $k --dsos np"
	done
	check "stripped non-PIE: srcline is DSO[VADDR] (the vaddr, 0x40....)" \
		grep -qE '%  np\[40[0-9a-f]{4}\]' "$TMP/h.txt"
else
	echo "SKIP: the stripped non-PIE case (no C compiler)"
fi

MEMKEYS="mem snoop tlb locked blocked symbol_daddr dso_daddr dcacheline local_weight sym,dso,mem"
files=()
[ -f "$FIX/perf.data.weight_struct" ] && files+=("$FIX/perf.data.weight_struct")
if [ -x "$GEN" ]; then
	for m in skl adl; do
		"$GEN" -o "$TMP/pebs-$m.data" -n 1000 -m "$m" -s 7 >/dev/null && files+=("$TMP/pebs-$m.data")
	done
fi
for f in "${files[@]}"; do
	for k in $MEMKEYS; do
		same "$(basename "$f") --mem --sort $k" "$f" "--mem --sort $k" "--no-children --mem-mode --sort $k"
	done
	same "$(basename "$f") --mem (perf mem report)" "$f" "--mem" "" mem\ report
	# the statistics columns (samples, total and average weight of a row) against the samples
	perf script -i "$f" -F cpu,event,weight >"$TMP/w.script" 2>/dev/null
	"$HWS_BIN" report -i "$f" --mem --stdio --sort cpu,sample,weight,avg_weight \
		>"$TMP/w.txt" 2>/dev/null
	check "$(basename "$f") --sort cpu,sample,weight,avg_weight: the samples' counts and weights" \
		python3 "$HWS_SOURCE_DIR/tests/e2e/analysis_report_stats_check.py" "$TMP/w.script" \
		"$TMP/w.txt"
done
finish
