#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample convert --to-pprof (core/analysis/pprof.c), read back by Go's own pprof
# (go tool pprof -raw/-top/-tags, through tests/e2e/analysis_pprof_cmp.py): for every file,
# each (stack, labels) has the samples, summed period and summed latency that hwsample dump
# shows for it, stacks are dump's call chains (addresses and function names), labels pid,
# tid, cpu, comm, event, op, mem_level, snoop, tlb carry dump's values, -top's totals equal
# dump's sums. Files: cpu-clock -g of tests/workloads/callchain (call chains), page-faults -d
# of memdemo (data addresses, also with --data-frames), generated PEBS, IBS and SPE files
# (latency and data-source labels, with and without --data-frames). Then the filters
# (--time, --comms, -e) keep exactly the samples dump shows passing them, and bad input
# (missing, not perf.data, cut short, unwritable output, no format, unknown event) gives
# a clear message and the documented exit code.
. "$(dirname "$0")/lib/common.sh"
need_python3
command -v go >/dev/null 2>&1 ||
	skip "go not installed (Debian golang-go: go tool pprof reads the profiles; scripts/deps.sh installs it)"
need_gen intel_pebs amd_ibs arm_spe
need_sw_events
CMP="python3 $HWS_SOURCE_DIR/tests/e2e/analysis_pprof_cmp.py"
export GOCACHE=$TMP/gocache GOPATH=$TMP/gopath # go tool writes its caches there

# conv NAME FILE [convert options...] [-- cmp options...]: convert, dump, compare
conv() {
	local name=$1 f=$2 copts=() xopts=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do copts+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	xopts=("$@")
	"$HWS_BIN" convert -i "$f" --to-pprof "$TMP/$name.pb.gz" "${copts[@]}" 2>"$TMP/conv.err"
	st=$? # here: a $(...) in the message would reset $?
	check "$name: convert exit 0 ($(head -c 200 "$TMP/conv.err"))" [ "$st" = 0 ] || return
	"$HWS_BIN" dump -i "$f" --json --sym >"$TMP/d.json" 2>/dev/null
	"$HWS_BIN" dump -i "$f" -F comm >"$TMP/d.comm" 2>/dev/null
	$CMP "$TMP/$name.pb.gz" "$TMP/d.json" "$TMP/d.comm" "${xopts[@]}" >"$TMP/cmp.out" 2>&1
	check "$name: go tool pprof reads what dump shows: $(tail -1 "$TMP/cmp.out")$(
		[ "${PIPESTATUS[0]}" ] && head -3 "$TMP/cmp.out" | grep -v ' 0 differences' | tr '\n' ' ')" \
		grep -q ' 0 differences$' "$TMP/cmp.out"
}

# 1. recorded here: call chains; page faults with data addresses
"$HWS_BIN" -q -b sw -e cpu-clock -c 500000 -g -o "$TMP/cc.data" -- "$HWS_WORKLOADS/callchain" 0.3 \
	>/dev/null 2>&1 || die "recording cpu-clock -g failed"
conv cc-g "$TMP/cc.data"
"$HWS_BIN" -q -b sw -e page-faults -c 10 -d -o "$TMP/pf.data" -- "$HWS_WORKLOADS/memdemo" \
	>/dev/null 2>&1 || die "recording page-faults -d failed"
conv pf-data "$TMP/pf.data" --data-frames -- --data-frames
# the call chains are really there: main calls cc_leaf through cc_level1 and cc_level2
check "cc-g: -traces show cc_leaf under cc_level2 under cc_level1" \
	grep -q 'cc_level1' <(go tool pprof -traces -focus=cc_leaf "$TMP/cc-g.pb.gz" 2>/dev/null)
# sources and lines of the workload (built with -g)
check "cc-g: workload functions have callchain.c lines" \
	grep -qE 'cc_leaf .*callchain\.c:[1-9]' <(go tool pprof -raw "$TMP/cc-g.pb.gz" 2>/dev/null)
check "cc-g: the workload is the main binary (mapping 1)" \
	grep -q '^File: callchain$' <(go tool pprof -top "$TMP/cc-g.pb.gz" 2>/dev/null)

# 2. generated vendor files: latency, data source
for g in intel_pebs amd_ibs arm_spe; do
	"$HWS_GEN/gen_$g" -o "$TMP/$g.data" -n 1000 -s 11 >/dev/null 2>&1 || die "gen_$g failed"
	[ $g = intel_pebs ] && conv "$g" "$TMP/$g.data" # the others: with data frames only
	conv "$g-data" "$TMP/$g.data" --data-frames -- --data-frames
