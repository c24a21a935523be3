// SPDX-License-Identifier: MIT
/*
 * intel_pebs decoding: kernel PEBS sample fields -> struct hws_sample.
 *
 * 1. The real Skylake-SP load-latency recording perf.data.weight_struct: its samples are
 *    decoded and compared, sample by sample, with what perf 6.1 printed for the same file
 *    (perf report -D for the raw values, perf script -F ...,data_src,weight,ins_lat for
 *    the decoded data source and weights). When the perf.data reader is present the
 *    samples come from the file itself; the raw values are then also checked against
 *    perf report -D. Without it the raw values come from the report -D text.
 * 2. Hand-built cases from the kernel's rules (Linux arch/x86/events/intel/ds.c; WEIGHT vs
 *    WEIGHT_STRUCT, var2,
 *    EXACT_IP, zero addresses, PHYS_ADDR, page sizes, HITM / remote / DRAM / blocked).
 * 3. raw_json: weight parts and data_src fields by name.
 *
 * Invariant: expected values never come from hwsample itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/backend.h>
#include <hwsample/perfdata.h>
#include <hwsample/registry.h>

#include "tests.h"
#include "../golden/intel_pebs/skx_load_latency.h"

static struct hws_registry *reg;
static struct hws_backend *be;

static int decode(const struct hws_perf_event_attr *attr, struct hws_record_sample *rec,
		  struct hws_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->sz = sizeof(*s);
	rec->attr = attr;
	rec->sample_type = attr->sample_type;
	return be->ops->decode(be->priv, NULL, rec, s);
}

/* ------------------------------------------------------------------ golden files */

struct golden {
	uint32_t pid, tid, cpu;
	uint16_t misc;
	uint64_t time, ip, addr, data_src, var1, var2, var3, period;
	/* perf script */
	char lvl[64], snp[32], tlb[32], lck[8];
	uint64_t weight, ins_lat;
};

#define MAX_GOLDEN 64
static struct golden gold[MAX_GOLDEN];
static int nr_gold;

static FILE *fixture(const char *name)
{
	const char *dirs[] = {getenv("HWS_FIXTURES"), "tests/fixtures", NULL};
	char path[1024];
	int i;

	for (i = 0; i < 2; i++) {
		FILE *f;

		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/perf_data_converter/%s", dirs[i], name);
		f = fopen(path, "r");
		if (f)
			return f;
	}
	return NULL;
}

