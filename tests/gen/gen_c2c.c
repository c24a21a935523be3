// SPDX-License-Identifier: MIT
/*
 * gen_c2c: write a perf.data file of memory samples with a known sharing ground truth,
 * for the c2c tests (tests/e2e/c2c_*.sh) and the benchmark (scripts/bench-c2c).
 *
 *   gen_c2c -o FILE -v intel|ibs|ibs-zen3|ibs-zen4|ibs-perf|spe [-n SAMPLES] [-s SEED]
 *           [-t TRUTH] [-L L1D_LINE_SIZE (writes a CACHE header)] [-g (call chains, intel)]
 *           [-F (the fields scenario instead)]
 *   gen_c2c -o FILE -v ... -r REAL.data -S SAMPLES
 *
 * -r/-S (tests/e2e/symbols_vendor_truth.sh): instead of the scenario below, the samples of
 * SAMPLES ("TIME PID TID IP ADDR load|store" lines, in time order; loads L1 hits of latency
 * 5, stores L1 hits, all on CPU 0) in the processes of the real recording REAL.data, whose
 * side-band records and allocation records are copied (see load_real()).
 *
 * One scenario, three encodings. The data are this program's own 64-byte aligned globals
 * (in .data, so the file-backed RW mapping covers them) and the code addresses are its own
 * functions; MMAP2 records of this executable (from /proc/self/maps) and COMM records let
 * hwsample and perf resolve both to symbols and source lines. Process 4242, threads
 * 4243..4250 pinned to CPUs 0..7; NUMA nodes 0 (CPUs 0-3) and 1 (4-7).
 *
 * Ground truth (TRUTH: "0xLINE class name" per line the scenario touches):
 *   c2c_fs_counters  false  threads 0,1,4,5 store and load their own 8-byte counter
 *   c2c_fs_pair      false  thread 6 stores at offset 0, thread 7 loads offset 32
 *   c2c_ts_counter   true   threads 0,1,4,5 store and load offset 0
 *   c2c_ts_flag      true   thread 2 stores offset 8, thread 3 loads offset 8
 *   c2c_ro_table     read   every thread loads, nobody stores (not contended)
 *   c2c_private[i]   private one thread each, loads and stores
 * -F, the fields scenario (c2c naming types and fields; this program is built with -g):
 *   c2c_fields         false  struct counters {a, b}: thread 0 stores and loads .a, thread
 *                             2 stores and loads .b (one line)
 *   c2c_fields_padded  private struct padded_counters {a, pad, b}: thread 3 .a, thread 4 .b,
 *                             each on its own line (two private lines)
 *   c2c_fields_mixed   mixed  struct counters: threads 5 and 6 store .a, thread 7 stores .b
 * On x86-64 the samples' IPs are the very load/store instructions (labels in inline asm), so
 * the data type comes from decoding them; elsewhere the function starts, and the type from
 * the data address. TRUTH lines then: "0xLINE class name".
 * Loads on written-shared lines by another thread than the last writer are coherence
 * misses: Intel data_src L3 HITM (same node) or REM_CCE1 HITM (other node); AMD IBS
 * legacy DataSrc 2 with CacheHitSt=M (same node, kernel -> HITM) or DataSrc 4 (remote
 * cache); Arm SPE (Neoverse N1 data source) 0x9 peer core (same node) or 0xd remote.
 *
 * Encodings: intel = two PERF_TYPE_RAW attrs (mem-loads ldlat=30, mem-stores), precise_ip 2,
 * IP|TID|TIME|ADDR|CPU|PERIOD|DATA_SRC|WEIGHT_STRUCT|IDENTIFIER; ibs = ibs_op attr
 * (PMU_MAPPINGS), CPUID AuthenticAMD,25,17,1, RAW {caps, 7 op MSRs}; ibs-perf = the same
 * op samples as perf c2c record stores them on AMD (kernel ADDR, DATA_SRC, WEIGHT_STRUCT, no
 * RAW); ibs-zen3 = ibs with CPUID family 0x19 model 0x01, where the kernel (and hwsample)
 * do not trust CacheHitSt, so there is no HITM at all (perf c2c: "not supported on Zen3");
 * ibs-zen4 = ibs with PMU_CAPS zen4_ibs_extensions and Zen 4 DataSrc (near/far CCX);
 * spe = arm_spe_0 attr,
 * AUXTRACE_INFO (ARM_SPE v1), TIME_CONV, AUXTRACE records of SPE packets per CPU, MIDR
 * Neoverse N1 in CPUID. All have ARCH, NRCPUS (8) and NUMA_TOPOLOGY (2 nodes).
 * Samples are in time order; the intel and ibs encodings end a round (FINISHED_ROUND) every
 * ~1 MiB of records, as perf record does after each pass over its ring buffers, so readers
 * sort and flush rounds instead of queueing the whole file.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/objects.h>
#include <hwsample/perfdata.h>

#define PID	   4242
#define NR_THREADS 8
#define NR_PRIVATE 64
#define IBS_TYPE   11
#define SPE_TYPE   9

struct line64 {
	volatile long v[8];
} __attribute__((aligned(64)));

/* Initialized (non-zero) so they live in .data, inside the file-backed mapping. */
struct line64 c2c_fs_counters = {{1}};
struct line64 c2c_fs_pair = {{1}};
struct line64 c2c_ts_counter = {{1}};
struct line64 c2c_ts_flag = {{1}};
struct line64 c2c_ro_table = {{1}};
struct line64 c2c_private[NR_PRIVATE] = {{{1}}};

/* -F: two fields of one struct on one line, and the same two fields padded apart */
struct counters {
	volatile long a;
	volatile long b;
} __attribute__((aligned(64)));
struct padded_counters {
	volatile long a;
	char pad[56];
	volatile long b;
} __attribute__((aligned(64)));
struct counters c2c_fields = {1, 1};
struct padded_counters c2c_fields_padded = {1, {0}, 1};
struct counters c2c_fields_mixed = {1, 1};

/*
 * Their accesses: on x86-64 a label at the instruction itself (the sample's precise IP), in
 * functions neither inlined nor cloned so that each label is defined once.
 */
#if defined(__clang__) /* clang does not clone functions and has no noclone */
#define GEN_NOCLONE
#else
#define GEN_NOCLONE __attribute__((noclone))
#endif
#if defined(__x86_64__)
#define FIELD_OP(fn, label, insn, var)                                                             \
	extern const char label[];                                                                 \
	static __attribute__((noinline, used)) GEN_NOCLONE void fn(void)                           \
	{                                                                                          \
		__asm__ volatile(".globl " #label "\n.hidden " #label "\n" #label ":\n\t" insn     \
				 " %0"                                                             \
				 : "+m"(var));                                                     \
	}
