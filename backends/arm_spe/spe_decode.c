// SPDX-License-Identifier: MIT
/*
 * Arm SPE AUX stream decoding: packets -> records -> struct hws_sample.
 *
 * Invariants:
 *  - One struct spe_stream per AUX stream (core-allocated, zeroed at stream start). Chunks
 *    of a stream arrive in order; a record (packets up to END or TIMESTAMP) may be split
 *    across chunks, even inside a packet. Its bytes are then gathered in stream->buf so the
 *    sample's raw pointer always shows the whole record; a record that fits in one chunk
 *    points into the chunk (no copy).
 *  - PAD and alignment packets before a record's first packet are skipped, not part of it.
 *  - A bad packet inside a record drops that record (counted) and the decoder resyncs at
 *    the next END/TIMESTAMP; a bad byte between records is skipped and counted.
 *  - chunk->gap drops any partial record: data before it was lost.
 *  - A record left incomplete at the end of the stream is dropped (as perf does).
 *  - Nothing here allocates; nothing reads past a chunk or the stream buffer.
 *  - Two decoders, one behaviour: fast_run() takes whole records while 16 bytes or more
 *    are left in the chunk (header table, fixed 8-byte loads, no per-packet branches on
 *    the type); the generic decoder (spe_pkt__get_inline + spe_record__add_inline) takes
 *    everything else: chunk tails, records split across chunks, alignment packets, bad
 *    bytes. tests/unit/test_arm_spe_pkt.c checks they agree.
 *  - Per record, the hot path calls nothing through a pointer but the sample callback:
 *    the MIDR's data-source table is resolved once per stream (per CPU change), and the
 *    host's data_src normalize is memoized per stream by data-source key.
 *
 * Data source (the DATA_SOURCE packet is IMPLEMENTATION DEFINED): decoded per MIDR with the
 * "common" Neoverse/Cortex table, the AmpereOne and the HiSilicon HIP12 tables (as Linux
 * tools/perf/util/arm-spe.c decodes them); other CPUs get perf's generic decode from the EVENTS
 * packet, and the raw value stays in --raw. The perf_mem_data_src value follows perf 6.1 for the
 * CPUs that perf knows, so the file reads the same in perf-compatible output.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spe.h"
#include "spe_pkt_inline.h"

/* ---------------------------------------------------------------- perf_mem_data_src */

#define DS_OP_NA       0x1ULL
#define DS_OP_LOAD     0x2ULL
#define DS_OP_STORE    0x4ULL
#define DS_LVL_NA      0x1ULL
#define DS_LVL_HIT     0x2ULL
#define DS_LVL_MISS    0x4ULL
#define DS_LVL_L1      0x8ULL
#define DS_LVL_L2      0x20ULL
#define DS_LVL_L3      0x40ULL
#define DS_LVL_LOC_RAM 0x80ULL
#define DS_SNOOP_NA    0x1ULL
#define DS_SNOOP_NONE  0x2ULL
#define DS_SNOOP_HIT   0x4ULL
#define DS_TLB_HIT     0x2ULL
#define DS_TLB_MISS    0x4ULL
#define DS_TLB_WK      0x20ULL
#define DS_LNUM_L1     1ULL
#define DS_LNUM_L2     2ULL
#define DS_LNUM_L3     3ULL
#define DS_LNUM_RAM    0xdULL
#define DS_LNUM_NA     0xfULL
#define DS_SNOOPX_PEER 0x2ULL

#define DS_OP(x)     ((uint64_t)(x) << 0)
#define DS_LVL(x)    ((uint64_t)(x) << 5)
#define DS_SNOOP(x)  ((uint64_t)(x) << 19)
#define DS_TLB(x)    ((uint64_t)(x) << 26)
#define DS_LNUM(x)   ((uint64_t)(x) << 33)
#define DS_REMOTE(x) ((uint64_t)(x) << 37)
#define DS_SNOOPX(x) ((uint64_t)(x) << 38)

/* "common" data source codes (Neoverse N1/N2/V1/V2, Cortex A720/A725/X1C/X3/X925) */
enum {
	DS_COMMON_L1D = 0x0,
	DS_COMMON_L2 = 0x8,
	DS_COMMON_PEER_CORE = 0x9,
	DS_COMMON_LOCAL_CLUSTER = 0xa,
	DS_COMMON_SYS_CACHE = 0xb,
	DS_COMMON_PEER_CLUSTER = 0xc,
	DS_COMMON_REMOTE = 0xd,
	DS_COMMON_DRAM = 0xe,
};

enum ds_table { DS_TABLE_GENERIC = 0, DS_TABLE_COMMON, DS_TABLE_AMPEREONE, DS_TABLE_HISI_HIP };

#define DS_LVL_REM_RAM1	  0x100ULL
#define DS_LVL_REM_CCE1	  0x400ULL
#define DS_LVL_REM_CCE2	  0x800ULL
#define DS_LVL_IO	  0x1000ULL
#define DS_SNOOP_HITM	  0x10ULL
#define DS_LNUM_IO	  0xaULL
#define DS_LNUM_ANY_CACHE 0xbULL

/*
 * HiSilicon HIP data source codes (newer perf's arm_spe_hisi_hip_data_source enum) with the
 * meaning perf's mem-mode gives them; the *_HITM codes say the line was modified in the
 * cache that supplied it. lvl_num for the cluster/socket codes is our choice (ANY_CACHE):
 * the level inside the other cluster/socket is not said.
 */
static uint64_t ds_hisi_hip(uint64_t code)
{
	const uint64_t hit = DS_LVL_HIT;

	switch (code) {
	case 18: /* L1 */
		return DS_LVL(DS_LVL_L1 | hit) | DS_LNUM(DS_LNUM_L1) | DS_SNOOP(DS_SNOOP_NONE);
	case 16: /* L2 */
		return DS_LVL(DS_LVL_L2 | hit) | DS_LNUM(DS_LNUM_L2) | DS_SNOOP(DS_SNOOP_NONE);
	case 17: /* L2, modified */
		return DS_LVL(DS_LVL_L2 | hit) | DS_LNUM(DS_LNUM_L2) | DS_SNOOP(DS_SNOOP_HITM);
	case 0: /* peer CPU */
		return DS_LVL(DS_LVL_L2 | hit) | DS_LNUM(DS_LNUM_L2) | DS_SNOOPX(DS_SNOOPX_PEER);
	case 1: /* peer CPU, modified */
		return DS_LVL(DS_LVL_L2 | hit) | DS_LNUM(DS_LNUM_L2) | DS_SNOOP(DS_SNOOP_HITM) |
		       DS_SNOOPX(DS_SNOOPX_PEER);
	case 2: /* L3 */
		return DS_LVL(DS_LVL_L3 | hit) | DS_LNUM(DS_LNUM_L3) | DS_SNOOP(DS_SNOOP_NONE);
	case 3: /* L3, modified */
		return DS_LVL(DS_LVL_L3 | hit) | DS_LNUM(DS_LNUM_L3) | DS_SNOOP(DS_SNOOP_HITM);
	case 4: /* peer cluster */
		return DS_LVL(DS_LVL_REM_CCE1 | hit) | DS_LNUM(DS_LNUM_ANY_CACHE) |
		       DS_SNOOPX(DS_SNOOPX_PEER);
	case 5: /* peer cluster, modified */
		return DS_LVL(DS_LVL_REM_CCE1 | hit) | DS_LNUM(DS_LNUM_ANY_CACHE) |
		       DS_SNOOP(DS_SNOOP_HITM) | DS_SNOOPX(DS_SNOOPX_PEER);
	case 6: /* remote socket */
		return DS_LVL(DS_LVL_REM_CCE2 | hit) | DS_LNUM(DS_LNUM_ANY_CACHE) | DS_REMOTE(1) |
		       DS_SNOOPX(DS_SNOOPX_PEER);
	case 7: /* remote socket, modified */
		return DS_LVL(DS_LVL_REM_CCE2 | hit) | DS_LNUM(DS_LNUM_ANY_CACHE) | DS_REMOTE(1) |
		       DS_SNOOP(DS_SNOOP_HITM) | DS_SNOOPX(DS_SNOOPX_PEER);
	case 8: /* local memory */
		return DS_LVL(DS_LVL_LOC_RAM | hit) | DS_LNUM(DS_LNUM_RAM) |
		       DS_SNOOP(DS_SNOOP_NONE);
	case 9: /* remote memory */
		return DS_LVL(DS_LVL_REM_RAM1 | hit) | DS_LNUM(DS_LNUM_RAM) | DS_REMOTE(1) |
		       DS_SNOOP(DS_SNOOP_NONE);
	case 13: /* non-coherent device */
		return DS_LVL(DS_LVL_IO | hit) | DS_LNUM(DS_LNUM_IO);
	default:
		return 0;
	}
}

