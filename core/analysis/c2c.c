// SPDX-License-Identifier: MIT
/*
 * c2c analysis: samples -> cache lines -> offsets -> false/true sharing.
 *
 * Invariants:
 *  - only struct hws_sample is read (vendor-neutral); the per-sample classification follows
 *    perf's c2c_decode_stats() on the perf_mem_data_src value, and falls back to the
 *    normalized mem_level/snoop when data_src carries no level (lvl NA / 0);
 *  - a line is keyed by its virtual address & ~(line_size - 1) alone, as perf c2c does for
 *    file-backed and shared maps (so processes sharing memory at one address meet; private
 *    memory of forked processes at the same address is merged too - the pid column shows
 *    it); its pid is the first sample's, used for symbols. An entry is keyed by (data
 *    address, pid, tid, code address). Both live in flat arrays indexed by open-addressing
 *    hash tables (slot = index + 1, 0 = empty), grown at half load; entries of one line are
 *    chained through ->next; lines and entries are created in sample order;
 *  - per sample: no allocation (tables grow by doubling), no symbol lookup.
 *    hws_c2c__add() classifies the sample (memoized per data_src/op kind: a kind is a
 *    distinct counter mask and coherence source) and counts it in the first two cache
 *    lines of its entry: one probe of the entry table, the count and latency sum of the
 *    kind's slot (each entry keeps NSLOT kinds, claimed in sample order; other kinds go to
 *    a counter vector of enum cnt positions in the entry's side record, c->xcnt), the CPU
 *    bit, and the latency in the line's direct counters or, without them, a (line,
 *    latency) pair appended to a buffer that is counted into the lines' histograms a
 *    batch at a time. Counters are u32: saturating is not needed below 4G samples per
 *    entry. NUMA nodes are the nodes of the entry's CPU bits, looked up in __finish()
 *    (CPUs >= 256, whose bits alias, go to the side record with their nodes). Once the
 *    entries outgrow the L2 cache, samples are queued and counted in batches with
 *    prefetches (pend_flush), in the same order. __finish() turns the slots into the
 *    entries' counters (c[], lat) and coherence sources; line counters and totals are the
 *    entries' sums;
 *  - memory: one entry (256 bytes) per distinct key, one line per line, a latency
 *    histogram per line (bounded, see struct lhist), a side record per entry that saw
 *    more than NSLOT kinds or a CPU >= 256, fixed-size queues; symbols are resolved in
 *    __finish() for the reported lines only, once per distinct (pid, address), and shared
 *    by the entries (by index in c->syms);
 *  - after __finish() the object is read-only: report order, classification and the
 *    symbol strings (copied, owned here in c->syms) never change.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include <hwsample/c2c.h>

#include "util/internal.h"

enum cnt {
	C_RECORDS,
	C_LOADS,
	C_STORES,
	C_LOCKS,
	C_LCL_HITM,
	C_RMT_HITM,
	C_LCL_PEER,
	C_RMT_PEER,
	C_RMT_HIT,
	C_LD_FB,
	C_LD_L1,
	C_LD_L2,
	C_LD_LLC,
	C_LD_UNC,
	C_LD_IO,
	C_LCL_DRAM,
	C_RMT_DRAM,
	C_ST_L1HIT,
	C_ST_L1MISS,
	C_ST_NA,
	C_RMW, /* locked / atomic load: a read-modify-write, so a write too */
	NC,
	NCP = (NC + 3) & ~3, /* counter vectors (kinds, side records) padded to 4 x u32 */
};

#define BIT(x)	   (1U << (x))
#define NONE	   UINT32_MAX
#define MAX_UNITS  4096 /* per line, for the pair analysis */
#define NODE_CACHE 1024
#define LBUF_MAX   65536 /* latencies buffered before they are counted per line */

/* Sources of coherence evidence, by backend. */
enum { SRC_PEBS, SRC_IBS, SRC_SPE, SRC_OTHER, NR_SRC };
static const char *const src_text[NR_SRC] = {
    "Intel PEBS data_src",
    "AMD IBS DataSrc/CacheHitSt",
    "Arm SPE data source",
    "perf data_src",
};

struct lat {
	uint64_t sum, lcl_hitm, rmt_hitm, peer;
	uint64_t n;
};

/*
 * Load latencies of one line, for its percentiles: exact counts per distinct value in a
 * small open-addressing table (n == 0: empty slot) while a line has at most LH_SPARSE_MAX
 * distinct values (hardware latencies are u16 cycle counts: far fewer in practice); past
 * that, log-linear buckets (exact below 2^(LH_MBITS+1), relative error < 2^-LH_MBITS above).
 * Samples append (line, value) to one buffer of LBUF_MAX pairs, counted into the lines a
 * batch at a time (a sequential write per sample instead of a probe of the line's table).
 * A line with LH_SMALL_AFTER loads gets direct counters for the values below LH_SMALL (most
 * load latencies), one increment without a probe, through the pointer its entries keep
 * (entry->small). @total counts the values added through lh_add() (all of them until
 * there are direct counters); lh_nr() counts them all.
 * Memory per line: LH_SMALL counters, plus at most 2 * LH_SPARSE_MAX slots or LH_DENSE
 * counters.
 */
#define LH_SMALL       1024
#define LH_SMALL_AFTER 256
#define LH_SPARSE_MAX  4096
#define LH_MBITS       10
#define LH_EXACT       (2U << LH_MBITS)
#define LH_DENSE       (LH_EXACT + (32 - LH_MBITS - 1) * (1U << LH_MBITS))

struct lh_slot {
	uint32_t v, n;
};

struct lhist {
	uint32_t *small;   /* counts of values < LH_SMALL (lines with >= LH_SMALL_AFTER loads) */
	struct lh_slot *t; /* values the other arrays do not take */
	uint32_t size, used;
	uint32_t *dense;
	uint64_t total;
};

/*
 * An entry: its first two cache lines are all a sample reads or writes (the key, compared
 * when probing, then the slots); the rest is set up once or in __finish().
 */
#define NSLOT	  4	      /* kinds counted in an entry's slots */
#define KFREE	  0xfe	      /* kid byte of a free slot (kinds are < MAX_KINDS) */
#define KFREE_ALL 0xfefefefeU /* four free slots */
struct entry {
	uint64_t addr, ip; /* data and code address */
	uint32_t pid, tid;
	uint32_t kid;	    /* byte k: the kind (c->kinds index) of slot k, KFREE if free */
	uint32_t kn[NSLOT]; /* samples of slot k */
	uint32_t lat_n;	    /* samples with a latency */
	uint16_t width;
	uint8_t src_mask; /* SRC_* bits of coherence samples without a slot (all: __finish) */
	uint32_t line;
	uint32_t *small; /* the line's lh.small (direct counters), NULL until made; not after
			  * __finish */
	union {
		uint64_t klat[NSLOT]; /* latency sum of slot k (until __finish) */
		struct {
			uint64_t sum, lcl_hitm, rmt_hitm, peer;
		} lat; /* latency sums (__finish) */
	};
	uint64_t cpus[4]; /* bit cpu of CPUs < 256; from __finish bit cpu % 256 of any CPU */
	/* cold */
	uint32_t c[NC]; /* counters (__finish) */
	uint32_t xc;	/* c->xcnt index + 1 of the side record, 0: none */
	uint64_t nodes; /* bit per NUMA node < 64 (__finish) */
	uint32_t next, offset;
	uint32_t sym, dsym; /* c->syms index + 1 of the code and data symbols, 0: none */
	uint8_t in_false, in_true;
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct entry) == 256, "four cache lines");
_Static_assert(offsetof(struct entry, cpus) + sizeof(uint64_t) * 4 == 128,
	       "a sample touches the first two cache lines");

/* Side record of an entry: its samples whose kind has no slot, and its CPUs >= 256. */
struct xcnt {
	uint32_t c[NCP]; /* counters */
	uint64_t sum, lcl_hitm, rmt_hitm, peer;
	uint64_t cpus_hi[4]; /* bit cpu % 64 of word (cpu / 64) % 4 */
	uint64_t nodes_hi;   /* their nodes */
};

struct line {
	uint64_t addr;
	uint32_t pid;
	uint32_t first, nr_entries;
	uint8_t cls;
	uint8_t src_mask; /* SRC_* bits of coherence samples */
	uint8_t symbolized;
	uint8_t inferred; /* classified from coherence misses alone (no store sampled) */
	uint32_t evidence;
	float conf;
	uint64_t c[NC]; /* sums of the entries' counters (__finish) */
	struct lat lat; /* sum of the entries' latencies (__finish) */
	uint64_t cpus[4];
	uint64_t nodes;
	struct lhist lh;
	uint32_t nr_threads, nr_cpus, nr_nodes, nr_offsets;
	uint32_t p50, p90, p99;
	uint64_t false_off, true_off;
	uint32_t *order; /* entries in offset order (reported lines) */
	char *evidence_text;
	const char *data_symbol; /* owned by c->syms */
};

/*
 * classify() reads only data_src, whether data_src and op are valid, op, op_flags, mem_level
 * and snoop: a file has few distinct combinations, so the mask is memoized per combination
 * (direct-mapped) instead of re-running its data-dependent branches for every sample.
 */
#define CLS_MEMO 256
struct cls_memo {
	uint64_t ds;
	uint64_t rest; /* memo_rest(); bit 2: valid */
	const char *backend;
	uint32_t m;
	uint8_t kind;	 /* index in c->kinds, NO_KIND if they are full */
	uint8_t src_bit; /* 1 << SRC_* if m has a coherence event, else 0 */
	uint8_t load;	 /* m counts a load (its latency is kept) */
};

/*
 * A kind of sample (a distinct counter mask and coherence source): its counters as a vector
 * of 0/1, and all-ones masks for the latency sums it feeds, to turn an entry's slot counts
 * and latency sums into counters and source bits (__finish), or to add a sample to an
 * entry's side record.
 */
#define MAX_KINDS 64
#define NO_KIND	  0xff
_Static_assert(MAX_KINDS <= KFREE && NSLOT == 4, "kind indexes fit a kid byte, beside KFREE");
struct kind {
	uint32_t dv[NCP];
	uint64_t lcl_hitm, rmt_hitm, peer; /* ~0 if the latency counts in that sum */
	uint32_t m;
	uint8_t src_bit; /* 1 << SRC_* if m has a coherence event, else 0 */
};

/* A sample queued for pend_flush(). */
#define NR_PEND		  1024
#define PEND_PREFETCH	  8
#define PREFETCH_MIN_ENTS 4096 /* ~1 MiB of entries */
struct pend {
	uint64_t addr, ip, key;	     /* key: ent_key() */
	uint32_t pid, tid, cpu, lat; /* lat: 0 without a latency */
	uint32_t m;		     /* counter bits */
	uint16_t width;
	uint8_t src_bit; /* 1 << SRC_* of a coherence sample, else 0 */
	uint8_t has_lat;
	uint8_t kind; /* c->kinds index, or NO_KIND */
};

/* Entry hash slot: upper half of the key's hash (cheap reject) and entry index + 1 (0 = empty). */
struct eslot {
	uint32_t tag, idx;
};

/* Memoized symbol of one (pid, address): strings owned here, shared by the entries. */
struct symrec {
	uint64_t addr;
	uint32_t pid;
	uint8_t data;
	char *symbol, *dso, *srcline;
};

struct hws_c2c {
	struct hws_c2c_opts o;
	uint32_t shift;
	struct line *lines;
	uint32_t nr_lines, cap_lines;
	uint32_t *lhash;
	uint32_t lhash_size;
	struct entry *ents; /* 64-byte aligned, in ents_mem */
	char *ents_mem;
	uint32_t nr_ents, cap_ents;
	struct xcnt *xcnt; /* counters of the kinds without a slot in their entry */
	uint32_t nr_xcnt, cap_xcnt;
	struct eslot *ehash;
	uint32_t ehash_size;
	uint64_t *lbuf; /* (line << 32 | latency) of the latest loads, counted in batches */
	uint32_t nr_lbuf, cap_lbuf;
	uint64_t tot[NC]; /* samples without an address; entries are added in __finish */
	uint64_t noaddr, other;
	struct lat tlat;
	uint8_t src_seen;		/* __finish */
	uint64_t src_count[NR_SRC];	/* __finish */
	uint64_t src_cnt[NR_SRC];	/* coherence samples per SRC_* (slots: __finish) */
	struct cls_memo memo[CLS_MEMO]; /* classify() of recent sample kinds */
	struct kind kinds[MAX_KINDS];
	uint32_t nr_kinds;
	struct pend pend[NR_PEND]; /* samples not counted yet */
	uint32_t nr_pend;
	uint32_t *report;
	uint32_t nr_report;
	struct symrec *syms; /* symbol memo (__finish) */
	uint32_t nr_syms, cap_syms;
	uint32_t *shash;
	uint32_t shash_size;
	int16_t node_cache[NODE_CACHE]; /* node + 2 of a CPU, 0 = not asked yet */
	struct hws_c2c_stats totals;	/* filled by __finish */
	bool finished;
	char *line_size_source;
	hws_c2c_out_fn out_fn; /* rendered text goes here in pieces (hws_c2c__set_output) */
	void *out_ctx;
};

