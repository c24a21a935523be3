// SPDX-License-Identifier: MIT
/*
 * c2c latency histograms: the load latencies of each cache line (struct lhist, described in
 * analysis/c2c_int.h) and their nearest-rank percentiles.
 *
 * Invariants:
 *  - counts are exact while a line has at most LH_SPARSE_MAX distinct values, log-linear
 *    past that (exact below LH_EXACT, relative error < 2^-LH_MBITS above); memory per line
 *    is bounded whatever the number of samples;
 *  - the per-sample path never probes a histogram: it appends (line, latency) to c->lbuf,
 *    counted here a batch at a time (hws__c2c_lbuf_flush), or counts in the line's direct
 *    counters (entry->small) once the line has them;
 *  - hws__c2c_lh_percentiles() consumes the table (sorts it in place): it is called once
 *    per reported line, at the end of hws_c2c__finish().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/c2c_int.h"
#include "util/internal.h"

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
int hws__c2c_lh_percentiles(struct lhist *h, const unsigned int *ps, uint32_t *out, int n)
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
	hws__qsort(v, nr, sizeof(*v), cmp_slot);
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
int hws__c2c_lbuf_flush(struct hws_c2c *c)
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

void hws__c2c_lh_free(struct lhist *h)
{
	free(h->small);
	free(h->t);
	free(h->dense);
	memset(h, 0, sizeof(*h));
}
