#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Config files are bounded before libinih sees them, refused quickly with an error naming
# the file and line: a link to /dev/zero, a FIFO, a file over 1 MiB, more than 4096 keys
# (40,000 took seconds when every key was compared with every other), a line longer than
# inih's buffer (named by its own line number, not parsed in pieces); a UTF-8 byte-order
# mark is accepted (it was "Cannot allocate memory"). The files are made here.
. "$(dirname "$0")/lib/common.sh"

run() { # file: dry run with the config, stderr in $TMP/err, exit code in $rc
	timeout 20 "$HWS_BIN" -b sw --config "$1" --dry-run -- true >/dev/null 2>"$TMP/err"
	rc=$?
}

ln -s /dev/zero "$TMP/zero.conf"
run "$TMP/zero.conf"
eq "/dev/zero link: usage error" "$rc" 2
check "/dev/zero link: says character device" grep -q "a character device, not a config file" "$TMP/err"

mkfifo "$TMP/fifo.conf"
run "$TMP/fifo.conf"
eq "FIFO: usage error" "$rc" 2
check "FIFO: says FIFO" grep -q "a FIFO" "$TMP/err"

{ echo "[run]"; head -c 2000000 /dev/zero | tr '\0' '#'; echo; } >"$TMP/huge.conf"
run "$TMP/huge.conf"
eq "2 MB config: usage error" "$rc" 2
check "2 MB config: says larger than" grep -q "larger than a config file can be" "$TMP/err"

python3 -c '
print("[ibs_op]")
for i in range(40000): print("k%d = 1" % i)' >"$TMP/keys.conf"
start=$(date +%s%N)
run "$TMP/keys.conf"
ms=$((($(date +%s%N) - start) / 1000000))
eq "40000 keys: usage error" "$rc" 2
check "40000 keys: names the limit and the line" grep -q "keys.conf:4098: more than 4096 keys" "$TMP/err"
check "40000 keys: refused in under 5 s ($ms ms)" [ "$ms" -lt 5000 ]

printf '[run]\nfreq = 100\nevents = %s\n' "$(head -c 5000 /dev/zero | tr '\0' a)" >"$TMP/long.conf"
run "$TMP/long.conf"
eq "long line: usage error" "$rc" 2
check "long line: named by its line number (3)" grep -q "long.conf:3: line longer than" "$TMP/err"

printf '\xef\xbb\xbf[run]\nfreq = 100\n\n[run2]\nbad line\n' >"$TMP/bom.conf"
run "$TMP/bom.conf"
check "BOM: no 'Cannot allocate memory'" sh -c "! grep -q 'Cannot allocate memory' '$TMP/err'"
check "BOM: the syntax error on line 5 is named" grep -q "bom.conf:5: not INI syntax" "$TMP/err"
printf '\xef\xbb\xbf[run]\nfreq = 100\n' >"$TMP/bom2.conf"
run "$TMP/bom2.conf"
eq "BOM: accepted" "$rc" 0
finish
