#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel and module build-ids in HEADER_BUILD_ID, as perf record writes them:
#  - a workload spending its time in syscalls, recorded by hwsample and by perf: both files
#    list [kernel.kallsyms] with /sys/kernel/notes' build-id (perf buildid-list -k), with
#    misc KERNEL (read from the section itself), and the same kernel lines;
#  - user-only events (cpu-clock:u): neither file lists the kernel (perf lists only what
#    samples hit);
#  - modules: samples in a module's range (/proc/modules) list the module with misc KERNEL,
#    its build-id from /sys/module/<name>/notes/.note.gnu.build-id and its file from
#    modules.dep under /lib/modules/<release>. This machine's kernel may have no loadable
#    modules: then a fake sysfs tree (HWS_SYSFS_ROOT, which brings "modules" and
#    "modules.dep") declares one module over the kernel's text, and perf buildid-list reads
#    the entry back.
. "$(dirname "$0")/lib/common.sh"
need_sw_events
need_perf_runs
kb=$(perf buildid-list -k 2>/dev/null)
[ -n "$kb" ] || skip "the kernel shows no build-id (/sys/kernel/notes)"
export HOME=$TMP/home
unset PERF_BUILDID_DIR
mkdir -p "$HOME"

# "misc-cpumode build-id name" per HEADER_BUILD_ID entry of a perf.data file
entries() {
	python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
data_off, data_size = struct.unpack_from('<QQ', d, 40)
bits = int.from_bytes(d[72:104], 'little')
if bits & 4:
    off, size = struct.unpack_from('<QQ', d, data_off + data_size + 16 * bin(bits & 3).count('1'))
    p = off
    while p + 36 <= off + size:
        t, misc, sz = struct.unpack_from('<IHH', d, p)
        if sz < 36:
            break
        n = d[32 + p] if misc & 0x8000 else 20
        print(misc & 7, d[p + 12:p + 12 + n].hex(), d[p + 36:p + sz].split(b'\0')[0].decode())
        p += sz
EOF
}
W=(dd if=/dev/zero of=/dev/null bs=1 count=60000)

"$HWS_BIN" record -q -b sw -e cpu-clock -o "$TMP/h.data" -- "${W[@]}" >/dev/null 2>&1
eq "hwsample record: exit" $? 0
perf record -q -e cpu-clock -o "$TMP/p.data" -- "${W[@]}" >/dev/null 2>&1 || die "perf record failed"
for f in h p; do
	eq "$f.data: perf buildid-list lists the kernel's build-id" \
		"$(perf buildid-list -i "$TMP/$f.data" 2>/dev/null | awk '$2 == "[kernel.kallsyms]" {print $1}')" "$kb"
	eq "$f.data: the kernel's entry has misc KERNEL" \
		"$(entries "$TMP/$f.data" | awk '$3 == "[kernel.kallsyms]" {print $1}')" 1
done
# (the vDSO's line left out on both sides: either recording lists it when a sample hit it)
eq "kernel lines as perf's" "$(perf buildid-list -i "$TMP/h.data" 2>/dev/null | grep -v ' /\|\[vdso\]')" \
	"$(perf buildid-list -i "$TMP/p.data" 2>/dev/null | grep -v ' /\|\[vdso\]')"
eq "user files with misc USER" "$(entries "$TMP/h.data" | awk '$3 ~ /^\// && $1 != 2' | wc -l)" 0

"$HWS_BIN" record -q -b sw -e cpu-clock:u -o "$TMP/hu.data" -- "${W[@]}" >/dev/null 2>&1
perf record -q -e cpu-clock:u -o "$TMP/pu.data" -- "${W[@]}" >/dev/null 2>&1
for f in hu pu; do
	check "$f.data (user only): user files listed" test -n "$(entries "$TMP/$f.data" | awk '$1 == 2')"
	eq "$f.data (user only): no kernel entry" "$(entries "$TMP/$f.data" | awk '$1 == 1' | wc -l)" 0
done

