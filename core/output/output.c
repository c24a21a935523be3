// SPDX-License-Identifier: MIT
/*
 * Sample formatters (see include/hwsample/output.h): the public entry points and the
 * general writers, column by column.
 *
 * Invariants: a field is written only when its HWS_SF_* bit is set; every line ends in
 * '\n'; the column set and order of CSV is fixed by cols[] (header and rows share it);
 * numbers are formatted by hand (<hwsample/fmt.h>, no printf per field) because dump runs
 * over millions of samples. JSON and CSV rows first try the fast paths of fast.c (one
 * reservation, unchecked writers, the memo's texts) and fall back to the general per-column
 * path here for anything they do not cover (strings that need escaping, names too long for
 * their tables); both write the same bytes (tests/unit/test_output_fast.c checks this
 * against snprintf). A line is all or nothing: on error the strbuf goes back to its length
 * before the line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/symbols.h>

#include "output/output_int.h"

static const char zeros[4096];

static void lb_commit(struct lb *l)
{
	if (l->p) {
		l->sb->len = (size_t)(l->p - l->sb->buf);
		l->sb->buf[l->sb->len] = 0;
	}
}

bool hws__out_lb_grow(struct lb *l, size_t n)
{
	size_t want = n < 256 ? 256 : n, done = 0;

	if (l->err)
		return false;
	lb_commit(l);
	while (done < want) {
		size_t k = want - done < sizeof(zeros) ? want - done : sizeof(zeros);
		int err = hws_strbuf__add(l->sb, zeros, k);
		if (err) {
			l->sb->len -= done;
			l->err = err;
			return false;
		}
		done += k;
	}
	l->sb->len -= done;
	l->sb->buf[l->sb->len] = 0;
	l->p = l->sb->buf + l->sb->len;
	l->end = l->sb->buf + l->sb->alloc - 1;
	return true;
}

static int lb_finish(struct lb *l)
{
	if (l->err) {
		l->sb->len = l->start;
		if (l->sb->buf)
			l->sb->buf[l->start] = 0;
		return l->err;
	}
	lb_commit(l);
	return 0;
}

static void lb_u64(struct lb *l, uint64_t v)
{
	if (!lb_reserve(l, HWS_FMT_U64_MAX))
		return;
	l->p = hws_fmt__u64(l->p, v);
}

static void lb_pid(struct lb *l, uint32_t v)
{
	if (!lb_reserve(l, HWS_FMT_U64_MAX))
		return;
	l->p = hws_fmt__pid(l->p, v);
}

static void lb_hex(struct lb *l, uint64_t v)
{
	if (!lb_reserve(l, HWS_FMT_HEX_MAX))
		return;
	l->p = hws_fmt__hex(l->p, v);
}

static void lb_json_str(struct lb *l, const char *s)
{
	size_t n;

	if (!json_plain(s, &n)) {
		if (l->err)
			return;
		lb_commit(l);
		l->err = hws_strbuf__add_json_str(l->sb, s);
		l->p = NULL; /* the buffer may have moved */
		if (!l->err)
			lb_reserve(l, 1);
		return;
	}
	if (!lb_reserve(l, n + 2))
		return;
	*l->p++ = '"';
	copy_small(l->p, s, n);
	l->p += n;
	*l->p++ = '"';
}

