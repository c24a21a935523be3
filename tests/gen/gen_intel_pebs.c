// SPDX-License-Identifier: MIT
/*
 * gen_intel_pebs: write a perf.data file of synthetic Intel PEBS samples as the kernel
 * would record them for `perf mem record` / `perf c2c record`, with random but realistic
 * DATA_SRC / WEIGHT(_STRUCT) / PHYS_ADDR values, for the differential test against perf
 * (tests/e2e/intel_pebs_vs_perf.sh) and the decode benchmark (scripts/bench-pebs).
 *
 *   gen_intel_pebs -o FILE [-n SAMPLES] [-s SEED] [-m skl|spr|adl] [--plain-weight]
 *                  [--page-sizes] [--garbage PERCENT]
 *
 * Events (PMU "cpu", type 4): cpu/mem-loads,ldlat=30/P (0x1cd) and cpu/mem-stores/P
 * (skl: 0x82d0, spr/adl: 0x2cd), sample_type IDENTIFIER|IP|TID|TIME|ADDR|CPU|PERIOD|
 * DATA_SRC|PHYS_ADDR and WEIGHT_STRUCT (or WEIGHT with --plain-weight, as before Linux
 * 5.12), plus DATA_PAGE_SIZE|CODE_PAGE_SIZE with --page-sizes. Headers: ARCH x86_64,
 * CPUID GenuineIntel, NRCPUS, PMU_MAPPINGS.
 *
 * data_src is built like Linux 6.1 arch/x86/events/intel/ds.c does: the SNB+ DSE table with the
 * SKL overrides (skl), plus BLK bits (spr, adl), plus the Gracemont table for some samples
 * (adl); TLB/lock from the status bits; stores as HSW (L1 hit/miss) or SPR store latency.
 * Weights: var1 = load latency; var2 = instruction latency on spr/adl; var3 = 0.
 * --garbage makes that share of samples carry random 46-bit data_src values (perf still
 * prints them; only the raw value and the bit-level fields are comparable then).
 * Times strictly increase so perf's time-ordered output matches file order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/perfdata.h>

#define ID_LOAD	 201
#define ID_STORE 202

/* uapi PERF_MEM_* helpers (values of Linux include/uapi/linux/perf_event.h) */
#define S(v, sh)  ((uint64_t)(v) << (sh))
#define OP(x)	  S(x, 0)
#define LVL(x)	  S(x, 5)
#define SNOOP(x)  S(x, 19)
#define LOCK(x)	  S(x, 24)
#define TLB(x)	  S(x, 26)
#define LNUM(x)	  S(x, 33)
#define REM	  S(1, 37)
#define SNOOPX(x) S(x, 38)
#define BLK(x)	  S(x, 40)

enum { O_NA = 1, O_LOAD = 2, O_STORE = 4 };
enum {
	L_NA = 1,
	L_HIT = 2,
	L_MISS = 4,
	L_L1 = 8,
	L_LFB = 0x10,
	L_L2 = 0x20,
	L_L3 = 0x40,
	L_LOC_RAM = 0x80,
	L_REM_RAM1 = 0x100,
	L_REM_CCE1 = 0x400,
	L_IO = 0x1000,
	L_UNC = 0x2000
};
enum { SN_NA = 1, SN_NONE = 2, SN_HIT = 4, SN_MISS = 8, SN_HITM = 0x10 };
enum { N_L1 = 1, N_L2 = 2, N_L3 = 3, N_L4 = 4, N_ANY = 0xb, N_LFB = 0xc, N_RAM = 0xd, N_NA = 0xf };

#define OP_LH (OP(O_LOAD) | LVL(L_HIT))

static uint64_t table[16];
static uint64_t grt_table[16];