#define FIELD_IP(fn, label) A(label)
#else
#define FIELD_OP(fn, label, insn, var)                                                             \
	static __attribute__((noinline, noclone, used)) void fn(void)                              \
	{                                                                                          \
		var++;                                                                             \
	}
#define FIELD_IP(fn, label) F(fn)
#endif
FIELD_OP(fields_add_a, gen_c2c_ip_add_a, "incq", c2c_fields.a)
FIELD_OP(fields_add_b, gen_c2c_ip_add_b, "incq", c2c_fields.b)
FIELD_OP(fields_neg_a, gen_c2c_ip_neg_a, "notq", c2c_fields.a)
FIELD_OP(fields_neg_b, gen_c2c_ip_neg_b, "notq", c2c_fields.b)
FIELD_OP(padded_add_a, gen_c2c_ip_padded_a, "incq", c2c_fields_padded.a)
FIELD_OP(padded_add_b, gen_c2c_ip_padded_b, "incq", c2c_fields_padded.b)
FIELD_OP(mixed_add_a, gen_c2c_ip_mixed_a, "incq", c2c_fields_mixed.a)
FIELD_OP(mixed_add_b, gen_c2c_ip_mixed_b, "incq", c2c_fields_mixed.b)
static bool want_fields; /* -F */

/* Code addresses of the samples: distinct functions of this file. */
static __attribute__((noinline, used)) void fs_increment(void)
{
	c2c_fs_counters.v[0]++;
}
static __attribute__((noinline, used)) void fs_read(void)
{
	(void)c2c_fs_counters.v[0];
}
static __attribute__((noinline, used)) void pair_write(void)
{
	c2c_fs_pair.v[0]++;
}
static __attribute__((noinline, used)) void pair_read(void)
{
	(void)c2c_fs_pair.v[4];
}
static __attribute__((noinline, used)) void ts_increment(void)
{
	c2c_ts_counter.v[0]++;
}
static __attribute__((noinline, used)) void ts_read(void)
{
	(void)c2c_ts_counter.v[0];
}
static __attribute__((noinline, used)) void flag_set(void)
{
	c2c_ts_flag.v[1] = 1;
}
static __attribute__((noinline, used)) void flag_poll(void)
{
	(void)c2c_ts_flag.v[1];
}
static __attribute__((noinline, used)) void table_lookup(void)
{
	(void)c2c_ro_table.v[2];
}
static __attribute__((noinline, used)) void private_work(void)
{
	c2c_private[0].v[0]++;
}

/*
 * -g: the callers of the sample functions. A sample's call chain is its ip, then return
 * addresses inside these functions (a few bytes past their start, inside their body), so
 * perf and hwsample resolve every frame to a known function. Each scenario path is reached
 * through one of two callers, with fixed odds, under one thread entry function.
 */
static void (*volatile cc_fn)(void);
static __attribute__((noinline, used)) void thread_main(void)
{
	cc_fn();
	cc_fn();
}
static __attribute__((noinline, used)) void worker_hot(void)
{
	cc_fn();
	cc_fn();
}
static __attribute__((noinline, used)) void worker_cold(void)
{
	cc_fn();
	cc_fn();
}
static bool want_cc; /* -g */

enum kind { K_L1, K_LLC, K_COH, K_ST_HIT, K_ST_MISS };

#define MAX_CC 4

