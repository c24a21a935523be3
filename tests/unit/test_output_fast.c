// SPDX-License-Identifier: MIT
/*
 * The fast paths of the formatters (core/output/fast.c) must never change a byte. JSON: the memo
 * (time prefix, pid..backend text, period, data source text, the per-shape line plans and their
 * index, past its 256 plans): 300000 generated samples drawn from
 * small pools, so that entries hit, miss, collide and get replaced, are formatted by one
 * formatter and by a plain snprintf reference written here from the documented key order
 * (include/hwsample/output.h); every 64th sample also by a new formatter (every cache
 * empty); all must agree. CSV and text (hand-written
 * numbers, CSV name tables, quoted event names) are checked against snprintf references of
 * the same samples. The pools cover times around 10^8 and its
 * multiples, below it and near UINT64_MAX, pid/tid 0 and UINT32_MAX, CPUs above 999,
 * samples without pid/cpu/time, out-of-range enum values, event names longer than a cache
 * entry, names that need JSON escaping or CSV quoting, and event strings at new addresses
 * with the same text. Symbols in text and CSV rows are checked against hws_symbol__format().
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/errors.h>
#include <hwsample/output.h>

#include "tests.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	return tests_xorshift64(&rng);
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[rnd() % n];
}

#define PICK(a) pick(a, sizeof(a) / sizeof(a[0]))

/* event names: plain ones, one longer than a memo entry, ones that need escaping */
static char ev_long[200];
static char ev_copy[2][16]; /* same text as "cpu-clock" at other addresses */
static const char *events[] = {"cpu-clock", "cpu/mem-loads,ldlat=30/P",
			       "ibs_op//",  ev_long,
			       "q\"uote",   "tab\there",
			       ev_copy[0],  ev_copy[1],
			       "new\nline", "a,\"b\""};
static const char *backends[] = {"sw", "intel_pebs", "amd_ibs", "arm_spe"};

