#!/bin/bash
# SPDX-License-Identifier: MIT
# c2c report on generated Intel (HITM data_src), AMD IBS (RAW with legacy and Zen 4 DataSrc,
# and on Zen 3, which has no HITM; and perf c2c record's kernel data_src without RAW) and Arm SPE (AUX) files with a
# known ground truth (tests/gen/gen_c2c.c): every contended line is found and
# classified right, no private or read-only line is reported as shared, the evidence names
# the vendor's source, and --line-size changes what is shared.
. "$(dirname "$0")/lib/common.sh"
GEN=$HWS_GEN/gen_c2c
need_gen c2c
command -v jq >/dev/null || skip "jq not installed"

declare -A SRC=([intel]="Intel PEBS data_src" [ibs]="AMD IBS DataSrc/CacheHitSt" [ibs-perf]="AMD IBS DataSrc/CacheHitSt" [spe]="Arm SPE data source" [ibs-zen3]="" [ibs-zen4]="AMD IBS DataSrc/CacheHitSt")
declare -A EVK=([intel]=hitm [ibs]=hitm [ibs-perf]=hitm [spe]=peer [ibs-zen3]=address [ibs-zen4]=hitm)

for v in intel ibs ibs-zen3 ibs-zen4 ibs-perf spe; do
	for seed in 1 7; do
		f=$TMP/$v.$seed.data
		check "$v: generate" "$GEN" -o "$f" -v "$v" -n 12000 -s $seed -t "$TMP/truth"
		"$HWS_BIN" c2c report -i "$f" --json >"$TMP/r.json" 2>"$TMP/err" || fail "$v: exit $?"
		"$HWS_BIN" c2c report -i "$f" --json --show-all >"$TMP/all.json" 2>/dev/null
		jq -e . "$TMP/r.json" >/dev/null || fail "$v: invalid JSON"
		# one jq per report: "address class evidence confidence_label evidence_text"
		jq -r '.lines[] | [.address, .class, (.evidence | join(",")), .confidence_label, .evidence_text] | @tsv' "$TMP/r.json" >"$TMP/r.tsv"
		jq -r '.lines[] | [.address, .class] | @tsv' "$TMP/all.json" >"$TMP/all.tsv"
		declare -A GOT=() ALL=() EV=() CONF=() TXT=()
		while IFS=$'\t' read -r a c e l t; do GOT[$a]=$c EV[$a]=$e CONF[$a]=$l TXT[$a]=$t; done <"$TMP/r.tsv"
		while IFS=$'\t' read -r a c; do ALL[$a]=$c; done <"$TMP/all.tsv"
		while read -r addr cls name; do
			got=${GOT[$addr]:-absent}
			case $cls in
			false-sharing | true-sharing)
				eq "$v seed $seed $name class" "$got" "$cls"
				case ${EV[$addr]:-} in *"${EVK[$v]}"*) ;; *) fail "$v $name: evidence '${EV[$addr]:-}' lacks ${EVK[$v]}" ;; esac
				case ${TXT[$addr]:-} in *"${SRC[$v]}"*) ;; *) fail "$v $name: evidence text '${TXT[$addr]:-}'" ;; esac
				# Zen 3 has no HITM: remote cache hits (lines shared across nodes) or
				# sampled writers and readers alone (medium confidence)
				want=high
				[ "$v" = ibs-zen3 ] && [[ ${EV[$addr]:-} != *remote_cache* ]] && want=medium
				eq "$v seed $seed $name confidence" "${CONF[$addr]:-}" $want
				;;
			*)
				eq "$v seed $seed $name not reported" "$got" absent
				eq "$v seed $seed $name --show-all class" "${ALL[$addr]:-absent}" "$cls"
				;;
			esac
		done <"$TMP/truth"
		# every reported line is one of the truly shared ones
		nrep=$(jq '.lines | length' "$TMP/r.json")
		eq "$v seed $seed: reported lines" "$nrep" 4
	done
	# offsets: the per-thread counters are the false-sharing offsets 0,8,16,24
	a=$(awk '$3 == "c2c_fs_counters" {print $1}' "$TMP/truth")
	offs=$(jq -c --arg a "$a" '.lines[] | select(.address == $a) | .false_sharing_offsets' "$TMP/r.json")
	eq "$v: fs_counters offsets" "$offs" "[0,8,16,24]"
	a=$(awk '$3 == "c2c_fs_pair" {print $1}' "$TMP/truth")
	offs=$(jq -c --arg a "$a" '.lines[] | select(.address == $a) | .false_sharing_offsets' "$TMP/r.json")
	eq "$v: fs_pair offsets" "$offs" "[0,32]"
	# per offset: the writer (thread 6 = tid 4249) at 0, the reader (tid 4250) at 32
	w=$(jq -c --arg a "$a" '.lines[] | select(.address == $a) | [.offsets[] | {o: .offset, s: .sharing, w: [.writers[].tid], r: [.readers[].tid]}]' "$TMP/r.json")
	eq "$v: fs_pair writers/readers" "$w" '[{"o":0,"s":"false","w":[4249],"r":[]},{"o":32,"s":"false","w":[],"r":[4250]}]'
	a2=$(awk '$3 == "c2c_ts_counter" {print $1}' "$TMP/truth")
	w=$(jq -c --arg a "$a2" '.lines[] | select(.address == $a) | [.offsets[] | {o: .offset, s: .sharing, w: ([.writers[].tid] | sort), r: ([.readers[].tid] | sort)}]' "$TMP/r.json")
	eq "$v: ts_counter writers/readers" "$w" '[{"o":0,"s":"true","w":[4243,4244,4247,4248],"r":[4243,4244,4247,4248]}]'
	sym=$(jq -r --arg a "$a" '.lines[] | select(.address == $a) | .data_symbol' "$TMP/r.json")
	code=$(jq -r --arg a "$a" '[.lines[] | select(.address == $a) | .entries[] | .symbol] | sort | unique | join(",")' "$TMP/r.json")
	if [ "$v" = spe ] && [ "$sym" = null ]; then
		# SPE samples carry pid = tid = CONTEXTIDR; the process of a thread is not looked
		# up from the side-band yet (arm_spe backend / decoder), so symbols miss here.
		echo "NOTE: spe: no symbols (pid of SPE samples is the thread id)"
	else
		eq "$v: fs_pair data symbol" "$sym" c2c_fs_pair
		eq "$v: fs_pair code symbols" "$code" "pair_read,pair_write"
	fi
	# 32-byte lines: the pair's writer (offset 0) and reader (offset 32) no longer share
	"$HWS_BIN" c2c report -i "$f" --json --line-size 32 >"$TMP/r32.json"
	got=$(jq -r --arg a "$a" '[.lines[] | select(.address == $a) | .class][0] // "absent"' "$TMP/r32.json")
	[ "$got" != false-sharing ] || fail "$v: --line-size 32 still calls fs_pair false sharing"
	eq "$v: --line-size 32 source" "$(jq -r .line_size_source "$TMP/r32.json")" "--line-size"
	# text report has perf's tables
	"$HWS_BIN" c2c report -i "$f" --stdio >"$TMP/r.txt"
	for t in "Trace Event Information" "Shared Data Cache Line Table" "Shared Cache Line Distribution Pareto"; do
		grep -q "$t" "$TMP/r.txt" || fail "$v: stdio lacks '$t'"
	done
