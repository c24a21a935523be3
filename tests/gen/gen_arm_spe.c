// SPDX-License-Identifier: MIT
/*
 * gen_arm_spe: write a perf.data holding random but well-formed Arm SPE records, for the
 * differential test against perf (tests/e2e/arm_spe_vs_perf.sh) and the benchmark
 * (scripts/bench-spe).
 *
 *   gen_arm_spe -o FILE [-n RECORDS] [-s SEED] [-m MIDR] [-c CPUS] [--v2] [--no-split]
 *               [--pipe] [--max-chunk BYTES] [--switches [--aux-late TICKS]]
 *
 * The file has: AUXTRACE_INFO (ARM_SPE, v1 {PMU type, per-cpu-mmaps} or --v2 per-CPU
 * metadata), TIME_CONV, one arm_spe_0 attr (id 1), headers ARCH=aarch64, CPUID=MIDR,
 * NRCPUS, PMU_MAPPINGS; then AUXTRACE records (48-byte header + payload padded to 8) for
 * CPUS streams, records spread round-robin in random runs, each stream cut into chunks at
 * random packet boundaries (so records span chunks).
 *
 * Every packet type appears: PC/TGT/VA/PA/PBT addresses (short and extended headers),
 * the three latency counters (short and extended), CONTEXT, OP_TYPE of all three classes,
 * EVENTS of 1/2/4 bytes, DATA_SOURCE of 1/2 bytes, PAD, alignment, END and TIMESTAMP.
 * The AUXTRACE offset field counts padded bytes and the payload's file offset is kept
 * congruent to it modulo 16, so alignment packets mean the same to perf (which aligns on
 * the buffer address) and to hwsample (which aligns on the stream position).
 *
 * --switches (tests/e2e/arm_spe_switch_vs_perf.sh): no CONTEXT packets, so the pid/tid of a
 * record comes from the task on its CPU at its time. A second attr (id 2, a dummy:u tracking
 * event with context_switch=1, sample_id_all; trailer TID, TIME, ID, CPU, IDENTIFIER, so its
 * switch records are 56 bytes) owns PERF_RECORD_SWITCH_CPU_WIDE records: switch-outs
 * (next_prev = the task switched in, from a fixed table, pid constant per tid) at random
 * times, some exactly at a record's time (time_zero + ts * 25 ns: TIME_CONV below) and some
 * strictly inside a record's 25 ns counter tick; switch-ins (ignored by both decoders) follow
 * some switch-outs at the same time and realign the file so payloads stay congruent (no
 * FINISHED_ROUND is inserted: it would flush perf's ordered events before all CPUs' AUX data
 * of a round is queued). The file is laid out as perf record writes it: per drain period
 * [D(k-1), D(k)) (20000..60000 counter ticks), for each CPU in order its ring records (the
 * period's switches, time-ordered) then its AUXTRACE chunk(s) holding every record that
 * ends with a TIMESTAMP < D(k) (a record may straddle into the next period's chunk), then
 * FINISHED_ROUND. Every CPU has records in every period up to its last (TIMESTAMP steps are
 * <= 5000 ticks), so perf 6.1's decoder never runs a queue dry before the last round (it
 * would not look at that queue again). --aux-late TICKS: each period's AUX data also holds
 * the records up to TICKS after its end, as when perf record reads a CPU's AUX area a little
 * after its ring and switches of the next period come one round late (perf's ordered events
 * keep a round in hand for that). Without --switches the output is byte-identical to what
 * it was before the option existed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/perfdata.h>

#define PMU_TYPE 9
/* file offset of the data section (hws_perf_writer__data_offset(); 104 in pipe mode, where
 * perf copies each payload into its own 16-byte aligned buffer anyway) */
static uint64_t file_hdr = 104;

/* rng: records and chunk cuts; swrng: --switches periods, switch times and tasks (its own
 * sequence, so the file and pipe forms of a seed hold the same switches) */
static uint64_t rng, swrng;

static uint64_t rnd_of(uint64_t *r)
{
	/* xorshift64* */
	*r ^= *r >> 12;
	*r ^= *r << 25;
	*r ^= *r >> 27;
	return *r * 2685821657736338717ULL;
}