static int load_golden(void)
{
	FILE *d = fixture("perf.data.weight_struct.perf-6.1.samples-D.txt");
	FILE *sc = fixture("perf.data.weight_struct.perf-6.1.script.txt");
	char line[1024];
	int n = 0;

	if (!d || !sc) {
		if (d)
			fclose(d);
		if (sc)
			fclose(sc);
		return -1;
	}
	while (fgets(line, sizeof(line), d) && nr_gold < MAX_GOLDEN) {
		struct golden *g = &gold[nr_gold];
		unsigned long long t, ip, addr, per;
		unsigned int cpu, misc, pid, tid;
		char *p;

		if ((p = strstr(line, "PERF_RECORD_SAMPLE(IP, "))) {
			if (sscanf(line, "%u %llu", &cpu, &t) != 2 ||
			    sscanf(
				p,
				"PERF_RECORD_SAMPLE(IP, %x): %u/%u: %llx period: %llu addr: %llx",
				&misc, &pid, &tid, &ip, &per, &addr) != 6)
				continue;
			g->cpu = cpu;
			g->time = t;
			g->misc = (uint16_t)misc;
			g->pid = pid;
			g->tid = tid;
			g->ip = ip;
			g->period = per;
			g->addr = addr;
		} else if ((p = strstr(line, "weight: "))) {
			unsigned long long a, b, c;

			if (sscanf(p, "weight: %llu,%llx,%llx", &a, &b, &c) == 3) {
				g->var1 = a;
				g->var2 = b;
				g->var3 = c;
			}
		} else if ((p = strstr(line, "data_src: "))) {
			g->data_src = strtoull(p + 10, NULL, 16);
			nr_gold++;
		}
	}
	while (fgets(line, sizeof(line), sc) && n < nr_gold) {
		struct golden *g = &gold[n];
		char *f[8] = {0}, *p = strchr(line, '|');
		unsigned long long w, il;
		unsigned int tid;
		int i;

		if (!p || sscanf(line, "%u", &tid) != 1)
			continue;
		/* |OP LOAD|LVL ...|SNP ...|TLB ...|LCK ...|BLK  N/A   weight ins_lat ip */
		for (i = 0; i < 7 && p; i++) {
			f[i] = p + 1;
			p = strchr(p + 1, '|');
			if (p)
				*p = '\0';
		}
		if (i < 6)
			continue;
		snprintf(g->lvl, sizeof(g->lvl), "%s", f[1] + 4);
		snprintf(g->snp, sizeof(g->snp), "%s", f[2] + 4);
		snprintf(g->tlb, sizeof(g->tlb), "%s", f[3] + 4);
		snprintf(g->lck, sizeof(g->lck), "%s", f[4] + 4);
		/* after "BLK  N/A" come weight and ins_lat */
		p = f[5] + strlen("BLK  N/A");
		if (sscanf(p, "%llu %llu", &w, &il) != 2)
			continue;
		g->weight = w;
		g->ins_lat = il;
		__T("script/report -D pairing (tid)", tid == g->tid);
		n++;
	}
	fclose(d);
	fclose(sc);
	return n == nr_gold && nr_gold > 0 ? 0 : -1;
}

static unsigned int lvl_of(const char *t)
{
	if (!strncmp(t, "L1 ", 3))
		return HWS_MEM_L1;
	if (!strncmp(t, "LFB/MAB ", 8))
		return HWS_MEM_LFB;
	if (!strncmp(t, "L2 ", 3))
		return HWS_MEM_L2;
	if (!strncmp(t, "L3 ", 3))
		return HWS_MEM_L3;
	return 99;
}

static void check_against_perf(const char *what, const struct golden *g, const struct hws_sample *s)
{
	T_EQ_U64(what, s->ip, g->ip);
	T_EQ_U64(what, s->ip_precise, (g->misc & 0x4000) ? 1 : 0);
	T_EQ_U64(what, s->addr, g->addr);
	T_EQ_U64(what, !!(s->fields & HWS_SF_ADDR), g->addr != 0);
	T_EQ_U64(what, s->data_src, g->data_src);
	T_EQ_U64(what, !!(s->fields & HWS_SF_DATA_SRC), 1);
	/* perf script weight = var1, ins_lat = var2 */
	T_EQ_U64(what, s->lat_total, g->weight);
	T_EQ_U64(what, !!(s->fields & HWS_SF_LAT_TOTAL), g->weight != 0);
	T_EQ_U64(what, s->lat_ins, g->ins_lat);
	T_EQ_U64(what, !!(s->fields & HWS_SF_LAT_INS), g->ins_lat != 0);
	T_EQ_U64(what, s->weight, g->var1 | g->var2 << 32 | g->var3 << 48);
	T_EQ_U64(what, s->op, HWS_OP_LOAD);
	T_EQ_U64(what, s->mem_level, lvl_of(g->lvl));
	__T(what, !strcmp(g->snp, "None") && s->snoop == HWS_SNOOP_NONE);
	if (!strcmp(g->tlb, "L1 or L2 hit"))
		T_EQ_U64(what, s->tlb, HWS_TLB_HIT);
	else if (!strcmp(g->tlb, "L2 miss"))
		T_EQ_U64(what, s->tlb, HWS_TLB_MISS);
	else
		__T(what, 0);
	T_EQ_U64(what, !!(s->op_flags & HWS_OPF_LOCK), !strcmp(g->lck, "Yes"));
}

