// SPDX-License-Identifier: MIT
/*
 * perf report's call graphs of the sorted view: each sample's chain, its inlined functions
 * added, memoized and then added to the trees of its row (and, with --children, of every row
 * its frames fall in). Part of struct hws_hist (report_hist.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/report.h>
#include <hwsample/symbols.h>

#include "analysis/report_cg.h"
#include "analysis/report_cgmemo.h"
#include "analysis/report_hist.h"
#include "analysis/report_int.h"
#include "symbols/symbols_core.h"
#include "util/internal.h"

static char level_of_ctx(uint8_t ctx, char dflt)
{
	switch (ctx) {
	case HWS_CTX_KERNEL:
		return 'k';
	case HWS_CTX_USER:
		return '.';
	case HWS_CTX_HV:
		return 'H';
	case HWS_CTX_GUEST_KERNEL:
		return 'g';
	case HWS_CTX_GUEST_USER:
		return 'u';
	default:
		return dflt;
	}
}

/* a frame of the chain perf walks: a call-chain frame, or a function inlined at it */
struct xframe {
	const struct hws_frame *fr;
	uint32_t inl; /* "NAME (inlined)" interned; 0: the frame itself */
};

/*
 * The @n frames of @chain into h->xf, each one that shows its inline stack (h->inline_mode)
 * replaced by that stack as perf's append_inlines() adds it: the inlined functions
 * innermost first, then the frame itself when DWARF names its ELF symbol. *n: the count.
 */
static int expand_inlines(struct hws_hist *h, struct hws_symbols *syms, uint32_t pid,
			  const struct hws_frame *chain, uint32_t *n)
{
	size_t k = 0;

	for (uint32_t i = 0; i < *n; i++) {
		const struct hws_inline_frame *in = NULL;
		int m = 0;

		if (syms && h->inline_mode != HWS_INLINE_NONE &&
		    hws_inline__wanted(h->inline_mode, chain[i].flags, chain[i].ctx)) {
			m = hws_symbols__inlines(syms, pid, chain[i].ip, &in);
			if (m < 0)
				return m;
		}
		if (k + (size_t)(m ? m : 1) > h->axf) {
			size_t na = h->axf ? h->axf * 2 : 256;
			struct xframe *v;

			while (na < k + (size_t)(m ? m : 1))
				na *= 2;
			if (na > UINT32_MAX)
				return -ENOMEM;
			v = realloc(h->xf, na * sizeof(*v));
			if (!v)
				return -ENOMEM;
			h->xf = v;
			h->axf = na;
		}
		if (!m)
			h->xf[k++] = (struct xframe){&chain[i], 0};
		for (int j = 0; j < m; j++) {
			uint32_t inl = 0;

			if (in[j].inlined) {
				char b[TEXT_MAX];

				snprintf(b, sizeof(b), "%s (inlined)", in[j].name);
				inl = hist__intern(h, b);
				if (!inl)
					return -ENOMEM;
			}
			h->xf[k++] = (struct xframe){&chain[i], inl};
		}
	}
	*n = (uint32_t)k;
	return 0;
}

/*
 * The call chain of a sample: its frames (perf's function key and name), added to the row's
 * tree and, with --children, to the tree of every other row its frames fall in (once per
 * row: perf's he_cache), as perf's hist_entry_iter for cumulative entries.
 *
 * A chain met before (same section, row, process, ips and contexts, while the symbols give
 * the same answers) only adds its period to its memo entry (report_cgmemo.h); the trees get
 * each entry once, at hist__chain_flush(), in the order the chains were first met.
 */

/* a memo entry's payload: the head, n frames, then n + 1 rows (row 0 unused) */
struct chain_head {
	uint32_t sec, self, n, pad;
};

#define CHAIN_MEMO_MAX (64u << 20) /* bytes of memo before it is flushed */

