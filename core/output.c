// SPDX-License-Identifier: MIT
/*
 * Sample formatters (see include/hwsample/output.h).
 *
 * Invariants: a field is written only when its HWS_SF_* bit is set; every line ends in
 * '\n'; the column set and order of CSV is fixed by csv_cols[] (header and rows share it);
 * numbers are formatted by hand (no printf per field) because dump runs over millions of
 * samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/output.h>

#include "internal.h"

/* Small line builder: a stack buffer flushed into the strbuf when it fills. */
struct lb {
	struct hws_strbuf *sb;
	size_t n;
	int err;
	char b[1024];
};

static void lb_flush(struct lb *l)
{
	if (l->n && !l->err)
		l->err = hws_strbuf__add(l->sb, l->b, l->n);
	l->n = 0;
}

static void lb_add(struct lb *l, const char *s, size_t len)
{
	if (l->n + len > sizeof(l->b)) {
		lb_flush(l);
		if (len > sizeof(l->b)) {
			if (!l->err)
				l->err = hws_strbuf__add(l->sb, s, len);
			return;
		}
	}
	memcpy(l->b + l->n, s, len);
	l->n += len;
}

static void lb_str(struct lb *l, const char *s)
{
	lb_add(l, s, strlen(s));
}

static void lb_u64(struct lb *l, uint64_t v)
{
	char t[24];
	int i = sizeof(t);

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	lb_add(l, t + i, sizeof(t) - (size_t)i);
}

static void lb_hex(struct lb *l, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char t[20];
	int i = sizeof(t);

	do {
		t[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	t[--i] = 'x';
	t[--i] = '0';
	lb_add(l, t + i, sizeof(t) - (size_t)i);
}

static void lb_json_str(struct lb *l, const char *s)
{
	/* fast path: nothing to escape */
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f) {
			lb_flush(l);
			if (!l->err)
				l->err = hws_strbuf__add_json_str(l->sb, s);
			return;
		}
	}
	lb_add(l, "\"", 1);
	lb_str(l, s);
	lb_add(l, "\"", 1);
}

static void lb_csv_str(struct lb *l, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		lb_str(l, s);
		return;
	}
	lb_add(l, "\"", 1);
	for (; *s; s++) {
		if (*s == '"')
			lb_add(l, "\"", 1);
		lb_add(l, s, 1);
	}
	lb_add(l, "\"", 1);
}

/* text of a symbol lookup into @tmp (reset first); NULL if nothing known */
static const char *sym_text(const struct hws_output_opts *o, const struct hws_sample *s,
			    uint64_t a, bool data, struct hws_strbuf *tmp, const char **dso)
{
	struct hws_symbol sym;

	*dso = NULL;
	hws_strbuf__reset(tmp);
	hws_symbols__resolve(o->syms, s->pid, a, data, &sym);
	if (!sym.name && !sym.dso)
		return NULL;
	if (hws_symbol__format(&sym, false, tmp))
		return NULL;
	*dso = sym.dso;
	return tmp->buf;
}

/* the sample fields shared by every format, in column order */
enum col {
	C_TIME, C_CPU, C_PID, C_TID, C_EVENT, C_BACKEND, C_PERIOD, C_IP, C_PRECISE, C_ADDR,
	C_PHYS, C_OP, C_LAT_TOTAL, C_LAT_ISSUE, C_LAT_XLAT, C_LAT_MISS, C_LAT_INS, C_LEVEL,
	C_SNOOP, C_TLB, C_DATA_SRC, C_BRANCH, C__NR,
};

