// SPDX-License-Identifier: MIT
/*
 * Call-graph trees (see report_cg.h) and their perf report --stdio rendering: graph
 * (percentages of the total), fractal (of the parent), flat and folded, as perf's
 * ui/stdio/hist.c prints its callchain_node trees.
 *
 * perf keeps a radix tree: a node holds a run of entries and is split where paths part or
 * end. Here every frame is a node of a plain tree; at render a run of nodes with one child
 * each and no path ending in them (hit 0) is printed as one of perf's nodes, which gives the
 * same nodes, values and lines.
 *
 * Invariants:
 *  - node 0 is unused (0 = none); a node's cumul is the value of every path through it, hit
 *    the value of the paths ending in it: cumul = hit + the children's cumul;
 *  - the index holds every node but roots, keyed by (parent, k0, k1): a power-of-two table
 *    of node numbers, at most half full;
 *  - rendering never changes the tree.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_cg.h"
#include "util/internal.h"

struct cg_node {
	uint64_t k0, k1;
	uint64_t hit, cumul;
	uint32_t parent, child, sibling, name, nchild;
};

struct cg_tree {
	struct cg_node *n;
	size_t nr, alloc;
	uint32_t *slot;
	size_t size;
};

struct cg_tree *cg_tree__new(void)
{
	struct cg_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->alloc = 1024;
	t->n = calloc(t->alloc, sizeof(*t->n));
	t->size = 2048;
	t->slot = calloc(t->size, sizeof(*t->slot));
	if (!t->n || !t->slot) {
		cg_tree__delete(t);
		return NULL;
	}
	t->nr = 1;
	return t;
}

void cg_tree__delete(struct cg_tree *t)
{
	if (!t)
		return;
	free(t->n);
	free(t->slot);
	free(t);
}

static inline uint64_t node_hash(uint32_t parent, uint64_t k0, uint64_t k1)
{
	uint64_t x = (k0 ^ ((uint64_t)parent << 32 | parent)) * 0x9E3779B97F4A7C15ULL;

	x ^= (x >> 29) ^ k1;
	x *= 0xbf58476d1ce4e5b9ULL;
	return x ^ (x >> 32);
}

static uint32_t new_node(struct cg_tree *t)
{
	if (t->nr == t->alloc) {
		size_t na = t->alloc * 2;
		struct cg_node *n;

		if (na > UINT32_MAX)
			return 0;
		n = realloc(t->n, na * sizeof(*n));
		if (!n)
			return 0;
		t->n = n;
		t->alloc = na;
	}
	memset(&t->n[t->nr], 0, sizeof(t->n[0]));
	return (uint32_t)t->nr++;
}

uint32_t cg_tree__root(struct cg_tree *t)
{
	return new_node(t);
}

uint64_t cg_tree__total(const struct cg_tree *t, uint32_t root)
{
	return root && root < t->nr ? t->n[root].cumul : 0;
}

static int grow(struct cg_tree *t)
{
	size_t ns = t->size * 2;
	uint32_t *s = calloc(ns, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t j = 0; j < t->size; j++) {
		const struct cg_node *e;
		size_t i;

		if (!t->slot[j])
			continue;
		e = &t->n[t->slot[j]];
		for (i = node_hash(e->parent, e->k0, e->k1) & (ns - 1); s[i];
		     i = (i + 1) & (ns - 1))
			;
		s[i] = t->slot[j];
	}
	free(t->slot);
	t->slot = s;
	t->size = ns;
	return 0;
}

/* the child of @cur with the key of @f, added when new: its number, 0 on -ENOMEM */
static uint32_t child_of(struct cg_tree *t, uint32_t cur, const struct cg_frame *f)
{
	size_t i;
	uint32_t c;

	if ((t->nr + 1) * 2 > t->size && grow(t))
		return 0;
	for (i = node_hash(cur, f->k0, f->k1) & (t->size - 1); (c = t->slot[i]);
	     i = (i + 1) & (t->size - 1)) {
		const struct cg_node *e = &t->n[c];

		if (e->parent == cur && e->k0 == f->k0 && e->k1 == f->k1)
			return c;
	}
	c = new_node(t);
	if (!c)
		return 0;
	t->n[c].k0 = f->k0;
	t->n[c].k1 = f->k1;
	t->n[c].name = f->name;
	t->n[c].parent = cur;
	t->n[c].sibling = t->n[cur].child;
	t->n[cur].child = c;
	t->n[cur].nchild++;
	t->slot[i] = c;
	return c;
}

