// SPDX-License-Identifier: MIT
/*
 * Folded stacks (hws_report_opts::folded): "comm;outermost;...;innermost VALUE" lines, as
 * `perf script | stackcollapse-perf.pl` makes them: the command (spaces as '_'), then the
 * function of each frame of the call chain from the outermost in, "[unknown]" for a frame
 * no symbol covers; equal lines merge, lines are sorted by their stack text. A sample
 * without a call chain is the frame of its ip.
 *
 * Invariants:
 *  - one tree (report_cg.c), its first level the commands, then frames outer to inner,
 *    merged by name; a path's value sits on its last node;
 *  - names are interned once (ids dense from 1) and never move.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/report.h>
#include <hwsample/symbols.h>

#include "analysis/report_cg.h"
#include "analysis/report_int.h"
#include "util/internal.h"

struct hws_folded {
	struct cg_tree *t;
	uint32_t root;
	char **strs;
	size_t nstrs, astrs;
	uint32_t *stab;
	size_t ssize;
	struct hws_strbuf esc; /* a name being interned, escaped */
	struct cg_frame *fr;
	size_t afr;
	int inline_mode;       /* enum hws_inline_mode */
	uint32_t max_stack;    /* perf script's --max-stack, 0 = all */
	struct hws_frame *cut; /* a chain cut to it */
	size_t acut;
};

void hws_folded__set_inline(struct hws_folded *f, int mode)
{
	f->inline_mode = mode;
}

void hws_folded__set_max_stack(struct hws_folded *f, uint32_t max)
{
	f->max_stack = max;
}

struct hws_folded *hws_folded__new(void)
{
	struct hws_folded *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->t = cg_tree__new();
	f->root = f->t ? cg_tree__root(f->t) : 0;
	if (!f->root) {
		hws_folded__delete(f);
		return NULL;
	}
	return f;
}

void hws_folded__delete(struct hws_folded *f)
{
	if (!f)
		return;
	cg_tree__delete(f->t);
	for (size_t i = 0; i < f->nstrs; i++)
		free(f->strs[i]);
	free(f->strs);
	hws_strbuf__release(&f->esc);
	free(f->stab);
	free(f->fr);
	free(f->cut);
	free(f);
}

static uint64_t shash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

static uint32_t intern(struct hws_folded *f, const char *s)
{
	size_t i;

	s = hws__text(&f->esc, s); /* names from the file are shown as text: no control chars */
	if ((f->nstrs + 1) * 2 > f->ssize) {
		size_t ns = f->ssize ? f->ssize * 2 : 256;
		uint32_t *t = calloc(ns, sizeof(*t));

		if (!t)
			return 0;
		for (size_t j = 0; j < f->ssize; j++) {
			if (!f->stab[j])
				continue;
			for (i = shash(f->strs[f->stab[j] - 1]) & (ns - 1); t[i];
			     i = (i + 1) & (ns - 1))
				;
			t[i] = f->stab[j];
		}
		free(f->stab);
		f->stab = t;
		f->ssize = ns;
	}
	for (i = shash(s) & (f->ssize - 1); f->stab[i]; i = (i + 1) & (f->ssize - 1))
		if (!strcmp(f->strs[f->stab[i] - 1], s))
			return f->stab[i];
	if (f->nstrs == f->astrs) {
		size_t na = f->astrs ? f->astrs * 2 : 256;
		char **v = realloc(f->strs, na * sizeof(*v));

		if (!v)
			return 0;
		f->strs = v;
		f->astrs = na;
	}
	f->strs[f->nstrs] = strdup(s);
	if (!f->strs[f->nstrs])
		return 0;
	f->stab[i] = (uint32_t)++f->nstrs;
	return f->stab[i];
}

static const char *name_of(const void *ctx, uint32_t id)
{
	const struct hws_folded *f = ctx;

	return id && id <= f->nstrs ? f->strs[id - 1] : "";
}