static const struct {
	const char *name;
	uint64_t need;
} cols[C__NR] = {
	[C_TIME] = { "time", HWS_SF_TIME },
	[C_CPU] = { "cpu", HWS_SF_CPU },
	[C_PID] = { "pid", HWS_SF_PID },
	[C_TID] = { "tid", HWS_SF_PID },
	[C_EVENT] = { "event", 0 },
	[C_BACKEND] = { "backend", 0 },
	[C_PERIOD] = { "period", HWS_SF_PERIOD },
	[C_IP] = { "ip", HWS_SF_IP },
	[C_PRECISE] = { "precise", HWS_SF_IP },
	[C_ADDR] = { "addr", HWS_SF_ADDR },
	[C_PHYS] = { "phys_addr", HWS_SF_PHYS_ADDR },
	[C_OP] = { "op", HWS_SF_OP },
	[C_LAT_TOTAL] = { "lat_total", HWS_SF_LAT_TOTAL },
	[C_LAT_ISSUE] = { "lat_issue", HWS_SF_LAT_ISSUE },
	[C_LAT_XLAT] = { "lat_xlat", HWS_SF_LAT_XLAT },
	[C_LAT_MISS] = { "lat_miss", HWS_SF_LAT_MISS },
	[C_LAT_INS] = { "lat_ins", HWS_SF_LAT_INS },
	[C_LEVEL] = { "mem_level", HWS_SF_DATA_SRC },
	[C_SNOOP] = { "snoop", HWS_SF_DATA_SRC },
	[C_TLB] = { "tlb", HWS_SF_DATA_SRC },
	[C_DATA_SRC] = { "data_src", HWS_SF_DATA_SRC },
	[C_BRANCH] = { "branch_target", HWS_SF_BRANCH },
};

static bool col_valid(const struct hws_sample *s, int c)
{
	if (c == C_EVENT)
		return s->event != NULL;
	if (c == C_BACKEND)
		return s->backend != NULL;
	return (s->fields & cols[c].need) == cols[c].need;
}

/* value of column @c; @json selects JSON quoting of strings */
static void put_col(struct lb *l, const struct hws_sample *s, int c, int fmt)
{
	const char *str = NULL;

	switch (c) {
	case C_TIME: lb_u64(l, s->time); return;
	case C_CPU: lb_u64(l, s->cpu); return;
	case C_PID: lb_u64(l, s->pid); return;
	case C_TID: lb_u64(l, s->tid); return;
	case C_PERIOD: lb_u64(l, s->period); return;
	case C_LAT_TOTAL: lb_u64(l, s->lat_total); return;
	case C_LAT_ISSUE: lb_u64(l, s->lat_issue); return;
	case C_LAT_XLAT: lb_u64(l, s->lat_xlat); return;
	case C_LAT_MISS: lb_u64(l, s->lat_miss); return;
	case C_LAT_INS: lb_u64(l, s->lat_ins); return;
	case C_DATA_SRC: lb_u64(l, s->data_src); return;
	case C_PRECISE:
		if (fmt == HWS_OUT_JSON)
			lb_str(l, s->ip_precise ? "true" : "false");
		else
			lb_u64(l, s->ip_precise);
		return;
	case C_IP: case C_ADDR: case C_PHYS: case C_BRANCH: {
		uint64_t v = c == C_IP ? s->ip : c == C_ADDR ? s->addr :
			     c == C_PHYS ? s->phys_addr : s->branch_target;
		if (fmt == HWS_OUT_JSON)
			lb_add(l, "\"", 1);
		lb_hex(l, v);
		if (fmt == HWS_OUT_JSON)
			lb_add(l, "\"", 1);
		return;
	}
	case C_EVENT: str = s->event; break;
	case C_BACKEND: str = s->backend; break;
	case C_OP: str = hws_op__name(s->op); break;
	case C_LEVEL: str = hws_mem_level__name(s->mem_level); break;
	case C_SNOOP: str = hws_snoop__name(s->snoop); break;
	case C_TLB: str = hws_tlb__name(s->tlb); break;
	default: return;
	}
	if (fmt == HWS_OUT_JSON)
		lb_json_str(l, str);
	else
		lb_csv_str(l, str);
}