/* MIDR match ignoring variant (23:20) and revision (3:0), like perf's MIDR_ALL_VERSIONS */
#define MIDR_MODEL_MASK 0xff0ffff0ULL

static const struct {
	uint32_t midr;
	uint8_t table;
	const char *name;
} midr_tables[] = {
    {0x410fd0c0, DS_TABLE_COMMON, "neoverse-n1"},
    {0x410fd490, DS_TABLE_COMMON, "neoverse-n2"},
    {0x410fd400, DS_TABLE_COMMON, "neoverse-v1"},
    {0x410fd4f0, DS_TABLE_COMMON, "neoverse-v2"},
    {0x410fd810, DS_TABLE_COMMON, "cortex-a720"},
    {0x410fd870, DS_TABLE_COMMON, "cortex-a725"},
    {0x410fd4c0, DS_TABLE_COMMON, "cortex-x1c"},
    {0x410fd4e0, DS_TABLE_COMMON, "cortex-x3"},
    {0x410fd850, DS_TABLE_COMMON, "cortex-x925"},
    {0xc00fac30, DS_TABLE_AMPEREONE, "ampereone"},
    {0xc00fac40, DS_TABLE_AMPEREONE, "ampereone-ac04"},
    {0x480fd060, DS_TABLE_HISI_HIP, "hisilicon-hip12"},
};

static int midr_table(uint64_t midr)
{
	for (size_t i = 0; i < sizeof(midr_tables) / sizeof(midr_tables[0]); i++)
		if ((midr & MIDR_MODEL_MASK) == midr_tables[i].midr)
			return midr_tables[i].table;
	return DS_TABLE_GENERIC;
}

const char *spe_midr_info(uint64_t midr, const char **table)
{
	static const char *const names[] = {
	    [DS_TABLE_GENERIC] = "generic",
	    [DS_TABLE_COMMON] = "common",
	    [DS_TABLE_AMPEREONE] = "ampereone",
	    [DS_TABLE_HISI_HIP] = "hisi_hip",
	};

	*table = names[midr_table(midr)];
	for (size_t i = 0; i < sizeof(midr_tables) / sizeof(midr_tables[0]); i++)
		if ((midr & MIDR_MODEL_MASK) == midr_tables[i].midr)
			return midr_tables[i].name;
	return NULL;
}

static inline int rec_is_store(const struct spe_record *r)
{
	return (r->present & SPE_HAVE_OP) && r->op_class == SPE_OP_LDST && (r->op_payload & 1);
}

static inline int rec_is_load(const struct spe_record *r)
{
	return (r->present & SPE_HAVE_OP) && r->op_class == SPE_OP_LDST && !(r->op_payload & 1);
}

static uint64_t ds_common(const struct spe_record *r, uint64_t source)
{
	if (rec_is_store(r)) /* Neoverse SPE says nothing about where a store went */
		return DS_LVL(DS_LVL_NA) | DS_LNUM(DS_LNUM_NA) | DS_SNOOP(DS_SNOOP_NA);
	switch (source) {
	case DS_COMMON_L1D:
		return DS_LVL(DS_LVL_L1 | DS_LVL_HIT) | DS_LNUM(DS_LNUM_L1) |
		       DS_SNOOP(DS_SNOOP_NONE);
	case DS_COMMON_L2:
		return DS_LVL(DS_LVL_L2 | DS_LVL_HIT) | DS_LNUM(DS_LNUM_L2) |
		       DS_SNOOP(DS_SNOOP_NONE);
	case DS_COMMON_PEER_CORE:
		return DS_LVL(DS_LVL_L2 | DS_LVL_HIT) | DS_LNUM(DS_LNUM_L2) |
		       DS_SNOOPX(DS_SNOOPX_PEER);
	case DS_COMMON_LOCAL_CLUSTER:
	case DS_COMMON_PEER_CLUSTER:
		return DS_LVL(DS_LVL_L3 | DS_LVL_HIT) | DS_LNUM(DS_LNUM_L3) |
		       DS_SNOOPX(DS_SNOOPX_PEER);
	case DS_COMMON_SYS_CACHE:
		return DS_LVL(DS_LVL_L3 | DS_LVL_HIT) | DS_LNUM(DS_LNUM_L3) |
		       DS_SNOOP(DS_SNOOP_HIT);
	case DS_COMMON_REMOTE:
		return DS_LVL(DS_LVL_NA) | DS_LNUM(DS_LNUM_NA) | DS_REMOTE(1) |
		       DS_SNOOPX(DS_SNOOPX_PEER);
	case DS_COMMON_DRAM:
		return DS_LVL(DS_LVL_LOC_RAM | DS_LVL_HIT) | DS_LNUM(DS_LNUM_RAM) |
		       DS_SNOOP(DS_SNOOP_NONE);
	default:
		return 0;
	}
}

/* AmpereOne codes mapped onto the common ones */
static int ampereone_to_common(uint64_t source, uint64_t *common)
{
	static const int8_t map[10] = {
	    [0] = DS_COMMON_PEER_CORE, /* local chip cache or device */
	    [1] = -1,
	    [2] = -1,
	    [4] = -1,
	    [6] = -1,
	    [3] = DS_COMMON_SYS_CACHE, /* SLC */
	    [5] = DS_COMMON_REMOTE,    /* remote chip cache */
	    [7] = DS_COMMON_DRAM,      /* DDR */
	    [8] = DS_COMMON_L1D,
	    [9] = DS_COMMON_L2,
	};

	if (source >= sizeof(map) || map[source] < 0)
		return -1;
	*common = (uint64_t)map[source];
	return 0;
}

static uint64_t ds_generic(const struct spe_record *r)
{
	uint64_t ev = r->events, v = 0;

	if (ev & ((1ULL << SPE_EV_LLC_ACCESS) | (1ULL << SPE_EV_LLC_REFILL)))
		v = DS_LVL(DS_LVL_L3 |
			   ((ev & (1ULL << SPE_EV_LLC_REFILL)) ? DS_LVL_MISS : DS_LVL_HIT));
	else if (ev & ((1ULL << SPE_EV_L1D_ACCESS) | (1ULL << SPE_EV_L1D_REFILL)))
		v = DS_LVL(DS_LVL_L1 |
			   ((ev & (1ULL << SPE_EV_L1D_REFILL)) ? DS_LVL_MISS : DS_LVL_HIT));
	if (ev & (1ULL << SPE_EV_REMOTE))
		v |= DS_REMOTE(1);
	return v;
}

