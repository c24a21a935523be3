// SPDX-License-Identifier: MIT
/*
 * core/kernel/ring.c against a simulated kernel (tests/kernel_sim.h): a producer writes records
 * into plain memory with the kernel's protocol while the reader drains. Every record's
 * sequence number and bytes are checked; losses must match the producer's count exactly.
 * Also built and run under ThreadSanitizer by tests/e2e/tsan_ring.sh.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <hwsample/abi.h>
#include <hwsample/ring.h>

#include "tests.h"
#include "kernel_sim.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool in_area(const struct ksim_ring *k, const void *p)
{
	return (const unsigned char *)p >= k->data && (const unsigned char *)p < k->data + k->size;
}

static bool put(struct ksim_ring *k, uint64_t seq)
{
	unsigned char buf[1024];
	uint64_t size = ksim_rec__fill(buf, seq, ksim_rec__size(seq));

	return ksim_ring__write(k, buf, size);
}

static bool put_sized(struct ksim_ring *k, uint64_t seq, uint64_t size)
{
	unsigned char buf[1024];
	struct perf_event_header *h = (void *)buf;

	ksim_rec__fill(buf, seq, size);
	h->type = PERF_RECORD_MMAP; /* fixed-size records: type distinguishes them */
	return ksim_ring__write(k, buf, size);
}

static void test_args(void)
{
	struct ksim_ring k;
	struct hws_ring *r;

	ksim_ring__init(&k, 4096, false, false);
	errno = 0;
	__T("size not a power of two refused", !hws_ring__new(k.pc, k.data, 3000, false));
	T_EQ_U64("errno EINVAL", errno, EINVAL);
	__T("NULL data refused", !hws_ring__new(k.pc, NULL, 4096, false));
	hws_ring__delete(NULL);

	/* whole-mmap constructor: control page + data area contiguous */
	{
		unsigned char *m = ksim_zalloc(KSIM_PAGE * 3);
		struct perf_event_mmap_page *pc = (void *)m;

		pc->data_offset = KSIM_PAGE;
		pc->data_size = 2 * KSIM_PAGE;
		r = hws_ring__new_mmap(m, 3 * KSIM_PAGE, false);
		__T("new_mmap ok", r != NULL);
		if (r)
			T_EQ_U64("new_mmap size", hws_ring__size(r), 2 * KSIM_PAGE);
		hws_ring__delete(r);
		pc->data_size = 4 * KSIM_PAGE;
		__T("new_mmap: data past the mapping refused",
		    !hws_ring__new_mmap(m, 3 * KSIM_PAGE, false));
		free(m);
	}
	ksim_ring__fini(&k);
}

static void test_empty(void)
{
	struct ksim_ring k;
	struct hws_ring *r;

	ksim_ring__init(&k, 4096, false, false);
	r = hws_ring__new(k.pc, k.data, k.size, false);
	T_EQ_U64("empty: nothing available", hws_ring__read_init(r), 0);
	__T("empty: no event", hws_ring__read_event(r) == NULL);
	hws_ring__read_done(r);
	T_EQ_U64("empty: tail stays", k.pc->data_tail, 0);
	T_EQ_U64("empty: no records", hws_ring__stats(r)->records, 0);
	T_EQ_U64("empty: no bad headers", hws_ring__stats(r)->bad_headers, 0);
	hws_ring__delete(r);
	ksim_ring__fini(&k);
}

