#!/bin/bash
# SPDX-License-Identifier: MIT
# Data objects (core/objects): tests/workloads/objects_truth touches heap blocks of known
# allocation sites, sizes and fields (malloc, calloc, posix_memalign, realloc, a block
# allocated after another was freed, a second thread's), a static array, an anonymous mmap,
# its stack and a __thread array in two threads, one page fault per page, and prints its
# design ("expect" lines); each thread's samples of the __thread array are in its own block.
# Recorded with `hwsample -e page-faults -c 1 -d --objects` (the fault's address is the
# data address), every sample of each touching function is attributed in dump --json to
# the object of the design: kind, site function, size, and offset modulo the element size =
# the field's offset (tests/e2e/objects_cmp.py); perf report and perf script read the file
# without a warning; report --sort object,offset shows the sites; a recorder killed before
# it finished leaves FILE.objects/, which dump reads; callers whose frame-pointer register
# holds no frame (objects_badfp) are recorded without a crash; --objects with -p is refused
# (exit 3).
. "$(dirname "$0")/lib/common.sh"
need_sw_events
WL=$HWS_WORKLOADS/objects_truth
CMP="python3 $HWS_SOURCE_DIR/tests/e2e/objects_cmp.py"
f=$TMP/o.data

"$HWS_BIN" -b sw -e page-faults -c 1 -d --objects -o "$f" -- "$WL" >"$TMP/expect" 2>"$TMP/err"
eq "record --objects exit" "$?" 0
check "summary names the allocation records" grep -q "objects: [1-9][0-9]* allocation records" "$TMP/err"
check "the records' directory is gone once in the file" [ ! -e "$f.objects" ]
"$HWS_BIN" dump -i "$f" --json --sym >"$TMP/d.json" 2>"$TMP/err"
eq "dump --json exit" "$?" 0
$CMP "$TMP/expect" "$TMP/d.json"
eq "every attribution equals the design" "$?" 0

# convert --to-pprof: an "object" label per sample, as dump --json attributes it (go's pprof
# -tags: the count of every "[kind] site" / "[kind] name" value equals dump's)
if command -v go >/dev/null 2>&1; then
	export GOCACHE=$TMP/gocache GOPATH=$TMP/gopath
	"$HWS_BIN" convert -i "$f" --to-pprof "$TMP/o.pb.gz" 2>"$TMP/err"
	eq "convert --to-pprof exit" "$?" 0
	go tool pprof -tags -sample_index=samples "$TMP/o.pb.gz" >"$TMP/tags" 2>&1
	check "pprof object labels equal dump's attributions" python3 - "$TMP/d.json" "$TMP/tags" <<'PY'
import collections, json, re, sys
want = collections.Counter()
for line in open(sys.argv[1]):
    o = json.loads(line).get("object")
    if not o or o["kind"] == "stack":
        continue
    want["[%s] %s" % (o["kind"], o.get("site") or o.get("name", ""))] += 1
got, on = collections.Counter(), False
for line in open(sys.argv[2]):
    if re.match(r"\s*object: Total", line):
        on = True
        continue
    m = re.match(r"\s*([0-9.]+) \(\s*[0-9.]+%\): (.*)$", line)
    if on and m:
        if not m.group(2).startswith("[stack]"):
            got[m.group(2)] += int(float(m.group(1)))
    elif on and line.strip() and not m:
        on = False
bad = {k: (want[k], got[k]) for k in set(want) | set(got) if want[k] != got[k]}
print(f"{sum(want.values())} samples, {len(want)} objects; differing: {bad}")
sys.exit(1 if bad or not want else 0)
PY
else
	echo "note: go not installed: the pprof object labels are not checked"
fi

check "tls: each of the two threads touches its own block" python3 - "$TMP/d.json" <<'PY'
import collections, json, sys
bases = collections.defaultdict(set)
for line in open(sys.argv[1]):
    s = json.loads(line)
    if s.get("sym", "").startswith("touch_tls+"):
        bases[s["tid"]].add(s["object"]["base"])
print("tls blocks by thread:", dict(bases))
sys.exit(0 if len(bases) == 2 and all(len(b) == 1 for b in bases.values()) and
         len(set.union(*bases.values())) == 2 else 1)