int hws_output__header(const struct hws_output_opts *o, struct hws_strbuf *sb)
{
	struct lb l = { .sb = sb };

	if (o->format != HWS_OUT_CSV)
		return 0;
	for (int c = 0; c < C__NR; c++) {
		if (c)
			lb_add(&l, ",", 1);
		lb_str(&l, cols[c].name);
	}
	if (o->symbols && o->syms)
		lb_str(&l, ",sym,dso,data_sym,data_dso");
	if (o->raw)
		lb_str(&l, ",raw");
	lb_add(&l, "\n", 1);
	lb_flush(&l);
	return l.err;
}

static void put_raw(struct lb *l, const struct hws_output_opts *o, const struct hws_sample *s,
		    struct hws_strbuf *tmp)
{
	if (!o->raw_json)
		return;
	hws_strbuf__reset(tmp);
	if (o->raw_json(o->raw_ctx, s, tmp) || !tmp->buf)
		return;
	if (o->format == HWS_OUT_JSON) {
		lb_str(l, ",\"raw\":");
		lb_str(l, tmp->buf);
	} else if (o->format == HWS_OUT_CSV) {
		lb_csv_str(l, tmp->buf);
	} else {
		lb_str(l, " raw ");
		lb_str(l, tmp->buf);
	}
}

static void sample_json(struct lb *l, const struct hws_output_opts *o, const struct hws_sample *s,
			struct hws_strbuf *tmp)
{
	bool first = true;
	const char *t, *dso;

	lb_add(l, "{", 1);
	for (int c = 0; c < C__NR; c++) {
		if (!col_valid(s, c))
			continue;
		if (!first)
			lb_add(l, ",", 1);
		first = false;
		lb_add(l, "\"", 1);
		lb_str(l, cols[c].name);
		lb_add(l, "\":", 2);
		put_col(l, s, c, HWS_OUT_JSON);
	}
	if (o->symbols && o->syms) {
		if ((s->fields & HWS_SF_IP) && (t = sym_text(o, s, s->ip, false, tmp, &dso))) {
			lb_str(l, first ? "\"sym\":" : ",\"sym\":");
			lb_json_str(l, t);
			first = false;
			if (dso) {
				lb_str(l, ",\"dso\":");
				lb_json_str(l, dso);
			}
		}
		if ((s->fields & HWS_SF_ADDR) && (t = sym_text(o, s, s->addr, true, tmp, &dso))) {
			lb_str(l, first ? "\"data_sym\":" : ",\"data_sym\":");
			lb_json_str(l, t);
			first = false;
			if (dso) {
				lb_str(l, ",\"data_dso\":");
				lb_json_str(l, dso);
			}
		}
	}
	if (o->raw)
		put_raw(l, o, s, tmp);
	lb_add(l, "}\n", 2);
}

static void sample_csv(struct lb *l, const struct hws_output_opts *o, const struct hws_sample *s,
		       struct hws_strbuf *tmp)
{
	const char *t, *dso;

	for (int c = 0; c < C__NR; c++) {
		if (c)
			lb_add(l, ",", 1);
		if (col_valid(s, c))
			put_col(l, s, c, HWS_OUT_CSV);
	}
	if (o->symbols && o->syms) {
		for (int k = 0; k < 2; k++) {
			bool ok = k ? (s->fields & HWS_SF_ADDR) : (s->fields & HWS_SF_IP);
			lb_add(l, ",", 1);
			t = ok ? sym_text(o, s, k ? s->addr : s->ip, k, tmp, &dso) : NULL;
			if (t)
				lb_csv_str(l, t);
			lb_add(l, ",", 1);
			if (t && dso)
				lb_csv_str(l, dso);
		}
	}
	if (o->raw) {
		lb_add(l, ",", 1);
		put_raw(l, o, s, tmp);
	}
	lb_add(l, "\n", 1);
}

static void sample_text(struct lb *l, const struct hws_output_opts *o, const struct hws_sample *s,
			struct hws_strbuf *tmp)
{
	const char *t, *dso;
	char b[64];