struct ev {
	int thr;
	uint32_t pid, tid; /* PID, PID + 1 + thr; -S: given */
	uint64_t time;	   /* -S only */
	uint64_t ip, addr;
	uint64_t cc[MAX_CC]; /* -g: return addresses of the callers, innermost first */
	int nr_cc;
	enum kind kind;
	bool coh_remote; /* K_COH: the line came from the other node */
	uint32_t lat;
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned int rn(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static int node_of(int cpu)
{
	return cpu >= 4;
}

/* last writer thread per shared line, for local/remote coherence */
static int last_writer[9] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};

static void ev_load(struct ev *e, int line, int thr, uint64_t ip, uint64_t addr)
{
	int w = line >= 0 ? last_writer[line] : -1;

	e->thr = thr;
	e->pid = PID;
	e->tid = PID + 1 + (uint32_t)thr;
	e->ip = ip;
	e->addr = addr;
	if (line >= 0 && w >= 0 && w != thr && rn(10) < 8) {
		e->kind = K_COH;
		e->coh_remote = node_of(w) != node_of(thr);
		e->lat = e->coh_remote ? 250 + rn(200) : 90 + rn(80);
	} else {
		e->kind = rn(4) ? K_L1 : K_LLC;
		e->coh_remote = false;
		e->lat = e->kind == K_L1 ? 4 + rn(4) : 35 + rn(20);
	}
}

static void ev_store(struct ev *e, int line, int thr, uint64_t ip, uint64_t addr)
{
	int w = line >= 0 ? last_writer[line] : thr;

	e->thr = thr;
	e->pid = PID;
	e->tid = PID + 1 + (uint32_t)thr;
	e->ip = ip;
	e->addr = addr;
	e->kind = (w >= 0 && w != thr) ? K_ST_MISS : K_ST_HIT;
	e->coh_remote = false;
	e->lat = 0;
	if (line >= 0)
		last_writer[line] = thr;
}

#define A(x) ((uint64_t)(uintptr_t)(x))
#define F(x) ((uint64_t)(uintptr_t) & (x))

/* one scenario event */
static void scenario_ev(struct ev *e);
static void scenario(struct ev *e)
{
	scenario_ev(e);
	e->nr_cc = 0;
	if (!want_cc)
		return;
	/* 3 in 4 through worker_hot; table lookups and private work are called directly */
	if (e->ip != F(table_lookup) && e->ip != F(private_work))
		e->cc[e->nr_cc++] = (rn(4) ? F(worker_hot) : F(worker_cold)) + 4;
	e->cc[e->nr_cc++] = F(thread_main) + 4;
}

/* -F: lines 5 (c2c_fields), 6 and 7 (the padded halves), 8 (c2c_fields_mixed); stores are
 * read-modify-writes (their "load" samples at the same instruction) */
static void fields_ev(struct ev *e)
{
	unsigned int r = rn(100);

	if (r < 20) { /* .a: thread 0 */
		if (rn(2))
			ev_store(e, 5, 0, FIELD_IP(fields_add_a, gen_c2c_ip_add_a),
				 A(&c2c_fields.a));
		else
			ev_load(e, 5, 0, FIELD_IP(fields_neg_a, gen_c2c_ip_neg_a),
				A(&c2c_fields.a));
	} else if (r < 40) { /* .b: thread 2 */
		if (rn(2))
			ev_store(e, 5, 2, FIELD_IP(fields_add_b, gen_c2c_ip_add_b),
				 A(&c2c_fields.b));
		else
			ev_load(e, 5, 2, FIELD_IP(fields_neg_b, gen_c2c_ip_neg_b),
				A(&c2c_fields.b));
	} else if (r < 50) { /* mixed: threads 5 and 6 write .a, thread 7 writes .b */
		if (rn(3))
			ev_store(e, 8, 5 + (int)rn(2), FIELD_IP(mixed_add_a, gen_c2c_ip_mixed_a),
				 A(&c2c_fields_mixed.a));
		else
			ev_store(e, 8, 7, FIELD_IP(mixed_add_b, gen_c2c_ip_mixed_b),
				 A(&c2c_fields_mixed.b));
	} else if (r < 80) { /* padded .a: thread 3 alone on its line */
		if (rn(2))
			ev_store(e, 6, 3, FIELD_IP(padded_add_a, gen_c2c_ip_padded_a),
				 A(&c2c_fields_padded.a));
		else
			ev_load(e, 6, 3, FIELD_IP(padded_add_a, gen_c2c_ip_padded_a),
				A(&c2c_fields_padded.a));
	} else { /* padded .b: thread 4 alone on the next line */
		if (rn(2))
			ev_store(e, 7, 4, FIELD_IP(padded_add_b, gen_c2c_ip_padded_b),
				 A(&c2c_fields_padded.b));
		else
			ev_load(e, 7, 4, FIELD_IP(padded_add_b, gen_c2c_ip_padded_b),
				A(&c2c_fields_padded.b));
	}
}

static void scenario_ev(struct ev *e)
{
	static const int fs_thr[4] = {0, 1, 4, 5};
	unsigned int r = rn(100);
	int t;

	if (want_fields) {
		fields_ev(e);
		return;
	}

	if (r < 14) { /* false sharing: per-thread counters */
		t = fs_thr[rn(4)];
		if (rn(2))
			ev_store(e, 0, t, F(fs_increment),
				 A(&c2c_fs_counters.v[t == 0   ? 0
						      : t == 1 ? 1
						      : t == 4 ? 2
							       : 3]));
		else
			ev_load(e, 0, t, F(fs_read),
				A(&c2c_fs_counters.v[t == 0   ? 0
						     : t == 1 ? 1
						     : t == 4 ? 2
							      : 3]));
	} else if (r < 20) { /* false sharing: writer at 0, reader at 32 */
		if (rn(2))
			ev_store(e, 1, 6, F(pair_write), A(&c2c_fs_pair.v[0]));
		else
			ev_load(e, 1, 7, F(pair_read), A(&c2c_fs_pair.v[4]));
	} else if (r < 32) { /* true sharing: one counter */
		t = fs_thr[rn(4)];
		if (rn(2))
			ev_store(e, 2, t, F(ts_increment), A(&c2c_ts_counter.v[0]));
		else
			ev_load(e, 2, t, F(ts_read), A(&c2c_ts_counter.v[0]));
	} else if (r < 38) { /* true sharing: flag */
		if (rn(3) == 0)
			ev_store(e, 3, 2, F(flag_set), A(&c2c_ts_flag.v[1]));
		else
			ev_load(e, 3, 3, F(flag_poll), A(&c2c_ts_flag.v[1]));
	} else if (r < 48) { /* read-only table, every thread */
		ev_load(e, 4, (int)rn(NR_THREADS), F(table_lookup), A(&c2c_ro_table.v[rn(8)]));
	} else { /* private lines: line i belongs to thread i % 8 */
		unsigned int i = rn(NR_PRIVATE);

		t = (int)(i % NR_THREADS);
		if (rn(3) == 0)
			ev_store(e, -1, t, F(private_work), A(&c2c_private[i].v[rn(8)]));
		else
			ev_load(e, -1, t, F(private_work), A(&c2c_private[i].v[rn(8)]));
	}
}

/* ------------------------------------------------------------------ file pieces */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap * 2 : 4096;

		while (c < b->len + n)
			c *= 2;
		b->p = realloc(b->p, c);
		if (!b->p) {
			perror("realloc");
			exit(1);
		}
		b->cap = c;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put_pstr(struct buf *b, const char *s)
{
	static const char zero[64];
	size_t len = strlen(s) + 1, olen = (len + 63) / 64 * 64;

	put32(b, (uint32_t)olen);
	put(b, s, len);
	put(b, zero, olen - len);
}

static uint32_t cache_line;  /* -L: write a CACHE header with this L1d line size */
static struct buf real_objs; /* -r: the real recording's allocation records */

/* HEADER_CACHE as perf writes it: u32 version 1, u32 nr, {u32 level, line_size, sets, ways;
 * strings type, size, map} per cache */
static void set_cache_feature(struct hws_perf_writer *w)
{
	static const struct {
		uint32_t level;
		const char *type, *size;
	} caches[] = {{1, "Data", "48K"}, {1, "Instruction", "32K"}, {2, "Unified", "2048K"}};
	struct buf b = {0};

	put32(&b, 1);
	put32(&b, 3);
	for (int i = 0; i < 3; i++) {
		put32(&b, caches[i].level);
		put32(&b, cache_line);
		put32(&b, 64);
		put32(&b, 12);
		put_pstr(&b, caches[i].type);
		put_pstr(&b, caches[i].size);
		put_pstr(&b, "0-1");
	}
	hws_perf_writer__set_feature(w, HWS_FEAT_CACHE, b.p, b.len);
	free(b.p);
}

static void set_common_features(struct hws_perf_writer *w, const char *arch, const char *cpuid,
				const char *pmu_name, uint32_t pmu_type)
{
	struct buf b = {0};
	uint32_t nr[2] = {8, 8};

	hws_perf_writer__set_string(w, HWS_FEAT_ARCH, arch);
	hws_perf_writer__set_string(w, HWS_FEAT_CPUID, cpuid);
	hws_perf_writer__set_string(w, HWS_FEAT_HOSTNAME, "c2c-gen");
	hws_perf_writer__set_string(w, HWS_FEAT_OSRELEASE, "6.1.0-c2c-gen");
	hws_perf_writer__set_string(w, HWS_FEAT_VERSION, "6.1");
	hws_perf_writer__set_feature(w, HWS_FEAT_NRCPUS, nr, sizeof(nr));
	put32(&b, 2);
	put32(&b, 0);
	put64(&b, 16 << 20);
	put64(&b, 8 << 20);
	put_pstr(&b, "0-3");
	put32(&b, 1);
	put64(&b, 16 << 20);
	put64(&b, 8 << 20);
	put_pstr(&b, "4-7");
	hws_perf_writer__set_feature(w, HWS_FEAT_NUMA_TOPOLOGY, b.p, b.len);
	b.len = 0;
	put32(&b, pmu_name ? 2 : 1);
	put32(&b, 4);
	put_pstr(&b, "cpu");
	if (pmu_name) {
		put32(&b, pmu_type);
		put_pstr(&b, pmu_name);
	}
	hws_perf_writer__set_feature(w, HWS_FEAT_PMU_MAPPINGS, b.p, b.len);
	free(b.p);
	if (real_objs.len)
		hws_perf_writer__set_feature(w, HWS_FEAT_HWS_OBJECTS, real_objs.p, real_objs.len);
	if (cache_line)
		set_cache_feature(w);
}

/* sample_id trailer for IP|TID|TIME|ADDR|CPU|PERIOD|...|IDENTIFIER: tid, time, cpu, id */
static void put_trailer(struct buf *b, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu,
			uint64_t id)
{
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
	put32(b, cpu);
	put32(b, 0);
	put64(b, id);
}

static void put_hdr(struct buf *b, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = (uint16_t)size};