static uint64_t rnd(void)
{
	return rnd_of(&rng);
}

static unsigned int rn(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static unsigned int srn(unsigned int n)
{
	return (unsigned int)(rnd_of(&swrng) % n);
}

struct stream {
	uint8_t *buf;
	size_t len, cap;
	size_t *cuts; /* allowed chunk boundaries (packet starts) */
	size_t nr_cuts, cap_cuts;
	size_t nocut_end; /* no cut before this offset (right after alignment packets) */
	uint64_t ts;
	/* --switches bookkeeping (never feeds the random sequence): per cut, the last
	 * TIMESTAMP begun before it; every TIMESTAMP written, in order */
	uint64_t *cut_ts, done_ts, *rts;
	size_t nr_rts, cap_rts;
};

static int switches; /* --switches: no CONTEXT packets (pid/tid from switch records) */
static unsigned long long aux_late; /* --aux-late: AUX read this many ticks after the ring */

static void *grow(void *p, size_t *cap, size_t elem)
{
	*cap = *cap ? *cap * 2 : 1024;
	p = realloc(p, *cap * elem);
	if (!p) {
		perror("realloc");
		exit(1);
	}
	return p;
}

static void put(struct stream *s, const void *p, size_t n)
{
	if (s->len + n > s->cap) {
		s->cap = (s->cap + n) * 2;
		s->buf = realloc(s->buf, s->cap);
		if (!s->buf) {
			perror("realloc");
			exit(1);
		}
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static unsigned int cut_align = 8;

static void mark_cut(struct stream *s)
{
	/* cut only at 8-byte multiples: AUXTRACE payloads are padded to 8 bytes, and the
	 * stream offsets must stay the ones the alignment packets were placed for (16 in
	 * pipe mode: perf then copies each payload into its own 16-byte aligned buffer) */
	if (s->len < s->nocut_end || s->len % cut_align)
		return;
	if (s->nr_cuts == s->cap_cuts) {
		size_t cap = s->cap_cuts;

		s->cuts = grow(s->cuts, &s->cap_cuts, sizeof(*s->cuts));
		s->cut_ts = grow(s->cut_ts, &cap, sizeof(*s->cut_ts));
	}
	s->cut_ts[s->nr_cuts] = s->done_ts;
	s->cuts[s->nr_cuts++] = s->len;
}

static void pkt(struct stream *s, const uint8_t *hdr, size_t hl, uint64_t v, size_t pl)
{
	uint8_t b[16];

	mark_cut(s);
	memcpy(b, hdr, hl);
	for (size_t i = 0; i < pl; i++)
		b[hl + i] = (uint8_t)(v >> (8 * i));
	put(s, b, hl + pl);
	if (rn(8) == 0) { /* stray PADs inside records */
		uint8_t z[3] = {0};

		mark_cut(s);
		put(s, z, 1 + rn(3));
	}
}

static void addr(struct stream *s, unsigned int idx, uint64_t v)
{
	if (rn(6) == 0) { /* extended header form */
		uint8_t h[2] = {(uint8_t)(0x20 | (idx >> 3)), (uint8_t)(0xb0 | (idx & 7))};

		pkt(s, h, 2, v, 8);
	} else {
		uint8_t h = (uint8_t)(0xb0 | idx);

		pkt(s, &h, 1, v, 8);
	}
}

static void counter(struct stream *s, unsigned int idx, uint64_t v)
{
	if (rn(6) == 0) {
		uint8_t h[2] = {0x20, (uint8_t)(0x98 | idx)};

		pkt(s, h, 2, v, 2);
	} else {
		uint8_t h = (uint8_t)(0x98 | idx);

		pkt(s, &h, 1, v, 2);
	}
}

static uint64_t code_addr(unsigned int el)
{
	uint64_t a = el ? 0xffff800008000000ULL + (rnd() & 0xffffffULL) * 4
			: 0x0000aaaa00400000ULL + (rnd() & 0xffffffULL) * 4;
	return (a & ((1ULL << 56) - 1)) | ((uint64_t)el << 61) | (1ULL << 63);
}

static void one_record(struct stream *s)
{
	static const uint8_t ldst_ops[] = {0x00, 0x01, 0x04, 0x05, 0x10, 0x11, 0x30, 0x31, 0x02,
					   0x03, 0x06, 0x07, 0x0a, 0x0e, 0x16, 0x1e, 0x08, 0x09,
					   0x0c, 0x88, 0x8d, 0x28, 0x14, 0x20, 0x25};
	static const uint8_t ds_codes[] = {0x0, 0x8, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe, 0x3, 0x7};
	unsigned int el = rn(3) == 0 ? 2 : rn(2) ? 0 : 1;
	unsigned int cls = rn(10) < 6 ? 1 : rn(2) ? 2 : 0;
	uint8_t h;

	/* alignment packet between records, sometimes */
	if (rn(20) == 0) {
		uint8_t a[2] = {(uint8_t)(0x20 | rn(4)), 0x00}, z = 0;
		size_t al = 1u << ((a[0] & 3) + 1), n = al - (s->len & (al - 1));

		mark_cut(s);
		if (n < 2) { /* the 2-byte header must fit before the boundary */
			put(s, &z, 1);
			n = al - (s->len & (al - 1));
		}
		put(s, a, 2);
		for (; n > 2; n--)
			put(s, &z, 1);
		/* perf wants the whole alignment (up to 16 B) in one buffer */
		s->nocut_end = s->len + 32;
	}
	addr(s, 0, code_addr(el));
	if (!switches && rn(4)) {
		h = rn(2) ? 0x65 : 0x64;
		pkt(s, &h, 1, 100 + rn(50), 4);
	}
	h = (uint8_t)(0x48 | cls);
	if (cls == 1) {
		pkt(s, &h, 1, ldst_ops[rn(sizeof(ldst_ops))], 1);
	} else if (cls == 2) {
		pkt(s, &h, 1, rn(32), 1);
	} else {
		uint8_t v = (uint8_t)rn(256);

		/* perf 6.1 aliases SVE-other (bit 16) with LD: keep SVE-other out of the
		 * differential set, the unit tests cover it */
		if ((v & 0x89) == 0x08)
			v |= 0x80;
		pkt(s, &h, 1, v, 1);
	}
	{
		unsigned int sz = rn(3); /* 1, 2 or 4 bytes */
		uint64_t ev = rnd() & (sz == 0 ? 0xffULL : sz == 1 ? 0xffffULL : 0x3ffffffULL);

		h = (uint8_t)(0x42 | (sz << 4));
		pkt(s, &h, 1, ev | 0x2, 1u << sz);
	}
	if (rn(3))
		counter(s, 1, rn(4096));
	counter(s, 0, rn(4096));
	if (cls == 1) {
		uint64_t va = rn(8) == 0 ? 0xffff000012340000ULL + rn(1 << 20) * 8
					 : 0x0000ffff80000000ULL + rn(1 << 24) * 8;

		addr(s, 2, (va & ((1ULL << 56) - 1)) | ((uint64_t)rn(256) << 56));
		counter(s, 2, rn(64));
		if (rn(3))
			addr(s, 3,
			     (0x80000000ULL + rn(1 << 24) * 8) | (1ULL << 63) |
				 ((uint64_t)rn(2) << 62) | ((uint64_t)rn(16) << 56));
		if (rn(5)) {
			h = rn(4) ? 0x43 : 0x53;
			pkt(s, &h, 1, ds_codes[rn(sizeof(ds_codes))], h == 0x43 ? 1 : 2);
		}
	} else if (cls == 2) {
		addr(s, 1, code_addr(el));
		if (rn(4) == 0)
			addr(s, 4, code_addr(el));
	}
	if (rn(10)) {
		s->ts += 1 + rn(5000);
		h = 0x71;
		/* cuts from the TIMESTAMP's own start on count as after it: a period's
		 * chunks stop before the packet that ends a record of a later period */
		s->done_ts = s->ts;
		pkt(s, &h, 1, s->ts, 8);
		if (s->nr_rts == s->cap_rts)
			s->rts = grow(s->rts, &s->cap_rts, sizeof(*s->rts));
		s->rts[s->nr_rts++] = s->ts;
	} else {
		h = 0x01;
		pkt(s, &h, 1, 0, 0);
	}
	mark_cut(s);
}

/* ---------------------------------------------------------------- output buffering */

static struct hws_perf_writer *w;
static uint8_t *obuf;
static size_t olen;
#define OBUF (1u << 20)

static void oflush(void)
{
	if (olen && hws_perf_writer__write(w, obuf, olen)) {
		fprintf(stderr, "gen_arm_spe: write failed\n");
		exit(1);
	}
	olen = 0;
}

static void out(const void *p, size_t n)
{
	if (olen + n > OBUF)
		oflush();
	if (n > OBUF) {
		if (hws_perf_writer__write(w, p, n))
			exit(1);
		return;
	}
	memcpy(obuf + olen, p, n);
	olen += n;
}

static uint64_t data_pos(void)
{
	return hws_perf_writer__data_size(w) + olen;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void emit_chunk(const uint8_t *d, size_t n, uint64_t *soff, uint32_t cpu)
{
	uint8_t h[48], z[8] = {0};
	size_t padded = (n + 7) & ~(size_t)7;

	/* payload file offset == stream offset (mod 16): perf aligns on addresses */
	if ((file_hdr + data_pos() + 48) % 16 != *soff % 16) {
		uint8_t fr[8] = {0};

		put_u32(fr, 68); /* FINISHED_ROUND */
		fr[6] = 8;
		out(fr, 8);
	}
	memset(h, 0, sizeof(h));
	put_u32(h, 71); /* AUXTRACE */
	h[6] = 48;
	put_u64(h + 8, padded);
	put_u64(h + 16, *soff);
	put_u64(h + 24, 0);
	put_u32(h + 32, cpu); /* idx */
	put_u32(h + 36, (uint32_t)-1);
	put_u32(h + 40, cpu);
	out(h, 48);
	out(d, n);
	out(z, padded - n);
	*soff += padded;
}

/* ---------------------------------------------------------------- --switches */

#define TIME_ZERO   1000000000ULL /* TIME_CONV time_zero */
#define NS_PER_TICK 25		  /* TIME_CONV: ns = time_zero + ts * 25600 >> 10 */
#define DUMMY_ID    2
#define SW_SIZE	    56 /* header, next_prev pid/tid, trailer TID TIME ID CPU IDENTIFIER */

/* the tasks switched in; a tid always has the same pid (perf keys its threads by tid) */
static const struct {
	uint32_t pid, tid;
} tasks[] = {
    {0, 0}, {1201, 1201}, {1201, 1207}, {1201, 1209}, {2300, 2300}, {2300, 2311}, {4077, 4077},
};
#define NR_TASKS (sizeof(tasks) / sizeof(tasks[0]))

/* SWITCH_CPU_WIDE on @cpu at @t: a switch-out names @next, a switch-in names @prev; the
 * trailer's pid/tid is the task the kernel writes it from (@prev out, @next in) */
static void emit_switch(uint32_t cpu, int is_out, unsigned int prev, unsigned int next, uint64_t t)
{
	uint8_t r[SW_SIZE];
	unsigned int other = is_out ? next : prev, self = is_out ? prev : next;

	memset(r, 0, sizeof(r));
	put_u32(r, 15); /* PERF_RECORD_SWITCH_CPU_WIDE */
	if (is_out)
		r[5] = 0x20; /* misc PERF_RECORD_MISC_SWITCH_OUT (1 << 13) */
	r[6] = SW_SIZE;
	put_u32(r + 8, tasks[other].pid);
	put_u32(r + 12, tasks[other].tid);
	put_u32(r + 16, tasks[self].pid);
	put_u32(r + 20, tasks[self].tid);
	put_u64(r + 24, t);
	put_u64(r + 32, DUMMY_ID);
	put_u32(r + 40, cpu);
	put_u64(r + 48, DUMMY_ID);
	out(r, SW_SIZE);
}

/* would an AUXTRACE written now have its payload congruent to @soff modulo 16? */
static int aligned_for(uint64_t soff)
{
	return (file_hdr + data_pos() + 48) % 16 == soff % 16;
}

/* AUXTRACE chunks for stream bytes [@pos, @end) (@end a cut or the stream's end), cut at
 * random allowed cuts of at most about @max_chunk bytes; @ci: the stream's cut cursor */
static void emit_range(struct stream *s, size_t *ci, size_t pos, size_t end, uint64_t *soff,
		       uint32_t cpu, int split, unsigned long long max_chunk)
{
	while (pos < end) {
		size_t e = end, target = pos + 64 + rn((unsigned int)max_chunk - 63);

		if (split && target < end) {
			while (*ci < s->nr_cuts && s->cuts[*ci] <= target)
				(*ci)++;
			if (*ci && s->cuts[*ci - 1] > pos)
				e = s->cuts[*ci - 1];
		}
		emit_chunk(s->buf + pos, e - pos, soff, cpu);
		pos = e;
	}
}

/* The perf record layout of --switches (see the file comment). */
static void emit_periods(struct stream *st, unsigned int ncpus, uint64_t *soff, int split,
			 unsigned long long max_chunk)
{
	size_t pos[64] = {0}, ci[64] = {0}, pj[64] = {0}, ri[64] = {0};
	unsigned int cur[64];
	uint64_t d = 1000000, maxts = 0;
	uint8_t fr[8] = {0};

	put_u32(fr, 68); /* FINISHED_ROUND */
	fr[6] = 8;
	for (unsigned int c = 0; c < ncpus; c++) {
		cur[c] = srn(NR_TASKS); /* the task before the first switch: unknown to readers */
		if (st[c].len && st[c].ts > maxts)
			maxts = st[c].ts;
	}
	while (d <= maxts) {
		uint64_t prevd = d;

		d += 20000 + srn(40000);
		for (unsigned int c = 0; c < ncpus; c++) {
			struct stream *s = &st[c];
			uint64_t t[4], tlast = TIME_ZERO + prevd * NS_PER_TICK;
			unsigned int n = srn(4), m = 0;
			size_t a = ri[c], end = pos[c];

			/* this period's TIMESTAMPs: rts[a, ri) */
			while (ri[c] < s->nr_rts && s->rts[ri[c]] < d)
				ri[c]++;
			for (unsigned int i = 0; i < n; i++) {
				unsigned int kind = srn(8), k;
				uint64_t v;

				if (kind < 3 && ri[c] > a) {
					/* at a record's time, or inside its tick */
					v = TIME_ZERO + s->rts[a + srn((unsigned int)(ri[c] - a))] *
							    NS_PER_TICK;
					if (kind == 2)
						v += 1 + srn(NS_PER_TICK - 1);
				} else {
					v = TIME_ZERO + prevd * NS_PER_TICK +
					    rnd_of(&swrng) % ((d - prevd) * NS_PER_TICK);
				}
				/* insert sorted, no two switches of a CPU at the same time */
				k = m;
				while (k && t[k - 1] > v) {
					t[k] = t[k - 1];
					k--;
				}
				if (k && t[k - 1] == v) {
					memmove(&t[k], &t[k + 1], (m - k) * sizeof(*t));
					continue;
				}
				t[k] = v;
				m++;
			}
			for (unsigned int i = 0; i < m; i++) {
				unsigned int prev = cur[c];

				cur[c] = (prev + 1 + srn(NR_TASKS - 1)) % NR_TASKS;
				emit_switch(c, 1, prev, cur[c], t[i]);
				if (srn(2))
					emit_switch(c, 0, prev, cur[c], t[i]);
				tlast = t[i];
			}
			/* AUX data up to the last cut before the first TIMESTAMP >= d (+ aux_late)
			 */
			if (!s->len || pos[c] >= s->len)
				continue;
			if (d > s->ts) {
				end = s->len;
			} else {
				while (pj[c] < s->nr_cuts && s->cut_ts[pj[c]] < d + aux_late)
					pj[c]++;
				if (pj[c] && s->cuts[pj[c] - 1] > pos[c])
					end = s->cuts[pj[c] - 1];
			}
			if (end <= pos[c])
				continue;
			if (!aligned_for(soff[c]))
				emit_switch(c, 0, cur[c], cur[c], tlast); /* 56 bytes: realign */
			emit_range(s, &ci[c], pos[c], end, &soff[c], c, split, max_chunk);
			pos[c] = end;
		}
		out(fr, 8);
	}
}

static void usage(void)
{
	fprintf(
	    stderr,
	    "usage: gen_arm_spe -o FILE [-n RECORDS] [-s SEED] [-m MIDR] [-c CPUS] "
	    "[--v2] [--no-split] [--pipe] [--max-chunk BYTES] [--switches [--aux-late TICKS]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	unsigned long long nrec = 1000, seed = 1, midr = 0x410fd0c0, max_chunk = 4096;
	unsigned int ncpus = 2;
	int v2 = 0, split = 1, pipe = 0;
	struct stream *st;
	struct hws_perf_event_attr attr;
	uint64_t id = 1, *soff;
	char cpuid[64];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			nrec = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-m") && i + 1 < argc)
			midr = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-c") && i + 1 < argc)
			ncpus = (unsigned int)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--max-chunk") && i + 1 < argc)
			max_chunk = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--v2"))
			v2 = 1;
		else if (!strcmp(argv[i], "--no-split"))
			split = 0;
		else if (!strcmp(argv[i], "--pipe"))
			pipe = 1;
		else if (!strcmp(argv[i], "--switches"))
			switches = 1;
		else if (!strcmp(argv[i], "--aux-late") && i + 1 < argc)
			aux_late = strtoull(argv[++i], NULL, 0);
		else
			usage();
	}
	if (!path || !ncpus || ncpus > 64 || max_chunk < 64)
		usage();
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	swrng = seed * 0xbf58476d1ce4e5b9ULL + 7;
	if (pipe)
		cut_align = 16;
	obuf = malloc(OBUF);
	st = calloc(ncpus, sizeof(*st));
	soff = calloc(ncpus, sizeof(*soff));
	if (!obuf || !st || !soff)
		return 1;
	for (unsigned int c = 0; c < ncpus; c++)
		st[c].ts = 1000000 + c * 7;
	for (unsigned long long r = 0; r < nrec;) {
		unsigned int c = rn(ncpus), run = 1 + rn(8);

		for (unsigned int k = 0; k < run && r < nrec; k++, r++)
			one_record(&st[c]);
	}

	w = hws_perf_writer__new(path, pipe);
	if (!w) {
		fprintf(stderr, "gen_arm_spe: %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PMU_TYPE;
	attr.config = 0x1; /* ts_enable */
	attr.sample_period = 1024;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR |
			   PERF_SAMPLE_ADDR |
			   PERF_SAMPLE_WEIGHT; /* so perf script -F accepts them */
	attr.sample_id_all = 1;
	if (hws_perf_writer__add_attr(w, &attr, "arm_spe_0//", &id, 1) < 0)
		return 1;
	if (switches) {
		/* perf record's tracking event for SPE: dummy:u with context_switch */
		uint64_t did = DUMMY_ID;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_DUMMY;
		attr.sample_period = 1;
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				   PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
		attr.exclude_kernel = 1;
		attr.context_switch = 1;
		attr.sample_id_all = 1;
		if (hws_perf_writer__add_attr(w, &attr, "dummy:u", &did, 1) < 0)
			return 1;
	}
	if (!pipe) {
		int64_t doff = hws_perf_writer__data_offset(w); /* the attrs are all there */

		if (doff < 0)
			return 1;
		file_hdr = (uint64_t)doff;
	}
	snprintf(cpuid, sizeof(cpuid), "0x%016llx", midr);
	hws_perf_writer__set_string(w, HWS_FEAT_ARCH, "aarch64");
	hws_perf_writer__set_string(w, HWS_FEAT_CPUID, cpuid);
	hws_perf_writer__set_string(w, HWS_FEAT_HOSTNAME, "spe-gen");
	{
		uint32_t nrcpus[2] = {ncpus, ncpus};

		hws_perf_writer__set_feature(w, HWS_FEAT_NRCPUS, nrcpus, sizeof(nrcpus));
	}
	{
		/* PMU_MAPPINGS: {u32 nr; {u32 type; u32 len; char name[len]}} */
		uint8_t pm[128];
		size_t n = 0;
		const char *names[2] = {"arm_spe_0", "software"};
		uint32_t types[2] = {PMU_TYPE, 1};

		put_u32(pm, 2);
		n = 4;
		for (int i = 0; i < 2; i++) {
			put_u32(pm + n, types[i]);
			put_u32(pm + n + 4, 16);
			memset(pm + n + 8, 0, 16);
			memcpy(pm + n + 8, names[i], strlen(names[i]));
			n += 8 + 16;
		}
		hws_perf_writer__set_feature(w, HWS_FEAT_PMU_MAPPINGS, pm, n);
	}

	/* TIME_CONV first: perf copies it when it reads AUXTRACE_INFO.
	 * shift 10, mult 25600: shift 10, mult 1600 (40 MHz counter -> ns), zero */
	{
		uint8_t tc[56];

		memset(tc, 0, sizeof(tc));
		put_u32(tc, 79);
		tc[6] = 56;
		put_u64(tc + 8, 10);
		put_u64(tc + 16, 25600);
		put_u64(tc + 24, 1000000000ULL);
		put_u64(tc + 32, 0);
		put_u64(tc + 40, ~0ULL);
		tc[48] = 1;
		tc[49] = 0;
		out(tc, 56);
	}

	/* AUXTRACE_INFO */
	{
		uint8_t rec[16 + 8 * (4 + 64 * 7)];
		size_t n = 0;

		memset(rec, 0, sizeof(rec));
		put_u32(rec, 70);
		put_u32(rec + 8, 4); /* PERF_AUXTRACE_ARM_SPE */
		if (!v2) {
			put_u64(rec + 16, PMU_TYPE);
			put_u64(rec + 24, 1); /* per-cpu mmaps */
			n = 32;
		} else {
			put_u64(rec + 16, 2); /* version */
			put_u64(rec + 24, 4); /* header size in u64s */
			put_u64(rec + 32, PMU_TYPE);
			put_u64(rec + 40, ncpus);
			n = 48;
			for (unsigned int c = 0; c < ncpus; c++) {
				put_u64(rec + n, 0x1010101010101010ULL);
				put_u64(rec + n + 8, c);
				put_u64(rec + n + 16, 4);
				/* odd CPUs are a Cortex-A53 (no common DS table) */
				put_u64(rec + n + 24, (c & 1) ? 0x410fd034 : midr);
				put_u64(rec + n + 32, PMU_TYPE);
				put_u64(rec + n + 40, 1024);
				put_u64(rec + n + 48, 0x3ffffff);
				n += 56;
			}
		}
		rec[6] = (uint8_t)n;
		rec[7] = (uint8_t)(n >> 8);
		out(rec, n);
	}
	/* AUXTRACE chunks: interleave the streams, cut at random packet starts */
	if (switches) {
		emit_periods(st, ncpus, soff, split, max_chunk);
	} else {
		size_t *pos = calloc(ncpus, sizeof(*pos)), *ci = calloc(ncpus, sizeof(*ci));
		unsigned int left = ncpus;

		while (left) {
			unsigned int c = rn(ncpus);
			size_t end, target;

			if (pos[c] >= st[c].len)
				continue;
			target = pos[c] + 64 + rn((unsigned int)max_chunk - 63);
			end = st[c].len;
			if (split && target < st[c].len) {
				/* last allowed cut <= target */
				while (ci[c] < st[c].nr_cuts && st[c].cuts[ci[c]] <= target)
					ci[c]++;
				for (size_t k = ci[c]; k-- > 0;) {
					if (st[c].cuts[k] <= pos[c])
						break;
					end = st[c].cuts[k];
					break;
				}
			} else if (!split) {
				end = st[c].len;
			}
			if (end <= pos[c])
				end = st[c].len;
			emit_chunk(st[c].buf + pos[c], end - pos[c], &soff[c], c);
			pos[c] = end;
			if (pos[c] >= st[c].len)
				left--;
		}
		free(pos);
		free(ci);
	}
	oflush();
	if (hws_perf_writer__close(w)) {
		fprintf(stderr, "gen_arm_spe: close failed\n");
		return 1;
	}
	for (unsigned int c = 0; c < ncpus; c++) {
		free(st[c].buf);
		free(st[c].cuts);
		free(st[c].cut_ts);
		free(st[c].rts);
	}
	free(st);
	free(soff);
	free(obuf);
	return 0;
}