/* The file's one event (perf report --header-only): raw 0x1cd, precise_ip 2 */
static const struct hws_perf_event_attr ws_attr = {
    .type = PERF_TYPE_RAW,
    .size = 96,
    .config = 0x1cd,
    .config1 = 0x40,
    .sample_period = 10009,
    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		   PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_DATA_SRC |
		   PERF_SAMPLE_WEIGHT_STRUCT,
    .precise_ip = 2,
};

static void test_golden_text(void)
{
	int i;

	for (i = 0; i < nr_gold; i++) {
		const struct golden *g = &gold[i];
		struct hws_record_sample rec = {
		    .misc = g->misc,
		    .pid = g->pid,
		    .tid = g->tid,
		    .cpu = g->cpu,
		    .ip = g->ip,
		    .time = g->time,
		    .addr = g->addr,
		    .period = g->period,
		    .weight = g->var1 | g->var2 << 32 | g->var3 << 48,
		    .data_src = g->data_src,
		};
		struct hws_sample s;
		char what[64];

		snprintf(what, sizeof(what), "golden text sample %d", i);
		T_EQ_U64(what, decode(&ws_attr, &rec, &s), 0);
		check_against_perf(what, g, &s);
	}
}

/* The perf.data file itself, through the reader. */

static void test_golden_file(void)
{
	const char *dirs[] = {getenv("HWS_FIXTURES"), "tests/fixtures"};
	struct hws_perf_reader *r = NULL;
	struct hws_perf_record rec;
	char path[1024];
	int i, n = 0, ret;

	for (i = 0; i < 2 && !r; i++) {
		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/perf_data_converter/perf.data.weight_struct",
			 dirs[i]);
		r = hws_perf_reader__open(path, NULL);
	}
	__T("open perf.data.weight_struct", r != NULL);
	if (!r)
		return;
	while ((ret = hws_perf_reader__next(r, &rec)) == 1) {
		const struct hws_perf_evattr *ea;
		struct hws_record_sample rs;
		struct hws_sample s;
		char what[64];

		if (rec.hdr->type != PERF_RECORD_SAMPLE)
			continue;
		ea = hws_perf_reader__attr(r, rec.attr_idx);
		__T("sample attr", ea != NULL);
		if (!ea)
			break;
		T_EQ_U64("attr sample_type", ea->attr.sample_type, ws_attr.sample_type);
		__T("match raw 0x1cd", be->ops->match(be->priv, &ea->attr, ea->pmu_name));
		memset(&rs, 0, sizeof(rs));
		T_EQ_U64("parse", hws_sample__parse(&ea->attr, rec.hdr, rec.hdr->size, &rs), 0);
		rs.pmu_name = ea->pmu_name;
		snprintf(what, sizeof(what), "file sample %d", n);
		T_EQ_U64(what, decode(&ea->attr, &rs, &s), 0);
		/* perf report -D prints in time order, the file is per-CPU buffer order */
		for (i = 0; i < nr_gold; i++)
			if (gold[i].time == rs.time && gold[i].tid == rs.tid)
				break;
		__T("sample is in perf report -D", i < nr_gold);
		if (i < nr_gold) {
			const struct golden *g = &gold[i];

			T_EQ_U64(what, rs.tid, g->tid);
			T_EQ_U64(what, rs.pid, g->pid);
			T_EQ_U64(what, rs.cpu, g->cpu);
			T_EQ_U64(what, rs.time, g->time);
			T_EQ_U64(what, rs.misc, g->misc);
			check_against_perf(what, g, &s);
		}
		n++;
	}
	T_EQ_U64("reader end", ret, 0);
	T_EQ_U64("samples in file", n, nr_gold);
	hws_perf_reader__close(r);
}

/* ------------------------------------------------------------------ hand-built cases */