# modules of this machine, when samples hit one
if [ -n "$(awk '$6 != "0x0000000000000000"' /proc/modules 2>/dev/null)" ]; then
	mods=$(entries "$TMP/p.data" | awk '$1 == 1 && $3 != "[kernel.kallsyms]" {print $2, $3}' | sort)
	[ -z "$mods" ] || eq "modules as perf lists them" \
		"$(entries "$TMP/h.data" | awk '$1 == 1 && $3 != "[kernel.kallsyms]" {print $2, $3}' | sort)" "$mods"
else
	echo "no loadable modules on this machine: a fake sysfs tree's module"
fi

# a fake module over the kernel's text: every kernel sample is in it
st=$(awk '$3 == "_stext" {print $1; exit}' /proc/kallsyms)
et=$(awk '$3 == "_etext" {print $1; exit}' /proc/kallsyms)
if [ -n "$st" ] && [ "$st" != 0000000000000000 ] && [ -n "$et" ]; then
	fs=$TMP/fs
	mkdir -p "$fs/kernel" "$fs/module/fake_mod/notes" "$fs/bus/event_source/devices/software"
	cp /sys/kernel/notes "$fs/kernel/notes"
	cat /sys/bus/event_source/devices/software/type >"$fs/bus/event_source/devices/software/type"
	mid=0123456789abcdef0123456789abcdef01234567
	# ELF note: namesz 4, descsz 20, type 3 (NT_GNU_BUILD_ID), "GNU\0", the id
	python3 -c "import sys,struct; sys.stdout.buffer.write(struct.pack('<III', 4, 20, 3) + b'GNU\0' + bytes.fromhex('$mid'))" \
		>"$fs/module/fake_mod/notes/.note.gnu.build-id"
	echo "fake_mod $((0x$et - 0x$st)) 0 - Live 0x$st" >"$fs/modules"
	printf 'kernel/fs/other.ko:\nkernel/drivers/fake/fake-mod.ko.xz: kernel/fs/other.ko\n' >"$fs/modules.dep"
	HWS_SYSFS_ROOT=$fs "$HWS_BIN" record -q -b sw -e cpu-clock -o "$TMP/m.data" -- "${W[@]}" >/dev/null 2>&1
	eq "fake module: record exit" $? 0
	name=/lib/modules/$(uname -r)/kernel/drivers/fake/fake-mod.ko.xz
	eq "fake module: perf buildid-list lists it by its modules.dep file" \
		"$(perf buildid-list -i "$TMP/m.data" 2>/dev/null | awk -v n="$name" '$2 == n {print $1}')" "$mid"
	eq "fake module: misc KERNEL" "$(entries "$TMP/m.data" | awk -v n="$name" '$3 == n {print $1}')" 1
	eq "fake module: the kernel's samples are all the module's" \
		"$(entries "$TMP/m.data" | awk '$3 == "[kernel.kallsyms]"' | wc -l)" 0
	# without a modules.dep line: [name]
	: >"$fs/modules.dep"
	HWS_SYSFS_ROOT=$fs "$HWS_BIN" record -q -b sw -e cpu-clock -o "$TMP/m2.data" -- "${W[@]}" >/dev/null 2>&1
	eq "fake module not in modules.dep: listed as [fake_mod]" \
		"$(perf buildid-list -i "$TMP/m2.data" 2>/dev/null | awk '$2 == "[fake_mod]" {print $1}')" "$mid"
	# a modules.dep path too long for a file name (4089 bytes, then /lib/modules/<release>/
	# before it): [name] too, not a cut path
	long=$(printf 'kernel/%04070d/fake_mod.ko' 0)
	printf '%s:\n' "$long" >"$fs/modules.dep"
	HWS_SYSFS_ROOT=$fs "$HWS_BIN" record -q -b sw -e cpu-clock -o "$TMP/m3.data" -- "${W[@]}" >/dev/null 2>&1
	eq "fake module, a modules.dep path too long: listed as [fake_mod]" \
		"$(perf buildid-list -i "$TMP/m3.data" 2>/dev/null | awk '$2 == "[fake_mod]" {print $1}')" "$mid"
else
	echo "kernel text addresses hidden (kptr_restrict): fake module not tested"
fi
finish
