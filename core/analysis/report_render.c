// SPDX-License-Identifier: MIT
/*
 * perf report --stdio's text of the sorted view: sections by event, rows by overhead, the
 * columns as wide as their widest cell, --hierarchy's indented groups, and the call graphs.
 * Part of struct hws_hist (report_hist.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/fmt.h>
#include <hwsample/report.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>

#include "analysis/report_cg.h"
#include "analysis/report_hist.h"
#include "analysis/report_int.h"
#include "symbols/symbols_core.h"
#include "util/internal.h"

/* ---------------------------------------------------------------- render */

static const char *name_of(const void *ctx, uint32_t id)
{
	return hist__str(ctx, id);
}

static const struct hws_hist *g_sort_hist; /* qsort has no context argument */
static bool g_by_weight, g_by_acc;

static const struct section *g_sort_sec;

/* row indices of g_sort_sec by perf's order: overhead, then the printed columns; ties in
 * insertion order (as a stable sort of the rows would leave them) */
static int row_cmp(const void *a, const void *b)
{
	uint32_t ix = *(const uint32_t *)a, iy = *(const uint32_t *)b;
	const struct hrow *x = &g_sort_sec->rows[ix], *y = &g_sort_sec->rows[iy];
	uint64_t vx = g_by_weight ? x->weight : x->period, vy = g_by_weight ? y->weight : y->period;

	if (g_by_acc && x->acc != y->acc)
		return x->acc > y->acc ? -1 : 1;
	if (vx != vy)
		return vx > vy ? -1 : 1;
	for (int j = 0; j < g_sort_hist->nkeys; j++) {
		int c;

		if (x->col[j] == y->col[j])
			continue;
		c = strcmp(hist__str(g_sort_hist, x->col[j]), hist__str(g_sort_hist, y->col[j]));
		if (c)
			return c;
	}
	return ix < iy ? -1 : ix > iy;
}

static int sec_cmp(const void *a, const void *b)
{
	const struct section *x = a, *y = b;

	return x->attr_idx < y->attr_idx ? -1 : x->attr_idx > y->attr_idx;
}

static int cell(const struct hws_hist *h, struct hws_symbols *syms, const struct hrow *r, int j,
		char *b, size_t sz)
{
	char *e;

	switch (h->keys[j]) {
	case K_PID:
	case K_TID: {
		const char *comm = syms && !r->k[j * KV + 2]
				       ? hws_symbols__tid_comm(syms, (uint32_t)r->k[j * KV])
				       : NULL;

		if (comm) {
			struct hws_strbuf esc = HWS_STRBUF_INIT;
			int n = snprintf(b, sz, "%7d:%s", (int)(uint32_t)r->k[j * KV],
					 hws__text(&esc, comm));

			hws_strbuf__release(&esc);
			return n;
		}
		return snprintf(b, sz, "%s", hist__str(h, r->col[j]));
	}
	case K_SAMPLE_COL: /* b: TEXT_MAX bytes, HWS_FMT_SLACK to spare */
		*(e = hws_fmt__u64(b, r->samples)) = 0;
		return (int)(e - b);
	case K_WEIGHT_COL:
		*(e = hws_fmt__u64(b, r->weight)) = 0;
		return (int)(e - b);
	case K_AVG_WEIGHT:
		return snprintf(b, sz, "%.1f",
				r->samples ? (double)r->weight / (double)r->samples : 0.0);
	default:
		return snprintf(b, sz, "%s", hist__str(h, r->col[j]));
	}
}

static bool right_aligned(int id)
{
	return id == K_SAMPLE_COL || id == K_WEIGHT_COL || id == K_AVG_WEIGHT;
}

/* a column printed as its interned string (cell()'s default case) */
static bool str_cell(int id)
{
	return id != K_PID && id != K_TID && !right_aligned(id);
}