/* ---------------------------------------------------------------- helpers */

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > UINT32_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	q = realloc(*p, (size_t)n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/*
 * grow() for the entries: 64-byte aligned, so an entry's hot part is two cache lines. realloc
 * (which moves large blocks by remapping, without a copy) with room to align; the entries
 * move only when the block's alignment changed.
 */
static int grow_ents(struct hws_c2c *c, uint32_t need)
{
	size_t old = c->ents ? (size_t)((char *)c->ents - c->ents_mem) : 0, off;
	uint32_t n = c->cap_ents ? c->cap_ents : 64;
	char *q;

	if (need <= c->cap_ents)
		return 0;
	while (n < need) {
		if (n > UINT32_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	q = realloc(c->ents_mem, (size_t)n * sizeof(struct entry) + 63);
	if (!q)
		return -ENOMEM;
	off = (64 - ((uintptr_t)q & 63)) & 63;
	if (off != old && c->nr_ents)
		memmove(q + off, q + old, (size_t)c->nr_ents * sizeof(struct entry));
	c->ents_mem = q;
	c->ents = (struct entry *)(void *)(q + off);
	c->cap_ents = n;
	return 0;
}

static int rehash(uint32_t **tab, uint32_t *size, uint32_t nr,
		  uint64_t (*key)(struct hws_c2c *, uint32_t), struct hws_c2c *c)
{
	uint32_t nsize = *size ? *size * 2 : 1024, i;
	uint32_t *t;

	if (nsize < *size)
		return -ENOMEM;
	t = calloc(nsize, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		uint32_t h = (uint32_t)key(c, i) & (nsize - 1);

		while (t[h])
			h = (h + 1) & (nsize - 1);
		t[h] = i + 1;
	}
	free(*tab);
	*tab = t;
	*size = nsize;
	return 0;
}

static void lh_free(struct lhist *h)
{
	free(h->small);
	free(h->t);
	free(h->dense);
	memset(h, 0, sizeof(*h));
}

static uint64_t line_key(uint64_t addr, uint32_t pid)
{
	(void)pid;
	return mix64(addr);
}

static uint64_t line_hash(struct hws_c2c *c, uint32_t i)
{
	return line_key(c->lines[i].addr, c->lines[i].pid);
}

/* pid and tid as one word: the 8 bytes of an entry's pid, tid (on either byte order). */
_Static_assert(offsetof(struct entry, tid) == offsetof(struct entry, pid) + 4, "pid, tid");
static inline uint64_t pid_tid(uint32_t pid, uint32_t tid)
{
	uint32_t a[2] = {pid, tid};
	uint64_t v;

	memcpy(&v, a, sizeof(v));
	return v;
}

/*
 * Hash of an entry key: three independent multiplies (short dependency chain on the per-sample
 * path) and a fold of the high half, where the products mix best, into the low bits (slot).
 */
static inline uint64_t ent_key(uint64_t addr, uint32_t pid, uint32_t tid, uint64_t ip)
{
	uint64_t x = addr * 0x9e3779b97f4a7c15ULL + ip * 0xc2b2ae3d27d4eb4fULL +
		     pid_tid(pid, tid) * 0x165667b19e3779f9ULL;

	return x ^ (x >> 29);
}

static int ehash_grow(struct hws_c2c *c)
{
	uint32_t nsize = c->ehash_size ? c->ehash_size * 2 : 1024, i;
	struct eslot *t;

	if (nsize < c->ehash_size)
		return -ENOMEM;
	t = calloc(nsize, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = 0; i < c->nr_ents; i++) {
		const struct entry *e = &c->ents[i];
		uint64_t k = ent_key(e->addr, e->pid, e->tid, e->ip);
		uint32_t h = (uint32_t)k & (nsize - 1);

		while (t[h].idx)
			h = (h + 1) & (nsize - 1);
		t[h].tag = (uint32_t)(k >> 32);
		t[h].idx = i + 1;
	}
	free(c->ehash);
	c->ehash = t;
	c->ehash_size = nsize;
	return 0;
}

const char *hws_c2c_class__name(unsigned int cls)
{
	static const char *const names[HWS_C2C__CLASS_MAX] = {
	    "private", "read-shared", "false-sharing", "true-sharing", "mixed", "unresolved",
	};

	return cls < HWS_C2C__CLASS_MAX ? names[cls] : "unknown";
}

/* ---------------------------------------------------------------- new/delete */

struct hws_c2c *hws_c2c__new(const struct hws_c2c_opts *opts)
{
	struct hws_c2c *c;
	uint32_t ls;
	int err;

	c = calloc(1, sizeof(*c));
	if (!c)
		return errno = ENOMEM, NULL;
	err = HWS_OPTS_GET(c->o, opts, hws_c2c_opts);
	if (err) {
		free(c);
		return errno = -err, NULL;
	}
	ls = c->o.line_size ? c->o.line_size : 64;
	if (ls < 16 || ls > 4096 || (ls & (ls - 1))) {
		free(c);
		return errno = EINVAL, NULL;
	}
	c->o.line_size = ls;
	c->shift = (uint32_t)__builtin_ctz(ls);
	if (!c->o.top)
		c->o.top = 10;
	c->line_size_source = strdup(c->o.line_size_source ? c->o.line_size_source : "default");
	c->o.line_size_source = c->line_size_source;
	if (!c->line_size_source || ehash_grow(c)) {
		free(c->line_size_source);
		free(c);
		return errno = ENOMEM, NULL;
	}
	return c;
}

void hws_c2c__delete(struct hws_c2c *c)
{
	uint32_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_lines; i++) {
		lh_free(&c->lines[i].lh);
		free(c->lines[i].order);
		free(c->lines[i].evidence_text);
	}
	for (i = 0; i < c->nr_syms; i++) {
		free(c->syms[i].symbol);
		free(c->syms[i].dso);
		free(c->syms[i].srcline);
	}
	free(c->syms);
	free(c->shash);
	free(c->lines);
	free(c->ents_mem);
	free(c->xcnt);
	free(c->lhash);
	free(c->ehash);
	free(c->report);
	free(c->lbuf);
	free(c->line_size_source);
	free(c);
}

/* ---------------------------------------------------------------- per-sample */

static int src_of(const char *backend)
{
	if (!backend)
		return SRC_OTHER;
	if (!strcmp(backend, "intel_pebs"))
		return SRC_PEBS;
	if (!strcmp(backend, "amd_ibs"))
		return SRC_IBS;
	if (!strcmp(backend, "arm_spe"))
		return SRC_SPE;
	return SRC_OTHER;
}

/*
 * Counter mask of one sample with an address, following perf's c2c_decode_stats(); 0 if the
 * sample is neither a load nor a store.
 */
static uint32_t classify(const struct hws_sample *s)
{
	union perf_mem_data_src ds = {.val = s->data_src};
	bool has_ds = (s->fields & HWS_SF_DATA_SRC) != 0;
	uint64_t op = has_ds ? ds.mem_op : 0, lvl = has_ds ? ds.mem_lvl : 0;
	uint64_t snoop = has_ds ? ds.mem_snoop : 0, snoopx = has_ds ? ds.mem_snoopx : 0;
	bool load, store, mrem = has_ds && ds.mem_remote && !ds.mem_hops;
	uint32_t m = 0;

	load = (op & PERF_MEM_OP_LOAD) || (!(op & (PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE)) &&
					   (s->fields & HWS_SF_OP) && s->op == HWS_OP_LOAD);
	store = !load &&
		((op & PERF_MEM_OP_STORE) ||
		 (!(op & PERF_MEM_OP_LOAD) && (s->fields & HWS_SF_OP) && s->op == HWS_OP_STORE));
	if (!load && !store)
		return 0;
	m |= BIT(C_RECORDS);
	if ((has_ds && (ds.mem_lock & PERF_MEM_LOCK_LOCKED)) || (s->op_flags & HWS_OPF_LOCK))
		m |= BIT(C_LOCKS);

	if (store) {
		m |= BIT(C_STORES);
		if (lvl & ~(uint64_t)PERF_MEM_LVL_NA) {
			if ((lvl & PERF_MEM_LVL_HIT) && (lvl & PERF_MEM_LVL_L1))
				m |= BIT(C_ST_L1HIT);
			if ((lvl & PERF_MEM_LVL_MISS) && (lvl & PERF_MEM_LVL_L1))
				m |= BIT(C_ST_L1MISS);
			if (lvl & PERF_MEM_LVL_NA)
				m |= BIT(C_ST_NA);
		} else if (s->mem_level == HWS_MEM_L1 && s->snoop != HWS_SNOOP_MISS &&
			   !(lvl & PERF_MEM_LVL_NA)) {
			m |= BIT(C_ST_L1HIT);
		} else {
			m |= BIT(C_ST_NA);
		}
		return m;
	}

	m |= BIT(C_LOADS);
	if ((m & BIT(C_LOCKS)) || (s->op_flags & HWS_OPF_ATOMIC))
		m |= BIT(C_RMW);
	if (lvl & ~(uint64_t)PERF_MEM_LVL_NA) {
		/* perf's decoding on the legacy level bits */
		if (lvl & PERF_MEM_LVL_HIT) {
			if (lvl & PERF_MEM_LVL_UNC)
				m |= BIT(C_LD_UNC);
			if (lvl & PERF_MEM_LVL_IO)
				m |= BIT(C_LD_IO);
			if (lvl & PERF_MEM_LVL_LFB)
				m |= BIT(C_LD_FB);
			if (lvl & PERF_MEM_LVL_L1)
				m |= BIT(C_LD_L1);
			if (lvl & PERF_MEM_LVL_L2) {
				m |= BIT(C_LD_L2);
				if (snoopx & PERF_MEM_SNOOPX_PEER)
					m |= BIT(C_LCL_PEER);
			}
			if (lvl & PERF_MEM_LVL_L3) {
				if (snoop & PERF_MEM_SNOOP_HITM)
					m |= BIT(C_LCL_HITM);
				else
					m |= BIT(C_LD_LLC);
				if (snoopx & PERF_MEM_SNOOPX_PEER)
					m |= BIT(C_LCL_PEER);
			}
			if (lvl & PERF_MEM_LVL_LOC_RAM)
				m |= BIT(C_LCL_DRAM);
			if ((lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)) || mrem)
				m |= BIT(C_RMT_DRAM);
		}
		if ((lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) || mrem) {
			if (snoop & PERF_MEM_SNOOP_HIT)
				m |= BIT(C_RMT_HIT);
			else if (snoop & PERF_MEM_SNOOP_HITM)
				m |= BIT(C_RMT_HITM);
			else if (snoopx & PERF_MEM_SNOOPX_PEER)
				m |= BIT(C_RMT_HIT) | BIT(C_RMT_PEER);
		}
		/*
		 * Beyond perf: a backend that knows the load came from another CCX/cluster or
		 * node (AMD IBS DataSrc, whose remote-cache data_src has no snoop bits) says so
		 * in mem_level; count it when perf's rules counted no cache-to-cache event.
		 */
		if (!(m & (BIT(C_LCL_HITM) | BIT(C_RMT_HITM) | BIT(C_LCL_PEER) | BIT(C_RMT_PEER) |
			   BIT(C_RMT_HIT)))) {
			if (s->mem_level == HWS_MEM_REMOTE_CACHE)
				m |= BIT(C_RMT_HIT);
			else if (s->mem_level == HWS_MEM_PEER_CACHE)
				m |= BIT(C_LCL_PEER);
		}
		return m;
	}

	/* No legacy level: use the normalized fields (lvl_num-only data_src, backends). */
	switch (s->mem_level) {
	case HWS_MEM_L1:
		m |= BIT(C_LD_L1);
		break;
	case HWS_MEM_LFB:
		m |= BIT(C_LD_FB);
		break;
	case HWS_MEM_L2:
		m |= BIT(C_LD_L2);
		if (s->snoop == HWS_SNOOP_PEER)
			m |= BIT(C_LCL_PEER);
		break;
	case HWS_MEM_L3:
		m |= s->snoop == HWS_SNOOP_HITM ? BIT(C_LCL_HITM) : BIT(C_LD_LLC);
		if (s->snoop == HWS_SNOOP_PEER)
			m |= BIT(C_LCL_PEER);
		break;
	case HWS_MEM_PEER_CACHE:
		m |= s->snoop == HWS_SNOOP_HITM ? BIT(C_LCL_HITM) : BIT(C_LCL_PEER);
		break;
	case HWS_MEM_REMOTE_CACHE:
		if (s->snoop == HWS_SNOOP_HITM)
			m |= BIT(C_RMT_HITM);
		else if (s->snoop == HWS_SNOOP_PEER)
			m |= BIT(C_RMT_HIT) | BIT(C_RMT_PEER);
		else
			m |= BIT(C_RMT_HIT);
		break;
	case HWS_MEM_LOCAL_DRAM:
		m |= BIT(C_LCL_DRAM);
		break;
	case HWS_MEM_REMOTE_DRAM:
		m |= BIT(C_RMT_DRAM);
		break;
	case HWS_MEM_UNCACHED:
		m |= BIT(C_LD_UNC);
		break;
	case HWS_MEM_IO:
		m |= BIT(C_LD_IO);
		break;
	default:
		break;
	}
	return m;
}

static void lat_sum(struct lat *to, const struct lat *from)
{
	to->sum += from->sum;
	to->lcl_hitm += from->lcl_hitm;
	to->rmt_hitm += from->rmt_hitm;
	to->peer += from->peer;
	to->n += from->n;
}

static void lat_add(struct lat *l, uint32_t m, uint32_t v)
{
	l->sum += v;
	l->n++;
	if (m & BIT(C_LCL_HITM))
		l->lcl_hitm += v;
	if (m & BIT(C_RMT_HITM))
		l->rmt_hitm += v;
	if (m & (BIT(C_LCL_PEER) | BIT(C_RMT_PEER)))
		l->peer += v;
}

/* Latency sums of a finished entry. */
static struct lat ent_lat(const struct entry *e)
{
	struct lat l = {e->lat.sum, e->lat.lcl_hitm, e->lat.rmt_hitm, e->lat.peer, e->lat_n};

	return l;
}

static int find_line(struct hws_c2c *c, uint64_t addr, uint32_t pid, uint32_t *out)
{
	uint32_t h, idx;
	struct line *l;
	int err;

	if (c->lhash_size) {
		h = (uint32_t)line_key(addr, pid) & (c->lhash_size - 1);
		while ((idx = c->lhash[h])) {
			l = &c->lines[idx - 1];
			if (l->addr == addr) {
				*out = idx - 1;
				return 0;
			}
			h = (h + 1) & (c->lhash_size - 1);
		}
	}
	err = grow((void **)&c->lines, &c->cap_lines, c->nr_lines + 1, sizeof(*c->lines));
	if (err)
		return err;
	l = &c->lines[c->nr_lines];
	memset(l, 0, sizeof(*l));
	l->addr = addr;
	l->pid = pid;
	l->first = NONE;
	c->nr_lines++;
	if ((uint64_t)c->nr_lines * 2 > c->lhash_size) {
		err = rehash(&c->lhash, &c->lhash_size, c->nr_lines, line_hash, c);
		if (err) {
			c->nr_lines--;
			return err;
		}
	} else {
		h = (uint32_t)line_key(addr, pid) & (c->lhash_size - 1);
		while (c->lhash[h])
			h = (h + 1) & (c->lhash_size - 1);
		c->lhash[h] = c->nr_lines;
	}
	*out = c->nr_lines - 1;
	return 0;
}

/*
 * Index of the entry of (addr, pid, tid, ip), created with its line when new, NONE if out of
 * memory: one probe of the entry table per sample (tags first, the entry itself only on a
 * tag match; the table exists from hws_c2c__new() to __finish()); the line table is probed
 * only for a new entry.
 */
static uint32_t new_entry(struct hws_c2c *c, uint64_t k, uint64_t addr, uint32_t pid, uint32_t tid,
			  uint64_t ip, uint32_t kind);

static inline __attribute__((always_inline)) uint32_t find_entry(struct hws_c2c *c, uint64_t k,
								 uint64_t addr, uint32_t pid,
								 uint32_t tid, uint64_t ip,
								 uint32_t kind)
{
	uint32_t tag = (uint32_t)(k >> 32), mask = c->ehash_size - 1, h = (uint32_t)k & mask, idx;
	uint64_t pt = pid_tid(pid, tid), ept;
	const struct entry *e;

	while ((idx = c->ehash[h].idx)) {
		if (c->ehash[h].tag == tag) {
			e = &c->ents[idx - 1];
			memcpy(&ept, &e->pid, sizeof(ept));
			if (e->addr == addr && e->ip == ip && ept == pt)
				return idx - 1;
		}
		h = (h + 1) & mask;
	}
	return new_entry(c, k, addr, pid, tid, ip, kind);
}

/*
 * A new entry (and its line if new), its first slot claimed for @kind (its first sample's)
 * unless NO_KIND: the slow path of find_entry().
 */
static __attribute__((noinline)) uint32_t new_entry(struct hws_c2c *c, uint64_t k, uint64_t addr,
						    uint32_t pid, uint32_t tid, uint64_t ip,
						    uint32_t kind)
{
	uint32_t tag = (uint32_t)(k >> 32), h, li;
	struct entry *e;
	struct line *l;

	if (find_line(c, addr & ~(uint64_t)(c->o.line_size - 1), pid, &li) ||
	    grow_ents(c, c->nr_ents + 1))
		return NONE;
	e = &c->ents[c->nr_ents];
	*e = (struct entry){
	    .addr = addr,
	    .ip = ip,
	    .pid = pid,
	    .tid = tid,
	    .kid = kind == NO_KIND ? KFREE_ALL : (KFREE_ALL & ~0xffU) | kind,
	    .line = li,
	    .small = c->lines[li].lh.small,
	    .offset = (uint32_t)(addr & (c->o.line_size - 1)),
	};
	c->nr_ents++;
	if ((uint64_t)c->nr_ents * 2 > c->ehash_size) {
		if (ehash_grow(c)) {
			c->nr_ents--;
			return NONE;
		}
	} else {
		h = (uint32_t)k & (c->ehash_size - 1);
		while (c->ehash[h].idx)
			h = (h + 1) & (c->ehash_size - 1);
		c->ehash[h].tag = tag;
		c->ehash[h].idx = c->nr_ents;
	}
	l = &c->lines[li];
	e->next = l->first;
	l->first = c->nr_ents - 1;
	l->nr_entries++;
	return c->nr_ents - 1;
}

/* ---------------------------------------------------------------- latency histogram */

static uint32_t lh_bucket(uint32_t v)
{
	uint32_t e;

	if (v < LH_EXACT)
		return v;
	e = 31 - (uint32_t)__builtin_clz(v); /* > LH_MBITS */
	return LH_EXACT + (e - LH_MBITS - 1) * (1U << LH_MBITS) +
	       ((v >> (e - LH_MBITS)) - (1U << LH_MBITS));
}

/* Middle of bucket @b (its value when exact). */
static uint32_t lh_value(uint32_t b)
{
	uint32_t e, m;
	uint64_t lo;

	if (b < LH_EXACT)
		return b;
	b -= LH_EXACT;
	e = b / (1U << LH_MBITS) + LH_MBITS + 1;
	m = b % (1U << LH_MBITS) + (1U << LH_MBITS);
	lo = (uint64_t)m << (e - LH_MBITS);
	lo += (1ULL << (e - LH_MBITS)) / 2;
	return lo > UINT32_MAX ? UINT32_MAX : (uint32_t)lo;
}

static uint32_t lh_hash(uint32_t v)
{
	v *= 0x9e3779b1U;
	return v ^ (v >> 15);
}

static int lh_to_dense(struct lhist *h)
{
	uint32_t i;

	h->dense = calloc(LH_DENSE, sizeof(*h->dense));
	if (!h->dense)
		return -ENOMEM;
	for (i = 0; i < h->size; i++)
		if (h->t[i].n)
			h->dense[lh_bucket(h->t[i].v)] += h->t[i].n;
	free(h->t);
	h->t = NULL;
	h->size = h->used = 0;
	return 0;
}

static int lh_resize(struct lhist *h, uint32_t nsize)
{
	struct lh_slot *t = calloc(nsize, sizeof(*t));
	uint32_t i, j;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < h->size; i++) {
		if (!h->t[i].n)
			continue;
		for (j = lh_hash(h->t[i].v) & (nsize - 1); t[j].n; j = (j + 1) & (nsize - 1))
			;
		t[j] = h->t[i];
	}
	free(h->t);
	h->t = t;
	h->size = nsize;
	return 0;
}

