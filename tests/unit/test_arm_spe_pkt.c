// SPDX-License-Identifier: MIT
/*
 * Arm SPE packet and record decoder: the published vectors (tests/golden/arm_spe) decode to
 * the text perf prints and to the listed sample values; a stream split at every byte across
 * two chunks (and byte by byte) gives the same samples; bad packets are counted and the
 * decoder resyncs at the next record; gaps drop partial records; MIDR from both
 * AUXTRACE_INFO layouts and HEADER_CPUID selects the data-source table.
 */
#include <hwsample/backend.h>
#include <hwsample/registry.h>

#include "tests.h"
#include "../../backends/arm_spe/spe.h"
#include "../golden/arm_spe/spe_vectors.h"

const struct hws_backend_ops *hws_backend_entry_arm_spe(const struct hws_host *host);

static const struct hws_backend_ops *ops;
static struct spe_priv priv;

#define MAXS 64
struct got {
	struct hws_sample s;
	uint8_t raw[SPE_REC_MAX];
};
static struct got got[MAXS];
static int ngot;
static char rawjson[MAXS][4096];
static const struct hws_file_info *cur_fi;

static int collect(void *ctx, const struct hws_sample *s)
{
	(void)ctx;
	if (ngot < MAXS) {
		struct hws_strbuf sb = HWS_STRBUF_INIT;

		got[ngot].s = *s;
		memcpy(got[ngot].raw, s->raw, s->raw_size);
		got[ngot].s.raw = NULL;
		if (ops->raw_json(&priv, cur_fi, s, &sb) == 0 && sb.buf)
			snprintf(rawjson[ngot], sizeof(rawjson[ngot]), "%s", sb.buf);
		hws_strbuf__release(&sb);
	}
	ngot++;
	return 0;
}

static void chunk_at(struct spe_stream *st, const struct hws_file_info *fi, const uint8_t *d,
		     size_t n, uint64_t off, int gap, uint32_t cpu)
{
	struct hws_aux_chunk c = {.data = d,
				  .size = n,
				  .offset = off,
				  .cpu = cpu,
				  .tid = UINT32_MAX,
				  .gap = (uint32_t)gap};

	cur_fi = fi;
	__T("aux_decode returns 0", ops->aux_decode(&priv, st, fi, &c, collect, NULL) == 0);
}

static struct hws_time_conv tc = {.time_shift = 1, .time_mult = 3, .time_zero = 5};

static struct hws_file_info fi_n1 = {
    .sz = sizeof(struct hws_file_info),
    .cpuid = "0x00000000413fd0c1", /* Neoverse N1 r3p1 */
    .time_conv = &tc,
};

/* every packet of @buf decodes to @desc[] in order */
static void check_descs(const char *what, const uint8_t *buf, size_t len, const char *const *desc,
			size_t ndesc)
{
	size_t i = 0, k = 0;
	char d[160];

	while (i < len) {
		struct spe_pkt p;
		int r = spe_pkt__get(buf + i, len - i, i, &p);

		if (r <= 0) {
			__T(what, 0);
			return;
		}
		spe_pkt__desc(&p, d, sizeof(d));
		if (k < ndesc)
			T_EQ_STR(what, d, desc[k]);
		k++;
		i += (size_t)r;
	}
	T_EQ_U64(what, k, ndesc);
}

