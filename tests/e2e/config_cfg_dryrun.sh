# SPDX-License-Identifier: MIT
# Every shipped cfg/*.conf, run with --dry-run as a new user would
# (cd into the source tree, hwsample -c cfg/X.conf --dry-run) against the fake sysfs tree of
# every vendor and generation in tests/sysfs. On a machine with the hardware the file picks
# that backend and its events encode; on one without, it says which hardware is missing
# (exit 3); where the CPU generation lacks what the study needs, the error names it.
# Every cfg file must be in the table below, and every table entry must be a file.
. "$(dirname "$0")/lib/common.sh"

cd "$HWS_SOURCE_DIR" || exit 1

# libpfm4 model for the Intel trees (LIBPFM_FORCE_PMU; the build host may be AMD)
pfm_model() {
	case $1 in
	intel-hsw) echo hsw ;; intel-skl) echo skl ;; intel-icl) echo icl ;; intel-spr) echo spr ;;
	intel-adl) echo adl_glc ;; intel-nhm) echo nhm ;;
	intel-vm-nopebs | intel-none | intel-generic) echo skl ;;
	*) echo "" ;;
	esac
}

# expect CONF TREE RC 'event-or-message regex'
# Unlisted (conf, tree) pairs get the default for the tree kind, see default_expect.
declare -A EXP_RC EXP_PAT
expect() { EXP_RC[$1/$2]=$3; EXP_PAT[$1/$2]=$4; }

NOHW='none of the backends cfg/[a-z0-9-]+\.conf configures is usable here'
# the hybrid Alder Lake core needs a libpfm4 that knows it for named events
ADL_PFM='libpfm4 .* has no model for this core type \(adl_glc\)'
expect l3-miss intel-adl 3 "cfg/l3-miss.conf:[0-9]+: \[intel_pebs\]: none of 'MEM_LOAD_RETIRED.L3_MISS\|MEM_LOAD_UOPS_RETIRED.L3_MISS' is known here.*$ADL_PFM"
expect tlb-miss intel-adl 3 "cfg/tlb-miss.conf:[0-9]+: \[intel_pebs\]: none of .*$ADL_PFM"
expect branch-mispredict intel-adl 3 "cfg/branch-mispredict.conf:[0-9]+: \[intel_pebs\]: .*$ADL_PFM"
expect l3-miss amd-zen2 0 '^event 0: ibs_op// \(pmu ibs_op, backend amd_ibs\)'
expect l3-miss amd-zen3 0 '^event 0: ibs_op// \(pmu ibs_op, backend amd_ibs\)'
expect l3-miss amd-zen4 0 '^event 0: ibs_op/l3missonly=1/'
expect l3-miss amd-zen5 0 '^event 0: ibs_op/l3missonly=1/'
expect l3-miss arm-n1-6.1 0 '^event 0: arm_spe_0/event_filter=0x200,load_filter'
expect l3-miss intel-hsw 0 '^event 0: cpu/MEM_LOAD_UOPS_RETIRED.L3_MISS/'
expect l3-miss intel-skl 0 '^event 0: cpu/MEM_LOAD_RETIRED.L3_MISS/'
expect load-latency amd-zen4 0 '^event 0: ibs_op// '
expect load-latency amd-zen5 0 '^event 0: ibs_op/ldlat=(128|0x80)/'
expect load-latency arm-n1-6.1 0 '^event 0: arm_spe_0/load_filter,min_latency=0x80'
expect load-latency intel-skl 0 'MEM_TRANS_RETIRED.LOAD_LATENCY,ldlat=128'
expect load-latency intel-adl 0 'cpu_core/mem-loads,ldlat=128/'
expect tlb-miss intel-hsw 0 'cpu/MEM_UOPS_RETIRED.STLB_MISS_LOADS/'
expect tlb-miss intel-icl 0 'cpu/MEM_INST_RETIRED.STLB_MISS_LOADS/'
expect tlb-miss arm-v2-6.12 0 'arm_spe_0/event_filter=0x20,load_filter'
expect false-sharing intel-spr 0 'cpu/mem-stores/'
expect false-sharing arm-newer 0 'load_filter,store_filter'
expect branch-mispredict intel-icl 0 'cpu/BR_MISP_RETIRED.ALL_BRANCHES/'
expect branch-mispredict arm-n1-6.1 0 'branch_filter,event_filter=0x80'
expect tlb-miss intel-nhm 0 'cpu/MEM_LOAD_RETIRED.DTLB_MISS/'
expect load-latency intel-nhm 0 'cpu/mem-loads,ldlat=128/'
expect l3-miss intel-nhm 0 'cpu/MEM_LOAD_RETIRED.L3_MISS/'
# Nehalem: no precise BR_MISP_RETIRED.ALL_BRANCHES, no mem-stores
expect branch-mispredict intel-nhm 2 "cfg/branch-mispredict.conf:[0-9]+: \[intel_pebs\]: .*'BR_MISP_RETIRED.ALL_BRANCHES' unknown on this core.*nehalem"
expect false-sharing intel-nhm 2 "cfg/false-sharing.conf:[0-9]+: \[intel_pebs\]: .*no 'mem-stores' event for Nehalem"
for t in amd-zen2 amd-zen3 amd-zen4 amd-zen5; do
	expect amd-ibs-op-fetch $t 0 '^event 1: ibs_fetch/rand_en=1/'
