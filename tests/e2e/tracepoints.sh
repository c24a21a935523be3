# SPDX-License-Identifier: MIT
# Tracepoints: hwsample records them with HEADER_TRACING_DATA so perf script formats them,
# and decodes RAW fields with libtraceevent from its own files and from perf's (file and
# pipe mode); every sample's fields equal what perf script prints.
. "$(dirname "$0")/lib/common.sh"
need_perf
need_root
command -v jq >/dev/null || skip "jq not installed"

# canonical "sec.nsec prev_comm prev_pid next_comm next_pid" lines
perf_lines() { perf script --ns -F time,trace -i "$1" 2>/dev/null |
	sed -n 's/^ *\([0-9.]*\): *prev_comm=\(.*\) prev_pid=\([0-9]*\) .* next_comm=\(.*\) next_pid=\([0-9]*\) .*/\1 \2 \3 \4 \5/p' | sort; }
hws_lines() { "$HWS_BIN" dump --json --raw -i "$1" 2>/dev/null |
	jq -r 'select(.raw.tracepoint == "sched:sched_switch") |
	"\(.time / 1000000000 | floor).\(.time % 1000000000 | tostring | ("000000000" + .)[-9:]) \(.raw.prev_comm) \(.raw.prev_pid) \(.raw.next_comm) \(.raw.next_pid)"' | sort; }

compare() { # what file
	perf_lines "$2" >"$TMP/p.txt"
	hws_lines "$2" >"$TMP/h.txt"
	local n; n=$(wc -l <"$TMP/p.txt")
	check "$1: perf decodes samples ($n)" [ "$n" -gt 0 ]
	CHECKS=$((CHECKS + 1))
	if ! diff -q "$TMP/p.txt" "$TMP/h.txt" >/dev/null; then
		fail "$1: hwsample's fields differ from perf script: $(diff "$TMP/p.txt" "$TMP/h.txt" | head -4)"
	fi
}

# hwsample's recording (system-wide so there are switches on every CPU)
"$HWS_BIN" -q -b sw -e sched:sched_switch -a -o "$TMP/h.data" -- sleep 0.3 2>"$TMP/err"
eq "record sched:sched_switch: exit code" "$?" 0
check "hwsample file has TRACING_DATA" sh -c "perf report --header-only -i '$TMP/h.data' 2>/dev/null | grep -q 'sched:sched_switch'"
compare "hwsample file" "$TMP/h.data"

# perf's recording, file mode
perf record -q -e sched:sched_switch -a -o "$TMP/p.data" -- sleep 0.3 >/dev/null 2>&1
compare "perf file" "$TMP/p.data"

# perf's recording, pipe mode, through a pipe into hwsample
perf record -q -e sched:sched_switch -a -o - -- sleep 0.3 2>/dev/null >"$TMP/pipe.data"
perf_lines "$TMP/pipe.data" >"$TMP/p.txt"
"$HWS_BIN" dump --json --raw -i - <"$TMP/pipe.data" 2>/dev/null | jq -r 'select(.raw.tracepoint == "sched:sched_switch") |
	"\(.time / 1000000000 | floor).\(.time % 1000000000 | tostring | ("000000000" + .)[-9:]) \(.raw.prev_comm) \(.raw.prev_pid) \(.raw.next_comm) \(.raw.next_pid)"' | sort >"$TMP/h.txt"
check "pipe mode: samples" [ "$(wc -l <"$TMP/p.txt")" -gt 0 ]
check "pipe mode: same fields as perf script" diff -q "$TMP/p.txt" "$TMP/h.txt"

# two tracepoints of two systems in one run; a __data_loc string field (exec filename)
"$HWS_BIN" -q -b sw -e sched:sched_process_exec,syscalls:sys_enter_openat -a -o "$TMP/two.data" -- /bin/cat /etc/hostname >/dev/null 2>&1
n=$("$HWS_BIN" dump --json --raw -i "$TMP/two.data" 2>/dev/null | jq -r 'select(.raw.tracepoint == "sched:sched_process_exec") | .raw.filename' | grep -c '^/bin/cat$')
check "sched_process_exec: dynamic string filename decoded ($n)" [ "$n" -ge 1 ]
n=$("$HWS_BIN" dump --json --raw -i "$TMP/two.data" 2>/dev/null | jq -r 'select(.raw.tracepoint == "syscalls:sys_enter_openat") | .raw.__syscall_nr' | sort -u)
eq "sys_enter_openat: __syscall_nr decoded" "$n" 257

# tracefs missing: hwsample mounts it and says so
if mountpoint -q /sys/kernel/tracing && umount /sys/kernel/tracing 2>/dev/null; then
	"$HWS_BIN" -q -b sw -e sched:sched_switch -a -o "$TMP/m.data" -- true 2>"$TMP/err"
	eq "tracefs auto-mount: exit code" "$?" 0
	check "tracefs auto-mount: says so" grep -q "mounted it at /sys/kernel/tracing" "$TMP/err"
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
fi
finish