/* @table: enum ds_table, resolved once per stream from the MIDR */
static inline uint64_t data_src_table(const struct spe_record *r, int table)
{
	uint64_t v, common;

	if (rec_is_load(r))
		v = DS_OP(DS_OP_LOAD);
	else if (rec_is_store(r))
		v = DS_OP(DS_OP_STORE);
	else
		return 0;

	switch (table) {
	case DS_TABLE_COMMON:
		if (r->present & SPE_HAVE_SOURCE)
			v |= ds_common(r, r->source);
		else if (rec_is_store(r))
			v |= ds_common(r, 0);
		break;
	case DS_TABLE_AMPEREONE:
		if (rec_is_store(r))
			v |= ds_common(r, 0);
		else if ((r->present & SPE_HAVE_SOURCE) && !ampereone_to_common(r->source, &common))
			v |= ds_common(r, common);
		break;
	case DS_TABLE_HISI_HIP:
		if (r->present & SPE_HAVE_SOURCE)
			v |= ds_hisi_hip(r->source);
		break;
	default:
		v |= ds_generic(r);
		break;
	}
	if (r->events & ((1ULL << SPE_EV_TLB_ACCESS) | (1ULL << SPE_EV_TLB_WALK)))
		v |= DS_TLB(DS_TLB_WK |
			    ((r->events & (1ULL << SPE_EV_TLB_WALK)) ? DS_TLB_MISS : DS_TLB_HIT));
	return v;
}

uint64_t spe_data_src(const struct spe_record *r, uint64_t midr)
{
	return data_src_table(r, midr_table(midr));
}

/* ---------------------------------------------------------------- addresses, time */

uint64_t spe_tsc_to_perf_time(uint64_t cyc, const struct hws_time_conv *tc)
{
	uint64_t quot, rem;

	if (tc->cap_user_time_short)
		cyc = tc->time_cycles + ((cyc - tc->time_cycles) & tc->time_mask);
	quot = tc->time_shift < 64 ? cyc >> tc->time_shift : 0;
	rem = tc->time_shift < 64 ? cyc & ((1ULL << tc->time_shift) - 1) : cyc;
	return tc->time_zero + quot * tc->time_mult +
	       (tc->time_shift < 64 ? (rem * tc->time_mult) >> tc->time_shift : 0);
}

/* ---------------------------------------------------------------- MIDR */

#define SPE_V2_CPU_MAGIC 0x1010101010101010ULL

static uint64_t v2_midr(const uint64_t *priv, uint32_t nr, uint32_t cpu, int *found)
{
	uint64_t hdr_size, nr_cpus, off;

	*found = 0;
	if (nr < 4 || priv[0] < 2)
		return 0;
	hdr_size = priv[1];
	nr_cpus = priv[3];
	off = hdr_size; /* global header size in u64s, counted from priv[0] */
	if (hdr_size < 4 || off > nr)
		return 0;
	for (uint64_t i = 0; i < nr_cpus && off + 3 <= nr; i++) {
		uint64_t nparams = priv[off + 2];

		if (priv[off] != SPE_V2_CPU_MAGIC || off + 3 + nparams > nr)
			return 0;
		if (priv[off + 1] == cpu && nparams >= 1) {
			*found = 1;
			return priv[off + 3];
		}
		off += 3 + nparams;
	}
	return 0;
}

uint64_t spe_file_midr(const struct hws_file_info *fi, uint32_t cpu)
{
	uint64_t midr;
	int found;

	if (!fi)
		return 0;
	if (fi->auxtrace_priv && fi->nr_auxtrace_priv > 2) {
		midr = v2_midr(fi->auxtrace_priv, fi->nr_auxtrace_priv, cpu, &found);
		if (found)
			return midr;
	}
	if (fi->sz >= offsetof(struct hws_file_info, cpu_midr) + sizeof(fi->cpu_midr) &&
	    fi->cpu_midr && cpu != UINT32_MAX) {
		midr = fi->cpu_midr(fi, (int)cpu);
		if (midr)
			return midr;
	}
	if (fi->cpuid && fi->cpuid[0])
		return strtoull(fi->cpuid, NULL, 16);
	return 0;
}

/* ---------------------------------------------------------------- record -> sample */

/*
 * op << 24 | HWS_OPF_* (bits 17:0) of an OP_TYPE packet (class, payload); the events add
 * branch flags. Bits 19:18 are ds_key()'s load/store part (1 load, 2 store, 0 not a
 * load/store), bit 20 says branch: rec_to_sample() takes both from the table word instead
 * of branching on the class (a random mix in real data).
 */
#define OPI_FLAGS     0x3ffffU
#define OPI_DSK_SHIFT 18
#define OPI_BRANCH    (1U << 20)

static uint32_t op_info(unsigned int cls, uint8_t v)
{
	uint32_t flags = 0, op;

	switch (cls) {
	case SPE_OP_LDST:
		op = (v & 1) ? HWS_OP_STORE : HWS_OP_LOAD;
		if ((v & 0xe2) == 0x02) { /* atomic / exclusive / acquire-release form */
			if (v & 0x04)
				flags |= HWS_OPF_ATOMIC | HWS_OPF_LOCK;
			if (v & 0x08)
				flags |= HWS_OPF_EXCL;
		}
		if ((v & 0x0a) == 0x08)
			flags |= HWS_OPF_SVE;
		if ((v & 0xfe) == 0x04)
			flags |= HWS_OPF_SIMD;
		flags |= (1U + (v & 1)) << OPI_DSK_SHIFT;
		break;
	case SPE_OP_BRANCH:
		op = HWS_OP_BRANCH;
		if (v & 1)
			flags |= HWS_OPF_BR_COND;
		if (v & 2)
			flags |= HWS_OPF_BR_IND;
		if (((v >> 3) & 3) == 1)
			flags |= HWS_OPF_BR_CALL;
		if (((v >> 3) & 3) == 2)
			flags |= HWS_OPF_BR_RET;
		flags |= OPI_BRANCH;
		break;
	default:
		op = HWS_OP_OTHER;
		if ((v & 0x89) == 0x08)
			flags |= HWS_OPF_SVE;
		break;
	}
	return op << 24 | flags;
}

static void optab_build(struct spe_priv *sp)
{
	for (unsigned int c = 0; c < 4; c++)
		for (unsigned int v = 0; v < 256; v++)
			sp->optab[c][v] = op_info(c, (uint8_t)v);
	memset(sp->optab[4], 0, sizeof(sp->optab[4]));
	sp->optab_ready = 1;
}

/*
 * The data source of a record depends on few of its bits: load/store, the TLB events and,
 * per table, the DATA_SOURCE code (common, AmpereOne, HiSilicon) or the cache/remote events
 * (generic). ds_key() packs them into 9 bits; the stream memoizes data_src_table() and the
 * host's normalize per key. Returns -1 for a code too large for the key (no memo).
 */
static inline uint64_t bit_mask(uint64_t cond) /* all ones if @cond (0 or 1) */
{
	return (uint64_t)0 - cond;
}

/* @opi: the record's op_info() word (0 without OP_TYPE) */
static inline int ds_key(const struct spe_record *r, int table, uint32_t opi)
{
	uint32_t pr = r->present, opk = (opi >> OPI_DSK_SHIFT) & 3, src;
	uint64_t ev = r->events, m, v;

	if (table == DS_TABLE_GENERIC) {
		src = (uint32_t)(((ev >> SPE_EV_L1D_ACCESS) & 3) | ((ev >> 6) & 0x1c));
	} else {
		/* code + 1 with DATA_SOURCE, else 0: masks, not a branch on what came */
		m = bit_mask((pr >> 8) & 1); /* SPE_HAVE_SOURCE */
		v = r->source & m;
		if (__builtin_expect(v >= 31, 0))
			return -1;
		src = (uint32_t)(v + (m & 1));
	}
	return (int)(opk | ((uint32_t)(ev >> SPE_EV_TLB_ACCESS) & 3) << 2 | src << 4);
}

static void ds_fill(struct spe_ds_memo *m, const struct spe_record *r, int table,
		    const struct hws_host *host)
{
	uint64_t ds = data_src_table(r, table);
	struct hws_sample t;

	memset(&t, 0, sizeof(t));
	t.sz = sizeof(t);
	if (ds && host && host->data_src_normalize) {
		host->data_src_normalize(ds, &t);
		/* a remote hit whose level SPE does not name */
		if ((ds >> 37) & 1 && t.mem_level == HWS_MEM_UNKNOWN && table != DS_TABLE_GENERIC)
			t.mem_level = HWS_MEM_REMOTE_CACHE;
	}
	m->data_src = t.data_src;
	m->fields = (uint32_t)t.fields;
	m->op_flags = t.op_flags;
	m->mem_level = t.mem_level;
	m->snoop = t.snoop;
	m->tlb = t.tlb;
	m->valid = 1;
}