	put(b, &h, sizeof(h));
}

static void write_comm(struct buf *b, uint32_t tid, const char *comm, uint64_t id)
{
	char name[16] = {0};

	snprintf(name, sizeof(name), "%s", comm);
	put_hdr(b, PERF_RECORD_COMM, 0, 8 + 8 + 16 + 32);
	put32(b, PID);
	put32(b, tid);
	put(b, name, 16);
	put_trailer(b, PID, tid, 1, 0, id);
}

/* MMAP2 of every mapping of this executable */
static int write_mmaps(struct buf *b, uint64_t id)
{
	char exe[PATH_MAX], line[PATH_MAX + 256];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	int nr = 0;

	if (n <= 0)
		return -errno;
	exe[n] = 0;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned int maj, min;
		char perm[8], path[PATH_MAX] = "";
		size_t fl, rec;
		uint32_t prot = 0;
		char fname[PATH_MAX + 8] = {0};

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095s", &start, &end, perm, &pgoff,
			   &maj, &min, &ino, path) < 8 ||
		    strcmp(path, exe))
			continue;
		prot =
		    (perm[0] == 'r' ? 1 : 0) | (perm[1] == 'w' ? 2 : 0) | (perm[2] == 'x' ? 4 : 0);
		fl = (strlen(path) + 1 + 7) / 8 * 8;
		memcpy(fname, path, strlen(path));
		rec = 8 + 8 + 8 * 3 + 4 * 2 + 8 * 2 + 4 * 2 + fl + 32;
		put_hdr(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, rec);
		put32(b, PID);
		put32(b, PID);
		put64(b, start);
		put64(b, end - start);
		put64(b, pgoff);
		put32(b, maj);
		put32(b, min);
		put64(b, ino);
		put64(b, 0);
		put32(b, prot);
		put32(b, 2 /* MAP_PRIVATE */);
		put(b, fname, fl);
		put_trailer(b, PID, PID, 1, 0, id);
		nr++;
	}
	fclose(f);
	return nr ? 0 : -ENOENT;
}

/*
 * -r REAL -S SAMPLES: the samples are given (tests/e2e/symbols_vendor_truth.sh), the
 * processes are a real recording's: its COMM, MMAP, MMAP2, FORK and EXIT records are written
 * again with this file's sample_id trailer (pid, tid, time, cpu, id), each before the first
 * sample after it in time, and its allocation records (hwsample record --objects: header
 * feature HWS_FEAT_HWS_OBJECTS) are copied.
 */
struct sb_rec {
	struct perf_event_header h; /* size: of the body */
	uint32_t pid, tid, cpu;
	uint64_t time;
	size_t off; /* of the body (after the header, before the trailer) in sb_body */
};
static struct ev *given;
static long nr_given;
static struct sb_rec *sbr;
static size_t nr_sbr, next_sbr;
static struct buf sb_body;

/* bytes of the sample_id trailer of @a's non-sample records */
static size_t trailer_size(const struct hws_perf_event_attr *a)
{
	uint64_t t =
	    a->sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);

	return a->sample_id_all ? 8 * (size_t)__builtin_popcountll(t) : 0;
}

static int load_real(const char *path)
{
	struct hws_perf_reader *r = hws_perf_reader__open(path, NULL);
	struct hws_perf_record rec;
	const void *objs;
	size_t len = 0;
	int err;

	if (!r)
		return -errno;
	while ((err = hws_perf_reader__next(r, &rec)) > 0) {
		uint32_t t = rec.hdr->type;
		const struct hws_perf_evattr *ea;
		struct hws_sample_id sid = {0};
		struct sb_rec *n;
		size_t tr;

		if (t != PERF_RECORD_MMAP && t != PERF_RECORD_MMAP2 && t != PERF_RECORD_COMM &&
		    t != PERF_RECORD_FORK && t != PERF_RECORD_EXIT)
			continue;
		ea = hws_perf_reader__attr(r, rec.attr_idx >= 0 ? rec.attr_idx : 0);
		tr = ea ? trailer_size(&ea->attr) : 0;
		if (!ea || rec.hdr->size < sizeof(*rec.hdr) + tr ||
		    hws_sample_id__parse(&ea->attr, rec.hdr, rec.hdr->size, &sid)) {
			err = -EINVAL;
			break;
		}
		n = realloc(sbr, (nr_sbr + 1) * sizeof(*sbr));
		if (!n) {
			err = -ENOMEM;
			break;
		}
		sbr = n;
		n = &sbr[nr_sbr++];
		n->h = *rec.hdr;
		n->h.size = (uint16_t)(rec.hdr->size - sizeof(*rec.hdr) - tr);
		n->pid = sid.pid;
		n->tid = sid.tid;
		n->cpu = sid.cpu;
		n->time = sid.time;
		n->off = sb_body.len;
		put(&sb_body, rec.hdr + 1, n->h.size);
	}
	objs = hws_perf_reader__feature(r, HWS_FEAT_HWS_OBJECTS, &len);
	if (objs && len)
		put(&real_objs, objs, len);
	hws_perf_reader__close(r);
	return err < 0 ? err : 0;
}

/* the real side-band records up to time @until (all: UINT64_MAX), trailer id @id */
static void real_sideband(struct buf *b, uint64_t until, uint64_t id)
{
	for (; next_sbr < nr_sbr && sbr[next_sbr].time <= until; next_sbr++) {
		const struct sb_rec *r = &sbr[next_sbr];

		put_hdr(b, r->h.type, r->h.misc, sizeof(r->h) + r->h.size + 32);
		put(b, sb_body.p + r->off, r->h.size);
		put_trailer(b, r->pid, r->tid, r->time, r->cpu, id);
	}
}