/* @s in a text line: as it is when it holds no control character, else through the escaper */
void hws__out_text_str(struct lb *l, const char *s)
{
	if (hws_strbuf__text_plain(s)) {
		lb_str(l, s);
		return;
	}
	if (l->err)
		return;
	lb_commit(l);
	l->err = hws_strbuf__add_text_str(l->sb, s);
	l->p = NULL; /* the buffer may have moved */
	if (!l->err)
		lb_reserve(l, 1);
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

/* value of column @c; @json selects JSON quoting of strings */
static void put_col(struct lb *l, const struct hws_sample *s, int c, int fmt)
{
	const char *str = NULL;

	switch (c) {
	case C_TIME:
		lb_u64(l, s->time);
		return;
	case C_CPU:
		lb_u64(l, s->cpu);
		return;
	case C_PID:
		lb_pid(l, s->pid);
		return;
	case C_TID:
		lb_pid(l, s->tid);
		return;
	case C_PERIOD:
		lb_u64(l, s->period);
		return;
	case C_LAT_TOTAL:
		lb_u64(l, s->lat_total);
		return;
	case C_LAT_ISSUE:
		lb_u64(l, s->lat_issue);
		return;
	case C_LAT_XLAT:
		lb_u64(l, s->lat_xlat);
		return;
	case C_LAT_MISS:
		lb_u64(l, s->lat_miss);
		return;
	case C_LAT_INS:
		lb_u64(l, s->lat_ins);
		return;
	case C_DATA_SRC:
		lb_u64(l, s->data_src);
		return;
	case C_PRECISE:
		if (fmt == HWS_OUT_JSON)
			lb_str(l, s->ip_precise ? "true" : "false");
		else
			lb_u64(l, s->ip_precise);
		return;
	case C_IP:
	case C_ADDR:
	case C_PHYS:
	case C_BRANCH: {
		uint64_t v = c == C_IP	   ? s->ip
			     : c == C_ADDR ? s->addr
			     : c == C_PHYS ? s->phys_addr
					   : s->branch_target;
		if (fmt == HWS_OUT_JSON)
			lb_add(l, "\"", 1);
		lb_hex(l, v);
		if (fmt == HWS_OUT_JSON)
			lb_add(l, "\"", 1);
		return;
	}
	case C_EVENT:
		str = s->event;
		break;
	case C_BACKEND:
		str = s->backend;
		break;
	case C_OP:
		str = hws_op__name(s->op);
		break;
	case C_LEVEL:
		str = hws_mem_level__name(s->mem_level);
		break;
	case C_SNOOP:
		str = hws_snoop__name(s->snoop);
		break;
	case C_TLB:
		str = hws_tlb__name(s->tlb);
		break;
	default:
		return;
	}
	if (fmt == HWS_OUT_JSON)
		lb_json_str(l, str);
	else
		lb_csv_str(l, str);
}

int hws_output__header(const struct hws_output *out, struct hws_strbuf *sb)
{
	struct lb l;

	lb_init(&l, sb);
	if (out->o.format != HWS_OUT_CSV)
		return 0;
	for (int c = 0; c < C__NR; c++) {
		if (c)
			lb_add(&l, ",", 1);
		lb_str(&l, cols[c].name);
	}
	if (out->syms)
		lb_str(&l, ",sym,dso,data_sym,data_dso");
	if (out->o.raw)
		lb_str(&l, ",raw");
	lb_add(&l, "\n", 1);
	return lb_finish(&l);
}

void hws__out_raw(struct lb *l, struct hws_output *out, const struct hws_sample *s)
{
	const struct hws_output_opts *o = &out->o;
	struct hws_strbuf *tmp = &out->scratch;

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
		hws__out_text_str(l, tmp->buf);
	}
}

/* "sym":"name+0xoff","dso":"path" (or data_sym/data_dso); returns the new @first */
static bool put_sym_json(struct lb *l, struct hws_output *out, const struct hws_sample *s,
			 uint64_t a, bool data, bool first)
{
	struct hws_strbuf *tmp = &out->scratch;
	struct hws_symbol sym;
	size_t nl;

	hws_symbols__resolve(out->o.syms, s->pid, a, data, &sym);
	if (!sym.name && !sym.dso)
		return first;
	if (data)
		lb_add(l, &",\"data_sym\":"[first], sizeof(",\"data_sym\":") - 1 - first);
	else
		lb_add(l, &",\"sym\":"[first], sizeof(",\"sym\":") - 1 - first);
	if (sym.name && !sym.srcfile && json_plain(sym.name, &nl) && nl < 4096) {
		/* common case without printf: "name" or "name+0xoff" */
		if (lb_reserve(l, nl + 32)) {
			*l->p++ = '"';
			copy_small(l->p, sym.name, nl);
			l->p += nl;
			if (sym.offset) {
				*l->p++ = '+';
				l->p = hws_fmt__hex(l->p, sym.offset);
			}
			*l->p++ = '"';
		}
	} else {
		hws_strbuf__reset(tmp);
		if (!hws_symbol__format(&sym, false, tmp) && tmp->buf)
			lb_json_str(l, tmp->buf);
	}
	if (sym.dso) {
		if (data)
			lb_lit(l, ",\"data_dso\":");
		else
			lb_lit(l, ",\"dso\":");
		lb_json_str(l, sym.dso);
	}
	return false;
}

