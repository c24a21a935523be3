// SPDX-License-Identifier: MIT
/*
 * Report aggregation and rendering (see include/hwsample/report.h).
 *
 * Invariants:
 *  - the address tables are open-addressing hash tables with a power-of-two size, at most
 *    half full; a table never holds more than max_keys entries: once full, new keys only
 *    increment the table's "other" tally;
 *  - kernel addresses (top bit set) are keyed with pid 0 so they merge across processes;
 *  - the counts rows are kept in insertion order, strings copied;
 *  - rendering reads the tables, never changes them (it may be called twice).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/report.h>

#include "internal.h"

#define NR_LAT 5

struct tally {
	uint64_t samples, period, lat;
};

struct akey {
	uint64_t addr;
	uint32_t pid;
	uint32_t used;
	struct tally t;
};

struct atable {
	struct akey *k;
	struct akey *last; /* previous hit: samples come in runs of the same address */
	size_t size, nr, max;
	struct tally other;
};

struct count_row {
	char *event, *backend;
	int cpu;
	struct hws_decode_counts c;
};

struct lat_hist {
	uint64_t b[HWS_REPORT_LAT_BUCKETS];
	uint64_t count, sum, min, max;
};

struct hws_report {
	struct hws_report_opts opts;
	uint64_t nr_samples, total_period, total_lat;
	struct atable ips, addrs;
	uint64_t ds[HWS_MEM__MAX][HWS_SNOOP__MAX];
	uint64_t tlb[HWS_TLB__MAX];
	uint64_t op[HWS_OP_OTHER + 1];
	uint64_t nr_data_src, nr_op;
	struct lat_hist lat[NR_LAT];
	struct count_row *rows;
	size_t nr_rows, alloc_rows;
};

static const struct {
	uint64_t field;
	const char *name;
	size_t off;
} lat_fields[NR_LAT] = {
    {HWS_SF_LAT_TOTAL, "lat_total", offsetof(struct hws_sample, lat_total)},
    {HWS_SF_LAT_ISSUE, "lat_issue", offsetof(struct hws_sample, lat_issue)},
    {HWS_SF_LAT_XLAT, "lat_xlat", offsetof(struct hws_sample, lat_xlat)},
    {HWS_SF_LAT_MISS, "lat_miss", offsetof(struct hws_sample, lat_miss)},
    {HWS_SF_LAT_INS, "lat_ins", offsetof(struct hws_sample, lat_ins)},
};

struct hws_report *hws_report__new(const struct hws_report_opts *opts)
{
	struct hws_report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (opts) {
		size_t n = opts->sz < sizeof(r->opts) ? opts->sz : sizeof(r->opts);
		memcpy(&r->opts, opts, n);
	}
	r->opts.sz = sizeof(r->opts);
	if (!r->opts.top)
		r->opts.top = 20;
	if (!r->opts.width)
		r->opts.width = 30;
	if (!r->opts.sections)
		r->opts.sections = ~0U;
	if (!r->opts.max_keys)
		r->opts.max_keys = 4u << 20;
	r->ips.max = r->addrs.max = r->opts.max_keys;
	for (int i = 0; i < NR_LAT; i++)
		r->lat[i].min = UINT64_MAX;
	return r;
}

void hws_report__delete(struct hws_report *r)
{
	if (!r)
		return;
	free(r->ips.k);
	free(r->addrs.k);
	for (size_t i = 0; i < r->nr_rows; i++) {
		free(r->rows[i].event);
		free(r->rows[i].backend);
	}
	free(r->rows);
	free(r);
}

