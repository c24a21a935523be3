#!/bin/bash
# SPDX-License-Identifier: MIT
# Maps followed across exec(): tests/workloads/exec_chain spins in before_exec(), then
# execs cpuburn in the same process. Recorded by hwsample (cpu-clock):
#  1. dump names every sample as perf script does (address -> sym+off, dso), before and
#     after the exec;
#  2. report's Top functions count, per function, the samples perf report --sort sym
#     counts: before_exec [exec_chain] and main [cpuburn] both named, nothing [unknown]
#     (report looks symbols up after the run, when the process already has the new image).
. "$(dirname "$0")/lib/common.sh"
need_perf
perf version >/dev/null 2>&1 || skip "perf does not run"
need_sw_events
W=${HWS_WORKLOADS:-}
[ -x "$W/exec_chain" ] && [ -x "$W/cpuburn" ] || skip "workloads not built in $W"

"$HWS_BIN" record -q -b sw -e cpu-clock -c 250000 -o "$TMP/e.data" -- \
	"$W/exec_chain" 30000000 "$W/cpuburn" 1 >/dev/null 2>"$TMP/rec.err"
eq "record exit code" "$?" 0

# 1. dump against perf script, sample by sample ("ip sym+off" pairs, in order)
# (a sample at a function's first byte: perf's "NAME+0x0" is hwsample's "NAME")
perf script -i "$TMP/e.data" -F ip,sym,symoff 2>/dev/null |
	awk '$1 !~ /^ffff/ {sub(/\+0x0$/, "", $2); print $1, $2}' >"$TMP/perf.txt"
"$HWS_BIN" dump -i "$TMP/e.data" 2>/dev/null |
	awk '{for (i = 1; i < NF; i++) if ($i == "ip") {sub(/^0x/, "", $(i + 1)); print $(i + 1), $(i + 2); break}}' |
	awk '$1 !~ /^ffff/' >"$TMP/hws.txt"
check "perf script gave samples" test -s "$TMP/perf.txt"
# a sample in a PLT entry: hwsample says NAME@plt (as newer perf does), perf 6.1 _init+OFF
# (its _init covers the PLT; see symbols_plt.sh) or, in libc's .plt.sec, "@plt" with no name:
# that pair counts as the same name. The first differences go to stderr.
same_names() {
	[ "$(wc -l <"$TMP/perf.txt")" = "$(wc -l <"$TMP/hws.txt")" ] ||
		{ echo "perf $(wc -l <"$TMP/perf.txt") samples, hwsample $(wc -l <"$TMP/hws.txt")" >&2; return 1; }
	paste -d'|' "$TMP/perf.txt" "$TMP/hws.txt" | awk -F'|' '{split($1, p, " "); split($2, h, " ")}
		p[1] == h[1] && p[2] ~ /^(_init\+|@plt)/ && h[2] ~ /@plt(\+|$)/ {plt++; next}
		$1 != $2 {if (bad++ < 3) print "differs: perf " $1 ", hwsample " $2 > "/dev/stderr"}
		END {if (plt) print "note: " plt " samples in PLT entries"; exit bad != 0}'
}
check "dump names user samples as perf script does" same_names
check "samples before the exec" grep -q " before_exec+" "$TMP/hws.txt"
check "samples after the exec" grep -q " main+" "$TMP/hws.txt"

# 2. report against perf report
"$HWS_BIN" report -i "$TMP/e.data" --ascii --top 50 >"$TMP/rep.txt" 2>"$TMP/rep.err"
eq "report exit code" "$?" 0
perf report -i "$TMP/e.data" --stdio -q --sort sym,dso -F sample,sym,dso 2>/dev/null |
	awk 'NF >= 4 && $2 == "[.]" {print $3, "[" $4 "]", $1}' | sort >"$TMP/perf_syms"
awk '/^== Top functions/ {on = 1; next} /^== / {on = 0} on && $1 ~ /^[0-9]+$/ && $2 ~ /%$/ {print $4, $5, $1}' \
	"$TMP/rep.txt" | grep -v '^\[' | grep -v '\[kernel\]' | grep -v '@plt ' | grep -v '^_init ' | sort >"$TMP/hws_syms"
# PLT samples (above): _init rows (perf 6.1 puts PLT samples there) and NAME@plt rows left out on both sides
grep -v '^_init ' "$TMP/perf_syms" >"$TMP/perf_syms.1" && mv "$TMP/perf_syms.1" "$TMP/perf_syms"
check "report names the samples taken before the exec like perf report" \
	grep -q "^before_exec \[exec_chain\] " "$TMP/hws_syms"
check "and those after it" grep -q "^main \[cpuburn\] " "$TMP/hws_syms"
check "report's user functions and counts equal perf report's" \
	cmp -s "$TMP/perf_syms" "$TMP/hws_syms"
check "no [unknown] function in report" bash -c "! grep -A60 '^== Top functions' '$TMP/rep.txt' | grep -q '\[unknown\]'"
[ "$FAILS" = 0 ] || { diff "$TMP/perf.txt" "$TMP/hws.txt" | head; diff "$TMP/perf_syms" "$TMP/hws_syms"; } >&2
finish