done

KNOWN_TREES="amd-ibs-off amd-vm amd-zen2 amd-zen3 amd-zen4 amd-zen5 arm-n1-6.1 arm-newer
arm-v2-6.12 intel-adl intel-generic intel-hsw intel-icl intel-nhm intel-none intel-skl intel-spr
intel-vm-nopebs"
KNOWN_TREES=$(echo $KNOWN_TREES)
default_expect() { # conf tree -> "rc|pattern"
	local conf=$1 tree=$2
	case " $KNOWN_TREES " in
	*" $tree "*) ;;
	# a tree added after this table: events, or an error located in the file
	*) echo "any|^event 0: |cfg/$conf\.conf:[0-9]+: |$NOHW"; return ;;
	esac
	case $conf in
	cpu-profile) echo '0|^event 1: page-faults \(pmu software, backend sw\)'; return ;;
	amd-ibs-op-fetch)
		echo '3|cfg/amd-ibs-op-fetch.conf:[0-9]+: \[ibs_op\]: .*(no ibs_op PMU|IBS)'; return ;;
	esac
	case $tree in
	amd-vm | amd-ibs-off | intel-none | intel-vm-nopebs | intel-generic) echo "3|$NOHW" ;;
	amd-zen[2-5]) echo '0|^event 0: ibs_op/' ;;
	arm-n1-6.1 | arm-v2-6.12 | arm-newer) echo '0|^event 0: arm_spe_0/' ;;
	intel-hsw | intel-skl | intel-icl | intel-spr | intel-adl | intel-nhm) echo '0|^event 0: cpu(_core)?/' ;;
	esac
}

confs=$(cd cfg && ls *.conf | sed 's/\.conf$//')
trees=$(cd tests/sysfs && ls -d */ | tr -d /)
[ -n "$confs" ] || { fail "no cfg/*.conf"; finish; exit; }
for key in "${!EXP_RC[@]}"; do
	check "table entry $key names a cfg file and a tree" test -f "cfg/${key%%/*}.conf" -a -d "tests/sysfs/${key#*/}"
done

n=0
declare -A noted
for conf in $confs; do
	# the header comment says what the study finds and how to read it
	check "$conf: says what it finds" grep -q '^# Finds:' "cfg/$conf.conf"
	check "$conf: says how to read the result" grep -qE '^# +hwsample (report|dump|c2c report) -i' "cfg/$conf.conf"
	for tree in $trees; do
		if [ -n "${EXP_RC[$conf/$tree]+x}" ]; then
			rc_want=${EXP_RC[$conf/$tree]} pat=${EXP_PAT[$conf/$tree]}
		else
			d=$(default_expect "$conf" "$tree")
			rc_want=${d%%|*} pat=${d#*|}
		fi
		model=$(pfm_model "$tree")
		env ${model:+LIBPFM_FORCE_PMU=$model} HWS_SYSFS_ROOT="tests/sysfs/$tree" \
			HWS_PROC_CPUINFO="tests/sysfs/$tree/cpuinfo" HWS_KERNEL_VERSION=6.12.0 \
			"$HWS_BIN" -c "cfg/$conf.conf" --dry-run >"$TMP/out" 2>"$TMP/err"
		rc=$?
		n=$((n + 1))
		if [ "$rc_want" = any ]; then
			[ -n "${noted[$tree]+x}" ] || echo "note: tree $tree has no expectations here yet: checking only for events or a located error"
			noted[$tree]=1
			case $rc in 0 | 2 | 3) rc_want=$rc ;; esac
		fi
		eq "$conf on $tree: exit code ($(head -c 300 "$TMP/err"))" "$rc" "$rc_want"
		CHECKS=$((CHECKS + 1))
		if ! grep -qE -- "$pat" "$TMP/out" "$TMP/err"; then
			fail "$conf on $tree: no /$pat/ in: $(grep -E '^event|hwsample' "$TMP/out" "$TMP/err" | head -3)"
		fi
		if [ "$rc" = 0 ]; then
			# what was opened and where each value came from
			check "$conf on $tree: names the config" grep -q "^config: cfg/$conf.conf" "$TMP/out"
			check "$conf on $tree: provenance file:line" grep -qE "^    run\.[a-z_]+ = .* cfg/$conf\.conf:[0-9]+$" "$TMP/out"
			check "$conf on $tree: a selected section" grep -qE '^  \[[a-z_0-9]+\] at .*: selected$' "$TMP/out"
			check "$conf on $tree: attrs printed" grep -qE '^  (sample_period|sample_freq) ' "$TMP/out"
			check "$conf on $tree: output named" grep -q "^output: " "$TMP/out"
		fi
	done
done
echo "$n dry runs"
finish
