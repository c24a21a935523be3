// SPDX-License-Identifier: MIT
/*
 * perf_mem_data_src -> normalized level / snoop / TLB, and the names used in every output.
 * Bit layout: union perf_mem_data_src and PERF_MEM_* of Linux include/uapi/linux/perf_event.h.
 * Rule: a level is only named when the value says the data was *found* there (HIT, or a
 * lvl_num without MISS); a miss at a level says nothing about where the data came from.
 */
#include <stdbool.h>

#include <hwsample/sample.h>

#define F(v, shift, width) (((v) >> (shift)) & ((1ULL << (width)) - 1))

/* field extractors */
#define DS_OP(v)     F(v, 0, 5)
#define DS_LVL(v)    F(v, 5, 14)
#define DS_SNOOP(v)  F(v, 19, 5)
#define DS_LOCK(v)   F(v, 24, 2)
#define DS_TLB(v)    F(v, 26, 7)
#define DS_LVLNUM(v) F(v, 33, 4)
#define DS_REMOTE(v) F(v, 37, 1)
#define DS_SNOOPX(v) F(v, 38, 2)
#define DS_BLK(v)    F(v, 40, 3)
#define DS_HOPS(v)   F(v, 43, 3)

enum {
	LVL_NA = 0x1,
	LVL_HIT = 0x2,
	LVL_MISS = 0x4,
	LVL_L1 = 0x8,
	LVL_LFB = 0x10,
	LVL_L2 = 0x20,
	LVL_L3 = 0x40,
	LVL_LOC_RAM = 0x80,
	LVL_REM_RAM1 = 0x100,
	LVL_REM_RAM2 = 0x200,
	LVL_REM_CCE1 = 0x400,
	LVL_REM_CCE2 = 0x800,
	LVL_IO = 0x1000,
	LVL_UNC = 0x2000,
};
enum {
	LNUM_L1 = 1,
	LNUM_L2 = 2,
	LNUM_L3 = 3,
	LNUM_L4 = 4,
	LNUM_L2_MHB = 5,
	LNUM_MSC = 6,
	LNUM_L0 = 7,
	LNUM_UNC = 8,
	LNUM_CXL = 9,
	LNUM_IO = 0xa,
	LNUM_ANY_CACHE = 0xb,
	LNUM_LFB = 0xc,
	LNUM_RAM = 0xd,
	LNUM_PMEM = 0xe,
	LNUM_NA = 0xf,
};

static unsigned int cache_level(int remote, unsigned int hops, int peer, unsigned int near)
{
	/* hops code 1 (HOPS_0) = another core on the same node: a peer cache. */
	if (hops == 1)
		return HWS_MEM_PEER_CACHE;
	if (hops >= 2 || remote)
		return HWS_MEM_REMOTE_CACHE;
	return peer ? HWS_MEM_PEER_CACHE : near;
}