/* The kernel fills a writable ring to size - 8 at most (CIRC_SPACE). */
static void test_exact_fill(void)
{
	const struct perf_event_header *h;
	struct ksim_ring k;
	struct hws_ring *r;
	uint64_t seq = 0, n = 0, i;

	ksim_ring__init(&k, 4096, false, false);
	r = hws_ring__new(k.pc, k.data, k.size, false);
	for (i = 0; i < 63; i++)
		__T("fill: 64-byte record fits", put_sized(&k, seq++, 64));
	__T("fill: 56-byte record fits", put_sized(&k, seq++, 56));
	__T("fill: the 8 last bytes are never used", !put_sized(&k, 99, 8));
	T_EQ_U64("fill: head at size - 8", k.pc->data_head, 4096 - 8);

	T_EQ_U64("fill: available", hws_ring__read_init(r), 4096 - 8);
	while ((h = hws_ring__read_event(r))) {
		__T("fill: record intact", h->type == PERF_RECORD_MMAP && ksim_rec__seq(h) == n);
		__T("fill: in place", in_area(&k, h));
		n++;
	}
	hws_ring__read_done(r);
	T_EQ_U64("fill: all records", n, 64);
	T_EQ_U64("fill: tail = head", k.pc->data_tail, 4096 - 8);
	T_EQ_U64("fill: max_fill", hws_ring__stats(r)->max_fill, 4096 - 8);
	T_EQ_U64("fill: no copies", hws_ring__stats(r)->copied, 0);

	/* head - tail == size exactly (not what the kernel does, still valid): records fill
	 * the whole area, the next-to-last one straddles */
	{
		uint64_t base = k.pc->data_tail;

		k.head = base;
		k.pending_lost = 0; /* the refused 8-byte record above is not the point here */
		k.overwrite = true; /* bypass the space check */
		for (i = 0; i < 64; i++)
			put_sized(&k, 1000 + i, 64);
		T_EQ_U64("whole: available = size", hws_ring__read_init(r), 4096);
		n = 0;
		while ((h = hws_ring__read_event(r))) {
			__T("whole: record intact", ksim_rec__seq(h) == 1000 + n);
			n++;
		}
		hws_ring__read_done(r);
		T_EQ_U64("whole: 64 records", n, 64);
		T_EQ_U64("whole: no overrun", hws_ring__stats(r)->overruns, 0);
		T_EQ_U64("whole: one straddler copied", hws_ring__stats(r)->copied, 1);
	}
	hws_ring__delete(r);
	ksim_ring__fini(&k);
}

/* Records straddling the end of the area: through the bounce buffer, bytes intact. */
static void test_wrap(void)
{
	const struct perf_event_header *h;
	struct ksim_ring k;
	struct hws_ring *r;
	uint64_t start;

	for (start = 4096 - 64; start < 4096 + 8; start += 8) {
		ksim_ring__init(&k, 4096, false, false);
		k.head = start;
		k.pc->data_head = start;
		k.pc->data_tail = start;
		r = hws_ring__new(k.pc, k.data, k.size, false);
		put_sized(&k, 7, 128);
		put_sized(&k, 8, 16);
		T_EQ_U64("wrap: available", hws_ring__read_init(r), 144);
		h = hws_ring__read_event(r);
		__T("wrap: first record", h && ksim_rec__seq(h) == 7);
		if (h) {
			/* put_sized: not the hashed size, so check the bytes here */
			const unsigned char *p = (const void *)h;
			int bad = 0, i;

			for (i = 16; i < 128; i++)
				bad |= p[i] != (unsigned char)(7 * 31 + i);
			__T("wrap: payload intact", !bad && h->size == 128);
			__T("wrap: straddler handed out from the bounce buffer",
			    (start & 4095) + 128 > 4096 ? !in_area(&k, h) : in_area(&k, h));
		}
		h = hws_ring__read_event(r);
		__T("wrap: second record", h && ksim_rec__seq(h) == 8 && h->size == 16);
		__T("wrap: end", hws_ring__read_event(r) == NULL);
		hws_ring__read_done(r);
		T_EQ_U64("wrap: tail", k.pc->data_tail, start + 144);
		T_EQ_U64("wrap: copies", hws_ring__stats(r)->copied,
			 (start & 4095) + 128 > 4096 ? 1 : 0);
		hws_ring__delete(r);
		ksim_ring__fini(&k);
	}
}

/* Drain everything available, checking each record against the sequence: a LOST record
 * says how many seqs the next record skips. Returns records seen; *bad counts errors. */
static uint64_t drain_check(struct hws_ring *r, uint64_t *expect, uint64_t *lost_seen,
			    uint64_t *lost_records, uint64_t *bad)
{
	const struct perf_event_header *h;
	uint64_t got = 0, pending = 0;

	hws_ring__read_init(r);
	while ((h = hws_ring__read_event(r))) {
		if (h->type == PERF_RECORD_LOST) {
			pending += ((const uint64_t *)(h + 1))[1];
			(*lost_records)++;
			continue;
		}
		*expect += pending;
		*lost_seen += pending;
		pending = 0;
		*bad += ksim_rec__check(h, *expect) != 0;
		(*expect)++;
		got++;
	}
	hws_ring__read_done(r);
	*bad += pending != 0; /* a LOST record is always followed by its record */
	return got;
}