/* SAMPLES: "TIME PID TID IP ADDR load|store" per line */
static int load_given(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256], op[16];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long t, ip, addr;
		unsigned int pid, tid;
		struct ev *n, *e;

		if (sscanf(line, "%llu %u %u %llx %llx %15s", &t, &pid, &tid, &ip, &addr, op) != 6)
			continue;
		n = realloc(given, (size_t)(nr_given + 1) * sizeof(*given));
		if (!n) {
			fclose(f);
			return -ENOMEM;
		}
		given = n;
		e = &given[nr_given++];
		memset(e, 0, sizeof(*e));
		e->pid = pid;
		e->tid = tid;
		e->time = t;
		e->ip = ip;
		e->addr = addr;
		e->kind = strcmp(op, "store") ? K_L1 : K_ST_HIT;
		e->lat = e->kind == K_L1 ? 5 : 0;
	}
	fclose(f);
	return nr_given ? 0 : -ENODATA;
}

/* event @i: the scenario's (at time 1000 + 100 i), or with -S the given one, after the
 * real side-band records up to its time (written to @b, trailer id @id); its time */
static uint64_t next_ev(struct ev *e, long i, struct buf *b, uint64_t id)
{
	if (!given) {
		scenario(e);
		return 1000 + (uint64_t)i * 100;
	}
	*e = given[i];
	real_sideband(b, e->time, id);
	return e->time;
}

static void write_sideband(struct buf *b, uint64_t id)
{
	if (given)
		return;
	write_comm(b, PID, "c2c-gen", id);
	for (int t = 1; t <= NR_THREADS; t++)
		write_comm(b, PID + t, "c2c-gen", id);
	if (write_mmaps(b, id)) {
		fprintf(stderr, "gen_c2c: cannot read /proc/self/maps\n");
		exit(1);
	}
}

/* ------------------------------------------------------------------ Intel */

#define DS_OP(x)     ((uint64_t)(x) << PERF_MEM_OP_SHIFT)
#define DS_LVL(x)    ((uint64_t)(x) << PERF_MEM_LVL_SHIFT)
#define DS_SNOOP(x)  ((uint64_t)(x) << PERF_MEM_SNOOP_SHIFT)
#define DS_TLB(x)    ((uint64_t)(x) << PERF_MEM_TLB_SHIFT)
#define DS_LVLNUM(x) ((uint64_t)(x) << PERF_MEM_LVLNUM_SHIFT)
#define DS_REMOTE    ((uint64_t)1 << PERF_MEM_REMOTE_SHIFT)

static uint64_t intel_ds(const struct ev *e)
{
	uint64_t tlb = DS_TLB(PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT);

	switch (e->kind) {
	case K_L1:
		return DS_OP(PERF_MEM_OP_LOAD) | DS_LVL(PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT) |
		       DS_SNOOP(PERF_MEM_SNOOP_NONE) | DS_LVLNUM(PERF_MEM_LVLNUM_L1) | tlb;
	case K_LLC:
		return DS_OP(PERF_MEM_OP_LOAD) | DS_LVL(PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT) |
		       DS_SNOOP(PERF_MEM_SNOOP_NONE) | DS_LVLNUM(PERF_MEM_LVLNUM_L3) | tlb;
	case K_COH:
		if (e->coh_remote)
			return DS_OP(PERF_MEM_OP_LOAD) |
			       DS_LVL(PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT) |
			       DS_SNOOP(PERF_MEM_SNOOP_HITM) |
			       DS_LVLNUM(PERF_MEM_LVLNUM_ANY_CACHE) | DS_REMOTE | tlb;
		return DS_OP(PERF_MEM_OP_LOAD) | DS_LVL(PERF_MEM_LVL_L3 | PERF_MEM_LVL_HIT) |
		       DS_SNOOP(PERF_MEM_SNOOP_HITM) | DS_LVLNUM(PERF_MEM_LVLNUM_L3) | tlb;
	case K_ST_HIT:
		return DS_OP(PERF_MEM_OP_STORE) | DS_LVL(PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT) |
		       DS_SNOOP(PERF_MEM_SNOOP_NA) | tlb;
	case K_ST_MISS:
	default:
		return DS_OP(PERF_MEM_OP_STORE) | DS_LVL(PERF_MEM_LVL_L1 | PERF_MEM_LVL_MISS) |
		       DS_SNOOP(PERF_MEM_SNOOP_NA) | tlb;
	}
}

static void intel_sample(struct buf *b, const struct ev *e, uint64_t time)
{
	bool store = e->kind == K_ST_HIT || e->kind == K_ST_MISS;
	uint64_t id = store ? 2 : 1;

	put_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP,
		8 + 8 * 9 + (want_cc ? 8 * (3 + (size_t)e->nr_cc) : 0));
	put64(b, id);	  /* IDENTIFIER */
	put64(b, e->ip);  /* IP */
	put32(b, e->pid); /* TID */
	put32(b, e->tid);
	put64(b, time);		    /* TIME */
	put64(b, e->addr);	    /* ADDR */
	put32(b, (uint32_t)e->thr); /* CPU */
	put32(b, 0);
	put64(b, store ? 20011 : 2003); /* PERIOD */
	if (want_cc) {			/* CALLCHAIN: nr, PERF_CONTEXT_USER, ip, callers */
		put64(b, 2 + (uint64_t)e->nr_cc);
		put64(b, PERF_CONTEXT_USER);
		put64(b, e->ip);
		for (int i = 0; i < e->nr_cc; i++)
			put64(b, e->cc[i]);
	}
	put64(b, store ? 0 : (uint64_t)e->lat | (uint64_t)(e->lat + 3) << 32); /* WEIGHT_STRUCT */
	put64(b, intel_ds(e));						       /* DATA_SRC */
}

static int gen_intel(const char *out, long n)
{
	struct hws_perf_event_attr a = {0};
	struct hws_perf_writer *w = hws_perf_writer__new(out, false);
	uint64_t id1 = 1, id2 = 2;
	struct buf b = {0};
	struct ev e;
	int err;

	if (!w)
		return -errno;
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = 0x1cd;
	a.config1 = 30;
	a.sample_period = 2003;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC |
			PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_IDENTIFIER;
	if (want_cc)
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	a.precise_ip = 2;
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = 1;
	a.mmap_data = 1;
	a.exclude_kernel = 1;
	err = hws_perf_writer__add_attr(w, &a, "cpu/mem-loads,ldlat=30/P", &id1, 1);
	a.config = 0x82d0;
	a.config1 = 0;
	a.sample_period = 20011;
	a.mmap = a.mmap2 = a.comm = a.mmap_data = 0;
	if (err >= 0)
		err = hws_perf_writer__add_attr(w, &a, "cpu/mem-stores/P", &id2, 1);
	if (err < 0)
		return err;
	set_common_features(w, "x86_64", "GenuineIntel,6,85,4", NULL, 0);
	write_sideband(&b, id1);
	for (long i = 0; i < n; i++) {
		intel_sample(&b, &e, next_ev(&e, i, &b, id1));
		if (b.len > (1 << 20)) {
			put_hdr(&b, HWS_RECORD_FINISHED_ROUND, 0, 8);
			err = hws_perf_writer__write(w, b.p, b.len);
			if (err)
				return err;
			b.len = 0;
		}
	}
	real_sideband(&b, UINT64_MAX, id1);
	err = hws_perf_writer__write(w, b.p, b.len);
	free(b.p);
	if (err)
		return err;
	return hws_perf_writer__close(w);
}

