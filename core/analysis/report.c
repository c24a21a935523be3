// SPDX-License-Identifier: MIT
/*
 * Report aggregation (see include/hwsample/report.h); its text is report_text.c's, its tables
 * are in report_table.h.
 *
 * Per sample: a few hash-table updates and counter increments, no allocation (but table
 * growth), no formatting, no symbol lookup. Symbols, sorting and text come once, at render.
 *
 * Invariants:
 *  - an address table is a dense array of distinct (pid, address) entries in insertion
 *    order, indexed by an open-addressing hash of 32-bit entry numbers with a power-of-two
 *    size, at most 3/4 full; a table never holds more than max_keys entries: once full, new
 *    keys only increment the table's "other" tally;
 *  - up to STAGE samples may wait in a table's stage (big tables only); they are applied in
 *    arrival order before anything reads the table, so the result is the same as applying
 *    each at once;
 *  - kernel addresses (top bit set) are keyed with pid 0 so they merge across processes;
 *  - the counts rows are kept in insertion order, strings copied;
 *  - rendering reads the tables (after applying the stage), never changes the tallies (it
 *    may be called twice); each symbol is looked up once per run of sorted addresses it
 *    covers (hws_symbols__resolve_range()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <hwsample/errors.h>
#include <hwsample/report.h>

#include "analysis/report_cg.h"
#include "analysis/report_int.h"
#include "analysis/report_table.h"
#include "analysis/report_view.h"
#include "util/internal.h"

const struct report_lat_field report__lat_fields[NR_LAT] = {
    {HWS_SF_LAT_TOTAL, "lat_total", offsetof(struct hws_sample, lat_total)},
    {HWS_SF_LAT_ISSUE, "lat_issue", offsetof(struct hws_sample, lat_issue)},
    {HWS_SF_LAT_XLAT, "lat_xlat", offsetof(struct hws_sample, lat_xlat)},
    {HWS_SF_LAT_MISS, "lat_miss", offsetof(struct hws_sample, lat_miss)},
    {HWS_SF_LAT_INS, "lat_ins", offsetof(struct hws_sample, lat_ins)},
};

/* perf's names of the events it synthesizes from AUX-trace records, by enum hws_synth bit */
static const char *const synth_names[HWS_SYNTH__NR] = {
    "l1d-miss",	  "l1d-access",	 "llc-miss",	  "llc-access", "tlb-miss",
    "tlb-access", "branch-miss", "remote-access", "memory",
};

/* the synthesized events' sections come after the file's own events', in perf's order */
#define SYNTH_ATTR_IDX 0xffff0000U

int hws_report__parse_itrace(const char *opts, uint32_t *mask, char *bad, size_t len)
{
	/* perf's --itrace letters (tools/perf/Documentation/itrace.txt) */
	static const char known[] = "iybcrxwpoedfmtaMAqZsgGlLT";
	uint32_t m = 0;
	const char *p = opts;
	int err = 0;

	if (!opts || !*opts) /* perf's default (also of an empty --itrace=) */
		m = (1U << HWS_SYNTH__NR) - 1;
	while (!err && p && *p) {
		const char *at = p;
		char c = *p++;

		if (c == '+' || c == '-') { /* a flag of the letter before: +e, -o, ... */
			if (!*p)
				err = -EINVAL;
			else
				p++;
			continue;
		}
		if (c >= '0' && c <= '9') /* a period or a size of the letter before */
			continue;
		if (!strchr(known, c)) {
			err = -EINVAL;
		} else if (c == 'i') {
			err = -ENOTSUP;
		} else if (c == 'y') {
			/* perf's period: digits and a unit (i, t, ms, us, ns) */
			while (*p >= '0' && *p <= '9')
				p++;
			if (!strncmp(p, "ms", 2) || !strncmp(p, "us", 2) || !strncmp(p, "ns", 2))
				p += 2;
			else if (*p == 'i' || *p == 't')
				p++;
		} else if (c == 'f') {
			m |= HWS_SYNTH_L1D_MISS | HWS_SYNTH_L1D_ACCESS;
		} else if (c == 'm') {
			m |= HWS_SYNTH_LLC_MISS | HWS_SYNTH_LLC_ACCESS;
		} else if (c == 't') {
			m |= HWS_SYNTH_TLB_MISS | HWS_SYNTH_TLB_ACCESS;
		} else if (c == 'b') {
			m |= HWS_SYNTH_BRANCH_MISS;
		} else if (c == 'a') {
			m |= HWS_SYNTH_REMOTE_ACCESS;
		} else if (c == 'M') {
			m |= HWS_SYNTH_MEMORY;
		}
		if (err && bad && len)
			snprintf(bad, len, "%s", at);
	}
	if (!err && mask)
		*mask = m;
	return err;
}

