// SPDX-License-Identifier: MIT
/*
 * c2c verdicts: hws_c2c__finish() (after the counters are settled by c2c.c) classifies every
 * line from its writers and other threads, orders the report, and symbolizes the reported
 * lines; the accessors give the finished object's lines and rows.
 *
 * Invariants:
 *  - a line's verdict comes from pairs of units ((offset, pid, tid) with the widest access):
 *    a writer and another thread on the same bytes is true sharing, on other bytes false
 *    sharing; without any store sampled, pairs of coherence misses (inferred, lower
 *    confidence); coherence events without such pairs leave the line unresolved;
 *  - the confidence grows with the coherence evidence (HITM, peer, remote cache hits) and
 *    the sample support of the pairs, and is lower for address overlap alone;
 *  - report order: HITM, peer, contended before not, remote cache hits, contention, then
 *    address and pid (a total order: the report is deterministic); rows in offset order;
 *  - symbols are resolved for the first 1000 reported lines only, once per distinct (pid,
 *    address), the strings owned by the c2c (c->syms) and shared by the rows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/c2c.h>

#include "analysis/c2c_int.h"
#include "util/internal.h"

const char *hws_c2c_class__name(unsigned int cls)
{
	static const char *const names[HWS_C2C__CLASS_MAX] = {
	    "private", "read-shared", "false-sharing", "true-sharing", "mixed", "unresolved",
	};

	return cls < HWS_C2C__CLASS_MAX ? names[cls] : "unknown";
}

/* ---------------------------------------------------------------- verdicts */

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
static void pair_verdict(struct line *l, struct unit *a, struct unit *b, uint64_t sup, uint32_t ls,
			 uint64_t *sup_false, uint64_t *sup_true)
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
	if (c2c_contended(x->cls) != c2c_contended(y->cls))
		return c2c_contended(x->cls) ? -1 : 1;
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
	if (hws__c2c_grow((void **)&c->syms, &c->cap_syms, c->nr_syms + 1, sizeof(*c->syms)))
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

static char *evidence_text(const struct hws_c2c *c, const struct line *l)
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
		for (k = 0; k < c->nr_src; k++) {
			uint32_t s = c->src_order[k];

			if (l->src_mask & (1U << s)) {
				hws_strbuf__addf(&sb, "%s%s", plus, c->src_name[s]);
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

static void fill_stats(struct hws_c2c_stats *st, const uint64_t *cn, const struct lat *lat);

int hws_c2c__finish(struct hws_c2c *c, struct hws_symbols *syms)
{
	uint32_t i, j, k, ei;
	int err;

	if (c->finished)
		return 0;
	err = hws__c2c_settle(c);
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
		if (c->o.show_all || c2c_contended(c->lines[i].cls))
			c->report[c->nr_report++] = i;
	sort_c2c = c;
	hws__qsort(c->report, c->nr_report, sizeof(*c->report), cmp_lines);
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
		hws__qsort(l->order, l->nr_entries, sizeof(*l->order), cmp_ents);
		sort_ec2c = NULL;
		{
			static const unsigned int ps[3] = {50, 90, 99};
			uint32_t pv[3];

			if (hws__c2c_lh_percentiles(&l->lh, ps, pv, 3))
				return -ENOMEM;
			l->p50 = pv[0], l->p90 = pv[1], l->p99 = pv[2];
		}
		for (n = 0, j = 0; j < 4; j++)
			n += (uint32_t)__builtin_popcountll(l->cpus[j]);
		l->nr_cpus = n;
		l->nr_nodes = (uint32_t)__builtin_popcountll(l->nodes);
		l->evidence_text = evidence_text(c, l);
		if (!l->evidence_text)
			return -ENOMEM;
		/* symbols for the reported lines (bounded: the first 1000) */
		if (k < 1000) {
			err = symbolize_line(c, l, syms);
			if (!err && c->o.names && syms)
				err = hws__c2c_names_line(c, l, syms);
			if (err)
				return err;
		}
	}
	err = hws__c2c_chain_finish(c, syms, 1000);
	if (err)
		return err;
	for (i = 0; i < c->nr_lines; i++)
		hws__c2c_lh_free(&c->lines[i].lh);
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
	out->sharing_text = l->sharing_text;
	out->nr_fields = l->nr_fields;
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
	hws__c2c_names_entry(c, e, out);
	return 0;
}

const struct hws_c2c_stats *hws_c2c__totals(const struct hws_c2c *c)
{
	return &c->totals;
}