/* Deterministic loss: the producer drops while the reader is away; the LOST record in
 * front of the next record carries the exact count. */
static void test_lost_exact(void)
{
	struct ksim_ring k;
	struct hws_ring *r;
	uint64_t seq = 0, expect = 0, lost = 0, lrec = 0, bad = 0, got, fails = 0;

	ksim_ring__init(&k, 4096, false, false);
	r = hws_ring__new(k.pc, k.data, k.size, false);
	while (put(&k, seq))
		seq++;
	fails = 1;
	seq++;
	/* the reader is away: 20 more tries, most (not all: small ones may fit) dropped */
	for (int i = 0; i < 20; i++)
		fails += !put(&k, seq++);
	got = drain_check(r, &expect, &lost, &lrec, &bad);
	__T("lost: ring full", fails >= 5);
	/* a record now lands, with a LOST for what is still pending */
	while (!put(&k, seq)) {
		fails++;
		seq++;
	}
	got += drain_check(r, &expect, &lost, &lrec, &bad);
	T_EQ_U64("lost: records intact and in sequence", bad, 0);
	T_EQ_U64("lost: every seq seen or reported lost", expect, seq + 1);
	T_EQ_U64("lost: records = written", got, k.written);
	T_EQ_U64("lost: LOST sum = dropped", lost, k.dropped);
	T_EQ_U64("lost: dropped = failed writes", k.dropped, fails);
	T_EQ_U64("lost: LOST records = emitted", lrec, k.lost_records);
	__T("lost: some LOST records", lrec >= 1);
	T_EQ_U64("lost: stats.lost", hws_ring__stats(r)->lost, k.dropped);
	hws_ring__delete(r);
	ksim_ring__fini(&k);
}

/* ---------------------------------------------------------------- threaded forward */

struct fwd_ctx {
	struct ksim_ring k;
	uint64_t n; /* records the producer generates before the end marker */
	int done;   /* atomic */
	bool pace;  /* the event rate adapts: never more than 3/4 full (no loss) */
	bool rate;  /* bursts with pauses, so the run lasts a while */
	uint64_t last_seq;
};