/* HWS_SF_* of the address and counter packets a record has, by SPE_HAVE_* bits 3:0 and 12:9 */
#define PRF_LO(p)                                                                                  \
	(((p)&SPE_HAVE_PC ? HWS_SF_IP : 0) | ((p)&SPE_HAVE_TGT ? HWS_SF_BRANCH : 0) |              \
	 ((p)&SPE_HAVE_VA ? HWS_SF_ADDR : 0) | ((p)&SPE_HAVE_PA ? HWS_SF_PHYS_ADDR : 0))
#define PRF_HI(p)                                                                                  \
	(((p)&1 ? HWS_SF_OP : 0) | ((p)&2 ? HWS_SF_LAT_TOTAL | HWS_SF_WEIGHT : 0) |                \
	 ((p)&4 ? HWS_SF_LAT_ISSUE : 0) | ((p)&8 ? HWS_SF_LAT_XLAT : 0))
#define PRF4(f, b) f(b), f(b + 1), f(b + 2), f(b + 3)
static const uint32_t prf_lo[16] = {PRF4(PRF_LO, 0), PRF4(PRF_LO, 4), PRF4(PRF_LO, 8),
				    PRF4(PRF_LO, 12)};
static const uint32_t prf_hi[16] = {PRF4(PRF_HI, 0), PRF4(PRF_HI, 4), PRF4(PRF_HI, 8),
				    PRF4(PRF_HI, 12)};

/* a branch's HWS_OPF_* by index 8 | HAVE_EVENTS << 2 | MISPRED << 1 | NOT_TAKEN (perf's
 * rule: not taken when the event says so, else taken when EVENTS came); 0..7 not a branch */
#define BRF(i)                                                                                     \
	((uint32_t)((i)&8 ? (((i)&1) ? HWS_OPF_BR_NOT_TAKEN                                        \
			     : (i)&4 ? HWS_OPF_BR_TAKEN                                            \
				     : 0) |                                                        \
				((i)&2 ? HWS_OPF_BR_MISPRED : 0)                                   \
			  : 0))
static const uint32_t br_flags[16] = {BRF(0),  BRF(1),	BRF(2),	 BRF(3), BRF(4),  BRF(5),
				      BRF(6),  BRF(7),	BRF(8),	 BRF(9), BRF(10), BRF(11),
				      BRF(12), BRF(13), BRF(14), BRF(15)};
#undef BRF

/* ip / branch target from an ADDRESS payload: bits 55:0, top byte 0xff for NS EL1/EL2
 * (perf's rule), i.e. when bits 63:61 (NS, EL) are 0b101 or 0b110 */
static inline uint64_t addr_code(uint64_t v)
{
	return (v & ((1ULL << 56) - 1)) | (bit_mask((0x60U >> (v >> 61)) & 1) & (0xffULL << 56));
}

/*
 * enum hws_synth bits of the EVENTS bits 2-10 (L1D access, refill, TLB access, walk, not taken,
 * mispredicted, LLC access, refill, remote): perf's record types l1d-access/-miss, tlb-access/
 * -miss, branch-miss, llc-access/-miss, remote-access (arm_spe_sample()), one load per record
 */
#define SYN(i)                                                                                     \
	(((i) >> 1 & 1) | ((i)&1) << 1 | ((i) >> 7 & 1) << 2 | ((i) >> 6 & 1) << 3 |               \
	 ((i) >> 3 & 1) << 4 | ((i) >> 2 & 1) << 5 | ((i) >> 5 & 1) << 6 | ((i) >> 8 & 1) << 7)
#define SYN4(i)	  SYN(i), SYN((i) + 1), SYN((i) + 2), SYN((i) + 3)
#define SYN16(i)  SYN4(i), SYN4((i) + 4), SYN4((i) + 8), SYN4((i) + 12)
#define SYN64(i)  SYN16(i), SYN16((i) + 16), SYN16((i) + 32), SYN16((i) + 48)
#define SYN256(i) SYN64(i), SYN64((i) + 64), SYN64((i) + 128), SYN64((i) + 192)
static const uint16_t synth_tab[512] = {SYN256(0), SYN256(256)};

/*
 * The sample's fields from one record, without branches on the packets present (the
 * random-looking mix of real SPE data would mispredict them). Every member set here is
 * written whether or not its packet came (so @s can be reused from record to record);
 * s->fields is ORed into. @memo (the stream's, for @table) and @optab (the instance's)
 * may be NULL. @r's PC/TGT/VA/PA and three counter slots must be 0 where their packet did
 * not come (the decoder clears them when a record starts).
 */
static inline __attribute__((always_inline)) void
rec_to_sample(const struct spe_record *r, int table, struct hws_sample *s, struct spe_ds_memo *memo,
	      const uint32_t (*optab)[256], const struct hws_host *host)
{
	uint32_t pr = r->present, opi, flags;
	uint64_t ev = r->events, pc = r->addr[SPE_ADDR_PC], va = r->addr[SPE_ADDR_VA];
	uint64_t fields = s->fields | prf_lo[pr & 15] | prf_hi[(pr >> 9) & 15], m;
	const struct spe_ds_memo *dm;
	struct spe_ds_memo one;
	unsigned int cls;
	int key;

	/* the address and counter slots of absent packets are 0 (rec_clear_slots()), which
	 * every conversion below maps to 0 */
	s->ip = addr_code(pc);
	s->ip_precise = (uint8_t)(pr & SPE_HAVE_PC);
	m = bit_mask(pr & SPE_HAVE_PC);
	s->cpumode =
	    (uint8_t)(((pc >> 61) & 3 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) & m);
	/* data VA: sign-filled top byte when bits 55:52 are all ones */
	va &= (1ULL << 56) - 1;
	s->addr = va | (bit_mask(((va >> 52) & 0xf) == 0xf) & (0xffULL << 56));
	s->phys_addr = r->addr[SPE_ADDR_PA] & ((1ULL << 56) - 1);
	s->lat_total = (uint16_t)r->lat[SPE_CNT_TOTAL];
	s->weight = s->lat_total;
	s->lat_issue = (uint16_t)r->lat[SPE_CNT_ISSUE];
	s->lat_xlat = (uint16_t)r->lat[SPE_CNT_XLAT];
	s->branch_target = addr_code(r->addr[SPE_ADDR_TGT]);

	/* op and its flags */
	cls = (pr & SPE_HAVE_OP) ? r->op_class : 4;
	opi = optab ? optab[cls][r->op_payload] : cls < 4 ? op_info(cls, r->op_payload) : 0;
	flags = opi & OPI_FLAGS;
	s->op = (uint8_t)(opi >> 24);
	/* a branch's flags from its events: by (branch, EVENTS came, MISPRED, NOT_TAKEN) */
	flags |= br_flags[((opi & OPI_BRANCH) ? 8 : 0) | ((pr >> 5) & 4) | ((ev >> 6) & 3)];
	flags |= (uint32_t)(HWS_OPF_REMOTE & bit_mask((ev >> SPE_EV_REMOTE) & 1));

	/* data source: memoized per key */
	key = ds_key(r, table, opi);
	if (memo && key >= 0) {
		dm = &memo[key];
		if (__builtin_expect(!dm->valid, 0))
			ds_fill(&memo[key], r, table, host);
	} else {
		ds_fill(&one, r, table, host);
		dm = &one;
	}
	s->data_src = dm->data_src;
	s->mem_level = dm->mem_level;
	s->tlb = dm->tlb;
	{
		uint32_t sn = dm->snoop; /* HITM when the event says so: a mask, not a branch */

		sn ^= (sn ^ HWS_SNOOP_HITM) & (uint32_t)bit_mask((ev >> SPE_EV_HITM) & 1);
		s->snoop = (uint8_t)sn;
	}
	s->op_flags = flags | dm->op_flags;
	/* the events perf makes of the record (its arm_spe_sample()): by the EVENTS bits, and
	 * "memory" for a load or store (perf: data_src not 0) */
	s->synth = synth_tab[(ev >> SPE_EV_L1D_ACCESS) & 0x1ff] |
		   (uint32_t)(dm->data_src != 0) * HWS_SYNTH_MEMORY;
	s->fields = fields | dm->fields | HWS_SF_SYNTH;
}

