// SPDX-License-Identifier: MIT
/*
 * The text line of `hwsample dump`, in perf script's manner: "comm secs.nsecs [cpu] pid/tid
 * event: period ip 0x.. [P] sym addr 0x.. sym phys .. op .. lvl .. snoop .. tlb .. lat ..
 * issue .. xlat .. miss .. ins .. target .. raw {..}". The comm (the process's, as perf
 * script's first column: right-aligned in 16 columns, ":PID" when unknown) is there with
 * symbols only (it comes from the side-band records), so without them the line starts with
 * the time.
 *
 * Invariants: a field is written only when its HWS_SF_* bit is set, always in that order
 * (tests/unit/test_output_fast.c holds the line to an snprintf reference); numbers by
 * <hwsample/fmt.h>, each run of fields after one reservation big enough for all of it; enum
 * names from the CSV name tables when they have them, else from their functions (same text).
 */
#include <string.h>

#include <hwsample/symbols.h>

#include "output/output_int.h"
#include "symbols/symbols_core.h"

/* " sym" of the text format: hws_symbol__format() without printf in the common case */
static void put_sym_text(struct lb *l, struct hws_output *out, const struct hws_sample *s,
			 uint64_t a, bool data)
{
	struct hws_strbuf *tmp = &out->scratch;
	struct hws_symbol sym;
	size_t nl;

	hws_symbols__resolve(out->o.syms, s->pid, a, data, &sym);
	if (!sym.name && !sym.dso)
		return;
	if (sym.name && !sym.srcfile && hws_strbuf__text_plain(sym.name)) {
		/* "name" or "name+0xoff" */
		nl = strlen(sym.name);
		if (!lb_reserve(l, nl + 32))
			return;
		*l->p++ = ' ';
		memcpy(l->p, sym.name, nl);
		l->p += nl;
		if (sym.offset) {
			*l->p++ = '+';
			l->p = hws_fmt__hex(l->p, sym.offset);
		}
		return;
	}
	hws_strbuf__reset(tmp);
	if (hws_symbol__format(&sym, false, tmp) || !tmp->buf)
		return;
	lb_add(l, " ", 1);
	hws__out_text_str(l, tmp->buf); /* names from the file: no control characters */
}

/* an enum name for text: from the CSV table when it has it (no strlen), else the function */
static inline char *text_name(char *p, const struct csv_name *t, size_t n, unsigned int v,
			      const char *(*name)(unsigned int))
{
	const char *src;
	size_t len;

	if (v < n && t[v].n) {
		src = t[v].s + 1;
		len = t[v].n - 1u;
	} else {
		src = name(v);
		len = strlen(src);
	}
	memcpy(p, src, len);
	return p + len;
}

/* room for one enum name of text_name() */
static inline size_t text_name_room(const struct csv_name *t, size_t n, unsigned int v,
				    const char *(*name)(unsigned int))
{
	return v < n && t[v].n ? sizeof(t[v].s) : strlen(name(v));
}

/* room for the enum names of @s in text */
static size_t text_names_room(const struct hws_sample *s)
{
	const struct csv_names *cn = &hws__out_csv_names;
	size_t n = 0;

	if (s->fields & HWS_SF_OP)
		n += text_name_room(cn->op, ARRAY_SIZE(cn->op), s->op, hws_op__name);
	if (s->fields & HWS_SF_DATA_SRC) {
		n +=
		    text_name_room(cn->lvl, ARRAY_SIZE(cn->lvl), s->mem_level, hws_mem_level__name);
		n += text_name_room(cn->snoop, ARRAY_SIZE(cn->snoop), s->snoop, hws_snoop__name);
		n += text_name_room(cn->tlb, ARRAY_SIZE(cn->tlb), s->tlb, hws_tlb__name);
	}
	return n;
}

/*
 * The frames of a call chain after the sample line, as perf script prints them: a tab, the
 * address right-aligned in 16 columns (as the file sees it when it is in one, as perf's
 * map_ip), then with symbols " name+0xoff (dso)" ("[unknown]" for what is not known), one
 * frame a line, and an empty line after the last.
 */
