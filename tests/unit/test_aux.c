// SPDX-License-Identifier: MIT
/*
 * core/kernel/aux.c against a simulated AUX producer (tests/kernel_sim.h): the "hardware" writes a
 * stream of numbered u64 words into plain memory with the kernel's aux_head/aux_tail
 * protocol and emits PERF_RECORD_AUX records. Checked: record layout (perf's AUXTRACE),
 * content and stream offsets of every chunk, wrap into two pieces, padding, each AUX flag,
 * gap marking at the exact discontinuity, snapshot of a wrapped free-running area (both
 * head styles), a reader slower than the producer (threaded), overrun accounting, mmap
 * size rounding. Also run under ThreadSanitizer by tests/e2e/tsan_ring.sh.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <hwsample/aux.h>
#include <hwsample/ring.h>
#ifndef HWS_TEST_STANDALONE
#include <hwsample/perfdata.h>
#endif

#include "tests.h"
#include "kernel_sim.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------- collecting chunks */

#define MAX_CHUNKS 4096

struct chunk {
	struct hws_auxtrace_event ev;
	uint64_t len; /* data bytes (without pad) */
	bool gap;
	bool two_pieces;
	uint64_t first_word, last_word; /* seq of the first/last word (if whole words) */
};

struct collect {
	unsigned nr;
	struct chunk c[MAX_CHUNKS];
	int fail_with;	/* non-zero: the callback refuses with this value */
	bool no_pos;	/* words are not numbered by stream position (losses, SPE head) */
	uint64_t bad;	/* malformed records */
	uint64_t words; /* words seen */
	/* stream check */
	bool have_prev;
	uint64_t prev_word;
	uint64_t jumps;	       /* seq discontinuities */
	uint64_t jumps_no_gap; /* ... not at the start of a gap chunk */
	uint64_t skipped_words;
};

static uint64_t word_at(const struct hws_aux_out *o, uint64_t i)
{
	uint64_t w;
	const unsigned char *p;

	if (i * 8 < o->len[0])
		p = (const unsigned char *)o->data[0] + i * 8;
	else
		p = (const unsigned char *)o->data[1] + (i * 8 - o->len[0]);
	memcpy(&w, p, 8);
	return w;
}

static int collect_cb(void *ctx, const struct hws_aux_out *o)
{
	struct collect *c = ctx;
	struct chunk *ch;
	uint64_t len = o->len[0] + o->len[1], i, n;

	if (c->fail_with)
		return c->fail_with;
	if (c->nr >= MAX_CHUNKS)
		return -ENOSPC;
	ch = &c->c[c->nr++];
	ch->ev = o->ev;
	ch->len = len;
	ch->gap = o->gap;
	ch->two_pieces = o->len[1] != 0;
	/* perf's AUXTRACE layout */
	if (o->ev.header.type != 71 || o->ev.header.size != 48 || o->ev.size != len + o->pad ||
	    (o->ev.size & 7) || o->pad > 7 || (o->len[1] && !o->data[1]) || o->ev.reserved__)
		c->bad++;
	if (len & 7)
		return 0; /* padding tests look at the bytes themselves */
	n = len / 8;
	for (i = 0; i < n; i++) {
		uint64_t w = word_at(o, i);

		if ((w >> 56) != 0xA5) {
			c->bad++;
			continue;
		}
		w &= (1ULL << 56) - 1;
		if (i == 0)
			ch->first_word = w;
		ch->last_word = w;
		/* the word's seq is its stream position / 8 when nothing is skipped in the
		 * producer's numbering; the producer below numbers by position */
		if (!c->no_pos && ((o->ev.offset / 8 + i) & ((1ULL << 56) - 1)) != w)
			c->bad++;
		if (c->have_prev && w != c->prev_word + 1) {
			c->jumps++;
			c->skipped_words += w - c->prev_word - 1;
			if (!(i == 0 && o->gap))
				c->jumps_no_gap++;
		}
		c->have_prev = true;
		c->prev_word = w;
		c->words++;
	}
	return 0;
}

/* Producer helper: @nwords words numbered by their stream position (offset / 8). A word
 * the hardware could not write is simply missing, so the next one written still carries
 * its position: a drop shows as a jump in the numbering. */
static uint64_t hw_write(struct ksim_aux *a, uint64_t nwords, uint64_t flags,
			 struct ksim_aux_rec *rec)
{
	static uint64_t buf[8192];
	uint64_t i;

	for (i = 0; i < nwords; i++)
		buf[i] = ksim_aux__word(a->head / 8 + i);
	return ksim_aux__write(a, buf, nwords * 8, flags, rec);
}

/* As hw_write, but the numbering says @skip words were lost before these (hardware data
 * loss inside the stream, e.g. SPE PMBSR.DL). */
static uint64_t hw_write_after_loss(struct ksim_aux *a, uint64_t nwords, uint64_t skip,
				    uint64_t flags, struct ksim_aux_rec *rec, uint64_t *bias)
{
	static uint64_t buf[8192];
	uint64_t i;

	*bias += skip;
	for (i = 0; i < nwords; i++)
		buf[i] = ksim_aux__word(a->head / 8 + i + *bias);
	return ksim_aux__write(a, buf, nwords * 8, flags, rec);
}

/* ---------------------------------------------------------------- tests */

