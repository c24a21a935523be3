#!/bin/bash
# SPDX-License-Identifier: MIT
# Names from files and from the system reach the terminal as data: whatever bytes they hold, no
# control character but '\n' and '\t' (no escape sequence, CR, BS, BEL, DEL, C1) and no byte
# that is not well-formed UTF-8 reaches stdout or stderr of any command; those bytes show as
# \xNN, and valid UTF-8 ('é') stays as it is. The hostile names:
#  - a program whose file name (so its comm) and directory hold ESC sequences, CR, BS, DEL and
#    invalid UTF-8, with a function whose symbol name (patched into its ELF .strtab) holds
#    the same: recorded with -g, then the event name rewritten in the file;
#  - a sched:sched_switch recording of that program (its comm in the payload's prev_comm and
#    next_comm) with the tracing data's system name made hostile, and one whose field name is;
#  - a c2c file whose binary path holds them;
#  - a config file with them in a section, a key and a value; a fake sysfs whose SPE PMU
#    name holds them; file names and -e names given on the command line.
# Commands: dump (text, --raw, -F), report (plain, -g, --sort, --hierarchy, --folded),
# c2c report --stdio, list, convert, --dry-run of the config, and their error messages.
. "$(dirname "$0")/lib/common.sh"
need_root
need_python3
need_sw_events
command -v cc >/dev/null || skip "no C compiler"
need_gen c2c
export LC_ALL=C # lengths in bytes

ESC=$'\x1b'
# a hostile byte string (no NUL, no '/'), as bash $'...' text
HOST=$'\x1b[31m\x1b]0;t\x07\r\x08\x7f\xff\xfe\xc2\x9b'
# names made of it: the directory, the program (é first: valid UTF-8 kept)
dir="$TMP/d$HOST"
prog=$'\xc3\xa9v\x1b[1m\r\x08\xff'
mkdir -p "$dir" || skip "cannot make a directory with control characters here"

# the program: spins in a function whose symbol name is patched to hostile bytes
cat >"$TMP/p.c" <<'EOF'
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void hws_placeholder_symbol_name_xx(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i;
}
int main(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		hws_placeholder_symbol_name_xx();
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < 400);
	return 0;
}
EOF
cc -O1 -fno-omit-frame-pointer -o "$TMP/p" "$TMP/p.c" || die "cc"
python3 - "$TMP/p" "$dir/$prog" <<'EOF' || die "patch the symbol name"
import sys
src, dst = sys.argv[1], sys.argv[2].encode("utf-8", "surrogateescape")
old = b"hws_placeholder_symbol_name_xx"
new = b"fn\x1b[31m\x1b]0;x\x07\r\x08\x7f\xff\xc2\x9b_"
new += b"z" * (len(old) - len(new))
assert len(new) == len(old)
b = open(src, "rb").read()
assert b.count(old) == 1, b.count(old)  # .strtab only (no debug info)
open(dst, "wb").write(b.replace(old, new))
EOF
chmod +x "$dir/$prog"

"$HWS_BIN" -q -b sw -e cpu-clock -F 2000 -g -o "$TMP/a.data" -- "$dir/$prog" >/dev/null 2>&1 ||
	die "record the hostile program"
# the event name: cpu-clock -> 9 hostile bytes, everywhere in the file (event desc, cmdline)
python3 - "$TMP/a.data" <<'EOF' || die "rewrite the event name"
import sys
b = open(sys.argv[1], "rb").read()
assert b"cpu-clock" in b
open(sys.argv[1], "wb").write(b.replace(b"cpu-clock", b"c\x1b[7m\r\x7f\xffk"))
EOF