static void put_frame_text(struct lb *l, uint64_t a, const char *name, uint64_t off,
			   const char *dso)
{
	char hex[HWS_FMT_HEX_MAX];
	size_t n = (size_t)(hws_fmt__hex(hex, a) - hex) - 2; /* without its "0x" */

	if (!lb_reserve(l, 32))
		return;
	*l->p++ = '\t';
	for (size_t k = n; k < 16; k++)
		*l->p++ = ' ';
	memcpy(l->p, hex + 2, n);
	l->p += n;
	if (dso) {
		lb_add(l, " ", 1);
		if (name) {
			hws__out_text_str(l, name);
			if (lb_reserve(l, HWS_FMT_HEX_MAX + 1)) {
				*l->p++ = '+';
				l->p = hws_fmt__hex(l->p, off);
			}
		} else {
			lb_lit(l, "[unknown]");
		}
		lb_lit(l, " (");
		hws__out_text_str(l, dso);
		lb_add(l, ")", 1);
	}
	lb_add(l, "\n", 1);
}

static void put_callchain_text(struct lb *l, struct hws_output *out, const struct hws_sample *s)
{
	for (uint32_t i = 0; i < s->nr_callchain; i++) {
		const struct hws_frame *fr = &s->callchain[i];
		uint64_t ip = fr->ip, a = ip;
		struct hws_symbol sym = {0};
		const char *dso = NULL;

		if (out->syms) {
			hws_symbols__resolve(out->o.syms, s->pid, ip, false, &sym);
			if (sym.dso && strcmp(sym.dso, "[kernel]"))
				a = sym.dso_addr;
			/* perf's name of the kernel map */
			if (sym.dso && !strcmp(sym.dso, "[kernel]"))
				dso = "[kernel.kallsyms]";
			else
				dso = sym.dso ? sym.dso : "[unknown]";
		}
		if (out->syms && sym.name &&
		    hws_inline__wanted(out->o.inline_mode, fr->flags, fr->ctx)) {
			const struct hws_inline_frame *in;
			int n = hws_symbols__inlines(out->o.syms, s->pid, ip, &in);

			/* perf script: each entry a line, the inlined ones "(inlined)" */
			for (int k = 0; k < n; k++)
				put_frame_text(l, a, in[k].inlined ? in[k].name : sym.name,
					       sym.offset, in[k].inlined ? "inlined" : dso);
			if (n > 0)
				continue;
		}
		put_frame_text(l, a, sym.name, sym.offset, dso);
	}
	lb_add(l, "\n", 1);
}

/* "%16s " of the process's comm, perf script's first column; control characters escaped */
static void put_comm_text(struct lb *l, struct hws_output *out, const struct hws_sample *s)
{
	char tmp[HWS_COMM_TID_LEN];
	const char *c = hws_symbols__comm_or_tid(out->o.syms, s, tmp);
	size_t n = strlen(c);

	if (!lb_reserve(l, 20))
		return;
	for (; n < 16; n++)
		*l->p++ = ' ';
	hws__out_text_str(l, c);
	lb_add(l, " ", 1);
}

