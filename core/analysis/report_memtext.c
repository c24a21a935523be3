// SPDX-License-Identifier: MIT
/*
 * perf's names of a sample's data source (Linux tools/perf/util/mem-events.c): memory level,
 * snoop, TLB, lock, blocked and operation, as perf report's mem, snoop, tlb, locked, blocked
 * and op keys print them.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/report_hist.h"
#include "util/internal.h"

/* ---------------------------------------------------------------- perf's data-source names */

/* @s appended to @out (@sz bytes), cut as snprintf would (no printf: a row per sample) */
static void cat(char *out, size_t sz, const char *s)
{
	size_t l = strlen(out), n = strlen(s); /* not strnlen: gcc's -Wstringop-overread */

	if (n > sz - l - 1)
		n = sz - l - 1;
	memcpy(out + l, s, n);
	out[l + n] = 0;
}

void hist__mem_lvl_str(uint64_t ds, char *out, size_t sz)
{
	static const char *const lvl[] = {
	    "N/A",
	    "HIT",
	    "MISS",
	    "L1",
	    "LFB/MAB",
	    "L2",
	    "L3",
	    "Local RAM",
	    "Remote RAM (1 hop)",
	    "Remote RAM (2 hops)",
	    "Remote Cache (1 hop)",
	    "Remote Cache (2 hops)",
	    "I/O",
	    "Uncached",
	};
	/* perf 6.1's mem_hops[] */
	static const char *const hops[] = {
	    "N/A", "core, same node", "node, same socket", "socket, same board", "board",
	};
	uint64_t m = DS_LVL(ds);
	uint64_t h = DS_HOPS(ds);
	bool hit, miss;
	int printed = 0;

	out[0] = 0;
	hit = m & 2;
	miss = m & 4;
	m &= ~6ULL;
	if (DS_REMOTE(ds))
		cat(out, sz, "Remote ");
	if (h) { /* perf: the hops instead of the level bits */
		cat(out, sz, h < ARRAY_SIZE(hops) ? hops[h] : "N/A");
		cat(out, sz, " ");
		m = 0;
	}
	for (unsigned int i = 0; m && i < ARRAY_SIZE(lvl); i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (printed++)
			cat(out, sz, " or ");
		cat(out, sz, lvl[i]);
	}
	if (DS_LVLNUM(ds)) {
		unsigned int n = (unsigned int)DS_LVLNUM(ds);
		char b[16];

		if (printed++)
			cat(out, sz, " or ");
		switch (n) {
		case 0x09:
			cat(out, sz, "CXL");
			break;
		case 0x0a:
			cat(out, sz, "I/O");
			break;
		case 0x0b:
			cat(out, sz, "Any cache");
			break;
		case 0x0c:
			cat(out, sz, "LFB/MAB");
			break;
		case 0x0d:
			cat(out, sz, "RAM");
			break;
		case 0x0e:
			cat(out, sz, "PMEM");
			break;
		case 0x0f:
			cat(out, sz, "N/A");
			break;
		default:
			snprintf(b, sizeof(b), "L%u", n);
			cat(out, sz, b);
		}
	}
	if (!out[0])
		cat(out, sz, "N/A");
	if (hit)
		cat(out, sz, " hit");
	if (miss)
		cat(out, sz, " miss");
}

void hist__snoop_str(uint64_t ds, char *out, size_t sz)
{
	static const char *const sn[] = {"N/A", "None", "Hit", "Miss", "HitM"};
	static const char *const snx[] = {"Fwd", "Peer"};
	uint64_t m = DS_SNOOP(ds);

	out[0] = 0;
	for (unsigned int i = 0; m && i < ARRAY_SIZE(sn); i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (out[0])
			cat(out, sz, " or ");
		cat(out, sz, sn[i]);
	}
	m = DS_SNOOPX(ds);
	for (unsigned int i = 0; m && i < ARRAY_SIZE(snx); i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (out[0])
			cat(out, sz, " or ");
		cat(out, sz, snx[i]);
	}
	if (!out[0])
		cat(out, sz, "N/A");
}

void hist__tlb_str(uint64_t ds, char *out, size_t sz)
{
	static const char *const tl[] = {"N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault"};
	uint64_t m = DS_DTLB(ds);
	bool hit, miss;

	out[0] = 0;
	if (!m)
		m = 1;
	hit = m & 2;
	miss = m & 4;
	m &= ~6ULL;
	for (unsigned int i = 0; m && i < ARRAY_SIZE(tl); i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (out[0])
			cat(out, sz, " or ");
		cat(out, sz, tl[i]);
	}
	if (!out[0])
		cat(out, sz, "N/A");
	if (hit)
		cat(out, sz, " hit");
	if (miss)
		cat(out, sz, " miss");
}

const char *hist__lock_str(uint64_t ds)
{
	uint64_t m = DS_LOCK(ds);

	return (m & 1) ? "N/A" : (m & 2) ? "Yes" : "No";
}

void hist__blk_str(uint64_t ds, char *out, size_t sz)
{
	uint64_t m = DS_BLK(ds);

	out[0] = 0;
	if (!m || (m & 1)) {
		cat(out, sz, "N/A");
		return;
	}
	if (m & 2)
		cat(out, sz, "Data");
	if (m & 4)
		cat(out, sz, out[0] ? " Addr" : "Addr");
}

const char *hist__op_str(uint64_t ds)
{
	uint64_t m = DS_OP(ds);

	if (m & 2)
		return "Load";
	if (m & 4)
		return "Store";
	if (m & 8)
		return "Prefetch";
	if (m & 16)
		return "Exec";
	return "N/A";
}
