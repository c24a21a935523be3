// SPDX-License-Identifier: MIT
/*
 * Sample filters with perf's options (see include/hwsample/filter.h).
 *
 * Invariants:
 *  - a filter is immutable once made: hws_filter__match() only reads it (and the symbols);
 *  - every list is a sorted, deduplicated array (numbers) or an array of owned strings; an
 *    absent option is an empty list, which passes everything;
 *  - CPUs are a bitmap of HWS_FILTER_MAX_CPU bits; CPUs above never match a CPU list.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/filter.h>

#include "util/internal.h"

#define MAX_CPU	   4096
#define MAX_RANGES 64

struct strlist {
	char **v;
	size_t n;
};

struct hws_filter {
	uint32_t *pids, *tids;
	size_t npids, ntids;
	struct strlist comms, dsos, syms, events;
	uint64_t *cpus; /* bitmap, NULL: any */
	struct hws_time_range time[MAX_RANGES];
	int ntime;
	char *time_str;
};

/* perf's short names of JIT maps, "[JIT] tid PID" (dso__set_basename()): made once per pid,
 * kept for the program's life (the names are shown as long as anything holds the path) */
struct jit_name {
	struct jit_name *next;
	int pid;
	char name[24];
};

static struct jit_name *jit_names;
static pthread_mutex_t jit_mu = PTHREAD_MUTEX_INITIALIZER;

static const char *jit_short_name(const char *path)
{
	const char *r = NULL;
	struct jit_name *j;
	int pid, n = 0;

	if (sscanf(path, "/tmp/perf-%d.map%n", &pid, &n) != 1 || !n || path[n])
		return NULL;
	pthread_mutex_lock(&jit_mu);
	for (j = jit_names; j && j->pid != pid; j = j->next)
		;
	if (!j && (j = malloc(sizeof(*j)))) {
		j->pid = pid;
		snprintf(j->name, sizeof(j->name), "[JIT] tid %d", pid);
		j->next = jit_names;
		jit_names = j;
	}
	if (j)
		r = j->name;
	pthread_mutex_unlock(&jit_mu);
	return r;
}

const char *hws_dso__short_name(const char *path)
{
	const char *b;

	if (!path)
		return "[unknown]";
	if (!strncmp(path, "/tmp/perf-", 10) && (b = jit_short_name(path)))
		return b;
	if (!strcmp(path, "[kernel]") || !strncmp(path, "[kernel.kallsyms]", 17))
		return "[kernel.kallsyms]";
	if (path[0] == '[')
		return path;
	b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* ---------------------------------------------------------------- parsing */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* "1,2,3" -> sorted array; -EINVAL on anything but numbers and commas */
static int parse_ids(const char *str, uint32_t **out, size_t *n)
{
	size_t cap = 1;
	const char *p;
	uint32_t *v;

	for (p = str; *p; p++)
		cap += *p == ',';
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	*n = 0;
	for (p = str; *p;) {
		char *end;
		unsigned long x;

		if (*p == ',' || *p == ' ') {
			p++;
			continue;
		}
		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		x = strtoul(p, &end, 10);
		if (errno || x > UINT32_MAX || (*end && *end != ',' && *end != ' '))
			goto bad;
		v[(*n)++] = (uint32_t)x;
		p = end;
	}
	if (!*n)
		goto bad;
	hws__qsort(v, *n, sizeof(*v), cmp_u32);
	*out = v;
	return 0;
bad:
	free(v);
	return -EINVAL;
}

static bool has_id(const uint32_t *v, size_t n, uint32_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = (lo + hi) / 2;

		if (v[m] == x)
			return true;
		if (v[m] < x)
			lo = m + 1;
		else
			hi = m;
	}
	return false;
}

static int parse_strs(const char *str, struct strlist *l)
{
	size_t cap = 1;
	const char *p = str;

	for (const char *q = str; *q; q++)
		cap += *q == ',';
	l->v = calloc(cap, sizeof(*l->v));
	if (!l->v)
		return -ENOMEM;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len) {
			l->v[l->n] = strndup(p, len);
			if (!l->v[l->n])
				return -ENOMEM;
			l->n++;
		}
		p += len;
		if (*p)
			p++;
	}
	return l->n ? 0 : -EINVAL;
}