static void test_vectors(void)
{
	struct spe_stream *st = calloc(1, sizeof(*st));
	uint8_t rec[256];
	size_t n;

	check_descs("altra", spe_altra_ld, sizeof(spe_altra_ld), spe_altra_ld_desc,
		    sizeof(spe_altra_ld_desc) / sizeof(spe_altra_ld_desc[0]));
	check_descs("windowsperf", spe_wperf_br_st, sizeof(spe_wperf_br_st), spe_wperf_br_st_desc,
		    sizeof(spe_wperf_br_st_desc) / sizeof(spe_wperf_br_st_desc[0]));
	check_descs("spe-parser", spe_parser_pkts, sizeof(spe_parser_pkts), spe_parser_desc,
		    sizeof(spe_parser_desc) / sizeof(spe_parser_desc[0]));

	/* Altra record: prefix a PC so it is a full record, N1 data-source table */
	n = 0;
	memcpy(rec + n, spe_altra_ld + sizeof(spe_altra_ld) - 9, 9); /* the PC packet */
	n += 9;
	memcpy(rec + n, spe_altra_ld, sizeof(spe_altra_ld) - 9);
	n += sizeof(spe_altra_ld) - 9;
	ngot = 0;
	chunk_at(st, &fi_n1, rec, n, 0, 0, 3);
	T_EQ_U64("altra: one record", ngot, 1);
	if (ngot == 1) {
		struct hws_sample *s = &got[0].s;

		T_EQ_U64("altra ip", s->ip, 0xffd4228fcbb688ULL | 0xffULL << 56);
		T_EQ_U64("altra precise", s->ip_precise, 1);
		T_EQ_U64("altra addr", s->addr, 0xffff403ef1d79e50ULL);
		T_EQ_U64("altra phys", s->phys_addr, 0x403f71d79e50ULL);
		T_EQ_U64("altra lat_total", s->lat_total, 501);
		T_EQ_U64("altra lat_issue", s->lat_issue, 337);
		T_EQ_U64("altra lat_xlat", s->lat_xlat, 1);
		T_EQ_U64("altra weight", s->weight, 501);
		T_EQ_U64("altra op", s->op, HWS_OP_LOAD);
		T_EQ_U64("altra cpu", s->cpu, 3);
		/* N1 source 12 = peer cluster: L3 hit, SNOOPX_PEER; TLB access: walker hit */
		T_EQ_U64("altra data_src", s->data_src,
			 0x2ULL | (0x42ULL << 5) | (3ULL << 33) | (2ULL << 38) | (0x22ULL << 26));
		T_EQ_U64("altra level", s->mem_level, HWS_MEM_PEER_CACHE);
		T_EQ_U64("altra snoop", s->snoop, HWS_SNOOP_PEER);
		T_EQ_U64("altra tlb", s->tlb, HWS_TLB_HIT);
		/* ts 7966055570099 with shift 1, mult 3, zero 5 */
		T_EQ_U64("altra time", s->time, 11949083355153ULL);
		__T("altra time valid", s->fields & HWS_SF_TIME);
		T_EQ_U64("altra raw size", s->raw_size, n);
		__T("raw json has the PA packet",
		    strstr(rawjson[0], "\"desc\":\"PA 0x403f71d79e50 ns=1 ch=0 pat=0\"") != NULL);
		__T("raw json names the core", strstr(rawjson[0], "neoverse-n1") != NULL);
		__T("raw json lists LLC-REFILL", strstr(rawjson[0], "\"LLC-REFILL\"") != NULL);
	}

	/* perf_data_converter record */
	memset(st, 0, sizeof(*st));
	ngot = 0;
	chunk_at(st, &fi_n1, spe_pdc_ld, sizeof(spe_pdc_ld), 0, 0, 0);
	T_EQ_U64("pdc: one record", ngot, 1);
	if (ngot == 1) {
		struct hws_sample *s = &got[0].s;

		T_EQ_U64("pdc ip", s->ip, 0xffffba66eda1c2d0ULL);
		T_EQ_U64("pdc cpumode", s->cpumode, PERF_RECORD_MISC_KERNEL);
		T_EQ_U64("pdc tid", s->tid, 0x5f80);
		__T("pdc pid valid", s->fields & HWS_SF_PID);
		T_EQ_U64("pdc addr", s->addr, 0xffff0e3703096b28ULL);
		__T("pdc no phys", !(s->fields & HWS_SF_PHYS_ADDR));
		T_EQ_U64("pdc lat_total", s->lat_total, 12);
		T_EQ_U64("pdc lat_issue", s->lat_issue, 4);
		T_EQ_U64("pdc level", s->mem_level, HWS_MEM_L1);
		T_EQ_U64("pdc data_src", s->data_src,
			 0x2ULL | (0xaULL << 5) | (1ULL << 33) | (0x2ULL << 19) | (0x22ULL << 26));
		__T("pdc raw json context",
		    strstr(rawjson[0], "\"desc\":\"CONTEXT 0x5f80 el2\"") != NULL);
		__T("pdc raw json ts", strstr(rawjson[0], "\"ts\":44731163950") != NULL);
	}

	/* windowsperf: branch record then store record (END-delimited, no TS) */
	memset(st, 0, sizeof(*st));
	ngot = 0;
	chunk_at(st, &fi_n1, spe_wperf_br_st, sizeof(spe_wperf_br_st), 0, 0, 0);
	T_EQ_U64("wperf: two records", ngot, 2);
	if (ngot == 2) {
		T_EQ_U64("br op", got[0].s.op, HWS_OP_BRANCH);
		__T("br cond + not taken",
		    (got[0].s.op_flags & (HWS_OPF_BR_COND | HWS_OPF_BR_NOT_TAKEN)) ==
			(HWS_OPF_BR_COND | HWS_OPF_BR_NOT_TAKEN));
		__T("br not taken => not TAKEN", !(got[0].s.op_flags & HWS_OPF_BR_TAKEN));
		T_EQ_U64("br target", got[0].s.branch_target, 0);
		__T("br target valid", got[0].s.fields & HWS_SF_BRANCH);
		__T("br no data_src", !(got[0].s.fields & HWS_SF_DATA_SRC));
		__T("br no time without TS", !(got[0].s.fields & HWS_SF_TIME));
		T_EQ_U64("st op", got[1].s.op, HWS_OP_STORE);
		T_EQ_U64("st addr", got[1].s.addr, 0xffff800073babd50ULL);
		T_EQ_U64("st phys", got[1].s.phys_addr, 0xf3babd50ULL);
		/* N1 stores: level/snoop not available */
		T_EQ_U64("st data_src", got[1].s.data_src,
			 0x4ULL | (0x1ULL << 5) | (0xfULL << 33) | (0x1ULL << 19));
	}
	free(st);
}