void spe_record__to_sample(const struct spe_record *r, uint64_t midr, struct hws_sample *s,
			   const struct hws_host *host)
{
	struct spe_record c = *r; /* any record: the slots of absent packets made 0 */

	for (unsigned int k = SPE_ADDR_PC; k <= SPE_ADDR_PA; k++)
		c.addr[k] &= bit_mask((c.present >> k) & 1);
	for (unsigned int k = SPE_CNT_TOTAL; k <= SPE_CNT_XLAT; k++)
		c.lat[k] &= bit_mask((c.present >> (10 + k)) & 1);
	rec_to_sample(&c, midr_table(midr), s, NULL, NULL, host);
}

/* ---------------------------------------------------------------- stream */

struct decode_ctx {
	struct spe_priv *priv;
	struct spe_stream *st;
	const struct hws_file_info *fi;
	const struct hws_aux_chunk *chunk;
	hws_sample_fn emit;
	void *ctx;
	/* chunk-invariant parts of every sample, resolved once per chunk */
	const struct hws_time_conv *tc;
	/* tc in the common case (no short counters, shift < 64): perf time = tzero +
	 * (ts >> tshift) * tmult + ((ts & low bits) * tmult >> tshift); tfast 0: use tc */
	uint64_t tmult, tzero;
	uint32_t tshift, tfast;
	uint64_t period;
	uint64_t fields; /* HWS_SF_CPU / HWS_SF_PERIOD */
	uint32_t tid;	 /* chunk's tid, 0 when none (-1 or 0) */
};

/* a record starts: the slots rec_to_sample() reads unconditionally back to 0 */
static inline void rec_clear_slots(struct spe_record *r)
{
	memset(&r->addr[SPE_ADDR_PC], 0, 4 * sizeof(r->addr[0])); /* PC, TGT, VA, PA */
	memset(&r->lat[SPE_CNT_TOTAL], 0, 3 * sizeof(r->lat[0])); /* TOTAL, ISSUE, XLAT */
}

static void stream_reset(struct spe_stream *st)
{
	st->buf_len = 0;
	st->buf_parsed = 0;
	st->in_record = 0;
	st->rec.present = 0;
	st->rec.events = 0;
	rec_clear_slots(&st->rec);
}

static void rec_start_new(struct spe_stream *st)
{
	st->in_record = 1;
	st->rec.present = 0;
	st->rec.events = 0;
	rec_clear_slots(&st->rec);
}

static void stream_midr(struct decode_ctx *dc)
{
	struct spe_stream *st = dc->st;
	uint32_t cpu = dc->chunk->cpu;
	uint8_t table;

	st->midr = spe_file_midr(dc->fi, cpu);
	table = (uint8_t)midr_table(st->midr);
	if (table != st->ds_table || !st->midr_cpu_valid)
		memset(st->memo, 0, sizeof(st->memo));
	st->ds_table = table;
	st->midr_cpu = cpu;
	st->midr_cpu_valid = 1;
}

/*
 * Emit the finished record st->rec. @s is the chunk's sample template: zeroed once, the
 * chunk-invariant members set; every member that differs between records is written here,
 * so no per-record clearing of the whole struct.
 */
static int emit_record(struct decode_ctx *dc, struct hws_sample *s, const uint8_t *raw,
		       uint32_t raw_len, uint64_t raw_pos)
{
	struct spe_stream *st = dc->st;
	const struct hws_aux_chunk *ch = dc->chunk;
	const struct spe_record *r = &st->rec;
	uint32_t pr = r->present, tid;
	uint64_t fields = dc->fields | HWS_SF_RAW;

	if (__builtin_expect(st->resync, 0)) {
		st->resync = 0;
		st->nr_dropped++;
		dc->priv->nr_dropped++;
		return 0;
	}
	/* the record's own members first: fewer values live across the conversion */
	s->raw = raw;
	s->raw_size = raw_len;
	st->nr_records++;
	dc->priv->nr_records++;
	dc->priv->last_raw = raw;
	dc->priv->last_raw_pos = raw_pos;
	if (__builtin_expect(!st->midr_cpu_valid || st->midr_cpu != ch->cpu, 0))
		stream_midr(dc);
	s->fields = fields;
	rec_to_sample(r, st->ds_table, s, st->memo, dc->priv->optab, dc->priv->host);
	/* Linux writes the task's pid (the thread id) to CONTEXTIDR */
	tid = (pr & SPE_HAVE_CONTEXT) ? (uint32_t)r->context : dc->tid;
	s->pid = tid;
	s->tid = tid;
	fields = (pr & SPE_HAVE_CONTEXT) || dc->tid ? HWS_SF_PID : 0;
	st->nr_context += (pr >> 6) & 1; /* SPE_HAVE_CONTEXT */
	s->time = 0;
	if ((pr & SPE_HAVE_TS) && dc->tc) {
		uint64_t ts = r->ts, sh = dc->tshift;

		s->time = __builtin_expect(dc->tfast, 1)
			      ? dc->tzero + (ts >> sh) * dc->tmult +
				    (((ts & ((1ULL << sh) - 1)) * dc->tmult) >> sh)
			      : spe_tsc_to_perf_time(ts, dc->tc);
		fields |= HWS_SF_TIME;
	}
	s->fields |= fields;
	return dc->emit ? dc->emit(dc->ctx, s) : 0;
}

static void note_bad(struct decode_ctx *dc)
{
	struct spe_stream *st = dc->st;

	st->nr_bad++;
	dc->priv->nr_bad++;
	/* inside a record: drop it; what follows up to its END/TS is not trusted */
	if (st->in_record)
		st->resync = 1;
	stream_reset(st);
}

static int buf_append(struct spe_stream *st, const uint8_t *p, size_t n)
{
	if (st->buf_len + n > SPE_REC_MAX)
		return -1;
	memcpy(st->buf + st->buf_len, p, n);
	st->buf_len += (uint32_t)n;
	return 0;
}

static void too_long(struct decode_ctx *dc)
{
	struct spe_stream *st = dc->st;

	stream_reset(st);
	st->resync = 1; /* the rest of the record is dropped (and counted) at its END/TS */
}

static inline uint64_t ld_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* the fast loop needs this many bytes left: 1-byte header + 8-byte load, with margin */
#define FAST_MIN 16

/*
 * Header byte -> how the fast loop takes the packet (1-byte headers only; 0 = not taken:
 * extended headers and bad bytes go to the generic decoder):
 *   bits 3:0 packet length, 8:4 slot (enum spe_slot), 9 OR into the slot (EVENTS),
 *   10 ends the record, 11 taken, 17:12 payload mask shift (64 - 8 * size),
 *   30:18 SPE_HAVE_* bits.
 */
#define T_OR  (1U << 9)
#define T_END (1U << 10)
#define T_OK  (1U << 11)
#define T(len, slot, size, have, flags)                                                            \
	((uint32_t)(len) | (uint32_t)(slot) << 4 | (uint32_t)(64 - 8 * (size)) << 12 |             \
	 (uint32_t)(have) << 18 | T_OK | (flags))
#define T_PAYLOAD(h, slot, have, flags)                                                            \
	T(1 + (1 << (((h) >> 4) & 3)), slot, 1 << (((h) >> 4) & 3), have, flags)