#define DS(op, lvl, snoop, lock, tlb, lnum, rem, snx, blk, hops)                                   \
	((uint64_t)(op) | (uint64_t)(lvl) << 5 | (uint64_t)(snoop) << 19 |                         \
	 (uint64_t)(lock) << 24 | (uint64_t)(tlb) << 26 | (uint64_t)(lnum) << 33 |                 \
	 (uint64_t)(rem) << 37 | (uint64_t)(snx) << 38 | (uint64_t)(blk) << 40 |                   \
	 (uint64_t)(hops) << 43)

struct hand_case {
	int line;
	uint64_t sample_type;
	uint16_t misc;
	uint64_t addr, phys, weight, data_src, dpsz, cpsz;
	/* expected */
	uint64_t fields_set, fields_clear;
	uint32_t lat_total, lat_ins;
	int precise, level, snoop, tlb;
	uint32_t opf;
};

#define ST_BASE                                                                                    \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |                  \
	 PERF_SAMPLE_DATA_SRC)
#define WS PERF_SAMPLE_WEIGHT_STRUCT
#define W  PERF_SAMPLE_WEIGHT

static const struct hand_case hand[] = {
    /* SKL load latency, L3 hit HITM (DSE 0x7): var1 only */
    {__LINE__, ST_BASE | WS, 0x4001, 0x7f0010, 0, 312,
     DS(0x2, 0x2 | 0x40, 0x10, 0x1, 0x2 | 0x8, 3, 0, 0, 0x1, 0), 0, 0,
     HWS_SF_LAT_TOTAL | HWS_SF_ADDR | HWS_SF_DATA_SRC | HWS_SF_WEIGHT,
     HWS_SF_LAT_INS | HWS_SF_PHYS_ADDR, 312, 0, 1, HWS_MEM_L3, HWS_SNOOP_HITM, HWS_TLB_L1_HIT, 0},
    /* ADL+: var1 cache latency 40, var2 instruction latency 55, var3 retire 7 */
    {__LINE__, ST_BASE | WS, 0x4002, 0x1000, 0, 40ULL | 55ULL << 32 | 7ULL << 48,
     DS(0x2, 0x2 | 0x8, 0x2, 0x1, 0x2 | 0x10, 1, 0, 0, 0x1, 0), 0, 0,
     HWS_SF_LAT_TOTAL | HWS_SF_LAT_INS, 0, 40, 55, 1, HWS_MEM_L1, HWS_SNOOP_NONE, HWS_TLB_L2_HIT,
     0},
    /* plain WEIGHT (kernel < 5.12): whole u64 is the latency; precise_ip 1: no EXACT */
    {__LINE__, ST_BASE | W, 0x0002, 0x2000, 0, 977,
     DS(0x2, 0x2 | 0x80, 0x2 | 0x8, 0x1, 0x4 | 0x10, 0xd, 0, 0, 0, 0), 0, 0, HWS_SF_LAT_TOTAL,
     HWS_SF_LAT_INS, 977, 0, 0, HWS_MEM_LOCAL_DRAM, HWS_SNOOP_MISS, HWS_TLB_MISS, 0},
    /* plain WEIGHT above 32 bits saturates */
    {__LINE__, ST_BASE | W, 0x4001, 0x2000, 0, 1ULL << 40, 0, 0, 0,
     HWS_SF_LAT_TOTAL | HWS_SF_WEIGHT, HWS_SF_DATA_SRC, UINT32_MAX, 0, 1, 0, 0, 0, 0},
    /* SKL remote cache HITM (DSE 0xd): REM_CCE1, remote, HITM; locked; phys addr */
    {__LINE__, ST_BASE | WS | PERF_SAMPLE_PHYS_ADDR, 0x4001, 0x3000, 0x12345000, 800,
     DS(0x2, 0x2 | 0x400, 0x10, 0x2, 0x2 | 0x8, 0xb, 1, 0, 0x1, 0), 0, 0,
     HWS_SF_PHYS_ADDR | HWS_SF_DATA_SRC, 0, 800, 0, 1, HWS_MEM_REMOTE_CACHE, HWS_SNOOP_HITM,
     HWS_TLB_L1_HIT, HWS_OPF_LOCK},
    /* remote DRAM, snoop forward (SNOOPX_FWD), STLB miss */
    {__LINE__, ST_BASE | WS, 0x4001, 0x3000, 0, 500,
     DS(0x2, 0x2 | 0x100, 0x1, 0x1, 0x4 | 0x10, 0xd, 1, 0x1, 0x1, 2), 0, 0, HWS_SF_DATA_SRC, 0, 500,
     0, 1, HWS_MEM_REMOTE_DRAM, HWS_SNOOP_HIT, HWS_TLB_MISS, 0},
    /* SPR peer (SNOOPX_PEER) L2 hit on another core */
    {__LINE__, ST_BASE | WS, 0x4001, 0x3000, 0, 90,
     DS(0x2, 0x2 | 0x20, 0x1, 0x1, 0x2 | 0x8, 2, 0, 0x2, 0x1, 0), 0, 0, HWS_SF_DATA_SRC, 0, 90, 0,
     1, HWS_MEM_PEER_CACHE, HWS_SNOOP_PEER, HWS_TLB_L1_HIT, 0},
    /* load blocked on data (store forward) and on address */
    {__LINE__, ST_BASE | WS, 0x4001, 0x3000, 0, 20,
     DS(0x2, 0x2 | 0x10, 0x2, 0x1, 0x2 | 0x8, 0xc, 0, 0, 0x2 | 0x4, 0), 0, 0, HWS_SF_DATA_SRC, 0,
     20, 0, 1, HWS_MEM_LFB, HWS_SNOOP_NONE, HWS_TLB_L1_HIT, HWS_OPF_BLK_DATA | HWS_OPF_BLK_ADDR},
    /* HSW-ICL store (0x82d0): only L1 hit/miss, weight 0, no latency */
    {__LINE__, ST_BASE | WS, 0x4001, 0x4000, 0, 0,
     DS(0x4, 0x2 | 0x8, 0x1, 0x1, 0x1, 0, 0, 0, 0x1, 0), 0, 0, HWS_SF_DATA_SRC | HWS_SF_WEIGHT,
     HWS_SF_LAT_TOTAL | HWS_SF_LAT_INS, 0, 0, 1, HWS_MEM_L1, HWS_SNOOP_UNKNOWN, HWS_TLB_UNKNOWN, 0},
    /* addr 0 / data_src 0 / phys 0: the kernel had nothing, so nothing is valid */
    {__LINE__, ST_BASE | WS | PERF_SAMPLE_PHYS_ADDR, 0x0001, 0, 0, 0, 0, 0, 0, HWS_SF_IP,
     HWS_SF_ADDR | HWS_SF_PHYS_ADDR | HWS_SF_DATA_SRC | HWS_SF_LAT_TOTAL, 0, 0, 0, 0, 0, 0, 0},
    /* page sizes */
    {__LINE__, ST_BASE | WS | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE, 0x4001,
     0x5000, 0, 33, DS(0x2, 0x2 | 0x20, 0x2, 0x1, 0x2 | 0x8, 2, 0, 0, 0x1, 0), 2 << 20, 4096,
     HWS_SF_DATA_PAGE_SIZE | HWS_SF_CODE_PAGE_SIZE, 0, 33, 0, 1, HWS_MEM_L2, HWS_SNOOP_NONE,
     HWS_TLB_L1_HIT, 0},
    /* I/O and uncached (DSE 0xe / 0xf) */
    {__LINE__, ST_BASE | WS, 0x4001, 0x6000, 0, 1000,
     DS(0x2, 0x2 | 0x1000, 0x1, 0x1, 0x2 | 0x8, 0, 0, 0, 0x1, 0), 0, 0, HWS_SF_DATA_SRC, 0, 1000, 0,
     1, HWS_MEM_IO, HWS_SNOOP_UNKNOWN, HWS_TLB_L1_HIT, 0},
    {__LINE__, ST_BASE | WS, 0x4001, 0x6000, 0, 1000,
     DS(0x2, 0x2 | 0x2000, 0x1, 0x1, 0x2 | 0x8, 0, 0, 0, 0x1, 0), 0, 0, HWS_SF_DATA_SRC, 0, 1000, 0,
     1, HWS_MEM_UNCACHED, HWS_SNOOP_UNKNOWN, HWS_TLB_L1_HIT, 0},
};

