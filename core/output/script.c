// SPDX-License-Identifier: MIT
/*
 * The `hwsample dump -F FIELD,...` line (HWS_OUT_SCRIPT): perf script -F's fields in perf
 * script's layout, byte for byte where hwsample has the field: "%16s " comm, "%5d/%-5d "
 * pid/tid ("%5d " for one of them), "[%03d] " cpu, "%5lu.%06lu: " time (nanoseconds with
 * ns), "%10lu " period, "name: " event, then addr ("%16lx", with sym/symoff/dso for page
 * fault events, as perf's sample_addr_correlates_sym()), " %16lx" ip with " sym[+0xoff]"
 * and " (dso)", "%16lx" phys_addr.
 *
 * Invariants: fields print in perf's order whatever the order of the list; a field the
 * sample does not have prints nothing; symbols come from the caller's struct hws_symbols
 * (comm: the process's, "[unknown]" names as perf's).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hwsample/symbols.h>

#include "output/output_int.h"
#include "symbols/symbols_core.h"

static const char *const field_names[] = {
    [HWS_OUTF_COMM] = "comm",
    [HWS_OUTF_TID] = "tid",
    [HWS_OUTF_PID] = "pid",
    [HWS_OUTF_TIME] = "time",
    [HWS_OUTF_CPU] = "cpu",
    [HWS_OUTF_EVENT] = "event",
    [HWS_OUTF_IP] = "ip",
    [HWS_OUTF_SYM] = "sym",
    [HWS_OUTF_DSO] = "dso",
    [HWS_OUTF_ADDR] = "addr",
    [HWS_OUTF_SYMOFF] = "symoff",
    [HWS_OUTF_PERIOD] = "period",
    [HWS_OUTF_PHYS_ADDR] = "phys_addr",
};

/* perf script -F's other fields (perf 6.1), known but not printed by hwsample */
static const char *const perf_only[] = {
    "trace",	      "srcline",    "iregs",	   "uregs",	  "brstack",
    "brstacksym",     "flags",	    "bpf-output",  "brstackinsn", "brstackinsnlen",
    "brstackoff",     "callindent", "insn",	   "insnlen",	  "synth",
    "metric",	      "misc",	    "srccode",	   "ipc",	  "data_page_size",
    "code_page_size", "ins_lat",    "machine_pid", "vcpu",	  "cgroup",
    "retire_lat",     "tod",	    "weight",	   "data_src",	  "dsoff",
};

