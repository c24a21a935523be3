#!/bin/bash
# SPDX-License-Identifier: MIT
# The c2c demo workloads end to end on real hardware: false_sharing -> fs_counters is false
# sharing; padded -> no contended padded_counters line; true_sharing -> ts_counter is true
# sharing. Skips (77) where hwsample c2c record has no memory-sampling PMU.
. "$(dirname "$0")/lib/common.sh"
command -v jq >/dev/null || skip "jq not installed"
W=$HWS_WORKLOADS
[ -x "$W/false_sharing" ] || skip "workloads not built"
"$HWS_BIN" c2c record -o "$TMP/probe.data" -- true >"$TMP/probe.log" 2>&1
rc=$?
[ $rc = 3 ] && skip "no memory-sampling PMU here: $(head -1 "$TMP/probe.log")"
[ $rc = 4 ] && skip "not allowed to sample here: $(head -1 "$TMP/probe.log")"
[ $rc = 0 ] || { fail "c2c record of true: exit $rc: $(cat "$TMP/probe.log")"; finish; exit; }
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

class_of() { # class_of JSON SYMBOL_PREFIX -> classes of lines whose data symbol starts so
	jq -r --arg s "$2" '.lines[] | select([.entries[].data_symbol // ""] | any(startswith($s))) | .class' "$1" | sort -u | tr '\n' ' '
}
run() { # run NAME ARGS...
	local n=$1; shift
	"$HWS_BIN" c2c record -q -o "$TMP/$n.data" -- "$W/$n" "$@" >"$TMP/$n.log" 2>&1 ||
		fail "$n: record: $(tail -3 "$TMP/$n.log")"
	"$HWS_BIN" c2c report -i "$TMP/$n.data" --json >"$TMP/$n.json" || fail "$n: report"
}
run false_sharing 4 20000000
case $(class_of "$TMP/false_sharing.json" fs_counters) in
*false-sharing* | *mixed*) ;;
*) fail "false_sharing: fs_counters not false sharing: '$(class_of "$TMP/false_sharing.json" fs_counters)'" ;;
esac
run padded 4 20000000
c=$(class_of "$TMP/padded.json" padded_counters)
case $c in *false-sharing* | *mixed*) fail "padded: still false sharing: $c" ;; esac
run true_sharing 4 5000000
case $(class_of "$TMP/true_sharing.json" ts_counter) in
*true-sharing* | *mixed* | *unresolved*) ;;
*) fail "true_sharing: ts_counter not true sharing: '$(class_of "$TMP/true_sharing.json" ts_counter)'" ;;
esac
finish