/* A stream of varied records to split. */
static size_t build_stream(uint8_t *b)
{
	size_t n = 0;

	memcpy(b + n, spe_pdc_ld, sizeof(spe_pdc_ld));
	n += sizeof(spe_pdc_ld);
	memcpy(b + n, spe_wperf_br_st, sizeof(spe_wperf_br_st));
	n += sizeof(spe_wperf_br_st);
	/* alignment packet (to 8) then an extended-header record: PC via ext ADDRESS index 0,
	 * ext COUNTER index 0, SVE store, 4-byte EVENTS with HITM (bit 21), END */
	b[n++] = 0x00;
	b[n++] = 0x22; /* ext header h0, align 2^(2+1) = 8 */
	b[n++] = 0x00;
	while (n % 8)
		b[n++] = 0x00;
	const uint8_t ext[] = {
	    0x20, 0xb0, 0x10, 0x32, 0x54, 0x76, 0x98, 0x00, 0x00, 0x00, /* ext ADDR 0: PC el0 */
	    0x20, 0x98, 0x40, 0x00,					/* ext COUNTER 0: 64 */
	    0x49, 0x29,			  /* ST, SVE (v & 0x0a == 0x08) */
	    0x62, 0x04, 0x00, 0x20, 0x00, /* EVENTS 4 B: L1D-ACCESS, CACHE-DATA-MODIFIED */
	    0x4b, 0x0e,			  /* OP_TYPE class 3 (unknown) */
	    0x01,			  /* END */
	};
	memcpy(b + n, ext, sizeof(ext));
	n += sizeof(ext);
	memcpy(b + n, spe_altra_ld + sizeof(spe_altra_ld) - 9, 9);
	n += 9;
	memcpy(b + n, spe_altra_ld, sizeof(spe_altra_ld) - 9);
	n += sizeof(spe_altra_ld) - 9;
	return n;
}

static int same(const struct got *a, const struct got *b)
{
	return !memcmp(&a->s, &b->s, offsetof(struct hws_sample, raw)) &&
	       a->s.raw_size == b->s.raw_size && !memcmp(a->raw, b->raw, a->s.raw_size);
}

