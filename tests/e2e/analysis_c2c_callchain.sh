#!/bin/bash
# SPDX-License-Identifier: MIT
# hwsample c2c report's call paths against perf c2c report -g on the same Intel-style file
# with PERF_SAMPLE_CALLCHAIN (gen_c2c -g: known paths through the generator's own functions,
# thread_main -> worker_hot|worker_cold -> the sampled function, 3:1): per contended line
# and per row (offset, code address), the same paths with the same sample counts
# (-g folded,0,caller,function,count) and the same percentages of the line's period (perf's
# default value, -g folded,0,caller,function,percent); the line's paths are the sums of its
# rows'; the text report lists them; -g none / --no-call-graph drop them; a file without
# call chains has none; the HTML page carries them, escaped, and shows them.
. "$(dirname "$0")/lib/common.sh"
need_perf
need_gen c2c
command -v jq >/dev/null || skip "jq not installed"
GEN=$HWS_GEN/gen_c2c

# perf's Pareto with folded call paths: "line offset iaddr value path" per path of a row
perf_paths() {
	awk '/Shared Cache Line Distribution Pareto/ {t = 1}
	     t && $1 ~ /^[0-9]+$/ && $NF ~ /^0x/ && NF <= 8 {line = $NF; next}
	     t && $1 ~ /%$/ && $6 ~ /^0x/ {row = line " " $6 " " $9; next}
	     t && row != "" && NF == 2 && $1 ~ /^[0-9.]+%?$/ {print row, $1, $2}' "$1" | sort
}
# hwsample's rows grouped by (offset, ip) as perf groups them: "line offset ip value path"
hws_paths() { # $1 json, $2: samples | percent
	jq -r --arg v "$2" '.lines[] | .address as $a | .entries[] |
		. as $e | .callchains[] | [$a, $e.offset, $e.ip, .path, .samples, .period] | @tsv' "$1" |
		awk -F'\t' -v v="$2" -v json="$1" '
		BEGIN { cmd = "jq -r \".lines[] | \\\"\\(.address) \\(.callchains | map(.period) | add)\\\"\" " json
			while ((cmd | getline l) > 0) { split(l, a, " "); tot[a[1]] = a[2] } }
		{ k = $1 " " sprintf("0x%x", $2) " " $3 SUBSEP $4; n[k] += $5; p[k] += $6 }
		END { for (k in n) { split(k, kk, SUBSEP); split(kk[1], f, " ")
			val = v == "samples" ? n[k] : sprintf("%.2f%%", 100 * p[k] / tot[f[1]])
			print kk[1], val, kk[2] } }' | sort
}

for seed in 3 11; do
	f=$TMP/cc.$seed.data
	check "generate seed $seed" "$GEN" -o "$f" -v intel -n 20000 -s $seed -g
	perf c2c report --stdio -i "$f" -g folded,0,caller,function,count >"$TMP/perf.cnt" 2>"$TMP/perf.err" ||
		{ fail "perf c2c report -g failed: $(head -3 "$TMP/perf.err")"; continue; }
	perf c2c report --stdio -i "$f" -g folded,0,caller,function,percent >"$TMP/perf.pct" 2>/dev/null ||
		fail "perf c2c report -g percent"
	"$HWS_BIN" c2c report -i "$f" --json >"$TMP/h.json" || fail "hwsample c2c report --json"
	perf_paths "$TMP/perf.cnt" >"$TMP/p.cnt"
	hws_paths "$TMP/h.json" samples >"$TMP/h.cnt"
	n=$(wc -l <"$TMP/p.cnt")
	[ "$n" -ge 12 ] || fail "seed $seed: perf shows only $n row paths"
	grep -q ' thread_main;worker_cold;' "$TMP/p.cnt" || fail "seed $seed: perf shows no worker_cold path"
	eq "seed $seed: row paths and sample counts (line off ip count path)" "$(cat "$TMP/h.cnt")" "$(cat "$TMP/p.cnt")"
	eq "seed $seed: row paths and percentages of the line's period" \
		"$(hws_paths "$TMP/h.json" percent)" "$(perf_paths "$TMP/perf.pct")"
	# per line: the line's paths are the sums of its rows' paths
	eq "seed $seed: line paths = sums of the row paths" \
		"$(jq -r '.lines[] | .address as $a | .callchains[] | "\($a) \(.path) \(.samples)"' "$TMP/h.json" | sort)" \
		"$(jq -r '.lines[] | .address as $a | [.entries[].callchains[]] | group_by(.path)[] |
			"\($a) \(.[0].path) \(map(.samples) | add)"' "$TMP/h.json" | sort)"
	# every sample of a reported line has its path: samples = records
	eq "seed $seed: every sample on a path" \
		"$(jq -r '.lines[] | "\(.address) \(.records)"' "$TMP/h.json")" \
		"$(jq -r '.lines[] | "\(.address) \(.callchains | map(.samples) | add)"' "$TMP/h.json")"