static void test_mmap_sizes(void)
{
	struct hws_mmap_sizes sz;

	T_EQ_U64("sizes: -m 3,5 ok", hws_aux__mmap_sizes(4096, 3, 5, &sz), 0);
	T_EQ_U64("sizes: data 3 -> 4 pages", sz.data_pages, 4);
	__T("sizes: data rounded flagged", sz.data_rounded);
	T_EQ_U64("sizes: aux 5 -> 8 pages", sz.aux_pages, 8);
	__T("sizes: aux rounded flagged", sz.aux_rounded);
	T_EQ_U64("sizes: data mmap length", sz.data_len, 5 * 4096);
	T_EQ_U64("sizes: aux_offset = (1 + data) pages", sz.aux_offset, 5 * 4096);
	T_EQ_U64("sizes: aux length", sz.aux_len, 8 * 4096);

	T_EQ_U64("sizes: -m 8,16", hws_aux__mmap_sizes(65536, 8, 16, &sz), 0);
	__T("sizes: powers of two not flagged", !sz.data_rounded && !sz.aux_rounded);
	T_EQ_U64("sizes: 64K pages aux_offset", sz.aux_offset, 9 * 65536);
	T_EQ_U64("sizes: no AUX", hws_aux__mmap_sizes(4096, 1, 0, &sz), 0);
	T_EQ_U64("sizes: no AUX length", sz.aux_len, 0);
	T_EQ_U64("sizes: control page only", hws_aux__mmap_sizes(4096, 0, 0, &sz), 0);
	T_EQ_U64("sizes: control page only length", sz.data_len, 4096);
	T_EQ_U64("sizes: bad page size", hws_aux__mmap_sizes(3000, 1, 1, &sz), (uint64_t)-EINVAL);
	T_EQ_U64("sizes: too many pages", hws_aux__mmap_sizes(4096, 1ULL << 31, 1, &sz),
		 (uint64_t)-EINVAL);
	T_EQ_U64("watermark: half when draining", hws_aux__default_watermark(1 << 20, false),
		 1 << 19);
	T_EQ_U64("watermark: 0 in snapshot mode", hws_aux__default_watermark(1 << 20, true), 0);
}

static void test_args(void)
{
	struct ksim_ring k;
	struct ksim_aux a;
	struct hws_aux *x;

	ksim_ring__init(&k, 4096, false, false);
	ksim_aux__init(&a, k.pc, 8192, false, &k);
	errno = 0;
	__T("aux size not a power of two refused", !hws_aux__new(k.pc, a.base, 6000, false));
	T_EQ_U64("errno EINVAL", errno, EINVAL);
	x = hws_aux__new(k.pc, a.base, 8192, true);
	T_EQ_U64("drain refused in snapshot mode", hws_aux__drain(x, 0, collect_cb, NULL),
		 (uint64_t)-EINVAL);
	hws_aux__delete(x);
	hws_aux__delete(NULL);
	ksim_aux__fini(&a);
	ksim_ring__fini(&k);
}

/* Plain drain, record fields, wrap into two pieces, tail published. */
static void test_drain_wrap(void)
{
	static struct collect c;
	struct ksim_ring k;
	struct ksim_aux a;
	struct hws_aux *x;
	int n;

	ksim_ring__init(&k, 4096, false, false);
	ksim_aux__init(&a, k.pc, 8192, false, &k);
	x = hws_aux__new(k.pc, a.base, 8192, false);
	hws_aux__set_stream(x, 3, 5, (uint32_t)-1); /* per-CPU mode: cpu 5 */

	memset(&c, 0, sizeof(c));
	T_EQ_U64("nothing yet", hws_aux__drain(x, 1, collect_cb, &c), 0);
	hw_write(&a, 100, 0, NULL);
	hw_write(&a, 28, 0, NULL);
	n = hws_aux__drain(x, 0x1234, collect_cb, &c);
	T_EQ_U64("one record for both writes", n, 1);
	T_EQ_U64("record: offset", c.c[0].ev.offset, 0);
	T_EQ_U64("record: size", c.c[0].ev.size, 128 * 8);
	T_EQ_U64("record: reference", c.c[0].ev.reference, 0x1234);
	T_EQ_U64("record: idx", c.c[0].ev.idx, 3);
	T_EQ_U64("record: cpu", c.c[0].ev.cpu, 5);
	T_EQ_U64("record: tid", c.c[0].ev.tid, (uint32_t)-1);
	T_EQ_U64("tail published", k.pc->aux_tail, 1024);
	T_EQ_U64("fill now 0", hws_aux__fill(x), 0);

	/* to 64 bytes before the end, then across it */
	hw_write(&a, (8192 - 1024 - 64) / 8, 0, NULL);
	hws_aux__drain(x, 0, collect_cb, &c);
	hw_write(&a, 40, 0, NULL); /* 320 bytes: 64 at the end, 256 at the start */
	n = hws_aux__drain(x, 0, collect_cb, &c);
	T_EQ_U64("wrap: one record", n, 1);
	__T("wrap: two pieces", c.c[c.nr - 1].two_pieces);
	T_EQ_U64("wrap: offset", c.c[c.nr - 1].ev.offset, 8192 - 64);
	T_EQ_U64("wrap: size", c.c[c.nr - 1].ev.size, 320);
	T_EQ_U64("records well-formed, words in place", c.bad, 0);
	T_EQ_U64("no discontinuity", c.jumps, 0);
	T_EQ_U64("words", c.words, (8192 + 256) / 8);
	T_EQ_U64("stats: bytes", hws_aux__stats(x)->bytes, 8192 + 256);
	T_EQ_U64("stats: chunks", hws_aux__stats(x)->chunks, 3);
	T_EQ_U64("stats: no gaps", hws_aux__stats(x)->gaps, 0);

	/* a full area (kernel: size - 8 at most) in one go */
	hw_write(&a, 8192 / 8, 0, NULL);
	T_EQ_U64("full: kernel keeps 8 bytes free", hws_aux__fill(x), 8192 - 8);
	hws_aux__drain(x, 0, collect_cb, &c);
	T_EQ_U64("full: drained", c.c[c.nr - 1].ev.size, 8192 - 8);
	T_EQ_U64("stats: max_fill", hws_aux__stats(x)->max_fill, 8192 - 8);
	T_EQ_U64("full: the rest was truncated", a.truncated, 1);

	/* padding: the PMU wrote 13 bytes (not whole words) */
	{
		struct collect *c2 = calloc(1, sizeof(*c2));
		uint64_t h = a.head;
		const unsigned char *p;

		memset(a.base + (h & a.mask), 0x77, 13);
		a.head = h + 13;
		__atomic_store_n(&k.pc->aux_head, a.head, __ATOMIC_RELEASE);
		hws_aux__drain(x, 0, collect_cb, c2);
		T_EQ_U64("pad: one record", c2->nr, 1);
		T_EQ_U64("pad: data length", c2->c[0].len, 13);
		T_EQ_U64("pad: size rounded to 8", c2->c[0].ev.size, 16);
		T_EQ_U64("pad: well-formed", c2->bad, 0);
		p = a.base + (h & a.mask);
		__T("pad: data bytes", p[0] == 0x77 && p[12] == 0x77);
		free(c2);
	}
	hws_aux__delete(x);
	ksim_aux__fini(&a);
	ksim_ring__fini(&k);
}