/* "  %7.2f%%" of @pct (a row's overhead), without printf where fmt.h can (a row per sample
 * in report --mem of PEBS or IBS data) */
static int add_pct(struct hws_strbuf *sb, double pct)
{
#ifdef HWS_FMT_HAVE_FIXED2
	if (pct >= 0 && pct < 1e7) {
		char t[HWS_FMT_PCT_MAX], o[32];
		size_t n = (size_t)(hws_fmt__fixed2(t, pct) - t), pad = n < 7 ? 7 - n : 0;

		memset(o, ' ', 2 + pad);
		memcpy(o + 2 + pad, t, n);
		o[2 + pad + n] = '%';
		return hws_strbuf__add(sb, o, 3 + pad + n);
	}
#endif
	return hws_strbuf__addf(sb, "  %7.2f%%", pct);
}

/* "  " and @s (@len bytes) in a column of width @w, as "  %-*s" / "  %*s" print it */
static int add_cell(struct hws_strbuf *sb, const char *s, size_t len, int w, bool right)
{
	static const char sp[] = "                                                                ";
	size_t pad = (size_t)w > len ? (size_t)w - len : 0;
	int err = hws_strbuf__add(sb, sp, 2);

	if (!err && !right)
		err = hws_strbuf__add(sb, s, len);
	for (size_t n; !err && pad; pad -= n) {
		n = pad < sizeof(sp) - 1 ? pad : sizeof(sp) - 1;
		err = hws_strbuf__add(sb, sp, n);
	}
	if (!err && right)
		err = hws_strbuf__add(sb, s, len);
	return err;
}

/* ---------------------------------------------------------------- --hierarchy */

/*
 * perf report --hierarchy: the rows of level d are the groups of the rows of their parent
 * that agree on key d, by overhead (then name); each is named by its first sample's row (the
 * one added first) and its line is "INDENT  PCT%" with 3 columns of indent per level, then
 * the indent of the deepest level after it and the name, left-aligned in its column
 * (perf's hist_entry__hierarchy_fprintf).
 */
#define HIER_INDENT 3

struct hier_ctx {
	struct hws_hist *h;
	struct hws_symbols *syms;
	const struct section *sec;
	const int *w;
	uint64_t total;
	struct hws_strbuf *sb;
};

struct hgroup {
	uint32_t first; /* row index of its first row (insertion order) */
	size_t start, n;
	uint64_t val;
	char *name;
};

static const struct section *g_hsec;
static int g_hdepth;

