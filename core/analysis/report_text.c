// SPDX-License-Identifier: MIT
/*
 * The plain report's text (include/hwsample/report.h, hws_report__render()): the counts
 * table, the top code and data addresses (grouped by symbol or not), the data-source matrix
 * and the latency histograms; and the views of the tables report_html.c draws from.
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

/* ------------------------------------------------------------------ rendering */

int hws_report__bar(struct hws_strbuf *sb, uint64_t value, uint64_t max, unsigned int width,
		    bool ascii)
{
	static const char *const eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
	unsigned int units, full, part, used;
	char buf[1024];
	size_t n = 0;

	if (width > 200)
		width = 200;
	if (!max || value > max)
		value = max ? max : 0;
	units = max ? (unsigned int)((value * (uint64_t)width * 8 + max / 2) / max) : 0;
	if (value && !units)
		units = 1; /* something is never drawn as nothing */
	full = units / 8;
	part = units % 8;
	if (ascii) {
		full = (units + 4) / 8;
		if (value && !full)
			full = 1;
		part = 0;
	}
	for (unsigned int i = 0; i < full; i++) {
		if (ascii) {
			buf[n++] = '#';
		} else {
			memcpy(buf + n, "█", 3);
			n += 3;
		}
	}
	if (part) {
		memcpy(buf + n, eighths[part], 3);
		n += 3;
	}
	used = full + (part ? 1 : 0);
	for (; used < width; used++)
		buf[n++] = ' ';
	return hws_strbuf__add(sb, buf, n);
}

static uint64_t sort_val(const struct hws_report *r, const struct tally *t)
{
	switch (r->opts.sort) {
	case HWS_REPORT_SORT_PERIOD:
		return t->period;
	case HWS_REPORT_SORT_LATENCY:
		return t->lat;
	default:
		return t->samples;
	}
}

static uint64_t sort_total(const struct hws_report *r)
{
	switch (r->opts.sort) {
	case HWS_REPORT_SORT_PERIOD:
		return r->total_period;
	case HWS_REPORT_SORT_LATENCY:
		return r->total_lat;
	default:
		return r->nr_samples;
	}
}

static const char *sort_name(const struct hws_report *r)
{
	switch (r->opts.sort) {
	case HWS_REPORT_SORT_PERIOD:
		return "period";
	case HWS_REPORT_SORT_LATENCY:
		return "latency";
	default:
		return "samples";
	}
}

struct row {
	char *label;	      /* group rows: owned */
	const struct aent *k; /* address rows */
	struct tally t;
	uint64_t key; /* sort value */
};

/* order of the top tables: larger sort value first; ties by address then pid (address
 * rows, unique) or by label (group rows) */
static int row_cmp_val(const struct row *x, const struct row *y)
{
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if (x->k && y->k) {
		if (x->k->addr != y->k->addr)
			return x->k->addr < y->k->addr ? -1 : 1;
		return x->k->pid < y->k->pid ? -1 : x->k->pid > y->k->pid;
	}
	return x->label && y->label ? strcmp(x->label, y->label) : 0;
}

/* Move the best @shown of @rows[0..n) to the front, in order, by insertion into a sorted
 * prefix (n x top, and most rows lose at the first compare). Stable: equal rows keep their
 * order. */
static void select_top(struct row *rows, size_t n, size_t shown)
{
	for (size_t i = 0, have = 0; i < n && shown; i++) {
		struct row x = rows[i];
		size_t j;

		if (have == shown && row_cmp_val(&x, &rows[have - 1]) >= 0)
			continue;
		j = have < shown ? have++ : have - 1;
		rows[i] = rows[j]; /* the displaced row goes where x was */
		while (j > 0 && row_cmp_val(&x, &rows[j - 1]) < 0) {
			rows[j] = rows[j - 1];
			j--;
		}
		rows[j] = x;
	}
}

static void rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		free(rows[i].label);
	free(rows);
}

