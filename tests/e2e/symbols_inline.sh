#!/bin/bash
# SPDX-License-Identifier: MIT
# Inlined functions in call chains (core/symbols/inline.c, hws_symbols__inlines()) as perf
# 6.1 shows them, on --call-graph dwarf recordings of tests/workloads/callchain_nofp (cc_mix
# is inlined into cc_leaf and cc_cmp; libc's msort_with_tmp into itself and qsort):
#  1. dump's call-chain lines equal `perf script`'s (perf 6.1 adds "NAME+0xOFF (inlined)"
#     lines to DWARF-unwound frames by default), for perf's file and hwsample's; with
#     --no-inline they equal `perf script --no-inline`. Lines at libc's sysinfo and *_erms
#     are left out: addr2line (which perf runs) names those by an ELF alias of the DWARF
#     function, which hwsample does not emulate;
#     --max-stack N (1, 3) equals perf script --max-stack N: inlined entries do not count
#     and the unwound user frames are limited apart from the kernel's (as perf 6.1);
#     report --folded --max-stack N has the stacks of dump --max-stack N;
#  2. frame-pointer chains (-g) get none, as perf 6.1 (also there: perf script); --inline adds them;
#  3. dump --json --sym: the inlined entry "inlined":true with its srcline, before its frame;
#  4. report --folded: cc_mix as the leaf under cc_leaf; --no-inline: no cc_mix;
#  5. convert --to-pprof: cc_mix and cc_leaf lines of one location (go tool pprof -raw),
#     cc_mix "(inline)" in -traces; --no-inline: no cc_mix.
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
need_sw_events
WL=$HWS_WORKLOADS
[ -x "$WL/callchain_nofp" ] || skip "workload $WL/callchain_nofp not built"
# (and [vdso] frames: hwsample's names differ there, see symbols_vdso.sh)
IGN='sysinfo|_erms|\[vdso\]'
# the line after a match of $2 in file $1 matches $3
next_line() { grep -A1 -E -- "$2" "$1" | grep -qE -- "$3"; }

perf record -q -e cpu-clock -c 1000000 --call-graph dwarf -o "$TMP/p.data" -- \
	"$WL/callchain_nofp" 0.2 >/dev/null 2>"$TMP/err" ||
	skip "perf record --call-graph dwarf failed: $(head -c 300 "$TMP/err")"
"$HWS_BIN" -q -b sw -e cpu-clock -c 1000000 --call-graph dwarf -o "$TMP/h.data" -- \
	"$WL/callchain_nofp" 0.2 >/dev/null 2>"$TMP/err" ||
	die "hwsample --call-graph dwarf: $(head -c 300 "$TMP/err")"

# PLT entries: perf 6.1 names them by their position in .rela.plt, which in libc.so.6 (whose
# IRELATIVE relocations are out of PLT order) gives other entries' names or a bare "@plt";
# hwsample names each by its GOT slot, as newer perf (symbols_plt.sh): both become "PLT". In
# the workload perf 6.1 may say _init+0xOFF for a PLT entry: first made the entry's name
# (lib/perf61_plt.py, perf's side only)
frames() { grep -P '^\t' | grep -Ev "$IGN" | sed -E 's/ [^ ]*@plt\+0x/ PLT+0x/'; }
for f in p h; do
	for o in "" --no-inline; do
		# shellcheck disable=SC2086
		perf script -i "$TMP/$f.data" $o 2>/dev/null | perf61_plt | frames >"$TMP/ps.txt"
		# shellcheck disable=SC2086
		"$HWS_BIN" dump -i "$TMP/$f.data" $o 2>/dev/null | frames >"$TMP/hs.txt"
		check "$f.data dump ${o:-(default)}: frames equal perf script ${o:-(default)}" \
			cmp -s "$TMP/ps.txt" "$TMP/hs.txt" ||
			diff "$TMP/ps.txt" "$TMP/hs.txt" | head -5
	done
	check "$f.data: inlined frames are there" grep -q "cc_mix+0x[0-9a-f]* (inlined)$" \
		<("$HWS_BIN" dump -i "$TMP/$f.data" 2>/dev/null)
done

