#!/bin/bash
# SPDX-License-Identifier: MIT
# `hwsample record -b intel_pebs --dry-run` on faked Intel machines (tests/sysfs/intel-* via
# HWS_SYSFS_ROOT + LIBPFM_FORCE_PMU): the printed attr of every event must equal what
# libpfm4 itself encodes for the same name (called here through python ctypes, independent
# of hwsample), and the CLI errors must name the fix. Skips (77) without python3 or when
# libpfm4 is not loadable from python.
. "$(dirname "$0")/lib/common.sh"
: "${HWS_SOURCE_DIR:?}"
need_python3
python3 -c 'import ctypes; ctypes.CDLL("libpfm.so.4")' 2>/dev/null ||
	skip "libpfm.so.4 not loadable from python"
S=$HWS_SOURCE_DIR/tests/sysfs

# libpfm4 oracle: print "type config config1 precise" for FORCE NAME
pfm() {
	LIBPFM_FORCE_PMU=$1 python3 - "$1::$2" <<'PY'
import ctypes, sys
l = ctypes.CDLL("libpfm.so.4")
assert l.pfm_initialize() == 0
attr = ctypes.create_string_buffer(136)
class Arg(ctypes.Structure):
    _fields_ = [("attr", ctypes.c_void_p), ("fstr", ctypes.c_void_p), ("size", ctypes.c_size_t),
                ("idx", ctypes.c_int), ("cpu", ctypes.c_int), ("flags", ctypes.c_int),
                ("pad0", ctypes.c_int)]
a = Arg(ctypes.cast(attr, ctypes.c_void_p), None, ctypes.sizeof(Arg), 0, 0, 0, 0)
PERF_EXT = 2  # PFM_OS_PERF_EVENT_EXT
r = l.pfm_get_os_event_encoding(sys.argv[1].encode(), 0x9, PERF_EXT, ctypes.byref(a))
if r != 0:
    print("error", r); sys.exit(0)
b = attr.raw
u32 = lambda o: int.from_bytes(b[o:o + 4], "little")
u64 = lambda o: int.from_bytes(b[o:o + 8], "little")
print(u32(0), hex(u64(8)), hex(u64(56)), (u64(40) >> 15) & 3)
PY
}

# hwsample: "type config config1 precise" of event number IDX of the dry run
hws() { # tree force idx args...
	local tree=$1 force=$2 idx=$3
	shift 3
	HWS_SYSFS_ROOT=$S/$tree LIBPFM_FORCE_PMU=$force "$HWS_BIN" record -b intel_pebs "$@" \
		--dry-run -- true 2>"$TMP/err" | awk -v want="$idx" '
		/^event / { n = $2 + 0 }
		n == want && $1 == "type" { t = $2 }
		n == want && $1 == "config" { c = $2 }
		n == want && $1 == "config1" { c1 = $2 }
		n == want && $1 == "precise_ip" { p = $2 }
		END { print t, c, c1, p }'
}

same() { # what tree force idx pfm-name hws-args...
	local what=$1 tree=$2 force=$3 idx=$4 name=$5
	shift 5
	local got want
	got=$(hws "$tree" "$force" "$idx" "$@")
	want=$(pfm "$force" "$name")
	eq "$what: hwsample (got) against libpfm4 (want) ($(cat "$TMP/err"))" "$got" "$want" &&
		echo "ok: $what: $got"
}

same "skl load latency" intel-skl skl 0 MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30:precise=3 \
	-e MEM_TRANS_RETIRED.LOAD_LATENCY
same "skl ldlat=64 precise=2" intel-skl skl 0 MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=64:precise=2 \
	-e MEM_TRANS_RETIRED.LOAD_LATENCY ldlat=64 precise=2
same "skl mem-loads alias" intel-skl skl 0 MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30:precise=3
same "skl mem-stores alias" intel-skl skl 1 MEM_INST_RETIRED:ALL_STORES:precise=3
same "skx L3 miss" intel-skl skx 0 MEM_LOAD_RETIRED:L3_MISS:precise=3 -e MEM_LOAD_RETIRED.L3_MISS
same "icl :P falls back to 2" intel-icl icl 0 MEM_INST_RETIRED:ALL_STORES:precise=2 \
	-e MEM_INST_RETIRED.ALL_STORES
same "icl PDIST precise=3" intel-icl icl 0 INST_RETIRED:PREC_DIST:precise=3 -e INST_RETIRED.PREC_DIST
same "spr load latency after its aux leader" intel-spr spr 1 \
	MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30:precise=2 -e MEM_TRANS_RETIRED.LOAD_LATENCY