/* Each PERF_RECORD_AUX flag: counted; TRUNCATED / PARTIAL split the drain at the exact
 * discontinuity and mark the chunk after it. */
static void test_flags(void)
{
	static struct collect c;
	struct ksim_ring k;
	struct ksim_aux a;
	struct ksim_aux_rec rec[8];
	struct hws_aux *x;
	uint64_t bias = 0;
	int n, i;

	ksim_ring__init(&k, 65536, false, false);
	ksim_aux__init(&a, k.pc, 65536, false, &k);
	x = hws_aux__new(k.pc, a.base, 65536, false);
	memset(&c, 0, sizeof(c));
	c.no_pos = true;

	/* A: the driver stopped early (TRUNCATED), words after it are lost */
	hw_write_after_loss(&a, 100, 0, PERF_AUX_FLAG_TRUNCATED, &rec[0], &bias);
	/* B: after 17 lost words */
	hw_write_after_loss(&a, 50, 17, 0, &rec[1], &bias);
	/* C: its own data has holes (PARTIAL): the decoder must resync at its start */
	hw_write_after_loss(&a, 30, 5, PERF_AUX_FLAG_PARTIAL, &rec[2], &bias);
	/* D: a sample collided: counted, stream intact */
	hw_write_after_loss(&a, 20, 0, PERF_AUX_FLAG_COLLISION, &rec[3], &bias);
	/* E: PMU format bits only */
	hw_write_after_loss(&a, 10, 0, 0x0100, &rec[4], &bias);

	for (i = 0; i < 5; i++)
		T_EQ_U64(
		    "no unknown flags",
		    hws_aux__note_aux_record(x, rec[i].aux_offset, rec[i].aux_size, rec[i].flags),
		    0);
	T_EQ_U64("unknown flag bits returned", hws_aux__note_aux_record(x, a.head, 0, 0x10000),
		 0x10000);
	n = hws_aux__drain(x, 0, collect_cb, &c);
	T_EQ_U64("split in three at the two gaps", n, 3);
	T_EQ_U64("A: offset", c.c[0].ev.offset, 0);
	T_EQ_U64("A: ends where TRUNCATED says", c.c[0].len, 800);
	__T("A: no gap", !c.c[0].gap);
	T_EQ_U64("B: starts after A", c.c[1].ev.offset, 800);
	__T("B: gap", c.c[1].gap);
	T_EQ_U64("B: up to C", c.c[1].len, 400);
	T_EQ_U64("C..E: offset", c.c[2].ev.offset, 1200);
	__T("C: gap (PARTIAL)", c.c[2].gap);
	T_EQ_U64("C..E: length", c.c[2].len, 60 * 8);
	T_EQ_U64("well-formed", c.bad, 0 + 0);
	T_EQ_U64("two jumps, both at gap chunks", c.jumps, 2);
	T_EQ_U64("no jump outside a gap chunk", c.jumps_no_gap, 0);
	T_EQ_U64("skipped words", c.skipped_words, 22);
	T_EQ_U64("truncated", hws_aux__stats(x)->truncated, 1);
	T_EQ_U64("partial", hws_aux__stats(x)->partial, 1);
	T_EQ_U64("collision", hws_aux__stats(x)->collision, 1);
	T_EQ_U64("overwrite", hws_aux__stats(x)->overwrite, 0);
	T_EQ_U64("aux records", hws_aux__stats(x)->aux_records, 6);
	T_EQ_U64("gaps", hws_aux__stats(x)->gaps, 2);
	T_EQ_U64("no late gaps", hws_aux__stats(x)->late_gaps, 0);

	/* late: the data was drained before its PARTIAL record was seen */
	hw_write_after_loss(&a, 10, 0, PERF_AUX_FLAG_PARTIAL, &rec[5], &bias);
	hws_aux__drain(x, 0, collect_cb, &c);
	hws_aux__note_aux_record(x, rec[5].aux_offset, rec[5].aux_size, rec[5].flags);
	hw_write_after_loss(&a, 10, 0, 0, &rec[6], &bias);
	hws_aux__drain(x, 0, collect_cb, &c);
	T_EQ_U64("late gap counted", hws_aux__stats(x)->late_gaps, 1);
	__T("late gap marks the next chunk", c.c[c.nr - 1].gap);

	/* TRUNCATED at the very end of what was drained: the next chunk gets the gap */
	hw_write_after_loss(&a, 10, 0, PERF_AUX_FLAG_TRUNCATED, &rec[7], &bias);
	hws_aux__drain(x, 0, collect_cb, &c);
	__T("truncated chunk itself clean", !c.c[c.nr - 1].gap);
	hws_aux__note_aux_record(x, rec[7].aux_offset, rec[7].aux_size, rec[7].flags);
	hw_write_after_loss(&a, 10, 3, 0, NULL, &bias);
	hws_aux__drain(x, 0, collect_cb, &c);
	__T("chunk after a truncation: gap", c.c[c.nr - 1].gap);
	T_EQ_U64("still no jump outside a gap chunk", c.jumps_no_gap, 0);

	/* the callback refuses: nothing consumed, handed out again next time */
	{
		uint64_t tail = k.pc->aux_tail, chunks = hws_aux__stats(x)->chunks;

		hw_write_after_loss(&a, 10, 0, 0, NULL, &bias);
		c.fail_with = 7;
		T_EQ_U64("refusal returned", hws_aux__drain(x, 0, collect_cb, &c), 7);
		T_EQ_U64("refusal: tail kept", k.pc->aux_tail, tail);
		c.fail_with = 0;
		T_EQ_U64("retry", hws_aux__drain(x, 0, collect_cb, &c), 1);
		T_EQ_U64("retry: offset", c.c[c.nr - 1].ev.offset, tail);
		T_EQ_U64("retry: counted once", hws_aux__stats(x)->chunks, chunks + 1);
	}
	hws_aux__delete(x);
	ksim_aux__fini(&a);
	ksim_ring__fini(&k);
}