done

# text: the rows' paths below them, the line's in its header, as in the JSON
"$HWS_BIN" c2c report -i "$f" --stdio >"$TMP/h.txt" || fail "hwsample c2c report --stdio"
top=$(jq -r '.lines[0].callchains[0] | "\(.percent) \(.samples) \(.path)"' "$TMP/h.json")
grep -q "call paths (% of the line's period" "$TMP/h.txt" || fail "text: no call paths header"
eq "text: the top line's first path" \
	"$(awk '/call paths \(%/ {getline; printf "%.2f %s %s\n", $1, $2, $3; exit}' "$TMP/h.txt")" \
	"$(echo "$top" | awk '{printf "%.2f %s %s\n", $1, $2, $3}')"
for off in "-g none" "--no-call-graph"; do
	"$HWS_BIN" c2c report -i "$f" --json $off >"$TMP/n.json" || fail "c2c report $off"
	eq "$off: no call paths in the JSON" "$(jq '[.lines[] | has("callchains")] | any' "$TMP/n.json")" false
	"$HWS_BIN" c2c report -i "$f" --stdio $off | grep -q "call paths" && fail "$off: call paths in the text"
	eq "$off: same lines" "$(jq -c '[.lines[] | .address, .hitm]' "$TMP/n.json")" \
		"$(jq -c '[.lines[] | .address, .hitm]' "$TMP/h.json")"
done
"$HWS_BIN" c2c report -i "$f" -g bogus >/dev/null 2>"$TMP/err"
eq "-g bogus: usage error" "$?" 2
grep -q "call graph type" "$TMP/err" || fail "-g bogus: no message naming the problem"

# a file without call chains: no paths
check "generate without -g" "$GEN" -o "$TMP/plain.data" -v intel -n 5000 -s 3
"$HWS_BIN" c2c report -i "$TMP/plain.data" --json >"$TMP/p.json" || fail "c2c report plain"
eq "no call chains: no paths" "$(jq '[.lines[].callchains | length] | add' "$TMP/p.json")" 0
# -g is for the intel encoding only
"$GEN" -o "$TMP/x.data" -v spe -n 10 -g 2>/dev/null
eq "gen_c2c -g -v spe: usage error" "$?" 2

# HTML: the data block has the paths (no raw '<' in it) and the page shows them
"$HWS_BIN" c2c report -i "$f" --html "$TMP/c.html" || fail "c2c report --html"
grep -q '"callchains":\[{"path":"thread_main;worker_' "$TMP/c.html" || fail "html: no call paths in the data"
grep -q "table.*callchains\|'callchains'" "$TMP/c.html" || fail "html: no call path table in the script"
CHR=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHR" ]; then
	timeout 60 "$CHR" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chr" \
		--dump-dom "file://$TMP/c.html" >"$TMP/dom.html" 2>/dev/null || fail "chromium --dump-dom"
	grep -q 'class="callchains"' "$TMP/dom.html" || fail "html: no call path table rendered"
	eq "html: the top line's first path shown" \
		"$(grep -o '<table class="callchains">.*' "$TMP/dom.html" | head -1 |
			grep -o 'thread_main;worker_[a-z]*;[a-z_]*' | head -1)" \
		"$(jq -r '.lines[0].callchains[0].path' "$TMP/h.json")"
fi
finish