static void test_hand(void)
{
	size_t i;

	for (i = 0; i < sizeof(hand) / sizeof(hand[0]); i++) {
		const struct hand_case *c = &hand[i];
		struct hws_perf_event_attr attr = {.type = PERF_TYPE_RAW,
						   .config = 0x1cd,
						   .sample_type = c->sample_type,
						   .precise_ip = 2};
		struct hws_record_sample rec = {
		    .misc = c->misc,
		    .ip = 0xffffffff81000000ULL,
		    .addr = c->addr,
		    .phys_addr = c->phys,
		    .weight = c->weight,
		    .data_src = c->data_src,
		    .data_page_size = c->dpsz,
		    .code_page_size = c->cpsz,
		};
		struct hws_sample s;
		char what[64];

		snprintf(what, sizeof(what), "hand case line %d", c->line);
		T_EQ_U64(what, decode(&attr, &rec, &s), 0);
		T_EQ_U64(what, s.fields & c->fields_set, c->fields_set);
		T_EQ_U64(what, s.fields & c->fields_clear, 0);
		T_EQ_U64(what, s.lat_total, c->lat_total);
		T_EQ_U64(what, s.lat_ins, c->lat_ins);
		T_EQ_U64(what, s.ip_precise, c->precise);
		T_EQ_U64(what, s.cpumode, c->misc & PERF_RECORD_MISC_CPUMODE_MASK);
		if (s.fields & HWS_SF_DATA_SRC) {
			T_EQ_U64(what, s.data_src, c->data_src);
			T_EQ_U64(what, s.mem_level, c->level);
			T_EQ_U64(what, s.snoop, c->snoop);
			T_EQ_U64(what, s.tlb, c->tlb);
			T_EQ_U64(what, s.op_flags & c->opf, c->opf);
		}
		if (c->fields_set & HWS_SF_PHYS_ADDR)
			T_EQ_U64(what, s.phys_addr, c->phys);
		if (c->fields_set & HWS_SF_DATA_PAGE_SIZE) {
			T_EQ_U64(what, s.data_page_size, c->dpsz);
			T_EQ_U64(what, s.code_page_size, c->cpsz);
		}
		T_EQ_STR(what, s.backend, "intel_pebs");
	}
}