struct hws_report *hws_report__new(const struct hws_report_opts *opts)
{
	struct hws_report *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return NULL;
	err = HWS_OPTS_GET(r->opts, opts, hws_report_opts);
	if (err) {
		free(r);
		return errno = -err, NULL;
	}
	if (hws_report__parse_itrace(r->opts.itrace, &r->synth, NULL, 0)) {
		free(r);
		return errno = EINVAL, NULL;
	}
	if (!r->opts.top)
		r->opts.top = 20;
	if (!r->opts.width)
		r->opts.width = 30;
	if (!r->opts.sections)
		r->opts.sections = ~0U;
	if (!r->opts.max_keys)
		r->opts.max_keys = 4u << 20;
	if (r->opts.max_keys > UINT32_MAX - 1)
		r->opts.max_keys = UINT32_MAX - 1; /* entry indexes are 32-bit */
	r->ips.max = r->addrs.max = r->opts.max_keys;
	if (r->opts.folded) {
		r->folded = hws_folded__new();
		if (!r->folded) {
			free(r);
			return errno = ENOMEM, NULL;
		}
		hws_folded__set_inline(r->folded, r->opts.inline_mode);
		hws_folded__set_max_stack(r->folded, r->opts.max_stack);
	} else if (r->opts.sort_keys || r->opts.mem || r->opts.hierarchy || r->opts.callgraph ||
		   r->opts.children) {
		struct cg_params cg = {.mode = CG_GRAPH, .min_percent = 0.5};

		if (cg_parse(r->opts.callgraph, &cg, NULL, 0)) {
			free(r);
			return errno = EINVAL, NULL;
		}
		r->hist = hws_hist__new(r->opts.sort_keys, r->opts.mem, r->opts.filter);
		if (r->hist && hws_hist__set_hierarchy(r->hist, r->opts.hierarchy)) {
			hws_hist__delete(r->hist);
			free(r);
			return errno = EINVAL, NULL;
		}
		if (!r->hist) {
			err = errno;
			free(r);
			return errno = err, NULL;
		}
		hws_hist__set_callgraph(r->hist, &cg, r->opts.children, r->opts.sort_keys,
					r->opts.max_stack);
		hws_hist__set_inline(r->hist, r->opts.inline_mode);
		hws_hist__set_full_source_path(r->hist, r->opts.full_source_path);
		hws_hist__set_objects(r->hist, r->opts.objects);
	}
	if (r->opts.html && !r->hist) {
		r->heat = calloc(1, sizeof(*r->heat));
		if (!r->heat) {
			hws_hist__delete(r->hist);
			free(r);
			return errno = ENOMEM, NULL;
		}
	}
	for (int i = 0; i < NR_LAT; i++)
		r->lat[i].min = UINT64_MAX;
	return r;
}

static void at_free(struct atable *t)
{
	free(t->slot);
	free(t->e);
}

void hws_report__delete(struct hws_report *r)
{
	if (!r)
		return;
	at_free(&r->ips);
	at_free(&r->addrs);
	for (size_t i = 0; i < r->nr_rows; i++) {
		free(r->rows[i].event);
		free(r->rows[i].backend);
	}
	free(r->rows);
	hws_hist__delete(r->hist);
	hws_folded__delete(r->folded);
	free(r->heat);
	free(r);
}