static unsigned int level_of(uint64_t v)
{
	uint64_t lvl = DS_LVL(v);
	unsigned int num = (unsigned int)DS_LVLNUM(v);
	unsigned int hops = (unsigned int)DS_HOPS(v);
	int remote = (int)DS_REMOTE(v);
	int peer = (DS_SNOOPX(v) & 0x2) != 0;

	if ((lvl & LVL_MISS) && !(lvl & LVL_HIT))
		return HWS_MEM_UNKNOWN;
	switch (num) {
	case LNUM_L0:
	case LNUM_L1:
		return peer ? HWS_MEM_PEER_CACHE : HWS_MEM_L1;
	case LNUM_LFB:
	case LNUM_L2_MHB:
		return HWS_MEM_LFB;
	case LNUM_L2:
		return cache_level(remote, hops, peer, HWS_MEM_L2);
	case LNUM_L3:
	case LNUM_L4:
	case LNUM_MSC:
		return cache_level(remote, hops, peer, HWS_MEM_L3);
	case LNUM_ANY_CACHE:
		return cache_level(remote, hops, peer, HWS_MEM_L3);
	case LNUM_RAM:
		return remote ? HWS_MEM_REMOTE_DRAM : HWS_MEM_LOCAL_DRAM;
	case LNUM_CXL:
	case LNUM_PMEM:
		return HWS_MEM_CXL;
	case LNUM_IO:
		return HWS_MEM_IO;
	case LNUM_UNC:
		return HWS_MEM_UNCACHED;
	default:
		break;
	}
	/* legacy mem_lvl bits only */
	if (lvl & LVL_UNC)
		return HWS_MEM_UNCACHED;
	if (lvl & LVL_IO)
		return HWS_MEM_IO;
	if (lvl & (LVL_REM_CCE1 | LVL_REM_CCE2))
		return cache_level(remote || (lvl & LVL_REM_CCE2), hops, peer,
				   HWS_MEM_REMOTE_CACHE);
	if (lvl & (LVL_REM_RAM1 | LVL_REM_RAM2))
		return HWS_MEM_REMOTE_DRAM;
	if (lvl & LVL_LOC_RAM)
		return remote ? HWS_MEM_REMOTE_DRAM : HWS_MEM_LOCAL_DRAM;
	if (lvl & LVL_L3)
		return cache_level(remote, hops, peer, HWS_MEM_L3);
	if (lvl & LVL_L2)
		return cache_level(remote, hops, peer, HWS_MEM_L2);
	if (lvl & LVL_LFB)
		return HWS_MEM_LFB;
	if (lvl & LVL_L1)
		return HWS_MEM_L1;
	return HWS_MEM_UNKNOWN;
}

/* what perf_mem_data_src @v says, independent of the sample it goes into */
struct ds_norm {
	uint64_t key;
	uint32_t op_flags;
	uint8_t op; /* HWS_OP_*, or NO_OP when the op bits say nothing */
	uint8_t mem_level, snoop, tlb;
	bool valid;
};

#define NO_OP 0xff

static void ds_compute(uint64_t v, struct ds_norm *n)
{
	uint64_t op = DS_OP(v), snoop = DS_SNOOP(v), tlb = DS_TLB(v), blk = DS_BLK(v);

	n->key = v;
	n->valid = true;
	n->op = NO_OP;
	n->op_flags = 0;
	if (op & 0x2)
		n->op = HWS_OP_LOAD;
	else if (op & 0x4)
		n->op = HWS_OP_STORE;
	else if (op & 0x8) {
		n->op = HWS_OP_LOAD;
		n->op_flags |= HWS_OPF_PREFETCH;
	} else if (op & 0x10)
		n->op = HWS_OP_OTHER;

	n->mem_level = (uint8_t)level_of(v);

	if (snoop & 0x10)
		n->snoop = HWS_SNOOP_HITM;
	else if (DS_SNOOPX(v) & 0x2)
		n->snoop = HWS_SNOOP_PEER;
	else if ((snoop & 0x4) || (DS_SNOOPX(v) & 0x1))
		n->snoop = HWS_SNOOP_HIT;
	else if (snoop & 0x8)
		n->snoop = HWS_SNOOP_MISS;
	else if (snoop & 0x2)
		n->snoop = HWS_SNOOP_NONE;
	else
		n->snoop = HWS_SNOOP_UNKNOWN;

	if (tlb & 0x4)
		n->tlb = HWS_TLB_MISS;
	else if ((tlb & 0x2) && (tlb & 0x8) && !(tlb & 0x10))
		n->tlb = HWS_TLB_L1_HIT;
	else if ((tlb & 0x2) && (tlb & 0x10) && !(tlb & 0x8))
		n->tlb = HWS_TLB_L2_HIT;
	else if (tlb & 0x2)
		n->tlb = HWS_TLB_HIT;
	else
		n->tlb = HWS_TLB_UNKNOWN;

	if (DS_LOCK(v) & 0x2)
		n->op_flags |= HWS_OPF_LOCK;
	if (blk & 0x2)
		n->op_flags |= HWS_OPF_BLK_DATA;
	if (blk & 0x4)
		n->op_flags |= HWS_OPF_BLK_ADDR;
	if (DS_REMOTE(v) || n->mem_level == HWS_MEM_REMOTE_CACHE ||
	    n->mem_level == HWS_MEM_REMOTE_DRAM)
		n->op_flags |= HWS_OPF_REMOTE;
	if (n->mem_level == HWS_MEM_UNCACHED)
		n->op_flags |= HWS_OPF_UNCACHED;
}