static void test_raw_json(void)
{
	struct hws_perf_event_attr attr = {.type = PERF_TYPE_RAW, .sample_type = ST_BASE | WS};
	struct hws_record_sample rec = {
	    .misc = 0x4001,
	    .ip = 1,
	    .addr = 2,
	    .weight = 40ULL | 55ULL << 32 | 7ULL << 48,
	    /* the fixture's first sample: 0x11868100242 */
	    .data_src = 0x11868100242ULL,
	};
	struct hws_strbuf sb;
	struct hws_sample s;

	hws_strbuf__init(&sb, 0);
	T_EQ_U64("decode", decode(&attr, &rec, &s), 0);
	T_EQ_U64("raw_json", be->ops->raw_json(be->priv, NULL, &s, &sb), 0);
	__T("json", sb.buf != NULL);
	if (sb.buf) {
		/* perf script: |OP LOAD|LVL LFB/MAB or LFB/MAB hit|SNP None|TLB L1 or L2 hit|LCK No
		 */
		T_EQ_STR("raw json", sb.buf,
			 "{\"weight\":1970561060175912,\"var1\":40,\"var2\":55,\"var3\":7,"
			 "\"data_src\":\"0x11868100242\",\"data_src_fields\":{"
			 "\"mem_op\":[\"LOAD\"],\"mem_lvl\":[\"HIT\",\"LFB\"],"
			 "\"mem_snoop\":[\"NONE\"],"
			 "\"mem_dtlb\":[\"HIT\",\"L1\",\"L2\"],\"mem_lvl_num\":\"LFB\","
			 "\"mem_blk\":[\"NA\"]}}");
	}
	hws_strbuf__release(&sb);
}