/* Count @n times the value @v in the table (or the dense buckets). */
static int lh_count(struct lhist *h, uint32_t v, uint32_t n)
{
	uint32_t i;

	h->total += n;
	if (h->dense) {
		h->dense[lh_bucket(v)] += n;
		return 0;
	}
	for (i = lh_hash(v) & (h->size - 1); h->t[i].n; i = (i + 1) & (h->size - 1)) {
		if (h->t[i].v == v) {
			h->t[i].n += n;
			return 0;
		}
	}
	h->t[i].v = v;
	h->t[i].n = n;
	h->used++;
	if (h->used > LH_SPARSE_MAX)
		return lh_to_dense(h);
	if (h->used * 2 > h->size)
		return lh_resize(h, h->size * 2);
	return 0;
}

/* Direct counters for small values; the table keeps only the larger ones. */
static int lh_to_small(struct lhist *h)
{
	struct lh_slot *old = h->t;
	uint32_t i, osize = h->size;

	h->small = calloc(LH_SMALL, sizeof(*h->small));
	if (!h->small)
		return -ENOMEM;
	if (h->dense) {
		/* buckets below LH_EXACT hold one value each: move those below LH_SMALL */
		for (i = 0; i < LH_SMALL; i++) {
			h->small[i] = h->dense[i];
			h->dense[i] = 0;
		}
		return 0;
	}
	h->t = NULL;
	h->size = h->used = 0;
	if (lh_resize(h, 16)) {
		h->t = old, h->size = osize;
		return -ENOMEM;
	}
	for (i = 0; i < osize; i++) {
		if (!old[i].n)
			continue;
		if (old[i].v < LH_SMALL) {
			h->small[old[i].v] += old[i].n;
			continue;
		}
		h->total -= old[i].n; /* counted again below */
		if (lh_count(h, old[i].v, old[i].n))
			return -ENOMEM;
	}
	free(old);
	return 0;
}

static int lh_add(struct lhist *h, uint32_t v)
{
	if (h->small && v < LH_SMALL) {
		h->small[v]++;
		h->total++;
		return 0;
	}
	if (!h->dense && !h->size && lh_resize(h, 16))
		return -ENOMEM;
	if (h->total == LH_SMALL_AFTER && !h->small && lh_to_small(h))
		return -ENOMEM;
	if (h->small && v < LH_SMALL) {
		h->small[v]++;
		h->total++;
		return 0;
	}
	return lh_count(h, v, 1);
}

static int cmp_slot(const void *a, const void *b)
{
	uint32_t x = ((const struct lh_slot *)a)->v, y = ((const struct lh_slot *)b)->v;

	return x < y ? -1 : x > y;
}

/* Values counted: @total, or with direct counters (also counted by the entries) the sum. */
static uint64_t lh_nr(const struct lhist *h)
{
	uint64_t n = 0;
	uint32_t i;

	if (!h->small)
		return h->total;
	for (i = 0; i < LH_SMALL; i++)
		n += h->small[i];
	for (i = 0; h->dense && i < LH_DENSE; i++)
		n += h->dense[i];
	for (i = 0; i < h->size; i++)
		n += h->t[i].n;
	return n;
}

/* Nearest-rank percentiles @ps[0..n) into @out: the value of rank ceil(total * p / 100). */
static int lh_percentiles(struct lhist *h, const unsigned int *ps, uint32_t *out, int n)
{
	uint64_t rank[3], cum = 0, total = lh_nr(h);
	uint32_t i, nr = 0;
	struct lh_slot *v;
	int k = 0;

	for (k = 0; k < n; k++) {
		out[k] = 0;
		rank[k] = (total * ps[k] + 99) / 100;
		if (rank[k])
			rank[k]--; /* 0-based */
	}
	if (!total)
		return 0;
	k = 0;
	/* values in small are below every value of the table or the dense buckets */
	for (i = 0; h->small && i < LH_SMALL && k < n; i++) {
		cum += h->small[i];
		while (k < n && rank[k] < cum)
			out[k++] = i;
	}
	if (h->dense) {
		for (i = 0; i < LH_DENSE && k < n; i++) {
			cum += h->dense[i];
			while (k < n && rank[k] < cum)
				out[k++] = lh_value(i);
		}
		return 0;
	}
	/* compact the used slots to the front, sorted by value */
	v = h->t;
	for (i = 0; i < h->size; i++)
		if (h->t[i].n)
			v[nr++] = h->t[i];
	qsort(v, nr, sizeof(*v), cmp_slot);
	for (i = 0; i < nr && k < n; i++) {
		cum += v[i].n;
		while (k < n && rank[k] < cum)
			out[k++] = v[i].v;
	}
	/* the table is no longer a hash table: drop it */
	free(h->t);
	h->t = NULL;
	h->size = h->used = 0;
	return 0;
}

/*
 * Count the buffered latencies into their lines' histograms. A line that gets direct
 * counters hands them to its entries, which count there from then on.
 */
static int lbuf_flush(struct hws_c2c *c)
{
	uint32_t i, ei;

	for (i = 0; i < c->nr_lbuf; i++) {
		uint64_t x = c->lbuf[i];
		struct line *l = &c->lines[x >> 32];
		bool had = l->lh.small != NULL;

		if (lh_add(&l->lh, (uint32_t)x))
			return -ENOMEM;
		if (!had && l->lh.small)
			for (ei = l->first; ei != NONE; ei = c->ents[ei].next)
				c->ents[ei].small = l->lh.small;
	}
	c->nr_lbuf = 0;
	return 0;
}

static int lbuf_make_room(struct hws_c2c *c)
{
	if (c->cap_lbuf >= LBUF_MAX)
		return lbuf_flush(c);
	return grow((void **)&c->lbuf, &c->cap_lbuf, c->nr_lbuf + 1, sizeof(*c->lbuf));
}

/* Bit of the NUMA node of @cpu, 0 if unknown (cached: the callback may be slow; nodes never
 * change in a file). */
static inline uint64_t node_bit(struct hws_c2c *c, uint32_t cpu)
{
	int nd;

	if (!c->o.cpu_node)
		return 0;
	if (cpu < NODE_CACHE) {
		if (!c->node_cache[cpu])
			c->node_cache[cpu] =
			    (int16_t)(c->o.cpu_node(c->o.cpu_node_ctx, (int)cpu) + 2);
		nd = c->node_cache[cpu] - 2;
	} else {
		nd = c->o.cpu_node(c->o.cpu_node_ctx, (int)cpu);
	}
	return nd >= 0 && nd < 64 ? 1ULL << nd : 0;
}

/* Nodes of the CPUs (< 256) whose bits are set in @cpus. */
static uint64_t cpus_nodes(struct hws_c2c *c, const uint64_t *cpus)
{
	uint64_t nodes = 0, b;
	uint32_t w;

	if (!c->o.cpu_node)
		return 0;
	for (w = 0; w < 4; w++)
		for (b = cpus[w]; b; b &= b - 1)
			nodes |= node_bit(c, w * 64 + (uint32_t)__builtin_ctzll(b));
	return nodes;
}

/* The side record of entry @e, made on first use; NULL if out of memory. */
static struct xcnt *ent_side(struct hws_c2c *c, struct entry *e)
{
	if (!e->xc) {
		if (grow((void **)&c->xcnt, &c->cap_xcnt, c->nr_xcnt + 1, sizeof(*c->xcnt)))
			return NULL;
		memset(&c->xcnt[c->nr_xcnt], 0, sizeof(*c->xcnt));
		e->xc = ++c->nr_xcnt;
	}
	return &c->xcnt[e->xc - 1];
}