/* ------------------------------------------------------------------ AMD IBS */

static bool zen4; /* ibs-zen4: PMU_CAPS zen4_ibs_extensions, 4-bit DataSrc */

static void ibs_sample(struct buf *b, const struct ev *e, uint64_t time)
{
	bool store = e->kind == K_ST_HIT || e->kind == K_ST_MISS, miss;
	uint64_t ctl = (1ULL << 17) | (1ULL << 18) | 0x1000, data, d2 = 0, d3;
	uint32_t lat = e->lat;

	miss = e->kind == K_LLC || e->kind == K_COH || e->kind == K_ST_MISS;
	data = (uint64_t)(lat + 20) << 16 | 10; /* TagToRetCtr, CompToRetCtr */
	d3 = (store ? 2ULL : 1ULL) | (1ULL << 17) | (1ULL << 18) | (4ULL << 22); /* 8 bytes */
	if (miss) {
		d3 |= 1ULL << 7 | 1ULL << 20; /* DcMiss, L2Miss */
		if (!store)
			d3 |= (uint64_t)(lat ? lat : 1) << 32; /* DcMissLat */
	}
	if (zen4) {
		/* Zen 4 DataSrc: 1 local L3 / same CCX, 2 another CCX on this node, 5 a CCX on
		 * another node; CacheHitSt 0 = M (HITM on 1, 2, 5) */
		if (e->kind == K_LLC)
			d2 = 1 | 1ULL << 5;
		else if (e->kind == K_COH)
			d2 = e->coh_remote ? 5 | 1ULL << 4 : 2;
	} else if (e->kind == K_LLC) {
		d2 = 2 | 1ULL << 5; /* local cache, CacheHitSt = O/S: no HITM */
	} else if (e->kind == K_COH) {
		d2 = e->coh_remote ? 4 | 1ULL << 4 : 2; /* remote cache / local cache M state */
	}

	put_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP,
		8 + 8 * 6 + 4 + 4 + 56);
	put64(b, 3);	  /* IDENTIFIER */
	put64(b, e->ip);  /* IP */
	put32(b, e->pid); /* TID */
	put32(b, e->tid);
	put64(b, time);		    /* TIME */
	put32(b, (uint32_t)e->thr); /* CPU */
	put32(b, 0);
	put64(b, 0x10000); /* PERIOD */
	put32(b, 4 + 56);  /* RAW size */
	put32(b, 0x1f);	   /* caps: AVAIL FETCHSAM OPSAM RDWROPCNT OPCNT */
	put64(b, ctl);	   /* IbsOpCtl */
	put64(b, e->ip);   /* IbsOpRip */
	put64(b, data);	   /* IbsOpData */
	put64(b, d2);	   /* IbsOpData2 */
	put64(b, d3);	   /* IbsOpData3 */
	put64(b, e->addr); /* IbsDcLinAd */
	put64(b, 0x100000000ULL + (e->addr & 0xfffffff)); /* IbsDcPhysAd */
}

/* perf_mem_data_src as the kernel builds it for IBS op samples (legacy DataSrc, Fam19h
 * model 0x11: CacheHitSt valid) - what perf c2c record / perf mem record store on AMD */
static uint64_t ibs_kernel_ds(const struct ev *e)
{
	uint64_t tlb = DS_TLB(PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT);
	uint64_t hops1 = (uint64_t)PERF_MEM_HOPS_1 << PERF_MEM_HOPS_SHIFT;

	switch (e->kind) {
	case K_L1:
		return DS_OP(PERF_MEM_OP_LOAD) | DS_LVL(PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT) |
		       DS_SNOOP(PERF_MEM_SNOOP_NA) | DS_LVLNUM(PERF_MEM_LVLNUM_L1) | tlb;
	case K_LLC:
		return DS_OP(PERF_MEM_OP_LOAD) |
		       DS_LVL(PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT) |
		       DS_SNOOP(PERF_MEM_SNOOP_NA) | DS_LVLNUM(PERF_MEM_LVLNUM_ANY_CACHE) | tlb;
	case K_COH:
		if (e->coh_remote)
			return DS_OP(PERF_MEM_OP_LOAD) |
			       DS_LVL(PERF_MEM_LVL_REM_CCE2 | PERF_MEM_LVL_HIT) |
			       DS_SNOOP(PERF_MEM_SNOOP_NA) | DS_LVLNUM(PERF_MEM_LVLNUM_ANY_CACHE) |
			       DS_REMOTE | hops1 | tlb;
		return DS_OP(PERF_MEM_OP_LOAD) |
		       DS_LVL(PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_HIT) |
		       DS_SNOOP(PERF_MEM_SNOOP_HITM) | DS_LVLNUM(PERF_MEM_LVLNUM_ANY_CACHE) | tlb;
	case K_ST_HIT:
		return DS_OP(PERF_MEM_OP_STORE) | DS_LVL(PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT) |
		       DS_SNOOP(PERF_MEM_SNOOP_NA) | DS_LVLNUM(PERF_MEM_LVLNUM_L1) | tlb;
	case K_ST_MISS:
	default:
		return DS_OP(PERF_MEM_OP_STORE) | DS_LVL(PERF_MEM_LVL_NA) |
		       DS_SNOOP(PERF_MEM_SNOOP_NA) | DS_LVLNUM(PERF_MEM_LVLNUM_NA) | tlb;
	}
}

/* perf c2c record on AMD: ibs_op with ADDR, DATA_SRC, WEIGHT_STRUCT from the kernel, no RAW */
static void ibs_perf_sample(struct buf *b, const struct ev *e, uint64_t time)
{
	bool store = e->kind == K_ST_HIT || e->kind == K_ST_MISS;
	bool miss = e->kind == K_LLC || e->kind == K_COH;

	put_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP,
		8 + 8 * 9);
	put64(b, 4);	  /* IDENTIFIER */
	put64(b, e->ip);  /* IP */
	put32(b, e->pid); /* TID */
	put32(b, e->tid);
	put64(b, time);		    /* TIME */
	put64(b, e->addr);	    /* ADDR */
	put32(b, (uint32_t)e->thr); /* CPU */
	put32(b, 0);
	put64(b, 0x10000); /* PERIOD */
	put64(b, !store && miss ? (uint64_t)e->lat | (uint64_t)(e->lat + 20) << 32 : 0);
	put64(b, ibs_kernel_ds(e)); /* DATA_SRC */
}