static void *fwd_producer(void *arg)
{
	struct fwd_ctx *c = arg;
	uint64_t seq;

	for (seq = 0; seq < c->n; seq++) {
		while (c->pace &&
		       c->k.head - __atomic_load_n(&c->k.pc->data_tail, __ATOMIC_ACQUIRE) >
			   c->k.size / 4 * 3)
			usleep(20);
		put(&c->k, seq);
		if (c->rate && seq % 64 == 63)
			usleep(20); /* an event rate: bursts of 64 records */
	}
	/* the end: keep producing until one record lands, so no loss stays unreported */
	while (!put(&c->k, seq))
		seq++;
	c->last_seq = seq;
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * @slow: the reader pauses now and then (producer faster than reader: loss).
 * Checks: every record intact and in order; every seq jump equals the LOST count in
 * front of it; totals equal the producer's.
 */
static void run_threaded_forward(uint64_t ring_size, uint64_t n, bool slow, bool consume, bool pace)
{
	const struct perf_event_header *h;
	struct fwd_ctx c;
	struct hws_ring *r;
	pthread_t th;
	uint64_t expect = 0, got = 0, lost_seen = 0, lrec = 0, bad = 0, rounds = 0;
	bool done = false;
	double t0 = now_s();

	memset(&c, 0, sizeof(c));
	ksim_ring__init(&c.k, ring_size, false, false);
	c.n = n;
	c.pace = pace;
	c.rate = slow;
	r = hws_ring__new(c.k.pc, c.k.data, c.k.size, false);
	pthread_create(&th, NULL, fwd_producer, &c);
	if (slow) {
		/* make sure the producer meets a full ring at least once, however the
		 * threads get scheduled */
		while (hws_ring__fill(r) < ring_size / 4 * 3 &&
		       !__atomic_load_n(&c.done, __ATOMIC_ACQUIRE))
			usleep(50);
		usleep(100);
	}
	while (!done) {
		/* read done before read_init: an empty drain after it means all is read */
		done = __atomic_load_n(&c.done, __ATOMIC_ACQUIRE);
		if (consume) {
			/* release each record's space as soon as it is checked */
			uint64_t pending = 0;

			hws_ring__read_init(r);
			while ((h = hws_ring__read_event(r))) {
				if (h->type == PERF_RECORD_LOST) {
					pending += ((const uint64_t *)(h + 1))[1];
					lrec++;
					continue;
				}
				expect += pending;
				lost_seen += pending;
				pending = 0;
				bad += ksim_rec__check(h, expect++) != 0;
				got++;
				hws_ring__consume(r);
			}
			hws_ring__read_done(r);
			bad += pending != 0;
		} else {
			uint64_t g = drain_check(r, &expect, &lost_seen, &lrec, &bad);

			got += g;
			if (!g)
				sched_yield(); /* nothing there: let the producer run */
		}
		if (slow && (++rounds % 8) == 0)
			usleep(200);
		if (now_s() - t0 > 30)
			break; /* never hang the suite */
	}
	pthread_join(th, NULL);
	T_EQ_U64("threaded: bad records", bad, 0);
	T_EQ_U64("threaded: records = written", got, c.k.written);
	T_EQ_U64("threaded: lost = dropped", lost_seen, c.k.dropped);
	T_EQ_U64("threaded: stats.lost = dropped", hws_ring__stats(r)->lost, c.k.dropped);
	T_EQ_U64("threaded: last seq", expect - 1, c.last_seq);
	T_EQ_U64("threaded: LOST records", lrec, c.k.lost_records);
	T_EQ_U64("threaded: no bad headers", hws_ring__stats(r)->bad_headers, 0);
	if (pace) /* the unpaced runs may hand out few records: no promise there */
		__T("threaded: straddlers went through the bounce buffer",
		    hws_ring__stats(r)->copied > 100);
	if (slow)
		__T("threaded slow: the producer did lose records", c.k.dropped > 0);
	if (pace) {
		T_EQ_U64("threaded paced: no loss", c.k.dropped, 0);
		__T("threaded paced: many wraps", c.k.head > 100 * ring_size);
	}
	printf("  forward size %llu n %llu slow %d: got %llu lost %llu copied %llu max_fill %llu "
	       "%.3fs\n",
	       (unsigned long long)ring_size, (unsigned long long)n, slow, (unsigned long long)got,
	       (unsigned long long)lost_seen, (unsigned long long)hws_ring__stats(r)->copied,
	       (unsigned long long)hws_ring__stats(r)->max_fill, now_s() - t0);
	hws_ring__delete(r);
	ksim_ring__fini(&c.k);
}

/* ---------------------------------------------------------------- backward / overwrite */

/* Expected newest-first content of a backward ring after writing seq 0..last: the records
 * that fit whole in one buffer. */
static uint64_t fit_count(uint64_t last, uint64_t size)
{
	uint64_t sum = 0, n = 0, s = last + 1;

	while (s-- > 0) {
		sum += ksim_rec__size(s);
		if (sum > size)
			break;
		n++;
	}
	return n;
}

static void test_backward(void)
{
	const struct perf_event_header *h;
	struct ksim_ring k;
	struct hws_ring *r;
	uint64_t seq, n, expect, bad = 0;

	ksim_ring__init(&k, 8192, true, true);
	r = hws_ring__new(k.pc, k.data, k.size, true);

	/* partly filled: everything, newest first, stop at the zero header */
	for (seq = 0; seq < 5; seq++)
		put(&k, seq);
	hws_ring__read_init(r);
	n = 0;
	expect = 4;
	while ((h = hws_ring__read_event(r))) {
		bad += ksim_rec__check(h, expect) != 0;
		expect--;
		n++;
	}
	hws_ring__read_done(r);
	T_EQ_U64("backward partial: 5 records", n, 5);
	T_EQ_U64("backward partial: intact", bad, 0);

	/* many wraps: exactly the records that fit whole, newest first */
	for (; seq < 20000; seq++)
		put(&k, seq);
	T_EQ_U64("backward: head ran downwards", -k.pc->data_head, ({
			 uint64_t t = 0;
			 for (uint64_t s = 0; s < 20000; s++)
				 t += ksim_rec__size(s);
			 t;
		 }));
	T_EQ_U64("backward wraps: a full buffer", hws_ring__read_init(r), 8192);
	n = 0;
	expect = seq - 1;
	while ((h = hws_ring__read_event(r))) {
		bad += ksim_rec__check(h, expect) != 0;
		expect--;
		n++;
	}
	hws_ring__read_done(r);
	T_EQ_U64("backward wraps: records", n, fit_count(seq - 1, 8192));
	T_EQ_U64("backward wraps: intact", bad, 0);
	T_EQ_U64("backward wraps: overrun counted", hws_ring__stats(r)->overruns, 1);
	T_EQ_U64("backward wraps: no bad header", hws_ring__stats(r)->bad_headers, 0);
	__T("backward wraps: straddlers copied", hws_ring__stats(r)->copied > 0);

	/* next dump: only what is new since the previous head */
	for (int i = 0; i < 3; i++)
		put(&k, seq++);
	n = 0;
	expect = seq - 1;
	hws_ring__read_init(r);
	while ((h = hws_ring__read_event(r))) {
		bad += ksim_rec__check(h, expect) != 0;
		expect--;
		n++;
	}
	hws_ring__read_done(r);
	T_EQ_U64("backward again: 3 new records", n, 3);
	T_EQ_U64("backward again: intact", bad, 0);

	/* paused: dropped and reported by LOST in front of the next record */
	ksim_ring__pause(&k, true, false);
	for (int i = 0; i < 4; i++)
		__T("paused: dropped", !put(&k, seq++));
	ksim_ring__pause(&k, false, false);
	put(&k, seq++);
	hws_ring__read_init(r);
	h = hws_ring__read_event(r);
	__T("backward: LOST first",
	    h && h->type == PERF_RECORD_LOST && ((const uint64_t *)(h + 1))[1] == 4);
	h = hws_ring__read_event(r);
	__T("backward: then the new record", h && ksim_rec__check(h, seq - 1) == 0);
	/* the record before the pause was handed out by the previous dump */
	__T("backward: stops at the previous head", hws_ring__read_event(r) == NULL);
	hws_ring__read_done(r);
	T_EQ_U64("backward: stats.lost", hws_ring__stats(r)->lost, 4);

	/* a corrupt header among the new records: the newer ones come out, counted, resync */
	{
		uint64_t at;

		put(&k, seq++);
		at = k.head; /* the record written next: corrupted below */
		put(&k, seq++);
		put(&k, seq++);
		((struct perf_event_header *)(k.data + ((at - ksim_rec__size(seq - 2)) & k.mask)))
		    ->size = 12;
		hws_ring__read_init(r);
		n = 0;
		while ((h = hws_ring__read_event(r)))
			bad += ksim_rec__check(h, seq - 1 - n++) != 0;
		hws_ring__read_done(r);
		T_EQ_U64("backward corrupt: the newest record only", n, 1);
		T_EQ_U64("backward corrupt: counted", hws_ring__stats(r)->bad_headers, 1);
		put(&k, seq++);
		hws_ring__read_init(r);
		h = hws_ring__read_event(r);
		__T("backward corrupt: next dump reads again",
		    h && ksim_rec__check(h, seq - 1) == 0);
		__T("backward corrupt: ... up to the previous head", !hws_ring__read_event(r));
		hws_ring__read_done(r);
		T_EQ_U64("backward corrupt: intact", bad, 0);
	}
	hws_ring__delete(r);
	ksim_ring__fini(&k);
}

struct bwd_ctx {
	struct ksim_ring k;
	int stop; /* atomic */
	uint64_t seq;
};

static void *bwd_producer(void *arg)
{
	struct bwd_ctx *c = arg;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE))
		put(&c->k, c->seq++);
	return NULL;
}