/*
 * The CPU of a sample that the fast path does not take: none (UINT32_MAX), or a CPU >= 256,
 * whose bit aliases one below 256: it goes to the side record, with its node. 0 or -ENOMEM.
 */
static __attribute__((noinline)) int cpu_slow(struct hws_c2c *c, struct entry *e, uint32_t cpu)
{
	struct xcnt *x;

	if (cpu == UINT32_MAX)
		return 0;
	x = ent_side(c, e);
	if (!x)
		return -ENOMEM;
	x->cpus_hi[(cpu >> 6) & 3] |= 1ULL << (cpu & 63);
	x->nodes_hi |= node_bit(c, cpu);
	return 0;
}

/*
 * A sample whose kind has no slot in its entry: claim a free slot, else (slots full, or the
 * kinds table is) count it in the entry's side record, and its coherence source here.
 * 0 or -ENOMEM.
 */
static __attribute__((noinline)) int count_slow(struct hws_c2c *c, struct entry *e, uint32_t kind,
						uint32_t m, uint32_t lat, uint32_t src_bit)
{
	struct xcnt *x;
	uint32_t k;

	if (kind != NO_KIND) {
		for (k = 0; k < NSLOT; k++) {
			if (((e->kid >> (8 * k)) & 0xff) == KFREE) {
				e->kid = (e->kid & ~(0xffU << (8 * k))) | kind << (8 * k);
				e->kn[k]++;
				e->klat[k] += lat;
				return 0;
			}
		}
	}
	x = ent_side(c, e);
	if (!x)
		return -ENOMEM;
	if (src_bit) {
		e->src_mask |= (uint8_t)src_bit;
		c->src_cnt[__builtin_ctz(src_bit)]++;
	}
	if (kind != NO_KIND) {
		const struct kind *kd = &c->kinds[kind];

		for (k = 0; k < NC; k++)
			x->c[k] += kd->dv[k];
		x->sum += lat;
		x->lcl_hitm += lat & kd->lcl_hitm;
		x->rmt_hitm += lat & kd->rmt_hitm;
		x->peer += lat & kd->peer;
	} else {
		struct lat l = {0};

		for (k = m; k; k &= k - 1)
			x->c[__builtin_ctz(k)]++;
		lat_add(&l, m, lat);
		x->sum += l.sum;
		x->lcl_hitm += l.lcl_hitm;
		x->rmt_hitm += l.rmt_hitm;
		x->peer += l.peer;
	}
	return 0;
}

/*
 * Count one sample into its entry (creating entry and line if new), in the entry's first
 * two cache lines: its kind's slot (count, latency sum), the latency count, width, source
 * and CPU bits; the latency goes to the line's direct counters when it has them, else to
 * the buffer. 0 or -ENOMEM.
 */
static inline __attribute__((always_inline)) int count_one(struct hws_c2c *c, const struct pend *p)
{
	uint32_t ei, x, t;
	struct entry *e;
	int err;

	ei = find_entry(c, p->key, p->addr, p->pid, p->tid, p->ip, p->kind);
	if (ei == NONE)
		return -ENOMEM;
	e = &c->ents[ei];
	/* the slot whose kid byte is p->kind: the lowest zero byte of kid ^ kind x 4 */
	x = e->kid ^ (uint32_t)p->kind * 0x01010101U;
	t = (x - 0x01010101U) & ~x & 0x80808080U;
	if (__builtin_expect(t != 0, 1)) {
		uint32_t k = (uint32_t)__builtin_ctz(t) >> 3;

		e->kn[k]++;
		e->klat[k] += p->lat;
	} else {
		err = count_slow(c, e, p->kind, p->m, p->lat, p->src_bit);
		if (err)
			return err;
	}
	e->lat_n += p->has_lat;
	if (p->width > e->width)
		e->width = p->width;
	if (__builtin_expect(p->cpu < 256, 1)) {
		e->cpus[p->cpu >> 6] |= 1ULL << (p->cpu & 63);
	} else {
		err = cpu_slow(c, e, p->cpu);
		if (err)
			return err;
	}
	/* a busy line has direct counters: count there (a store adds 0 to small[0]) */
	if (e->small && p->lat < LH_SMALL) {
		e->small[p->lat] += p->has_lat;
		return 0;
	}
	/* else append (line, latency) whether or not there is one; keep it only if there is */
	if (c->nr_lbuf == c->cap_lbuf) {
		err = lbuf_make_room(c);
		if (err)
			return err;
	}
	c->lbuf[c->nr_lbuf] = (uint64_t)e->line << 32 | p->lat;
	c->nr_lbuf += p->has_lat;
	return 0;
}

/*
 * Count the queued samples (large tables only, see hws_c2c__add): a tight loop that
 * prefetches the slot, then the entry, of the samples ahead.
 */
static int pend_flush(struct hws_c2c *c)
{
	uint32_t n = c->nr_pend, i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		/* two stages: the slot of a sample 2 * PEND_PREFETCH ahead, then (its slot now in
		 * the cache) the two cache lines of the entry it names */
		if (i + 2 * PEND_PREFETCH < n)
			__builtin_prefetch(&c->ehash[(uint32_t)c->pend[i + 2 * PEND_PREFETCH].key &
						     (c->ehash_size - 1)]);
		if (i + PEND_PREFETCH < n) {
			uint64_t k = c->pend[i + PEND_PREFETCH].key;
			const struct eslot *sl = &c->ehash[(uint32_t)k & (c->ehash_size - 1)];

			if (sl->idx && sl->tag == (uint32_t)(k >> 32)) {
				const char *ep = (const char *)&c->ents[sl->idx - 1];

				__builtin_prefetch(ep);
				__builtin_prefetch(ep + 64);
			}
		}
		err = count_one(c, &c->pend[i]);
	}
	c->nr_pend = 0;
	return err;
}

/*
 * Classify a new kind of sample into memo slot @cm; -EBUSY after __finish() (which empties
 * the memo, so that every sample comes here).
 */
static __attribute__((noinline)) int memo_fill(struct hws_c2c *c, struct cls_memo *cm,
					       const struct hws_sample *s, uint64_t ds,
					       uint64_t rest)
{
	uint32_t m, i, k;

	if (c->finished)
		return -EBUSY;
	m = classify(s);
	cm->ds = ds;
	cm->rest = rest;
	cm->backend = s->backend;
	cm->m = m;
	cm->src_bit = 0;
	cm->load = (m & BIT(C_LOADS)) != 0;
	if (m & (BIT(C_LCL_HITM) | BIT(C_RMT_HITM) | BIT(C_LCL_PEER) | BIT(C_RMT_PEER)))
		cm->src_bit = (uint8_t)(1U << src_of(s->backend));
	for (k = 0; k < c->nr_kinds; k++)
		if (c->kinds[k].m == m && c->kinds[k].src_bit == cm->src_bit)
			break;
	if (k == c->nr_kinds) {
		struct kind *kd = &c->kinds[k];

		if (k == MAX_KINDS) {
			cm->kind = NO_KIND;
			return 0;
		}
		memset(kd, 0, sizeof(*kd));
		kd->m = m;
		kd->src_bit = cm->src_bit;
		for (i = 0; i < NC; i++)
			kd->dv[i] = (m >> i) & 1;
		kd->lcl_hitm = (m & BIT(C_LCL_HITM)) ? ~0ULL : 0;
		kd->rmt_hitm = (m & BIT(C_RMT_HITM)) ? ~0ULL : 0;
		kd->peer = (m & (BIT(C_LCL_PEER) | BIT(C_RMT_PEER))) ? ~0ULL : 0;
		c->nr_kinds++;
	}
	cm->kind = (uint8_t)k;
	return 0;
}

/*
 * The memo key besides data_src (taken whether valid or not: classify() reads it only if
 * valid, so a key with more in it is still a correct key): what else classify() reads (op,
 * mem_level, snoop, the lock and atomic flags, whether data_src and op are valid), bit 2
 * set (an empty slot has 0). On little-endian hosts op, mem_level and snoop are masked out
 * of one load.
 */
_Static_assert(
    offsetof(struct hws_sample, op) == offsetof(struct hws_sample, ip_precise) + 1 &&
	offsetof(struct hws_sample, mem_level) == offsetof(struct hws_sample, ip_precise) + 3 &&
	offsetof(struct hws_sample, snoop) == offsetof(struct hws_sample, ip_precise) + 4 &&
	offsetof(struct hws_sample, op_flags) == offsetof(struct hws_sample, ip_precise) + 8,
    "op, mem_level and snoop in the 8 bytes from ip_precise");
static inline uint64_t memo_rest(const struct hws_sample *s, uint64_t f)
{
	uint64_t w;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&w, &s->ip_precise, sizeof(w));
	w &= 0xffff00ff00ULL; /* bytes 1 (op), 3 (mem_level), 4 (snoop) */
#else
	w = (uint64_t)s->op << 8 | (uint64_t)s->mem_level << 24 | (uint64_t)s->snoop << 32;
#endif
	return w | (s->op_flags & (HWS_OPF_LOCK | HWS_OPF_ATOMIC)) | 1ULL << 2 |
	       (f & (HWS_SF_DATA_SRC | HWS_SF_OP)) << 40;
}

/* Latency of a sample: lat_miss if non-zero, else lat_total, else the weight's low half. */
static inline uint32_t sample_lat(const struct hws_sample *s, uint64_t f, uint8_t *has)
{
	bool miss = (f & HWS_SF_LAT_MISS) && s->lat_miss;
	uint32_t v = 0;

	*has = miss || (f & (HWS_SF_LAT_TOTAL | HWS_SF_WEIGHT));
	if (f & HWS_SF_WEIGHT)
		v = (uint32_t)s->weight;
	if (f & HWS_SF_LAT_TOTAL)
		v = s->lat_total;
	return miss ? s->lat_miss : v;
}

/* The queue record of sample @s (with an address) of memo @cm. */
static inline __attribute__((always_inline)) void
pend_fill(struct pend *p, const struct hws_sample *s, uint64_t f, const struct cls_memo *cm)
{
	p->addr = s->addr;
	p->ip = (f & HWS_SF_IP) ? s->ip : 0;
	p->pid = (f & HWS_SF_PID) ? s->pid : UINT32_MAX;
	p->tid = (f & HWS_SF_PID) ? s->tid : UINT32_MAX;
	p->cpu = (f & HWS_SF_CPU) ? s->cpu : UINT32_MAX;
	p->key = ent_key(p->addr, p->pid, p->tid, p->ip);
	p->m = cm->m;
	p->kind = cm->kind;
	p->width = s->op_width;
	p->src_bit = cm->src_bit;
	/* a load's latency; 0 and no latency for a store */
	p->lat = sample_lat(s, f, &p->has_lat) & -(uint32_t)cm->load;
	p->has_lat &= cm->load;
}

static inline __attribute__((always_inline)) int c2c_add(struct hws_c2c *c,
							 const struct hws_sample *s)
{
	uint64_t f = s->fields, ds = s->data_src, rest = memo_rest(s, f);
	uint64_t x = (ds ^ rest) * 0x9e3779b97f4a7c15ULL;
	struct cls_memo *cm = &c->memo[x >> 56 & (CLS_MEMO - 1)];
	uint32_t m, i;
	int err;

	/* after __finish() the memo is empty: memo_fill() refuses the sample */
	if (__builtin_expect(cm->ds != ds || cm->rest != rest || cm->backend != s->backend, 0)) {
		err = memo_fill(c, cm, s, ds, rest);
		if (err)
			return err;
	}
	m = cm->m;
	if (!m) {
		c->other++;
		return 0;
	}
	if (!(f & HWS_SF_ADDR) || !s->addr) {
		c->noaddr++;
		for (i = 0; i < NC; i++)
			if (m & BIT(i))
				c->tot[i]++;
		return 0;
	}
	/*
	 * Small tables (in the cache) are updated right away; once the entries outgrow the L2
	 * cache, samples are queued and counted a batch at a time with prefetches
	 * (pend_flush), which also keeps them in order.
	 */
	if (c->nr_ents <= PREFETCH_MIN_ENTS) {
		struct pend pl; /* in registers */

		pend_fill(&pl, s, f, cm);
		return count_one(c, &pl);
	}
	pend_fill(&c->pend[c->nr_pend], s, f, cm);
	if (++c->nr_pend == NR_PEND)
		return pend_flush(c);
	return 0;
}

int hws_c2c__add(struct hws_c2c *c, const struct hws_sample *s)
{
	return c2c_add(c, s);
}

int hws_c2c__sample_fn(void *ctx, const struct hws_sample *s)
{
	return c2c_add(ctx, s) ? 1 : 0;
}

/* ---------------------------------------------------------------- finish */

static uint64_t hitm_of(const uint64_t *c)
{
	return c[C_LCL_HITM] + c[C_RMT_HITM];
}

static uint64_t peer_of(const uint64_t *c)
{
	return c[C_LCL_PEER] + c[C_RMT_PEER];
}

struct unit {
	uint32_t off, end, pid, tid;
	uint32_t n, writes, coh;
	uint32_t first_ent;
	uint8_t in_false, in_true;
};

static void mark_bits(uint64_t *mask, uint32_t off, uint32_t end, uint32_t ls)
{
	uint32_t chunk = ls / 64 ? ls / 64 : 1, o;

	for (o = off; o < end && o < ls; o += chunk)
		*mask |= 1ULL << (o / chunk);
	if (off < ls)
		*mask |= 1ULL << (off / chunk);
}

/*
 * One pair of units of a line with @sup samples of evidence: the same bytes (their offset
 * ranges overlap) is true sharing, different bytes false sharing; the pair's offsets are
 * marked in the matching mask and @sup added to its support.
 */