/* "name [dso]" of a symbol for grouping; "[dso]" when there is no name. */
static char *group_label_raw(const struct hws_symbol *sym)
{
	const char *base = NULL;
	char *out = NULL;

	if (sym->dso) {
		base = strrchr(sym->dso, '/');
		base = base ? base + 1 : sym->dso;
	}
	if (sym->name && base && base[0] == '[')
		return asprintf(&out, "%s  %s", sym->name, base) < 0 ? NULL : out;
	if (sym->name && base)
		return asprintf(&out, "%s  [%s]", sym->name, base) < 0 ? NULL : out;
	if (sym->name)
		return strdup(sym->name);
	if (base && base[0] == '[')
		return strdup(base);
	if (base)
		return asprintf(&out, "[%s]", base) < 0 ? NULL : out;
	return strdup("[unknown]");
}

/* group_label_raw() for the terminal: names from the file with control characters escaped */
static char *group_label(const struct hws_symbol *sym)
{
	char *raw = group_label_raw(sym);
	struct hws_strbuf sb;

	if (!raw || hws_strbuf__text_plain(raw))
		return raw;
	hws_strbuf__init(&sb, 0);
	if (hws_strbuf__add_text_str(&sb, raw) || !sb.buf) {
		hws_strbuf__release(&sb);
		return raw;
	}
	free(raw);
	return sb.buf;
}

/* "0xADDR symbol+off [dso]" of an address row */
static int addr_label(struct hws_symbols *syms, const struct aent *k, bool data,
		      struct hws_strbuf *sb)
{
	struct hws_symbol sym;
	int err = hws_strbuf__addf(sb, "0x%016" PRIx64 " ", k->addr);

	if (err)
		return err;
	if (!syms)
		return hws_strbuf__addf(sb, "pid %u", k->pid);
	hws_symbols__resolve(syms, k->pid, k->addr, data, &sym);
	if ((!sym.name || hws_strbuf__text_plain(sym.name)) &&
	    (!sym.dso || hws_strbuf__text_plain(sym.dso)) &&
	    (!sym.srcfile || hws_strbuf__text_plain(sym.srcfile)))
		return hws_symbol__format(&sym, true, sb);
	/* names from the file with control characters: escaped for the terminal */
	{
		struct hws_strbuf tmp;

		hws_strbuf__init(&tmp, 0);
		err = hws_symbol__format(&sym, true, &tmp);
		if (!err)
			err = hws_strbuf__add_text_str(sb, tmp.buf ? tmp.buf : "");
		hws_strbuf__release(&tmp);
		return err;
	}
}

/* a table of @shown rows, already in order, out of @n */
static int render_table(struct hws_report *r, struct hws_strbuf *sb, const char *title,
			const char *col, const struct row *rows, size_t shown, size_t n,
			const struct tally *other, struct hws_symbols *syms, bool data)
{
	uint64_t total = sort_total(r), max = shown ? rows[0].key : 0;
	int err;

	err = hws_strbuf__addf(sb, "\n== %s (by %s, top %zu of %zu) ==\n", title, sort_name(r),
			       shown, n);
	if (!err)
		err = hws_strbuf__addf(sb, "%12s %6s  %-*s  %s\n", sort_name(r), "%",
				       (int)r->opts.width, "", col);
	for (size_t i = 0; !err && i < shown; i++) {
		double pct = total ? 100.0 * (double)rows[i].key / (double)total : 0;
		err = hws_strbuf__addf(sb, "%12" PRIu64 " %5.1f%%  ", rows[i].key, pct);
		if (!err)
			err = hws_report__bar(sb, rows[i].key, max, r->opts.width, r->opts.ascii);
		if (!err)
			err = hws_strbuf__addstr(sb, "  ");
		if (!err)
			err = rows[i].label ? hws_strbuf__addstr(sb, rows[i].label)
					    : addr_label(syms, rows[i].k, data, sb);
		if (!err)
			err = hws_strbuf__addstr(sb, "\n");
	}
	if (!err && other && other->samples)
		err = hws_strbuf__addf(sb, "%12" PRIu64 "  (table full: not itemized)\n",
				       sort_val(r, other));
	return err;
}

/* group identity: the interned dso path and the symbol start (stable across lookups) */
struct gkey {
	const char *dso;
	uint64_t start; /* UINT64_MAX: no symbol */
	size_t row;	/* index in the group rows + 1; 0 = empty slot */
};