static void build_tables(void)
{
	static const uint64_t base[16] = {
	    OP(O_LOAD) | LVL(L_MISS) | LNUM(N_L3) | SNOOP(SN_NA),
	    OP_LH | LVL(L_L1) | LNUM(N_L1) | SNOOP(SN_NONE),
	    OP_LH | LVL(L_LFB) | LNUM(N_LFB) | SNOOP(SN_NONE),
	    OP_LH | LVL(L_L2) | LNUM(N_L2) | SNOOP(SN_NONE),
	    OP_LH | LVL(L_L3) | LNUM(N_L3) | SNOOP(SN_NONE),
	    OP_LH | LVL(L_L3) | LNUM(N_L3) | SNOOP(SN_MISS),
	    OP_LH | LVL(L_L3) | LNUM(N_L3) | SNOOP(SN_HIT),
	    OP_LH | LVL(L_L3) | LNUM(N_L3) | SNOOP(SN_HITM),
	    OP_LH | LVL(L_REM_CCE1) | REM | LNUM(N_L3) | SNOOP(SN_HIT),
	    OP_LH | LVL(L_REM_CCE1) | REM | LNUM(N_L3) | SNOOP(SN_HITM),
	    OP_LH | LVL(L_LOC_RAM) | LNUM(N_RAM) | SNOOP(SN_HIT),
	    OP_LH | LVL(L_REM_RAM1) | REM | LNUM(N_L3) | SNOOP(SN_HIT),
	    OP_LH | LVL(L_LOC_RAM) | LNUM(N_RAM) | SNOOP(SN_NONE) | SNOOP(SN_MISS),
	    OP_LH | LVL(L_REM_RAM1) | LNUM(N_RAM) | REM | SNOOP(SN_NONE) | SNOOP(SN_MISS),
	    OP_LH | LVL(L_IO) | LNUM(N_NA) | SNOOP(SN_NONE),
	    OP_LH | LVL(L_UNC) | LNUM(N_NA) | SNOOP(SN_NONE),
	};

	memcpy(table, base, sizeof(base));
	/* SKL+ overrides (no PMEM) */
	table[0x8] = OP_LH | LNUM(N_L4) | SNOOP(SN_HIT);
	table[0x9] = OP_LH | LNUM(N_L4) | REM | SNOOP(SN_HIT);
	table[0xb] = OP_LH | LNUM(N_RAM) | REM | SNOOP(SN_NONE);
	table[0xc] = OP_LH | LNUM(N_ANY) | REM | SNOOPX(1);
	table[0xd] = OP_LH | LNUM(N_ANY) | REM | SNOOP(SN_HITM);
	/* Gracemont */
	memcpy(grt_table, base, sizeof(base));
	grt_table[0x5] = OP_LH | LVL(L_L3) | LNUM(N_L3) | SNOOP(SN_HIT);
	grt_table[0x6] = OP_LH | LVL(L_L3) | LNUM(N_L3) | SNOOP(SN_HITM);
	grt_table[0x8] = OP_LH | LVL(L_L3) | LNUM(N_L3) | SNOOPX(1);
}

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

static uint64_t rnd_addr(int kernel)
{
	if (kernel)
		return 0xffff800000000000ULL | (rnd() & 0x00007ffffffffff8ULL);
	return (rnd() & 0x00007ffffffffff8ULL) | 0x1000;
}