static bool has_str(const struct strlist *l, const char *s)
{
	for (size_t i = 0; s && i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

static int parse_cpus(const char *str, uint64_t **out)
{
	uint64_t *bm = calloc(MAX_CPU / 64, sizeof(*bm));
	const char *p = str;
	bool any = false;

	if (!bm)
		return -ENOMEM;
	while (*p) {
		unsigned long a, b;
		char *end;

		if (*p == ',') {
			p++;
			continue;
		}
		if (*p < '0' || *p > '9')
			goto bad;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			b = strtoul(end + 1, &end, 10);
		}
		if ((*end && *end != ',') || b < a || b >= MAX_CPU)
			goto bad;
		for (unsigned long c = a; c <= b; c++)
			bm[c / 64] |= 1ULL << (c % 64);
		any = true;
		p = end;
	}
	if (!any)
		goto bad;
	*out = bm;
	return 0;
bad:
	free(bm);
	return -EINVAL;
}

/* perf's "sec.nsec": seconds, then up to nine decimals; "" is 0 (open) */
static int parse_sec(const char *s, size_t len, uint64_t *out)
{
	uint64_t sec = 0, ns = 0;
	size_t i = 0;
	int digits = 0;

	while (len && *s == ' ')
		s++, len--;
	while (len && s[len - 1] == ' ')
		len--;
	if (!len) {
		*out = 0;
		return 0;
	}
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > UINT64_MAX / 10 / 1000000000ULL)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (!i)
		return -EINVAL;
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			if (++digits > 9)
				return -EINVAL;
			ns = ns * 10 + (uint64_t)(s[i] - '0');
		}
		for (int d = digits; d < 9; d++)
			ns *= 10;
	}
	if (i != len)
		return -EINVAL;
	*out = sec * 1000000000ULL + ns;
	return 0;
}

/* a percentage "12.5%" (as a fraction) ending at *@end */
static int parse_pct(const char *s, double *out, const char **end)
{
	char *e;
	double v = strtod(s, &e);

	if (e == s || *e != '%' || v < 0 || v > 100)
		return -EINVAL;
	*out = v / 100;
	*end = e + 1;
	return 0;
}

static void set_pct(struct hws_time_range *r, double a, double b, uint64_t first, uint64_t last)
{
	uint64_t total = last - first;

	r->start = first + (uint64_t)(a * (double)total + 0.5);
	r->end = first + (uint64_t)(b * (double)total + 0.5);
	/* adjacent slices do not share their boundary (perf: the end moves back one ns) */
	if (r->end > r->start && r->end != last)
		r->end -= 1;
}