# the call-chain lines of each sample, outermost first, as one folded stack
stacks() { awk '
	!/^\t/ && NF {if (st != "") c[st]++; st = ""; next}
	/^\t/ {nm = $2; sub(/\+0x[0-9a-f]+$/, "", nm); st = (st == "" ? nm : nm ";" st); next}
	END {if (st != "") c[st]++; for (k in c) print k, c[k]}' | sort; }
for f in p h; do
	for n in 1 3; do
		perf script -i "$TMP/$f.data" --max-stack $n 2>/dev/null | perf61_plt | frames >"$TMP/ps.txt"
		"$HWS_BIN" dump -i "$TMP/$f.data" --max-stack $n 2>/dev/null >"$TMP/hd.txt"
		frames <"$TMP/hd.txt" >"$TMP/hs.txt"
		k=$(grep -cP '^\tffff' "$TMP/hd.txt")
		check "$f.data dump --max-stack $n: frames equal perf script's ($k kernel frames)" \
			cmp -s "$TMP/ps.txt" "$TMP/hs.txt" || diff "$TMP/ps.txt" "$TMP/hs.txt" | head -5
		check "$f.data dump --max-stack $n: inlined entries shown (they do not count)" \
			grep -q "(inlined)$" "$TMP/hs.txt"
	done
	"$HWS_BIN" dump -i "$TMP/$f.data" --sym --max-stack 3 2>/dev/null | stacks >"$TMP/ds.txt"
	"$HWS_BIN" report -i "$TMP/$f.data" --folded --max-stack 3 2>/dev/null |
		sed 's/^[^;]*;//' | awk '{v = $NF; $NF = ""; sub(/ $/, ""); c[$0] += v}
		END {for (k in c) print k, c[k]}' | sort >"$TMP/fs.txt"
	check "$f.data --folded --max-stack 3: the stacks of dump --max-stack 3" \
		cmp -s "$TMP/ds.txt" "$TMP/fs.txt" || diff "$TMP/ds.txt" "$TMP/fs.txt" | head -5
done

# up to five recordings of 200 samples: the frame below (cc_mix inlined into cc_leaf) is in
# 1-15% of them (2 to 29 of 200 in six recordings here), and a fresh-clone run once had none
for try in 1 2 3 4 5; do
	"$HWS_BIN" -q -b sw -e cpu-clock -c 1000000 -g -o "$TMP/fp.data" -- "$WL/callchain" 0.2 \
		>/dev/null 2>"$TMP/err" || die "hwsample -g: $(head -c 300 "$TMP/err")"
	"$HWS_BIN" dump -i "$TMP/fp.data" --inline >"$TMP/fpi.txt" 2>/dev/null
	next_line "$TMP/fpi.txt" "cc_mix\+0x[0-9a-f]+ \(inlined\)$" " cc_leaf\+0x" && break
done
eq "-g chains: no inlined frames (perf 6.1)" \
	"$("$HWS_BIN" dump -i "$TMP/fp.data" 2>/dev/null | grep -c "(inlined)")" 0
eq "-g chains: none in perf script either" \
	"$(perf script -i "$TMP/fp.data" 2>/dev/null | grep -c "(inlined)")" 0
check "-g chains with --inline: cc_mix (inlined) before cc_leaf" next_line "$TMP/fpi.txt" \
	"cc_mix\+0x[0-9a-f]+ \(inlined\)$" " cc_leaf\+0x"

"$HWS_BIN" dump -i "$TMP/h.data" --json --sym 2>/dev/null >"$TMP/j.txt"
check "JSON: inlined entry with srcline, then its frame" grep -qE \
	'"sym":"cc_mix\+0x[0-9a-f]+","dso":"[^"]*","inlined":true,"srcline":"[^"]*callchain.c:[0-9]+"\},\{"ip":"[^"]*","sym":"cc_(leaf|cmp)\+' \
	"$TMP/j.txt"
eq "JSON --no-inline: no inlined entries" \
	"$("$HWS_BIN" dump -i "$TMP/h.data" --json --sym --no-inline 2>/dev/null | grep -c '"inlined"')" 0

# cc_mix is inlined into cc_leaf, cc_cmp and main, and 200 samples need not have one in cc_leaf
# (a fresh-clone run had none): up to four more recordings, as for fp.data above
cp "$TMP/h.data" "$TMP/hf.data"
for try in 1 2 3 4 5; do
	"$HWS_BIN" report -i "$TMP/hf.data" --folded >"$TMP/hf.txt" 2>/dev/null
	grep -q ";cc_leaf;cc_mix [0-9]" "$TMP/hf.txt" && break
	[ $try = 5 ] || "$HWS_BIN" -q -b sw -e cpu-clock -c 1000000 --call-graph dwarf \
		-o "$TMP/hf.data" -- "$WL/callchain_nofp" 0.2 >/dev/null 2>&1
done
check "--folded: cc_mix under cc_leaf" grep -q ";cc_leaf;cc_mix [0-9]" "$TMP/hf.txt"
eq "--folded --no-inline: no cc_mix" \
	"$("$HWS_BIN" report -i "$TMP/h.data" --folded --no-inline 2>/dev/null | grep -c cc_mix)" 0
"$HWS_BIN" report -i "$TMP/h.data" --folded >"$TMP/fo.txt" 2>/dev/null
eq "--folded sums to the samples" "$(awk '{s += $NF} END {print s}' "$TMP/fo.txt")" \
	"$("$HWS_BIN" dump -i "$TMP/h.data" --no-sym 2>/dev/null | grep -c cpu-clock)"

if command -v go >/dev/null 2>&1; then
	export GOCACHE=$TMP/gocache GOPATH=$TMP/gopath
	"$HWS_BIN" convert -i "$TMP/h.data" --to-pprof "$TMP/i.pb.gz" >/dev/null 2>&1
	"$HWS_BIN" convert -i "$TMP/h.data" --to-pprof "$TMP/n.pb.gz" --no-inline >/dev/null 2>&1
	go tool pprof -raw "$TMP/i.pb.gz" >"$TMP/raw.txt" 2>/dev/null
	check "pprof: cc_mix and cc_leaf are lines of one location" next_line "$TMP/raw.txt" \
		'^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ cc_mix .*callchain\.c:[0-9]+' \
		'^ +cc_(leaf|cmp) .*callchain\.c:[0-9]+'
	check "pprof -traces: cc_mix (inline)" grep -q "cc_mix (inline)" \
		<(go tool pprof -traces "$TMP/i.pb.gz" 2>/dev/null)
	eq "pprof --no-inline: no cc_mix" \
		"$(go tool pprof -raw "$TMP/n.pb.gz" 2>/dev/null | grep -c cc_mix)" 0
fi
finish