/* The annotated golden bytes: core parse + intel_pebs decode give what perf printed. */
static void test_golden_bytes(void)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	static const struct {
		const uint8_t *rec;
		uint32_t tid, cpu, var1, level;
		uint64_t ip, addr, ds;
	} g[] = {
	    {pebs_skx_rec0, 20144, 28, 225, HWS_MEM_LFB, 0xffffffffa4470d46ULL, 0x55ffba5cda08ULL,
	     0x11868100242ULL},
	    {pebs_skx_rec1, 3216, 0, 71, HWS_MEM_L1, 0xffffffffa423a747ULL, 0xffffc36a5ba4ba40ULL,
	     0x10268100142ULL},
	};
	size_t i;

	for (i = 0; i < 2; i++) {
		struct hws_record_sample rec;
		struct hws_sample s;

		memset(&rec, 0, sizeof(rec));
		T_EQ_U64("golden parse", hws_sample__parse(&ws_attr, g[i].rec, 72, &rec), 0);
		T_EQ_U64("golden parse short", hws_sample__parse(&ws_attr, g[i].rec, 64, &rec),
			 HWS_E_BADREC);
		memset(&rec, 0, sizeof(rec));
		hws_sample__parse(&ws_attr, g[i].rec, 72, &rec);
		T_EQ_U64("golden decode", decode(&ws_attr, &rec, &s), 0);
		T_EQ_U64("golden tid", rec.tid, g[i].tid);
		T_EQ_U64("golden cpu", rec.cpu, g[i].cpu);
		T_EQ_U64("golden ip", s.ip, g[i].ip);
		T_EQ_U64("golden precise", s.ip_precise, 1);
		T_EQ_U64("golden cpumode kernel", s.cpumode, PERF_RECORD_MISC_KERNEL);
		T_EQ_U64("golden addr", s.addr, g[i].addr);
		T_EQ_U64("golden lat", s.lat_total, g[i].var1);
		T_EQ_U64("golden no ins lat", s.fields & HWS_SF_LAT_INS, 0);
		T_EQ_U64("golden data_src", s.data_src, g[i].ds);
		T_EQ_U64("golden level", s.mem_level, g[i].level);
		T_EQ_U64("golden snoop", s.snoop, HWS_SNOOP_NONE);
		T_EQ_U64("golden tlb", s.tlb, HWS_TLB_HIT);
	}
#endif
}

int main(void)
{
	char err[256];

	reg = hws_registry__new();
	if (!reg || hws_registry__add_static(reg, err, sizeof(err)) < 0)
		TEST_SKIP("no static backends");
	be = hws_registry__find(reg, "intel_pebs");
	if (!be)
		TEST_SKIP("intel_pebs backend not linked");

	if (load_golden() == 0) {
		T_EQ_U64("golden samples", nr_gold, 14);
		test_golden_text();
		test_golden_file();
	} else {
		__T("perf_data_converter golden files present", 0);
	}
	test_golden_bytes();
	test_hand();
	test_raw_json();
	hws_registry__delete(reg);
	TEST_END();
}
