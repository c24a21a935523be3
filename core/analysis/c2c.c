// SPDX-License-Identifier: MIT
/*
 * c2c analysis: samples -> cache lines -> offsets. This file: the object's lifetime, its hash
 * tables, and the per-sample path (hws_c2c__add); the data structures are described in
 * analysis/c2c_int.h, the verdicts made of them in c2c_classify.c.
 *
 * Invariants:
 *  - only struct hws_sample is read (vendor-neutral); the per-sample classification follows
 *    perf's c2c_decode_stats() on the perf_mem_data_src value, and falls back to the
 *    normalized mem_level/snoop when data_src carries no level (lvl NA / 0);
 *  - per sample: no allocation (tables grow by doubling), no symbol lookup.
 *    hws_c2c__add() classifies the sample (memoized per data_src/op kind: a kind is a
 *    distinct counter mask and coherence source) and counts it in the first two cache
 *    lines of its entry: one probe of the entry table, the count and latency sum of the
 *    kind's slot (each entry keeps NSLOT kinds, claimed in sample order; other kinds go to
 *    a counter vector of enum cnt positions in the entry's side record, c->xcnt), the CPU
 *    bit, and the latency in the line's direct counters or, without them, a (line,
 *    latency) pair appended to a buffer that is counted into the lines' histograms a
 *    batch at a time (c2c_hist.c). Counters are u32: saturating is not needed below 4G
 *    samples per entry. NUMA nodes are the nodes of the entry's CPU bits, looked up when
 *    settling (CPUs >= 256, whose bits alias, go to the side record with their nodes).
 *    Once the entries outgrow the L2 cache, samples are queued and counted in batches with
 *    prefetches (pend_flush), in the same order;
 *  - hws__c2c_settle() (called once by __finish) turns the slots into the entries'
 *    counters (c[], lat) and coherence sources; line counters and totals are the entries'
 *    sums. From then on hws_c2c__add() refuses samples and the per-sample tables are gone.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include <hwsample/c2c.h>
#include <hwsample/registry.h>

#include "analysis/c2c_int.h"
#include "util/internal.h"

/* ---------------------------------------------------------------- tables */

int hws__c2c_grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
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
 * hws__c2c_grow() for the entries: 64-byte aligned, so an entry's hot part is two cache lines.
 * realloc (which moves large blocks by remapping, without a copy) with room to align; the entries
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

uint32_t hws__c2c_entry_of(const struct hws_c2c *c, uint64_t addr, uint32_t pid, uint32_t tid,
			   uint64_t ip)
{
	uint64_t k = ent_key(addr, pid, tid, ip);
	uint32_t mask = c->ehash_size - 1, h = (uint32_t)k & mask, idx;

	while ((idx = c->ehash[h].idx)) {
		const struct entry *e = &c->ents[idx - 1];

		if (e->addr == addr && e->ip == ip && e->pid == pid && e->tid == tid)
			return idx - 1;
		h = (h + 1) & mask;
	}
	return NONE;
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
		hws__c2c_lh_free(&c->lines[i].lh);
		free(c->lines[i].order);
		free(c->lines[i].evidence_text);
		free(c->lines[i].sharing_text);
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
	hws__c2c_chain_free(c->cc);
	hws__c2c_names_free(c->names);
	free(c);
}

/* ---------------------------------------------------------------- per-sample */

/*
 * Number of the source of coherence evidence in the samples of @backend (a backend name, may
 * be NULL): the name its ops give (ops->coherence_source, through opts.backends), else
 * SRC_FALLBACK. Memo misses only; the latest backend is remembered.
 */
static uint32_t source_of(struct hws_c2c *c, const char *backend)
{
	const struct hws_backend *b;
	const char *name = SRC_FALLBACK;
	uint32_t i;

	if (c->src_last_nr && c->src_last == backend)
		return c->src_last_nr - 1u;
	b = backend && c->o.backends ? hws_registry__find(c->o.backends, backend) : NULL;
	if (b && HWS_OPS_HAS(b->ops, coherence_source))
		name = b->ops->coherence_source;
	for (i = 0; i < c->nr_src; i++)
		if (!strcmp(c->src_name[i], name))
			break;
	if (i == c->nr_src && c->nr_src < MAX_SRC)
		c->src_name[c->nr_src++] = name;
	else if (i == c->nr_src)
		i = MAX_SRC - 1;
	c->src_last = backend;
	c->src_last_nr = (uint8_t)(i + 1);
	return i;
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
	err = hws__c2c_grow((void **)&c->lines, &c->cap_lines, c->nr_lines + 1, sizeof(*c->lines));
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
			  uint64_t ip, uint32_t kind, uint64_t time);