static size_t gslot(struct gkey *tab, size_t size, const char *dso, uint64_t start)
{
	uint64_t h = ((uint64_t)(uintptr_t)dso ^ (start * 0x9E3779B97F4A7C15ULL));
	size_t i;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	for (i = h & (size - 1); tab[i].row; i = (i + 1) & (size - 1))
		if (tab[i].dso == dso && tab[i].start == start)
			break;
	return i;
}

/* (pid, address) of an entry, for the resolve order */
struct skey {
	uint64_t addr;
	uint32_t pid;
	uint32_t idx;
};

/* Sort @a[0..n) by (pid, address): LSD radix sort, 8 bits a pass, passes whose digit is
 * the same in every key skipped. Return the sorted array (@a or a new one; the other is
 * freed) or NULL (both freed). */
static struct skey *sort_pid_addr(struct skey *a, size_t n)
{
	struct skey *b = malloc(n * sizeof(*b) + 1), *tmp;
	uint32_t(*cnt)[256] = calloc(12, sizeof(*cnt));

	if (!b || !cnt) {
		free(a);
		a = NULL;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t x = a[i].addr;
		uint32_t p = a[i].pid;

		for (int d = 0; d < 8; d++)
			cnt[d][(x >> (8 * d)) & 0xff]++;
		for (int d = 0; d < 4; d++)
			cnt[8 + d][(p >> (8 * d)) & 0xff]++;
	}
	for (int d = 0; n && d < 12; d++) {
		uint32_t pos[256], sum = 0;
		int sh = 8 * (d & 7);
		bool pid = d >= 8;

		if (cnt[d][pid ? (a[0].pid >> sh) & 0xff : (a[0].addr >> sh) & 0xff] == n)
			continue; /* one value: nothing moves */
		for (int v = 0; v < 256; v++) {
			pos[v] = sum;
			sum += cnt[d][v];
		}
		for (size_t i = 0; i < n; i++) {
			unsigned int v = pid ? (a[i].pid >> sh) & 0xff : (a[i].addr >> sh) & 0xff;
			b[pos[v]++] = a[i];
		}
		tmp = a;
		a = b;
		b = tmp;
	}
out:
	free(b);
	free(cnt);
	return a;
}

/* group rows and their hash index, both grown as groups appear (usually few) */
struct groups {
	struct row *rows;
	size_t nr, alloc;
	struct gkey *tab;
	size_t size;
};

static int groups_grow(struct groups *g)
{
	size_t ns = g->size ? g->size * 2 : 1024;
	struct gkey *t = calloc(ns, sizeof(*t));
	struct row *rows;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < g->size; i++)
		if (g->tab[i].row)
			t[gslot(t, ns, g->tab[i].dso, g->tab[i].start)] = g->tab[i];
	free(g->tab);
	g->tab = t;
	g->size = ns;
	rows = realloc(g->rows, ns / 2 * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	memset(rows + g->alloc, 0, (ns / 2 - g->alloc) * sizeof(*rows));
	g->rows = rows;
	g->alloc = ns / 2;
	return 0;
}

/* the group row of a lookup's (dso, symbol start), created when new; -1 on ENOMEM */
static ssize_t group_of(struct groups *g, const struct hws_symbol *sym)
{
	uint64_t start = sym->name ? sym->dso_addr - sym->offset : UINT64_MAX;
	size_t slot;

	if (g->nr * 2 >= g->size && groups_grow(g))
		return -1;
	slot = gslot(g->tab, g->size, sym->dso, start);
	if (!g->tab[slot].row) {
		struct row *row = &g->rows[g->nr];

		row->label = group_label(sym);
		if (!row->label)
			return -1;
		g->tab[slot].dso = sym->dso;
		g->tab[slot].start = start;
		g->tab[slot].row = ++g->nr;
	}
	return (ssize_t)g->tab[slot].row - 1;
}

/* (pid, user or kernel half) -> the group of every address there, or -1: lookups differ */
struct half {
	uint64_t key; /* pid << 1 | kernel, + 1; 0 = empty */
	ssize_t group;
};