#define T_ADDR(k)                                                                                  \
	[0xb0 + (k)] = T(9, SPE_SLOT_ADDR + (k), 8, (k) <= SPE_ADDR_PBT ? SPE_HAVE_PC << (k) : 0, 0)
#define T_LAT(k)                                                                                   \
	[0x98 + (k)] =                                                                             \
	    T(3, SPE_SLOT_LAT + (k), 2, (k) <= SPE_CNT_XLAT ? SPE_HAVE_LAT_TOTAL << (k) : 0, 0)

static const uint32_t hdr_tab[256] = {
    [0x00] = T(1, SPE_SLOT_SINK, 8, 0, 0),			      /* PAD */
    [0x01] = T(1, SPE_SLOT_SINK, 8, 0, T_END),			      /* END */
    [0x71] = T(9, SPE_SLOT_TS, 8, SPE_HAVE_TS, T_END),		      /* TIMESTAMP */
    [0x42] = T_PAYLOAD(0x42, SPE_SLOT_EVENTS, SPE_HAVE_EVENTS, T_OR), /* EVENTS */
    [0x52] = T_PAYLOAD(0x52, SPE_SLOT_EVENTS, SPE_HAVE_EVENTS, T_OR),
    [0x62] = T_PAYLOAD(0x62, SPE_SLOT_EVENTS, SPE_HAVE_EVENTS, T_OR),
    [0x72] = T_PAYLOAD(0x72, SPE_SLOT_EVENTS, SPE_HAVE_EVENTS, T_OR),
    [0x43] = T_PAYLOAD(0x43, SPE_SLOT_SOURCE, SPE_HAVE_SOURCE, 0), /* DATA_SOURCE */
    [0x53] = T_PAYLOAD(0x53, SPE_SLOT_SOURCE, SPE_HAVE_SOURCE, 0),
    [0x63] = T_PAYLOAD(0x63, SPE_SLOT_SOURCE, SPE_HAVE_SOURCE, 0),
    [0x73] = T_PAYLOAD(0x73, SPE_SLOT_SOURCE, SPE_HAVE_SOURCE, 0),
    [0x64] = T(5, SPE_SLOT_CONTEXT, 4, SPE_HAVE_CONTEXT, 0), /* CONTEXT */
    [0x65] = T(5, SPE_SLOT_CONTEXT, 4, SPE_HAVE_CONTEXT, 0),
    [0x66] = T(5, SPE_SLOT_CONTEXT, 4, SPE_HAVE_CONTEXT, 0),
    [0x67] = T(5, SPE_SLOT_CONTEXT, 4, SPE_HAVE_CONTEXT, 0),
    [0x48] = T(2, SPE_SLOT_OP, 1, SPE_HAVE_OP, 0), /* OP_TYPE */
    [0x49] = T(2, SPE_SLOT_OP, 1, SPE_HAVE_OP, 0),
    [0x4a] = T(2, SPE_SLOT_OP, 1, SPE_HAVE_OP, 0),
    [0x4b] = T(2, SPE_SLOT_OP, 1, SPE_HAVE_OP, 0),
    T_ADDR(0),
    T_ADDR(1),
    T_ADDR(2),
    T_ADDR(3),
    T_ADDR(4),
    T_ADDR(5),
    T_ADDR(6),
    T_ADDR(7),
    T_LAT(0),
    T_LAT(1),
    T_LAT(2),
    T_LAT(3),
    T_LAT(4),
    T_LAT(5),
    T_LAT(6),
    T_LAT(7),
};

/* @q starts an extended-header ADDRESS or COUNTER packet (2 bytes readable) */
static inline int ext_taken(const uint8_t *q)
{
	return (q[0] & 0xfc) == 0x20 && ((q[1] & 0xf8) == 0xb0 || (q[1] & 0xf8) == 0x98);
}

/*
 * Packet lengths of a block, computed for every byte position at once (GCC/clang vector
 * extensions: SSE2 on x86-64, NEON on arm64; AVX2 when the CPU has it), so the packet walk
 * advances with one load (len[pos]) instead of two dependent ones (header byte, then its
 * table entry): the walk is a chain of dependent loads and that chain sets the speed.
 * The walk uses the value only where it takes a 1-byte header (the length of an extended
 * header comes from its second byte's entry; at a bad byte the walk stops), and the length
 * of every taken 1-byte header is a function of its high nibble n: 1 for PAD / END (n 0),
 * else 1 + payload size (1 << n[1:0]). So one 16-entry table of n gives it (one byte
 * shuffle on AVX2), and the values at other bytes are never read.
 */
typedef uint8_t u8x16 __attribute__((vector_size(16)));

/* reads src[0 .. 18): a PAD (0) followed by PADs is taken with up to two of them (the walk
 * is a chain of dependent loads, and a PAD costs a whole step of it; stray PADs inside
 * records are 1 packet in 8 of the benchmark's) */
static inline void lens16(const uint8_t *src, uint8_t *dst)
{
	u8x16 h, h1, h2, n, x, l, z;

	memcpy(&h, src, 16);
	memcpy(&h1, src + 1, 16);
	memcpy(&h2, src + 2, 16);
	n = (h >> 4) & 15;
	/* 1 + (1 << x) for x = n[1:0] in 0..3 is x + 2 + (x >> 1) + (x == 3 ? 3 : 0); n 0: 1
	 * (all ones adds -1 to the 2 of x 0) */
	x = n & 3;
	l = x + 2 + (x >> 1) + ((u8x16)(x == 3) & 3) + (u8x16)(n == 0);
	/* PAD runs: + 1 for a PAD after this PAD, + 1 more for a third (all ones is -1) */
	z = (u8x16)(h == 0) & (u8x16)(h1 == 0);
	l = l - z - (z & (u8x16)(h2 == 0));
	memcpy(dst, &l, 16);
}

static inline uint8_t len1(uint8_t h) /* lens16() for one position, without PAD runs */
{
	return h < 0x10 ? 1 : (uint8_t)(1 + (1 << ((h >> 4) & 3)));
}

/* lens16() for position @j of the @n bytes at @d */
static inline uint8_t len1x(const uint8_t *d, size_t j, size_t n)
{
	if (d[j] || j + 1 >= n || d[j + 1])
		return len1(d[j]);
	return (uint8_t)(j + 2 < n && !d[j + 2] ? 3 : 2);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_LENS_AVX2 1

/* lens16() for the 32-byte groups of @cnt positions (src[0 .. cnt + 2) readable; the rest
 * is left to the caller): the length by high nibble (1 for n 0, else 1 + (1 << n[1:0])) as
 * one in-lane byte shuffle, so the 16-entry table is there once per 128-bit lane */
__attribute__((target("avx2"))) static size_t lens_avx2(const uint8_t *src, size_t cnt,
							uint8_t *dst)
{
	const __m256i tab = _mm256_setr_epi8(1, 3, 5, 9, 2, 3, 5, 9, 2, 3, 5, 9, 2, 3, 5, 9, 1, 3,
					     5, 9, 2, 3, 5, 9, 2, 3, 5, 9, 2, 3, 5, 9);
	const __m256i lo4 = _mm256_set1_epi8(15), zero = _mm256_setzero_si256();
	size_t j = 0;

	for (; j + 32 <= cnt; j += 32) {
		__m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(src + j));
		__m256i h1 = _mm256_loadu_si256((const __m256i *)(const void *)(src + j + 1));
		__m256i h2 = _mm256_loadu_si256((const __m256i *)(const void *)(src + j + 2));
		__m256i n = _mm256_and_si256(_mm256_srli_epi16(h, 4), lo4);
		__m256i l = _mm256_shuffle_epi8(tab, n);
		__m256i z =
		    _mm256_and_si256(_mm256_cmpeq_epi8(h, zero), _mm256_cmpeq_epi8(h1, zero));

		l = _mm256_sub_epi8(l, z);
		l = _mm256_sub_epi8(l, _mm256_and_si256(z, _mm256_cmpeq_epi8(h2, zero)));
		_mm256_storeu_si256((__m256i *)(void *)(dst + j), l);
	}
	return j;
}
#endif