/* @s as a JSON string: '"' and '\\' after a backslash, control characters as \u00XX */
static size_t json_str(char *b, size_t len, const char *s)
{
	size_t n = (size_t)snprintf(b, len, "\"");

	for (; *s && n + 8 < len; s++) {
		if (*s == '"' || *s == '\\')
			n += (size_t)snprintf(b + n, len - n, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			n += (size_t)snprintf(b + n, len - n, "\\u%04x", *s);
		else
			b[n++] = *s;
	}
	return n + (size_t)snprintf(b + n, len - n, "\"");
}

/* the JSON line as documented, with snprintf */
static void ref_json(const struct hws_sample *s, char *b, size_t len)
{
	size_t n = 0;
	const char *sep = "";
	uint64_t f = s->fields;

#define ADD(...) n += (size_t)snprintf(b + n, len - n, __VA_ARGS__)
#define KEY(k)                                                                                     \
	do {                                                                                       \
		ADD("%s\"%s\":", sep, k);                                                          \
		sep = ",";                                                                         \
	} while (0)
	ADD("{");
	if (f & HWS_SF_TIME) {
		KEY("time");
		ADD("%" PRIu64, s->time);
	}
	if (f & HWS_SF_CPU) {
		KEY("cpu");
		ADD("%u", s->cpu);
	}
	if (f & HWS_SF_PID) {
		KEY("pid");
		ADD("%d", (int)s->pid); /* signed, as perf prints a pid_t */
		KEY("tid");
		ADD("%d", (int)s->tid);
	}
	if (s->event) {
		KEY("event");
		n += json_str(b + n, len - n, s->event);
	}
	if (s->backend) {
		KEY("backend");
		n += json_str(b + n, len - n, s->backend);
	}
	if (f & HWS_SF_PERIOD) {
		KEY("period");
		ADD("%" PRIu64, s->period);
	}
	if (f & HWS_SF_IP) {
		KEY("ip");
		ADD("\"0x%" PRIx64 "\"", s->ip);
		KEY("precise");
		ADD("%s", s->ip_precise ? "true" : "false");
	}
	if (f & HWS_SF_ADDR) {
		KEY("addr");
		ADD("\"0x%" PRIx64 "\"", s->addr);
	}
	if (f & HWS_SF_PHYS_ADDR) {
		KEY("phys_addr");
		ADD("\"0x%" PRIx64 "\"", s->phys_addr);
	}
	if (f & HWS_SF_OP) {
		KEY("op");
		ADD("\"%s\"", hws_op__name(s->op));
	}
	if (f & HWS_SF_LAT_TOTAL) {
		KEY("lat_total");
		ADD("%u", s->lat_total);
	}
	if (f & HWS_SF_LAT_ISSUE) {
		KEY("lat_issue");
		ADD("%u", s->lat_issue);
	}
	if (f & HWS_SF_LAT_XLAT) {
		KEY("lat_xlat");
		ADD("%u", s->lat_xlat);
	}
	if (f & HWS_SF_LAT_MISS) {
		KEY("lat_miss");
		ADD("%u", s->lat_miss);
	}
	if (f & HWS_SF_LAT_INS) {
		KEY("lat_ins");
		ADD("%u", s->lat_ins);
	}
	if (f & HWS_SF_DATA_SRC) {
		KEY("mem_level");
		ADD("\"%s\"", hws_mem_level__name(s->mem_level));
		KEY("snoop");
		ADD("\"%s\"", hws_snoop__name(s->snoop));
		KEY("tlb");
		ADD("\"%s\"", hws_tlb__name(s->tlb));
		KEY("data_src");
		ADD("%" PRIu64, s->data_src);
	}
	if (f & HWS_SF_BRANCH) {
		KEY("branch_target");
		ADD("\"0x%" PRIx64 "\"", s->branch_target);
	}
	ADD("}\n");
#undef ADD
#undef KEY
}

/* a CSV cell as lb_csv_str() documents it: quoted, with '"' doubled, if it holds , " CR LF */
static size_t csv_cell(char *b, size_t len, const char *s)
{
	size_t n = 0;

	if (!strpbrk(s, ",\"\n\r"))
		return (size_t)snprintf(b, len, "%s", s);
	b[n++] = '"';
	for (; *s && n + 3 < len; s++) {
		if (*s == '"')
			b[n++] = '"';
		b[n++] = *s;
	}
	b[n++] = '"';
	b[n] = 0;
	return n;
}

/* the CSV row: every column in header order, empty when not valid */
static void ref_csv(const struct hws_sample *s, char *b, size_t len)
{
	size_t n = 0;
	uint64_t f = s->fields;

#define ADD(...) n += (size_t)snprintf(b + n, len - n, __VA_ARGS__)
	if (f & HWS_SF_TIME)
		ADD("%" PRIu64, s->time);
	ADD(",");
	if (f & HWS_SF_CPU)
		ADD("%u", s->cpu);
	ADD(",");
	if (f & HWS_SF_PID)
		ADD("%d,%d", (int)s->pid, (int)s->tid);
	else
		ADD(",");
	ADD(",");
	if (s->event)
		n += csv_cell(b + n, len - n, s->event);
	ADD(",");
	if (s->backend)
		n += csv_cell(b + n, len - n, s->backend);
	ADD(",");
	if (f & HWS_SF_PERIOD)
		ADD("%" PRIu64, s->period);
	ADD(",");
	if (f & HWS_SF_IP)
		ADD("0x%" PRIx64 ",%u", s->ip, s->ip_precise);
	else
		ADD(",");
	ADD(",");
	if (f & HWS_SF_ADDR)
		ADD("0x%" PRIx64, s->addr);
	ADD(",");
	if (f & HWS_SF_PHYS_ADDR)
		ADD("0x%" PRIx64, s->phys_addr);
	ADD(",");
	if (f & HWS_SF_OP)
		n += csv_cell(b + n, len - n, hws_op__name(s->op));
	ADD(",");
	if (f & HWS_SF_LAT_TOTAL)
		ADD("%u", s->lat_total);
	ADD(",");
	if (f & HWS_SF_LAT_ISSUE)
		ADD("%u", s->lat_issue);
	ADD(",");
	if (f & HWS_SF_LAT_XLAT)
		ADD("%u", s->lat_xlat);
	ADD(",");
	if (f & HWS_SF_LAT_MISS)
		ADD("%u", s->lat_miss);
	ADD(",");
	if (f & HWS_SF_LAT_INS)
		ADD("%u", s->lat_ins);
	ADD(",");
	if (f & HWS_SF_DATA_SRC) {
		n += csv_cell(b + n, len - n, hws_mem_level__name(s->mem_level));
		ADD(",");
		n += csv_cell(b + n, len - n, hws_snoop__name(s->snoop));
		ADD(",");
		n += csv_cell(b + n, len - n, hws_tlb__name(s->tlb));
		ADD(",%" PRIu64, s->data_src);
	} else {
		ADD(",,,");
	}
	ADD(",");
	if (f & HWS_SF_BRANCH)
		ADD("0x%" PRIx64, s->branch_target);
	ADD("\n");
#undef ADD
}

/* the text line (no symbols, no raw) */
/* @s (ASCII) for the terminal: control characters as \xNN */
static const char *text_str(const char *s)
{
	static char b[1024];
	size_t n = 0;

	for (; *s && n + 5 < sizeof(b); s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			n += (size_t)snprintf(b + n, sizeof(b) - n, "\\x%02x", (unsigned char)*s);
		else
			b[n++] = *s;
	}
	b[n] = 0;
	return b;
}

static void ref_text(const struct hws_sample *s, char *b, size_t len)
{
	size_t n = 0;
	uint64_t f = s->fields;

#define ADD(...) n += (size_t)snprintf(b + n, len - n, __VA_ARGS__)
	if (f & HWS_SF_TIME)
		ADD("%" PRIu64 ".%09" PRIu64 " ", s->time / 1000000000U, s->time % 1000000000U);
	if (f & HWS_SF_CPU)
		ADD("[%03u] ", s->cpu);
	if (f & HWS_SF_PID)
		ADD("%d/%d ", (int)s->pid, (int)s->tid);
	ADD("%s:", s->event ? text_str(s->event) : "?");
	if (f & HWS_SF_PERIOD)
		ADD(" %" PRIu64, s->period);
	if (f & HWS_SF_IP)
		ADD(" ip 0x%" PRIx64 "%s", s->ip, s->ip_precise ? " [P]" : "");
	if (f & HWS_SF_ADDR)
		ADD(" addr 0x%" PRIx64, s->addr);
	if (f & HWS_SF_PHYS_ADDR)
		ADD(" phys 0x%" PRIx64, s->phys_addr);
	if (f & HWS_SF_OP)
		ADD(" op %s", hws_op__name(s->op));
	if (f & HWS_SF_DATA_SRC)
		ADD(" lvl %s snoop %s tlb %s", hws_mem_level__name(s->mem_level),
		    hws_snoop__name(s->snoop), hws_tlb__name(s->tlb));
	if (f & HWS_SF_LAT_TOTAL)
		ADD(" lat %u", s->lat_total);
	if (f & HWS_SF_LAT_ISSUE)
		ADD(" issue %u", s->lat_issue);
	if (f & HWS_SF_LAT_XLAT)
		ADD(" xlat %u", s->lat_xlat);
	if (f & HWS_SF_LAT_MISS)
		ADD(" miss %u", s->lat_miss);
	if (f & HWS_SF_LAT_INS)
		ADD(" ins %u", s->lat_ins);
	if (f & HWS_SF_BRANCH)
		ADD(" target 0x%" PRIx64, s->branch_target);
	ADD("\n");
#undef ADD
}

/*
 * Symbols in text and CSV rows (their printf-free "name+0xoff" path): kernel addresses
 * resolved through a small kallsyms file, every row compared with hws_symbol__format()'s
 * text placed as the documented cells: text " sym" after the ip, CSV sym,dso cells.
 */
static void check_syms(void)
{
	static const char ks[] = "ffffffff81000000 T _stext\n"
				 "ffffffff81000100 T plain_func\n"
				 "ffffffff81000200 t comma,func\n"
				 "ffffffff81000300 T quote\"func\n"
				 "ffffffff81000400 T last_func\n";
	static const uint64_t addrs[] = {0xffffffff81000000ULL, 0xffffffff81000001ULL,
					 0xffffffff81000100ULL, 0xffffffff810001ffULL,
					 0xffffffff81000234ULL, 0xffffffff81000300ULL,
					 0xffffffff81000321ULL, 0xffffffff81000400ULL,
					 0xffffffff81000410ULL, 0xffffffff80000000ULL};
	char path[] = "/tmp/hws_test_ksymsXXXXXX", ref[2048], cell[512];
	struct hws_output_opts o = {.sz = sizeof(o)};
	struct hws_output *text = NULL, *csv = NULL;
	struct hws_strbuf sb, f;
	struct hws_symbols *syms;
	unsigned long bad = 0, named = 0;
	int fd = mkstemp(path);

	__T("temp kallsyms", fd >= 0 && write(fd, ks, sizeof(ks) - 1) == (ssize_t)sizeof(ks) - 1);
	if (fd >= 0)
		close(fd);
	syms = hws_symbols__new(NULL);
	__T("kallsyms used", syms && !hws_symbols__use_kallsyms(syms, path));
	o.symbols = true;
	o.syms = syms;
	o.format = HWS_OUT_TEXT;
	text = hws_output__new(&o);
	o.format = HWS_OUT_CSV;
	csv = hws_output__new(&o);
	__T("formatters made", text && csv);
	hws_strbuf__init(&sb, 1u << 20);
	hws_strbuf__init(&f, 1u << 20);
	for (size_t i = 0; syms && text && csv && i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		struct hws_sample s = {.sz = sizeof(s)};
		struct hws_symbol sym;
		size_t n;

		s.fields = HWS_SF_TIME | HWS_SF_PID | HWS_SF_IP;
		s.time = 6213116937086ULL;
		s.pid = s.tid = 7;
		s.event = "cpu-clock";
		s.backend = "sw";
		s.ip = addrs[i];
		hws_symbols__resolve(syms, s.pid, s.ip, false, &sym);
		hws_strbuf__reset(&f);
		__T("reference symbol text", !hws_symbol__format(&sym, false, &f) && f.buf);
		if (!f.buf)
			continue;
		named += sym.name != NULL;
		/* text: the comm column (":7": no COMM for thread 7, as perf script), the line
		 * without symbols, " sym" inserted before the newline */
		n = (size_t)snprintf(ref, sizeof(ref), "%16s ", ":7");
		ref_text(&s, ref + n, sizeof(ref) - n);
		n = strlen(ref) - 1;
		snprintf(ref + n, sizeof(ref) - n, " %s\n", f.buf);
		hws_strbuf__reset(&sb);
		if (hws_output__sample(text, &s, &sb) || !sb.buf || strcmp(sb.buf, ref)) {
			if (bad++ < 5)
				fprintf(stderr, "text sym: %sref:      %s", sb.buf ? sb.buf : "-\n",
					ref);
		}
		/* CSV: sym and dso cells of the ip, empty data_sym and data_dso */
		ref_csv(&s, ref, sizeof(ref));
		n = strlen(ref) - 1;
		csv_cell(cell, sizeof(cell), f.buf);
		n += (size_t)snprintf(ref + n, sizeof(ref) - n, ",%s,", cell);
		if (sym.dso) {
			csv_cell(cell, sizeof(cell), sym.dso);
			n += (size_t)snprintf(ref + n, sizeof(ref) - n, "%s", cell);
		}
		snprintf(ref + n, sizeof(ref) - n, ",,\n");
		hws_strbuf__reset(&sb);
		if (hws_output__sample(csv, &s, &sb) || !sb.buf || strcmp(sb.buf, ref)) {
			if (bad++ < 5)
				fprintf(stderr, "csv sym: %sref:     %s", sb.buf ? sb.buf : "-\n",
					ref);
		}
	}
	T_EQ_U64("symbol rows unlike hws_symbol__format()", bad, 0);
	__T("most addresses had a name", named >= 8);
	hws_output__delete(text);
	hws_output__delete(csv);
	hws_symbols__delete(syms);
	hws_strbuf__release(&sb);
	hws_strbuf__release(&f);
	unlink(path);
}

static const uint64_t field_sets[] = {
    /* sw */
    HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PID | HWS_SF_PERIOD | HWS_SF_IP | HWS_SF_ADDR |
	HWS_SF_DATA_SRC,
    /* pebs-like */
    HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PID | HWS_SF_PERIOD | HWS_SF_IP | HWS_SF_ADDR |
	HWS_SF_PHYS_ADDR | HWS_SF_OP | HWS_SF_LAT_TOTAL | HWS_SF_LAT_INS | HWS_SF_DATA_SRC,
    /* spe-like, no pid */
    HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PERIOD | HWS_SF_IP | HWS_SF_OP | HWS_SF_LAT_TOTAL,
    HWS_SF_TIME | HWS_SF_PID | HWS_SF_IP | HWS_SF_LAT_ISSUE | HWS_SF_LAT_XLAT | HWS_SF_LAT_MISS |
	HWS_SF_BRANCH | HWS_SF_DATA_SRC,
    /* no time: the caches keyed on a leading comma must stay out */
    HWS_SF_CPU | HWS_SF_PID | HWS_SF_DATA_SRC,
    HWS_SF_DATA_SRC,
    0,
};

static const uint64_t times_base[] = {0,
				      1,
				      99999999,
				      100000000,
				      100000001,
				      199999999,
				      6213116937086ULL,
				      6213199999990ULL,
				      10000000000000000000ULL,
				      UINT64_MAX - 20};
static const uint64_t pids[] = {0, 1, 18, 77, 2004, 21929, 21930, 99999, 4194304, UINT32_MAX};
static const uint64_t dsrcs[] = {0, 1, 128933429281ULL, 1204370276932ULL, UINT64_MAX};
static const uint64_t enums[] = {0, 1, 2, 3, 5, 8, 200, 255};
static const uint64_t smalls[] = {0,	 9,	10,	  99,	     100,	9999,
				  10000, 20000, 99999999, 100000000, UINT32_MAX};

static void gen(struct hws_sample *s, uint64_t *t)
{
	memset(s, 0, sizeof(*s));
	s->sz = sizeof(*s);
	s->fields = rnd() % 8 ? field_sets[rnd() % 2] : PICK(field_sets);
	/* any mix of the columns, now and then: thousands of line shapes, so the JSON plans'
	 * index probes past taken slots and fills up (more than its 256 plans) */
	if (rnd() % 16 == 0)
		s->fields =
		    rnd() & (HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PID | HWS_SF_PERIOD | HWS_SF_IP |
			     HWS_SF_ADDR | HWS_SF_PHYS_ADDR | HWS_SF_OP | HWS_SF_LAT_TOTAL |
			     HWS_SF_LAT_ISSUE | HWS_SF_LAT_XLAT | HWS_SF_LAT_MISS | HWS_SF_LAT_INS |
			     HWS_SF_DATA_SRC | HWS_SF_BRANCH);
	/* mostly increasing in small steps, sometimes a jump to another base */
	if (rnd() % 64 == 0)
		*t = PICK(times_base);
	else
		*t += rnd() % 50000;
	s->time = *t;
	s->cpu = (uint32_t)(rnd() % 4 ? rnd() % 4 : rnd() % 2 ? rnd() % 2000 : PICK(pids));
	s->pid = (uint32_t)PICK(pids);
	s->tid = (uint32_t)(rnd() % 2 ? s->pid : PICK(pids));
	s->period = rnd() % 16 ? PICK(smalls) : rnd();
	s->event = rnd() % 32 ? events[rnd() % 3] : events[rnd() % 10];
	s->backend = rnd() % 32 ? backends[rnd() % 2] : rnd() % 2 ? backends[rnd() % 4] : NULL;
	if (rnd() % 64 == 0)
		s->event = NULL;
	s->ip = rnd() >> (rnd() % 64);
	s->ip_precise = rnd() % 2;
	s->addr = rnd() % 2 ? 0 : rnd() >> (rnd() % 64);
	s->phys_addr = rnd() >> (rnd() % 64);
	s->op = (uint8_t)PICK(enums);
	s->mem_level = (uint8_t)(rnd() % 4 ? 0 : PICK(enums));
	s->snoop = (uint8_t)(rnd() % 4 ? 0 : PICK(enums));
	s->tlb = (uint8_t)(rnd() % 4 ? 0 : PICK(enums));
	s->data_src = rnd() % 8 ? dsrcs[rnd() % 3] : PICK(dsrcs);
	s->lat_total = (uint32_t)PICK(smalls);
	s->lat_issue = (uint32_t)rnd();
	s->lat_xlat = (uint32_t)PICK(smalls);
	s->lat_miss = (uint32_t)(rnd() % 1000);
	s->lat_ins = (uint32_t)PICK(smalls);
	s->branch_target = rnd();
}

/*
 * A capped buffer, with the memo's planned lines: lines go in whole until HWS_E_TOO_BIG,
 * which leaves the buffer as it was; what went in equals the lines another formatter makes
 * into a buffer with room.
 */
static void check_capped(struct hws_output *with, struct hws_output *without, uint64_t *t)
{
	struct hws_strbuf c, d;
	struct hws_sample s;
	size_t before = 0;
	int err = 0;

	for (int round = 0; round < 20; round++) {
		hws_strbuf__init(&c, 2048 + 997 * (size_t)round);
		hws_strbuf__init(&d, 1u << 20);
		err = 0;
		for (int k = 0; k < 100000 && !err; k++) {
			gen(&s, t);
			before = c.len;
			err = hws_output__sample(with, &s, &c);
			if (!err && hws_output__sample(without, &s, &d))
				break;
		}
		__T("a capped buffer ends with HWS_E_TOO_BIG", err == HWS_E_TOO_BIG);
		T_EQ_U64("a refused line leaves the buffer as it was", c.len, before);
		__T("the lines before it are whole and as without a memo",
		    c.len == d.len && (!c.len || !memcmp(c.buf, d.buf, c.len)));
		hws_strbuf__release(&c);
		hws_strbuf__release(&d);
	}
}

int main(void)
{
	HWS_OPTS(hws_output_opts, jo, .format = HWS_OUT_JSON);
	HWS_OPTS(hws_output_opts, co, .format = HWS_OUT_CSV);
	HWS_OPTS(hws_output_opts, to, .format = HWS_OUT_TEXT);
	struct hws_output *json = hws_output__new(&jo), *json2 = hws_output__new(&jo);
	struct hws_output *csv = hws_output__new(&co), *text = hws_output__new(&to);
	struct hws_strbuf a, b;
	struct hws_sample s;
	uint64_t t = 6213116937086ULL;
	unsigned long diff_cold = 0, diff_ref = 0, ncold = 0, n = 300000, diff_other = 0;
	unsigned long nother = 0;
	char ref[2048];

	memset(ev_long, 'e', sizeof(ev_long) - 1);
	strcpy(ev_copy[0], "cpu-clock");
	strcpy(ev_copy[1], "cpu-clock");
	__T("formatters made", json && json2 && csv && text);
	if (!json || !json2 || !csv || !text)
		return 1;
	hws_strbuf__init(&a, 1u << 20);
	hws_strbuf__init(&b, 1u << 20);
	for (unsigned long i = 0; i < n; i++) {
		gen(&s, &t);
		hws_strbuf__reset(&a);
		if (hws_output__sample(json, &s, &a) || !a.buf) {
			diff_ref++;
			continue;
		}
		ref_json(&s, ref, sizeof(ref));
		if (strcmp(a.buf, ref) && diff_ref++ < 5)
			fprintf(stderr, "json: %sref:  %s", a.buf, ref);
		if (i % 64 == 0) {
			struct hws_output *cold = hws_output__new(&jo);

			hws_strbuf__reset(&b);
			if (!cold || hws_output__sample(cold, &s, &b) || !b.buf ||
			    strcmp(a.buf, b.buf))
				if (diff_cold++ < 5)
					fprintf(stderr, "cold: %swarm: %s", b.buf ? b.buf : "-\n",
						a.buf);
			hws_output__delete(cold);
			ncold++;
		}
	}
	/* CSV and text against their references */
	rng = 0x2545f4914f6cdd1dULL;
	for (unsigned long i = 0; i < n; i++) {
		gen(&s, &t);
		for (int k = 0; k < 2; k++) {
			hws_strbuf__reset(&a);
			if (k == 0)
				ref_csv(&s, ref, sizeof(ref));
			else
				ref_text(&s, ref, sizeof(ref));
			if (hws_output__sample(k ? text : csv, &s, &a) || !a.buf ||
			    strcmp(a.buf, ref)) {
				if (diff_other++ < 5)
					fprintf(stderr, "%s: %sref:  %s", k ? "text" : "csv",
						a.buf ? a.buf : "(none)\n", ref);
			}
			nother++;
		}
	}
	T_EQ_U64("CSV/text lines unlike their references", diff_other, 0);
	check_syms();
	__T("CSV and text checked", nother == 2 * n);
	T_EQ_U64("JSON lines unlike the snprintf reference", diff_ref, 0);
	T_EQ_U64("JSON lines unlike a new formatter's", diff_cold, 0);
	__T("lines checked by new formatters", ncold > n / 100);
	check_capped(json, json2, &t);
	hws_output__delete(json);
	hws_output__delete(json2);
	hws_output__delete(csv);
	hws_output__delete(text);
	hws_strbuf__release(&a);
	hws_strbuf__release(&b);
	TEST_END();
}