static void test_splits(void)
{
	static uint8_t b[1024];
	static struct got ref[MAXS];
	struct spe_stream *st = calloc(1, sizeof(*st));
	size_t n = build_stream(b);
	int nref, bad = 0;

	ngot = 0;
	chunk_at(st, &fi_n1, b, n, 0, 0, 1);
	nref = ngot;
	T_EQ_U64("whole stream: 5 records", nref, 5);
	memcpy(ref, got, sizeof(ref));
	if (nref == 5) {
		const struct hws_sample *s = &ref[3].s;

		T_EQ_U64("ext PC", s->ip, 0x9876543210ULL);
		T_EQ_U64("ext lat", s->lat_total, 64);
		/* the unknown class-3 OP_TYPE after the SVE store replaces the op class */
		T_EQ_U64("last op packet wins", s->op, HWS_OP_OTHER);
		T_EQ_U64("HITM event", s->snoop, HWS_SNOOP_HITM);
		T_EQ_U64("user mode", s->cpumode, PERF_RECORD_MISC_USER);
		__T("raw json raw fallback for unknown op class",
		    strstr(rawjson[3], "\"desc\":\"OP-TYPE 0xe (3)\"") != NULL);
		__T("raw json lists CACHE-DATA-MODIFIED",
		    strstr(rawjson[3], "CACHE-DATA-MODIFIED") != NULL);
	}

	/* every two-chunk split */
	for (size_t k = 0; k <= n; k++) {
		memset(st, 0, sizeof(*st));
		ngot = 0;
		chunk_at(st, &fi_n1, b, k, 0, 0, 1);
		chunk_at(st, &fi_n1, b + k, n - k, k, 0, 1);
		if (ngot != nref) {
			bad++;
			fprintf(stderr, "split at %zu: %d records\n", k, ngot);
			continue;
		}
		for (int i = 0; i < nref; i++)
			if (!same(&got[i], &ref[i])) {
				bad++;
				fprintf(stderr, "split at %zu: record %d differs\n", k, i);
			}
	}
	T_EQ_U64("every 2-chunk split gives identical samples", bad, 0);

	/* byte by byte */
	memset(st, 0, sizeof(*st));
	ngot = 0;
	for (size_t k = 0; k < n; k++)
		chunk_at(st, &fi_n1, b + k, 1, k, 0, 1);
	T_EQ_U64("byte-by-byte count", ngot, nref);
	bad = 0;
	for (int i = 0; i < nref && i < ngot; i++)
		bad += !same(&got[i], &ref[i]);
	T_EQ_U64("byte-by-byte identical", bad, 0);

	/* three chunks at pseudo-random cuts */
	bad = 0;
	for (unsigned int seed = 1; seed < 300; seed++) {
		size_t a = (seed * 7919u) % (n + 1), c = (seed * 104729u) % (n + 1), t;

		if (a > c) {
			t = a;
			a = c;
			c = t;
		}
		memset(st, 0, sizeof(*st));
		ngot = 0;
		chunk_at(st, &fi_n1, b, a, 0, 0, 1);
		chunk_at(st, &fi_n1, b + a, c - a, a, 0, 1);
		chunk_at(st, &fi_n1, b + c, n - c, c, 0, 1);
		if (ngot != nref) {
			bad++;
			fprintf(stderr, "cuts %zu %zu: %d records\n", a, c, ngot);
			continue;
		}
		for (int i = 0; i < nref; i++)
			if (!same(&got[i], &ref[i])) {
				bad++;
				fprintf(stderr, "cuts %zu %zu: record %d differs\n", a, c, i);
			}
	}
	T_EQ_U64("3-chunk splits identical", bad, 0);

	/* flush drops an unfinished record */
	memset(st, 0, sizeof(*st));
	ngot = 0;
	chunk_at(st, &fi_n1, spe_pdc_ld, 20, 0, 0, 1);
	__T("flush ok", ops->aux_flush(&priv, st, &fi_n1, collect, NULL) == 0);
	T_EQ_U64("unfinished record not emitted", ngot, 0);
	T_EQ_U64("unfinished record counted", st->nr_dropped, 1);
	free(st);
}

static void test_bad(void)
{
	static uint8_t b[1024], c[1100];
	struct spe_stream *st = calloc(1, sizeof(*st));
	size_t n = build_stream(b), rec2 = sizeof(spe_pdc_ld);

	/* a bad byte inside record 2 (after its OP_TYPE): records 1, 3.. survive */
	memcpy(c, b, rec2 + 2);
	c[rec2 + 2] = 0x02; /* no packet has this header */
	memcpy(c + rec2 + 3, b + rec2 + 2, n - rec2 - 2);
	ngot = 0;
	chunk_at(st, &fi_n1, c, n + 1, 0, 0, 0);
	T_EQ_U64("bad inside: 4 records", ngot, 4);
	T_EQ_U64("bad inside: counted", st->nr_bad, 1);
	T_EQ_U64("bad inside: record dropped", st->nr_dropped, 1);
	if (ngot == 4)
		T_EQ_U64("record after the broken one is the store", got[1].s.op, HWS_OP_STORE);

	/* bad bytes between records: nothing lost */
	memset(st, 0, sizeof(*st));
	memcpy(c, b, rec2);
	c[rec2] = 0x02;
	c[rec2 + 1] = 0x20; /* extended header ... */
	c[rec2 + 2] = 0x55; /* ... with a second byte that is neither ADDR nor COUNTER */
	memcpy(c + rec2 + 3, b + rec2, n - rec2);
	ngot = 0;
	chunk_at(st, &fi_n1, c, n + 3, 0, 0, 0);
	T_EQ_U64("bad between: 5 records", ngot, 5);
	/* 0x02, 0x20 (bad ext), 0x55 (bad) */
	T_EQ_U64("bad between: counted", st->nr_bad, 3);
	T_EQ_U64("bad between: none dropped", st->nr_dropped, 0);

	/* same, split between the two ext header bytes */
	memset(st, 0, sizeof(*st));
	ngot = 0;
	chunk_at(st, &fi_n1, c, rec2 + 2, 0, 0, 0);
	chunk_at(st, &fi_n1, c + rec2 + 2, n + 1 - rec2, rec2 + 2, 0, 0);
	T_EQ_U64("bad split ext: 5 records", ngot, 5);
	T_EQ_U64("bad split ext: counted", st->nr_bad, 3);

	/* gap: a partial record before it is dropped, the chunk after decodes */
	memset(st, 0, sizeof(*st));
	ngot = 0;
	chunk_at(st, &fi_n1, b, 30, 0, 0, 0);
	chunk_at(st, &fi_n1, b + rec2, n - rec2, 4096, 1, 0);
	T_EQ_U64("gap: records after the gap", ngot, 4);
	T_EQ_U64("gap counted", st->nr_gaps, 1);
	if (ngot == 4)
		T_EQ_U64("gap: first is the branch", got[0].s.op, HWS_OP_BRANCH);

	/* a runaway record (no END for > SPE_REC_MAX bytes) is dropped, then decoding resumes */
	{
		static uint8_t big[SPE_REC_MAX * 2 + 64];
		size_t m = 0;

		while (m < SPE_REC_MAX + 100) {
			big[m++] = 0x98; /* COUNTER 0 */
			big[m++] = 0x01;
			big[m++] = 0x00;
		}
		big[m++] = 0x01; /* END of the runaway */
		memcpy(big + m, spe_pdc_ld, sizeof(spe_pdc_ld));
		m += sizeof(spe_pdc_ld);
		memset(st, 0, sizeof(*st));
		ngot = 0;
		/* in chunks of 1000 so the record must be buffered */
		for (size_t k = 0; k < m; k += 1000)
			chunk_at(st, &fi_n1, big + k, m - k < 1000 ? m - k : 1000, k, 0, 0);
		T_EQ_U64("runaway dropped, next decoded", ngot, 1);
		T_EQ_U64("runaway counted", st->nr_dropped, 1);
	}
	free(st);
}