/* "10%/2,10%/3" or "0%-10%,30%-40%" */
static int parse_percent(const char *str, uint64_t first, uint64_t last, struct hws_time_range *out,
			 size_t max)
{
	const char *p = str;
	size_t n = 0;

	if (!first || !last || last < first)
		return -EINVAL;
	while (*p) {
		double a, b;
		const char *e;

		if (parse_pct(p, &a, &e))
			return -EINVAL;
		if (*e == '/') {
			char *ee;
			long k = strtol(e + 1, &ee, 10);

			if (ee == e + 1 || k < 1 || a <= 0 || (double)k * a > 1.0 + 1e-9)
				return -EINVAL;
			b = a * (double)k;
			a = b - a;
			e = ee;
		} else if (*e == '-') {
			if (parse_pct(e + 1, &b, &e) || b < a)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
		if (n == max)
			return -E2BIG;
		set_pct(&out[n++], a, b > 1.0 ? 1.0 : b, first, last);
		if (*e == ',')
			e++;
		else if (*e)
			return -EINVAL;
		p = e;
	}
	return n ? (int)n : -EINVAL;
}

int hws_time__parse(const char *str, uint64_t first, uint64_t last, struct hws_time_range *out,
		    size_t max)
{
	const char *p = str;
	size_t n = 0;

	if (!str || !max)
		return -EINVAL;
	if (strchr(str, '%'))
		return parse_percent(str, first, last, out, max);
	/* "START,STOP[ START,STOP...]" */
	while (*p) {
		const char *comma, *stop_end;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		comma = strchr(p, ',');
		if (!comma)
			return -EINVAL;
		stop_end = comma + 1;
		while (*stop_end == ' ')
			stop_end++;
		stop_end += strcspn(stop_end, " ");
		if (n == max)
			return -E2BIG;
		if (parse_sec(p, (size_t)(comma - p), &out[n].start) ||
		    parse_sec(comma + 1, (size_t)(stop_end - comma - 1), &out[n].end))
			return -EINVAL;
		if (out[n].end && out[n].end < out[n].start)
			return -EINVAL;
		n++;
		p = stop_end;
	}
	return n ? (int)n : -EINVAL;
}

/* ---------------------------------------------------------------- the filter */

void hws_filter__delete(struct hws_filter *f)
{
	struct strlist *ls[4];

	if (!f)
		return;
	ls[0] = &f->comms;
	ls[1] = &f->dsos;
	ls[2] = &f->syms;
	ls[3] = &f->events;
	for (int i = 0; i < 4; i++) {
		for (size_t j = 0; j < ls[i]->n; j++)
			free(ls[i]->v[j]);
		free(ls[i]->v);
	}
	free(f->pids);
	free(f->tids);
	free(f->cpus);
	free(f->time_str);
	free(f);
}

/* the option of @o that does not parse into @f, or NULL (and *@err) */
static const char *build(const struct hws_filter_opts *o, struct hws_filter *f, int *err)
{
	*err = 0;
	if (o->pid && (*err = parse_ids(o->pid, &f->pids, &f->npids)))
		return "pid";
	if (o->tid && (*err = parse_ids(o->tid, &f->tids, &f->ntids)))
		return "tid";
	if (o->comm && (*err = parse_strs(o->comm, &f->comms)))
		return "comm";
	if (o->dso && (*err = parse_strs(o->dso, &f->dsos)))
		return "dso";
	if (o->sym && (*err = parse_strs(o->sym, &f->syms)))
		return "sym";
	if (o->event && (*err = parse_strs(o->event, &f->events)))
		return "event";
	if (o->cpu && (*err = parse_cpus(o->cpu, &f->cpus)))
		return "cpu";
	if (o->time) {
		int n = hws_time__parse(o->time, o->first_time, o->last_time, f->time, MAX_RANGES);

		if (n < 0) {
			*err = n;
			return "time";
		}
		f->ntime = n;
		f->time_str = strdup(o->time);
		if (!f->time_str) {
			*err = -ENOMEM;
			return "time";
		}
	}
	return NULL;
}

int hws_filter__new(const struct hws_filter_opts *opts, struct hws_filter **out)
{
	struct hws_filter_opts o;
	struct hws_filter *f;
	int err;

	*out = NULL;
	err = HWS_OPTS_GET(o, opts, hws_filter_opts);
	if (err)
		return err;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	if (build(&o, f, &err)) {
		hws_filter__delete(f);
		return err;
	}
	*out = f;
	return 0;
}

const char *hws_filter__check(const struct hws_filter_opts *opts)
{
	struct hws_filter_opts o;
	struct hws_filter *f;
	const char *bad;
	int err;

	if (HWS_OPTS_GET(o, opts, hws_filter_opts))
		return "opts";
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	bad = build(&o, f, &err);
	hws_filter__delete(f);
	return err == -ENOMEM ? NULL : bad;
}

bool hws_filter__needs_symbols(const struct hws_filter *f)
{
	return f && (f->comms.n || f->dsos.n || f->syms.n);
}

bool hws_filter__has_time_or_cpu(const struct hws_filter *f)
{
	return f && (f->cpus || f->ntime);
}

bool hws_filter__match_time_cpu(const struct hws_filter *f, const struct hws_sample *s)
{
	if (!f)
		return true;
	if (f->cpus) {
		if (!(s->fields & HWS_SF_CPU) || s->cpu >= MAX_CPU ||
		    !(f->cpus[s->cpu / 64] & (1ULL << (s->cpu % 64))))
			return false;
	}
	if (f->ntime) {
		int i;

		for (i = 0; i < f->ntime; i++) {
			const struct hws_time_range *r = &f->time[i];

			if ((!r->start || s->time >= r->start) && (!r->end || s->time <= r->end))
				break;
		}
		if (i == f->ntime)
			return false;
	}
	return true;
}

bool hws_filter__match_entry(const struct hws_filter *f, struct hws_symbols *syms,
			     const struct hws_sample *s)
{
	if (!f)
		return true;
	if (f->npids && !has_id(f->pids, f->npids, s->pid))
		return false;
	if (f->ntids && !has_id(f->tids, f->ntids, s->tid))
		return false;
	if (f->events.n && !has_str(&f->events, s->event))
		return false;
	if (f->comms.n && !has_str(&f->comms, hws_symbols__sample_comm(syms, s)))
		return false;
	if (f->dsos.n || f->syms.n) {
		struct hws_symbol sym = {0};

		if (!syms || !(s->fields & HWS_SF_IP))
			return false;
		hws_symbols__resolve(syms, s->pid, s->ip, false, &sym);
		if (f->dsos.n && !has_str(&f->dsos, hws_dso__short_name(sym.dso)) &&
		    !has_str(&f->dsos, sym.dso))
			return false;
		if (f->syms.n && !has_str(&f->syms, sym.name))
			return false;
	}
	return true;
}

bool hws_filter__match(const struct hws_filter *f, struct hws_symbols *syms,
		       const struct hws_sample *s)
{
	return hws_filter__match_time_cpu(f, s) && hws_filter__match_entry(f, syms, s);
}

size_t hws_filter__list_len(const struct hws_filter *f, const char *what)
{
	if (!f || !what)
		return 0;
	if (!strcmp(what, "pid"))
		return f->npids;
	if (!strcmp(what, "tid"))
		return f->ntids;
	if (!strcmp(what, "comm"))
		return f->comms.n;
	if (!strcmp(what, "dso"))
		return f->dsos.n;
	if (!strcmp(what, "sym"))
		return f->syms.n;
	if (!strcmp(what, "event"))
		return f->events.n;
	return 0;
}

const char *hws_filter__time_str(const struct hws_filter *f)
{
	return f ? f->time_str : NULL;
}
