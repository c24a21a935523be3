// SPDX-License-Identifier: MIT
/*
 * gen_amd_ibs: write a perf.data file of synthetic AMD IBS samples with random but valid
 * register contents, as a given Zen generation's kernel would record them, for the
 * differential test against `perf report -D` (tests/e2e/amd_ibs_vs_perf.sh) and the decode
 * benchmark (scripts/bench-ibs).
 *
 *   gen_amd_ibs -o FILE [-g zen2|zen3|zen4|zen5] [-n SAMPLES] [-s SEED] [--op-only]
 *               [--invalid PERCENT] [--60secs FIXTURE_DIR]
 *
 * The file has two events, ibs_fetch (type 8) and ibs_op (type 9), sample_type
 * IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW, and the headers perf needs to decode IBS:
 * ARCH x86_64, CPUID "AuthenticAMD,family,model,stepping", PMU_MAPPINGS naming
 * ibs_op/ibs_fetch, PMU_CAPS (zen4_ibs_extensions on Zen 4/5; dtlb_pgsize, ldlat on Zen 5).
 * RAW = u32 caps + the MSRs in the kernel's order, sized by the caps (Linux
 * arch/x86/events/amd/ibs.c, perf_ibs_handle_irq()).
 * Times strictly increase so perf's time-ordered output matches file order. Fetch samples
 * never have a zero address (erratum #1197 would drop them). --invalid makes that share of
 * samples have Val or En clear (perf prints no IBS lines for them, hwsample skips them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/perfdata.h>

#define TYPE_FETCH 8
#define TYPE_OP	   9
#define ID_FETCH   101
#define ID_OP	   102

struct gen {
	const char *name;
	unsigned int family, model;
	uint32_t caps;
	int zen4, zen5;
};

static const struct gen gens[] = {
    {"zen2", 0x17, 0x31, 0x3ff, 0, 0},
    {"zen3", 0x19, 0x01, 0x3ff, 0, 0},
    {"zen4", 0x19, 0x11, 0xfff, 1, 0}, /* with OPDATA4 and ZEN4 */
    {"zen5", 0x1a, 0x11, 0xfff | (1U << 12) | (1U << 19), 1, 1},
};

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* A user or kernel canonical address. */
static uint64_t rnd_addr(void)
{
	uint64_t a = rnd() & 0x00007ffffffffff0ULL;

	if (rnd() % 4 == 0)
		a |= 0xffff800000000000ULL;
	return a ? a : 0x401000;
}

struct buf {
	uint8_t b[1 << 16];
	size_t n;
};

static int flush(struct hws_perf_writer *w, struct buf *b)
{
	int ret = b->n ? hws_perf_writer__write(w, b->b, b->n) : 0;

	b->n = 0;
	return ret;
}

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

/* perf's string: u32 len (NUL included, padded to 64), bytes */
static size_t feat_str(uint8_t *p, const char *s)
{
	uint32_t len = (uint32_t)strlen(s) + 1;

	len = (len + 63) & ~63U;
	memcpy(p, &len, 4);
	memset(p + 4, 0, len);
	memcpy(p + 4, s, strlen(s));
	return 4 + len;
}

