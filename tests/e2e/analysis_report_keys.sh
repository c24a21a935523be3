#!/bin/bash
# SPDX-License-Identifier: MIT
# The sort keys perf 6.1 does not have (tid, symoff, event, op: newer perf's names) against the
# samples perf reads from the same file: lib/script_rows.py makes the report perf would print
# from `perf script` (or, for IBS, `perf report -D`), analysis_report_cmp.py compares it with
# hwsample's report as with perf's own (same sections, sample counts, rows, percentages to 0.01):
#  1. cpu-clock and page-faults of a shell running ls and memdemo (two events, threads that exec):
#     tid, event, op, and symoff in memdemo and the kernel (--dsos: perf script names no address
#     without a symbol), alone and combined;
#  2. the threads of thread_names (tid: a row per thread, named by its latest comm);
#  3. op and tid,op on generated PEBS files and the perf_data_converter PEBS recording, by
#     period and with --mem by weight (the op from perf's data_src);
#  4. op,tid on generated IBS op samples of Zen 2 and Zen 4 (perf 6.1 has no data_src for
#     IBS: the op from ibs_op_data3's LdOp and StOp as perf -D decodes them).
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
need_python3
W=${HWS_WORKLOADS:-}/memdemo
[ -x "$W" ] || skip "workload $W not built"
ROWS=$HWS_SOURCE_DIR/tests/e2e/lib/script_rows.py
F=comm,tid,period,event,data_src,ip,sym,symoff,dso

same() { # what file "keys" [script_rows.py and report options...]
	local what=$1 f=$2 k=$3
	shift 3
	python3 "$ROWS" "$k" "$@" <"$TMP/s.txt" >"$TMP/p.txt" 2>"$TMP/p.err" ||
		{ check "$what: script_rows.py: $(head -c 300 "$TMP/p.err")" false; return; }
	"$HWS_BIN" report -i "$f" --stdio --sort "$k" "$@" >"$TMP/h.txt" 2>"$TMP/h.err"
	report_same "$what --sort $k $*" "$TMP/p.txt" "$TMP/h.txt"
}

perf record -q -e cpu-clock,page-faults -c 20000 -d -o "$TMP/m.data" -- \
	sh -c "ls / >/dev/null; $W >/dev/null; ls /usr >/dev/null" >/dev/null 2>"$TMP/rec.err" ||
	skip "perf record failed: $(head -c 300 "$TMP/rec.err")"
# a sample in a PLT entry: perf 6.1 may say _init+OFF, made the entry's name (lib/perf61_plt.py)
perf script -i "$TMP/m.data" -F $F 2>/dev/null | perf61_plt >"$TMP/s.txt"
for k in tid event op tid,event,op; do
	same "sh, ls, memdemo" "$TMP/m.data" "$k"
done
for k in symoff tid,symoff symoff,op; do
	same "sh, ls, memdemo" "$TMP/m.data" "$k" --dsos "memdemo,[kernel.kallsyms]"
done
check "symoff rows have offsets ([.] chase+0x...)" grep -qE '%  \[\.\] chase\+0x[0-9a-f]+ ' \
	"$TMP/h.txt"

TN=${HWS_WORKLOADS:-}/thread_names
if [ -x "$TN" ]; then
	perf record -q -e cpu-clock -c 250000 -d -o "$TMP/tn.data" -- "$TN" >/dev/null 2>&1
	perf script -i "$TMP/tn.data" -F $F 2>/dev/null >"$TMP/s.txt"
	same "thread_names" "$TMP/tn.data" tid
	check "thread_names: rows of 4 threads or more" \
		test "$(grep -cE '^ +[0-9.]+% +[0-9]+:' "$TMP/h.txt")" -ge 4
	same "thread_names" "$TMP/tn.data" tid,symoff --dsos thread_names
else
	echo "note: $TN not built: threads not compared"
fi

files=()
FIX=${HWS_FIXTURES:-}/perf_data_converter/perf.data.weight_struct
[ -f "$FIX" ] && files+=("$FIX")
if [ -x "$HWS_GEN/gen_intel_pebs" ]; then
	for m in skl adl; do
		"$HWS_GEN/gen_intel_pebs" -o "$TMP/pebs-$m.data" -n 1000 -m "$m" -s 7 >/dev/null &&
			files+=("$TMP/pebs-$m.data")
	done
fi
for f in "${files[@]}"; do
	perf script -i "$f" -F comm,tid,period,event,weight,data_src,ip,sym,symoff,dso \
		2>/dev/null >"$TMP/s.txt"
	for k in op tid,op event,op; do
		same "$(basename "$f")" "$f" "$k"
		same "$(basename "$f")" "$f" "$k" --mem
	done
	check "$(basename "$f"): Load rows" grep -qE '%  .*Load' "$TMP/h.txt"
done
if [ -x "$HWS_GEN/gen_amd_ibs" ]; then
	for g in zen2 zen4; do
		"$HWS_GEN/gen_amd_ibs" -o "$TMP/ibs-$g.data" -g $g -n 1000 -s 7 --op-only >/dev/null
		perf report -D -i "$TMP/ibs-$g.data" 2>/dev/null >"$TMP/d.txt"
		python3 "$ROWS" op,tid --ibs-D <"$TMP/d.txt" >"$TMP/p.txt"
		"$HWS_BIN" report -i "$TMP/ibs-$g.data" --stdio --sort op,tid >"$TMP/h.txt" 2>"$TMP/h.err"
		report_same "IBS $g --sort op,tid" "$TMP/p.txt" "$TMP/h.txt"
		for op in Load Store N/A; do
			check "IBS $g: $op rows" grep -q "%  $op " "$TMP/h.txt"
		done
	done
fi
finish