/*
 * Group every entry of @t by symbol into @g. (The order of the group rows never shows: rows
 * that compare equal in row_cmp_val() print the same text.)
 *  - a process half (user or kernel addresses) where one lookup says the answer is the
 *    same everywhere (no maps, no kallsyms: a recording from another host) needs no more;
 *  - the other entries are looked up in (pid, address) order, so each process's files load
 *    one after the other, and a resolved range covers the following addresses of the same
 *    process without another lookup.
 */
static int group_entries(struct hws_symbols *syms, const struct atable *t, bool data,
			 struct groups *g)
{
	struct skey *order = NULL;
	struct half *halves = NULL;
	size_t norder = 0, hsize = 64, nhalves = 0;
	uint64_t lo = 1, hi = 0; /* the current range (empty) */
	struct hws_symbol sym;
	uint32_t pid = 0;
	ssize_t cur = 0;
	int err = -ENOMEM;

	order = malloc(t->nr * sizeof(*order) + 1);
	halves = calloc(hsize, sizeof(*halves));
	if (!order || !halves)
		goto out;
	for (size_t i = 0; i < t->nr; i++) {
		const struct aent *k = &t->e[i];
		bool kernel = (int64_t)k->addr < 0;
		uint64_t key = ((uint64_t)k->pid << 1 | kernel) + 1;
		size_t h = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 32) & (hsize - 1);

		while (halves[h].key && halves[h].key != key)
			h = (h + 1) & (hsize - 1);
		if (!halves[h].key) {
			memset(&sym, 0, sizeof(sym));
			lo = 0;
			hi = UINT64_MAX; /* no symbols: everything is "[unknown]" */
			if (syms)
				hws_symbols__resolve_range(syms, k->pid, k->addr, data, &sym, &lo,
							   &hi);
			halves[h].key = key;
			halves[h].group = -1;
			if (kernel ? lo <= 1ULL << 63 && hi == UINT64_MAX
				   : lo == 0 && hi >= (uint64_t)INT64_MAX) {
				halves[h].group = group_of(g, &sym);
				if (halves[h].group < 0)
					goto out;
			}
			if (++nhalves * 2 > hsize) { /* rehash */
				struct half *n = calloc(hsize * 2, sizeof(*n));

				if (!n)
					goto out;
				for (size_t j = 0; j < hsize; j++) {
					size_t q;

					if (!halves[j].key)
						continue;
					q = (size_t)(halves[j].key * 0x9E3779B97F4A7C15ULL >> 32) &
					    (hsize * 2 - 1);
					while (n[q].key)
						q = (q + 1) & (hsize * 2 - 1);
					n[q] = halves[j];
				}
				free(halves);
				halves = n;
				hsize *= 2;
				for (h = (size_t)(key * 0x9E3779B97F4A7C15ULL >> 32) & (hsize - 1);
				     halves[h].key != key; h = (h + 1) & (hsize - 1))
					;
			}
		}
		if (halves[h].group >= 0)
			tally_add(&g->rows[halves[h].group].t, &k->t);
		else
			order[norder++] = (struct skey){k->addr, k->pid, (uint32_t)i};
	}
	order = sort_pid_addr(order, norder);
	if (!order)
		goto out;
	lo = 1;
	hi = 0;
	for (size_t i = 0; i < norder; i++) {
		const struct aent *k = &t->e[order[i].idx];

		if (!i || k->pid != pid || k->addr < lo || k->addr > hi) {
			pid = k->pid;
			hws_symbols__resolve_range(syms, k->pid, k->addr, data, &sym, &lo, &hi);
			cur = group_of(g, &sym);
			if (cur < 0)
				goto out;
		}
		tally_add(&g->rows[cur].t, &k->t);
	}
	err = 0;
out:
	free(order);
	free(halves);
	return err;
}

/* the best @shown entries of @t into @top, in order */
static size_t top_entries(struct hws_report *r, const struct atable *t, struct row *top,
			  size_t shown)
{
	size_t have = 0;

	for (size_t i = 0; i < t->nr && shown; i++) {
		struct row x = {.k = &t->e[i], .t = t->e[i].t};
		size_t j;

		x.key = sort_val(r, &x.t);
		if (have == shown &&
		    (x.key < top[have - 1].key || row_cmp_val(&x, &top[have - 1]) >= 0))
			continue;
		j = have < shown ? have++ : have - 1;
		while (j > 0 && row_cmp_val(&x, &top[j - 1]) < 0) {
			top[j] = top[j - 1];
			j--;
		}
		top[j] = x;
	}
	return have;
}