#define FAST_BLK 256 /* positions per lens block */

/*
 * The fast loop's view of hdr_tab[] (struct spe_fast_ent, made once per instance): what a
 * header byte does as masks and bytes the loop uses as they are, so a packet costs no shifts
 * or flag tests. A byte the loop does not take (extended header, bad byte: hdr_tab 0) has
 * zero masks, no SPE_HAVE_* bits and the sink slot, so the loop's unconditional stores
 * change nothing before it looks at ctl. Those bytes, END and TIMESTAMP also have FAST_STOP
 * in @have: ORed into the record's bits with the rest, it tells the loop to look at ctl,
 * with no load or compare of its own a packet.
 */
#define FAST_STOP (1U << 31)

static void fast_tab_build(struct spe_fast_tab *ft)
{
	for (unsigned int h = 0; h < 256; h++) {
		uint32_t e = hdr_tab[h];
		struct spe_fast_ent *f = &ft->ent[h];

		memset(f, 0, sizeof(*f));
		f->slot = SPE_SLOT_SINK;
		ft->pmask[h] = 0;
		ft->evmask[h] = 0;
		f->have = FAST_STOP;
		if (!(e & T_OK))
			continue; /* FAST_SLOW */
		ft->pmask[h] = UINT64_MAX >> ((e >> 12) & 63);
		ft->evmask[h] = (e & T_OR) ? UINT64_MAX : 0;
		f->have = e >> 18 | ((e & T_END) ? FAST_STOP : 0);
		f->slot = (uint8_t)((e >> 4) & 31);
		f->ctl = (e & T_END) ? FAST_END : FAST_GO;
		f->len = (uint8_t)(e & 15);
	}
}

/* lens of the block [k, k + FAST_BLK) (or to the chunk's end) into @lbuf */
static inline void lens_fill(const uint8_t *d, size_t n, size_t k, uint8_t *lbuf, size_t *le,
			     int avx2)
{
	size_t j = 0, cnt = n - k < FAST_BLK ? n - k : FAST_BLK;
	/* the vector paths read two bytes past each position */
	size_t cntv = n - k >= cnt + 2 ? cnt : n - k >= 2 ? n - k - 2 : 0;

#ifdef HAVE_LENS_AVX2
	if (avx2)
		j = lens_avx2(d + k, cntv, lbuf);
#else
	(void)avx2;
#endif
	for (; j + 16 <= cntv; j += 16)
		lens16(d + k + j, lbuf + j);
	for (; j < cnt; j++)
		lbuf[j] = len1x(d, k + j, n);
	*le = k + cnt;
}

/* @d + @rs, where a record ends in a non-zero byte: past the PADs (0) before its first packet.
 * Fewer than 8 without a branch on how many (1 in 8 records of the benchmark have some). */
static inline size_t skip_pads(const uint8_t *d, size_t rs)
{
	uint64_t x = ld_le64(d + rs);

	if (__builtin_expect(!x, 0)) {
		while (!d[rs])
			rs++;
		return rs;
	}
	return rs + ((unsigned int)__builtin_ctzll(x) >> 3);
}

/* fast_run()'s register copies back into @rec, with the fields derived from its slots */
static inline void rec_close(struct spe_record *rec, uint32_t pr, uint64_t ev)
{
	rec->present = pr;
	rec->events = ev;
	rec->op_class = rec->hdr[SPE_SLOT_OP] & 3;
	rec->op_payload = (uint8_t)rec->op;
	rec->ctx_index = rec->hdr[SPE_SLOT_CONTEXT] & 3;
}

/*
 * Fast path: whole records while at least FAST_MIN bytes are left, @d[*pi] being the next
 * packet (st->in_record says whether a record is in progress; *prs is its start). Per
 * packet: one fast_ent lookup, one unaligned 8-byte little-endian load masked to the
 * payload, one store into the record's slot, its length from the block's lens (0 past the
 * block's end or the last fast position: the one bound test), one test of the record's bits
 * for FAST_STOP; at END/TIMESTAMP the record is emitted and the next one started after any PADs,
 * without leaving the loop. Returns 0 when fewer than FAST_MIN bytes are left, 2 at a header it
 * does not take (alignment, bad byte: the generic decoder decides), 3 when the callback returned
 * non-zero (in *pret). The record in progress is in st->rec on return.
 */
static int fast_run(struct decode_ctx *dc, struct hws_sample *s, const uint8_t *d, size_t n,
		    size_t *pi, size_t *prs, int *pret)
{
	struct spe_stream *st = dc->st;
	struct spe_record *rec = &st->rec;
	const struct spe_fast_tab *ft = &dc->priv->ftab;
	/* the walk moves a pointer: p is d + k, plim the last position it takes (d + lim),
	 * ple the end of the lens block */
	const uint8_t *p = d + *pi, *plim = d + (n - FAST_MIN), *ple = d;
	/* the block's lens, then 0 where the walk must leave the loop (see refill) */
	uint8_t lbuf[FAST_BLK + 16] __attribute__((aligned(16)));
	ptrdiff_t lens = 0; /* p[lens]: the length of the packet at p (inside the block) */
	size_t rs = *prs, le;
	uint64_t base = dc->chunk->offset;
	uint32_t pr = rec->present;
	uint64_t ev = rec->events;
	int ret = 0, r;

	if (!st->in_record) {
		/* a record starts here: PADs before its first packet are dropped at its end
		 * (or at out) */
		st->in_record = 1;
		rs = (size_t)(p - d);
		pr = 0;
		ev = 0;
		rec_clear_slots(rec);
	}
	if (p > plim)
		goto out;
refill:
	/* here plim >= p >= ple: lens for the block at p */
	lens_fill(d, n, (size_t)(p - d), lbuf, &le, dc->priv->lens_avx2);
	lens = lbuf - p;
	ple = d + le;
	/* length 0, the loop's one bound test: from the block's end (a packet passes it by at
	 * most 9 bytes) and from the first position past plim */
	memset(lbuf + (ple - p), 0, 16);
	if (plim + 1 < ple)
		memset(lbuf + (plim + 1 - p), 0, (size_t)(ple - (plim + 1)));
	for (;;) {
		size_t len = p[lens];
		uint8_t h;
		const struct spe_fast_ent *e;
		uint64_t w;

		if (__builtin_expect(!len, 0)) {
			if (p > plim)
				goto out;
			goto refill; /* p >= ple */
		}
		/* p <= plim and p < ple: p[0 .. FAST_MIN) is in the chunk */
		h = *p;
		e = &ft->ent[h];
		w = ld_le64(p + 1) & ft->pmask[h];
		ev |= w & ft->evmask[h];
		rec->v[e->slot] = w;
		rec->hdr[e->slot] = h;
		pr |= e->have;
		if (__builtin_expect(pr & FAST_STOP, 0)) {
			const struct spe_fast_ent *e1;
			uint32_t have;
			unsigned int slot;

			pr &= ~FAST_STOP;
			if (e->ctl == FAST_END) {
				p += len;
				goto end;
			}
			/* extended ADDRESS / COUNTER header: the second byte's entry, one byte
			 * longer, payload after two header bytes; indexes >= 8 are kept nowhere */
			if (!ext_taken(p)) {
				ret = 2;
				goto out;
			}
			e1 = &ft->ent[p[1]];
			slot = (h & 3) ? SPE_SLOT_SINK : e1->slot;
			have = (h & 3) ? 0 : e1->have;
			rec->v[slot] = ld_le64(p + 2) & ft->pmask[p[1]];
			pr |= have;
			len = (size_t)e1->len + 1;
		}
		p += len; /* in place: a separate next pointer costs a register copy a packet */
		continue;
	end:
		rec_close(rec, pr, ev);
		st->in_record = 0;
		rs = skip_pads(d, rs); /* PADs before a record are not part of it */
		r = emit_record(dc, s, d + rs, (uint32_t)((size_t)(p - d) - rs), base + rs);
		if (r) {
			*pret = r;
			ret = 3;
			goto out;
		}
		/* the next record starts right here, whatever comes (PADs, an extended or bad
		 * header: the loop's slow path, and out, sort them out) */
		st->in_record = 1;
		rs = (size_t)(p - d);
		pr = 0;
		ev = 0;
		rec_clear_slots(rec);
	}
out:
	if (st->in_record) {
		/* the record starts at its first packet; only PADs so far: no record yet */
		while (rs < (size_t)(p - d) && !d[rs])
			rs++;
		if (rs == (size_t)(p - d))
			st->in_record = 0;
	}
	rec_close(rec, pr, ev);
	*pi = (size_t)(p - d);
	*prs = rs;
	return ret;
}