static int gen_ibs_perf(const char *out, long n)
{
	struct hws_perf_event_attr a = {0};
	struct hws_perf_writer *w = hws_perf_writer__new(out, false);
	uint64_t id = 4;
	struct buf b = {0};
	struct ev e;
	int err;

	if (!w)
		return -errno;
	a.size = sizeof(a);
	a.type = IBS_TYPE;
	a.sample_period = 0x10000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC |
			PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = a.mmap_data = 1;
	err = hws_perf_writer__add_attr(w, &a, "ibs_op//", &id, 1);
	if (err < 0)
		return err;
	set_common_features(w, "x86_64", "AuthenticAMD,25,17,1", "ibs_op", IBS_TYPE);
	write_sideband(&b, id);
	for (long i = 0; i < n; i++) {
		ibs_perf_sample(&b, &e, next_ev(&e, i, &b, id));
		if (b.len > (1 << 20)) {
			put_hdr(&b, HWS_RECORD_FINISHED_ROUND, 0, 8);
			err = hws_perf_writer__write(w, b.p, b.len);
			if (err)
				return err;
			b.len = 0;
		}
	}
	real_sideband(&b, UINT64_MAX, id);
	err = hws_perf_writer__write(w, b.p, b.len);
	free(b.p);
	if (err)
		return err;
	return hws_perf_writer__close(w);
}

static int gen_ibs(const char *out, long n, const char *cpuid)
{
	struct hws_perf_event_attr a = {0};
	struct hws_perf_writer *w = hws_perf_writer__new(out, false);
	uint64_t id = 3;
	struct buf b = {0};
	struct ev e;
	int err;

	if (!w)
		return -errno;
	a.size = sizeof(a);
	a.type = IBS_TYPE;
	a.sample_period = 0x10000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = a.mmap_data = 1;
	err = hws_perf_writer__add_attr(w, &a, "ibs_op//", &id, 1);
	if (err < 0)
		return err;
	set_common_features(w, "x86_64", cpuid, "ibs_op", IBS_TYPE);
	if (zen4) {
		/* PMU_CAPS: u32 nr_pmu; per PMU u32 nr_caps, {name, value} strings, PMU name */
		struct buf c = {0};

		put32(&c, 1);
		put32(&c, 1);
		put_pstr(&c, "zen4_ibs_extensions");
		put_pstr(&c, "1");
		put_pstr(&c, "ibs_op");
		hws_perf_writer__set_feature(w, HWS_FEAT_PMU_CAPS, c.p, c.len);
		free(c.p);
	}
	/* trailer for IP|TID|TIME|CPU|PERIOD|RAW|IDENTIFIER is the same tid,time,cpu,id */
	write_sideband(&b, id);
	for (long i = 0; i < n; i++) {
		ibs_sample(&b, &e, next_ev(&e, i, &b, id));
		if (b.len > (1 << 20)) {
			put_hdr(&b, HWS_RECORD_FINISHED_ROUND, 0, 8);
			err = hws_perf_writer__write(w, b.p, b.len);
			if (err)
				return err;
			b.len = 0;
		}
	}
	real_sideband(&b, UINT64_MAX, id);
	err = hws_perf_writer__write(w, b.p, b.len);
	free(b.p);
	if (err)
		return err;
	return hws_perf_writer__close(w);
}

/* ------------------------------------------------------------------ Arm SPE */

static void spe_addr(struct buf *s, unsigned int idx, uint64_t v)
{
	uint8_t h = (uint8_t)(0xb0 | idx);

	put(s, &h, 1);
	put64(s, v);
}

static void spe_record(struct buf *s, const struct ev *e, uint64_t ts)
{
	bool store = e->kind == K_ST_HIT || e->kind == K_ST_MISS;
	uint8_t op[2] = {0x49, store ? 1 : 0}; /* OP_TYPE ld/st class, GP register */
	uint8_t ev[3] = {0x52, 0, 0};	       /* EVENTS, 2 bytes */
	uint8_t ds[2] = {0x43, 0};	       /* DATA_SOURCE, 1 byte */
	uint8_t ctx[5] = {0x65};	       /* CONTEXT EL2 (perf: tid when at EL2... ) */
	uint8_t lat[3] = {0x98, 0, 0};	       /* COUNTER total latency */
	uint16_t evb = 1 << 1 | 1 << 2;	       /* retired, L1D access */
	uint32_t tid = e->tid;
	uint8_t t = 0x71;

	spe_addr(s, 0, e->ip); /* PC, EL0 */
	put(s, op, 2);
	switch (e->kind) {
	case K_L1:
		ds[1] = 0x0;
		break;
	case K_LLC:
		ds[1] = 0xb; /* system cache */
		evb |= 1 << 3 | 1 << 8;
		break;
	case K_COH:
		ds[1] = e->coh_remote ? 0xd : 0x9; /* remote / peer core */
		evb |= 1 << 3 | 1 << 8;
		if (e->coh_remote)
			evb |= 1 << 10;
		break;
	case K_ST_MISS:
		evb |= 1 << 3;
		break;
	default:
		break;
	}
	memcpy(ev + 1, &evb, 2);
	put(s, ev, 3);
	if (!store)
		put(s, ds, 2);
	spe_addr(s, 2, e->addr);				/* data VA */
	spe_addr(s, 3, 0x100000000ULL + (e->addr & 0xfffffff)); /* data PA */
	lat[1] = (uint8_t)(e->lat & 0xff);
	lat[2] = (uint8_t)(e->lat >> 8);
	put(s, lat, 3);
	ctx[0] = 0x65;
	memcpy(ctx + 1, &tid, 4);
	put(s, ctx, 5);
	put(s, &t, 1);
	put64(s, ts);
}

