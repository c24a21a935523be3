#!/bin/bash
# SPDX-License-Identifier: MIT
# Data objects and data types of vendor samples (core/objects, core/symbols/datatype.c) against
# the program's ground truth: tests/workloads/types_truth (-O2 -g) runs once under
# `hwsample record -b sw -e page-faults -c 1 -d --objects` (its allocation records, its
# mappings, and where its blocks and g_pairs are: "block" lines). From its binary (objdump,
# nm: tests/e2e/symbols_vendor_truth.py) every load and store of touch_global, touch_first,
# touch_stack, touch_heap, touch_param, touch_nested and consume gets samples at addresses
# of the design (g_pairs' elements, touch_stack's local array, the malloc'd blocks h, p, o),
# with the truth of each: the object (kind, site = the instruction after the call of malloc,
# size, offset) and the type ("expect" lines: type, offset, field). gen_c2c -r -S writes
# them as Intel PEBS (mem-loads/mem-stores), AMD IBS (ibs_op RAW registers) and Arm SPE
# (AUX trace) files in the recording's processes, with its allocation records. For each:
# dump --json --sym gives every sample the truth's object and type; report --sort
# sample,object,offset and --sort sample,type,typeoff have the truth's rows and counts;
# convert --to-pprof has the truth's object, type and typeoff labels (go tool pprof -tags).
# The page-fault recording's profile has dump's type and typeoff labels.
# SPE: the IPs are x86-64 ones (the types come from the executable's instructions, decoded
# as its ELF machine says); no arm64 executable is built here.
. "$(dirname "$0")/lib/common.sh"
need_sw_events
need_python3
need_gen c2c
command -v objdump >/dev/null 2>&1 && command -v nm >/dev/null 2>&1 || skip "binutils not installed"
if ! "$HWS_BIN" report -i /dev/null --sort typeoff >/dev/null 2>"$TMP/err" &&
	grep -q "needs capstone" "$TMP/err"; then
	skip "this hwsample was built without capstone"
fi
WL=$HWS_WORKLOADS/types_truth
PY="python3 $HWS_SOURCE_DIR/tests/e2e/symbols_vendor_truth.py"
real=$TMP/real.data

"$HWS_BIN" -b sw -e page-faults -c 1 -d --objects -o "$real" -- "$WL" >"$TMP/out" 2>"$TMP/err"
eq "record --objects exit" "$?" 0
"$HWS_BIN" dump -i "$real" --json --sym >"$TMP/real.json" 2>"$TMP/err"
eq "dump of the recording: exit" "$?" 0
$PY plan "$WL" "$TMP/out" "$TMP/real.json" "$TMP/samples" "$TMP/truth" >"$TMP/plan" 2>&1
st=$? # here: a $(...) in the message would reset $?
check "the samples and their truth from the binary: $(tail -1 "$TMP/plan")" [ "$st" = 0 ]
[ -s "$TMP/truth" ] || die "no samples planned"

if command -v go >/dev/null 2>&1; then
	export GOCACHE=$TMP/gocache GOPATH=$TMP/gopath
	have_go=1
else
	echo "note: go not installed: the pprof labels are not checked"
fi

for v in intel ibs spe; do
	f=$TMP/$v.data
	"$HWS_GEN/gen_c2c" -v $v -r "$real" -S "$TMP/samples" -o "$f" >"$TMP/gen.err" 2>&1
	st=$?
	check "$v: gen_c2c -r -S ($(head -c 200 "$TMP/gen.err"))" [ "$st" = 0 ] || continue
	"$HWS_BIN" dump -i "$f" --json --sym >"$TMP/$v.json" 2>"$TMP/err"
	st=$?
	eq "$v: dump exit ($(head -c 200 "$TMP/err"))" "$st" 0
	$PY dump "$TMP/truth" "$TMP/$v.json" >"$TMP/cmp" 2>&1
	st=$?
	check "$v: dump: every object and type is the truth's: $(tail -1 "$TMP/cmp") $(head -3 "$TMP/cmp" | tr '\n' ' ')" \
		[ "$st" = 0 ]
	# SPE: each record is a sample of every event perf makes of it (l1d-access, memory, ...):
	# the memory event's has each load and store once
	itr=
	[ "$v" = spe ] && itr=--itrace=M
	"$HWS_BIN" report -i "$f" --sort sample,object,offset --stdio $itr >"$TMP/rep" 2>"$TMP/err"
	eq "$v: report --sort sample,object,offset exit" "$?" 0
	$PY report "$TMP/truth" "$TMP/rep" object >"$TMP/cmp" 2>&1
	st=$?
	check "$v: report --sort object,offset: $(tail -1 "$TMP/cmp")" [ "$st" = 0 ]
	"$HWS_BIN" report -i "$f" --sort sample,type,typeoff --stdio $itr >"$TMP/rep" 2>"$TMP/err"
	eq "$v: report --sort sample,type,typeoff exit" "$?" 0
	$PY report "$TMP/truth" "$TMP/rep" type >"$TMP/cmp" 2>&1
	st=$?
	check "$v: report --sort type,typeoff: $(tail -1 "$TMP/cmp")" [ "$st" = 0 ]
	[ "${have_go:-}" ] || continue
	"$HWS_BIN" convert -i "$f" --to-pprof "$TMP/$v.pb.gz" 2>"$TMP/err"
	eq "$v: convert --to-pprof exit" "$?" 0
	go tool pprof -tags -sample_index=samples "$TMP/$v.pb.gz" >"$TMP/tags" 2>&1
	$PY tags "$TMP/truth" "$TMP/tags" >"$TMP/cmp" 2>&1
	st=$?
	check "$v: pprof labels: $(tail -1 "$TMP/cmp")" [ "$st" = 0 ]
done

# the page-fault recording: its profile's type and typeoff labels are dump's types
if [ "${have_go:-}" ]; then
	"$HWS_BIN" convert -i "$real" --to-pprof "$TMP/real.pb.gz" 2>"$TMP/err"
	eq "page faults: convert --to-pprof exit" "$?" 0
	go tool pprof -tags -sample_index=samples "$TMP/real.pb.gz" >"$TMP/tags" 2>&1
	$PY dumptags "$TMP/real.json" "$TMP/tags" "struct pair" >"$TMP/cmp" 2>&1
	st=$?
	check "page faults: type and typeoff labels of every typed sample, as dump's: $(tail -1 "$TMP/cmp")" \
		[ "$st" = 0 ]
fi
finish
