#!/bin/bash
# SPDX-License-Identifier: MIT
# A full disk while recording: hwsample records page faults (-d) of a workload that makes
# about 3.5 MB of samples into a 1 MB tmpfs. It must stop with exit 1 and a message that
# names the problem, the file and the fix ("no space left on device: ... free space"), say
# how many samples the file holds and how many records / samples / bytes could not be
# written, and leave a file whose header data size ends at its last whole record, which
# hwsample dump and perf script read with the same sample count (the one the message
# gives). Needs root (mount).
. "$(dirname "$0")/lib/common.sh"
need_root
need_sw_events
need_python3
W=${HWS_WORKLOADS:-}/faulter
[ -x "$W" ] || skip "workload $W not built"
MNT=$TMP/mnt
mkdir -p "$MNT"
mount -t tmpfs -o size=1m hws-full-disk "$MNT" 2>"$TMP/mount.err" ||
	skip "cannot mount a tmpfs here: $(cat "$TMP/mount.err")"
trap 'umount "$MNT" 2>/dev/null; rm -rf "$TMP"' EXIT

# the same run on a disk with room: how many samples there are to write
"$HWS_BIN" -b sw -e page-faults -d -c 1 -o "$TMP/twin.data" -- "$W" 256 >/dev/null 2>"$TMP/twin.err"
eq "twin run: exit code" "$?" 0
twin=$(summary_total "$TMP/twin.err")
check "twin run: more samples than fit in 1 MB (${twin:-0})" [ "${twin:-0}" -gt 40000 ]

f=$MNT/f.data
"$HWS_BIN" -b sw -e page-faults -d -c 1 -o "$f" -- "$W" 256 >/dev/null 2>"$TMP/rec.err"
eq "full disk: exit code" "$?" 1
cat "$TMP/rec.err"
check "full disk: the problem, the file and the fix" \
	grep -q "^hwsample: no space left on device: $f: free space on its file system or record to another one (-o FILE)" "$TMP/rec.err"
line=$(grep "^hwsample: $f holds " "$TMP/rec.err")
check "full disk: what the file holds and what was not written" test -n "$line"
read -r held recs lost_recs lost_smp lost_bytes <<<"$(sed -E 's/.* holds ([0-9]+) samples \(([0-9]+) records, .* not written: ([0-9]+) records \(([0-9]+) samples, ([0-9]+) bytes.*/\1 \2 \3 \4 \5/' <<<"$line")"
echo "held $held samples ($recs records), not written $lost_recs records ($lost_smp samples, $lost_bytes bytes)"
check "full disk: samples in the file ($held)" [ "${held:-0}" -gt 1000 ]
check "full disk: fewer than the twin run's ($held < $twin)" [ "${held:-0}" -lt "${twin:-0}" ]
check "full disk: records not written ($lost_recs)" [ "${lost_recs:-0}" -gt 0 ]
check "full disk: samples among them ($lost_smp <= $lost_recs)" \
	[ "${lost_smp:-0}" -gt 0 ] && [ "${lost_smp:-0}" -le "${lost_recs:-0}" ]
check "full disk: bytes not written ($lost_bytes)" [ "${lost_bytes:-0}" -gt 0 ]
check "full disk: written + not written <= the samples there were" \
	[ $((held + lost_smp)) -le $((twin + 200)) ]

# the file: data size at a record boundary, every record inside it whole, nothing after it
# but the header features (if they fit)
read -r dsize n_in end feats fsize <<<"$(python3 - "$f" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
doff, dsz = struct.unpack_from('<2Q', b, 40)
feats = sum(1 for w in struct.unpack_from('<4Q', b, 72) if w)
off, n = doff, 0
while off < doff + dsz and off + 8 <= len(b):
    t, m, s = struct.unpack_from('<IHH', b, off)
    if s < 8 or off + s > doff + dsz:
        break
    n += t == 9
    off += s
print(dsz, n, off - doff, feats, len(b))
EOF
)"
eq "full disk: the header's data size ends at a record boundary" "$end" "$dsize"
eq "full disk: samples inside the data size" "$n_in" "$held"
if [ "$feats" = 0 ]; then
	eq "full disk: no features: the file ends with the data" "$fsize" \
		"$(($(od -An -t u8 -j 40 -N 8 "$f") + dsize))"
fi

"$HWS_BIN" dump -i "$f" --csv >"$TMP/dump.csv" 2>"$TMP/dump.err"
rc=$?
eq "dump: every sample in the file" "$(($(wc -l <"$TMP/dump.csv") - 1))" "$held"
if [ "$feats" = 0 ]; then
	# no room was left for the features: the file is unfinished, and says so
	eq "dump: exit code (unfinished)" "$rc" 1
	check "dump: unfinished, $held samples" grep -q \
		"f.data is unfinished (no header features after the data[^)]*): $held samples recovered up to byte $(($(od -An -t u8 -j 40 -N 8 "$f") + dsize))\$" \
		"$TMP/dump.err"
else
	eq "dump: exit code (features fit)" "$rc" 0
fi
if have_perf; then
	eq "perf script: the same sample count" "$(perf_script_lines "$f")" "$held"
else
	echo "perf not installed: its check skipped"
fi
finish