int hws_output__script_fields(const char *list, uint64_t *fields, char *bad, size_t badlen)
{
	const char *p = list;

	*fields = 0;
	if (bad && badlen)
		bad[0] = 0;
	if (!list || !*list)
		return -EINVAL;
	while (*p) {
		size_t n = strcspn(p, ",");
		unsigned int i;
		int err = -EINVAL;

		for (i = 0; i < ARRAY_SIZE(field_names); i++)
			if (field_names[i] && strlen(field_names[i]) == n &&
			    !strncmp(p, field_names[i], n))
				break;
		if (i < ARRAY_SIZE(field_names)) {
			*fields |= 1ULL << i;
		} else {
			for (i = 0; i < ARRAY_SIZE(perf_only); i++)
				if (strlen(perf_only[i]) == n && !strncmp(p, perf_only[i], n))
					err = -EOPNOTSUPP;
			if (bad && badlen)
				snprintf(bad, badlen, "%.*s", (int)n, p);
			return err;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

const char *hws_output__script_field_names(void)
{
	return "comm,tid,pid,time,cpu,event,ip,sym,dso,addr,symoff,period,phys_addr";
}

#define F(x) (out->o.fields & (1ULL << HWS_OUTF_##x))

/* " sym[+0xoff]" and " (dso)" of @a as perf script prints them */
static void put_sym(struct lb *l, struct hws_output *out, const struct hws_sample *s, uint64_t a,
		    bool data)
{
	struct hws_strbuf *tmp = &out->scratch;
	struct hws_symbol sym = {0};

	if (out->o.syms)
		hws_symbols__resolve(out->o.syms, s->pid, a, data, &sym);
	hws_strbuf__reset(tmp);
	if (F(SYM)) {
		if (!sym.name)
			hws_strbuf__addstr(tmp, " [unknown]");
		else if (F(SYMOFF))
			hws_strbuf__addf(tmp, " %s+0x%" PRIx64, sym.name, sym.offset);
		else
			hws_strbuf__addf(tmp, " %s", sym.name);
	}
	if (F(DSO)) {
		const char *d = sym.dso ? sym.dso : "[unknown]";

		if (!strcmp(d, "[kernel]"))
			d = "[kernel.kallsyms]";
		hws_strbuf__addf(tmp, " (%s)", d);
	}
	if (tmp->buf && tmp->len)
		hws__out_text_str(l, tmp->buf); /* names from the file: no control characters */
}

/* perf's sample_addr_correlates_sym(): the software page fault events */
static bool addr_has_sym(const char *ev)
{
	return !strcmp(ev, "page-faults") || !strcmp(ev, "faults") || !strcmp(ev, "minor-faults") ||
	       !strcmp(ev, "major-faults");
}

void hws__out_script(struct lb *l, struct hws_output *out, const struct hws_sample *s)
{
	const char *ev = s->event ? s->event : "[unknown]";
	char buf[160];
	int n = 0;

	if (F(COMM)) {
		char tmp[HWS_COMM_TID_LEN];
		const char *c = hws_symbols__comm_or_tid(out->o.syms, s, tmp);

		if (c != tmp && !hws_strbuf__text_plain(c)) {
			hws_strbuf__reset(&out->scratch);
			c = hws_strbuf__add_text_str(&out->scratch, c) || !out->scratch.buf
				? "?"
				: out->scratch.buf;
		}
		n = snprintf(buf, sizeof(buf), "%16s ", c);
		lb_add(l, buf, (size_t)n);
	}
	n = 0;
	if (F(PID) && F(TID))
		n = snprintf(buf, sizeof(buf), "%5d/%-5d ", (int)s->pid, (int)s->tid);
	else if (F(TID))
		n = snprintf(buf, sizeof(buf), "%5d ", (int)s->tid);
	else if (F(PID))
		n = snprintf(buf, sizeof(buf), "%5d ", (int)s->pid);
	if (F(CPU) && (s->fields & HWS_SF_CPU))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "[%03u] ", s->cpu);
	if (F(TIME) && (s->fields & HWS_SF_TIME)) {
		uint64_t sec = s->time / 1000000000u, ns = s->time % 1000000000u;

		n += out->o.ns ? snprintf(buf + n, sizeof(buf) - (size_t)n,
					  "%5" PRIu64 ".%09" PRIu64 ": ", sec, ns)
			       : snprintf(buf + n, sizeof(buf) - (size_t)n,
					  "%5" PRIu64 ".%06" PRIu64 ": ", sec, ns / 1000);
	}
	if (F(PERIOD))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%10" PRIu64 " ", s->period);
	lb_add(l, buf, (size_t)n);
	if (F(EVENT)) {
		for (size_t k = strlen(ev); k < out->o.event_width && k < 256; k++)
			lb_add(l, " ", 1);
		hws__out_text_str(l, ev);
		lb_add(l, ": ", 2);
	}
	if (F(ADDR) && (s->fields & HWS_SF_ADDR)) {
		n = snprintf(buf, sizeof(buf), "%16" PRIx64, s->addr);
		lb_add(l, buf, (size_t)n);
		if (addr_has_sym(ev))
			put_sym(l, out, s, s->addr, true);
	}
	if (F(IP) && (s->fields & HWS_SF_IP)) {
		n = snprintf(buf, sizeof(buf), " %16" PRIx64, s->ip);
		lb_add(l, buf, (size_t)n);
		put_sym(l, out, s, s->ip, false);
	}
	if (F(PHYS_ADDR) && (s->fields & HWS_SF_PHYS_ADDR)) {
		n = snprintf(buf, sizeof(buf), "%16" PRIx64, s->phys_addr);
		lb_add(l, buf, (size_t)n);
	}
	lb_add(l, "\n", 1);
}