# every output byte of a command, stdout and stderr apart, is checked
n=0
run() { # run "what" [env=...] hwsample-args...
	local what=$1
	shift
	n=$((n + 1))
	"$@" >"$TMP/o$n" 2>"$TMP/e$n"
	echo "$?" >"$TMP/rc$n"
	echo "$what" >"$TMP/w$n"
}
H=$HWS_BIN
run "dump" "$H" dump -i "$TMP/a.data"
run "dump --raw" "$H" dump --raw -i "$TMP/a.data"
run "dump -F" "$H" dump -F comm,tid,time,event,ip,sym,symoff,dso -i "$TMP/a.data"
run "dump -e (no such event)" "$H" dump -e "no$HOST" -i "$TMP/a.data"
run "report" "$H" report -i "$TMP/a.data"
run "report -g" "$H" report -g -i "$TMP/a.data"
run "report --sort" "$H" report --sort comm,dso,sym -i "$TMP/a.data"
run "report --hierarchy" "$H" report --hierarchy --sort comm,dso,sym -i "$TMP/a.data"
run "report --folded" "$H" report --folded -i "$TMP/a.data"
run "convert" "$H" convert -i "$TMP/a.data" --to-pprof "$TMP/no$HOST/x.pb.gz"
run "dump (missing file)" "$H" dump -i "$TMP/missing$HOST"
head -c 3000 "$TMP/a.data" >"$TMP/cut$HOST.data"
run "dump (cut file)" "$H" dump -i "$TMP/cut$HOST.data"

# tracepoints: the program's comm in sched_switch payloads; hostile system and field names
if "$H" -q -b sw -e sched:sched_switch -a -o "$TMP/tp.data" -- "$dir/$prog" >/dev/null 2>&1; then
	gen=$(dirname "$0")/lib/hostile_tracing.py
	python3 "$gen" "$TMP/tp.data" "$TMP/tpn.data" names || die "hostile system names"
	python3 - "$TMP/tp.data" "$TMP/tpf.data" <<'EOF' || die "hostile field name"
import sys
b = open(sys.argv[1], "rb").read()
# same length: next_pid -> a field name with ESC, CR and invalid UTF-8 (format and print fmt)
open(sys.argv[2], "wb").write(b.replace(b"next_pid", b"n\x1b[1m\r\xff"))
EOF
	for f in tp tpn tpf; do
		run "$f: dump" "$H" dump -i "$TMP/$f.data"
		run "$f: dump --raw" "$H" dump --raw -i "$TMP/$f.data"
		run "$f: report" "$H" report --sort comm,sym -i "$TMP/$f.data"
	done
	check "sched_switch payloads carry the hostile comm" grep -q 'v\\x1b\[1m\\x0d\\x08\\xff' "$TMP/o$((n - 7))"
else
	echo "note: cannot record sched:sched_switch here: tracepoint cases left out" >&2
fi