void hws__out_text(struct lb *l, struct hws_output *out, const struct hws_sample *s)
{
	const struct csv_names *cn = &hws__out_csv_names;
	const char *ev = s->event ? s->event : "?";
	bool syms = out->syms;
	uint64_t f = s->fields;
	const struct str_ent *e;
	size_t evl;
	char *p;
/* a literal at p, p moved past it (the length is the literal's own) */
#define LIT(str) (memcpy(p, str, sizeof(str) - 1), p += sizeof(str) - 1)

	e = str_info(&out->strs, ev); /* its length, memoized by address */
	evl = e->len;
	if (syms && (f & HWS_SF_PID))
		put_comm_text(l, out, s);
	/* "%lu.%09lu ", "[%03u] ", "%u/%u ", "event:", " period", " ip 0x.. [P]" by hand */
	if (!lb_reserve(l, 256 + evl))
		return;
	p = l->p;
	if (f & HWS_SF_TIME) {
		p = hws_fmt__u64(p, s->time / 1000000000U);
		*p++ = '.';
		p = hws_fmt__dec9(p, (uint32_t)(s->time % 1000000000U));
		*p++ = ' ';
	}
	if (f & HWS_SF_CPU) {
		*p++ = '[';
		p = s->cpu < 1000 ? hws_fmt__dec3(p, s->cpu) : hws_fmt__u32(p, s->cpu);
		LIT("] ");
	}
	if (f & HWS_SF_PID) {
		p = hws_fmt__pid(p, s->pid);
		*p++ = '/';
		p = hws_fmt__pid(p, s->tid);
		*p++ = ' ';
	}
	if (__builtin_expect(!e->tplain, 0)) {
		/* control characters in the event name: escaped (room: 256 left after it) */
		l->p = p;
		hws__out_text_str(l, ev);
		if (!lb_reserve(l, 256))
			return;
		p = l->p;
	} else {
		memcpy(p, ev, evl);
		p += evl;
	}
	*p++ = ':';
	if (f & HWS_SF_PERIOD) {
		*p++ = ' ';
		p = hws_fmt__u64(p, s->period);
	}
	if (f & HWS_SF_IP) {
		LIT(" ip ");
		p = hws_fmt__hex(p, s->ip);
		if (s->ip_precise) {
			LIT(" [P]");
		}
	}
	l->p = p;
	if ((f & HWS_SF_IP) && syms)
		put_sym_text(l, out, s, s->ip, false);
	if (f & HWS_SF_ADDR) {
		if (!lb_reserve(l, 64))
			return;
		memcpy(l->p, " addr ", 6);
		l->p = hws_fmt__hex(l->p + 6, s->addr);
		if (syms)
			put_sym_text(l, out, s, s->addr, true);
	}
	if (!lb_reserve(l, 512 + text_names_room(s)))
		return;
	p = l->p;
	if (f & HWS_SF_PHYS_ADDR) {
		LIT(" phys ");
		p = hws_fmt__hex(p, s->phys_addr);
	}
	if (f & HWS_SF_OP) {
		LIT(" op ");
		p = text_name(p, cn->op, ARRAY_SIZE(cn->op), s->op, hws_op__name);
	}
	if (f & HWS_SF_DATA_SRC) {
		LIT(" lvl ");
		p = text_name(p, cn->lvl, ARRAY_SIZE(cn->lvl), s->mem_level, hws_mem_level__name);
		LIT(" snoop ");
		p = text_name(p, cn->snoop, ARRAY_SIZE(cn->snoop), s->snoop, hws_snoop__name);
		LIT(" tlb ");
		p = text_name(p, cn->tlb, ARRAY_SIZE(cn->tlb), s->tlb, hws_tlb__name);
	}
	if (f & HWS_SF_LAT_TOTAL) {
		LIT(" lat ");
		p = hws_fmt__u32(p, s->lat_total);
	}
	if (f & HWS_SF_LAT_ISSUE) {
		LIT(" issue ");
		p = hws_fmt__u32(p, s->lat_issue);
	}
	if (f & HWS_SF_LAT_XLAT) {
		LIT(" xlat ");
		p = hws_fmt__u32(p, s->lat_xlat);
	}
	if (f & HWS_SF_LAT_MISS) {
		LIT(" miss ");
		p = hws_fmt__u32(p, s->lat_miss);
	}
	if (f & HWS_SF_LAT_INS) {
		LIT(" ins ");
		p = hws_fmt__u32(p, s->lat_ins);
	}
	if (f & HWS_SF_BRANCH) {
		LIT(" target ");
		p = hws_fmt__hex(p, s->branch_target);
	}
#undef LIT
	l->p = p;
	if (out->o.raw)
		hws__out_raw(l, out, s);
	lb_add(l, "\n", 1);
	if (f & HWS_SF_CALLCHAIN)
		put_callchain_text(l, out, s);
}