int cg_tree__add(struct cg_tree *t, uint32_t root, const struct cg_frame *f, size_t n, int step,
		 uint64_t value)
{
	uint32_t cur = root;

	t->n[cur].cumul += value;
	for (size_t j = 0; j < n; j++, f += step) {
		uint32_t c = child_of(t, cur, f);

		if (!c)
			return -ENOMEM;
		t->n[c].cumul += value;
		cur = c;
	}
	t->n[cur].hit += value;
	return 0;
}

int cg_tree__merge(struct cg_tree *t, uint32_t dst, uint32_t src)
{
	t->n[dst].hit += t->n[src].hit;
	t->n[dst].cumul += t->n[src].cumul;
	for (uint32_t c = t->n[src].child; c; c = t->n[c].sibling) {
		struct cg_frame f = {t->n[c].k0, t->n[c].k1, t->n[c].name};
		uint32_t d = child_of(t, dst, &f);
		int err;

		if (!d)
			return -ENOMEM;
		err = cg_tree__merge(t, d, c);
		if (err)
			return err;
	}
	return 0;
}

/* ---------------------------------------------------------------- render */

struct rctx {
	struct cg_tree *t;
	const struct cg_params *p;
	cg_name_fn name;
	const void *ctx;
	struct hws_strbuf *sb;
	uint64_t min_abs; /* graph, flat, folded: perf's min_callchain_hits */
};

/* the last node of the perf node starting at @c */
static uint32_t block_end(const struct cg_tree *t, uint32_t c)
{
	while (t->n[c].nchild == 1 && !t->n[c].hit)
		c = t->n[c].child;
	return c;
}

static const struct cg_tree *g_t; /* qsort has no context */
static cg_name_fn g_name;
static const void *g_ctx;

/*
 * Siblings of equal value in perf's order: perf walks a node's children in its rb_root_in
 * order, where a later frame with a higher (dso, address) goes left (match_chain_dso_addresses()
 * answers MATCH_LT), so they come by descending dso then address; its sort keeps that order
 * for ties (rb_insert_callchain() puts an equal value to the right). hwsample's dso ids count
 * up in the order dsos are met, as perf's dso objects are allocated.
 */
static int perf_order(const struct cg_node *x, const struct cg_node *y)
{
	uint64_t dx = x->k0 & ~(1ULL << 63), dy = y->k0 & ~(1ULL << 63);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (x->k1 != y->k1)
		return x->k1 > y->k1 ? -1 : 1;
	return 0;
}