static void test_midr(void)
{
	struct spe_stream *st = calloc(1, sizeof(*st));
	/* v2 AUXTRACE_INFO priv: version 2, header size 4 (from priv[1]), PMU type, 2 CPUs */
	uint64_t v2[] = {
	    2,
	    4,
	    9,
	    2,
	    0x1010101010101010ULL,
	    0,
	    4,
	    0x410fd0c0,
	    9,
	    1024,
	    0, /* cpu 0: Neoverse N1 */
	    0x1010101010101010ULL,
	    5,
	    3,
	    0x410fd034,
	    9,
	    0, /* cpu 5: Cortex-A53 */
	};
	uint64_t v1[] = {9, 1};
	struct hws_file_info fi = {
	    .sz = sizeof(fi), .auxtrace_priv = v2, .nr_auxtrace_priv = sizeof(v2) / 8};
	struct spe_record r = {0};

	T_EQ_U64("v2 cpu 0", spe_file_midr(&fi, 0), 0x410fd0c0);
	T_EQ_U64("v2 cpu 5", spe_file_midr(&fi, 5), 0x410fd034);
	T_EQ_U64("v2 unknown cpu", spe_file_midr(&fi, 7), 0);
	fi.cpuid = "0x00000000410fd490";
	T_EQ_U64("v2 missing cpu falls back to CPUID", spe_file_midr(&fi, 7), 0x410fd490);
	fi.auxtrace_priv = v1;
	fi.nr_auxtrace_priv = 2;
	T_EQ_U64("v1 uses CPUID", spe_file_midr(&fi, 0), 0x410fd490);
	v2[3] = 50; /* claims more CPUs than the record holds: no out-of-bounds read */
	fi.auxtrace_priv = v2;
	fi.nr_auxtrace_priv = sizeof(v2) / 8;
	T_EQ_U64("v2 short record", spe_file_midr(&fi, 9), 0x410fd490);

	/* the same load reads differently per table */
	r.present = SPE_HAVE_OP | SPE_HAVE_SOURCE | SPE_HAVE_EVENTS;
	r.op_class = SPE_OP_LDST;
	r.op_payload = 0;
	r.source = 0xe;
	r.events = 1ULL << SPE_EV_LLC_REFILL | 1ULL << SPE_EV_LLC_ACCESS;
	T_EQ_U64("N1 DRAM", spe_data_src(&r, 0x410fd0c0),
		 0x2ULL | (0x82ULL << 5) | (0xdULL << 33) | (0x2ULL << 19));
	T_EQ_U64("X925 uses the common table", spe_data_src(&r, 0x410fd850),
		 spe_data_src(&r, 0x410fd0c0));
	T_EQ_U64("A53: generic from events", spe_data_src(&r, 0x410fd034), 0x2ULL | (0x44ULL << 5));
	r.source = 7; /* AmpereOne DDR */
	T_EQ_U64("AmpereOne DDR", spe_data_src(&r, 0xc00fac30),
		 0x2ULL | (0x82ULL << 5) | (0xdULL << 33) | (0x2ULL << 19));
	r.source = 5; /* AmpereOne remote chip cache */
	T_EQ_U64("AmpereOne remote", spe_data_src(&r, 0xc00fac31),
		 0x2ULL | (0x1ULL << 5) | (0xfULL << 33) | (1ULL << 37) | (2ULL << 38));
	r.source = 2; /* undefined on AmpereOne */
	T_EQ_U64("AmpereOne unknown code", spe_data_src(&r, 0xc00fac30), 0x2ULL);
	r.op_class = SPE_OP_BRANCH;
	T_EQ_U64("branch: no data_src", spe_data_src(&r, 0x410fd0c0), 0);

	/* HiSilicon HIP12: codes that say "modified" (HITM), normalized for c2c */
	r.op_class = SPE_OP_LDST;
	r.events = 0;
	{
		static const struct {
			int line;
			uint64_t code;
			unsigned int level, snoop;
		} hip[] = {
		    {__LINE__, 18, HWS_MEM_L1, HWS_SNOOP_NONE},
		    {__LINE__, 17, HWS_MEM_L2, HWS_SNOOP_HITM},
		    {__LINE__, 1, HWS_MEM_PEER_CACHE, HWS_SNOOP_HITM},
		    {__LINE__, 3, HWS_MEM_L3, HWS_SNOOP_HITM},
		    {__LINE__, 7, HWS_MEM_REMOTE_CACHE, HWS_SNOOP_HITM},
		    {__LINE__, 8, HWS_MEM_LOCAL_DRAM, HWS_SNOOP_NONE},
		    {__LINE__, 9, HWS_MEM_REMOTE_DRAM, HWS_SNOOP_NONE},
		    {__LINE__, 13, HWS_MEM_IO, HWS_SNOOP_UNKNOWN},
		};

		for (size_t i = 0; i < sizeof(hip) / sizeof(hip[0]); i++) {
			struct hws_sample s = {.sz = sizeof(s)};
			char what[64];

			r.source = hip[i].code;
			spe_record__to_sample(&r, 0x481fd061, &s, hws_host__get());
			snprintf(what, sizeof(what), "HIP12 code %" PRIu64 " (line %d)",
				 hip[i].code, hip[i].line);
			T_EQ_U64(what, s.mem_level, hip[i].level);
			T_EQ_U64(what, s.snoop, hip[i].snoop);
		}
	}

	/* per-CPU decode through aux_decode: cpu 0 (N1) vs cpu 5 (A53) */
	fi.cpuid = NULL;
	v2[3] = 2;
	ngot = 0;
	chunk_at(st, &fi, spe_pdc_ld, sizeof(spe_pdc_ld), 0, 0, 0);
	memset(st, 0, sizeof(*st));
	chunk_at(st, &fi, spe_pdc_ld, sizeof(spe_pdc_ld), 0, 0, 5);
	T_EQ_U64("two samples", ngot, 2);
	if (ngot == 2) {
		T_EQ_U64("cpu0 N1: L1 hit from DATA_SOURCE 0", got[0].s.mem_level, HWS_MEM_L1);
		/* A53: generic from EVENTS (L1D access, no refill): L1 hit */
		T_EQ_U64("cpu5 A53 data_src", got[1].s.data_src,
			 0x2ULL | (0xaULL << 5) | (0x22ULL << 26));
	}
	free(st);
}