/* add a resolved chain (@fr, @frow as hist__add_chain() leaves h->fr, h->frow) to the trees */
static int chain_commit(struct hws_hist *h, struct section *sec, uint32_t self,
			const struct cg_frame *fr, const uint32_t *frow, uint32_t n,
			uint64_t period)
{
	bool caller, children = h->children >= 0 && !h->mem;
	uint32_t nseen = 0;
	int err;

	caller = h->cg.order_set ? h->cg.caller : children;
	if (!h->tree) {
		h->tree = cg_tree__new();
		if (!h->tree)
			return -ENOMEM;
	}
	if (children)
		h->seen[nseen++] = self;
	if (!sec->rows[self].cg_root) {
		sec->rows[self].cg_root = cg_tree__root(h->tree);
		if (!sec->rows[self].cg_root)
			return -ENOMEM;
	}
	err = cg_tree__add(h->tree, sec->rows[self].cg_root, caller ? &fr[n - 1] : fr, n,
			   caller ? -1 : 1, period);
	if (err || !children)
		return err;
	/* the frames in the order of the chain perf walks (its cursor's) */
	for (uint32_t j = 0; j < n; j++) {
		uint32_t i = caller ? n - 1 - j : j, r = frow[i + 1];
		struct hrow *row = &sec->rows[r];
		bool dup = false;

		for (uint32_t q = 0; q < nseen && !dup; q++)
			dup = h->seen[q] == r;
		if (dup)
			continue;
		h->seen[nseen++] = r;
		row->acc += period;
		if (!row->cg_root) {
			row->cg_root = cg_tree__root(h->tree);
			if (!row->cg_root)
				return -ENOMEM;
		}
		err = cg_tree__add(h->tree, row->cg_root, &fr[i], caller ? i + 1 : n - i,
				   caller ? -1 : 1, period);
		if (err)
			return err;
	}
	return 0;
}

/* every chain of the memo into the trees, in the order they were first met */
int hist__chain_flush(struct hws_hist *h)
{
	size_t nr = cg_memo__nr(h->memo);
	int err = 0;

	for (size_t id = 0; !err && id < nr; id++) {
		const struct chain_head *hd = cg_memo__payload(h->memo, (long)id);
		const struct cg_frame *fr = (const void *)(hd + 1);

		err =
		    chain_commit(h, &h->secs[hd->sec], hd->self, fr, (const uint32_t *)(fr + hd->n),
				 hd->n, *cg_memo__value(h->memo, (long)id));
	}
	cg_memo__clear(h->memo);
	return err;
}

/* the memo key of a chain: where it is counted, what resolves it, its ips and contexts */
static uint32_t chain_key(struct hws_hist *h, struct section *sec, const struct ctx *c, long self,
			  const struct hws_frame *chain, uint32_t n)
{
	uint64_t *k = h->ckey;
	uint32_t w = 0;

	k[w++] = (uint64_t)(sec - h->secs) << 32 | (uint32_t)self;
	k[w++] = (uint64_t)c->s->pid << 8 | (uint8_t)c->level;
	k[w++] = hws_symbols__answers_gen(c->syms);
	for (uint32_t i = 0; i < n; i++)
		k[w++] = chain[i].ip;
	for (uint32_t i = 0; i < n; i += 8) {
		uint64_t x = 0;

		for (uint32_t j = i; j < n && j < i + 8; j++)
			x |= (uint64_t)chain[j].ctx << (8 * (j - i));
		k[w++] = x;
	}
	return w;
}