static void pair_verdict(struct line *l, struct unit *a, struct unit *b, uint64_t sup,
			 uint32_t ls, uint64_t *sup_false, uint64_t *sup_true)
{
	bool overlap = a->off < b->end && b->off < a->end;
	uint64_t *mask = overlap ? &l->true_off : &l->false_off;

	if (overlap) {
		*sup_true += sup;
		a->in_true = b->in_true = 1;
	} else {
		*sup_false += sup;
		a->in_false = b->in_false = 1;
	}
	mark_bits(mask, a->off, a->end, ls);
	mark_bits(mask, b->off, b->end, ls);
}

static void fill_stats(struct hws_c2c_stats *st, const uint64_t *cn, const struct lat *lat);

/* Pair analysis of one line; fills cls, evidence, conf, false/true offsets and entry flags. */
static int classify_line(struct hws_c2c *c, struct line *l)
{
	struct unit *u = NULL;
	uint32_t nu = 0, i, j, k, ei, hsz, *uh = NULL, *th = NULL, *eu = NULL;
	uint64_t sup_false = 0, sup_true = 0, coh;
	uint32_t nr_tids = 0;
	uint64_t *tids = NULL;
	double s;
	int err = 0;

	/*
	 * units: (offset, pid, tid), widths merged; threads: (pid, tid). Both found through
	 * open-addressing tables of the line's size (slot = index + 1), so a line with many
	 * entries costs linear time; eu[] keeps each entry's unit (chain order) for the flags.
	 */
	hsz = 16;
	while (hsz < 2 * (uint64_t)l->nr_entries)
		hsz *= 2;
	u = calloc(l->nr_entries < MAX_UNITS ? l->nr_entries : MAX_UNITS, sizeof(*u));
	uh = calloc(hsz, sizeof(*uh));
	th = calloc(hsz, sizeof(*th));
	tids = malloc(sizeof(*tids) * (l->nr_entries ? l->nr_entries : 1));
	eu = malloc(sizeof(*eu) * (l->nr_entries ? l->nr_entries : 1));
	if (!u || !uh || !th || !tids || !eu) {
		err = -ENOMEM;
		goto out;
	}
	for (k = 0, ei = l->first; ei != NONE; ei = c->ents[ei].next, k++) {
		struct entry *e = &c->ents[ei];
		uint32_t w = e->width ? e->width : 1, h, x;
		uint64_t key = (uint64_t)e->pid << 32 | e->tid;

		eu[k] = NONE;
		for (h = (uint32_t)mix64(key) & (hsz - 1); (x = th[h]); h = (h + 1) & (hsz - 1))
			if (tids[x - 1] == key)
				break;
		if (!x) {
			tids[nr_tids++] = key;
			th[h] = nr_tids;
		}
		for (h = (uint32_t)mix64(key ^ (uint64_t)e->offset << 20 ^ e->offset) & (hsz - 1);
		     (x = uh[h]); h = (h + 1) & (hsz - 1))
			if (u[x - 1].off == e->offset && u[x - 1].pid == e->pid &&
			    u[x - 1].tid == e->tid)
				break;
		if (x) {
			i = x - 1;
		} else {
			if (nu == MAX_UNITS)
				continue;
			i = nu++;
			uh[h] = nu;
			u[i].off = e->offset;
			u[i].end = e->offset + w;
			u[i].pid = e->pid;
			u[i].tid = e->tid;
		}
		eu[k] = i;
		if (e->offset + w > u[i].end)
			u[i].end = e->offset + w;
		u[i].n += e->c[C_RECORDS];
		u[i].writes += e->c[C_STORES] + e->c[C_RMW];
		u[i].coh +=
		    e->c[C_LCL_HITM] + e->c[C_RMT_HITM] + e->c[C_LCL_PEER] + e->c[C_RMT_PEER];
	}
	l->nr_threads = nr_tids;

	for (i = 0; i < nu; i++) {
		if (!u[i].writes)
			continue;
		for (j = 0; j < nu; j++) {
			if (u[j].tid == u[i].tid && u[j].pid == u[i].pid)
				continue;
			pair_verdict(l, &u[i], &u[j], u[i].writes < u[j].n ? u[i].writes : u[j].n,
				     c->o.line_size, &sup_false, &sup_true);
		}
	}
	/*
	 * No store sampled at all (perf mem record -t load, or stores not sampled): the
	 * coherence misses themselves say another core wrote the line. Threads missing on
	 * different bytes point to false sharing, on the same bytes to true sharing; weaker
	 * evidence, so it is flagged as inferred and gets a lower confidence.
	 */
	if (!sup_false && !sup_true && !l->c[C_STORES] && !l->c[C_RMW]) {
		for (i = 0; i < nu; i++) {
			if (!u[i].coh)
				continue;
			for (j = i + 1; j < nu; j++) {
				if (!u[j].coh || (u[j].tid == u[i].tid && u[j].pid == u[i].pid))
					continue;
				pair_verdict(l, &u[i], &u[j],
					     u[i].coh < u[j].coh ? u[i].coh : u[j].coh,
					     c->o.line_size, &sup_false, &sup_true);
			}
		}
		l->inferred = sup_false || sup_true;
	}
	/* flag entries */
	for (k = 0, ei = l->first; ei != NONE; ei = c->ents[ei].next, k++) {
		if (eu[k] == NONE)
			continue;
		c->ents[ei].in_false = u[eu[k]].in_false;
		c->ents[ei].in_true = u[eu[k]].in_true;
	}
	/* distinct offsets (all below the line size, at most 4096) */
	{
		uint64_t seen[4096 / 64] = {0};

		l->nr_offsets = 0;
		for (i = 0; i < nu; i++) {
			uint32_t o = u[i].off & 4095;

			if (!(seen[o / 64] & (1ULL << (o % 64))))
				l->nr_offsets++;
			seen[o / 64] |= 1ULL << (o % 64);
		}
	}

	coh = hitm_of(l->c) + peer_of(l->c);
	l->evidence = 0;
	if (hitm_of(l->c))
		l->evidence |= HWS_C2C_EV_HITM;
	if (peer_of(l->c))
		l->evidence |= HWS_C2C_EV_PEER;
	if (l->c[C_RMT_HIT])
		l->evidence |= HWS_C2C_EV_RMT_CACHE;
	if ((sup_false || sup_true) && !l->inferred)
		l->evidence |= HWS_C2C_EV_ADDR;

	if (sup_false && sup_true)
		l->cls = HWS_C2C_MIXED;
	else if (sup_false)
		l->cls = HWS_C2C_FALSE_SHARING;
	else if (sup_true)
		l->cls = HWS_C2C_TRUE_SHARING;
	else if (coh)
		l->cls = HWS_C2C_UNRESOLVED;
	else if (l->nr_threads > 1)
		l->cls = HWS_C2C_READ_SHARED;
	else
		l->cls = HWS_C2C_PRIVATE;

	/*
	 * Confidence: coherence events prove that another core modified (HITM) or held (peer)
	 * the line; address overlap alone only shows that the accesses could collide. The
	 * sample support (writer x other-thread pairs) saturates after a few dozen samples.
	 */
	s = 1.0 - exp(-(double)(sup_false + sup_true) / 6.0);
	if (l->cls == HWS_C2C_FALSE_SHARING || l->cls == HWS_C2C_TRUE_SHARING ||
	    l->cls == HWS_C2C_MIXED) {
		/* remote cache hits are cache-to-cache transfers too, if weaker than HITM */
		uint64_t xfer = coh + l->c[C_RMT_HIT];

		if (l->inferred)
			l->conf = (float)(0.2 + 0.4 * s);
		else if (xfer)
			l->conf = (float)(0.5 + 0.5 * s * (1.0 - exp(-(double)xfer / 2.0)));
		else
			l->conf = (float)(0.2 + 0.45 * s);
		if (l->cls == HWS_C2C_MIXED)
			l->conf *= 0.9f;
	} else if (l->cls == HWS_C2C_UNRESOLVED) {
		l->conf = (float)(0.3 * (1.0 - exp(-(double)coh / 4.0)));
	} else {
		l->conf = (float)(0.5 + 0.5 * (1.0 - exp(-(double)l->c[C_RECORDS] / 6.0)));
	}
out:
	free(u);
	free(uh);
	free(th);
	free(tids);
	free(eu);
	return err;
}

static bool contended(const struct line *l)
{
	return l->cls == HWS_C2C_FALSE_SHARING || l->cls == HWS_C2C_TRUE_SHARING ||
	       l->cls == HWS_C2C_MIXED || l->cls == HWS_C2C_UNRESOLVED;
}

static const struct hws_c2c *sort_c2c;

static uint64_t contention(const struct line *l)
{
	return l->c[C_STORES] * (l->nr_threads > 1 ? l->nr_threads - 1 : 0) + l->c[C_RECORDS];
}