same "hsw stores" intel-hsw hsw 0 MEM_UOPS_RETIRED:ALL_STORES:precise=2 -e MEM_UOPS_RETIRED.ALL_STORES
same "bdw L3 miss" intel-hsw bdw 0 MEM_LOAD_UOPS_RETIRED:L3_MISS:precise=1 \
	-e MEM_LOAD_UOPS_RETIRED.L3_MISS precise=1
same "snb load latency" intel-hsw snb 0 MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=30:precise=2 \
	-e MEM_TRANS_RETIRED.LATENCY_ABOVE_THRESHOLD

# the mem-loads-aux leader on spr: config 0x8203, same precise level
eq "spr aux leader" "$(hws intel-spr spr 0 -e mem-loads)" "4 0x8203 0x0 2"
# hybrid: one event per PMU, with the PMU's own type
HWS_SYSFS_ROOT=$S/intel-adl "$HWS_BIN" record -b intel_pebs --dry-run -- true >"$TMP/adl" 2>&1
for want in "event 0: cpu_core/mem-loads-aux/pp" "event 1: cpu_core/mem-loads,ldlat=30/pp" \
	"event 2: cpu_atom/mem-loads,ldlat=30/pp" "event 3: cpu_core/mem-stores/pp" \
	"event 4: cpu_atom/mem-stores/pp"; do
	check "adl dry run has '$want'" grep -q "^$want " "$TMP/adl"
done
eq "cpu_atom type" "$(grep -A1 '^event 2:' "$TMP/adl" | sed -n 's/^ *type *//p')" 8

# errors: exit code and the hint
err() { # what expect-substring tree force args...
	local what=$1 hint=$2 tree=$3 force=$4
	shift 4
	HWS_SYSFS_ROOT=$S/$tree LIBPFM_FORCE_PMU=$force "$HWS_BIN" record -b intel_pebs "$@" \
		--dry-run -- true >/dev/null 2>"$TMP/err"
	check "$what: fails (exit $?), as it should" [ $? -ne 0 ] &&
		check "$what: message has '$hint': $(cat "$TMP/err")" grep -qF -- "$hint" "$TMP/err" &&
		echo "ok: $what: $(head -c 160 "$TMP/err")"
}
err "not precise" "MEM_TRANS_RETIRED.LOAD_LATENCY, " intel-skl skl \
	-e L2_RQSTS.MISS
err "unknown event" "closest: MEM_LOAD_RETIRED.L3_MISS" intel-skl skl -e MEM_LOADS_RETIRED.L3_MISS
err "ldlat range" "3..65535" intel-skl skl ldlat=2
err "ldlat on a store" "load-latency" intel-skl skl -e mem-stores ldlat=50
err "precise above max" "max_precise=2" intel-hsw hsw precise=3
err "pdist only" "PREC_DIST" intel-icl icl -e MEM_TRANS_RETIRED.LOAD_LATENCY precise=3
err "vm without PEBS" "max_precise is 0" intel-vm-nopebs skl
err "no core PMU" "no 'cpu' PMU" intel-none skl
HWS_PROC_CPUINFO=$S/intel-none/cpuinfo-amd err "not Intel" "not an Intel CPU" intel-skl skl
# -e splits on commas outside pmu/.../ terms: two events, ldlat kept with the loads
HWS_SYSFS_ROOT=$S/intel-skl LIBPFM_FORCE_PMU=skl "$HWS_BIN" --dry-run -b intel_pebs \
	-e 'cpu/mem-loads,ldlat=30/P,cpu/mem-stores/P' -- true >"$TMP/split" 2>&1
eq "-e with pmu/.../ terms: events ($(head -5 "$TMP/split"))" "$(grep -c '^event ' "$TMP/split")" 2
check "-e with pmu/.../ terms: the loads first" grep -q '^event 0: cpu/mem-loads,ldlat=30/' "$TMP/split"
check "-e with pmu/.../ terms: ldlat kept" grep -q '^  config1 *0x1e$' "$TMP/split"
# libpfm4 is opened by the backend when an event name needs it, not linked: other commands
# (which load every backend) never map it
check "the intel_pebs backend does not link libpfm4" \
	bash -c "! readelf -d '$(dirname "$HWS_BIN")/backends/hws-intel_pebs.so' | grep -q libpfm"
LD_DEBUG=files "$HWS_BIN" list >/dev/null 2>"$TMP/ld"
check "hwsample list does not load libpfm4" [ "$(grep -c 'file=libpfm' "$TMP/ld")" = 0 ]
HWS_SYSFS_ROOT=$S/intel-skl LIBPFM_FORCE_PMU=skl LD_DEBUG=files "$HWS_BIN" record -b intel_pebs \
	-e MEM_LOAD_RETIRED.L3_MISS --dry-run -- true >/dev/null 2>"$TMP/ld"
check "encoding a libpfm4 event name loads it" grep -q 'file=libpfm' "$TMP/ld"
finish