static int by_cumul(const void *a, const void *b)
{
	const struct cg_node *x = &g_t->n[*(const uint32_t *)a], *y = &g_t->n[*(const uint32_t *)b];
	int c;

	if (x->cumul != y->cumul)
		return x->cumul > y->cumul ? -1 : 1;
	c = perf_order(x, y);
	if (c)
		return c;
	c = strcmp(g_name(g_ctx, x->name), g_name(g_ctx, y->name));
	if (c)
		return c;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* the children of @node perf keeps (cumul >= the threshold), by value: a malloc'ed array */
static uint32_t *kids(struct rctx *r, uint32_t node, size_t *nr)
{
	const struct cg_tree *t = r->t;
	uint64_t min = r->min_abs;
	uint32_t *v;
	size_t k = 0;

	*nr = 0;
	if (!t->n[node].nchild)
		return NULL;
	if (r->p->mode == CG_FRACTAL)
		min = (uint64_t)ceil((double)(t->n[node].cumul - t->n[node].hit) *
				     (r->p->min_percent / 100.0));
	v = malloc(t->n[node].nchild * sizeof(*v));
	if (!v)
		return NULL;
	for (uint32_t c = t->n[node].child; c; c = t->n[c].sibling)
		if (t->n[c].cumul >= min)
			v[k++] = c;
	g_t = t;
	g_name = r->name;
	g_ctx = r->ctx;
	hws__qsort(v, k, sizeof(*v), by_cumul);
	*nr = k;
	return v;
}

static int margin(struct rctx *r, int m)
{
	return hws_strbuf__addf(r->sb, "%*s", 12 + m, "");
}

static int pct(struct rctx *r, uint64_t v, uint64_t total)
{
	return hws_strbuf__addf(r->sb, "%.2f%%", total ? (double)v * 100.0 / (double)total : 0.0);
}

static int graph_line(struct rctx *r, int depth, uint64_t mask, int m)
{
	int err = margin(r, m);

	for (int i = 0; !err && i < depth; i++)
		err = hws_strbuf__addstr(r->sb, (i < 64 && (mask >> i) & 1) ? "|          "
									    : "           ");
	return err ? err : hws_strbuf__addstr(r->sb, "\n");
}

static int entry_line(struct rctx *r, uint64_t value, const char *name, int depth, uint64_t mask,
		      int idx, uint64_t total, int m)
{
	int err = margin(r, m);

	for (int i = 0; !err && i < depth; i++) {
		err = hws_strbuf__addstr(r->sb, (i < 64 && (mask >> i) & 1) ? "|" : " ");
		if (err)
			break;
		if (!idx && i == depth - 1) {
			err = hws_strbuf__addstr(r->sb, "--");
			if (!err)
				err = pct(r, value, total);
			if (!err)
				err = hws_strbuf__addstr(r->sb, "--");
		} else {
			err = hws_strbuf__addstr(r->sb, "          ");
		}
	}
	if (!err)
		err = hws_strbuf__addf(r->sb, "%s\n", name);
	return err;
}

static uint64_t bit(int i)
{
	return i >= 0 && i < 64 ? 1ULL << i : 0;
}

static int graph(struct rctx *r, uint32_t node, uint64_t total, int depth, uint64_t mask, int m)
{
	const struct cg_tree *t = r->t;
	uint64_t remaining = total, new_mask = mask;
	size_t nr;
	uint32_t *v = kids(r, node, &nr);
	int err = 0;

	if (!v && t->n[node].nchild)
		return -ENOMEM;
	for (size_t j = 0; !err && j < nr; j++) {
		uint32_t c = v[j], e = block_end(t, c);
		uint64_t cumul = t->n[c].cumul;
		int idx = 0;

		remaining -= cumul;
		if (j + 1 == nr && (r->p->mode != CG_FRACTAL || !remaining))
			new_mask &= ~bit(depth - 1);
		err = graph_line(r, depth, mask, m);
		for (uint32_t x = c; !err; x = t->n[x].child) {
			err = entry_line(r, cumul, r->name(r->ctx, t->n[x].name), depth, new_mask,
					 idx++, total, m);
			if (x == e)
				break;
		}
		if (!err)
			err = graph(r, e,
				    r->p->mode == CG_FRACTAL ? t->n[e].cumul - t->n[e].hit : total,
				    depth + 1, new_mask | bit(depth), m);
	}
	free(v);
	if (!err && r->p->mode == CG_FRACTAL && remaining && remaining != total) {
		new_mask &= ~bit(depth - 1);
		/* perf 6.1 may add " (inlined)": its "[...]" symbol's flag is not initialized */
		err = entry_line(r, remaining, "[...]", depth, new_mask, 0, total, m);
	}
	return err;
}

static int by_hit(const void *a, const void *b)
{
	const struct cg_node *x = &g_t->n[*(const uint32_t *)a], *y = &g_t->n[*(const uint32_t *)b];

	if (x->hit != y->hit)
		return x->hit > y->hit ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* nodes under @root (itself not) with a hit >= @min, in tree order: malloc'ed */
static uint32_t *ends(const struct cg_tree *t, uint32_t root, uint64_t min, size_t *nr)
{
	size_t k = 0, a = 64, sp = 0, as = 64;
	uint32_t *v = malloc(a * sizeof(*v)), *st = malloc(as * sizeof(*st));

	*nr = 0;
	if (!v || !st)
		goto nomem;
	/* depth-first with an explicit stack */
	if (t->n[root].child)
		st[sp++] = t->n[root].child;
	while (sp) {
		uint32_t x = st[--sp];

		if (sp + 2 > as) {
			uint32_t *ns = realloc(st, (as *= 2) * sizeof(*st));

			if (!ns)
				goto nomem;
			st = ns;
		}
		if (t->n[x].sibling)
			st[sp++] = t->n[x].sibling;
		if (t->n[x].child)
			st[sp++] = t->n[x].child;
		if (t->n[x].hit && t->n[x].hit >= min) {
			if (k == a) {
				uint32_t *nv = realloc(v, (a *= 2) * sizeof(*v));

				if (!nv)
					goto nomem;
				v = nv;
			}
			v[k++] = x;
		}
	}
	free(st);
	*nr = k;
	return v;
nomem:
	free(v);
	free(st);
	return NULL;
}

/* the names from the root's child down to @x, joined by @sep (or each on its own line) */
static int path(struct rctx *r, uint32_t root, uint32_t x, const char *pre, const char *sep)
{
	const struct cg_tree *t = r->t;
	uint32_t stack[512];
	size_t n = 0;
	int err = 0;

	for (uint32_t y = x; y && y != root; y = t->n[y].parent) {
		if (n == sizeof(stack) / sizeof(stack[0]))
			break;
		stack[n++] = y;
	}
	for (size_t i = n; !err && i-- > 0;)
		err = hws_strbuf__addf(r->sb, "%s%s%s", pre, i + 1 == n ? "" : sep,
				       r->name(r->ctx, t->n[stack[i]].name));
	return err;
}

int cg_tree__render(struct cg_tree *t, uint32_t root, const struct cg_params *p, uint64_t total,
		    uint64_t parent, bool skip_first, cg_name_fn name, const void *ctx,
		    struct hws_strbuf *sb)
{
	struct rctx r = {.t = t, .p = p, .name = name, .ctx = ctx, .sb = sb};
	size_t before = sb->len, nr;
	uint32_t *v, node = root;
	int err = 0, m = 0;

	if (!root || p->mode == CG_NONE)
		return 0;
	r.min_abs = (uint64_t)((double)total * (p->min_percent / 100.0));
	if (p->mode == CG_FLAT || p->mode == CG_FOLDED) {
		v = ends(t, root, r.min_abs, &nr);
		if (!v)
			return -ENOMEM;
		g_t = t;
		hws__qsort(v, nr, sizeof(*v), by_hit);
		for (size_t i = 0; !err && i < nr; i++) {
			if (p->mode == CG_FOLDED) {
				err = pct(&r, t->n[v[i]].hit, total);
				if (!err)
					err = hws_strbuf__addstr(sb, " ");
				if (!err)
					err = path(&r, root, v[i], "", ";");
				if (!err)
					err = hws_strbuf__addstr(sb, "\n");
				continue;
			}
			err = hws_strbuf__addstr(sb, "           ");
			if (!err)
				err = pct(&r, t->n[v[i]].cumul, total);
			if (!err)
				err = path(&r, root, v[i], "\n                ", "");
			if (!err)
				err = hws_strbuf__addstr(sb, "\n\n");
		}
		free(v);
		return err;
	}
	v = kids(&r, root, &nr);
	if (!v && t->n[root].nchild)
		return -ENOMEM;
	if (nr == 1 && t->n[v[0]].cumul == parent) {
		uint32_t e = block_end(t, v[0]);
		bool printed = false;
		int i = 0;

		for (uint32_t x = v[0]; !err; x = t->n[x].child) {
			if (!(i++ == 0 && skip_first)) {
				if (!printed) {
					err = margin(&r, m);
					if (!err)
						err = hws_strbuf__addstr(sb, "|\n");
					if (!err)
						err = margin(&r, m);
					if (!err)
						err = hws_strbuf__addstr(sb, "---");
					m += 3;
					printed = true;
				} else {
					err = margin(&r, m);
				}
				if (!err)
					err = hws_strbuf__addf(sb, "%s\n", name(ctx, t->n[x].name));
			}
			if (x == e)
				break;
		}
		node = e;
	}
	free(v);
	if (p->mode == CG_FRACTAL)
		total = parent;
	if (!err)
		err = graph(&r, node, total, 1, 1, m);
	if (!err && sb->len != before)
		err = hws_strbuf__addstr(sb, "\n");
	return err;
}

/* ---------------------------------------------------------------- folded stacks */

struct fline {
	char *stack;
	uint64_t value;
};

static int fline_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->stack, ((const struct fline *)b)->stack);
}