/* room for @n frames of a chain in the per-sample scratch arrays */
static int grow_frames(struct hws_hist *h, uint32_t n)
{
	struct cg_frame *f;
	uint32_t *r;
	uint64_t *ck;

	if (n <= h->afr)
		return 0;
	f = realloc(h->fr, n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	h->fr = f;
	r = realloc(h->frow, (n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	h->frow = r;
	r = realloc(h->seen, (n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	h->seen = r;
	ck = realloc(h->ckey, (3 + n + n / 8 + 1) * sizeof(*ck));
	if (!ck)
		return -ENOMEM;
	h->ckey = ck;
	h->afr = n;
	return 0;
}

int hws_chain__max_stack(const struct hws_frame *chain, uint32_t n, uint32_t max, bool caller,
			 struct hws_frame **buf, size_t *abuf, const struct hws_frame **out)
{
	uint32_t k = 0, kk, ku, ks;

	*out = chain;
	while (k < n && !(chain[k].flags & HWS_FRAME_UNWOUND))
		k++;
	kk = k < max ? k : max;
	ku = n - k < max ? n - k : max;
	if (!max || (kk == k && ku == n - k))
		return (int)n;
	ks = caller ? k - kk : 0;
	*out = chain + ks;
	if (ks + kk == k)
		return (int)(kk + ku); /* the kept frames are one run */
	if (*abuf < (size_t)kk + ku) {
		struct hws_frame *v = realloc(*buf, ((size_t)kk + ku) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		*buf = v;
		*abuf = (size_t)kk + ku;
	}
	memcpy(*buf, chain + ks, kk * sizeof(**buf));
	memcpy(*buf + kk, chain + k, ku * sizeof(**buf));
	*out = *buf;
	return (int)(kk + ku);
}

/* (report_hist.h) */
int hist__chain_find(struct hws_hist *h, struct section *sec, const struct ctx *c, long self,
		     const struct hws_frame **chain, uint32_t *n, uint32_t *nk, long *id)
{
	bool caller, children = h->children >= 0 && !h->mem;
	int err;

	*chain = c->s->callchain;
	*n = c->s->nr_callchain;
	caller = h->cg.order_set ? h->cg.caller : children;
	/* perf's --max-stack takes the frames in the order it walks them */
	if (h->max_stack) {
		int m = hws_chain__max_stack(*chain, *n, h->max_stack, caller, &h->cut, &h->acut,
					     chain);

		if (m < 0)
			return m;
		*n = (uint32_t)m;
	}
	if (!h->memo) {
		h->memo = cg_memo__new();
		if (!h->memo)
			return -ENOMEM;
	}
	/* the memo is keyed by the chain as recorded: its inlined entries follow from it */
	err = grow_frames(h, *n);
	if (err)
		return err;
	*nk = chain_key(h, sec, c, self, *chain, *n);
	*id = cg_memo__find(h->memo, h->ckey, *nk);
	return 0;
}

int hist__add_chain(struct hws_hist *h, struct section *sec, struct ctx *c, const uint64_t *k,
		    long self, uint64_t period)
{
	const struct hws_sample *s = c->s;
	const struct hws_frame *chain;
	const struct xframe *xf;
	uint32_t n, nk;
	bool children = h->children >= 0 && !h->mem;
	struct chain_head *hd;
	void *pl;
	long id;
	int err;

	err = hist__chain_find(h, sec, c, self, &chain, &n, &nk, &id);
	if (err)
		return err;
	if (id >= 0) {
		*cg_memo__value(h->memo, id) += period;
		return 0;
	}
	err = expand_inlines(h, c->syms, s->pid, chain, &n);
	if (!err)
		err = grow_frames(h, n);
	if (err)
		return err;
	xf = h->xf;
	for (uint32_t i = 0; i < n; i++) {
		const struct hws_frame *fr = xf[i].fr;
		struct ctx fc = *c;
		struct hws_sample fs = *s;
		struct cg_frame *f = &h->fr[i];
		uint64_t fk[MAX_KEYS * KV];
		char b[32];
		long r;

		fs.ip = fr->ip;
		fc.s = &fs;
		fc.level = level_of_ctx(fr->ctx, c->level);
		err = hist__code_of(h, &fc, c->syms, s->pid, fr->ip, true, 0);
		if (err)
			return err;
		fc.inl = xf[i].inl;
		if (fc.inl) { /* perf merges inlined entries by name */
			fc.code.name = hist__str(h, fc.inl);
			f->k0 = 1ULL << 62;
			f->k1 = fc.inl;
			f->name = fc.inl;
		} else if (fc.code.name) {
			f->k0 = fc.dso_id;
			f->k1 = fc.code.dso_addr - fc.code.offset;
			f->name = hist__intern(h, fc.code.name);
		} else {
			f->k0 = fc.dso_id | 1ULL << 63;
			f->k1 = fr->ip;
			snprintf(b, sizeof(b), "%#" PRIx64, fr->ip);
			f->name = hist__intern(h, b);
		}
		if (!f->name)
			return -ENOMEM;
		if (!children)
			continue;
		memcpy(fk, k, (size_t)h->nkeys * KV * sizeof(*k));
		for (int j = 0; j < h->nkeys; j++) {
			if (!hist__code_key(h->keys[j]))
				continue;
			err = hist__key_vals(h, &fc, h->keys[j], &fk[j * KV]);
			if (err)
				return err;
		}
		r = hist__row_of(h, sec, fk, &fc);
		if (r < 0)
			return (int)r;
		h->frow[i + 1] = (uint32_t)r;
	}
	id = cg_memo__add(h->memo, h->ckey, nk,
			  sizeof(*hd) + n * sizeof(*h->fr) + (n + 1) * sizeof(*h->frow), &pl);
	if (id < 0)
		return (int)id;
	hd = pl;
	h->frow[0] = (uint32_t)self;
	*hd = (struct chain_head){(uint32_t)(sec - h->secs), (uint32_t)self, n, 0};
	memcpy(hd + 1, h->fr, n * sizeof(*h->fr));
	memcpy((struct cg_frame *)(hd + 1) + n, h->frow, (n + 1) * sizeof(*h->frow));
	*cg_memo__value(h->memo, id) = period;
	if (cg_memo__bytes(h->memo) > CHAIN_MEMO_MAX)
		return hist__chain_flush(h);
	return 0;
}