/* Top addresses of table @t and the same grouped by symbol. */
static int render_addrs(struct hws_report *r, struct hws_symbols *syms, struct hws_strbuf *sb,
			const struct atable *t, bool data)
{
	size_t shown = t->nr < r->opts.top ? t->nr : r->opts.top, gshown;
	struct groups g = {0};
	struct row *top = NULL;
	int err = 0;

	if (!t->nr)
		return 0;
	top = calloc(shown, sizeof(*top));
	if (!top) {
		err = -ENOMEM;
		goto out;
	}
	err = group_entries(syms, t, data, &g);
	if (err)
		goto out;
	for (size_t i = 0; i < g.nr; i++)
		g.rows[i].key = sort_val(r, &g.rows[i].t);
	gshown = g.nr < r->opts.top ? g.nr : r->opts.top;
	select_top(g.rows, g.nr, gshown);
	err = render_table(r, sb, data ? "Top data objects" : "Top functions",
			   data ? "object  [dso]" : "function  [dso]", g.rows, gshown, g.nr,
			   &t->other, syms, data);
	if (!err) {
		shown = top_entries(r, t, top, shown);
		err = render_table(r, sb, data ? "Top data addresses" : "Top code addresses",
				   "address symbol", top, shown, t->nr, NULL, syms, data);
	}
out:
	free(top);
	free(g.tab);
	rows_free(g.rows, g.nr);
	return err;
}

static int render_counts(struct hws_report *r, struct hws_strbuf *sb)
{
	struct hws_decode_counts tot = {0};
	struct hws_strbuf esc, esc2;
	bool aux = false;
	int err;

	for (size_t i = 0; i < r->nr_rows; i++) {
		const struct hws_decode_counts *c = &r->rows[i].c;
		const uint64_t *src = (const uint64_t *)c;
		uint64_t *dst = (uint64_t *)&tot;
		for (size_t k = 0; k < sizeof(*c) / sizeof(uint64_t); k++)
			dst[k] += src[k];
	}
	int ew = 12;

	for (size_t i = 0; i < r->nr_rows; i++) {
		int l = (int)strlen(r->rows[i].event);
		if (l > ew)
			ew = l > 60 ? 60 : l;
	}
	aux = tot.aux_records || tot.auxtrace_bytes;
	hws_strbuf__init(&esc, 0);
	hws_strbuf__init(&esc2, 0);
	err = hws_strbuf__addstr(sb, "\n== Samples and loss per event and CPU ==\n");
	if (!err)
		err = hws_strbuf__addf(sb, "%-*s %-10s %4s %10s %14s %8s %7s %9s %9s %8s %8s", ew,
				       "event", "backend", "cpu", "samples", "period", "skipped",
				       "errors", "lost", "lost_smpl", "throttle", "unthrtl");
	if (!err && aux)
		err = hws_strbuf__addf(sb, " %8s %9s %8s %8s %6s", "aux_recs", "truncated",
				       "partial", "collisn", "gaps");
	if (!err)
		err = hws_strbuf__addstr(sb, "\n");
	for (size_t i = 0; !err && i <= r->nr_rows; i++) {
		const struct count_row *row = i < r->nr_rows ? &r->rows[i] : NULL;
		const struct hws_decode_counts *c = row ? &row->c : &tot;
		char cpu[16];

		if (!row && r->nr_rows < 2)
			break;
		if (!row)
			snprintf(cpu, sizeof(cpu), "all");
		else if (row->cpu < 0)
			snprintf(cpu, sizeof(cpu), "-");
		else
			snprintf(cpu, sizeof(cpu), "%d", row->cpu);
		err = hws_strbuf__addf(
		    sb,
		    "%-*.*s %-10.10s %4s %10" PRIu64 " %14" PRIu64 " %8" PRIu64 " %7" PRIu64
		    " %9" PRIu64 " %9" PRIu64 " %8" PRIu64 " %8" PRIu64,
		    ew, ew, row ? hws__text(&esc, row->event) : "total",
		    row ? hws__text(&esc2, row->backend) : "", cpu, c->samples, c->period,
		    c->skipped, c->errors, c->lost, c->lost_samples, c->throttle, c->unthrottle);
		if (!err && aux)
			err = hws_strbuf__addf(
			    sb, " %8" PRIu64 " %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %6" PRIu64,
			    c->aux_records, c->aux_truncated, c->aux_partial, c->aux_collision,
			    c->aux_gaps);
		if (!err)
			err = hws_strbuf__addstr(sb, "\n");
	}
	hws_strbuf__release(&esc);
	hws_strbuf__release(&esc2);
	if (err)
		return err;
	if (!tot.lost && !tot.lost_samples && !tot.throttle && !tot.aux_truncated &&
	    !tot.aux_partial && !tot.aux_collision && !tot.errors)
		return hws_strbuf__addstr(sb, "loss: none recorded\n");
	return hws_strbuf__addf(sb,
				"loss: %" PRIu64 " records lost (%" PRIu64
				" LOST records), %" PRIu64 " samples dropped by the PMU, %" PRIu64
				" throttles, %" PRIu64 " AUX truncated, %" PRIu64
				" AUX partial, %" PRIu64 " AUX collisions, %" PRIu64
				" undecodable records\n",
				tot.lost, tot.lost_records, tot.lost_samples, tot.throttle,
				tot.aux_truncated, tot.aux_partial, tot.aux_collision, tot.errors);
}

