// SPDX-License-Identifier: MIT
/*
 * The JSON fast path's memo caches (core/output.c: time prefix, pid..backend text, data
 * source text) must never change a byte: 300000 generated samples drawn from small pools,
 * so that entries hit, miss, collide and get replaced, are formatted three ways and must
 * agree: with a memo, without one, and by a plain snprintf reference written here from the
 * documented key order (include/hwsample/output.h). The pools cover times around 10^8 and
 * its multiples, below it and near UINT64_MAX, pid/tid 0 and UINT32_MAX, samples without
 * pid/cpu/time, out-of-range enum values, event names longer than a cache entry and names
 * that need JSON escaping, and event strings at new addresses with the same text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hwsample/output.h>

#include "tests.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
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
			       ev_copy[0],  ev_copy[1]};
static const char *backends[] = {"sw", "intel_pebs", "amd_ibs", "arm_spe"};

static bool plain(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == '"' || *s == '\\' || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

/* the JSON line as documented, with snprintf (plain event/backend names only) */
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
		ADD("%u", s->pid);
		KEY("tid");
		ADD("%u", s->tid);
	}
	if (s->event) {
		KEY("event");
		ADD("\"%s\"", s->event);
	}
	if (s->backend) {
		KEY("backend");
		ADD("\"%s\"", s->backend);
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
	/* mostly increasing in small steps, sometimes a jump to another base */
	if (rnd() % 64 == 0)
		*t = PICK(times_base);
	else
		*t += rnd() % 50000;
	s->time = *t;
	s->cpu = (uint32_t)(rnd() % 4 ? rnd() % 4 : PICK(pids));
	s->pid = (uint32_t)PICK(pids);
	s->tid = (uint32_t)(rnd() % 2 ? s->pid : PICK(pids));
	s->period = rnd() % 16 ? PICK(smalls) : rnd();
	s->event = rnd() % 32 ? events[rnd() % 3] : events[rnd() % 8];
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

int main(void)
{
	struct hws_strbuf a, b;
	struct hws_output_opts with = {.sz = sizeof(with), .format = HWS_OUT_JSON};
	struct hws_output_opts without = {.sz = sizeof(without), .format = HWS_OUT_JSON};
	struct hws_sample s;
	uint64_t t = 6213116937086ULL;
	unsigned long diff_memo = 0, diff_ref = 0, nref = 0, n = 300000;
	char ref[2048];

	memset(ev_long, 'e', sizeof(ev_long) - 1);
	strcpy(ev_copy[0], "cpu-clock");
	strcpy(ev_copy[1], "cpu-clock");
	with.memo = hws_output_memo__new();
	__T("memo made", with.memo != NULL);
	hws_strbuf__init(&a, 1u << 20);
	hws_strbuf__init(&b, 1u << 20);
	for (unsigned long i = 0; i < n; i++) {
		gen(&s, &t);
		hws_strbuf__reset(&a);
		hws_strbuf__reset(&b);
		if (hws_output__sample(&with, &s, &a) || hws_output__sample(&without, &s, &b) ||
		    !a.buf || !b.buf) {
			diff_memo++;
			continue;
		}
		if (strcmp(a.buf, b.buf) && diff_memo++ < 5)
			fprintf(stderr, "memo:    %sno memo: %s", a.buf, b.buf);
		if ((!s.event || plain(s.event)) && (!s.backend || plain(s.backend))) {
			ref_json(&s, ref, sizeof(ref));
			nref++;
			if (strcmp(a.buf, ref) && diff_ref++ < 5)
				fprintf(stderr, "memo: %sref:  %s", a.buf, ref);
		}
	}
	T_EQ_U64("lines that differ with and without the memo", diff_memo, 0);
	T_EQ_U64("lines unlike the snprintf reference", diff_ref, 0);
	__T("most lines checked against the reference", nref > n / 2);
	hws_output_memo__delete(with.memo);
	hws_strbuf__release(&a);
	hws_strbuf__release(&b);
	TEST_END();
}