static uint64_t key_hash(uint32_t pid, uint64_t addr)
{
	uint64_t h = addr ^ ((uint64_t)pid << 47) ^ pid;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

static struct akey *at_slot(const struct atable *t, uint32_t pid, uint64_t addr)
{
	size_t m = t->size - 1, i = key_hash(pid, addr) & m;

	while (t->k[i].used && (t->k[i].addr != addr || t->k[i].pid != pid))
		i = (i + 1) & m;
	return &t->k[i];
}

static int at_grow(struct atable *t)
{
	size_t ns = t->size ? t->size * 2 : 1024;
	struct atable n = {.size = ns};

	n.k = calloc(ns, sizeof(*n.k));
	if (!n.k)
		return -ENOMEM;
	for (size_t i = 0; i < t->size; i++)
		if (t->k[i].used)
			*at_slot(&n, t->k[i].pid, t->k[i].addr) = t->k[i];
	free(t->k);
	t->k = n.k;
	t->size = ns;
	t->last = NULL;
	return 0;
}

static int at_add(struct atable *t, uint32_t pid, uint64_t addr, const struct tally *v)
{
	struct akey *k;

	if ((int64_t)addr < 0)
		pid = 0;
	k = t->last;
	if (k && k->addr == addr && k->pid == pid)
		goto add;
	if (t->size) {
		k = at_slot(t, pid, addr);
		if (k->used)
			goto add;
	}
	if (t->nr >= t->max) {
		k = NULL;
		goto other;
	}
	if ((t->nr + 1) * 2 > t->size && at_grow(t))
		return -ENOMEM;
	k = at_slot(t, pid, addr);
	k->used = 1;
	k->pid = pid;
	k->addr = addr;
	t->nr++;
add:
	t->last = k;
	k->t.samples += v->samples;
	k->t.period += v->period;
	k->t.lat += v->lat;
	return 0;
other:
	t->other.samples += v->samples;
	t->other.period += v->period;
	t->other.lat += v->lat;
	return 0;
}

static uint64_t at_get(const struct atable *t, uint32_t pid, uint64_t addr)
{
	const struct akey *k;

	if (!t->size)
		return 0;
	if ((int64_t)addr < 0)
		pid = 0;
	k = at_slot(t, pid, addr);
	return k->used ? k->t.samples : 0;
}

static unsigned int log2_bucket(uint64_t v)
{
	unsigned int b = 0;

	while (v && b < HWS_REPORT_LAT_BUCKETS - 1) {
		b++;
		v >>= 1;
	}
	return b;
}

int hws_report__add(struct hws_report *r, const struct hws_sample *s)
{
	struct tally v = {1, (s->fields & HWS_SF_PERIOD) ? s->period : 1, 0};
	int err = 0;

	if (s->fields & HWS_SF_LAT_TOTAL)
		v.lat = s->lat_total;
	r->nr_samples++;
	r->total_period += v.period;
	r->total_lat += v.lat;
	if (s->fields & HWS_SF_IP)
		err = at_add(&r->ips, s->pid, s->ip, &v);
	/* address 0 is what non-memory events (cpu-clock with -d) carry: not data */
	if (!err && (s->fields & HWS_SF_ADDR) && s->addr)
		err = at_add(&r->addrs, s->pid, s->addr, &v);
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
	for (int i = 0; i < NR_LAT; i++) {
		struct lat_hist *h = &r->lat[i];
		uint32_t l;

		if (!(s->fields & lat_fields[i].field))
			continue;
		memcpy(&l, (const char *)s + lat_fields[i].off, sizeof(l));
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
	return hws_report__add(ctx, s) ? -ENOMEM : 0;
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
		if (lat_fields[i].field == field)
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
	char *label;	      /* owned; NULL: made from @k when shown */
	const struct akey *k; /* address rows */
	struct tally t;
	uint64_t key; /* sort value (address while resolving) */
	uint32_t pid;
};

static int row_cmp_val(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if (x->k && y->k) {
		if (x->k->addr != y->k->addr)
			return x->k->addr < y->k->addr ? -1 : 1;
		return x->k->pid < y->k->pid ? -1 : x->k->pid > y->k->pid;
	}
	return x->label && y->label ? strcmp(x->label, y->label) : 0;
}

static int row_cmp_pid_addr(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		free(rows[i].label);
	free(rows);
}

/* "name [dso]" of a symbol for grouping; "[dso]" when there is no name. */
static char *group_label(const struct hws_symbol *sym)
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

/* "0xADDR symbol+off [dso]" of an address row */
static int addr_label(struct hws_symbols *syms, const struct akey *k, bool data,
		      struct hws_strbuf *sb)
{
	struct hws_symbol sym;
	int err = hws_strbuf__addf(sb, "0x%016" PRIx64 " ", k->addr);

	if (err)
		return err;
	if (!syms)
		return hws_strbuf__addf(sb, "pid %u", k->pid);
	hws_symbols__resolve(syms, k->pid, k->addr, data, &sym);
	return hws_symbol__format(&sym, true, sb);
}

static int render_table(struct hws_report *r, struct hws_strbuf *sb, const char *title,
			const char *col, struct row *rows, size_t n, const struct tally *other,
			struct hws_symbols *syms, bool data)
{
	uint64_t total = sort_total(r), max = 0;
	size_t shown = n < r->opts.top ? n : r->opts.top;
	int err;

	for (size_t i = 0; i < n; i++)
		rows[i].key = sort_val(r, &rows[i].t);
	/* only the first @shown rows need to be in order: move the best to the front by
	 * insertion into a sorted prefix (n x top, and most rows lose at the first compare) */
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
	if (n)
		max = rows[0].key;
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

/* Top addresses of table @t and the same grouped by symbol. */
static int render_addrs(struct hws_report *r, struct hws_symbols *syms, struct hws_strbuf *sb,
			const struct atable *t, bool data)
{
	struct row *rows = NULL, *groups = NULL;
	struct gkey *gtab = NULL;
	size_t n = 0, ng = 0, gsize = 16;
	int err = 0;

	if (!t->nr)
		return 0;
	while (gsize < t->nr * 2)
		gsize *= 2;
	rows = calloc(t->nr, sizeof(*rows));
	groups = calloc(t->nr, sizeof(*groups));
	gtab = calloc(gsize, sizeof(*gtab));
	if (!rows || !groups || !gtab) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < t->size; i++)
		if (t->k[i].used) {
			rows[n].k = &t->k[i];
			rows[n].key = t->k[i].addr;
			rows[n++].pid = t->k[i].pid;
		}
	/* resolve in (pid, address) order: each process's files come one after the other,
	 * so the symbol cache loads each file once instead of thrashing in hash order */
	qsort(rows, n, sizeof(*rows), row_cmp_pid_addr);
	for (size_t i = 0; i < n; i++) {
		const struct akey *k = rows[i].k;
		struct hws_symbol sym = {0};
		uint64_t start;
		size_t g;

		rows[i].t = k->t;
		if (syms)
			hws_symbols__resolve(syms, k->pid, k->addr, data, &sym);
		start = sym.name ? sym.dso_addr - sym.offset : UINT64_MAX;
		g = gslot(gtab, gsize, sym.dso, start);
		if (!gtab[g].row) {
			groups[ng].label = group_label(&sym);
			if (!groups[ng].label) {
				err = -ENOMEM;
				goto out;
			}
			gtab[g].dso = sym.dso;
			gtab[g].start = start;
			gtab[g].row = ++ng;
		}
		struct tally *gt = &groups[gtab[g].row - 1].t;
		gt->samples += k->t.samples;
		gt->period += k->t.period;
		gt->lat += k->t.lat;
	}
	err = render_table(r, sb, data ? "Top data objects" : "Top functions",
			   data ? "object  [dso]" : "function  [dso]", groups, ng, &t->other, syms,
			   data);
	if (!err)
		err = render_table(r, sb, data ? "Top data addresses" : "Top code addresses",
				   "address symbol", rows, n, NULL, syms, data);
out:
	free(gtab);
	rows_free(rows, n);
	rows_free(groups, ng);
	return err;
}

static int render_counts(struct hws_report *r, struct hws_strbuf *sb)
{
	struct hws_decode_counts tot = {0};
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
		err = hws_strbuf__addf(sb,
				       "%-*.*s %-10.10s %4s %10" PRIu64 " %14" PRIu64 " %8" PRIu64
				       " %7" PRIu64 " %9" PRIu64 " %9" PRIu64 " %8" PRIu64
				       " %8" PRIu64,
				       ew, ew, row ? row->event : "total", row ? row->backend : "",
				       cpu, c->samples, c->period, c->skipped, c->errors, c->lost,
				       c->lost_samples, c->throttle, c->unthrottle);
		if (!err && aux)
			err = hws_strbuf__addf(
			    sb, " %8" PRIu64 " %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %6" PRIu64,
			    c->aux_records, c->aux_truncated, c->aux_partial, c->aux_collision,
			    c->aux_gaps);
		if (!err)
			err = hws_strbuf__addstr(sb, "\n");
	}
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
				       lat_fields[i].name, h->count, h->min,
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
	int err;

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