static int write_features(struct hws_perf_writer *w, const struct gen *g)
{
	uint8_t f[4096];
	char cpuid[64];
	size_t n = 0;
	uint32_t v;
	int ret = 0;

	snprintf(cpuid, sizeof(cpuid), "AuthenticAMD,%u,%u,1", g->family, g->model);
	ret |= hws_perf_writer__set_string(w, HWS_FEAT_HOSTNAME, "ibs-gen");
	ret |= hws_perf_writer__set_string(w, HWS_FEAT_OSRELEASE, "6.8.0-ibs-gen");
	ret |= hws_perf_writer__set_string(w, HWS_FEAT_ARCH, "x86_64");
	ret |= hws_perf_writer__set_string(w, HWS_FEAT_CPUID, cpuid);
	ret |= hws_perf_writer__set_string(w, HWS_FEAT_CPUDESC, "AMD EPYC (synthetic)");
	v = 64;
	memcpy(f, &v, 4);
	memcpy(f + 4, &v, 4);
	ret |= hws_perf_writer__set_feature(w, HWS_FEAT_NRCPUS, f, 8);

	/* PMU_MAPPINGS: u32 nr; {u32 type; string name} */
	v = 5;
	memcpy(f, &v, 4);
	n = 4;
	{
		static const struct {
			uint32_t type;
			const char *name;
		} m[] = {
		    {4, "cpu"},		 {1, "software"},
		    {2, "tracepoint"},	 {TYPE_FETCH, "ibs_fetch"},
		    {TYPE_OP, "ibs_op"},
		};
		for (size_t i = 0; i < 5; i++) {
			memcpy(f + n, &m[i].type, 4);
			n += 4;
			n += feat_str(f + n, m[i].name);
		}
	}
	ret |= hws_perf_writer__set_feature(w, HWS_FEAT_PMU_MAPPINGS, f, n);

	/* PMU_CAPS: u32 nr_pmu; {u32 nr_caps; {string name; string value}; string pmu} */
	if (g->zen4) {
		const char *pmus[2] = {"ibs_op", "ibs_fetch"};

		v = 2;
		memcpy(f, &v, 4);
		n = 4;
		for (int i = 0; i < 2; i++) {
			int op = i == 0;

			v = op && g->zen5 ? 3 : 1;
			memcpy(f + n, &v, 4);
			n += 4;
			n += feat_str(f + n, "zen4_ibs_extensions");
			n += feat_str(f + n, "1");
			if (op && g->zen5) {
				n += feat_str(f + n, "dtlb_pgsize");
				n += feat_str(f + n, "1");
				n += feat_str(f + n, "ldlat");
				n += feat_str(f + n, "1");
			}
			n += feat_str(f + n, pmus[i]);
		}
		ret |= hws_perf_writer__set_feature(w, 31 /* PMU_CAPS */, f, n);
	}
	return ret;
}

static void sample(struct buf *b, int op, const struct gen *g, uint64_t t, int invalid)
{
	uint64_t regs[9];
	uint32_t nr, pid = 1000 + (uint32_t)(rnd() % 8);
	uint64_t period;

	if (op) {
		uint64_t ctl = rnd() & 0x07ffffff07ffffffULL & ~(1ULL << 16);

		if (g->zen4 && rnd() % 2)
			ctl |= 1ULL << 16; /* L3MissOnly */
		ctl |= 3ULL << 17;	   /* En, Val */
		if (invalid)
			ctl &= ~(1ULL << (17 + rnd() % 2));
		regs[0] = ctl;
		regs[1] = rnd_addr();
		/* IbsOpData: bits 0-31, 34-40; RipInvalid rarely */
		regs[2] = rnd() & 0x000001bcffffffffULL;
		if (rnd() % 16 == 0)
			regs[2] |= 1ULL << 38;
		regs[3] = rnd() & 0x3ff;      /* IbsOpData2 */
		regs[4] = rnd() & ~0x1e00ULL; /* IbsOpData3 (bits 9-12 reserved) */
		regs[5] = rnd_addr();
		regs[6] = rnd() & 0x000fffffffffffffULL;
		nr = 7;
		regs[nr++] = rnd() % 4 ? rnd_addr() : 0; /* IbsBrTarget */
		if (g->caps & (1U << 10))
			regs[nr++] = rnd(); /* IbsOpData4 */
		period = ((ctl & 0xffff) | ((ctl >> 20) & 0x7f) << 16) << 4;
	} else {
		uint64_t ctl = rnd() & 0x3fffffffffffffffULL;

		ctl |= 3ULL << 48; /* En, Val */
		if (!g->zen4)
			ctl &= ~(7ULL << 59); /* L3MissOnly, OcMiss, L3Miss are Zen 4 bits */
		if (invalid)
			ctl &= ~(1ULL << (48 + rnd() % 2));
		regs[0] = ctl;
		regs[1] = rnd_addr();
		regs[2] = rnd() & 0x000fffffffffffffULL;
		nr = 3;
		regs[nr++] = rnd() & 0xffff; /* IcIbsExtdCtl (caps FETCHCTLEXTD) */
		period = (ctl & 0xffff) << 4;
	}
	/* header */
	{
		uint32_t type = PERF_RECORD_SAMPLE;
		uint16_t misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP;
		uint16_t size = (uint16_t)(8 + 8 * 6 + 4 + 4 + 8 * nr);

		if (regs[1] >> 63)
			misc = PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_EXACT_IP;
		put32(b, type);
		put(b, &misc, 2);
		put(b, &size, 2);
	}
	put64(b, op ? ID_OP : ID_FETCH);  /* IDENTIFIER */
	put64(b, regs[1]);		  /* IP */
	put32(b, pid);			  /* PID */
	put32(b, pid);			  /* TID */
	put64(b, t);			  /* TIME */
	put32(b, (uint32_t)(rnd() % 64)); /* CPU */
	put32(b, 0);
	put64(b, period ? period : 16); /* PERIOD */
	put32(b, 4 + 8 * nr);		/* RAW size */
	put32(b, g->caps);		/* caps */
	put(b, regs, 8 * nr);
}

