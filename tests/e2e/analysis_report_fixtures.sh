#!/bin/bash
# SPDX-License-Identifier: MIT
# report --sort on the real recordings of tests/fixtures/perf_data_converter against perf report
# (analysis_report_cmp.py: sections, sample counts, rows, percentages to 0.01): comm, pid, dso,
# sym, cpu and combinations on the hybrid Alder Lake recording, the PEBS weight_struct one, the
# perf 4.4 lost-samples recording in pipe mode (events named by their attrs, "cycles:ppH" as
# perf does; a kernel-mode PEBS sample at a user address is in no map for perf) and the perf
# 6.12 pipe-mode one (no kernel MMAP: perf has no kernel map, its kernel samples are in
# [unknown]). Both with --kallsyms of an empty file: these kernels are not this machine's, and
# perf 6.1 names their addresses from this machine's /proc/kallsyms when the file has no build-id
# to refuse it by (hwsample names them by address); and without, where a file's kernel samples
# are few enough to leave out (the [kernel.kallsyms] rows).
# The perf 4.4 lost-samples recording is an event group ({cycles:pp,instructions:pp,
# branch-instructions:pp}): perf shows its events side by side, an overhead column each
# ("of events 'anon group { ... }'"), and with --no-group a section each (the leader's "of
# events"); both compared, and the same on a group of software events recorded here.
# Not compared: perf.data.intel_pt-4.14 (perf decodes Intel PT into events hwsample does not
# make: its cycles section is the same).
. "$(dirname "$0")/lib/common.sh"
need_perf_runs
need_python3
F=${HWS_FIXTURES:-}/perf_data_converter
[ -d "$F" ] || skip "fixtures not found"
: >"$TMP/empty.kallsyms"

W=${HWS_WORKLOADS:-}/memdemo
[ -x "$W" ] && perf record -q -e '{cpu-clock,page-faults}' -c 20000 -o "$TMP/group.data" \
	-- "$W" >/dev/null 2>&1
for name in hybrid_topology weight_struct piped.lost_samples-4.4 \
	piped.header_features_aligned-6.12 lost_samples-4.4 lost_samples-4.4:--no-group \
	group:--no-group group; do
	grp=${name#*:}
	[ "$grp" = "$name" ] && grp=
	name=${name%%:*}
	f=$F/perf.data.$name
	[ "$name" = group ] && f=$TMP/group.data
	[ -f "$f" ] || { check "$name present" false; continue; }
	for k in comm pid dso sym cpu comm,dso,sym dso,sym; do
		for ks in "--kallsyms $TMP/empty.kallsyms $grp" "$grp"; do
			# shellcheck disable=SC2086
			case $name in
			piped.*)
				perf report -i - $ks --stdio --no-children --sort $k <"$f" >"$TMP/p.txt" 2>/dev/null
				"$HWS_BIN" report -i - $ks --stdio --sort $k <"$f" >"$TMP/h.txt" 2>"$TMP/h.err"
				;;
			*)
				perf report -i "$f" $ks --stdio --no-children --sort $k >"$TMP/p.txt" 2>/dev/null
				"$HWS_BIN" report -i "$f" $ks --stdio --sort $k >"$TMP/h.txt" 2>"$TMP/h.err"
				;;
			esac
			# without --kallsyms: the kernel's symbols are perf's guesses (see above)
			case $ks in --kallsyms*) ;; *) sed -i '/\[k\] /d' "$TMP/p.txt" "$TMP/h.txt" ;; esac
			what="$name --sort $k ${ks/$TMP\/empty.kallsyms/(empty)}"
			report_same "$what" "$TMP/p.txt" "$TMP/h.txt"
		done
	done
done
# a kernel sample outside perf's kernel map (the 6.12 pipe file has no kernel MMAP) has no
# symbol even when --kallsyms names its address: perf prints the address
printf 'ffffffff8b000000 T _stext\nffffffff8b001000 T fake_sym\nffffffff8b002000 T _etext\n' \
	>"$TMP/fake.kallsyms"
f=$F/perf.data.piped.header_features_aligned-6.12
perf report -i - --kallsyms "$TMP/fake.kallsyms" --stdio --no-children --sort dso,sym <"$f" \
	>"$TMP/p.txt" 2>/dev/null
"$HWS_BIN" report -i - --kallsyms "$TMP/fake.kallsyms" --stdio --sort dso,sym <"$f" \
	>"$TMP/h.txt" 2>"$TMP/h.err"
report_same "6.12 pipe file, --kallsyms naming an address outside perf's kernel map" \
	"$TMP/p.txt" "$TMP/h.txt"
check "... printed as the address" grep -q '\[unknown\] *\[k\] 0xffffffff8b001280' "$TMP/h.txt"
check "group view: one section of the group's three events" grep -q \
	"of events 'anon group { cycles:pp, instructions:pp, branch-instructions:pp }'" \
	<("$HWS_BIN" report -i "$F/perf.data.lost_samples-4.4" --stdio --sort dso 2>/dev/null)
check "group view: an overhead column per event" grep -qE \
	'^ +[0-9.]+% +[0-9.]+% +[0-9.]+%  ld-2.23.so' \
	<("$HWS_BIN" report -i "$F/perf.data.lost_samples-4.4" --stdio --sort dso 2>/dev/null)
# the names perf gives events from their attrs (a pipe file of perf 4.4 has no event names)
"$HWS_BIN" report -i - --stdio --sort comm <"$F/perf.data.piped.lost_samples-4.4" >"$TMP/h.txt" 2>&1
for e in cycles:ppH instructions:ppH branches:ppH; do
	check "pipe file of perf 4.4: event $e" grep -q "of event '$e'" "$TMP/h.txt"
done
finish