static int gen_spe(const char *out, long n)
{
	struct hws_perf_event_attr a = {0};
	struct hws_perf_writer *w = hws_perf_writer__new(out, false);
	struct buf b = {0}, st[NR_THREADS] = {{0}};
	uint64_t id = 5, off[NR_THREADS] = {0};
	struct ev e;
	int err;

	if (!w)
		return -errno;
	a.size = sizeof(a);
	a.type = SPE_TYPE;
	a.config = 1 | 2 | (1ULL << 33) | (1ULL << 34); /* ts, pa, load+store filters */
	a.sample_period = 1024;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR |
			PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = a.mmap_data = 1;
	err = hws_perf_writer__add_attr(w, &a, "arm_spe_0//", &id, 1);
	if (err < 0)
		return err;
	set_common_features(w, "aarch64", "0x00000000410fd0c0", "arm_spe_0", SPE_TYPE);

	/* AUXTRACE_INFO v1: type ARM_SPE (4), priv {PMU type, per-cpu mmaps} */
	put_hdr(&b, HWS_RECORD_AUXTRACE_INFO, 0, 8 + 8 + 16);
	put32(&b, 4);
	put32(&b, 0);
	put64(&b, SPE_TYPE);
	put64(&b, 1);
	/* TIME_CONV: time_shift 0, time_mult 1, time_zero 0 (ts == perf time) */
	put_hdr(&b, HWS_RECORD_TIME_CONV, 0, 8 + 24);
	put64(&b, 0);
	put64(&b, 1);
	put64(&b, 0);
	write_sideband(&b, id);
	for (long i = 0; i < n; i++) {
		uint64_t t = next_ev(&e, i, &b, id);

		spe_record(&st[e.thr], &e, t);
		if (st[e.thr].len > 60000 || i == n - 1 || given) {
			/* flush every stream so time order roughly holds */
			for (int c = 0; c < NR_THREADS; c++) {
				size_t len = st[c].len, pad = (8 - (len & 7)) & 7;
				static const uint8_t zero[8];

				if (!len)
					continue;
				/* pad with PAD packets (0x00) so the payload stays whole */
				put(&st[c], zero, pad);
				len += pad;
				put_hdr(&b, HWS_RECORD_AUXTRACE, 0, 48);
				put64(&b, len);
				put64(&b, off[c]);
				put64(&b, (uint64_t)c + 1); /* reference */
				put32(&b, (uint32_t)c);	    /* idx */
				put32(&b, PID + 1 + (uint32_t)c);
				put32(&b, (uint32_t)c); /* cpu */
				put32(&b, 0);
				put(&b, st[c].p, len);
				off[c] += len;
				st[c].len = 0;
			}
		}
		if (b.len > (1 << 20)) {
			err = hws_perf_writer__write(w, b.p, b.len);
			if (err)
				return err;
			b.len = 0;
		}
	}
	real_sideband(&b, UINT64_MAX, id);
	err = hws_perf_writer__write(w, b.p, b.len);
	free(b.p);
	for (int c = 0; c < NR_THREADS; c++)
		free(st[c].p);
	if (err)
		return err;
	return hws_perf_writer__close(w);
}

/* ------------------------------------------------------------------ main */

static void write_truth(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	if (want_fields) {
		fprintf(f, "%#llx false-sharing c2c_fields\n", (unsigned long long)A(&c2c_fields));
		fprintf(f, "%#llx private c2c_fields_padded.a\n",
			(unsigned long long)A(&c2c_fields_padded.a));
		fprintf(f, "%#llx private c2c_fields_padded.b\n",
			(unsigned long long)A(&c2c_fields_padded.b));
		fprintf(f, "%#llx mixed c2c_fields_mixed\n",
			(unsigned long long)A(&c2c_fields_mixed));
		fclose(f);
		return;
	}
	fprintf(f, "%#llx false-sharing c2c_fs_counters\n",
		(unsigned long long)A(&c2c_fs_counters));
	fprintf(f, "%#llx false-sharing c2c_fs_pair\n", (unsigned long long)A(&c2c_fs_pair));
	fprintf(f, "%#llx true-sharing c2c_ts_counter\n", (unsigned long long)A(&c2c_ts_counter));
	fprintf(f, "%#llx true-sharing c2c_ts_flag\n", (unsigned long long)A(&c2c_ts_flag));
	fprintf(f, "%#llx read-shared c2c_ro_table\n", (unsigned long long)A(&c2c_ro_table));
	for (int i = 0; i < NR_PRIVATE; i++)
		fprintf(f, "%#llx private c2c_private[%d]\n",
			(unsigned long long)A(&c2c_private[i]), i);
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *vendor = "intel", *truth = NULL, *real = NULL, *samples = NULL;
	long n = 20000;
	int o, err;

	while ((o = getopt(argc, argv, "o:v:n:s:t:L:r:S:gFh")) != -1) {
		switch (o) {
		case 'o':
			out = optarg;
			break;
		case 'v':
			vendor = optarg;
			break;
		case 'n':
			n = strtol(optarg, NULL, 0);
			break;
		case 's':
			rng = strtoull(optarg, NULL, 0) | 1;
			break;
		case 't':
			truth = optarg;
			break;
		case 'g':
			want_cc = true;
			break;
		case 'F':
			want_fields = true;
			break;
		case 'r':
			real = optarg;
			break;
		case 'S':
			samples = optarg;
			break;
		case 'L':
			cache_line = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: gen_c2c -o FILE -v "
					"intel|ibs|ibs-zen3|ibs-zen4|ibs-perf|spe [-n SAMPLES] "
					"[-s SEED] [-t TRUTH] [-L L1D_LINE] [-g] [-F] [-r REAL -S "
					"SAMPLES]\n");
			return o == 'h' ? 0 : 2;
		}
	}
	if (want_cc && strcmp(vendor, "intel")) {
		fprintf(stderr, "gen_c2c: -g (call chains) is for -v intel only\n");
		return 2;
	}
	if (!real != !samples || (samples && (want_cc || truth))) {
		fprintf(stderr, "gen_c2c: -r REAL and -S SAMPLES go together, without -g, -t\n");
		return 2;
	}
	if (samples) {
		err = load_real(real);
		if (err) {
			fprintf(stderr, "gen_c2c: %s: %s\n", real, strerror(-err));
			return 1;
		}
		err = load_given(samples);
		if (err) {
			fprintf(stderr, "gen_c2c: %s: %s\n", samples, strerror(-err));
			return 1;
		}
		n = nr_given;
	}
	if (!out || n <= 0) {
		fprintf(stderr, "gen_c2c: -o FILE and a positive -n are needed\n");
		return 2;
	}
	if (!strcmp(vendor, "intel"))
		err = gen_intel(out, n);
	else if (!strcmp(vendor, "ibs"))
		err = gen_ibs(out, n, "AuthenticAMD,25,17,1");
	else if (!strcmp(vendor, "ibs-zen4") && (zen4 = true))
		err = gen_ibs(out, n, "AuthenticAMD,25,17,1");
	else if (!strcmp(vendor, "ibs-zen3"))
		err = gen_ibs(out, n, "AuthenticAMD,25,1,1"); /* CacheHitSt not trusted: no HITM */
	else if (!strcmp(vendor, "ibs-perf"))
		err = gen_ibs_perf(out, n);
	else if (!strcmp(vendor, "spe"))
		err = gen_spe(out, n);
	else {
		fprintf(stderr, "gen_c2c: -v intel, ibs, ibs-zen3, ibs-zen4, ibs-perf or spe\n");
		return 2;
	}
	if (err) {
		fprintf(stderr, "gen_c2c: %s: %s\n", out, strerror(-err));
		return 1;
	}
	if (truth)
		write_truth(truth);
	return 0;
}