/*
 * A recording holds a few hundred distinct data_src values among millions of samples:
 * a direct-mapped cache per thread of the decoded form skips the bit tests for all but the
 * first sample of each value.
 */
#define DS_CACHE_BITS 10

static _Thread_local struct ds_norm ds_cache[1u << DS_CACHE_BITS];

static inline void ds_apply(const struct ds_norm *slot, uint64_t v, struct hws_sample *s)
{
	struct ds_norm n = *slot; /* a copy: the stores into @s cannot alias it */
	uint8_t op = n.op != NO_OP ? n.op : s->op;

	s->data_src = v;
	s->op = op;
	s->fields |= HWS_SF_DATA_SRC | (op != HWS_OP_UNKNOWN ? HWS_SF_OP : 0);
	s->op_flags |= n.op_flags;
	s->mem_level = n.mem_level;
	s->snoop = n.snoop;
	s->tlb = n.tlb;
}

/* a value not in the cache: out of line and reached by a tail call, so the hit path of
 * hws_data_src__normalize() is a leaf that saves no registers */
static __attribute__((noinline, cold)) void ds_miss(uint64_t v, struct ds_norm *n,
						    struct hws_sample *s)
{
	ds_compute(v, n);
	ds_apply(n, v, s);
}

void hws_data_src__normalize(uint64_t v, struct hws_sample *s)
{
	struct ds_norm *n = &ds_cache[(v * 0x9e3779b97f4a7c15ULL) >> (64 - DS_CACHE_BITS)];

	if (__builtin_expect(!n->valid || n->key != v, 0))
		return ds_miss(v, n, s);
	ds_apply(n, v, s);
}

static const char *const level_names[] = {
    [HWS_MEM_UNKNOWN] = "unknown",
    [HWS_MEM_L1] = "l1",
    [HWS_MEM_LFB] = "lfb",
    [HWS_MEM_L2] = "l2",
    [HWS_MEM_L3] = "l3",
    [HWS_MEM_PEER_CACHE] = "peer_cache",
    [HWS_MEM_REMOTE_CACHE] = "remote_cache",
    [HWS_MEM_LOCAL_DRAM] = "local_dram",
    [HWS_MEM_REMOTE_DRAM] = "remote_dram",
    [HWS_MEM_CXL] = "cxl",
    [HWS_MEM_IO] = "io",
    [HWS_MEM_UNCACHED] = "uncached",
};
static const char *const snoop_names[] = {
    [HWS_SNOOP_UNKNOWN] = "unknown", [HWS_SNOOP_NONE] = "none", [HWS_SNOOP_HIT] = "hit",
    [HWS_SNOOP_HITM] = "hitm",	     [HWS_SNOOP_PEER] = "peer", [HWS_SNOOP_MISS] = "miss",
};
static const char *const tlb_names[] = {
    [HWS_TLB_UNKNOWN] = "unknown", [HWS_TLB_L1_HIT] = "l1_hit", [HWS_TLB_L2_HIT] = "l2_hit",
    [HWS_TLB_MISS] = "miss",	   [HWS_TLB_HIT] = "hit",
};
static const char *const op_names[] = {
    [HWS_OP_UNKNOWN] = "unknown", [HWS_OP_LOAD] = "load",   [HWS_OP_STORE] = "store",
    [HWS_OP_BRANCH] = "branch",	  [HWS_OP_OTHER] = "other",
};

#define NAME(tab, i) ((i) < sizeof(tab) / sizeof(tab[0]) && tab[i] ? tab[i] : "unknown")

const char *hws_mem_level__name(unsigned int level)
{
	return NAME(level_names, level);
}

const char *hws_snoop__name(unsigned int snoop)
{
	return NAME(snoop_names, snoop);
}

const char *hws_tlb__name(unsigned int tlb)
{
	return NAME(tlb_names, tlb);
}

const char *hws_op__name(unsigned int op)
{
	return NAME(op_names, op);
}