	if (s->fields & HWS_SF_TIME) {
		snprintf(b, sizeof(b), "%" PRIu64 ".%09" PRIu64 " ", s->time / 1000000000U,
			 s->time % 1000000000U);
		lb_str(l, b);
	}
	if (s->fields & HWS_SF_CPU) {
		snprintf(b, sizeof(b), "[%03u] ", s->cpu);
		lb_str(l, b);
	}
	if (s->fields & HWS_SF_PID) {
		snprintf(b, sizeof(b), "%u/%u ", s->pid, s->tid);
		lb_str(l, b);
	}
	lb_str(l, s->event ? s->event : "?");
	lb_add(l, ":", 1);
	if (s->fields & HWS_SF_PERIOD) {
		lb_add(l, " ", 1);
		lb_u64(l, s->period);
	}
	if (s->fields & HWS_SF_IP) {
		lb_str(l, " ip ");
		lb_hex(l, s->ip);
		if (s->ip_precise)
			lb_str(l, " [P]");
		if (o->symbols && o->syms && (t = sym_text(o, s, s->ip, false, tmp, &dso))) {
			lb_add(l, " ", 1);
			lb_str(l, t);
		}
	}
	if (s->fields & HWS_SF_ADDR) {
		lb_str(l, " addr ");
		lb_hex(l, s->addr);
		if (o->symbols && o->syms && (t = sym_text(o, s, s->addr, true, tmp, &dso))) {
			lb_add(l, " ", 1);
			lb_str(l, t);
		}
	}
	if (s->fields & HWS_SF_PHYS_ADDR) {
		lb_str(l, " phys ");
		lb_hex(l, s->phys_addr);
	}
	if (s->fields & HWS_SF_OP) {
		lb_str(l, " op ");
		lb_str(l, hws_op__name(s->op));
	}
	if (s->fields & HWS_SF_DATA_SRC) {
		lb_str(l, " lvl ");
		lb_str(l, hws_mem_level__name(s->mem_level));
		lb_str(l, " snoop ");
		lb_str(l, hws_snoop__name(s->snoop));
		lb_str(l, " tlb ");
		lb_str(l, hws_tlb__name(s->tlb));
	}
	static const struct {
		uint64_t f;
		const char *n;
		size_t off;
	} lats[] = {
		{ HWS_SF_LAT_TOTAL, " lat ", offsetof(struct hws_sample, lat_total) },
		{ HWS_SF_LAT_ISSUE, " issue ", offsetof(struct hws_sample, lat_issue) },
		{ HWS_SF_LAT_XLAT, " xlat ", offsetof(struct hws_sample, lat_xlat) },
		{ HWS_SF_LAT_MISS, " miss ", offsetof(struct hws_sample, lat_miss) },
		{ HWS_SF_LAT_INS, " ins ", offsetof(struct hws_sample, lat_ins) },
	};
	for (size_t i = 0; i < ARRAY_SIZE(lats); i++) {
		uint32_t v;
		if (!(s->fields & lats[i].f))
			continue;
		memcpy(&v, (const char *)s + lats[i].off, sizeof(v));
		lb_str(l, lats[i].n);
		lb_u64(l, v);
	}
	if (s->fields & HWS_SF_BRANCH) {
		lb_str(l, " target ");
		lb_hex(l, s->branch_target);
	}
	if (o->raw)
		put_raw(l, o, s, tmp);
	lb_add(l, "\n", 1);
}

int hws_output__sample(const struct hws_output_opts *o, const struct hws_sample *s,
		       struct hws_strbuf *sb)
{
	struct hws_strbuf tmp;
	struct lb l;

	l.sb = sb;
	l.n = 0;
	l.err = 0;
	hws_strbuf__init(&tmp, 1u << 20);
	switch (o->format) {
	case HWS_OUT_JSON:
		sample_json(&l, o, s, &tmp);
		break;
	case HWS_OUT_CSV:
		sample_csv(&l, o, s, &tmp);
		break;
	default:
		sample_text(&l, o, s, &tmp);
		break;
	}
	lb_flush(&l);
	hws_strbuf__release(&tmp);
	return l.err;
}