/* The producer ignores the tail (an overwrite mapping drained by mistake, or a bogus
 * head): exact lost bytes, gap, newest buffer kept. */
static void test_overrun(void)
{
	static struct collect c;
	struct ksim_ring k;
	struct ksim_aux a;
	struct hws_aux *x;

	ksim_ring__init(&k, 4096, false, false);
	ksim_aux__init(&a, k.pc, 4096, true, &k);
	x = hws_aux__new(k.pc, a.base, 4096, false);
	memset(&c, 0, sizeof(c));
	hw_write(&a, 100, 0, NULL);
	hws_aux__drain(x, 0, collect_cb, &c);
	hw_write(&a, 1000, 0, NULL); /* 8000 bytes into a 4096-byte area */
	hws_aux__drain(x, 0, collect_cb, &c);
	T_EQ_U64("overrun counted", hws_aux__stats(x)->overruns, 1);
	T_EQ_U64("lost bytes exact", hws_aux__stats(x)->lost_bytes, 8000 - 4096);
	__T("gap after the overrun", c.c[c.nr - 1].gap);
	T_EQ_U64("newest buffer kept", c.c[c.nr - 1].ev.offset, 800 + 8000 - 4096);
	T_EQ_U64("well-formed, words in place", c.bad, 0);
	T_EQ_U64("jump only at the gap", c.jumps_no_gap, 0);
	hws_aux__delete(x);
	ksim_aux__fini(&a);
	ksim_ring__fini(&k);
}