static void test_align_and_pad(void)
{
	struct spe_pkt p;
	uint8_t a[32] = {0x23, 0x00}; /* align 16 */

	T_EQ_U64("align at 0: 16 bytes", spe_pkt__get(a, 32, 0, &p), 16);
	T_EQ_U64("align type", p.type, SPE_PKT_ALIGN);
	T_EQ_U64("align at 5: to 16", spe_pkt__get(a, 32, 5, &p), 11);
	T_EQ_U64("align needs its bytes", spe_pkt__get(a, 8, 0, &p), HWS_E_NEED_MORE);
	T_EQ_U64("ext header alone needs more", spe_pkt__get(a, 1, 0, &p), HWS_E_NEED_MORE);
	a[0] = 0x71;
	T_EQ_U64("TS needs 9", spe_pkt__get(a, 8, 0, &p), HWS_E_NEED_MORE);
	a[0] = 0x72; /* EVENTS with 8-byte payload */
	T_EQ_U64("8-byte EVENTS", spe_pkt__get(a, 32, 0, &p), 9);
	a[0] = 0x53; /* DATA_SOURCE 2 bytes */
	T_EQ_U64("2-byte DATA_SOURCE", spe_pkt__get(a, 32, 0, &p), 3);
	for (unsigned int h = 0; h < 256; h++) {
		uint8_t x[20] = {(uint8_t)h, 0xb0};
		int r = spe_pkt__get(x, sizeof(x), 0, &p);

		if (r > 20 || r == 0)
			__T("packet length bound", 0);
	}
}