/* row indices by key g_hdepth, then by index (so insertion order within a group) */
static int hidx_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const uint64_t *kx = &g_hsec->rows[x].k[g_hdepth * KV],
		       *ky = &g_hsec->rows[y].k[g_hdepth * KV];

	for (int i = 0; i < KV; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int hgroup_cmp(const void *a, const void *b)
{
	const struct hgroup *x = a, *y = b;

	if (x->val != y->val)
		return x->val > y->val ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int hier_level(struct hier_ctx *hc, uint32_t *idx, size_t n, int d)
{
	struct hws_hist *h = hc->h;
	struct hgroup *g;
	size_t ng = 0;
	char b[TEXT_MAX];
	int err = 0;

	g_hsec = hc->sec;
	g_hdepth = d;
	hws__qsort(idx, n, sizeof(*idx), hidx_cmp);
	g = calloc(n, sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct hrow *r = &hc->sec->rows[idx[i]];

		if (!ng || memcmp(hc->sec->rows[g[ng - 1].first].k + d * KV, r->k + d * KV,
				  KV * sizeof(*r->k))) {
			g[ng].first = idx[i];
			g[ng].start = i;
			ng++;
		}
		g[ng - 1].n++;
		g[ng - 1].val += h->mem ? r->weight : r->period;
	}
	for (size_t i = 0; i < ng && !err; i++) {
		cell(h, hc->syms, &hc->sec->rows[g[i].first], d, b, sizeof(b));
		/* perf left-aligns every level: leading spaces ("%7u:comm") dropped */
		g[i].name = strdup(b + strspn(b, " "));
		if (!g[i].name)
			err = -ENOMEM;
	}
	if (!err)
		hws__qsort(g, ng, sizeof(*g), hgroup_cmp);
	for (size_t i = 0; i < ng && !err; i++) {
		err =
		    hws_strbuf__addf(hc->sb, "%*s  %7.2f%%%*s  %-*s\n", d * HIER_INDENT, "",
				     hc->total ? 100.0 * (double)g[i].val / (double)hc->total : 0.0,
				     (h->nkeys - 1) * HIER_INDENT, "", hc->w[d], g[i].name);
		if (!err && d + 1 < h->nkeys)
			err = hier_level(hc, idx + g[i].start, g[i].n, d + 1);
	}
	for (size_t i = 0; i < ng; i++)
		free(g[i].name);
	free(g);
	return err;
}

/* the column headers and the rows of one section in perf's --hierarchy layout */
static int render_hierarchy(struct hws_hist *h, struct hws_symbols *syms, struct section *sec,
			    const int *w, uint64_t total, struct hws_strbuf *sb)
{
	struct hier_ctx hc = {h, syms, sec, w, total, sb};
	int gap = (h->nkeys - 1) * HIER_INDENT, hw = 0, err;
	uint32_t *idx;

	err = hws_strbuf__addf(sb, "#\n# %*sOverhead  ", gap, "");
	for (int j = 0; !err && j < h->nkeys; j++) {
		const char *name = hist__header(h->keys[j]);

		err = hws_strbuf__addf(sb, "%s%s", j ? " / " : "", name);
		hw += (int)strlen(name) + (j ? 3 : 0);
	}
	for (int j = 0; j < h->nkeys; j++)
		if (j * HIER_INDENT + w[j] > hw)
			hw = j * HIER_INDENT + w[j];
	if (!err)
		err = hws_strbuf__addstr(sb, "\n# ");
	for (int d = 0; !err && d < gap + 8; d++)
		err = hws_strbuf__addstr(sb, ".");
	if (!err)
		err = hws_strbuf__addstr(sb, "  ");
	for (int d = 0; !err && d < hw; d++)
		err = hws_strbuf__addstr(sb, ".");
	if (!err)
		err = hws_strbuf__addstr(sb, "\n#\n");
	if (err || !sec->nr)
		return err;
	idx = malloc(sec->nr * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < sec->nr; i++)
		idx[i] = (uint32_t)i;
	err = hier_level(&hc, idx, sec->nr, 0);
	free(idx);
	return err;
}

/*
 * perf names a thread's samples taken before its first COMM by the comm that COMM sets: the
 * thread's default ":TID" comm is overwritten in place (comm__override()), and the hist
 * collapse then merges those rows, call graphs included, with the rows of that name. Same
 * here: rows keyed by a pending ":TID" take the comm their thread has now and merge.
 */
static int comm_fixup(struct hws_hist *h, struct hws_symbols *syms, struct section *sec)
{
	size_t nk = (size_t)h->nkeys * KV, nr = 0;
	bool renamed = false;

	for (size_t i = 0; i < sec->nr; i++) {
		struct hrow *r = &sec->rows[i];

		for (int j = 0; j < h->nkeys; j++) {
			uint64_t *v = &r->k[j * KV];
			const char *comm;

			if (h->keys[j] != K_COMM || v[1] != COMM_PENDING)
				continue;
			comm = hws_symbols__tid_comm(syms, (uint32_t)v[2]);
			if (!comm)
				continue;
			v[0] = hist__intern(h, comm);
			if (!v[0])
				return -ENOMEM;
			v[1] = v[2] = 0;
			r->col[j] = (uint32_t)v[0];
			renamed = true;
		}
	}
	if (!renamed)
		return 0;
	memset(sec->slot, 0, sec->size * sizeof(*sec->slot));
	for (size_t i = 0; i < sec->nr; i++) {
		struct hrow *r = &sec->rows[i], *d;
		uint32_t hv = (uint32_t)hist__vec_hash(r->k, nk);
		size_t x;
		long idx = hist__row_find(sec, r->k, nk, hv, &x);

		if (idx < 0) {
			if (nr != i)
				sec->rows[nr] = *r;
			sec->slot[x] = (uint32_t)++nr;
			sec->shash[x] = hv;
			continue;
		}
		d = &sec->rows[idx];
		d->samples += r->samples;
		d->period += r->period;
		d->acc += r->acc;
		d->weight += r->weight;
		if (r->cg_root && !d->cg_root) {
			d->cg_root = r->cg_root;
		} else if (r->cg_root) {
			int err = cg_tree__merge(h->tree, d->cg_root, r->cg_root);

			if (err)
				return err;
		}
	}
	sec->nr = nr;
	return 0;
}

/* ---------------------------------------------------------------- perf's group view */

static const uint64_t *g_sort_gper;
static uint32_t g_sort_nm;

/* a group's rows: by each event's period in the group's order (perf's __hpp__sort()), then as
 * row_cmp() */
static int grow_cmp(const void *a, const void *b)
{
	uint32_t ix = *(const uint32_t *)a, iy = *(const uint32_t *)b;
	const uint64_t *x = &g_sort_gper[(size_t)ix * g_sort_nm];
	const uint64_t *y = &g_sort_gper[(size_t)iy * g_sort_nm];

	for (uint32_t m = 0; m < g_sort_nm; m++) {
		if (x[m] != y[m])
			return x[m] > y[m] ? -1 : 1;
	}
	return row_cmp(a, b);
}

static struct section *sec_of_attr(struct hws_hist *h, uint32_t idx)
{
	for (size_t i = 0; i < h->nsecs; i++) {
		if (h->secs[i].attr_idx == idx)
			return &h->secs[i];
	}
	return NULL;
}

/*
 * Group @g's events into its leader's section @l (perf's hists__link(): a member's row missing
 * from the leader's becomes a row of 0 for it): each event's period on the rows and its
 * total, the header's description "anon group { a, b }".
 */
static int group_merge(struct hws_hist *h, const struct hws_perf_group *g, struct section *l)
{
	uint32_t nm = g->nr_members;
	struct section **ms = calloc(nm, sizeof(*ms));
	struct hws_strbuf d = HWS_STRBUF_INIT;
	size_t cap = 0;
	int err = 0;

	if (!ms)
		return -ENOMEM;
	for (uint32_t m = 0; m < nm; m++) {
		ms[m] = m ? sec_of_attr(h, g->leader + m) : l;
		cap += ms[m] ? ms[m]->nr : 0;
	}
	l->gper = calloc(cap ? cap * nm : 1, sizeof(*l->gper));
	l->gtot = calloc(nm, sizeof(*l->gtot));
	if (!l->gper || !l->gtot) {
		free(ms);
		return -ENOMEM;
	}
	l->nm = nm;
	l->gtot[0] = l->period;
	for (size_t i = 0; i < l->nr; i++)
		l->gper[i * nm] = l->rows[i].period;
	for (uint32_t m = 1; !err && m < nm; m++) {
		if (!ms[m])
			continue;
		l->gtot[m] = ms[m]->period;
		l->samples += ms[m]->samples;
		l->period += ms[m]->period;
		ms[m]->gmember = true;
		for (size_t i = 0; i < ms[m]->nr; i++) {
			long idx = hist__row_merge(h, l, &ms[m]->rows[i]);

			if (idx < 0) {
				err = (int)idx;
				break;
			}
			l->gper[(size_t)idx * nm + m] += ms[m]->rows[i].period;
		}
	}
	if (!err)
		err = hws_strbuf__addf(&d, "%s { ", g->name ? g->name : "anon group");
	for (uint32_t m = 0; !err && m < nm; m++) {
		const char *n = g->leader + m < h->ngnames ? h->gnames[g->leader + m]
				: ms[m]			   ? ms[m]->event
							   : "?";

		err = hws_strbuf__addf(&d, "%s%s", m ? ", " : "", n);
	}
	if (!err)
		err = hws_strbuf__addstr(&d, " }");
	if (!err) {
		l->gdesc = strdup(d.buf);
		if (!l->gdesc)
			err = -ENOMEM;
	}
	hws_strbuf__release(&d);
	free(ms);
	return err;
}

/* groups side by side (the flat view), or only their leaders named so (perf's "events") */
static int groups_prepare(struct hws_hist *h, bool flat)
{
	for (size_t i = 0; i < h->ngroups; i++) {
		struct section *l = sec_of_attr(h, h->groups[i].leader);
		int err;

		if (!l) /* no leader samples: each member's own section */
			continue;
		l->leader = true;
		if (!flat || !h->group_view)
			continue;
		err = group_merge(h, &h->groups[i], l);
		if (err)
			return err;
	}
	return 0;
}

int hws_hist__render(struct hws_hist *h, struct hws_symbols *syms, const char *sort_str,
		     struct hws_strbuf *sb)
{
	int err = 0;
	bool children = !h->mem && (h->children > 0 || (!h->children && h->any_chain));
	bool graph = h->cg_on && h->any_chain && h->cg.mode != CG_NONE;
	uint32_t *ord = NULL;

	err = hist__chain_flush(h);
	if (err)
		return err;
	free(h->rc); /* rows and sections move below */
	h->rc = NULL;
	g_sort_hist = h;
	g_by_weight = h->mem;
	g_by_acc = children;
	hws__qsort(h->secs, h->nsecs, sizeof(*h->secs), sec_cmp);
	for (size_t si = 0; !err && syms && si < h->nsecs; si++)
		err = comm_fixup(h, syms, &h->secs[si]);
	if (!err)
		err = groups_prepare(h, !h->hierarchy && !children && !graph && !h->mem);
	for (size_t si = 0; !err && si < h->nsecs; si++) {
		struct section *sec = &h->secs[si];
		int w[MAX_KEYS];
		uint64_t n = sec->samples, total = h->mem ? sec->weight : sec->period;
		char unit = ' ', b[TEXT_MAX];

		if (sec->gmember)
			continue;
		/* --hierarchy names its groups by their first rows: insertion order kept;
		 * rows is NULL without any */
		free(ord);
		ord = malloc((sec->nr ? sec->nr : 1) * sizeof(*ord));
		if (!ord) {
			err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < sec->nr; i++)
			ord[i] = (uint32_t)i;
		g_sort_sec = sec;
		g_sort_gper = sec->gper;
		g_sort_nm = sec->nm;
		if (!h->hierarchy)
			hws__qsort(ord, sec->nr, sizeof(*ord), sec->nm ? grow_cmp : row_cmp);
		for (int j = 0; j < h->nkeys; j++) {
			w[j] = (int)strlen(hist__header(h->keys[j]));
			for (size_t i = 0; i < sec->nr; i++) {
				int l = str_cell(h->keys[j])
					    ? (int)strlen(hist__str(h, sec->rows[i].col[j]))
					    : cell(h, syms, &sec->rows[i], j, b, sizeof(b));

				if (l > w[j])
					w[j] = l;
			}
		}
		if (n > 1000) {
			n /= 1000;
			unit = 'K';
		}
		if (n > 1000) {
			n /= 1000;
			unit = 'M';
		}
		if (n > 1000) {
			n /= 1000;
			unit = 'G';
		}
		err = hws_strbuf__addf(sb, "%s#\n# Samples: %" PRIu64 "%c of event%s '%s'",
				       si ? "\n\n" : "", n, unit, sec->leader ? "s" : "",
				       hws__text(&h->esc, sec->gdesc ? sec->gdesc : sec->event));
		if (!err && h->time_str)
			err = hws_strbuf__addf(sb, " (time slices: %s)", h->time_str);
		if (!err)
			err = hws_strbuf__addstr(sb, "\n");
		if (!err && h->mem)
			err = hws_strbuf__addf(
			    sb, "# Total weight : %" PRIu64 "\n# Sort order   : %s\n", sec->weight,
			    sort_str ? sort_str : hist__mem_default);
		else if (!err)
			err = hws_strbuf__addf(sb, "# Event count (approx.): %" PRIu64 "\n",
					       sec->period);
		if (h->hierarchy) {
			if (!err)
				err = render_hierarchy(h, syms, sec, w, total, sb);
			continue;
		}
		if (!err && sec->nm) /* a column of 8 per event, as perf's */
			err = hws_strbuf__addf(sb, "#\n# %*s", (int)(8 * sec->nm), "Overhead");
		else if (!err)
			err = hws_strbuf__addstr(sb, children ? "#\n# Children      Self"
							      : "#\n# Overhead");
		for (int j = 0; !err && j < h->nkeys; j++)
			err = hws_strbuf__addf(sb, right_aligned(h->keys[j]) ? "  %*s" : "  %-*s",
					       w[j], hist__header(h->keys[j]));
		if (!err && sec->nm) {
			err = hws_strbuf__addstr(sb, "\n# ");
			for (uint32_t d = 0; !err && d < 8 * sec->nm; d++)
				err = hws_strbuf__addstr(sb, ".");
		} else if (!err) {
			err = hws_strbuf__addstr(sb, children ? "\n# ........  ........"
							      : "\n# ........");
		}
		for (int j = 0; !err && j < h->nkeys; j++) {
			err = hws_strbuf__addstr(sb, "  ");
			for (int d = 0; !err && d < w[j]; d++)
				err = hws_strbuf__addstr(sb, ".");
		}
		if (!err)
			err = hws_strbuf__addstr(sb, "\n#\n");
		for (size_t i = 0; !err && i < sec->nr; i++) {
			const struct hrow *r = &sec->rows[ord[i]];
			uint64_t v = h->mem ? r->weight : r->period;

			if (children)
				err = add_pct(sb,
					      total ? 100.0 * (double)r->acc / (double)total : 0.0);
			for (uint32_t m = 0; !err && m < sec->nm; m++) { /* a group's events */
				uint64_t t = sec->gtot[m],
					 p = sec->gper[(size_t)ord[i] * sec->nm + m];
				double pc = t ? 100.0 * (double)p / (double)t : 0.0;

				err = m ? hws_strbuf__addf(sb, "%7.2f%%", pc) : add_pct(sb, pc);
			}
			if (!err && !sec->nm)
				err = add_pct(sb, total ? 100.0 * (double)v / (double)total : 0.0);
			for (int j = 0; !err && j < h->nkeys; j++) {
				const char *str = b;
				size_t len;

				if (str_cell(h->keys[j])) {
					/* cell() would cut it to its buffer */
					str = hist__str(h, r->col[j]);
					len = strnlen(str, sizeof(b) - 1);
				} else {
					cell(h, syms, r, j, b, sizeof(b));
					len = strlen(b);
				}
				err = add_cell(sb, str, len, w[j], right_aligned(h->keys[j]));
			}
			if (!err)
				err = hws_strbuf__addstr(sb, "\n");
			if (!err && graph && r->cg_root)
				err = cg_tree__render(h->tree, r->cg_root, &h->cg, sec->period,
						      children ? r->acc : r->period, h->sym_first,
						      name_of, h, sb);
		}
	}
	free(ord);
	if (!err)
		err = hws_strbuf__addstr(sb, "\n\n");
	return err;
}