static int render_data_src(struct hws_report *r, struct hws_strbuf *sb)
{
	uint64_t max = 0, lvl[HWS_MEM__MAX] = {0};
	int err;

	if (!r->nr_data_src && !r->nr_op)
		return 0;
	for (int l = 0; l < HWS_MEM__MAX; l++) {
		for (int s = 0; s < HWS_SNOOP__MAX; s++)
			lvl[l] += r->ds[l][s];
		if (lvl[l] > max)
			max = lvl[l];
	}
	err = hws_strbuf__addf(sb, "\n== Data source (%" PRIu64 " samples with a data source) ==\n",
			       r->nr_data_src);
	if (!err && r->nr_data_src) {
		err = hws_strbuf__addf(sb, "%-13s %10s %6s  %-*s", "level", "samples", "%",
				       (int)r->opts.width, "");
		for (int s = 0; !err && s < HWS_SNOOP__MAX; s++)
			err = hws_strbuf__addf(sb, " %9s", hws_snoop__name((unsigned int)s));
		if (!err)
			err = hws_strbuf__addstr(sb, "   (snoop)\n");
		for (int l = 0; !err && l < HWS_MEM__MAX; l++) {
			if (!lvl[l])
				continue;
			err = hws_strbuf__addf(sb, "%-13s %10" PRIu64 " %5.1f%%  ",
					       hws_mem_level__name((unsigned int)l), lvl[l],
					       100.0 * (double)lvl[l] / (double)r->nr_data_src);
			if (!err)
				err =
				    hws_report__bar(sb, lvl[l], max, r->opts.width, r->opts.ascii);
			for (int s = 0; !err && s < HWS_SNOOP__MAX; s++)
				err = hws_strbuf__addf(sb, " %9" PRIu64, r->ds[l][s]);
			if (!err)
				err = hws_strbuf__addstr(sb, "\n");
		}
		max = 0;
		for (int t = 0; t < HWS_TLB__MAX; t++)
			max = r->tlb[t] > max ? r->tlb[t] : max;
		if (!err)
			err = hws_strbuf__addstr(sb, "-- TLB --\n");
		for (int t = 0; !err && t < HWS_TLB__MAX; t++) {
			if (!r->tlb[t])
				continue;
			err = hws_strbuf__addf(sb, "%-13s %10" PRIu64 " %5.1f%%  ",
					       hws_tlb__name((unsigned int)t), r->tlb[t],
					       100.0 * (double)r->tlb[t] / (double)r->nr_data_src);
			if (!err)
				err = hws_report__bar(sb, r->tlb[t], max, r->opts.width,
						      r->opts.ascii);
			if (!err)
				err = hws_strbuf__addstr(sb, "\n");
		}
	}
	if (!err && r->nr_op) {
		max = 0;
		for (int o = 0; o <= HWS_OP_OTHER; o++)
			max = r->op[o] > max ? r->op[o] : max;
		err = hws_strbuf__addstr(sb, "-- operation --\n");
		for (int o = 0; !err && o <= HWS_OP_OTHER; o++) {
			if (!r->op[o])
				continue;
			err = hws_strbuf__addf(sb, "%-13s %10" PRIu64 " %5.1f%%  ",
					       hws_op__name((unsigned int)o), r->op[o],
					       100.0 * (double)r->op[o] / (double)r->nr_op);
			if (!err)
				err = hws_report__bar(sb, r->op[o], max, r->opts.width,
						      r->opts.ascii);
			if (!err)
				err = hws_strbuf__addstr(sb, "\n");
		}
	}
	return err;
}