static uint32_t frame_name(struct hws_folded *f, struct hws_symbols *syms, uint32_t pid,
			   uint64_t ip)
{
	struct hws_symbol sym = {0};

	if (syms)
		hws_symbols__resolve(syms, pid, ip, false, &sym);
	return intern(f, sym.name ? sym.name : "[unknown]");
}

/* room for @n frames in f->fr: 0 or -ENOMEM */
static int fr_room(struct hws_folded *f, size_t n)
{
	struct cg_frame *v;
	size_t na = f->afr ? f->afr : 64;

	if (n <= f->afr)
		return 0;
	while (na < n)
		na *= 2;
	v = realloc(f->fr, na * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->fr = v;
	f->afr = na;
	return 0;
}

int hws_folded__add(struct hws_folded *f, struct hws_symbols *syms, const struct hws_sample *s,
		    uint64_t value)
{
	bool chain = (s->fields & HWS_SF_CALLCHAIN) && s->nr_callchain;
	uint32_t n = chain ? s->nr_callchain : 1;
	const struct hws_frame *cc = s->callchain;
	const char *comm = hws_symbols__sample_comm(syms, s);
	size_t k = 1;
	char b[64];

	/* the frames perf script --max-stack N prints (innermost first: callee order) */
	if (chain && f->max_stack) {
		int m = hws_chain__max_stack(cc, n, f->max_stack, false, &f->cut, &f->acut, &cc);

		if (m < 0)
			return m;
		n = (uint32_t)m;
	}
	if (fr_room(f, n + 1))
		return -ENOMEM;
	if (comm) {
		snprintf(b, sizeof(b), "%s", comm);
		for (char *p = b; *p; p++)
			if (*p == ' ')
				*p = '_';
	} else {
		snprintf(b, sizeof(b), ":%u", s->tid);
	}
	/* outermost first: f->fr[0] the command, then the chain backwards; a frame showing
	 * its inline stack (perf script's lines, which stackcollapse-perf.pl names by their
	 * function) is that stack, outermost first */
	f->fr[0].name = intern(f, b);
	for (uint32_t i = 0; i < n; i++) {
		const struct hws_frame *fr = chain ? &cc[n - 1 - i] : NULL;
		uint64_t ip = fr ? fr->ip : s->ip;
		const struct hws_inline_frame *in;
		int m = 0;

		if (fr && syms && hws_inline__wanted(f->inline_mode, fr->flags, fr->ctx))
			m = hws_symbols__inlines(syms, s->pid, ip, &in);
		if (m > 0) {
			struct hws_symbol sym = {0};
			const char *base;

			if (fr_room(f, k + (size_t)m + (n - i)))
				return -ENOMEM;
			/* the entries are valid until the next lookup: name them first */
			for (int j = m - 1; j >= 0; j--) {
				f->fr[k + (size_t)(m - 1 - j)].name =
				    in[j].inlined ? intern(f, in[j].name) : 0;
			}
			for (int j = m - 1; j >= 0; j--, k++) {
				if (f->fr[k].name)
					continue;
				hws_symbols__resolve(syms, s->pid, ip, false, &sym);
				base = sym.name ? sym.name : "[unknown]";
				f->fr[k].name = intern(f, base);
				if (!f->fr[k].name)
					return -ENOMEM;
			}
			continue;
		}
		if (m < 0)
			return m;
		f->fr[k].name = frame_name(f, syms, s->pid, ip);
		if (!f->fr[k++].name)
			return -ENOMEM;
	}
	if (!f->fr[0].name)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++) {
		f->fr[i].k0 = f->fr[i].name;
		f->fr[i].k1 = 0;
	}
	return cg_tree__add(f->t, f->root, f->fr, k, 1, value);
}

int hws_folded__render(struct hws_folded *f, struct hws_strbuf *sb)
{
	return cg_tree__folded(f->t, f->root, name_of, f, sb);
}