static void test_time_conv(void)
{
	/* perf's conversion, worked by hand: short (wrapping) counters are extended from
	 * time_cycles within time_mask, then time_zero + cyc * mult >> shift */
	struct hws_time_conv t = {.time_shift = 0,
				  .time_mult = 2,
				  .time_zero = 10,
				  .time_cycles = 0x10000,
				  .time_mask = 0xffff,
				  .cap_user_time_short = 1};

	T_EQ_U64("short counter wrapped", spe_tsc_to_perf_time(0x2345, &t), 10 + 0x12345 * 2);
	t.cap_user_time_short = 0;
	T_EQ_U64("full counter", spe_tsc_to_perf_time(0x2345, &t), 10 + 0x2345 * 2);
	t.time_shift = 4;
	t.time_mult = 3;
	/* quot 0x234 * 3 + (rem 5 * 3) >> 4 = 1692 + 0 */
	T_EQ_U64("shifted", spe_tsc_to_perf_time(0x2345, &t), 10 + 0x234 * 3 + ((5 * 3) >> 4));
}

/*
 * The fast path (whole packets with >= 16 bytes left, one table lookup each) against the
 * generic decoder (every packet near a chunk end, so byte-by-byte chunks use only it):
 * samples and counters must match on a stream of edge cases, and the values must be right.
 */