static int render_latency(struct hws_report *r, struct hws_strbuf *sb)
{
	int err = 0;

	for (int i = 0; !err && i < NR_LAT; i++) {
		const struct lat_hist *h = &r->lat[i];
		int lo = -1, hi = -1;
		uint64_t max = 0;

		if (!h->count)
			continue;
		for (int b = 0; b < HWS_REPORT_LAT_BUCKETS; b++) {
			if (!h->b[b])
				continue;
			if (lo < 0)
				lo = b;
			hi = b;
			if (h->b[b] > max)
				max = h->b[b];
		}
		err = hws_strbuf__addf(sb,
				       "\n== Latency %s (cycles): %" PRIu64 " samples, min %" PRIu64
				       ", mean %.1f, max %" PRIu64 " ==\n",
				       report__lat_fields[i].name, h->count, h->min,
				       (double)h->sum / (double)h->count, h->max);
		for (int b = lo; !err && b <= hi; b++) {
			uint64_t from = b ? 1ULL << (b - 1) : 0, to = b ? (1ULL << b) - 1 : 0;
			char range[48];

			snprintf(range, sizeof(range), "%" PRIu64 "-%" PRIu64, from, to);
			err = hws_strbuf__addf(sb, "%21s %10" PRIu64 " %5.1f%%  ", b ? range : "0",
					       h->b[b], 100.0 * (double)h->b[b] / (double)h->count);
			if (!err)
				err =
				    hws_report__bar(sb, h->b[b], max, r->opts.width, r->opts.ascii);
			if (!err)
				err = hws_strbuf__addstr(sb, "\n");
		}
	}
	return err;
}

int hws_report__render(struct hws_report *r, struct hws_symbols *syms, struct hws_strbuf *sb)
{
	uint32_t sec = r->opts.sections;
	int err = report__at_flush(&r->ips), err2 = report__at_flush(&r->addrs);

	if (err || err2)
		return err ? err : err2;
	if (r->folded)
		return hws_folded__render(r->folded, sb);
	if (r->hist)
		return hws_hist__render(r->hist, syms, r->opts.sort_keys, sb);
	err = hws_strbuf__addf(sb,
			       "# hwsample report: %" PRIu64 " samples, total period %" PRIu64 "\n",
			       r->nr_samples, r->total_period);
	if (!err && (sec & HWS_REPORT_COUNTS) && r->nr_rows)
		err = render_counts(r, sb);
	if (!err && (sec & HWS_REPORT_TOP_CODE))
		err = render_addrs(r, syms, sb, &r->ips, false);
	if (!err && (sec & HWS_REPORT_TOP_DATA))
		err = render_addrs(r, syms, sb, &r->addrs, true);
	if (!err && (sec & HWS_REPORT_DATA_SRC))
		err = render_data_src(r, sb);
	if (!err && (sec & HWS_REPORT_LATENCY))
		err = render_latency(r, sb);
	return err;
}

int hws_report__parse_callgraph(const char *arg, char *bad, size_t len)
{
	struct cg_params p = {0};

	return cg_parse(arg, &p, bad, len);
}

bool hws_report__has_callchains(const struct hws_report *r)
{
	return r->any_chain;
}

/* ------------------------------------------------------------------ for
 * core/analysis/report_html.c */