struct buf {
	uint8_t b[1 << 20];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t len)
{
	memcpy(b->b + b->n, p, len);
	b->n += len;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static int flush(struct hws_perf_writer *w, struct buf *b)
{
	int ret = b->n ? hws_perf_writer__write(w, b->b, b->n) : 0;

	b->n = 0;
	return ret;
}

static size_t feat_str(uint8_t *p, const char *s)
{
	uint32_t len = (uint32_t)strlen(s) + 1;

	len = (len + 63) & ~63U;
	memcpy(p, &len, 4);
	memset(p + 4, 0, len);
	memcpy(p + 4, s, strlen(s));
	return 4 + len;
}

static int write_features(struct hws_perf_writer *w, const char *model)
{
	static const struct {
		uint32_t type;
		const char *name;
	} m[] = {{4, "cpu"}, {1, "software"}, {2, "tracepoint"}, {5, "breakpoint"}};
	uint8_t f[2048];
	size_t n;
	uint32_t v;
	int ret = 0;

	ret |= hws_perf_writer__set_string(w, HWS_FEAT_HOSTNAME, "pebs-gen");
	ret |= hws_perf_writer__set_string(w, HWS_FEAT_OSRELEASE, "6.1.0-pebs-gen");
	ret |= hws_perf_writer__set_string(w, HWS_FEAT_ARCH, "x86_64");
	ret |= hws_perf_writer__set_string(w, HWS_FEAT_CPUID,
					   !strcmp(model, "skl")   ? "GenuineIntel,6,85,4"
					   : !strcmp(model, "spr") ? "GenuineIntel,6,143,8"
								   : "GenuineIntel,6,151,2");
	ret |= hws_perf_writer__set_string(w, HWS_FEAT_CPUDESC, "Intel Xeon (synthetic PEBS)");
	v = 64;
	memcpy(f, &v, 4);
	memcpy(f + 4, &v, 4);
	ret |= hws_perf_writer__set_feature(w, HWS_FEAT_NRCPUS, f, 8);
	v = 4;
	memcpy(f, &v, 4);
	n = 4;
	for (size_t i = 0; i < 4; i++) {
		memcpy(f + n, &m[i].type, 4);
		n += 4;
		n += feat_str(f + n, m[i].name);
	}
	ret |= hws_perf_writer__set_feature(w, HWS_FEAT_PMU_MAPPINGS, f, n);
	return ret;
}

struct opts {
	int spr, adl, plain, psz;
	unsigned int garbage;
};

static uint64_t tlb_lock(int stlb_miss, int locked)
{
	uint64_t v = stlb_miss ? TLB(0x4 | 0x10) : TLB(0x2 | 0x8 | 0x10);

	return v | (locked ? LOCK(0x2) : 0);
}

static uint64_t load_src(const struct opts *o)
{
	unsigned int dse = (unsigned int)(rnd() % 16);
	int atom = o->adl && rnd() % 3 == 0;
	uint64_t v = atom ? grt_table[dse] : table[dse];
	unsigned int r = (unsigned int)rnd();

	v |= tlb_lock(r % 7 == 0, r % 11 == 0);
	if (o->spr || o->adl) {
		int data = (r >> 8) % 9 == 0, addr = !atom && (r >> 12) % 13 == 0;

		v |= data ? BLK(0x2) : 0;
		v |= addr ? BLK(0x4) : 0;
		if (!data && !addr)
			v |= BLK(0x1);
	} else {
		v |= BLK(0x1);
	}
	return v;
}

static uint64_t store_src(const struct opts *o)
{
	unsigned int r = (unsigned int)rnd();

	if (o->spr || o->adl) {
		/* SPR store latency: same table, load op replaced by store */
		uint64_t v = table[r % 5] & ~OP(0x1f);

		return v | OP(O_STORE) | tlb_lock((r >> 4) % 5 == 0, (r >> 8) % 17 == 0) | BLK(0x1);
	}
	/* HSW-ICL 0x82d0: PERF_MEM_NA, op STORE, L1 hit or miss */
	return OP(O_STORE) | LVL(L_L1 | ((r & 3) ? L_HIT : L_MISS)) | SNOOP(SN_NA) | LOCK(0x1) |
	       TLB(0x1);
}

static void sample(struct buf *b, const struct opts *o, int load, uint64_t t)
{
	int kernel = rnd() % 5 == 0;
	uint16_t misc =
	    (kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) | PERF_RECORD_MISC_EXACT_IP;
	uint32_t pid = 2000 + (uint32_t)(rnd() % 16);
	uint64_t ds, w, addr = rnd_addr(kernel && rnd() % 2), phys = 0;
	uint16_t size = 8 + 8 * 10 + (o->psz ? 16 : 0);

	if (o->garbage && rnd() % 100 < o->garbage)
		ds = rnd() & ((1ULL << 46) - 1);
	else
		ds = load ? load_src(o) : store_src(o);
	if (load) {
		uint64_t lat = 3 + rnd() % (rnd() % 8 ? 300 : 5000);

		if (o->plain)
			w = lat;
		else
			w = lat | ((o->spr || o->adl) ? (rnd() % 200) << 32 : 0);
	} else {
		w = (o->spr || o->adl) ? 1 + rnd() % 400 : 0;
	}
	if (rnd() % 8)
		phys = (rnd() & 0x000000fffffff000ULL) | (addr & 0xfff);
	put32(b, PERF_RECORD_SAMPLE);
	put(b, &misc, 2);
	put(b, &size, 2);
	put64(b, load ? ID_LOAD : ID_STORE);   /* IDENTIFIER */
	put64(b, rnd_addr(kernel));	       /* IP */
	put32(b, pid);			       /* PID */
	put32(b, pid + (uint32_t)(rnd() % 3)); /* TID */
	put64(b, t);			       /* TIME */
	put64(b, addr);			       /* ADDR */
	put32(b, (uint32_t)(rnd() % 64));      /* CPU */
	put32(b, 0);
	put64(b, 1 + rnd() % 20000); /* PERIOD */
	put64(b, w);		     /* WEIGHT(_STRUCT) */
	put64(b, ds);		     /* DATA_SRC */
	put64(b, phys);		     /* PHYS_ADDR */
	if (o->psz) {
		static const uint64_t sz[] = {4096, 2 << 20, 1 << 30};

		put64(b, sz[rnd() % 3]); /* DATA_PAGE_SIZE */
		put64(b, sz[rnd() % 2]); /* CODE_PAGE_SIZE */
	}
}

int main(int argc, char **argv)
{
	const char *out = NULL, *model = "skl";
	unsigned long long n = 1000, seed = 1;
	struct opts o = {0};
	struct hws_perf_writer *w;
	struct hws_perf_event_attr a;
	static struct buf b;
	uint64_t id, t = 5000000000ULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-m") && i + 1 < argc)
			model = argv[++i];
		else if (!strcmp(argv[i], "--plain-weight"))
			o.plain = 1;
		else if (!strcmp(argv[i], "--page-sizes"))
			o.psz = 1;
		else if (!strcmp(argv[i], "--garbage") && i + 1 < argc)
			o.garbage = (unsigned int)strtoul(argv[++i], NULL, 0);
		else
			out = NULL, i = argc;
	}
	if (!out || (strcmp(model, "skl") && strcmp(model, "spr") && strcmp(model, "adl"))) {
		fprintf(stderr,
			"usage: %s -o FILE [-n N] [-s SEED] [-m skl|spr|adl] "
			"[--plain-weight] [--page-sizes] [--garbage PERCENT]\n",
			argv[0]);
		return 2;
	}
	o.spr = !strcmp(model, "spr");
	o.adl = !strcmp(model, "adl");
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 7;
	build_tables();

	w = hws_perf_writer__new(out, false);
	if (!w) {
		fprintf(stderr, "gen_intel_pebs: %s: %s\n", out, strerror(errno));
		return 1;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = 4;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR |
			(o.plain ? PERF_SAMPLE_WEIGHT : PERF_SAMPLE_WEIGHT_STRUCT);
	if (o.psz)
		a.sample_type |= PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE;
	a.freq = 1;
	a.sample_freq = 4000;
	a.precise_ip = o.spr || o.adl ? 2 : 3;
	a.sample_id_all = 1;
	a.config = 0x1cd;
	a.config1 = 30;
	id = ID_LOAD;
	ret = hws_perf_writer__add_attr(w, &a, "cpu/mem-loads,ldlat=30/P", &id, 1) < 0;
	a.config = o.spr || o.adl ? 0x2cd : 0x82d0;
	a.config1 = 0;
	id = ID_STORE;
	ret |= hws_perf_writer__add_attr(w, &a, "cpu/mem-stores/P", &id, 1) < 0;
	ret |= write_features(w, model) != 0;
	for (unsigned long long i = 0; i < n && !ret; i++) {
		t += 1 + rnd() % 1000;
		sample(&b, &o, rnd() % 4 != 0, t);
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
		fprintf(stderr, "gen_intel_pebs: writing %s failed\n", out);
		return 1;
	}
	return 0;
}