/* -S: free-running area, snapshot on demand. */
static void test_snapshot(bool head_mod)
{
	static struct collect c;
	struct ksim_ring k;
	struct ksim_aux a;
	struct hws_aux *x;
	const uint64_t size = 16384;
	struct chunk *ch;

	ksim_ring__init(&k, 4096, false, false);
	ksim_aux__init(&a, k.pc, size, true, &k);
	a.head_mod = head_mod;
	x = hws_aux__new(k.pc, a.base, size, true);
	memset(&c, 0, sizeof(c));
	c.no_pos = head_mod;

	T_EQ_U64("snap: empty area, nothing", hws_aux__snapshot(x, 0, 0, collect_cb, &c), 0);
	hw_write(&a, 100, 0, NULL);
	T_EQ_U64("snap: one record", hws_aux__snapshot(x, 9, 0, collect_cb, &c), 1);
	ch = &c.c[c.nr - 1];
	T_EQ_U64("snap1: from 0", ch->ev.offset, 0);
	T_EQ_U64("snap1: up to head", ch->len, 800);
	__T("snap1: no gap", !ch->gap);
	T_EQ_U64("snap1: tail never written", k.pc->aux_tail, 0);

	hw_write(&a, 50, 0, NULL);
	hws_aux__snapshot(x, 0, 0, collect_cb, &c);
	ch = &c.c[c.nr - 1];
	T_EQ_U64("snap2: continues", ch->ev.offset, 800);
	T_EQ_U64("snap2: length", ch->len, 400);
	__T("snap2: contiguous, no gap", !ch->gap);
	T_EQ_U64("snap: not wrapped yet", hws_aux__stats(x)->wrapped, 0);

	/* head inside the last 512 bytes, still not wrapped: probe from the head on */
	hw_write(&a, (size - 1200 - 200) / 8, 0, NULL);
	hws_aux__snapshot(x, 0, 0, collect_cb, &c);
	T_EQ_U64("snap3: still not wrapped", hws_aux__stats(x)->wrapped, 0);
	T_EQ_U64("snap3: length", c.c[c.nr - 1].len, size - 1200 - 200);

	/* free-run over 3.5 areas: the whole area, oldest byte first, with a gap */
	hw_write(&a, (3 * size + size / 2 + 200) / 8, 0, NULL);
	{
		uint64_t abs_head = a.head;

		hws_aux__snapshot(x, 0, 0, collect_cb, &c);
		ch = &c.c[c.nr - 1];
		T_EQ_U64("snap4: wrapped", hws_aux__stats(x)->wrapped, 1);
		T_EQ_U64("snap4: whole area", ch->len, size);
		__T("snap4: gap", ch->gap);
		__T("snap4: two pieces (head mid-area)", ch->two_pieces);
		T_EQ_U64("snap4: oldest word", ch->first_word, (abs_head - size) / 8);
		T_EQ_U64("snap4: newest word", ch->last_word, abs_head / 8 - 1);
	}
	/* a few more: whole area again (as perf), the seam is a gap */
	hw_write(&a, 64, 0, NULL);
	hws_aux__snapshot(x, 0, 0, collect_cb, &c);
	ch = &c.c[c.nr - 1];
	T_EQ_U64("snap5: whole area", ch->len, size);
	__T("snap5: gap", ch->gap);
	T_EQ_U64("snap5: newest word", ch->last_word, a.head / 8 - 1);
	/* -S size limit: newest bytes only */
	hw_write(&a, 64, 0, NULL);
	hws_aux__snapshot(x, 0, 4096, collect_cb, &c);
	ch = &c.c[c.nr - 1];
	T_EQ_U64("snap6: limited", ch->len, 4096);
	T_EQ_U64("snap6: newest word", ch->last_word, a.head / 8 - 1);
	T_EQ_U64("snap6: oldest word", ch->first_word, (a.head - 4096) / 8);

	T_EQ_U64("snap: well-formed, words where the offsets say", c.bad, 0);
	T_EQ_U64("snap: tail never written", k.pc->aux_tail, 0);
	T_EQ_U64("snap: snapshots", hws_aux__stats(x)->snapshots, 6);
	hws_aux__delete(x);
	ksim_aux__fini(&a);
	ksim_ring__fini(&k);
}

/* A head that wrapped modulo the size before the first snapshot: only the zero-filled
 * tail heuristic can tell. */
static void test_snapshot_heuristic(void)
{
	static struct collect c;
	struct ksim_ring k;
	struct ksim_aux a;
	struct hws_aux *x;
	const uint64_t size = 8192;

	ksim_ring__init(&k, 4096, false, false);
	ksim_aux__init(&a, k.pc, size, true, &k);
	a.head_mod = true;
	x = hws_aux__new(k.pc, a.base, size, true);
	memset(&c, 0, sizeof(c));
	hw_write(&a, (size + 1000) / 8, 0, NULL); /* reported head: 1000 */
	T_EQ_U64("heuristic: reported head small", k.pc->aux_head, 1000);
	hws_aux__snapshot(x, 0, 0, collect_cb, &c);
	T_EQ_U64("heuristic: wrap detected from the tail bytes", hws_aux__stats(x)->wrapped, 1);
	T_EQ_U64("heuristic: whole area", c.c[0].len, size);
	T_EQ_U64("heuristic: oldest word first", c.c[0].first_word, 1000 / 8);
	T_EQ_U64("heuristic: newest word last", c.c[0].last_word, (size + 1000) / 8 - 1);
	hws_aux__delete(x);
	ksim_aux__fini(&a);
	ksim_ring__fini(&k);
}

/* File side: chunks as perf writes them (not split at gaps). */
static void test_tracker(void)
{
	struct hws_aux *t = hws_aux__new_tracker();
	uint64_t inside;

	hws_aux__note_aux_record(t, 0, 800, PERF_AUX_FLAG_TRUNCATED);
	hws_aux__note_aux_record(t, 800, 400, 0);
	T_EQ_U64("tracker: first chunk clean", hws_aux__chunk_gap(t, 0, 1200, &inside), 0);
	T_EQ_U64("tracker: truncation inside the chunk reported", inside, 800);
	T_EQ_U64("tracker: contiguous chunk", hws_aux__chunk_gap(t, 1200, 100, &inside), 0);
	__T("tracker: nothing inside", inside == UINT64_MAX);
	hws_aux__note_aux_record(t, 1300, 50, PERF_AUX_FLAG_TRUNCATED);
	T_EQ_U64("tracker: chunk ending at the truncation", hws_aux__chunk_gap(t, 1300, 50, NULL),
		 0);
	T_EQ_U64("tracker: chunk after it: gap", hws_aux__chunk_gap(t, 1350, 50, &inside), 1);
	T_EQ_U64("tracker: offset jump: gap", hws_aux__chunk_gap(t, 5000, 50, &inside), 1);
	hws_aux__note_aux_record(t, 5050, 64, PERF_AUX_FLAG_PARTIAL);
	T_EQ_U64("tracker: PARTIAL chunk: gap", hws_aux__chunk_gap(t, 5050, 64, NULL), 1);
	T_EQ_U64("tracker: late PARTIAL marks the next",
		 hws_aux__note_aux_record(t, 5000, 8, PERF_AUX_FLAG_PARTIAL), 0);
	T_EQ_U64("tracker: ... next chunk gap", hws_aux__chunk_gap(t, 5114, 8, NULL), 1);
	T_EQ_U64("tracker: no area to drain", hws_aux__drain(t, 0, collect_cb, NULL),
		 (uint64_t)-EINVAL);
	T_EQ_U64("tracker: gaps", hws_aux__stats(t)->gaps, 4);
	hws_aux__delete(t);
}