void hws__report_view(struct hws_report *r, struct hws_report_view *v)
{
	report__at_flush(&r->ips);
	report__at_flush(&r->addrs);
	*v = (struct hws_report_view){
	    .nr_samples = r->nr_samples,
	    .total_period = r->total_period,
	    .total_lat = r->total_lat,
	    .nr_data_src = r->nr_data_src,
	    .nr_op = r->nr_op,
	    .ds = (const uint64_t(*)[HWS_SNOOP__MAX])r->ds,
	    .tlb = r->tlb,
	    .op = r->op,
	    .lvl_lat = (const uint64_t(*)[HWS_REPORT_LAT_BUCKETS])r->lvl_lat,
	    .lvl_n = r->lvl_n,
	    .lvl_sum = r->lvl_sum,
	    .heat = r->heat,
	    .sort_name = sort_name(r),
	    .sort_total = sort_total(r),
	    .top = r->opts.top,
	    .nr_rows = r->nr_rows,
	    .hist = r->hist != NULL,
	};
}

int hws__report_count_row(const struct hws_report *r, size_t i, const char **event,
			  const char **backend, int *cpu, const struct hws_decode_counts **c)
{
	if (i >= r->nr_rows)
		return -EINVAL;
	*event = r->rows[i].event;
	*backend = r->rows[i].backend;
	*cpu = r->rows[i].cpu;
	*c = &r->rows[i].c;
	return 0;
}

int hws__report_lat(const struct hws_report *r, int i, const char **name, const uint64_t **b,
		    uint64_t *count, uint64_t *sum, uint64_t *min, uint64_t *max)
{
	if (i < 0 || i >= NR_LAT)
		return -EINVAL;
	*name = report__lat_fields[i].name;
	*b = r->lat[i].b;
	*count = r->lat[i].count;
	*sum = r->lat[i].sum;
	*min = r->lat[i].min;
	*max = r->lat[i].max;
	return 0;
}

void hws__report_top_release(struct hws_report_top *t)
{
	for (size_t i = 0; t->rows && i < t->shown; i++)
		free(t->rows[i].label);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* the rows of render_addrs()'s tables, labels as render_table() writes them */
int hws__report_top(struct hws_report *r, struct hws_symbols *syms, bool data, bool grouped,
		    struct hws_report_top *out)
{
	const struct atable *t = data ? &r->addrs : &r->ips;
	size_t shown = t->nr < r->opts.top ? t->nr : r->opts.top;
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct groups g = {0};
	struct row *top = NULL, *rows;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (report__at_flush(&r->ips) || report__at_flush(&r->addrs))
		return -ENOMEM;
	if (!t->nr)
		return 0;
	if (grouped) {
		err = group_entries(syms, t, data, &g);
		if (err)
			goto out;
		for (size_t i = 0; i < g.nr; i++)
			g.rows[i].key = sort_val(r, &g.rows[i].t);
		shown = g.nr < r->opts.top ? g.nr : r->opts.top;
		select_top(g.rows, g.nr, shown);
		rows = g.rows;
		out->n = g.nr;
		out->other = sort_val(r, &t->other);
	} else {
		top = calloc(shown + 1, sizeof(*top));
		if (!top) {
			err = -ENOMEM;
			goto out;
		}
		shown = top_entries(r, t, top, shown);
		rows = top;
		out->n = t->nr;
	}
	out->rows = calloc(shown + 1, sizeof(*out->rows));
	if (!out->rows) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < shown; i++) {
		hws_strbuf__reset(&sb);
		if (rows[i].label)
			err = hws_strbuf__addstr(&sb, rows[i].label);
		else
			err = addr_label(syms, rows[i].k, data, &sb);
		out->rows[i].label = err ? NULL : strdup(sb.buf ? sb.buf : "");
		out->rows[i].value = rows[i].key;
		out->shown = i + 1;
		if (!out->rows[i].label) {
			err = err ? err : -ENOMEM;
			break;
		}
	}
out:
	if (err)
		hws__report_top_release(out);
	hws_strbuf__release(&sb);
	free(top);
	free(g.tab);
	rows_free(g.rows, g.nr);
	return err;
}