done
check "intel_pebs: latency/cycles is a sample type, mem_level a tag" \
	grep -q 'latency/cycles' <(go tool pprof -raw "$TMP/intel_pebs.pb.gz" 2>/dev/null)

# 3. filters: exactly the samples that pass them
t=$("$HWS_BIN" dump -i "$TMP/cc.data" --json 2>/dev/null | awk 'NR == 50 || NR == 400' |
	sed 's/.*"time":\([0-9]*\).*/\1/')
t1=${t%%$'\n'*} t2=${t##*$'\n'}
sec() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }
conv cc-time "$TMP/cc.data" --time "$(sec "$t1"),$(sec "$t2")" -- \
	--keep "$t1 <= s['time'] <= $t2"
conv pf-comm "$TMP/pf.data" --comms memdemo -- --keep "c == 'memdemo'"
"$HWS_BIN" -q -b sw -e cpu-clock,page-faults -c 20000 -o "$TMP/two.data" -- \
	"$HWS_WORKLOADS/memdemo" >/dev/null 2>&1 || die "recording two events failed"
conv two-e "$TMP/two.data" -e page-faults -- --keep "s['event'] == 'page-faults'"

# 4. bad input: clear errors, documented exit codes, no profile left behind
"$HWS_BIN" convert -i "$TMP/nope.data" --to-pprof "$TMP/x.pb.gz" 2>"$TMP/err"
eq "missing input: exit" "$?" 1
check "missing input: names the file ($(cat "$TMP/err"))" grep -q "nope.data: No such file" "$TMP/err"
head -c 5000 /dev/urandom >"$TMP/junk.data"
"$HWS_BIN" convert -i "$TMP/junk.data" --to-pprof "$TMP/x.pb.gz" 2>"$TMP/err"
eq "not perf.data: exit" "$?" 1
check "not perf.data: says so ($(head -c 200 "$TMP/err"))" grep -qi "perf.data\|magic\|header" "$TMP/err"
check "not perf.data: no profile written" [ ! -e "$TMP/x.pb.gz" ] && [ ! -e "$TMP/x.pb.gz.tmp" ]
"$HWS_BIN" convert -i "$TMP/cc.data" 2>"$TMP/err"
eq "no --to-pprof: exit" "$?" 2
check "no --to-pprof: names the option" grep -q -- "--to-pprof" "$TMP/err"
"$HWS_BIN" convert -i "$TMP/cc.data" --to-pprof "$TMP/no/such/dir/x.pb.gz" 2>"$TMP/err"
eq "unwritable output: exit" "$?" 1
check "unwritable output: names it ($(cat "$TMP/err"))" grep -q "no/such/dir/x.pb.gz" "$TMP/err"
"$HWS_BIN" convert -i "$TMP/cc.data" --to-pprof "$TMP/x.pb.gz" -e nosuch 2>"$TMP/err"
eq "unknown event: exit" "$?" 2
check "unknown event: lists the file's events" grep -q "cpu-clock" "$TMP/err"
# cut short: the samples before the cut are converted, and the run says so (exit 1)
size=$(stat -c %s "$TMP/cc.data")
head -c $((size * 2 / 3)) "$TMP/cc.data" >"$TMP/cut.data"
"$HWS_BIN" convert -i "$TMP/cut.data" --to-pprof "$TMP/cut.pb.gz" 2>"$TMP/err"
eq "cut file: exit" "$?" 1
check "cut file: says it ($(head -c 200 "$TMP/err"))" grep -q "cut.data" "$TMP/err"
n=$("$HWS_BIN" dump -i "$TMP/cut.data" 2>/dev/null | grep -c '^[^	]')
check "cut file: the profile holds the $n samples dump recovers" \
	grep -q "Total samples = $n\b" <(go tool pprof -top -sample_index=samples "$TMP/cut.pb.gz" 2>/dev/null)
# stdout: a pipe works, a terminal is refused
"$HWS_BIN" convert -i "$TMP/cc.data" --to-pprof - 2>/dev/null | gzip -t
check "--to-pprof - writes a gzip stream to stdout" [ "${PIPESTATUS[0]}${PIPESTATUS[1]}" = 00 ]
finish
