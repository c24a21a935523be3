#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Differential test of the Arm SPE decoder against the real perf (6.1, on x86: perf decodes
# SPE AUX data offline). gen_arm_spe writes random well-formed SPE records for several
# CPUs, cut into AUXTRACE chunks at random packet boundaries, with AUXTRACE_INFO, TIME_CONV
# and a CPUID header naming a MIDR. Then, per CPU and in order:
#   - every packet perf report -D prints (PADs aside) == the "desc" of every packet in
#     hwsample dump --json --raw (the raw object lists each record's packets);
#   - every sample of perf script --itrace=i1i (one per record) == hwsample's sample:
#     ip, addr, phys_addr, weight/lat_total, data_src, time (records with a TIMESTAMP),
#     tid (records with a CONTEXT packet).
# Known, deliberate differences (not bugs here, checked separately):
#   - a load without a DATA_SOURCE packet: perf 6.1 reads the missing source as 0 (L1 hit) on
#     Neoverse; hwsample names no level. Only the level/snoop bits are masked for those.
#   - AUXTRACE_INFO v2 (per-CPU metadata, perf >= 6.13): perf 6.1 takes the version word for
#     the PMU type and synthesizes no samples; its -D dump is still compared.
. "$(dirname "$0")/lib/common.sh"
GEN=$HWS_GEN/gen_arm_spe
need_perf
need_python3
need_gen arm_spe
"$HWS_BIN" dump --help >/dev/null 2>&1 || skip "hwsample dump not built"