static void test_fast_edges(void)
{
	static uint8_t b[2048];
	static struct got ref[MAXS];
	struct spe_stream *st = calloc(1, sizeof(*st));
	static const uint8_t recs[] = {
	    /* 0: PC, CONTEXT el2, LD, two EVENTS packets (TLB access | HITM), ADDRESS index 5
	     * and COUNTER index 3 (kept nowhere), ext ADDRESS index 8 (kept nowhere), a PAD
	     * inside, VA, TS */
	    0xb0,
	    0x00,
	    0x10,
	    0x40,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00, /* PC el0 0x401000 */
	    0x65,
	    0x34,
	    0x12,
	    0x00,
	    0x00, /* CONTEXT el2 0x1234 */
	    0x49,
	    0x00, /* LD GP-REG */
	    0x42,
	    0x10, /* EVENTS 1 B: TLB access */
	    0x62,
	    0x00,
	    0x00,
	    0x20,
	    0x00, /* EVENTS 4 B: HITM */
	    0xb5,
	    1,
	    2,
	    3,
	    4,
	    5,
	    6,
	    7,
	    8, /* ADDRESS index 5 */
	    0x9b,
	    0x99,
	    0x00, /* COUNTER index 3 */
	    0x21,
	    0xb0,
	    9,
	    9,
	    9,
	    9,
	    9,
	    9,
	    9,
	    9,	  /* ext ADDRESS index 8 */
	    0x00, /* PAD */
	    0xb2,
	    0x80,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00, /* VA 0x80 */
	    0x99,
	    0x07,
	    0x00, /* issue latency 7 */
	    0x71,
	    0x10,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00, /* TS 16 */
	    /* between records: PADs, a bad byte */
	    0x00,
	    0x00,
	    0x02,
	    0x00,
	    /* 1: load with an 8-byte DATA_SOURCE too large for the memo key, END */
	    0xb0,
	    0x00,
	    0x20,
	    0x40,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00, /* PC 0x402000 */
	    0x49,
	    0x00, /* LD */
	    0x73,
	    0x40,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0, /* DATA_SOURCE 64 */
	    0x98,
	    0x21,
	    0x00, /* total latency 33 */
	    0x01, /* END */
	    /* 2: a bad byte inside: dropped up to its END */
	    0xb0,
	    0x00,
	    0x30,
	    0x40,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x02,
	    0x48,
	    0x00,
	    0x01,
	    /* 3: N1 DRAM load (source 0xe), then the same source again in record 4 (memo) */
	    0xb0,
	    0x00,
	    0x40,
	    0x40,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x49,
	    0x00,
	    0x43,
	    0x0e,
	    0x01,
	    0xb0,
	    0x00,
	    0x50,
	    0x40,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x49,
	    0x00,
	    0x43,
	    0x0e,
	    0x01,
	    /* 5: branch, 2-byte EVENTS with MISPRED, target */
	    0xb0,
	    0x00,
	    0x60,
	    0x40,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x4a,
	    0x01,
	    0x52,
	    0x80,
	    0x00,
	    0xb1,
	    0x00,
	    0x70,
	    0x40,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	};
	size_t n = 0;
	uint64_t bad_ref, drop_ref;
	int nref, bad = 0;

	memcpy(b, recs, sizeof(recs));
	n = sizeof(recs);
	memset(b + n, 0, 32); /* trailing PADs: every record is on the fast path */
	n += 32;

	ngot = 0;
	chunk_at(st, &fi_n1, b, n, 0, 0, 2);
	nref = ngot;
	bad_ref = st->nr_bad;
	drop_ref = st->nr_dropped;
	memcpy(ref, got, sizeof(ref));
	T_EQ_U64("fast: records", nref, 5);
	T_EQ_U64("fast: bad bytes", bad_ref, 2);
	T_EQ_U64("fast: dropped", drop_ref, 1);
	if (nref == 5) {
		T_EQ_U64("r0 ip (ADDRESS 5 and ext 8 ignored)", ref[0].s.ip, 0x401000);
		T_EQ_U64("r0 addr", ref[0].s.addr, 0x80);
		T_EQ_U64("r0 tid from CONTEXT", ref[0].s.tid, 0x1234);
		T_EQ_U64("r0 EVENTS ORed: HITM", ref[0].s.snoop, HWS_SNOOP_HITM);
		T_EQ_U64("r0 EVENTS ORed: TLB hit", ref[0].s.tlb, HWS_TLB_HIT);
		T_EQ_U64("r0 issue", ref[0].s.lat_issue, 7);
		__T("r0 no total latency", !(ref[0].s.fields & HWS_SF_LAT_TOTAL));
		__T("r0 time", ref[0].s.fields & HWS_SF_TIME);
		T_EQ_U64("r1 lat", ref[1].s.lat_total, 33);
		/* N1 table, code 64 is no common code: a load with no level */
		T_EQ_U64("r1 data_src", ref[1].s.data_src, 0x2ULL);
		T_EQ_U64("r1 level", ref[1].s.mem_level, HWS_MEM_UNKNOWN);
		__T("r1 no time (END)", !(ref[1].s.fields & HWS_SF_TIME));
		T_EQ_U64("r3 DRAM", ref[2].s.mem_level, HWS_MEM_LOCAL_DRAM);
		T_EQ_U64("r4 DRAM (memoized)", ref[3].s.mem_level, HWS_MEM_LOCAL_DRAM);
		T_EQ_U64("r4 data_src", ref[3].s.data_src, ref[2].s.data_src);
		T_EQ_U64("r5 branch", ref[4].s.op, HWS_OP_BRANCH);
		__T("r5 mispred + taken",
		    (ref[4].s.op_flags & (HWS_OPF_BR_MISPRED | HWS_OPF_BR_TAKEN)) ==
			(HWS_OPF_BR_MISPRED | HWS_OPF_BR_TAKEN));
		T_EQ_U64("r5 target", ref[4].s.branch_target, 0x407000);
		__T("r5 no data_src", !(ref[4].s.fields & HWS_SF_DATA_SRC));
	}

	/* generic path only (1-byte chunks) and mixed (7-byte chunks): identical */
	for (size_t step = 1; step <= 7; step += 6) {
		memset(st, 0, sizeof(*st));
		ngot = 0;
		for (size_t k = 0; k < n; k += step)
			chunk_at(st, &fi_n1, b + k, n - k < step ? n - k : step, k, 0, 2);
		T_EQ_U64("chunked: records", ngot, nref);
		T_EQ_U64("chunked: bad bytes", st->nr_bad, bad_ref);
		T_EQ_U64("chunked: dropped", st->nr_dropped, drop_ref);
		for (int i = 0; i < nref && i < ngot; i++)
			bad += !same(&got[i], &ref[i]);
	}
	T_EQ_U64("fast == generic", bad, 0);
	free(st);
}

int main(void)
{
	ops = hws_backend_entry_arm_spe(hws_host__get());
	__T("ops", ops && ops->aux_decode && ops->raw_json);
	if (!ops)
		TEST_END();
	memset(&priv, 0, sizeof(priv));
	__T("init", ops->init(&priv, hws_host__get()) == 0);
	__T("stream size", ops->aux_stream_size >= sizeof(struct spe_stream));
	test_vectors();
	test_splits();
	test_bad();
	test_midr();
	test_align_and_pad();
	test_time_conv();
	test_fast_edges();
	TEST_END();
}