# c2c: the sampled binary's path (the dso of every row) holds the hostile bytes
G=$HWS_GEN/gen_c2c
"$G" -o "$TMP/c.data" -v intel -n 4000 -s 5 -t "$TMP/truth" >/dev/null || die "gen_c2c"
gname=g$'\x1b[31m\r\xff'
pad=$((${#G} - ${#TMP} - 3 - ${#gname}))
if [ "$pad" -ge 1 ]; then
	cdir="$TMP/c$(head -c "$pad" /dev/zero | tr '\0' a)"
	mkdir -p "$cdir" && cp "$G" "$cdir/$gname"
	python3 -c '
import sys
old, new = (x.encode("utf-8", "surrogateescape") for x in sys.argv[1:3])
f = sys.argv[3]
d = open(f, "rb").read()
assert len(old) == len(new) and old in d
open(f, "wb").write(d.replace(old, new))
' "$G" "$cdir/$gname" "$TMP/c.data" || die "rewrite c2c MMAP names"
	run "c2c report --stdio" "$H" c2c report --stdio -i "$TMP/c.data"
	run "c2c report -g" "$H" c2c report --stdio -g graph -i "$TMP/c.data"
	run "report (c2c file)" "$H" report --sort dso,sym -i "$TMP/c.data"
	check "report names the c2c file's dso, escaped" grep -q 'g\\x1b\[31m\\x0d\\xff' "$TMP/o$n"
else
	echo "note: build path too short for the c2c rewrite: c2c cases left out" >&2
fi

# a config file: section, key and value with the hostile bytes
printf '[run]\nmode = per-thread\n[sw]\nevents = cpu-clock\nperiod = 100000\nk%s = v%s\n' \
	"$HOST" "$HOST" >"$TMP/bad.conf"
run "config: unknown key" "$H" -c "$TMP/bad.conf" --dry-run -- true
check "config: the unknown key is named, escaped" grep -q "'k\\\\x1b\\[31m" "$TMP/e$n"
printf '[run]\nmode = x%s\n' "$HOST" >"$TMP/bad2.conf"
run "config: bad value" "$H" -c "$TMP/bad2.conf" --dry-run -- true
printf '[s%s]\nevents = cpu-clock\n' "$HOST" >"$TMP/bad3.conf"
run "config: unknown section" "$H" -c "$TMP/bad3.conf" --dry-run -- true
printf '[run]\nmode = per-thread\noutput = o%s.data\n[sw]\nevents = cpu-clock\n' "$HOST" >"$TMP/ok.conf"
run "config: dry run" "$H" -c "$TMP/ok.conf" --dry-run -- true
check "config: dry run shows the output name, escaped" grep -q 'o\\x1b\[31m' "$TMP/o$n"
run "config: missing file" "$H" -c "$TMP/none$HOST.conf" --dry-run -- true
run "record: unknown backend" "$H" -b "x$HOST" --dry-run -- true

# list: a fake sysfs whose SPE PMU has a hostile name
if [ -d "$(dirname "$0")/../sysfs/arm-n1-6.1" ]; then
	cp -r "$(dirname "$0")/../sysfs/arm-n1-6.1" "$TMP/sys"
	spe=$(ls -d "$TMP"/sys/bus/event_source/devices/arm_spe* | head -1)
	mv "$spe" "$TMP/sys/bus/event_source/devices/arm_spe_$HOST"
	run "list (hostile PMU)" env HWS_SYSFS_ROOT="$TMP/sys" "$H" list
	check "list names the hostile PMU, escaped" grep -q 'arm_spe_\\x1b\[31m' "$TMP/o$n"
fi
run "list" "$H" list
run "list -b (no such)" "$H" list --backend "x$HOST"

# the checks: every output, and that the names were shown (escaped), not dropped
for i in $(seq 1 $n); do
	w=$(cat "$TMP/w$i")
	for s in o e; do
		check "$w: no control character or invalid UTF-8 on std$([ $s = o ] && echo out || echo err)" \
			python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
bad = [(i, hex(c)) for i, c in enumerate(b) if (c < 0x20 and c not in (9, 10)) or c == 0x7f]
assert not bad, bad[:5]
t = b.decode("utf-8")  # strict
c1 = [hex(ord(c)) for c in t if 0x80 <= ord(c) < 0xa0]
assert not c1, c1[:5]
' "$TMP/$s$i"
	done
done
grep -l . "$TMP"/o* >/dev/null || fail "no output at all"
check "dump names the hostile event, escaped" grep -q 'c\\x1b\[7m\\x0d\\x7f\\xffk' "$TMP/o1"
check "dump names the hostile symbol, escaped" grep -q 'fn\\x1b\[31m\\x1b\]0;x\\x07\\x0d' "$TMP/o1"
check "report names the hostile comm with its é" grep -q 'év\\x1b\[1m\\x0d\\x08\\xff' "$TMP/o7"
check "dump names the hostile dso path" grep -q 'd\\x1b\[31m\\x1b\]0;t\\x07' "$TMP/o1"
check "-e: the file's events listed, escaped" grep -q 'its events: c\\x1b\[7m' "$TMP/e4"
check "missing file: named, escaped" grep -q 'missing\\x1b\[31m' "$TMP/e11"
finish