static int cmp_lines(const void *a, const void *b)
{
	const struct line *x = &sort_c2c->lines[*(const uint32_t *)a];
	const struct line *y = &sort_c2c->lines[*(const uint32_t *)b];
	uint64_t p, q;

	p = hitm_of(x->c), q = hitm_of(y->c);
	if (p != q)
		return p > q ? -1 : 1;
	p = peer_of(x->c), q = peer_of(y->c);
	if (p != q)
		return p > q ? -1 : 1;
	if (contended(x) != contended(y))
		return contended(x) ? -1 : 1;
	p = x->c[C_RMT_HIT], q = y->c[C_RMT_HIT];
	if (p != q)
		return p > q ? -1 : 1;
	p = contention(x), q = contention(y);
	if (p != q)
		return p > q ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static const struct hws_c2c *sort_ec2c;

static int cmp_ents(const void *a, const void *b)
{
	const struct entry *x = &sort_ec2c->ents[*(const uint32_t *)a];
	const struct entry *y = &sort_ec2c->ents[*(const uint32_t *)b];
	uint64_t p = (uint64_t)x->c[C_LCL_HITM] + x->c[C_RMT_HITM];
	uint64_t q = (uint64_t)y->c[C_LCL_HITM] + y->c[C_RMT_HITM];

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (p != q)
		return p > q ? -1 : 1;
	if (x->c[C_RECORDS] != y->c[C_RECORDS])
		return x->c[C_RECORDS] > y->c[C_RECORDS] ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static char *fmt_sym(const struct hws_symbol *sym)
{
	char *p = NULL;

	if (!sym->name)
		return NULL;
	if (sym->offset) {
		if (asprintf(&p, "%s+0x%llx", sym->name, (unsigned long long)sym->offset) < 0)
			return NULL;
		return p;
	}
	return strdup(sym->name);
}

/*
 * Symbol of (pid, addr) as code (@data false: name, dso, srcline) or as a variable (@data
 * true: the name only if the symbol is an object), resolved once per distinct key: many
 * entries share a code address (threads, offsets) or a data address. NULL: out of memory.
 */
static const struct symrec *sym_get(struct hws_c2c *c, struct hws_symbols *syms, uint32_t pid,
				    uint64_t addr, bool data)
{
	uint64_t k = mix64(addr ^ ((uint64_t)pid << 1 | data));
	struct hws_symbol sym;
	struct symrec *r;
	uint32_t h, idx, i;

	if (c->shash_size) {
		for (h = (uint32_t)k & (c->shash_size - 1); (idx = c->shash[h]);
		     h = (h + 1) & (c->shash_size - 1)) {
			r = &c->syms[idx - 1];
			if (r->addr == addr && r->pid == pid && r->data == data)
				return r;
		}
	}
	if (grow((void **)&c->syms, &c->cap_syms, c->nr_syms + 1, sizeof(*c->syms)))
		return NULL;
	if ((uint64_t)(c->nr_syms + 1) * 2 > c->shash_size) {
		uint32_t nsize = c->shash_size ? c->shash_size * 2 : 256;
		uint32_t *t = calloc(nsize, sizeof(*t));

		if (!t)
			return NULL;
		for (i = 0; i < c->nr_syms; i++) {
			r = &c->syms[i];
			h = (uint32_t)mix64(r->addr ^ ((uint64_t)r->pid << 1 | r->data)) &
			    (nsize - 1);
			while (t[h])
				h = (h + 1) & (nsize - 1);
			t[h] = i + 1;
		}
		free(c->shash);
		c->shash = t;
		c->shash_size = nsize;
	}
	r = &c->syms[c->nr_syms];
	memset(r, 0, sizeof(*r));
	r->addr = addr;
	r->pid = pid;
	r->data = data;
	if (data) {
		if (hws_symbols__resolve(syms, pid, addr, true, &sym) > 0 &&
		    sym.kind == HWS_SYM_OBJECT)
			r->symbol = fmt_sym(&sym);
	} else {
		hws_symbols__resolve(syms, pid, addr, false, &sym);
		r->symbol = fmt_sym(&sym);
		r->dso = sym.dso ? strdup(sym.dso) : NULL;
		if (sym.srcfile && sym.line) {
			const char *b = strrchr(sym.srcfile, '/');

			if (asprintf(&r->srcline, "%s:%u", b ? b + 1 : sym.srcfile, sym.line) < 0)
				r->srcline = NULL;
		}
	}
	for (h = (uint32_t)k & (c->shash_size - 1); c->shash[h]; h = (h + 1) & (c->shash_size - 1))
		;
	c->shash[h] = ++c->nr_syms;
	return r;
}

static int symbolize_line(struct hws_c2c *c, struct line *l, struct hws_symbols *syms)
{
	const struct symrec *r;
	uint32_t j;
	uint32_t last_off = UINT32_MAX, last_ds = 0;

	if (!syms || l->symbolized)
		return 0;
	l->symbolized = 1;
	if (l->pid != UINT32_MAX) {
		r = sym_get(c, syms, l->pid, l->addr, true);
		if (!r)
			return -ENOMEM;
		l->data_symbol = r->symbol;
	}
	for (j = 0; j < l->nr_entries; j++) {
		struct entry *e = &c->ents[l->order[j]];

		if (e->pid == UINT32_MAX)
			continue;
		if (e->ip) {
			r = sym_get(c, syms, e->pid, e->ip, false);
			if (!r)
				return -ENOMEM;
			e->sym = (uint32_t)(r - c->syms) + 1;
		}
		/* one variable per offset, looked up in the first (sorted) entry's process */
		if (e->offset != last_off) {
			last_off = e->offset;
			r = sym_get(c, syms, e->pid, l->addr + e->offset, true);
			if (!r)
				return -ENOMEM;
			last_ds = e->dsym = (uint32_t)(r - c->syms) + 1;
		} else {
			e->dsym = last_ds;
		}
	}
	return 0;
}

static char *evidence_text(const struct line *l)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	const char *sep = "";
	int k;

	if (l->evidence & HWS_C2C_EV_HITM) {
		hws_strbuf__addf(
		    &sb, "HITM %llu (lcl %llu, rmt %llu)", (unsigned long long)hitm_of(l->c),
		    (unsigned long long)l->c[C_LCL_HITM], (unsigned long long)l->c[C_RMT_HITM]);
		sep = "; ";
	}
	if (l->evidence & HWS_C2C_EV_PEER) {
		hws_strbuf__addf(&sb, "%speer snoop %llu (lcl %llu, rmt %llu)", sep,
				 (unsigned long long)peer_of(l->c),
				 (unsigned long long)l->c[C_LCL_PEER],
				 (unsigned long long)l->c[C_RMT_PEER]);
		sep = "; ";
	}
	if (l->evidence & (HWS_C2C_EV_HITM | HWS_C2C_EV_PEER)) {
		const char *plus = "";

		hws_strbuf__addstr(&sb, " from ");
		for (k = 0; k < NR_SRC; k++) {
			if (l->src_mask & (1U << k)) {
				hws_strbuf__addf(&sb, "%s%s", plus, src_text[k]);
				plus = " + ";
			}
		}
		sep = "; ";
	}
	if (l->evidence & HWS_C2C_EV_RMT_CACHE) {
		hws_strbuf__addf(&sb, "%sremote cache hits %llu", sep,
				 (unsigned long long)l->c[C_RMT_HIT]);
		sep = "; ";
	}
	if (l->inferred)
		hws_strbuf__addf(&sb,
				 "%sno store sampled: sharing inferred from the offsets of "
				 "the coherence misses",
				 sep);
	else if (!(l->evidence & (HWS_C2C_EV_HITM | HWS_C2C_EV_PEER | HWS_C2C_EV_RMT_CACHE)) &&
		 (l->evidence & HWS_C2C_EV_ADDR))
		hws_strbuf__addf(&sb,
				 "%saddress overlap alone (stores and other threads' "
				 "accesses sampled, no coherence event)",
				 sep);
	else if (l->evidence & HWS_C2C_EV_ADDR)
		hws_strbuf__addf(&sb, "%swriter and other threads sampled", sep);
	if (!sb.len)
		hws_strbuf__addstr(&sb, "none");
	if (sb.toobig) {
		hws_strbuf__release(&sb);
		return NULL;
	}
	return sb.buf;
}

/*
 * An entry's counters, latency sums and coherence sources from its slots and side record
 * (the slots are dead afterwards: lat shares their memory; the sources are also counted
 * into c->src_cnt), its nodes from its CPU bits, and the bits of its CPUs >= 256 added
 * (aliased, as nr_cpus counts them).
 */
static void ent_finish(struct hws_c2c *c, struct entry *e)
{
	uint64_t sum = 0, lh = 0, rh = 0, pe = 0;
	uint32_t *cn = e->c, k, i, b;

	memset(e->c, 0, sizeof(e->c));
	for (k = 0; k < NSLOT; k++) {
		uint32_t kd = (e->kid >> (8 * k)) & 0xff, n = e->kn[k];
		uint64_t v = e->klat[k];
		const struct kind *kp;

		if (kd == KFREE)
			break; /* slots are claimed in order */
		kp = &c->kinds[kd];
		for (b = kp->m; b; b &= b - 1)
			cn[__builtin_ctz(b)] += n;
		if (kp->src_bit) {
			e->src_mask |= kp->src_bit;
			c->src_cnt[__builtin_ctz(kp->src_bit)] += n;
		}
		sum += v;
		lh += v & kp->lcl_hitm;
		rh += v & kp->rmt_hitm;
		pe += v & kp->peer;
	}
	e->nodes = cpus_nodes(c, e->cpus);
	if (e->xc) {
		const struct xcnt *x = &c->xcnt[e->xc - 1];

		for (i = 0; i < NC; i++)
			cn[i] += x->c[i];
		sum += x->sum;
		lh += x->lcl_hitm;
		rh += x->rmt_hitm;
		pe += x->peer;
		for (i = 0; i < 4; i++)
			e->cpus[i] |= x->cpus_hi[i];
		e->nodes |= x->nodes_hi;
	}
	e->lat.sum = sum;
	e->lat.lcl_hitm = lh;
	e->lat.rmt_hitm = rh;
	e->lat.peer = pe;
}

int hws_c2c__finish(struct hws_c2c *c, struct hws_symbols *syms)
{
	uint32_t i, j, k, ei;
	int err;

	if (c->finished)
		return 0;
	c->finished = true;
	memset(c->memo, 0, sizeof(c->memo)); /* hws_c2c__add() refuses samples from now on */
	err = pend_flush(c);
	if (err)
		return err;
	/* entry counters from the slots; line counters and totals: sums over the entries (plus
	 * samples without address) */
	for (ei = 0; ei < c->nr_ents; ei++) {
		struct entry *e = &c->ents[ei];
		struct line *l = &c->lines[e->line];
		struct lat el;

		ent_finish(c, e);
		el = ent_lat(e);
		for (k = 0; k < NC; k++) {
			l->c[k] += e->c[k];
			c->tot[k] += e->c[k];
		}
		lat_sum(&l->lat, &el);
		lat_sum(&c->tlat, &el);
		for (k = 0; k < 4; k++)
			l->cpus[k] |= e->cpus[k];
		l->nodes |= e->nodes;
		l->src_mask |= e->src_mask;
	}
	free(c->xcnt);
	c->xcnt = NULL;
	c->nr_xcnt = c->cap_xcnt = 0;
	for (k = 0; k < NR_SRC; k++) {
		c->src_count[k] = c->src_cnt[k];
		if (c->src_cnt[k])
			c->src_seen |= (uint8_t)(1U << k);
	}
	err = lbuf_flush(c);
	free(c->lbuf);
	c->lbuf = NULL;
	c->cap_lbuf = 0;
	if (err)
		return err;
	fill_stats(&c->totals, c->tot, &c->tlat);
	c->totals.noaddr = c->noaddr;
	for (i = 0; i < c->nr_lines; i++) {
		err = classify_line(c, &c->lines[i]);
		if (err)
			return err;
	}
	c->report = malloc(sizeof(*c->report) * (c->nr_lines ? c->nr_lines : 1));
	if (!c->report)
		return -ENOMEM;
	for (i = 0; i < c->nr_lines; i++)
		if (c->o.show_all || contended(&c->lines[i]))
			c->report[c->nr_report++] = i;
	sort_c2c = c;
	qsort(c->report, c->nr_report, sizeof(*c->report), cmp_lines);
	sort_c2c = NULL;

	for (k = 0; k < c->nr_report; k++) {
		struct line *l = &c->lines[c->report[k]];
		uint32_t n;

		l->order = malloc(sizeof(*l->order) * (l->nr_entries ? l->nr_entries : 1));
		if (!l->order)
			return -ENOMEM;
		for (j = 0, ei = l->first; ei != NONE; ei = c->ents[ei].next)
			l->order[j++] = ei;
		sort_ec2c = c;
		qsort(l->order, l->nr_entries, sizeof(*l->order), cmp_ents);
		sort_ec2c = NULL;
		{
			static const unsigned int ps[3] = {50, 90, 99};
			uint32_t pv[3];

			if (lh_percentiles(&l->lh, ps, pv, 3))
				return -ENOMEM;
			l->p50 = pv[0], l->p90 = pv[1], l->p99 = pv[2];
		}
		for (n = 0, j = 0; j < 4; j++)
			n += (uint32_t)__builtin_popcountll(l->cpus[j]);
		l->nr_cpus = n;
		l->nr_nodes = (uint32_t)__builtin_popcountll(l->nodes);
		l->evidence_text = evidence_text(l);
		if (!l->evidence_text)
			return -ENOMEM;
		/* symbols for the reported lines (bounded: the first 1000) */
		if (k < 1000) {
			err = symbolize_line(c, l, syms);
			if (err)
				return err;
		}
	}
	for (i = 0; i < c->nr_lines; i++)
		lh_free(&c->lines[i].lh);
	free(c->ehash);
	c->ehash = NULL;
	c->ehash_size = 0;
	return 0;
}

/* ---------------------------------------------------------------- accessors */

uint32_t hws_c2c__nr_lines(const struct hws_c2c *c)
{
	return c->nr_report;
}

static void fill_stats(struct hws_c2c_stats *st, const uint64_t *cn, const struct lat *lat)
{
	memset(st, 0, sizeof(*st));
	st->records = cn[C_RECORDS];
	st->loads = cn[C_LOADS];
	st->stores = cn[C_STORES];
	st->locks = cn[C_LOCKS];
	st->lcl_hitm = cn[C_LCL_HITM];
	st->rmt_hitm = cn[C_RMT_HITM];
	st->lcl_peer = cn[C_LCL_PEER];
	st->rmt_peer = cn[C_RMT_PEER];
	st->rmt_hit = cn[C_RMT_HIT];
	st->ld_fbhit = cn[C_LD_FB];
	st->ld_l1hit = cn[C_LD_L1];
	st->ld_l2hit = cn[C_LD_L2];
	st->ld_llchit = cn[C_LD_LLC];
	st->ld_uncache = cn[C_LD_UNC];
	st->ld_io = cn[C_LD_IO];
	st->lcl_dram = cn[C_LCL_DRAM];
	st->rmt_dram = cn[C_RMT_DRAM];
	st->st_l1hit = cn[C_ST_L1HIT];
	st->st_l1miss = cn[C_ST_L1MISS];
	st->st_na = cn[C_ST_NA];
	st->lat_sum = lat->sum;
	st->lat_n = lat->n;
	st->lcl_hitm_lat = lat->lcl_hitm;
	st->rmt_hitm_lat = lat->rmt_hitm;
	st->peer_lat = lat->peer;
	st->rmw = cn[C_RMW];
}

int hws_c2c__line(const struct hws_c2c *c, uint32_t i, struct hws_c2c_line_info *out)
{
	const struct line *l;

	if (i >= c->nr_report)
		return -EINVAL;
	l = &c->lines[c->report[i]];
	memset(out, 0, sizeof(*out));
	out->sz = sizeof(*out);
	out->index = i;
	out->addr = l->addr;
	out->pid = l->pid;
	out->cls = l->cls;
	out->evidence = l->evidence;
	out->confidence = l->conf;
	fill_stats(&out->st, l->c, &l->lat);
	out->lat_p50 = l->p50;
	out->lat_p90 = l->p90;
	out->lat_p99 = l->p99;
	out->nr_threads = l->nr_threads;
	out->nr_cpus = l->nr_cpus;
	out->nr_nodes = l->nr_nodes;
	out->nodes = l->nodes;
	out->nr_offsets = l->nr_offsets;
	out->false_offsets = l->false_off;
	out->true_offsets = l->true_off;
	out->evidence_text = l->evidence_text;
	out->data_symbol = l->data_symbol;
	return 0;
}

uint32_t hws_c2c__top(const struct hws_c2c *c)
{
	return c->o.top;
}

uint32_t hws_c2c__nr_entries(const struct hws_c2c *c, uint32_t i)
{
	return i < c->nr_report ? c->lines[c->report[i]].nr_entries : 0;
}

int hws_c2c__entry(const struct hws_c2c *c, uint32_t i, uint32_t j, struct hws_c2c_entry_info *out)
{
	const struct line *l;
	const struct entry *e;
	uint64_t cn[NC];
	struct lat lat;
	uint32_t k;

	if (i >= c->nr_report)
		return -EINVAL;
	l = &c->lines[c->report[i]];
	if (j >= l->nr_entries || !l->order)
		return -EINVAL;
	e = &c->ents[l->order[j]];
	for (k = 0; k < NC; k++)
		cn[k] = e->c[k];
	lat = ent_lat(e);
	memset(out, 0, sizeof(*out));
	out->sz = sizeof(*out);
	out->offset = e->offset;
	out->width = e->width;
	out->pid = e->pid;
	out->tid = e->tid;
	out->ip = e->ip;
	fill_stats(&out->st, cn, &lat);
	out->nr_cpus =
	    (uint32_t)__builtin_popcountll(e->cpus[0] | e->cpus[1] | e->cpus[2] | e->cpus[3]);
	out->in_false = e->in_false;
	out->in_true = e->in_true;
	if (e->sym) {
		out->symbol = c->syms[e->sym - 1].symbol;
		out->dso = c->syms[e->sym - 1].dso;
		out->srcline = c->syms[e->sym - 1].srcline;
	}
	out->data_symbol = e->dsym ? c->syms[e->dsym - 1].symbol : NULL;
	return 0;
}

const struct hws_c2c_stats *hws_c2c__totals(const struct hws_c2c *c)
{
	return &c->totals;
}

/* ---------------------------------------------------------------- text and JSON */

static double pctf(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static double mean(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / (double)n : 0.0;
}

static const char *conf_label(float f)
{
	return f >= 0.75f ? "high" : f >= 0.45f ? "medium" : "low";
}

static void offsets_text(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i, bool fls)
{
	struct hws_c2c_entry_info e;
	uint32_t j, n = hws_c2c__nr_entries(c, i), last = UINT32_MAX;
	const char *sep = "";

	for (j = 0; j < n; j++) {
		hws_c2c__entry(c, i, j, &e);
		if (!(fls ? e.in_false : e.in_true) || e.offset == last)
			continue;
		last = e.offset;
		hws_strbuf__addf(sb, "%s0x%x", sep, e.offset);
		sep = ",";
	}
	if (!*sep)
		hws_strbuf__addstr(sb, "-");
}

/* "tid(n)" lists of writers or readers of one offset */
static void who_text(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i, uint32_t j0,
		     uint32_t j1, bool writers)
{
	struct hws_c2c_entry_info e;
	uint32_t j, k, nr = 0;
	struct {
		uint32_t tid;
		uint64_t n;
	} who[16];

	for (j = j0; j < j1; j++) {
		uint64_t n;

		hws_c2c__entry(c, i, j, &e);
		n = writers ? e.st.stores + e.st.rmw : e.st.loads;
		if (!n)
			continue;
		for (k = 0; k < nr; k++)
			if (who[k].tid == e.tid)
				break;
		if (k == nr) {
			if (nr == 16)
				continue;
			who[nr].tid = e.tid;
			who[nr++].n = 0;
		}
		who[k].n += n;
	}
	if (!nr) {
		hws_strbuf__addstr(sb, "-");
		return;
	}
	for (k = 0; k < nr; k++)
		hws_strbuf__addf(sb, "%s%d(%llu)", k ? " " : "", (int)who[k].tid,
				 (unsigned long long)who[k].n);
}

void hws_c2c__set_output(struct hws_c2c *c, hws_c2c_out_fn fn, void *ctx)
{
	c->out_fn = fn;
	c->out_ctx = ctx;
}

#define OUT_CHUNK (1u << 20)

/* with an output function, hand it what @sb holds once that passes OUT_CHUNK: the report's
 * size is then not bounded by the strbuf's cap, and memory stays at about a chunk */
static void out_drain(const struct hws_c2c *c, struct hws_strbuf *sb)
{
	if (!c->out_fn || sb->len < OUT_CHUNK)
		return;
	if (c->out_fn(c->out_ctx, sb->buf, sb->len))
		sb->toobig = 1; /* the output failed: the report ends with an error */
	sb->len = 0;
	sb->buf[0] = 0;
}

/* the render's result: 0, or HWS_E_TOO_BIG when the text passed @sb's cap (or the output
 * function failed) */
static int out_result(const struct hws_c2c *c, struct hws_strbuf *sb)
{
	if (!sb->toobig && c->out_fn && sb->len) {
		if (c->out_fn(c->out_ctx, sb->buf, sb->len))
			sb->toobig = 1;
		sb->len = 0;
		sb->buf[0] = 0;
	}
	return sb->toobig ? HWS_E_TOO_BIG : 0;
}

int hws_c2c__render_stdio(const struct hws_c2c *c, struct hws_strbuf *sb)
{
	const struct hws_c2c_stats *t = hws_c2c__totals(c);
	struct hws_c2c_stats tt = *t;
	struct hws_c2c_line_info li;
	struct hws_c2c_entry_info e;
	uint64_t shared = 0, sh_hitm = 0, sh_peer = 0, tot_hitm = tt.lcl_hitm + tt.rmt_hitm;
	uint32_t i, j, nfs = 0, nts = 0, nmx = 0, nun = 0;
	const char *bar = "=================================================\n";
	int k;

	for (i = 0; i < c->nr_report; i++) {
		hws_c2c__line(c, i, &li);
		if (!contended(&c->lines[c->report[i]]))
			continue;
		shared++;
		sh_hitm += li.st.lcl_hitm + li.st.rmt_hitm;
		sh_peer += li.st.lcl_peer + li.st.rmt_peer;
		nfs += li.cls == HWS_C2C_FALSE_SHARING;
		nts += li.cls == HWS_C2C_TRUE_SHARING;
		nmx += li.cls == HWS_C2C_MIXED;
		nun += li.cls == HWS_C2C_UNRESOLVED;
	}
	hws_strbuf__addf(sb, "%s            Trace Event Information\n%s", bar, bar);
	hws_strbuf__addf(sb, "  Total records                     : %10llu\n",
			 (unsigned long long)tt.records);
	hws_strbuf__addf(sb, "  Locked Load/Store Operations      : %10llu\n",
			 (unsigned long long)tt.locks);
	hws_strbuf__addf(sb, "  Load Operations                   : %10llu\n",
			 (unsigned long long)tt.loads);
	hws_strbuf__addf(sb, "  Loads - uncacheable / IO          : %10llu / %llu\n",
			 (unsigned long long)tt.ld_uncache, (unsigned long long)tt.ld_io);
	hws_strbuf__addf(sb, "  Loads - L1 / LFB / L2 hit         : %10llu / %llu / %llu\n",
			 (unsigned long long)tt.ld_l1hit, (unsigned long long)tt.ld_fbhit,
			 (unsigned long long)tt.ld_l2hit);
	hws_strbuf__addf(sb, "  Load LLC hit (incl. local HITM)   : %10llu\n",
			 (unsigned long long)(tt.ld_llchit + tt.lcl_hitm));
	hws_strbuf__addf(sb, "  Load Local HITM                   : %10llu\n",
			 (unsigned long long)tt.lcl_hitm);
	hws_strbuf__addf(sb, "  Load Remote HITM                  : %10llu\n",
			 (unsigned long long)tt.rmt_hitm);
	hws_strbuf__addf(sb, "  Load Local / Remote Peer          : %10llu / %llu\n",
			 (unsigned long long)tt.lcl_peer, (unsigned long long)tt.rmt_peer);
	hws_strbuf__addf(sb, "  Load Remote cache hit             : %10llu\n",
			 (unsigned long long)tt.rmt_hit);
	hws_strbuf__addf(sb, "  Load Local / Remote DRAM          : %10llu / %llu\n",
			 (unsigned long long)tt.lcl_dram, (unsigned long long)tt.rmt_dram);
	hws_strbuf__addf(sb, "  Store Operations                  : %10llu\n",
			 (unsigned long long)tt.stores);
	hws_strbuf__addf(sb, "  Store - L1 hit / L1 miss / N/A    : %10llu / %llu / %llu\n",
			 (unsigned long long)tt.st_l1hit, (unsigned long long)tt.st_l1miss,
			 (unsigned long long)tt.st_na);
	hws_strbuf__addf(sb, "  No address (ignored)              : %10llu\n",
			 (unsigned long long)tt.noaddr);
	hws_strbuf__addf(sb, "  Other ops (not load/store)        : %10llu\n",
			 (unsigned long long)c->other);
	hws_strbuf__addf(sb, "  Cache line size                   : %10u (%s)\n", c->o.line_size,
			 c->o.line_size_source);
	hws_strbuf__addstr(sb, "  Coherence evidence from           :");
	if (!c->src_seen)
		hws_strbuf__addstr(sb, " none (no HITM or peer snoop in the data)");
	for (k = 0; k < NR_SRC; k++)
		if (c->src_seen & (1U << k))
			hws_strbuf__addf(sb, " %s (%llu)", src_text[k],
					 (unsigned long long)c->src_count[k]);
	hws_strbuf__addstr(sb, "\n");
	if (!tt.records)
		hws_strbuf__addstr(
		    sb, "  Note: no load or store samples: record memory samples with data "
			"sources (hwsample c2c record, perf c2c record, perf mem record)\n");
	hws_strbuf__addstr(sb, "\n");
	hws_strbuf__addf(sb, "%s    Global Shared Cache Line Event Information\n%s", bar, bar);
	hws_strbuf__addf(sb, "  Total Shared Cache Lines          : %10llu\n",
			 (unsigned long long)shared);
	hws_strbuf__addf(sb, "  HITM on shared lines              : %10llu (of %llu)\n",
			 (unsigned long long)sh_hitm, (unsigned long long)tot_hitm);
	hws_strbuf__addf(sb, "  Peer snoops on shared lines       : %10llu (of %llu)\n",
			 (unsigned long long)sh_peer,
			 (unsigned long long)(tt.lcl_peer + tt.rmt_peer));
	hws_strbuf__addf(sb, "  False / true / mixed / unresolved : %10u / %u / %u / %u\n", nfs,
			 nts, nmx, nun);
	hws_strbuf__addstr(sb, "\n");

	hws_strbuf__addf(sb, "%s           Shared Data Cache Line Table\n%s", bar, bar);
	hws_strbuf__addf(sb,
			 "#\n# %5s %18s %6s %6s %6s %6s %6s %6s %8s %7s %7s %6s %6s %6s "
			 "%7s %6s %6s %3s %3s %5s  %-14s %-11s %s\n",
			 "Index", "Cacheline", "Hitm%", "Tot", "LclHtm", "RmtHtm", "Peer", "RmtCc",
			 "Records", "Loads", "Stores", "L1Hit", "L1Miss", "N/A", "LatAvg", "p50",
			 "p99", "Thr", "Cpu", "Nodes", "Class", "Confidence", "Evidence");
	hws_strbuf__addf(sb, "#%s\n",
			 "  ......................................................."
			 "...............................................");
	for (i = 0; i < c->nr_report; i++) {
		uint64_t h;

		hws_c2c__line(c, i, &li);
		h = li.st.lcl_hitm + li.st.rmt_hitm;
		hws_strbuf__addf(
		    sb,
		    "  %5u %#18llx %5.2f%% %6llu %6llu %6llu %6llu %6llu %8llu %7llu "
		    "%7llu %6llu %6llu %6llu %7.1f %6u %6u %3u %3u %5u  %-14s "
		    "%4.2f %-6s %s\n",
		    i, (unsigned long long)li.addr, pctf(h, tot_hitm), (unsigned long long)h,
		    (unsigned long long)li.st.lcl_hitm, (unsigned long long)li.st.rmt_hitm,
		    (unsigned long long)(li.st.lcl_peer + li.st.rmt_peer),
		    (unsigned long long)li.st.rmt_hit, (unsigned long long)li.st.records,
		    (unsigned long long)li.st.loads, (unsigned long long)li.st.stores,
		    (unsigned long long)li.st.st_l1hit, (unsigned long long)li.st.st_l1miss,
		    (unsigned long long)li.st.st_na, mean(li.st.lat_sum, li.st.lat_n), li.lat_p50,
		    li.lat_p99, li.nr_threads, li.nr_cpus, li.nr_nodes, hws_c2c_class__name(li.cls),
		    li.confidence, conf_label(li.confidence), li.evidence_text);
		out_drain(c, sb);
	}
	hws_strbuf__addstr(sb, "\n");

	hws_strbuf__addf(sb, "%s      Shared Cache Line Distribution Pareto\n%s", bar, bar);
	for (i = 0; i < c->nr_report && i < c->o.top; i++) {
		uint32_t n = hws_c2c__nr_entries(c, i), j0;

		hws_c2c__line(c, i, &li);
		hws_strbuf__addstr(sb,
				   "  ----------------------------------------------------------"
				   "---------------------------------\n");
		hws_strbuf__addf(
		    sb, "  %5u  %#llx  pid %d  %s%s  class: %s  confidence %.2f (%s)\n", i,
		    (unsigned long long)li.addr, (int)li.pid, li.data_symbol ? "data: " : "",
		    li.data_symbol ? li.data_symbol : "", hws_c2c_class__name(li.cls),
		    li.confidence, conf_label(li.confidence));
		hws_strbuf__addf(sb, "         evidence: %s\n", li.evidence_text);
		hws_strbuf__addstr(sb, "         false-sharing offsets: ");
		offsets_text(sb, c, i, true);
		hws_strbuf__addstr(sb, "   true-sharing offsets: ");
		offsets_text(sb, c, i, false);
		hws_strbuf__addf(sb,
				 "\n         latency cycles: mean %.1f p50 %u p90 %u p99 %u "
				 "(%llu loads)\n",
				 mean(li.st.lat_sum, li.st.lat_n), li.lat_p50, li.lat_p90,
				 li.lat_p99, (unsigned long long)li.st.lat_n);
		/* per offset: writers and readers */
		for (j0 = 0; j0 < n; j0 = j) {
			hws_c2c__entry(c, i, j0, &e);
			for (j = j0 + 1; j < n; j++) {
				struct hws_c2c_entry_info f;

				hws_c2c__entry(c, i, j, &f);
				if (f.offset != e.offset)
					break;
			}
			hws_strbuf__addf(sb, "         off 0x%-4x %-24s writers: ", e.offset,
					 e.data_symbol ? e.data_symbol : "");
			who_text(sb, c, i, j0, j, true);
			hws_strbuf__addstr(sb, "  readers: ");
			who_text(sb, c, i, j0, j, false);
			hws_strbuf__addstr(sb, "\n");
		}
		hws_strbuf__addf(sb, "  ----------------------------------------------------------"
				     "---------------------------------\n");
		hws_strbuf__addf(sb,
				 "  %7s %7s %7s %5s %7s %7s %7s %6s %7s %7s %18s %8s %8s %8s "
				 "%6s %4s  %-28s %s\n",
				 "LclHitm", "RmtHitm", "Peer", "Share", "L1Hit", "L1Miss", "N/A",
				 "Off", "Pid", "Tid", "Code address", "cyc-lhtm", "cyc-rhtm",
				 "cyc-load", "Recs", "Cpu", "Symbol", "Source:Line  [data]");
		for (j = 0; j < n; j++) {
			hws_c2c__entry(c, i, j, &e);
			hws_strbuf__addf(
			    sb,
			    "  %6.1f%% %6.1f%% %6.1f%% %5s %6.1f%% %6.1f%% %6.1f%% %#6x %7d "
			    "%7d %#18llx %8.0f %8.0f %8.0f %6llu %4u  %-28s %s%s%s%s\n",
			    pctf(e.st.lcl_hitm, li.st.lcl_hitm),
			    pctf(e.st.rmt_hitm, li.st.rmt_hitm),
			    pctf(e.st.lcl_peer + e.st.rmt_peer, li.st.lcl_peer + li.st.rmt_peer),
			    e.in_false && e.in_true ? "F+T"
			    : e.in_false	    ? "false"
			    : e.in_true		    ? "true"
						    : "-",
			    pctf(e.st.st_l1hit, li.st.st_l1hit),
			    pctf(e.st.st_l1miss, li.st.st_l1miss), pctf(e.st.st_na, li.st.st_na),
			    e.offset, (int)e.pid, (int)e.tid, (unsigned long long)e.ip,
			    mean(e.st.lcl_hitm_lat, e.st.lcl_hitm),
			    mean(e.st.rmt_hitm_lat, e.st.rmt_hitm), mean(e.st.lat_sum, e.st.lat_n),
			    (unsigned long long)e.st.records, e.nr_cpus,
			    e.symbol ? e.symbol : "[unknown]", e.srcline ? e.srcline : "",
			    e.data_symbol ? "  [" : "", e.data_symbol ? e.data_symbol : "",
			    e.data_symbol ? "]" : "");
			out_drain(c, sb);
		}
		out_drain(c, sb);
	}
	return out_result(c, sb);
}

static void json_stats(struct hws_strbuf *sb, const struct hws_c2c_stats *s)
{
	hws_strbuf__addf(
	    sb,
	    "\"records\":%llu,\"loads\":%llu,\"stores\":%llu,\"locks\":%llu,"
	    "\"hitm\":{\"total\":%llu,\"local\":%llu,\"remote\":%llu},"
	    "\"peer\":{\"total\":%llu,\"local\":%llu,\"remote\":%llu},\"remote_cache_hit\":%llu,"
	    "\"load_hits\":{\"lfb\":%llu,\"l1\":%llu,\"l2\":%llu,\"llc\":%llu,"
	    "\"local_dram\":%llu,\"remote_dram\":%llu,\"uncached\":%llu,\"io\":%llu},"
	    "\"store\":{\"l1_hit\":%llu,\"l1_miss\":%llu,\"na\":%llu},\"rmw\":%llu",
	    (unsigned long long)s->records, (unsigned long long)s->loads,
	    (unsigned long long)s->stores, (unsigned long long)s->locks,
	    (unsigned long long)(s->lcl_hitm + s->rmt_hitm), (unsigned long long)s->lcl_hitm,
	    (unsigned long long)s->rmt_hitm, (unsigned long long)(s->lcl_peer + s->rmt_peer),
	    (unsigned long long)s->lcl_peer, (unsigned long long)s->rmt_peer,
	    (unsigned long long)s->rmt_hit, (unsigned long long)s->ld_fbhit,
	    (unsigned long long)s->ld_l1hit, (unsigned long long)s->ld_l2hit,
	    (unsigned long long)s->ld_llchit, (unsigned long long)s->lcl_dram,
	    (unsigned long long)s->rmt_dram, (unsigned long long)s->ld_uncache,
	    (unsigned long long)s->ld_io, (unsigned long long)s->st_l1hit,
	    (unsigned long long)s->st_l1miss, (unsigned long long)s->st_na,
	    (unsigned long long)s->rmw);
}

static void json_str_or_null(struct hws_strbuf *sb, const char *s)
{
	if (s)
		hws_strbuf__add_json_str(sb, s);
	else
		hws_strbuf__addstr(sb, "null");
}

static void json_offsets(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i, bool fls)
{
	struct hws_c2c_entry_info e;
	uint32_t j, n = hws_c2c__nr_entries(c, i), last = UINT32_MAX;
	const char *sep = "";

	hws_strbuf__addstr(sb, "[");
	for (j = 0; j < n; j++) {
		hws_c2c__entry(c, i, j, &e);
		if (!(fls ? e.in_false : e.in_true) || e.offset == last)
			continue;
		last = e.offset;
		hws_strbuf__addf(sb, "%s%u", sep, e.offset);
		sep = ",";
	}
	hws_strbuf__addstr(sb, "]");
}

/*
 * who: "writers" or "readers" of rows [j0, j1) (one offset) as [{pid,tid,samples}], threads in
 * the order of their first row; linear in the rows (threads found through a hash table).
 */
static void json_who(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i, uint32_t j0,
		     uint32_t j1, bool writers)
{
	struct who {
		uint32_t pid, tid;
		uint64_t n;
	} *w = NULL;
	uint32_t j, nw = 0, hsz = 16, h, x, *ht = NULL;
	struct hws_c2c_entry_info e;
	const char *sep = "";

	while (hsz < 2 * (j1 - j0))
		hsz *= 2;
	w = malloc(sizeof(*w) * (j1 - j0 ? j1 - j0 : 1));
	ht = calloc(hsz, sizeof(*ht));
	if (!w || !ht) {
		sb->toobig = 1; /* out of memory: the report ends with HWS_E_TOO_BIG (incomplete) */
		goto out;
	}
	for (j = j0; j < j1; j++) {
		uint64_t key;

		hws_c2c__entry(c, i, j, &e);
		key = (uint64_t)e.pid << 32 | e.tid;
		for (h = (uint32_t)mix64(key) & (hsz - 1); (x = ht[h]); h = (h + 1) & (hsz - 1))
			if (w[x - 1].pid == e.pid && w[x - 1].tid == e.tid)
				break;
		if (!x) {
			w[nw].pid = e.pid;
			w[nw].tid = e.tid;
			w[nw].n = 0;
			ht[h] = x = ++nw;
		}
		w[x - 1].n += writers ? e.st.stores + e.st.rmw : e.st.loads;
	}
out:
	hws_strbuf__addstr(sb, "[");
	for (j = 0; j < nw; j++) {
		if (!w[j].n)
			continue;
		hws_strbuf__addf(sb, "%s{\"pid\":%d,\"tid\":%d,\"samples\":%llu}", sep,
				 (int)w[j].pid, (int)w[j].tid, (unsigned long long)w[j].n);
		sep = ",";
	}
	hws_strbuf__addstr(sb, "]");
	free(w);
	free(ht);
}

/* per offset: data symbol, sharing, writers and readers */
static void json_offset_summary(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i)
{
	uint32_t j0, j, n = hws_c2c__nr_entries(c, i);
	struct hws_c2c_entry_info e, f;
	bool fs, ts;

	for (j0 = 0; j0 < n; j0 = j) {
		hws_c2c__entry(c, i, j0, &e);
		fs = e.in_false, ts = e.in_true;
		for (j = j0 + 1; j < n; j++) {
			hws_c2c__entry(c, i, j, &f);
			if (f.offset != e.offset)
				break;
			fs |= f.in_false, ts |= f.in_true;
		}
		hws_strbuf__addf(sb, "%s{\"offset\":%u,\"sharing\":\"%s\",\"data_symbol\":",
				 j0 ? "," : "", e.offset,
				 fs && ts ? "both"
				 : fs	  ? "false"
				 : ts	  ? "true"
					  : "none");
		json_str_or_null(sb, e.data_symbol);
		hws_strbuf__addstr(sb, ",\"writers\":");
		json_who(sb, c, i, j0, j, true);
		hws_strbuf__addstr(sb, ",\"readers\":");
		json_who(sb, c, i, j0, j, false);
		hws_strbuf__addstr(sb, "}");
	}
}

int hws_c2c__render_json(const struct hws_c2c *c, struct hws_strbuf *sb)
{
	return hws_c2c__render_json_top(c, sb, UINT32_MAX);
}

int hws_c2c__render_json_top(const struct hws_c2c *c, struct hws_strbuf *sb, uint32_t detail)
{
	return hws__c2c_render_json(c, sb, detail, true);
}

int hws__c2c_render_json(const struct hws_c2c *c, struct hws_strbuf *sb, uint32_t detail,
			 bool stream)
{
	const struct hws_c2c_stats *t = hws_c2c__totals(c);
	struct hws_c2c_line_info li;
	struct hws_c2c_entry_info e;
	uint32_t i, j, n;
	const char *sep;
	int k;

	hws_strbuf__addf(sb, "{\"line_size\":%u,\"line_size_source\":", c->o.line_size);
	hws_strbuf__add_json_str(sb, c->o.line_size_source);
	hws_strbuf__addstr(sb, ",\"totals\":{");
	json_stats(sb, t);
	hws_strbuf__addf(sb,
			 ",\"no_address\":%llu,\"other_ops\":%llu,\"lines_seen\":%u},"
			 "\"evidence_sources\":[",
			 (unsigned long long)t->noaddr, (unsigned long long)c->other, c->nr_lines);
	for (sep = "", k = 0; k < NR_SRC; k++) {
		if (!(c->src_seen & (1U << k)))
			continue;
		hws_strbuf__addf(sb, "%s{\"source\":\"%s\",\"samples\":%llu}", sep, src_text[k],
				 (unsigned long long)c->src_count[k]);
		sep = ",";
	}
	hws_strbuf__addstr(sb, "],\"lines\":[");
	for (i = 0; i < c->nr_report; i++) {
		hws_c2c__line(c, i, &li);
		hws_strbuf__addf(
		    sb,
		    "%s{\"index\":%u,\"address\":\"%#llx\",\"pid\":%d,\"class\":\"%s\","
		    "\"confidence\":%.3f,\"confidence_label\":\"%s\",\"evidence\":[",
		    i ? "," : "", i, (unsigned long long)li.addr, (int)li.pid,
		    hws_c2c_class__name(li.cls), li.confidence, conf_label(li.confidence));
		sep = "";
		if (li.evidence & HWS_C2C_EV_HITM)
			hws_strbuf__addstr(sb, "\"hitm\""), sep = ",";
		if (li.evidence & HWS_C2C_EV_PEER)
			hws_strbuf__addf(sb, "%s\"peer\"", sep), sep = ",";
		if (li.evidence & HWS_C2C_EV_RMT_CACHE)
			hws_strbuf__addf(sb, "%s\"remote_cache\"", sep), sep = ",";
		if (li.evidence & HWS_C2C_EV_ADDR)
			hws_strbuf__addf(sb, "%s\"address\"", sep);
		hws_strbuf__addstr(sb, "],\"evidence_text\":");
		hws_strbuf__add_json_str(sb, li.evidence_text);
		hws_strbuf__addstr(sb, ",\"data_symbol\":");
		json_str_or_null(sb, li.data_symbol);
		hws_strbuf__addstr(sb, ",\"false_sharing_offsets\":");
		json_offsets(sb, c, i, true);
		hws_strbuf__addstr(sb, ",\"true_sharing_offsets\":");
		json_offsets(sb, c, i, false);
		hws_strbuf__addstr(sb, ",");
		json_stats(sb, &li.st);
		hws_strbuf__addf(
		    sb,
		    ",\"latency\":{\"n\":%llu,\"mean\":%.1f,\"p50\":%u,\"p90\":%u,"
		    "\"p99\":%u,\"lcl_hitm_mean\":%.1f,\"rmt_hitm_mean\":%.1f},"
		    "\"threads\":%u,\"cpus\":%u,\"nodes\":[",
		    (unsigned long long)li.st.lat_n, mean(li.st.lat_sum, li.st.lat_n), li.lat_p50,
		    li.lat_p90, li.lat_p99, mean(li.st.lcl_hitm_lat, li.st.lcl_hitm),
		    mean(li.st.rmt_hitm_lat, li.st.rmt_hitm), li.nr_threads, li.nr_cpus);
		for (sep = "", k = 0; k < 64; k++)
			if (li.nodes & (1ULL << k))
				hws_strbuf__addf(sb, "%s%d", sep, k), sep = ",";
		hws_strbuf__addstr(sb, "],\"offsets\":[");
		if (i < detail)
			json_offset_summary(sb, c, i);
		hws_strbuf__addstr(sb, "],\"entries\":[");
		n = i < detail ? hws_c2c__nr_entries(c, i) : 0;
		for (j = 0; j < n; j++) {
			hws_c2c__entry(c, i, j, &e);
			hws_strbuf__addf(sb,
					 "%s{\"offset\":%u,\"width\":%u,\"pid\":%d,\"tid\":%d,"
					 "\"ip\":\"%#llx\",\"sharing\":\"%s\",\"cpus\":%u,"
					 "\"symbol\":",
					 j ? "," : "", e.offset, e.width, (int)e.pid, (int)e.tid,
					 (unsigned long long)e.ip,
					 e.in_false && e.in_true ? "both"
					 : e.in_false		 ? "false"
					 : e.in_true		 ? "true"
								 : "none",
					 e.nr_cpus);
			json_str_or_null(sb, e.symbol);
			hws_strbuf__addstr(sb, ",\"dso\":");
			json_str_or_null(sb, e.dso);
			hws_strbuf__addstr(sb, ",\"srcline\":");
			json_str_or_null(sb, e.srcline);
			hws_strbuf__addstr(sb, ",\"data_symbol\":");
			json_str_or_null(sb, e.data_symbol);
			hws_strbuf__addf(sb, ",\"latency_mean\":%.1f,",
					 mean(e.st.lat_sum, e.st.lat_n));
			json_stats(sb, &e.st);
			hws_strbuf__addstr(sb, "}");
			if (stream)
				out_drain(c, sb);
		}
		hws_strbuf__addstr(sb, "]}");
		if (stream)
			out_drain(c, sb);
	}
	hws_strbuf__addstr(sb, "]}\n");
	return stream ? out_result(c, sb) : sb->toobig ? HWS_E_TOO_BIG : 0;
}