/* ,"ip":"0x.." of one frame (the first with no comma) */
static void put_frame_ip_json(struct lb *l, uint64_t ip, bool first)
{
	if (!lb_reserve(l, HWS_FMT_HEX_MAX + 16))
		return;
	memcpy(l->p, &",{\"ip\":\""[first], sizeof(",{\"ip\":\"") - 1 - first);
	l->p += sizeof(",{\"ip\":\"") - 1 - first;
	l->p = hws_fmt__hex(l->p, ip);
	*l->p++ = '"';
}

/* the inline stack of frame @fr as frames (perf script's): 0 when it has none, else the
 * frames written */
static int put_inlines_json(struct lb *l, struct hws_output *out, const struct hws_sample *s,
			    const struct hws_frame *fr, bool first)
{
	struct hws_strbuf *tmp = &out->scratch;
	const struct hws_inline_frame *in;
	struct hws_symbol sym;
	int n;

	if (!hws_inline__wanted(out->o.inline_mode, fr->flags, fr->ctx) ||
	    hws_symbols__resolve(out->o.syms, s->pid, fr->ip, false, &sym) <= 0)
		return 0;
	n = hws_symbols__inlines(out->o.syms, s->pid, fr->ip, &in);
	for (int k = 0; k < n; k++) {
		put_frame_ip_json(l, fr->ip, first && !k);
		hws_strbuf__reset(tmp);
		if (hws_strbuf__addf(tmp, "%s+0x%" PRIx64, in[k].inlined ? in[k].name : sym.name,
				     sym.offset))
			continue;
		lb_lit(l, ",\"sym\":");
		lb_json_str(l, tmp->buf);
		if (sym.dso) {
			lb_lit(l, ",\"dso\":");
			lb_json_str(l, sym.dso);
		}
		if (in[k].inlined)
			lb_lit(l, ",\"inlined\":true");
		if (in[k].srcfile) {
			hws_strbuf__reset(tmp);
			if (!hws_strbuf__addf(tmp, "%s:%u", in[k].srcfile, in[k].line)) {
				lb_lit(l, ",\"srcline\":");
				lb_json_str(l, tmp->buf);
			}
		}
		lb_add(l, "}", 1);
	}
	return n > 0 ? n : 0;
}

/* ,"callchain":[{"ip":"0x.."[,"sym":"..","dso":".."[,"inlined":true,"srcline":".."]]},...]
 * innermost first */
static void put_callchain_json(struct lb *l, struct hws_output *out, const struct hws_sample *s,
			       bool first)
{
	bool none = true;

	lb_add(l, &",\"callchain\":["[first], sizeof(",\"callchain\":[") - 1 - first);
	for (uint32_t i = 0; i < s->nr_callchain; i++) {
		if (out->syms && put_inlines_json(l, out, s, &s->callchain[i], none)) {
			none = false;
			continue;
		}
		put_frame_ip_json(l, s->callchain[i].ip, none);
		none = false;
		if (out->syms)
			put_sym_json(l, out, s, s->callchain[i].ip, false, false);
		lb_add(l, "}", 1);
	}
	lb_add(l, "]", 1);
}

/* the caller's keys (hws_output_opts.extra_json) */
static void put_extra_json(struct lb *l, struct hws_output *out, const struct hws_sample *s)
{
	struct hws_strbuf *tmp = &out->scratch;

	hws_strbuf__reset(tmp);
	if (out->o.extra_json(out->o.extra_ctx, s, tmp) || !tmp->buf || !tmp->len)
		return;
	lb_str(l, tmp->buf);
}

static void sample_json(struct lb *l, struct hws_output *out, const struct hws_sample *s)
{
	bool first = true, cc = s->fields & HWS_SF_CALLCHAIN;
	bool more = out->syms || out->o.raw || cc || out->o.extra_json;

	if (hws__out_json_fast(l, out, s, !more, &first)) {
		if (l->err || !l->p || !more)
			return;
	} else {
		lb_add(l, "{", 1);
		for (int c = 0; c < C__NR; c++) {
			if (!col_valid(s, c))
				continue;
			lb_add(l, cols[c].key + first, cols[c].key_len - first);
			first = false;
			put_col(l, s, c, HWS_OUT_JSON);
		}
	}
	if (out->syms) {
		if (s->fields & HWS_SF_IP)
			first = put_sym_json(l, out, s, s->ip, false, first);
		if (s->fields & HWS_SF_ADDR)
			first = put_sym_json(l, out, s, s->addr, true, first);
	}
	if (cc)
		put_callchain_json(l, out, s, first);
	if (out->o.extra_json)
		put_extra_json(l, out, s);
	if (out->o.raw)
		hws__out_raw(l, out, s);
	lb_add(l, "}\n", 2);
}