PY

# report --sort object,offset: the sites and sizes as rows
"$HWS_BIN" report -i "$f" --sort object,offset >"$TMP/rep" 2>"$TMP/err"
eq "report --sort object,offset exit" "$?" 0
check "report: alloc_particles row of the 2nd element's field" \
	grep -q "\[heap\] alloc_particles+0x[0-9a-f]* (262144 bytes) *+5128 *$" "$TMP/rep"
check "report: static table row" grep -q "\[static\] table (131072 bytes)" "$TMP/rep"
check "report: thread-local array row" grep -q "\[tls\] tls_arr (16384 bytes)" "$TMP/rep"
"$HWS_BIN" report -i "$f" --sort object >"$TMP/rep1" 2>"$TMP/err"
eq "report --sort object exit" "$?" 0
check "report --sort object: one row for the 64 faults of alloc_particles' block" \
	grep -q "\[heap\] alloc_particles+0x[0-9a-f]* (262144 bytes) *$" "$TMP/rep1"

# perf reads the file (the records are an unknown header feature to it), no warning
if have_perf; then
	perf report -i "$f" --stdio >"$TMP/pr" 2>"$TMP/perr"
	eq "perf report exit" "$?" 0
	check "perf report: no message" [ ! -s "$TMP/perr" ]
	check "perf report: the workload's samples" grep -q touch_particles "$TMP/pr"
	perf script -i "$f" >"$TMP/ps" 2>"$TMP/perr"
	eq "perf script exit" "$?" 0
	check "perf script: no message" [ ! -s "$TMP/perr" ]
	eq "perf script: every sample" "$(wc -l <"$TMP/ps")" "$(grep -c . "$TMP/d.json")"
	check "perf: the samples' clock is monotonic" \
		bash -c "perf report -i '$f' --header-only 2>/dev/null | grep -q 'clockid: monotonic'"
fi

# the recorder killed: the records stay in FILE.objects/, dump reads them there
k=$TMP/k.data
"$HWS_BIN" -q -b sw -e page-faults -c 1 -d --objects -o "$k" -- "$WL" 30 >"$TMP/kout" 2>&1 &
rec=$!
for _ in $(seq 300); do
	grep -q '^done' "$TMP/kout" && break
	sleep 0.1
done
sleep 1 # a few of the recorder's rounds (200 ms each) reach the file
kill -KILL $rec
wait $rec 2>/dev/null
if [ -d "$k.objects" ]; then
	"$HWS_BIN" dump -i "$k" --json --sym >"$TMP/k.json" 2>"$TMP/kerr"
	check "killed: dump names the directory" grep -q "allocation records read from $k.objects" "$TMP/kerr"
	$CMP "$TMP/kout" "$TMP/k.json" >"$TMP/kcmp"
	eq "killed: every attribution equals the design" "$?" 0
else
	fail "killed: no $k.objects left"
fi

# callers without frame pointers: any value in the frame-pointer register stops the walk
"$HWS_BIN" -b sw -e page-faults --objects -o "$TMP/b.data" -- "$HWS_WORKLOADS/objects_badfp" \
	>"$TMP/bout" 2>"$TMP/err"
eq "garbage frame pointers: record exit" "$?" 0
eq "garbage frame pointers: every allocation made" "$(cat "$TMP/bout")" "ok 12"
check "garbage frame pointers: the allocations recorded" \
	grep -q "objects: \(1[2-9]\|[2-9][0-9]\|[0-9]\{3,\}\) allocation records" "$TMP/err"

# attach: no allocation records (exit 3, said why)
sleep 5 &
"$HWS_BIN" -b sw -e page-faults -p $! --objects -o "$TMP/p.data" -- sleep 0.1 >/dev/null 2>"$TMP/err"
eq "--objects with -p: exit 3" "$?" 3
check "--objects with -p: says why" grep -q "only in a program hwsample starts" "$TMP/err"
check "--objects with -p: says uprobes are not used" grep -q "uprobes on libc is not implemented" "$TMP/err"
kill $! 2>/dev/null
"$HWS_BIN" -b sw -e page-faults --objects=min=0 -- true >/dev/null 2>"$TMP/err"
eq "--objects=min=0: usage error" "$?" 2
finish