run_case() { # seed midr cpus records [--v2]
	local seed=$1 midr=$2 cpus=$3 n=$4 v2=${5:-}
	local f=$TMP/spe-$seed.data
	check "generator seed $seed" \
		"$GEN" -o "$f" -s "$seed" -m "$midr" -c "$cpus" -n "$n" --max-chunk 700 $v2 || return
	check "perf report -D (seed $seed)" perf report -D -i "$f" >"$TMP/d.txt" 2>"$TMP/d.err" ||
		return
	if [ -z "$v2" ]; then
		check "perf script (seed $seed)" perf script -i "$f" --itrace=i1i --ns \
			-F cpu,tid,pid,time,ip,addr,phys_addr,data_src,weight >"$TMP/s.txt" 2>"$TMP/s.err" ||
			{ cat "$TMP/s.err"; return; }
	else
		: >"$TMP/s.txt"
	fi
	check "hwsample dump (seed $seed)" "$HWS_BIN" dump --json --raw --no-sym -i "$f" \
		>"$TMP/h.json" 2>"$TMP/h.err" || { cat "$TMP/h.err"; return; }
	# the packet-length walk has an AVX2 and an SSE2 path: both must give the same text
	HWS_SPE_NO_AVX2=1 "$HWS_BIN" dump --json --raw --no-sym -i "$f" >"$TMP/h2.json" 2>"$TMP/h2.err"
	eq "dump with HWS_SPE_NO_AVX2=1 (seed=$seed midr=$midr): exit code" "$?" 0
	check "dump with HWS_SPE_NO_AVX2=1 gives the same text (seed=$seed midr=$midr)" \
		cmp -s "$TMP/h.json" "$TMP/h2.json"
	check "seed=$seed midr=$midr: perf and hwsample agree on every packet and sample" \
		python3 - "$TMP/d.txt" "$TMP/s.txt" "$TMP/h.json" "$n" "$v2" \
		"seed=$seed midr=$midr cpus=$cpus" <<'EOF'
import json, re, sys
dump, script, hj, n, v2, label = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
errs = []
# perf -D: packets per cpu
pk, cpu = {}, None
for line in open(dump):
    m = re.search(r'PERF_RECORD_AUXTRACE size: \S+\s+offset: \S+\s+ref: \S+\s+idx: \d+\s+tid: -?\d+\s+cpu: (-?\d+)', line)
    if m:
        cpu = int(m.group(1)); continue
    m = re.match(r'\.\s+[0-9a-f]{8}:\s+((?:[0-9a-f]{2} )+)\s*(.*)$', line)
    if m and cpu is not None:
        desc = m.group(2).strip()
        if desc == 'Bad packet!':
            errs.append('perf saw a bad packet on cpu %d' % cpu)
        elif desc != 'PAD':
            pk.setdefault(cpu, []).append(desc)
# hwsample
hs, hp = {}, {}
for line in open(hj):
    o = json.loads(line)
    c = o.get('cpu', -1)
    hs.setdefault(c, []).append(o)
    for p in o['raw']['packets']:
        if p['desc'] != 'PAD':
            hp.setdefault(c, []).append(p['desc'])
nh = sum(len(v) for v in hs.values())
if nh != n:
    errs.append('hwsample decoded %d records, generated %d' % (nh, n))
for c in sorted(set(pk) | set(hp)):
    a, b = pk.get(c, []), hp.get(c, [])
    if a != b:
        k = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        errs.append('cpu %d packets: perf %d hwsample %d, first difference at #%d: perf %r hwsample %r'
                    % (c, len(a), len(b), k, a[k] if k < len(a) else None, b[k] if k < len(b) else None))
npk = sum(len(v) for v in pk.values())
# perf script samples per cpu
ps = {}
for line in open(script):
    t = line.split()
    if len(t) < 8:
        continue
    pid, tid = t[0].split('/')
    c = int(t[1].strip('[]'))
    sec, ns = t[2].rstrip(':').split('.')
    ps.setdefault(c, []).append(dict(tid=int(tid), time=int(sec) * 10**9 + int(ns), addr=int(t[3], 16),
                                     data_src=int(t[4], 16), weight=int(t[-3]), ip=int(t[-2], 16),
                                     phys=int(t[-1], 16)))
nsamp = 0
LVL_MASK = (0x3fff << 5) | (0x1f << 19) | (0xf << 33) | (0x3 << 38)
if not v2:
    for c in sorted(set(ps) | set(hs)):
        a, b = ps.get(c, []), hs.get(c, [])
        if len(a) != len(b):
            errs.append('cpu %d: perf %d samples, hwsample %d' % (c, len(a), len(b)))
            continue
        for i, (p, h) in enumerate(zip(a, b)):
            descs = [q['desc'] for q in h['raw']['packets']]
            mine = dict(ip=int(h.get('ip', '0x0'), 16), addr=int(h.get('addr', '0x0'), 16),
                        phys=int(h.get('phys_addr', '0x0'), 16), weight=h.get('lat_total', 0),
                        data_src=h.get('data_src', 0))
            theirs = dict((k, p[k]) for k in mine)
            if 'ts' in h['raw']:
                mine['time'] = h.get('time'); theirs['time'] = p['time']
            if 'context' in h['raw']:
                mine['tid'] = h.get('tid'); theirs['tid'] = p['tid']
            is_ld = any(d.startswith('LD') for d in descs)
            if is_ld and not any(d.startswith('DATA-SOURCE') for d in descs) and h['raw'].get('ds_table') == 'common':
                mine['data_src'] &= ~LVL_MASK; theirs['data_src'] &= ~LVL_MASK
            if mine != theirs:
                errs.append('cpu %d sample %d: perf %s hwsample %s packets %s' % (c, i, theirs, mine, descs))
            nsamp += 1
if v2:
    # per-CPU MIDR from the v2 metadata: odd CPUs are a Cortex-A53 in the generator
    for c, lst in hs.items():
        want = 'generic' if c % 2 else 'common'
        bad = [o for o in lst if o['raw'].get('ds_table') != want]
        if bad:
            errs.append('v2 metadata: cpu %d has %d records not decoded with the %s table' % (c, len(bad), want))
for e in errs[:10]:
    print('FAIL (%s): %s' % (label, e))
if errs:
    sys.exit(1)
print('ok (%s): %d packets, %d records, %d samples compared' % (label, npk, nh, nsamp))
EOF
}

# seed, MIDR, CPUs, records: Neoverse N1/N2/V1 (common data source), Cortex-A53 (generic)
run_case 1 0x410fd0c0 2 400
run_case 2 0x413fd0c1 3 600
run_case 3 0x410fd490 4 500
run_case 4 0x410fd400 2 300
run_case 5 0x410fd034 3 400
run_case 6 0x410fd0c0 1 2000
run_case 7 0x410fd0c0 2 300 --v2
finish