/* Flight recorder: the producer never stops; the reader pauses, dumps, resumes. */
static void test_backward_threaded(void)
{
	const struct perf_event_header *h;
	struct bwd_ctx c;
	struct hws_ring *r;
	pthread_t th;
	uint64_t bad = 0, dumps = 0, recs = 0, lost = 0;
	double t0 = now_s();

	memset(&c, 0, sizeof(c));
	ksim_ring__init(&c.k, 16384, true, true);
	r = hws_ring__new(c.k.pc, c.k.data, c.k.size, true);
	pthread_create(&th, NULL, bwd_producer, &c);
	for (dumps = 0; dumps < 60; dumps++) {
		uint64_t expect = UINT64_MAX, pending = 0;

		usleep(100);
		ksim_ring__pause(&c.k, true, true);
		hws_ring__read_init(r);
		while ((h = hws_ring__read_event(r))) {
			uint64_t s;

			if (h->type == PERF_RECORD_LOST) {
				pending = ((const uint64_t *)(h + 1))[1];
				lost += pending;
				continue;
			}
			s = ksim_rec__seq(h);
			if (expect != UINT64_MAX && s != expect)
				bad++;
			if (ksim_rec__check(h, s))
				bad++;
			/* older records come next; a LOST in front of this record means
			 * `pending` records between it and the next older one were dropped */
			expect = s - 1 - pending;
			pending = 0;
			recs++;
		}
		hws_ring__read_done(r);
		ksim_ring__pause(&c.k, false, false);
	}
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	T_EQ_U64("flight recorder: every dump in sequence", bad, 0);
	T_EQ_U64("flight recorder: no bad header", hws_ring__stats(r)->bad_headers, 0);
	__T("flight recorder: reported losses <= drops", lost <= c.k.dropped);
	__T("flight recorder: something read", recs > 0);
	printf("  backward threaded: %llu dumps, %llu records, %llu written, %llu lost, %.3fs\n",
	       (unsigned long long)dumps, (unsigned long long)recs, (unsigned long long)c.k.written,
	       (unsigned long long)lost, now_s() - t0);
	hws_ring__delete(r);
	ksim_ring__fini(&c.k);
}