static void sample_csv(struct lb *l, struct hws_output *out, const struct hws_sample *s)
{
	struct hws_strbuf *tmp = &out->scratch;
	const char *t, *dso;

	if (!hws__out_csv_fast(l, out, s)) {
		for (int c = 0; c < C__NR; c++) {
			if (c)
				lb_add(l, ",", 1);
			if (col_valid(s, c))
				put_col(l, s, c, HWS_OUT_CSV);
		}
	}
	if (out->syms) {
		for (int k = 0; k < 2; k++) {
			bool ok = k ? (s->fields & HWS_SF_ADDR) : (s->fields & HWS_SF_IP);
			struct hws_symbol sym;

			lb_add(l, ",", 1);
			t = NULL;
			dso = NULL;
			if (ok) {
				hws_symbols__resolve(out->o.syms, s->pid, k ? s->addr : s->ip, k,
						     &sym);
				/* "name" or "name+0xoff" as one plain cell: no printf */
				if (sym.name && !sym.srcfile && !csv_kind_of(sym.name)) {
					lb_str(l, sym.name);
					if (sym.offset && lb_reserve(l, HWS_FMT_HEX_MAX + 1)) {
						*l->p++ = '+';
						l->p = hws_fmt__hex(l->p, sym.offset);
					}
					t = sym.name;
					dso = sym.dso;
				} else if (sym.name || sym.dso) {
					hws_strbuf__reset(tmp);
					if (!hws_symbol__format(&sym, false, tmp) && tmp->buf) {
						t = tmp->buf;
						dso = sym.dso;
						lb_csv_str(l, t);
					}
				}
			}
			lb_add(l, ",", 1);
			if (t && dso)
				lb_csv_str(l, dso);
		}
	}
	if (out->o.raw) {
		lb_add(l, ",", 1);
		hws__out_raw(l, out, s);
	}
	lb_add(l, "\n", 1);
}

struct hws_output *hws_output__new(const struct hws_output_opts *opts)
{
	struct hws_output *out = calloc(1, sizeof(*out));
	int err;

	if (!out)
		return NULL;
	err = HWS_OPTS_GET(out->o, opts, hws_output_opts);
	if (!err && (out->o.format < HWS_OUT_TEXT || out->o.format > HWS_OUT_SCRIPT)) {
		pr_warn("output: format %d is not one of enum hws_output_format\n", out->o.format);
		err = -EINVAL;
	}
	if (err) {
		free(out);
		return errno = -err, NULL;
	}
	out->memo = hws__out_memo_new();
	if (!out->memo) {
		free(out);
		return NULL;
	}
	hws__out_names_init();
	out->syms = out->o.symbols && out->o.syms;
	out->planned = out->o.format == HWS_OUT_JSON && !out->syms && !out->o.raw;
	hws_strbuf__init(&out->scratch, 1u << 20);
	return out;
}

void hws_output__delete(struct hws_output *out)
{
	if (!out)
		return;
	hws_strbuf__release(&out->scratch);
	free(out->memo);
	free(out);
}

/* every format and case: line builder, fast paths with fallbacks */
static __attribute__((noinline)) int sample_any(struct hws_output *out, const struct hws_sample *s,
						struct hws_strbuf *sb)
{
	struct lb l;

	lb_init(&l, sb);
	/* no reset of the scratch buffer here: each user resets it before use */
	switch (out->o.format) {
	case HWS_OUT_JSON:
		sample_json(&l, out, s);
		break;
	case HWS_OUT_CSV:
		sample_csv(&l, out, s);
		break;
	case HWS_OUT_SCRIPT:
		hws__out_script(&l, out, s);
		break;
	default:
		hws__out_text(&l, out, s);
		break;
	}
	return lb_finish(&l);
}

int hws_output__sample(struct hws_output *out, const struct hws_sample *s, struct hws_strbuf *sb)
{
	if (__builtin_expect(out->o.filter != NULL, 0) &&
	    !hws_filter__match(out->o.filter, out->o.syms, s))
		return HWS_OUTPUT_FILTERED;
	/* the common dump --json line: whole from its plan when there is room */
	if (out->planned && !(s->fields & HWS_SF_CALLCHAIN) && hws__out_json_line(out, s, sb))
		return 0;
	return sample_any(out, s, sb);
}