int cg_tree__folded(struct cg_tree *t, uint32_t root, cg_name_fn name, const void *ctx,
		    struct hws_strbuf *sb)
{
	struct rctx r = {.t = t, .name = name, .ctx = ctx};
	struct hws_strbuf tmp = HWS_STRBUF_INIT;
	struct fline *l = NULL;
	size_t nr = 0;
	uint32_t *v = ends(t, root, 1, &nr);
	int err = 0;

	if (!v)
		return -ENOMEM;
	l = calloc(nr ? nr : 1, sizeof(*l));
	if (!l) {
		free(v);
		return -ENOMEM;
	}
	r.sb = &tmp;
	for (size_t i = 0; !err && i < nr; i++) {
		tmp.len = 0;
		err = path(&r, root, v[i], "", ";");
		if (!err) {
			l[i].stack = strndup(tmp.buf ? tmp.buf : "", tmp.len);
			l[i].value = t->n[v[i]].hit;
			if (!l[i].stack)
				err = -ENOMEM;
		}
	}
	if (!err)
		hws__qsort(l, nr, sizeof(*l), fline_cmp);
	for (size_t i = 0; !err && i < nr; i++)
		err = hws_strbuf__addf(sb, "%s %" PRIu64 "\n", l[i].stack, l[i].value);
	for (size_t i = 0; i < nr; i++)
		free(l[i].stack);
	free(l);
	free(v);
	hws_strbuf__release(&tmp);
	return err;
}