/* ---------------------------------------------------------------- corrupt headers */

static const struct bad_case {
	int line;
	const char *what;
	uint16_t size;
	uint64_t head_extra; /* bytes of junk published after the bad header */
} bad_cases[] = {
    {__LINE__, "size 0", 0, 64},
    {__LINE__, "size 4 (< header)", 4, 64},
    {__LINE__, "size 12 (misaligned)", 12, 64},
    {__LINE__, "size past the head", 4000, 64},
    {__LINE__, "size 65535", 65535, 8},
    {__LINE__, "size past the head, header at the very end", 16, 8},
};

static void test_bad_headers(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *bc = &bad_cases[i];
		const struct perf_event_header *h;
		struct perf_event_header bogus = {.type = PERF_RECORD_SAMPLE, .size = bc->size};
		struct ksim_ring k;
		struct hws_ring *r;
		uint64_t n = 0, seq, at, bad = 0;
		char what[128];

		ksim_ring__init(&k, 4096, false, false);
		r = hws_ring__new(k.pc, k.data, k.size, false);
		put(&k, 0);
		put(&k, 1);
		at = k.head;
		ksim__copy_in(k.data, k.mask, at, &bogus, sizeof(bogus));
		memset(k.data + ((at + 8) & k.mask), 0xee, bc->head_extra - 8);
		k.head = at + bc->head_extra;
		ksim_ring__publish(&k);

		hws_ring__read_init(r);
		while ((h = hws_ring__read_event(r)) && n < 100)
			bad += ksim_rec__check(h, n++) != 0;
		hws_ring__read_done(r);
		snprintf(what, sizeof(what), "line %d %s: good records before it", bc->line,
			 bc->what);
		T_EQ_U64(what, n, 2);
		T_EQ_U64(what, bad, 0);
		snprintf(what, sizeof(what), "line %d %s: counted", bc->line, bc->what);
		T_EQ_U64(what, hws_ring__stats(r)->bad_headers, 1);
		snprintf(what, sizeof(what), "line %d %s: skipped bytes", bc->line, bc->what);
		T_EQ_U64(what, hws_ring__stats(r)->skipped_bytes, bc->head_extra);
		snprintf(what, sizeof(what), "line %d %s: tail at head", bc->line, bc->what);
		T_EQ_U64(what, k.pc->data_tail, k.head);

		/* resync: the next records read fine */
		for (seq = 10; seq < 20; seq++)
			put(&k, seq);
		hws_ring__read_init(r);
		n = 0;
		while ((h = hws_ring__read_event(r)))
			bad += ksim_rec__check(h, 10 + n++) != 0;
		hws_ring__read_done(r);
		snprintf(what, sizeof(what), "line %d %s: resynced", bc->line, bc->what);
		T_EQ_U64(what, n, 10);
		T_EQ_U64(what, bad, 0);
		hws_ring__delete(r);
		ksim_ring__fini(&k);
	}

	/* misaligned tail (a broken writer of data_tail) */
	{
		struct ksim_ring k;
		struct hws_ring *r;

		ksim_ring__init(&k, 4096, false, false);
		k.pc->data_tail = 4;
		k.head = 4 + 64;
		ksim_ring__publish(&k);
		r = hws_ring__new(k.pc, k.data, k.size, false);
		hws_ring__read_init(r);
		__T("misaligned tail: no event", hws_ring__read_event(r) == NULL);
		T_EQ_U64("misaligned tail: counted", hws_ring__stats(r)->bad_headers, 1);
		hws_ring__read_done(r);
		T_EQ_U64("misaligned tail: resynced to head", k.pc->data_tail, 68);
		hws_ring__delete(r);
		ksim_ring__fini(&k);
	}

	/* garbage everywhere, random heads: bounded work, never a hang */
	{
		struct ksim_ring k;
		struct hws_ring *r;
		uint64_t x = 12345, events = 0, calls = 0;

		ksim_ring__init(&k, 4096, false, false);
		r = hws_ring__new(k.pc, k.data, k.size, false);
		for (int round = 0; round < 2000; round++) {
			uint64_t avail;

			for (int i = 0; i < 4096; i += 8) {
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
				memcpy(k.data + i, &x, 8);
			}
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			k.head = k.pc->data_tail + ((x >> 33) % 6000);
			ksim_ring__publish(&k);
			avail = hws_ring__read_init(r);
			calls = 0;
			while (hws_ring__read_event(r) && calls < 10000)
				calls++;
			events += calls;
			__T("garbage: bounded by avail / 8", calls <= avail / 8);
			hws_ring__read_done(r);
		}
		__T("garbage: bad headers counted", hws_ring__stats(r)->bad_headers > 0);
		__T("garbage: overruns counted (head > size ahead)",
		    hws_ring__stats(r)->overruns > 0);
		hws_ring__delete(r);
		ksim_ring__fini(&k);
		(void)events;
	}
}

