#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample report on Arm SPE recordings against perf report: each record a sample of every event
# perf synthesizes of it (l1d-miss, l1d-access, llc-miss, llc-access, tlb-miss, tlb-access,
# branch-miss, remote-access, memory), a section each, compared by analysis_report_cmp.py (same
# sections, sample counts, rows and percentages to 0.01):
#  1. a generated recording of one CPU of a core without Neoverse data sources (Cortex-A53:
#     perf 6.1 and hwsample give every record the same data_src, e2e/arm_spe_vs_perf): every
#     memory key with --mem, perf mem report's default view, and dso, sym, cpu by period;
#  2. --itrace subsets (f, m, t, b, a, M) against perf's --itrace;
#  3. a two-CPU Neoverse N1 recording: the keys whose row text is the key's alone (tlb, locked,
#     blocked, dso_daddr, dcacheline, symbol_daddr, local_weight, sym, cpu). Not mem or snoop:
#     perf 6.1 reads a Neoverse load without a DATA_SOURCE packet as an L1 hit, hwsample names
#     no level (the deliberate difference of e2e/arm_spe_vs_perf); and with records of two CPUs
#     a row that merges several texts (mem compares the level bits only, perf's remote bit
#     rides along) shows its first sample's, which perf takes in time order across CPUs and
#     hwsample per AUX chunk;
#  4. the op key against perf script's data_src (lib/script_rows.py; perf 6.1 has no op key);
#  5. --itrace errors.
# Not compared: comm, pid, tid. A generated record without a CONTEXT packet keeps the last
# CONTEXT's task in perf and has none in hwsample (records of real hardware have it in all or
# none); the tasks of records are compared in e2e/arm_spe_vs_perf and arm_spe_switch_vs_perf.
# symbol_daddr is compared with --merge-same: perf 6.1 orders data addresses by
# (int64_t)(r - l), no order across kernel, user and zero addresses, so its tree leaves one
# address in several rows.
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
need_python3
need_gen arm_spe
ROWS=$HWS_SOURCE_DIR/tests/e2e/lib/script_rows.py

same() { # what file "hwsample args" "perf args" [perf command] [cmp option]
	local what=$1 f=$2 h=$3 p=$4 cmd=${5:-report} opt=${6:-}
	# shellcheck disable=SC2086
	perf $cmd -i "$f" --stdio $p >"$TMP/p.txt" 2>/dev/null
	# shellcheck disable=SC2086
	"$HWS_BIN" report -i "$f" --stdio $h >"$TMP/h.txt" 2>"$TMP/h.err"
	# shellcheck disable=SC2086
	report_same "$what" "$TMP/p.txt" "$TMP/h.txt" $opt
}

"$HWS_GEN/gen_arm_spe" -o "$TMP/a53.data" -n 2000 -s 7 -m 0x410fd034 -c 1 >/dev/null ||
	die "gen_arm_spe failed"
F=$TMP/a53.data
for k in mem snoop tlb locked blocked dso_daddr dcacheline local_weight sym,dso,mem \
	mem,snoop,tlb; do
	same "Cortex-A53 --mem --sort $k" "$F" "--mem --sort $k" "--no-children --mem-mode --sort $k"
done
same "Cortex-A53 --mem --sort symbol_daddr" "$F" "--mem --sort symbol_daddr" \
	"--no-children --mem-mode --sort symbol_daddr" report --merge-same
same "Cortex-A53 --mem (perf mem report)" "$F" "--mem" "" "mem report" --merge-same
for k in dso sym cpu dso,sym; do
	same "Cortex-A53 --sort $k" "$F" "--sort $k" "--no-children --sort $k"
done
check "nine sections, perf's" test "$(grep -c '^# Samples: ' "$TMP/h.txt")" = 9
check "no section of the SPE event itself" not grep -q "of event 'arm_spe" "$TMP/h.txt"
for it in f m t b a M fm bM tbaM; do
	same "Cortex-A53 --itrace=$it" "$F" "--mem --itrace=$it --sort mem,sym,symbol_daddr" \
		"--no-children --mem-mode --itrace=$it --sort mem,sym,symbol_daddr" report --merge-same
done

"$HWS_GEN/gen_arm_spe" -o "$TMP/n1.data" -n 2000 -s 11 -m 0x410fd0c0 -c 2 >/dev/null ||
	die "gen_arm_spe failed"
for k in tlb locked blocked dso_daddr dcacheline local_weight sym cpu; do
	same "Neoverse N1, 2 CPUs --mem --sort $k" "$TMP/n1.data" "--mem --sort $k" \
		"--no-children --mem-mode --sort $k"
done
same "Neoverse N1, 2 CPUs --mem --sort symbol_daddr" "$TMP/n1.data" "--mem --sort symbol_daddr" \
	"--no-children --mem-mode --sort symbol_daddr" report --merge-same

for f in "$F" "$TMP/n1.data"; do
	perf script -i "$f" -F comm,tid,period,event,data_src,ip,sym,symoff,dso 2>/dev/null |
		grep -v '^Only instruction' >"$TMP/s.txt"
	python3 "$ROWS" op <"$TMP/s.txt" >"$TMP/p.txt"
	"$HWS_BIN" report -i "$f" --stdio --sort op >"$TMP/h.txt" 2>"$TMP/h.err"
	report_same "$(basename "$f") --sort op" "$TMP/p.txt" "$TMP/h.txt"
	check "$(basename "$f") --sort op: Load and Store rows" \
		sh -c "grep -q '%  Load' '$TMP/h.txt' && grep -q '%  Store' '$TMP/h.txt'"
done

"$HWS_BIN" report -i "$F" --sort mem --itrace=i1i >/dev/null 2>"$TMP/e.err"
eq "--itrace=i1i: usage error" "$?" 2
check "--itrace=i1i: says instruction samples are not made" grep -q "instruction samples" \
	"$TMP/e.err"
"$HWS_BIN" report -i "$F" --sort mem --itrace=fk >/dev/null 2>"$TMP/e.err"
eq "--itrace with an unknown letter: usage error" "$?" 2
check "--itrace: names the bad letter" grep -q "bad 'k'" "$TMP/e.err"
finish