/* ---------------------------------------------------------------- perf's -g argument */

int cg_parse(const char *arg, struct cg_params *p, char *bad, size_t len)
{
	const char *s = arg ? arg : "";
	int nums = 0;

	while (*s) {
		size_t l = strcspn(s, ",");
		char tok[64];

		if (!l || l >= sizeof(tok))
			goto bad;
		memcpy(tok, s, l);
		tok[l] = 0;
		if (!strcmp(tok, "graph")) {
			p->mode = CG_GRAPH, p->mode_set = true;
		} else if (!strcmp(tok, "fractal")) {
			p->mode = CG_FRACTAL, p->mode_set = true;
		} else if (!strcmp(tok, "flat")) {
			p->mode = CG_FLAT, p->mode_set = true;
		} else if (!strcmp(tok, "folded")) {
			p->mode = CG_FOLDED, p->mode_set = true;
		} else if (!strcmp(tok, "none")) {
			p->mode = CG_NONE, p->mode_set = true;
		} else if (!strcmp(tok, "caller") || !strcmp(tok, "callee")) {
			p->caller = tok[4] == 'e' && tok[5] == 'r';
			p->order_set = true;
		} else if (!strcmp(tok, "function") || !strcmp(tok, "percent")) {
			/* perf's defaults: merge by function, show percentages */
		} else {
			char *end;
			double v = strtod(tok, &end);

			if (*end || end == tok || v < 0 || v > 100 || nums >= 2)
				goto bad;
			if (!nums++)
				p->min_percent = v;
			/* a second number is perf's print_limit: not applied */
		}
		s += l;
		if (*s)
			s++;
		continue;
	bad:
		if (bad && len)
			snprintf(bad, len, "%.*s", (int)l, s);
		return -EINVAL;
	}
	return 0;
}