/* ---------------------------------------------------------------- the real kernel */

/* Burn @us microseconds of this thread's CPU time (task-clock counts only that, so a
 * loaded machine does not change how many samples the kernel takes). */
static void spin_us(long us)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = ts.tv_sec + ts.tv_nsec * 1e-9 + us * 1e-6;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	while (ts.tv_sec + ts.tv_nsec * 1e-9 < end);
}

static int open_clock(bool backward)
{
	struct hws_perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 20000; /* ns */
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.read_format = PERF_FORMAT_LOST;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.write_backward = backward;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

struct ksample {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
};

/*
 * The kernel as the producer: a task-clock sampling event on this thread, a 1-page data
 * area. Forward: not read for a while (it fills), then drained; the LOST records' sum must
 * equal the kernel's own lost count (read_format PERF_FORMAT_LOST). Backward: paused
 * dumps come newest first, each dump only what is new. Skipped if perf_event_open fails.
 */
static void test_real_kernel(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len;
	const struct perf_event_header *h;
	struct hws_ring *r;
	uint64_t lost = 0, samples = 0, bad = 0, last_time = 0, rf[2] = {0, 0};
	void *base;
	int fd;

	fd = open_clock(false);
	if (fd < 0) {
		printf("  perf_event_open(task-clock): %s: real-kernel cases skipped\n",
		       strerror(errno));
		return;
	}
	len = 2 * page;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	__T("kernel: mmap", base != MAP_FAILED);
	if (base == MAP_FAILED) {
		close(fd);
		return;
	}
	r = hws_ring__new_mmap(base, len, false);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	/* not read: the 4 KiB ring fills and the kernel loses samples (its own count says
	 * when; the sample rate a loaded VM delivers varies, so no fixed duration) */
	for (int ms = 0; ms < 2000; ms++) {
		spin_us(1000);
		if (read(fd, rf, sizeof(rf)) == sizeof(rf) && rf[1] >= 10)
			break;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	for (int round = 0; round < 2; round++) {
		hws_ring__read_init(r);
		while ((h = hws_ring__read_event(r))) {
			if (h->type == PERF_RECORD_LOST) {
				lost += ((const uint64_t *)(h + 1))[1];
			} else if (h->type == PERF_RECORD_SAMPLE) {
				const struct ksample *ks = (const void *)h;

				bad += h->size != sizeof(*ks) || ks->time < last_time ||
				       ks->tid != (uint32_t)syscall(SYS_gettid);
				last_time = ks->time;
				samples++;
			}
		}
		hws_ring__read_done(r);
		if (round == 0) {
			/* the kernel reports pending loss with the next record that fits */
			uint64_t head = ((struct perf_event_mmap_page *)base)->data_head;

			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			for (int us = 0;
			     us < 2000000 &&
			     __atomic_load_n(&((struct perf_event_mmap_page *)base)->data_head,
					     __ATOMIC_ACQUIRE) == head;
			     us += 50)
				spin_us(50);
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		}
	}
	__T("kernel: read_format lost", read(fd, rf, sizeof(rf)) == sizeof(rf));
	T_EQ_U64("kernel: samples well-formed, in time order, ours", bad, 0);
	T_EQ_U64("kernel: no bad headers", hws_ring__stats(r)->bad_headers, 0);
	__T("kernel: samples read", samples > 10);
	__T("kernel: the kernel lost samples", rf[1] > 0);
	T_EQ_U64("kernel: LOST records sum = kernel's lost count", lost, rf[1]);
	T_EQ_U64("kernel: stats.lost", hws_ring__stats(r)->lost, rf[1]);
	T_EQ_U64("kernel: tail = head", ((struct perf_event_mmap_page *)base)->data_tail,
		 ((struct perf_event_mmap_page *)base)->data_head);
	printf("  kernel forward: %llu samples, %llu lost (kernel says %llu), %llu copied\n",
	       (unsigned long long)samples, (unsigned long long)lost, (unsigned long long)rf[1],
	       (unsigned long long)hws_ring__stats(r)->copied);
	hws_ring__delete(r);
	munmap(base, len);
	close(fd);

	/* backward, read-only: the flight recorder */
	fd = open_clock(true);
	if (fd < 0) {
		printf("  write_backward: %s: skipped\n", strerror(errno));
		return;
	}
	len = 3 * page;
	base = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	__T("kernel backward: mmap", base != MAP_FAILED);
	if (base == MAP_FAILED) {
		close(fd);
		return;
	}
	r = hws_ring__new_mmap(base, len, true);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	{
		uint64_t newest_prev = 0, n, bytes, first_time, prev_time;

		for (int dump = 0; dump < 3; dump++) {
			struct perf_event_mmap_page *pc = base;
			uint64_t head0 = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);

			/* dumps 0 and 2: until more than a buffer was written; dump 1: a record */
			for (int ms = 0; ms < 2000; ms++) {
				spin_us(dump == 1 ? 200 : 1000);
				uint64_t moved =
				    head0 - __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);

				if (dump == 1 ? moved > 0 : moved > 3 * page)
					break;
			}
			ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
			hws_ring__read_init(r);
			n = bytes = first_time = 0;
			prev_time = UINT64_MAX;
			while ((h = hws_ring__read_event(r))) {
				const struct ksample *ks = (const void *)h;

				bytes += h->size;
				if (h->type != PERF_RECORD_SAMPLE)
					continue;
				bad += h->size != sizeof(*ks) || ks->time >= prev_time ||
				       ks->time <= newest_prev;
				if (!n)
					first_time = ks->time;
				prev_time = ks->time;
				n++;
			}
			hws_ring__read_done(r);
			ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
			__T("kernel backward: records in the dump", n > 0);
			__T("kernel backward: at most one buffer", bytes <= 2 * page);
			if (dump == 0)
				__T("kernel backward: a full buffer after a buffer and a half",
				    bytes > 2 * page - 64);
			newest_prev = first_time;
			printf("  kernel backward dump %d: %llu samples, %llu bytes\n", dump,
			       (unsigned long long)n, (unsigned long long)bytes);
		}
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	T_EQ_U64("kernel backward: newest first, only new records each dump", bad, 0);
	T_EQ_U64("kernel backward: no bad headers", hws_ring__stats(r)->bad_headers, 0);
	hws_ring__delete(r);
	munmap(base, len);
	close(fd);
}

#define RUN(fn)                                                                                    \
	do {                                                                                       \
		double _t = now_s();                                                               \
		fn;                                                                                \
		printf("%-40s %.3fs\n", #fn, now_s() - _t);                                        \
	} while (0)

int main(void)
{
	RUN(test_args());
	RUN(test_empty());
	RUN(test_exact_fill());
	RUN(test_wrap());
	RUN(test_lost_exact());
	RUN(run_threaded_forward(16384, 30000, false, false, true));
	RUN(run_threaded_forward(65536, 40000, false, false, false));
	RUN(run_threaded_forward(4096, 30000, true, true, false));
	RUN(test_backward());
	RUN(test_backward_threaded());
	RUN(test_bad_headers());
	RUN(test_real_kernel());
	TEST_END();
}