/*
 * --60secs DIR: the two real records of tests/fixtures/60secs (ibs_fetch id 2024, ibs_op
 * id 2120; sample_type IP|TID|TIME|ID|CPU|PERIOD|RAW, as recorded) in a file perf can decode.
 */
static int write_60secs(struct hws_perf_writer *w, const struct gen *g, const char *dir)
{
	static const char *const files[2] = {"ibs_fetch_sample.bin", "ibs_op_sample.bin"};
	static const uint32_t types[2] = {TYPE_FETCH, TYPE_OP};
	static const uint64_t ids[2] = {2024, 2120};
	static const char *const names[2] = {"ibs_fetch//pp", "ibs_op//pp"};
	struct hws_perf_event_attr a;
	uint8_t rec[512];
	char path[4096];
	int ret = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	a.freq = 1;
	a.sample_freq = 4000;
	a.precise_ip = 2;
	for (int i = 0; i < 2; i++) {
		a.type = types[i];
		ret |= hws_perf_writer__add_attr(w, &a, names[i], &ids[i], 1) < 0;
	}
	ret |= write_features(w, g) != 0;
	for (int i = 0; i < 2 && !ret; i++) {
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		f = fopen(path, "rb");
		if (!f) {
			fprintf(stderr, "gen_amd_ibs: %s: %s\n", path, strerror(errno));
			ret = 1;
			break;
		}
		n = fread(rec, 1, sizeof(rec), f);
		fclose(f);
		ret |= n < 8 || hws_perf_writer__write(w, rec, n) != 0;
	}
	if (hws_perf_writer__close(w) || ret) {
		fprintf(stderr, "gen_amd_ibs: writing the 60secs records failed\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *gname = "zen4", *real = NULL;
	const struct gen *g = NULL;
	unsigned long long n = 1000, seed = 1, invalid = 0;
	int op_only = 0, ret;
	struct hws_perf_writer *w;
	struct hws_perf_event_attr a;
	static struct buf b;
	uint64_t id, t = 1000000000ULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-g") && i + 1 < argc)
			gname = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--invalid") && i + 1 < argc)
			invalid = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--op-only"))
			op_only = 1;
		else if (!strcmp(argv[i], "--60secs") && i + 1 < argc)
			real = argv[++i];
		else {
			fprintf(stderr,
				"usage: %s -o FILE [-g zen2|zen3|zen4|zen5] [-n N] [-s SEED] "
				"[--op-only] [--invalid PERCENT] [--60secs FIXTURE_DIR]\n",
				argv[0]);
			return 2;
		}
	}
	for (size_t i = 0; i < sizeof(gens) / sizeof(gens[0]); i++)
		if (!strcmp(gens[i].name, gname))
			g = &gens[i];
	if (!out || !g) {
		fprintf(stderr, "gen_amd_ibs: need -o FILE and a known -g\n");
		return 2;
	}
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1 + (uint64_t)(g - gens) * 0x1000193;

	w = hws_perf_writer__new(out, false);
	if (!w) {
		fprintf(stderr, "gen_amd_ibs: %s: %s\n", out, strerror(errno));
		return 1;
	}
	if (real)
		return write_60secs(w, g, real);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	a.sample_period = 0x10000;
	a.sample_id_all = 1;
	a.type = TYPE_FETCH;
	id = ID_FETCH;
	ret = hws_perf_writer__add_attr(w, &a, "ibs_fetch//", &id, 1) < 0;
	a.type = TYPE_OP;
	id = ID_OP;
	ret |= hws_perf_writer__add_attr(w, &a, "ibs_op//", &id, 1) < 0;
	ret |= write_features(w, g) != 0;
	for (unsigned long long i = 0; i < n && !ret; i++) {
		int op = op_only || rnd() % 3 != 0;

		t += 1 + rnd() % 1000;
		sample(&b, op, g, t, invalid && rnd() % 100 < invalid);
		if (i % 4096 == 4095) { /* FINISHED_ROUND lets perf flush its queue */
			struct perf_event_header h = {68, 0, 8};

			put(&b, &h, 8);
		}
		if (b.n > sizeof(b.b) - 512)
			ret = flush(w, &b) != 0;
	}
	if (!ret)
		ret = flush(w, &b) != 0;
	if (hws_perf_writer__close(w) || ret) {
		fprintf(stderr, "gen_amd_ibs: writing %s failed\n", out);
		return 1;
	}
	return 0;
}
