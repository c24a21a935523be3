#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample report's memory keys on AMD IBS op recordings (PERF_SAMPLE_RAW registers, what
# `hwsample record -b ibs_op` writes) against perf report on the same samples as the kernel
# records them for perf mem. perf 6.1 makes no memory data of IBS RAW samples, so
# lib/ibs_memfile.py writes each generated file again with PERF_SAMPLE_ADDR, DATA_SRC and
# WEIGHT_STRUCT in every sample, their values from the registers perf -D prints by the kernel's
# rules (Linux arch/x86/events/amd/ibs.c: data source with Zen 4's codes, remote nodes and hops,
# errata #1293 and CacheHitSt, dTLB page-size capability; weight DcMissLat with TagToRetCtr as
# var2; address IbsDCLinAd). Then for Zen 2, 3, 4 and 5 and two seeds each: hwsample report
# --mem --sort KEY on the RAW file equals perf report --mem-mode --sort KEY on the rewritten one
# (analysis_report_cmp.py: sections, sample counts, rows, percentages to 0.01) for mem, snoop,
# tlb, locked, blocked, symbol_daddr, dso_daddr, dcacheline, local_weight, local_ins_lat,
# sym,dso,mem, and the default view of perf mem report. symbol_daddr and the default view
# merge rows of equal text (--merge-same: perf 6.1 orders data addresses by (int64_t)(r - l),
# which leaves address 0 in several rows).
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
need_python3
need_gen amd_ibs
MEMFILE=$HWS_SOURCE_DIR/tests/e2e/lib/ibs_memfile.py
KEYS="mem snoop tlb locked blocked symbol_daddr dso_daddr dcacheline local_weight local_ins_lat
sym,dso,mem"

for gen in zen2 zen3 zen4 zen5; do
	for seed in 3 4; do
		f=$TMP/$gen-$seed.data
		"$HWS_GEN/gen_amd_ibs" -o "$f" -g $gen -n 2000 -s $seed --op-only >/dev/null ||
			die "gen_amd_ibs $gen"
		# the CPU family and model, and Zen 4's extensions, as perf reads the header
		perf report --header-only -i "$f" >"$TMP/hdr" 2>/dev/null
		IFS=, read -r _ fam model _ < <(sed -n 's/^# cpuid : //p' "$TMP/hdr")
		z4=0
		grep -q "ibs_op pmu capabilities:.*zen4_ibs_extensions=1" "$TMP/hdr" && z4=1
		perf report -D -i "$f" 2>/dev/null >"$TMP/d.txt"
		check "$gen seed $seed: the kernel's recording of the samples (family $fam model $model zen4 $z4)" \
			python3 "$MEMFILE" "$f" "$TMP/mem.data" "$fam" "$model" "$z4" <"$TMP/d.txt" ||
			continue
		for k in $KEYS default; do
			opt=
			case $k in symbol_daddr | default) opt=--merge-same ;; esac
			if [ $k = default ]; then
				perf mem report -i "$TMP/mem.data" --stdio >"$TMP/p.txt" 2>/dev/null
				"$HWS_BIN" report -i "$f" --stdio --mem >"$TMP/h.txt" 2>"$TMP/h.err"
			else
				perf report -i "$TMP/mem.data" --stdio --no-children --mem-mode --sort $k \
					>"$TMP/p.txt" 2>/dev/null
				"$HWS_BIN" report -i "$f" --stdio --mem --sort $k >"$TMP/h.txt" 2>"$TMP/h.err"
			fi
			# shellcheck disable=SC2086
			report_same "$gen seed $seed --mem --sort $k" "$TMP/p.txt" "$TMP/h.txt" $opt
		done
		for k in L2 Remote "N/A"; do
			check "$gen seed $seed: a $k row in mem" grep -q "%  .*$k" "$TMP/h.txt"
		done
	done
done
finish