done
# the recording host's line size from the CACHE header: 128-byte lines put two threads'
# "private" 64-byte lines into one line, which is then false sharing
"$GEN" -o "$TMP/l128.data" -v intel -n 12000 -s 2 -L 128 -t "$TMP/truth128" || fail "generate -L 128"
"$HWS_BIN" c2c report -i "$TMP/l128.data" --json >"$TMP/l128.json"
eq "CACHE header: line size" "$(jq .line_size "$TMP/l128.json")" 128
eq "CACHE header: source" "$(jq -r .line_size_source "$TMP/l128.json")" "file host L1d (CACHE header)"
p0=$(awk '$3 == "c2c_private[0]" {print $1}' "$TMP/truth128")
p1=$(awk '$3 == "c2c_private[1]" {print $1}' "$TMP/truth128")
l=$(printf '%#x' $((p0 & ~127)))
[ $((p0 & ~127)) = $((p1 & ~127)) ] || l=$(printf '%#x' $((p1 & ~127)))
eq "128-byte line of two threads' private data" \
	"$(jq -r --arg a "$l" '[.lines[] | select(.address == $a) | .class][0] // "absent"' "$TMP/l128.json")" false-sharing
"$HWS_BIN" c2c report -i "$TMP/l128.data" --json --line-size 64 | jq -e '.line_size == 64 and (.lines | length) == 4' >/dev/null ||
	fail "--line-size 64 overrides the CACHE header"
# a stream cut short: exit 1, the report of what came before, and the error named
"$GEN" -o - -v intel -n 12000 -s 4 | head -c 400000 | "$HWS_BIN" c2c report -i - --json >"$TMP/cut.json" 2>"$TMP/cut.err"
eq "truncated pipe: exit" "${PIPESTATUS[2]}" 1
jq -e '.totals.records > 1000 and (.lines | length) == 4' "$TMP/cut.json" >/dev/null ||
	fail "truncated pipe: no partial report: $(head -c 200 "$TMP/cut.json")"
grep -q 'truncated' "$TMP/cut.err" || fail "truncated pipe: error not named: $(cat "$TMP/cut.err")"
# usage errors
"$HWS_BIN" c2c report --line-size 48 -i "$f" >/dev/null 2>&1
eq "bad --line-size exit" $? 2
"$HWS_BIN" c2c report -i "$TMP/nonexistent" >/dev/null 2>&1
eq "missing file exit" $? 1
finish