int spe_aux_decode(void *priv, void *stream, const struct hws_file_info *fi,
		   const struct hws_aux_chunk *chunk, hws_sample_fn emit, void *ctx)
{
	struct decode_ctx dc = {priv, stream, fi, chunk, emit, ctx, NULL, 0, 0, 0, 0, 0, 0, 0};
	struct hws_sample s;
	struct spe_stream *st = stream;
	const uint8_t *d = chunk->data;
	size_t n = (size_t)chunk->size, i = 0;
	size_t rec_start = 0;		/* chunk index of the record start (unbuffered) */
	int buffered = st->buf_len > 0; /* record bytes live in st->buf */
	uint64_t base = chunk->offset;
	struct spe_pkt p;
	int r, ret;

	if (chunk->gap) {
		st->nr_gaps++;
		stream_reset(st);
		st->resync = 0;
		buffered = 0;
	}
	if (!d || !n)
		return 0;
	if (!dc.priv->optab_ready) {
		optab_build(dc.priv);
		fast_tab_build(&dc.priv->ftab);
#ifdef HAVE_LENS_AVX2
		__builtin_cpu_init();
		/* HWS_HOST_NO_SIMD: the SSE2 path on an AVX2 CPU (the e2e test compares both) */
		dc.priv->lens_avx2 = __builtin_cpu_supports("avx2") != 0 &&
				     !(HWS_HOST_HAS(dc.priv->host, flags) &&
				       (dc.priv->host->flags() & HWS_HOST_NO_SIMD));
#endif
	}
	dc.tc = fi ? fi->time_conv : NULL;
	if (dc.tc && !dc.tc->cap_user_time_short && dc.tc->time_shift < 64) {
		dc.tfast = 1;
		dc.tshift = (uint32_t)dc.tc->time_shift;
		dc.tmult = dc.tc->time_mult;
		dc.tzero = dc.tc->time_zero;
	}
	if (chunk->attr && !chunk->attr->freq && chunk->attr->sample_period) {
		dc.period = chunk->attr->sample_period;
		dc.fields |= HWS_SF_PERIOD;
	}
	if (chunk->tid != UINT32_MAX)
		dc.tid = chunk->tid;
	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	s.backend = "arm_spe";
	s.period = dc.period;
	if (chunk->cpu != UINT32_MAX) {
		s.cpu = chunk->cpu;
		dc.fields |= HWS_SF_CPU;
	}

	/* 1. finish a packet split across the previous chunk and this one */
	while (st->buf_len > st->buf_parsed && i < n) {
		size_t added = 0;

		do {
			if (buf_append(st, d + i, 1)) {
				too_long(&dc);
				buffered = 0;
				r = 0;
				break;
			}
			i++;
			added++;
			r = spe_pkt__get_inline(st->buf + st->buf_parsed,
						st->buf_len - st->buf_parsed,
						st->pos + st->buf_parsed, &p);
		} while (r == HWS_E_NEED_MORE && i < n);
		if (r == 0)
			break;
		if (r == HWS_E_NEED_MORE)
			return 0; /* whole chunk swallowed by this packet */
		if (r < 0) {
			/* skip the first byte of the broken packet, re-read what we took */
			i -= added;
			note_bad(&dc);
			buffered = 0;
			break;
		}
		if (p.type == SPE_PKT_PAD || p.type == SPE_PKT_ALIGN) {
			if (!st->in_record) {
				stream_reset(st);
				buffered = 0;
				break;
			}
		} else if (!st->in_record) {
			rec_start_new(st);
		}
		buffered = 1;
		st->buf_parsed = st->buf_len;
		if (spe_record__add_inline(&st->rec, &p)) {
			ret = emit_record(&dc, &s, st->buf, st->buf_len, st->pos);
			stream_reset(st);
			buffered = 0;
			if (ret)
				return ret;
		}
	}
	/* 2. packets wholly inside this chunk */
	while (i < n) {
		if (__builtin_expect(!buffered && n - i >= FAST_MIN, 1)) {
			if (fast_run(&dc, &s, d, n, &i, &rec_start, &ret) == 3)
				return ret;
			/* fewer than FAST_MIN bytes left, or not a fast header */
		}
		r = spe_pkt__get_inline(d + i, n - i, base + i, &p);
		if (r == HWS_E_NEED_MORE)
			break;
		if (r < 0) {
			note_bad(&dc);
			buffered = 0;
			i++;
			continue;
		}
		if (!st->in_record) {
			if (p.type == SPE_PKT_PAD || p.type == SPE_PKT_ALIGN) {
				i += (size_t)r;
				continue;
			}
			rec_start_new(st);
			rec_start = i;
			buffered = 0;
		}
		if (buffered && buf_append(st, d + i, (size_t)r)) {
			too_long(&dc);
			buffered = 0;
			i += (size_t)r;
			continue;
		}
		if (spe_record__add_inline(&st->rec, &p)) {
			i += (size_t)r;
			if (buffered)
				ret = emit_record(&dc, &s, st->buf, st->buf_len, st->pos);
			else
				ret = emit_record(&dc, &s, d + rec_start, (uint32_t)(i - rec_start),
						  base + rec_start);
			stream_reset(st);
			buffered = 0;
			if (ret)
				return ret;
			continue;
		}
		i += (size_t)r;
	}

	/* 3. keep the unfinished record (and a trailing partial packet) for the next chunk */
	if (st->in_record && buffered) {
		/* complete packets are already in buf; add the partial one */
		st->buf_parsed = st->buf_len;
		if (buf_append(st, d + i, n - i))
			too_long(&dc);
	} else if (st->in_record || i < n) {
		size_t from = st->in_record ? rec_start : i;

		st->buf_len = 0;
		st->pos = base + from;
		st->buf_parsed = (uint32_t)(i - from);
		if (buf_append(st, d + from, n - from))
			too_long(&dc);
	} else {
		st->buf_len = 0;
		st->buf_parsed = 0;
	}
	return 0;
}

int spe_aux_flush(void *priv, void *stream, const struct hws_file_info *fi, hws_sample_fn emit,
		  void *ctx)
{
	struct spe_stream *st = stream;
	struct spe_priv *sp = priv;

	if (st->in_record || st->buf_len) {
		st->nr_dropped++;
		sp->nr_dropped++;
	}
	stream_reset(st);
	st->resync = 0;
	if (st->nr_bad || st->nr_dropped)
		sp->host->log(HWS_LOG_WARN,
			      "arm_spe: cpu %d: %" PRIu64 " bad packet(s), %" PRIu64
			      " record(s) dropped, %" PRIu64 " decoded\n",
			      st->midr_cpu_valid ? (int)st->midr_cpu : -1, st->nr_bad,
			      st->nr_dropped, st->nr_records);
	if (st->nr_records && !st->nr_context && !sp->warned_context) {
		sp->warned_context = 1;
		sp->host->log(HWS_LOG_INFO,
			      "arm_spe: no CONTEXT packets: samples carry no pid unless the "
			      "recording was per-thread (the kernel needs "
			      "CONFIG_PID_IN_CONTEXTIDR)\n");
	}
	return 0;
}