/* ---------------------------------------------------------------- threaded */

struct thr_ctx {
	struct ksim_ring k;
	struct ksim_aux a;
	uint64_t total_words;
	int done; /* atomic */
	bool pace;
};

static void *aux_producer(void *arg)
{
	struct thr_ctx *t = arg;
	uint64_t seq = 0, x = 99;

	while (seq < t->total_words) {
		uint64_t n, i, w;
		static uint64_t buf[512];

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		n = 1 + ((x >> 33) % 256);
		if (n > t->total_words - seq)
			n = t->total_words - seq;
		while (t->pace &&
		       t->a.head - __atomic_load_n(&t->k.pc->aux_tail, __ATOMIC_ACQUIRE) >
			   t->a.size / 2)
			usleep(20);
		for (i = 0; i < n; i++)
			buf[i] = ksim_aux__word(seq + i);
		/* words are numbered by the hardware's own count: what does not fit is lost
		 * and the numbering of the next write jumps */
		w = ksim_aux__write(&t->a, buf, n * 8, 0, NULL) / 8;
		(void)w;
		seq += n;
		if (!t->pace && (seq / n) % 8 == 0)
			usleep(50); /* an event rate, not a flood */
	}
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static uint64_t word_seq_cb_bad;

/* stream check without the offset==seq rule (drops shift it) */
static int stream_cb(void *ctx, const struct hws_aux_out *o)
{
	struct collect *c = ctx;
	uint64_t n = (o->len[0] + o->len[1]) / 8, i;

	if (o->ev.header.type != 71 || o->ev.size != o->len[0] + o->len[1] + o->pad)
		c->bad++;
	if (c->nr < MAX_CHUNKS)
		c->nr++;
	for (i = 0; i < n; i++) {
		uint64_t w = word_at(o, i);

		if ((w >> 56) != 0xA5) {
			c->bad++;
			continue;
		}
		w &= (1ULL << 56) - 1;
		if (c->have_prev && w != c->prev_word + 1) {
			if (w <= c->prev_word)
				word_seq_cb_bad++;
			c->jumps++;
			c->skipped_words += w - c->prev_word - 1;
			if (!(i == 0 && o->gap))
				c->jumps_no_gap++;
		} else if (!c->have_prev && w != 0) {
			c->skipped_words += w;
		}
		c->have_prev = true;
		c->prev_word = w;
		c->words++;
	}
	return 0;
}

static void run_threaded(bool pace)
{
	static struct collect c;
	struct thr_ctx *t = calloc(1, sizeof(*t));
	struct hws_ring *r;
	struct hws_aux *x;
	pthread_t th;
	bool done = false;
	uint64_t rounds = 0;
	double t0 = now_s();

	memset(&c, 0, sizeof(c));
	c.no_pos = true;
	word_seq_cb_bad = 0;
	ksim_ring__init(&t->k, 1 << 20, false, false);
	ksim_aux__init(&t->a, t->k.pc, 16384, false, &t->k);
	t->total_words = 200000;
	t->pace = pace;
	r = hws_ring__new(t->k.pc, t->k.data, t->k.size, false);
	x = hws_aux__new(t->k.pc, t->a.base, t->a.size, false);
	pthread_create(&th, NULL, aux_producer, t);
	/* slow reader: do not drain AUX before the producer has truncated once (seen
	 * through its PERF_RECORD_AUX), however the threads get scheduled */
	while (!pace && !hws_aux__stats(x)->truncated &&
	       !__atomic_load_n(&t->done, __ATOMIC_ACQUIRE)) {
		const struct perf_event_header *h;

		hws_ring__read_init(r);
		while ((h = hws_ring__read_event(r)))
			if (h->type == PERF_RECORD_AUX)
				hws_aux__note_aux_record(x, ((const uint64_t *)(h + 1))[0],
							 ((const uint64_t *)(h + 1))[1],
							 ((const uint64_t *)(h + 1))[2]);
		hws_ring__read_done(r);
		usleep(100);
	}
	while (!done) {
		const struct perf_event_header *h;

		done = __atomic_load_n(&t->done, __ATOMIC_ACQUIRE);
		/* data ring first: AUX records, then the AUX data they describe */
		hws_ring__read_init(r);
		while ((h = hws_ring__read_event(r))) {
			if (h->type == PERF_RECORD_AUX) {
				const uint64_t *p = (const uint64_t *)(h + 1);

				hws_aux__note_aux_record(x, p[0], p[1], p[2]);
			}
		}
		hws_ring__read_done(r);
		hws_aux__drain(x, 0, stream_cb, &c);
		if (!pace)
			usleep((++rounds % 16) == 0 ? 2000 : 100); /* slower than the producer */
		if (now_s() - t0 > 30)
			break;
	}
	pthread_join(th, NULL);
	T_EQ_U64("threaded aux: well-formed", c.bad, 0);
	T_EQ_U64("threaded aux: numbering only moves forward", word_seq_cb_bad, 0);
	T_EQ_U64("threaded aux: every discontinuity is at a gap chunk", c.jumps_no_gap, 0);
	T_EQ_U64("threaded aux: words received + dropped = produced",
		 c.words + t->a.bytes_dropped / 8, t->total_words);
	/* dropped words are skipped in the numbering, or trail after the last word read */
	T_EQ_U64("threaded aux: skipped words + trailing = dropped",
		 c.skipped_words + (t->total_words - 1 - c.prev_word), t->a.bytes_dropped / 8);
	T_EQ_U64("threaded aux: bytes", hws_aux__stats(x)->bytes, t->a.bytes_written);
	T_EQ_U64("threaded aux: TRUNCATED seen = emitted", hws_aux__stats(x)->truncated,
		 t->a.truncated);
	T_EQ_U64("threaded aux: AUX records = emitted", hws_aux__stats(x)->aux_records,
		 t->a.aux_records);
	T_EQ_U64("threaded aux: data ring lost nothing", t->k.dropped, 0);
	__T("threaded aux: gaps <= truncations", hws_aux__stats(x)->gaps <= t->a.truncated);
	T_EQ_U64("threaded aux: no late gaps", hws_aux__stats(x)->late_gaps, 0);
	if (pace) {
		T_EQ_U64("threaded aux paced: nothing dropped", t->a.bytes_dropped, 0);
		T_EQ_U64("threaded aux paced: no gap", hws_aux__stats(x)->gaps, 0);
	} else {
		__T("threaded aux slow reader: the producer did drop", t->a.bytes_dropped > 0);
		__T("threaded aux slow reader: gaps marked", hws_aux__stats(x)->gaps > 0);
	}
	printf("  aux threaded pace %d: %llu words, %llu dropped, %llu chunks, %llu gaps, "
	       "%llu truncated, max_fill %llu, %.3fs\n",
	       pace, (unsigned long long)c.words, (unsigned long long)t->a.bytes_dropped / 8,
	       (unsigned long long)hws_aux__stats(x)->chunks,
	       (unsigned long long)hws_aux__stats(x)->gaps,
	       (unsigned long long)hws_aux__stats(x)->truncated,
	       (unsigned long long)hws_aux__stats(x)->max_fill, now_s() - t0);
	hws_aux__delete(x);
	hws_ring__delete(r);
	ksim_aux__fini(&t->a);
	ksim_ring__fini(&t->k);
	free(t);
}

/* ---------------------------------------------------------------- perf reads our records */

#ifndef HWS_TEST_STANDALONE
struct file_ctx {
	struct hws_perf_writer *w;
	unsigned nr;
	struct hws_auxtrace_event ev[64];
	bool gap[64];
	unsigned char *bytes; /* every payload byte written, padding included, in order */
	uint64_t nbytes;
	int err;
};

static int file_cb(void *ctx, const struct hws_aux_out *o)
{
	static const unsigned char zero[8];
	struct file_ctx *f = ctx;

	if (f->nr >= 64)
		return -ENOSPC;
	f->gap[f->nr] = o->gap;
	f->ev[f->nr++] = o->ev;
	/* exactly what the session does: record, piece 1, piece 2, padding */
	f->err |= hws_perf_writer__write(f->w, &o->ev, sizeof(o->ev));
	f->err |= hws_perf_writer__write(f->w, o->data[0], o->len[0]);
	if (o->len[1])
		f->err |= hws_perf_writer__write(f->w, o->data[1], o->len[1]);
	if (o->pad)
		f->err |= hws_perf_writer__write(f->w, zero, o->pad);
	memcpy(f->bytes + f->nbytes, o->data[0], o->len[0]);
	memcpy(f->bytes + f->nbytes + o->len[0], o->data[1] ? o->data[1] : zero, o->len[1]);
	memset(f->bytes + f->nbytes + o->len[0] + o->len[1], 0, o->pad);
	f->nbytes += o->ev.size;
	return 0;
}

/*
 * A perf.data file holding PERF_RECORD_AUX records and the AUXTRACE records the engine
 * made (wrap into two pieces, padding, gap splits): the real perf lists every AUXTRACE
 * with our size/offset/ref/idx/tid/cpu and walks past each payload (a wrong size or
 * padding would derail it), and our own reader gets the payload bytes back.
 */
static void test_perf_file(void)
{
	static struct file_ctx f;
	struct hws_perf_event_attr attr;
	struct ksim_ring k;
	struct ksim_aux a;
	struct ksim_aux_rec rec;
	struct hws_aux *x;
	struct hws_perf_reader *rd;
	struct hws_perf_record pr;
	char path[] = "/tmp/hws-test-aux-XXXXXX", cmd[512], line[512];
	uint64_t bias = 0, off = 0, gaps_differ = 0, gaps_inside = 0, gaps_engine = 0;
	struct hws_aux *tr;
	unsigned seen = 0, aux_lines = 0, trunc_lines = 0, i, got = 0;
	int fd, err = 0, rc;
	FILE *pp;

	if (system("perf --version >/dev/null 2>&1") != 0) {
		printf("  perf not installed: perf cross-check skipped\n");
		return;
	}
	fd = mkstemp(path);
	close(fd);
	memset(&f, 0, sizeof(f));
	f.bytes = calloc(1, 1 << 20);
	f.w = hws_perf_writer__new(path, false);
	__T("perf file: writer", f.w != NULL);
	if (!f.w)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = PERF_SAMPLE_IP;
	hws_perf_writer__add_attr(f.w, &attr, "dummy", (const uint64_t[]){1}, 1);

	ksim_ring__init(&k, 4096, false, false);
	ksim_aux__init(&a, k.pc, 8192, false, NULL);
	x = hws_aux__new(k.pc, a.base, 8192, false);
	hws_aux__set_stream(x, 2, (uint32_t)-1, 4242); /* per-thread mode */
	for (int round = 0; round < 12; round++) {
		uint64_t flags = round == 3   ? PERF_AUX_FLAG_TRUNCATED
				 : round == 7 ? PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_COLLISION
					      : 0;

		hw_write_after_loss(&a, 150 + 37 * round, round == 4 ? 9 : 0, flags, &rec, &bias);
		hws_perf_writer__write(f.w, &rec, sizeof(rec));
		hws_aux__note_aux_record(x, rec.aux_offset, rec.aux_size, rec.flags);
		hw_write_after_loss(&a, 70, 0, 0, &rec, &bias);
		hws_perf_writer__write(f.w, &rec, sizeof(rec));
		hws_aux__note_aux_record(x, rec.aux_offset, rec.aux_size, rec.flags);
		hws_aux__drain(x, 1000 + round, file_cb, &f);
	}
	/* an odd-sized tail chunk (padding) */
	memset(a.base + (a.head & a.mask), 0x3c, 5);
	a.head += 5;
	__atomic_store_n(&k.pc->aux_head, a.head, __ATOMIC_RELEASE);
	hws_aux__drain(x, 7777, file_cb, &f);
	T_EQ_U64("perf file: writes ok", f.err, 0);
	T_EQ_U64("perf file: close", hws_perf_writer__close(f.w), 0);
	__T("perf file: some chunks wrapped", f.nr > 12);

	snprintf(cmd, sizeof(cmd), "perf report -D --no-itrace -i %s 2>&1", path);
	pp = popen(cmd, "r");
	while (pp && fgets(line, sizeof(line), pp)) {
		const char *p = strstr(line, "PERF_RECORD_AUXTRACE size:");
		unsigned long long sz, of, ref;
		unsigned idx;
		int tid, cpu;

		if (strstr(line, "PERF_RECORD_AUX offset:")) {
			aux_lines++;
			trunc_lines += strstr(line, "[T") != NULL;
		}
		if (!p)
			continue;
		if (sscanf(p,
			   "PERF_RECORD_AUXTRACE size: %llx offset: %llx ref: %llx idx: %u "
			   "tid: %d cpu: %d",
			   &sz, &of, &ref, &idx, &tid, &cpu) != 6 ||
		    seen >= f.nr) {
			err++;
			continue;
		}
		err += sz != f.ev[seen].size || of != f.ev[seen].offset ||
		       ref != f.ev[seen].reference || idx != 2 || tid != 4242 || cpu != -1;
		seen++;
	}
	rc = pp ? pclose(pp) : -1;
	T_EQ_U64("perf report -D: exit 0", rc, 0);
	T_EQ_U64("perf report -D: every AUXTRACE record, fields as written", seen, f.nr);
	T_EQ_U64("perf report -D: no mismatch", err, 0);
	T_EQ_U64("perf report -D: PERF_RECORD_AUX records", aux_lines, 24);
	T_EQ_U64("perf report -D: one TRUNCATED", trunc_lines, 1);

	/* our reader: the payload bytes; the file-side tracker finds the same gaps */
	rd = hws_perf_reader__open(path, NULL);
	rc = rd ? 0 : -errno;
	__T("reader: open", rd != NULL);
	err = 0;
	tr = hws_aux__new_tracker();
	while (rd && hws_perf_reader__next(rd, &pr) == 1) {
		const uint64_t *q = (const uint64_t *)(pr.hdr + 1);
		uint64_t inside;

		if (pr.hdr->type == PERF_RECORD_AUX) {
			hws_aux__note_aux_record(tr, q[0], q[1], q[2]);
			continue;
		}
		if (pr.hdr->type != HWS_PERF_RECORD_AUXTRACE)
			continue;
		gaps_differ += hws_aux__chunk_gap(tr, q[1], pr.payload_size, &inside) != f.gap[got];
		gaps_inside += inside != UINT64_MAX;
		gaps_engine += f.gap[got];
		got++;
		if (pr.payload_size != f.ev[got - 1].size ||
		    memcmp(pr.payload, f.bytes + off, pr.payload_size))
			err++;
		off += pr.payload_size;
	}
	hws_perf_reader__close(rd);
	T_EQ_U64("reader: AUXTRACE records", got, f.nr);
	T_EQ_U64("reader: payloads byte for byte", err, 0);
	T_EQ_U64("tracker: same gap flags as the engine", gaps_differ, 0);
	T_EQ_U64("tracker: no gap inside a chunk", gaps_inside, 0);
	T_EQ_U64("engine: gaps for the TRUNCATED and PARTIAL records", gaps_engine, 2);
	hws_aux__delete(tr);
	for (i = 0; i < f.nr; i++)
		__T("records 8-byte sized", (f.ev[i].size & 7) == 0);
	unlink(path);
	free(f.bytes);
	hws_aux__delete(x);
	ksim_aux__fini(&a);
	ksim_ring__fini(&k);
}
#endif

#define RUN(fn)                                                                                    \
	do {                                                                                       \
		double _t = now_s();                                                               \
		fn;                                                                                \
		printf("%-40s %.3fs\n", #fn, now_s() - _t);                                        \
	} while (0)

int main(void)
{
	RUN(test_mmap_sizes());
	RUN(test_args());
	RUN(test_drain_wrap());
	RUN(test_flags());
	RUN(test_overrun());
	RUN(test_snapshot(false));
	RUN(test_snapshot(true));
	RUN(test_snapshot_heuristic());
	RUN(test_tracker());
	RUN(run_threaded(true));
	RUN(run_threaded(false));
#ifndef HWS_TEST_STANDALONE
	RUN(test_perf_file());
#endif
	TEST_END();
}