static inline __attribute__((always_inline)) uint32_t find_entry(struct hws_c2c *c, uint64_t k,
								 uint64_t addr, uint32_t pid,
								 uint32_t tid, uint64_t ip,
								 uint32_t kind, uint64_t time)
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
	return new_entry(c, k, addr, pid, tid, ip, kind, time);
}

/*
 * A new entry (and its line if new), its first slot claimed for @kind (its first sample's)
 * unless NO_KIND: the slow path of find_entry().
 */
static __attribute__((noinline)) uint32_t new_entry(struct hws_c2c *c, uint64_t k, uint64_t addr,
						    uint32_t pid, uint32_t tid, uint64_t ip,
						    uint32_t kind, uint64_t time)
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
	    .time = time,
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

static int lbuf_make_room(struct hws_c2c *c)
{
	if (c->cap_lbuf >= LBUF_MAX)
		return hws__c2c_lbuf_flush(c);
	return hws__c2c_grow((void **)&c->lbuf, &c->cap_lbuf, c->nr_lbuf + 1, sizeof(*c->lbuf));
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
		if (hws__c2c_grow((void **)&c->xcnt, &c->cap_xcnt, c->nr_xcnt + 1,
				  sizeof(*c->xcnt)))
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

	ei = find_entry(c, p->key, p->addr, p->pid, p->tid, p->ip, p->kind, p->time);
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
		cm->src_bit = (uint8_t)(1U << source_of(c, s->backend));
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
	p->time = (f & HWS_SF_TIME) ? s->time : 0;
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
	if (__builtin_expect((f & HWS_SF_CALLCHAIN) && c->o.callchain, 0)) {
		err = hws__c2c_chain_add(c, s, (f & HWS_SF_IP) ? s->ip : 0,
					 (f & HWS_SF_PID) ? s->pid : UINT32_MAX,
					 (f & HWS_SF_PID) ? s->tid : UINT32_MAX);
		if (err)
			return err;
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

/* opts.filter: false for a sample it drops */
static inline bool c2c_keep(const struct hws_c2c *c, const struct hws_sample *s)
{
	return __builtin_expect(!c->o.filter, 1) || hws_filter__match(c->o.filter, c->o.syms, s);
}

int hws_c2c__add(struct hws_c2c *c, const struct hws_sample *s)
{
	return c2c_keep(c, s) ? c2c_add(c, s) : 0;
}

int hws_c2c__sample_fn(void *ctx, const struct hws_sample *s)
{
	struct hws_c2c *c = ctx;

	return c2c_keep(c, s) && c2c_add(c, s) ? 1 : 0;
}

/* ---------------------------------------------------------------- settle */

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

/*
 * The settled entries: counters, latency sums, nodes; line counters and totals are their
 * sums (plus samples without address); the buffered latencies counted into the lines.
 */
int hws__c2c_settle(struct hws_c2c *c)
{
	uint32_t k, ei;
	int err;

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
	for (k = 0; k < c->nr_src; k++) {
		uint32_t j = k;

		c->src_count[k] = c->src_cnt[k];
		if (c->src_cnt[k])
			c->src_seen |= (uint8_t)(1U << k);
		/* insert k into the name order */
		for (; j && strcmp(c->src_name[c->src_order[j - 1]], c->src_name[k]) > 0; j--)
			c->src_order[j] = c->src_order[j - 1];
		c->src_order[j] = (uint8_t)k;
	}
	err = hws__c2c_lbuf_flush(c);
	free(c->lbuf);
	c->lbuf = NULL;
	c->cap_lbuf = 0;
	if (err)
		return err;
	hws__c2c_chain_bind(c); /* before the entry table goes */
	free(c->ehash);
	c->ehash = NULL;
	c->ehash_size = 0;
	return 0;
}

void hws_c2c__set_output(struct hws_c2c *c, hws_c2c_out_fn fn, void *ctx)
{
	c->out_fn = fn;
	c->out_ctx = ctx;
}