static inline uint64_t key_hash(uint32_t pid, uint64_t addr)
{
	uint64_t h = addr ^ ((uint64_t)pid << 47) ^ pid;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

/* index + 1 of the entry of (pid, addr), or 0 with *slot = the empty slot ending the probe */
static inline size_t at_find_h(const struct atable *t, uint32_t pid, uint64_t addr, uint64_t h,
			       size_t *slot)
{
	uint32_t tag = (uint32_t)h;
	size_t m = t->size - 1, i = h & m;

	for (; t->slot[i].idx; i = (i + 1) & m) {
		const struct aent *e;

		if (t->slot[i].tag != tag)
			continue;
		e = &t->e[t->slot[i].idx - 1];
		if (e->addr == addr && e->pid == pid)
			return t->slot[i].idx;
	}
	*slot = i;
	return 0;
}

static inline size_t at_find(const struct atable *t, uint32_t pid, uint64_t addr, size_t *slot)
{
	return at_find_h(t, pid, addr, key_hash(pid, addr), slot);
}

/* double the slots. The old slots are read in order and land near i and i + size: two
 * sequential streams, no entry read (the tag is the hash's low bits, enough up to 2^32
 * slots; past that the hash is recomputed from the entries). */
static int at_grow_slots(struct atable *t)
{
	size_t ns = t->size ? t->size * 2 : 1024, m = ns - 1;
	struct aslot *n = calloc(ns, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t k = 0; k < t->size; k++) {
		const struct aslot *o = &t->slot[k];
		uint64_t h;
		size_t i;

		if (!o->idx)
			continue;
		h = ns <= (1ULL << 32) ? o->tag
				       : key_hash(t->e[o->idx - 1].pid, t->e[o->idx - 1].addr);
		for (i = h & m; n[i].idx; i = (i + 1) & m)
			;
		n[i] = *o;
	}
	free(t->slot);
	t->slot = n;
	t->size = ns;
	return 0;
}

static int at_grow_entries(struct atable *t)
{
	size_t na = t->alloc ? t->alloc * 2 : 512;
	struct aent *e = realloc(t->e, na * sizeof(*e));

	if (!e)
		return -ENOMEM;
	t->e = e;
	t->alloc = na;
	return 0;
}

/* account @v to (pid, addr) whose key_hash() is @h */
static int at_put(struct atable *t, uint32_t pid, uint64_t addr, uint64_t h, const struct tally *v)
{
	struct aent *e;
	size_t idx, slot = 0;

	if (t->last) {
		e = &t->e[t->last - 1];
		if (e->addr == addr && e->pid == pid) {
			tally_add(&e->t, v);
			return 0;
		}
	}
	if (t->size) {
		idx = at_find_h(t, pid, addr, h, &slot);
		if (idx) {
			t->last = idx;
			tally_add(&t->e[idx - 1].t, v);
			return 0;
		}
	}
	if (t->nr >= t->max) {
		tally_add(&t->other, v);
		return 0;
	}
	/* at most 3/4 full */
	if ((t->nr + 1) * 4 > t->size * 3) {
		if (at_grow_slots(t))
			return -ENOMEM;
		at_find_h(t, pid, addr, h, &slot);
	}
	if (t->nr == t->alloc && at_grow_entries(t))
		return -ENOMEM;
	e = &t->e[t->nr];
	e->addr = addr;
	e->pid = pid;
	e->pad = 0;
	e->t = *v;
	t->slot[slot].tag = (uint32_t)h;
	t->slot[slot].idx = (uint32_t)++t->nr;
	t->last = t->nr;
	return 0;
}

/* apply the staged samples, in arrival order */
int report__at_flush(struct atable *t)
{
	int err = 0;

	for (unsigned int i = 0; i < t->nstage; i++) {
		const struct staged *x = &t->stage[i];
		int e = at_put(t, x->pid, x->addr, x->hash, &x->v);

		if (e && !err)
			err = e;
	}
	t->nstage = 0;
	return err;
}

/*
 * Account one sample. Once the index outgrows the caches (every sample a new address, as
 * PEBS/IBS data addresses are), each lookup would wait for a cache miss in turn: samples
 * are then staged, their slot's line prefetched, and applied STAGE at a time in arrival
 * order, so the misses overlap. The result is the same as applying them one by one.
 */
static int at_add(struct atable *t, unsigned int cpu, uint32_t pid, uint64_t addr,
		  const struct tally *v)
{
	/* byte-granular code addresses differ in the low bits, 8-byte data in bits 3 and 4 */
	uint32_t *way = &t->lastc[cpu][(addr ^ addr >> 3) & (LASTC_WAYS - 1)];
	struct staged *x;
	uint64_t h;
	int err;

	if ((int64_t)addr < 0)
		pid = 0;
	if (t->nstage) {
		x = &t->stage[t->nstage - 1];
		if (x->addr == addr && x->pid == pid) { /* a run of one address */
			tally_add(&x->v, v);
			return 0;
		}
	} else if (*way) {
		struct aent *e = &t->e[*way - 1];

		if (e->addr == addr && e->pid == pid) { /* seen lately on this CPU */
			tally_add(&e->t, v);
			return 0;
		}
	}
	h = key_hash(pid, addr);
	if (!t->nstage && t->size < STAGE_SLOTS) {
		err = at_put(t, pid, addr, h, v);
		*way = (uint32_t)t->last;
		return err;
	}
	__builtin_prefetch(&t->slot[h & (t->size - 1)]);
	x = &t->stage[t->nstage++];
	x->addr = addr;
	x->hash = h;
	x->pid = pid;
	x->v = *v;
	return t->nstage == STAGE ? report__at_flush(t) : 0;
}

static uint64_t at_get(const struct atable *t, uint32_t pid, uint64_t addr)
{
	size_t idx, slot;

	/* staged samples are part of the (logical) tallies: apply them; the table itself is
	 * never const (allocated by hws_report__new) */
	if (t->nstage)
		report__at_flush((struct atable *)t);
	if (!t->size)
		return 0;
	if ((int64_t)addr < 0)
		pid = 0;
	idx = at_find(t, pid, addr, &slot);
	return idx ? t->e[idx - 1].t.samples : 0;
}

/* bit length of @v, at most HWS_REPORT_LAT_BUCKETS - 1 */
static inline unsigned int log2_bucket(uint64_t v)
{
	unsigned int b = v ? 64 - (unsigned int)__builtin_clzll(v) : 0;

	return b < HWS_REPORT_LAT_BUCKETS - 1 ? b : HWS_REPORT_LAT_BUCKETS - 1;
}

/*
 * A record of an AUX-trace event in perf report's view: a sample of each event perf makes of
 * it (its arm_spe__synth_mem_sample() and _branch_sample()), as they are shown (hws_hist__add).
 */
static int add_synth(struct hws_report *r, const struct hws_sample *s, bool shown)
{
	uint32_t m = s->synth & r->synth;
	struct hws_sample t;
	int err = 0;

	while (m && !err) {
		unsigned int k = (unsigned int)__builtin_ctz(m);

		m &= m - 1;
		t = *s;
		t.event = synth_names[k];
		t.attr_idx = SYNTH_ATTR_IDX + k;
		t.period = 1;
		t.fields |= HWS_SF_PERIOD | HWS_SF_ADDR | HWS_SF_DATA_SRC | HWS_SF_WEIGHT;
		t.weight = (s->fields & HWS_SF_LAT_TOTAL) ? s->lat_total : 0;
		if ((1U << k) == HWS_SYNTH_BRANCH_MISS) {
			t.addr = (s->fields & HWS_SF_BRANCH) ? s->branch_target : 0;
			t.data_src = 0;
		} else {
			t.addr = (s->fields & HWS_SF_ADDR) ? s->addr : 0;
			t.data_src = (s->fields & HWS_SF_DATA_SRC) ? s->data_src : 0;
		}
		err = hws_hist__add(r->hist, r->opts.syms, &t, shown);
	}
	return err;
}

int hws_report__set_groups(struct hws_report *r, const struct hws_perf_group *groups, size_t n,
			   const char *const *names, size_t nnames, bool side_by_side)
{
	if (!r || !r->hist)
		return -EINVAL;
	return hws_hist__set_groups(r->hist, groups, n, names, nnames, side_by_side);
}

int hws_report__add(struct hws_report *r, const struct hws_sample *s)
{
	struct tally v;
	unsigned int cpu;
	int err = 0;

	if (s->fields & HWS_SF_CALLCHAIN)
		r->any_chain = true;
	if (r->hist) {
		const struct hws_filter *f = r->opts.filter;
		bool shown;

		/* perf report: samples out of --time/--cpu are not counted; those of other pids,
		 * comms, dsos, symbols count in the totals but show no row */
		if (f && !hws_filter__match_time_cpu(f, s))
			return 0;
		r->nr_samples++;
		r->total_period += (s->fields & HWS_SF_PERIOD) ? s->period : 1;
		shown = !f || hws_filter__match_entry(f, r->opts.syms, s);
		if (s->fields & HWS_SF_SYNTH && s->sz >= offsetof(struct hws_sample, reserved3))
			return add_synth(r, s, shown);
		return hws_hist__add(r->hist, r->opts.syms, s, shown);
	}
	v = (struct tally){1, (s->fields & HWS_SF_PERIOD) ? s->period : 1, 0};
	cpu = (s->fields & HWS_SF_CPU) ? s->cpu % LAST_CPUS : 0;
	if (r->folded) {
		if (r->opts.filter && !hws_filter__match(r->opts.filter, r->opts.syms, s))
			return 0;
		r->nr_samples++;
		r->total_period += v.period;
		return hws_folded__add(r->folded, r->opts.syms, s,
				       r->opts.folded == HWS_REPORT_FOLDED_PERIOD ? v.period
				       : r->opts.folded == HWS_REPORT_FOLDED_LATENCY
					   ? ((s->fields & HWS_SF_LAT_TOTAL) ? s->lat_total : 0)
					   : 1);
	}
	if (r->opts.filter && !hws_filter__match(r->opts.filter, r->opts.syms, s))
		return 0;
	if (s->fields & HWS_SF_LAT_TOTAL)
		v.lat = s->lat_total;
	r->nr_samples++;
	r->total_period += v.period;
	r->total_lat += v.lat;
	if (s->fields & HWS_SF_IP)
		err = at_add(&r->ips, cpu, s->pid, s->ip, &v);
	/* address 0 is what non-memory events (cpu-clock with -d) carry: not data */
	if (!err && (s->fields & HWS_SF_ADDR) && s->addr)
		err = at_add(&r->addrs, cpu, s->pid, s->addr, &v);
	if (s->fields & HWS_SF_DATA_SRC) {
		r->nr_data_src++;
		r->ds[s->mem_level < HWS_MEM__MAX ? s->mem_level : 0]
		     [s->snoop < HWS_SNOOP__MAX ? s->snoop : 0]++;
		r->tlb[s->tlb < HWS_TLB__MAX ? s->tlb : 0]++;
	}
	if (s->fields & HWS_SF_OP) {
		r->nr_op++;
		r->op[s->op <= HWS_OP_OTHER ? s->op : 0]++;
	}
	if (r->heat) {
		if ((s->fields & HWS_SF_LAT_TOTAL) && (s->fields & HWS_SF_DATA_SRC)) {
			unsigned int l = s->mem_level < HWS_MEM__MAX ? s->mem_level : 0;

			r->lvl_lat[l][log2_bucket(s->lat_total)]++;
			r->lvl_n[l]++;
			r->lvl_sum[l] += s->lat_total;
		}
		if ((s->fields & HWS_SF_ADDR) && s->addr) {
			if (s->fields & HWS_SF_TIME)
				hws_heat__add(r->heat, s->time, s->addr);
			else
				r->heat->untimed++;
		}
	}
	for (int i = 0; i < NR_LAT; i++) {
		struct lat_hist *h = &r->lat[i];
		uint32_t l;

		if (!(s->fields & report__lat_fields[i].field))
			continue;
		memcpy(&l, (const char *)s + report__lat_fields[i].off, sizeof(l));
		h->b[log2_bucket(l)]++;
		h->count++;
		h->sum += l;
		if (l < h->min)
			h->min = l;
		if (l > h->max)
			h->max = l;
	}
	return err;
}

int hws_report__sample_fn(void *ctx, const struct hws_sample *s)
{
	return hws_report__add(ctx, s); /* 0 or -ENOMEM: a tail call */
}

int hws_report__add_counts(struct hws_report *r, const char *event, const char *backend, int cpu,
			   const struct hws_decode_counts *c)
{
	struct count_row *row;

	if (r->nr_rows == r->alloc_rows) {
		size_t n = r->alloc_rows ? r->alloc_rows * 2 : 16;
		row = realloc(r->rows, n * sizeof(*row));
		if (!row)
			return -ENOMEM;
		r->rows = row;
		r->alloc_rows = n;
	}
	row = &r->rows[r->nr_rows];
	row->event = strdup(event ? event : "?");
	row->backend = strdup(backend ? backend : "none");
	if (!row->event || !row->backend) {
		free(row->event);
		free(row->backend);
		return -ENOMEM;
	}
	row->cpu = cpu;
	row->c = *c;
	r->nr_rows++;
	return 0;
}

static bool counts_zero(const struct hws_decode_counts *c)
{
	static const struct hws_decode_counts zero;

	return !memcmp(c, &zero, sizeof(zero));
}

int hws_report__add_decoder_counts(struct hws_report *r, const struct hws_decoder *d)
{
	int nev = hws_decoder__nr_events(d), ncpu = hws_decoder__nr_cpus(d);
	struct hws_decode_counts c;
	int err;

	for (int ev = HWS_DECODE_UNKNOWN; ev < nev; ev++) {
		const struct hws_backend *b = hws_decoder__event_backend(d, ev);
		for (int cpu = HWS_DECODE_UNKNOWN; cpu < ncpu; cpu++) {
			if (hws_decoder__counts(d, ev, cpu, &c))
				break;
			if (counts_zero(&c))
				continue;
			err = hws_report__add_counts(r, hws_decoder__event_name(d, ev),
						     b ? b->ops->name : "none", cpu, &c);
			if (err)
				return err;
		}
	}
	return 0;
}

uint64_t hws_report__nr_samples(const struct hws_report *r)
{
	return r->nr_samples;
}

uint64_t hws_report__data_src(const struct hws_report *r, unsigned int level, unsigned int snoop)
{
	return level < HWS_MEM__MAX && snoop < HWS_SNOOP__MAX ? r->ds[level][snoop] : 0;
}

uint64_t hws_report__lat_bucket(const struct hws_report *r, uint64_t field, unsigned int bucket)
{
	for (int i = 0; i < NR_LAT; i++)
		if (report__lat_fields[i].field == field)
			return bucket < HWS_REPORT_LAT_BUCKETS ? r->lat[i].b[bucket] : 0;
	return 0;
}

uint64_t hws_report__ip_samples(const struct hws_report *r, uint32_t pid, uint64_t ip)
{
	return at_get(&r->ips, pid, ip);
}

uint64_t hws_report__addr_samples(const struct hws_report *r, uint32_t pid, uint64_t addr)
{
	return at_get(&r->addrs, pid, addr);
}
