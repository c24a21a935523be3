// SPDX-License-Identifier: MIT
/*
 * Time order (perf's ordered events): the records of one round (up to FINISHED_ROUND) read
 * into a window and sorted by time, with the records past perf's round limit held for the
 * next window (hold_back(), carry_in()), and the optional read-ahead thread that fills the
 * next window while the current one is dispatched (it sorts each round on its own). Also
 * the parts of the exact unordered delivery (decode.c: run_direct()): the look-ahead over the
 * sideband of the next rounds (dec_la_*) and the held window (dec_q_*).
 *
 * Invariants:
 *  - a window holds at most WINDOW_MAX_BYTES of records; records the reader hands out in
 *    place (HWS_PERF_REC_*_STABLE) are kept as pointers, others copied;
 *  - the sort is stable: records with equal times keep their file order, a record without
 *    a time keeps its place after the previous timed one;
 *  - with read-ahead, the reader thread waits (barrier()) before any record that changes
 *    what dispatching reads, so every record sees the state it would see in one thread;
 *  - calls events.c only (dec_ensure_events(), dec_rematch_events()), and the reader's
 *    look-ahead (pd_reader_scan()) for the exact unordered delivery (dec_la_fill()).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode/decode_int.h"
#include "perfdata/perfdata_int.h"

#define RA_WINDOW_BYTES ((size_t)512 << 10) /* read-ahead: rounds per hand-off, in bytes */

/* Time of a record as the kernel wrote it (sample TIME, or the sample_id trailer of other
 * kernel records), or UINT64_MAX when it has none (user records, no TIME, no trailer). */
static uint64_t record_time(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	const struct perf_event_header *h = rec->hdr;
	size_t es = rec->attr_idx >= 0 ? (size_t)rec->attr_idx + 1 : 1, off;
	const struct ev_state *e;
	uint64_t t;

	if (h->type >= HWS_RECORD_HEADER_ATTR || es >= d->nr_evs)
		return UINT64_MAX;
	e = &d->evs[es];
	if (h->type == PERF_RECORD_SAMPLE) {
		off = e->t_smp;
	} else {
		if (!e->t_back || h->size < sizeof(*h) + e->t_back)
			return UINT64_MAX;
		off = h->size - e->t_back;
	}
	if (!off || off + 8 > h->size)
		return UINT64_MAX;
	memcpy(&t, (const uint8_t *)h + off, 8);
	return t;
}

/*
 * Stable sort of the window's keys by time. A round holds one ring's records, then the next
 * ring's, each already in time order: find those ascending runs and merge them pairwise
 * (a run of equal times stays in file order: ties take the earlier run). One run: nothing to
 * do, which is the common case for single-ring and pipe recordings.
 */
static void merge_runs(const struct win_key *a, size_t na, const struct win_key *b, size_t nb,
		       struct win_key *out)
{
	size_t i = 0, j = 0;

	while (i < na && j < nb)
		*out++ = b[j].time < a[i].time ? b[j++] : a[i++];
	memcpy(out, a + i, (na - i) * sizeof(*a));
	memcpy(out + (na - i), b + j, (nb - j) * sizeof(*b));
}

/* sort keys [from, to) of @d: one round, whose run starts fill_window() noted */
void dec_sort_window(struct window *d, size_t from, size_t to)
{
	struct win_key *src, *dst, *t;
	size_t *run = d->wruns, n = to - from, nruns = 1, found = d->nruns;

	d->nruns = 0; /* the next round's starts */
	if (n < 2 || !found)
		return; /* also: no arrays yet (NULL) for an empty window */
	src = d->wkey + from;
	dst = d->wtmp + from;
	run[0] = 0;
	/* starts as offsets into the round; one at the round's first record (it began below
	 * the previous round's last time) is run[0] already */
	for (size_t j = 1; j <= found; j++)
		if (run[j] > from)
			run[nruns++] = run[j] - from;
	while (nruns > 1) {
		size_t r, m = 0;

		run[nruns] = n;
		for (r = 0; r + 1 < nruns; r += 2) {
			merge_runs(src + run[r], run[r + 1] - run[r], src + run[r + 1],
				   run[r + 2] - run[r + 1], dst + run[r]);
			run[m++] = run[r];
		}
		if (r < nruns) {
			memcpy(dst + run[r], src + run[r], (n - run[r]) * sizeof(*src));
			run[m++] = run[r];
		}
		nruns = m;
		t = src;
		src = dst;
		dst = t;
	}
	if (src == d->wkey + from)
		return;
	/* the sorted keys ended in the scratch array: when the round starts the window (one
	 * round per window, the usual case) and is its last part (always: rounds are sorted
	 * as they end), the arrays can trade places instead of copying */
	if (!from && to == d->wn) {
		t = d->wkey;
		d->wkey = d->wtmp;
		d->wtmp = t;
	} else {
		memcpy(d->wkey + from, src, n * sizeof(*src));
	}
}

static int win_reserve(struct window *d, size_t bytes)
{
	if (d->wn == d->wcapn) {
		size_t n = d->wcapn ? d->wcapn * 2 : 4096;
		struct win_rec *w = realloc(d->wrec, n * sizeof(*w));
		struct win_key *k;
		size_t *runs;

		if (!w)
			return -ENOMEM;
		d->wrec = w;
		k = realloc(d->wkey, n * sizeof(*k));
		if (!k)
			return -ENOMEM;
		d->wkey = k;
		k = realloc(d->wtmp, n * sizeof(*k));
		if (!k)
			return -ENOMEM;
		d->wtmp = k;
		runs = realloc(d->wruns, (n + 2) * sizeof(*runs));
		if (!runs)
			return -ENOMEM;
		d->wruns = runs;
		d->wcapn = n;
	}
	if (d->wlen + bytes > d->wcap) {
		size_t n = d->wcap ? d->wcap : (size_t)1 << 20;
		uint8_t *b;
		while (n < d->wlen + bytes)
			n *= 2;
		b = realloc(d->wbuf, n);
		if (!b)
			return -ENOMEM;
		d->wbuf = b;
		d->wcap = n;
	}
	return 0;
}

/* Entry @i's sort key (and the window's first offset): a record without a time keeps its
 * place after the previous timed one; one that goes back starts a new ascending run (see
 * dec_sort_window()). */
static inline __attribute__((always_inline)) void win_key_set(struct hws_decoder *d,
							      struct window *win,
							      const struct hws_perf_record *r,
							      size_t i, uint64_t *last_time)
{
	uint64_t t = record_time(d, r);

	if (r->file_offset < win->first_off) /* records held from the window before come first */
		win->first_off = r->file_offset;
	if (t == UINT64_MAX) {
		t = *last_time;
	} else {
		if (t < *last_time)
			win->wruns[1 + win->nruns++] = i;
		*last_time = t;
		if (t > d->oe_max)
			d->oe_max = t;
	}
	win->wkey[i].time = t;
}

/* @r's direct key (struct win_key), or 0 when it needs a win_rec */
static inline uint64_t direct_ref(struct window *win, const struct hws_perf_record *r)
{
	uintptr_t a = (uintptr_t)r->hdr;

	if (!(r->flags & HWS_PERF_REC_HDR_STABLE) || r->payload || (a & 7) ||
	    (uint64_t)a > WK_PTR_MASK || r->attr_idx < -1 || r->attr_idx >= 0xfffe)
		return 0;
	if (__builtin_expect(!win->base, 0))
		win->base = a - (uintptr_t)r->file_offset;
	if (a - (uintptr_t)r->file_offset != win->base)
		return 0;
	return (uint64_t)a | (uint64_t)(r->attr_idx + 1) << WK_PTR_BITS;
}

/* Append @rec to @win with its sort key: in place when the reader says it stays (stable),
 * else copied. *last_time: the previous timed record's time in this round; a record that
 * goes back starts a new ascending run (see dec_sort_window()). 0 or -ENOMEM. */
static __attribute__((noinline)) int win_add_slow(struct hws_decoder *d, struct window *win,
						  const struct hws_perf_record *r,
						  uint64_t *last_time)
{
	struct win_rec *w;
	size_t need = 16;

	if (!(r->flags & HWS_PERF_REC_HDR_STABLE))
		need += r->hdr->size;
	if (r->payload && !(r->flags & HWS_PERF_REC_PAYLOAD_STABLE))
		need += (size_t)r->payload_size;
	if (win_reserve(win, need))
		return -ENOMEM;
	win_key_set(d, win, r, win->wn, last_time);
	win->wkey[win->wn].ref = WK_REC(win->wn);
	w = &win->wrec[win->wn++];
	w->file_offset = r->file_offset;
	w->attr_idx = r->attr_idx;
	if (r->flags & HWS_PERF_REC_HDR_STABLE) {
		w->hdr = r->hdr;
		win->wref += r->hdr->size;
	} else {
		w->hdr = NULL;
		w->off = win->wlen;
		memcpy(win->wbuf + win->wlen, r->hdr, r->hdr->size);
		win->wlen += (r->hdr->size + 7) & ~(size_t)7;
	}
	w->payload_size = r->payload ? r->payload_size : 0;
	w->payload = NULL;
	if (w->payload_size && (r->flags & HWS_PERF_REC_PAYLOAD_STABLE)) {
		w->payload = r->payload;
		win->wref += (size_t)w->payload_size;
	} else if (w->payload_size) {
		w->payload_off = win->wlen;
		memcpy(win->wbuf + win->wlen, r->payload, (size_t)w->payload_size);
		win->wlen += ((size_t)w->payload_size + 7) & ~(size_t)7;
	}
	return 0;
}

/* win_add_slow() with the common case taken inline (no registers to save): a record in the
 * reader's mapping without a payload, nothing to copy, room for its entry */
static inline __attribute__((always_inline)) int win_add(struct hws_decoder *d, struct window *win,
							 const struct hws_perf_record *r,
							 uint64_t *last_time)
{
	uint64_t ref;
	size_t i;

	if (__builtin_expect(win->wn >= win->wcapn || !(ref = direct_ref(win, r)), 0))
		return win_add_slow(d, win, r, last_time);
	i = win->wn++;
	win_key_set(d, win, r, i, last_time);
	win->wkey[i].ref = ref;
	win->wref += r->hdr->size;
	return 0;
}

/* user records the reader only moves along: they change nothing dispatching reads */
static bool plain_record(int type)
{
	return type < HWS_RECORD_HEADER_ATTR || type == HWS_RECORD_FINISHED_ROUND ||
	       type == HWS_RECORD_AUXTRACE || type == HWS_RECORD_COMPRESSED ||
	       type == HWS_RECORD_COMPRESSED2;
}

/* read-ahead thread: wait until the dispatcher has finished every window before this one */
static void barrier(struct hws_decoder *d)
{
	pthread_mutex_lock(&d->ra.mu);
	while (!d->ra.main_waiting && !d->ra.stop)
		pthread_cond_wait(&d->ra.cv, &d->ra.mu);
	pthread_mutex_unlock(&d->ra.mu);
}

/*
 * perf's ordered events hold records back a round: at a round's end (FINISHED_ROUND) only
 * the records up to the largest time seen before the previous round's end are delivered
 * (Linux tools/perf/util/ordered-events.c: OE_FLUSH__ROUND, next_flush); the others wait
 * for the next round, so a record a CPU's ring delivered a round late still comes at its
 * time. Same here, after the round's sort: keys [0, wn_out) go now, the rest into the next
 * window (carry_in()). Not for files with AUX data (decoded one round late already:
 * aux_stream.c) nor with read-ahead (several rounds per window); at the end, a reader error
 * or a full window, all go.
 */
static void hold_back(struct hws_decoder *d, struct window *win, bool round_end)
{
	size_t lo = 0, hi = win->wn;

	if (round_end && dec_aux_event(d) < 0) { /* round_end: never with read-ahead */
		while (lo < hi) { /* the first key past the limit (the keys are sorted) */
			size_t mid = lo + (hi - lo) / 2;

			if (win->wkey[mid].time <= d->oe_limit)
				lo = mid + 1;
			else
				hi = mid;
		}
		win->wn_out = lo;
	} else {
		win->wn_out = win->wn;
	}
	d->oe_limit = d->oe_max;
}

/* @win holds nothing (before it is filled: fill_window(), dec_q_next()) */
static void win_empty(struct window *win)
{
	win->wlen = win->wn = win->wn_out = win->wref = win->nruns = 0;
	win->first_off = UINT64_MAX;
}

/* the records the other window held back (hold_back()) as the first of @win, in their order;
 * 0 or -ENOMEM */
static int carry_in(struct hws_decoder *d, struct window *win, uint64_t *last_time)
{
	struct window *prev = &d->win[win == &d->win[0]];

	win->base = prev->base;
	for (size_t i = prev->wn_out; i < prev->wn; i++) {
		const struct win_key *k = &prev->wkey[i];
		const struct win_rec *w;
		struct hws_perf_record rec;
		size_t j;

		/* a direct key (nearly all): as it is (the same base) */
		if (!(k->ref & 1) && win->wn < win->wcapn) {
			uint64_t off = (uintptr_t)(k->ref & WK_PTR_MASK) - prev->base;

			win->wkey[win->wn++] = *k;
			if (off < win->first_off)
				win->first_off = off;
			*last_time = k->time;
			continue;
		}
		w = (k->ref & 1) ? &prev->wrec[k->ref >> 1] : NULL;
		/* in the reader's memory: the entry as it is, with its time */
		if (w && w->hdr && (!w->payload_size || w->payload) && win->wn < win->wcapn) {
			j = win->wn++;
			win->wrec[j] = *w;
			win->wkey[j] = (struct win_key){.time = k->time, .ref = WK_REC(j)};
			/* not counted in wref: at most the window before's bytes more */
			if (w->file_offset < win->first_off)
				win->first_off = w->file_offset;
			*last_time = k->time; /* the held keys are in time order */
			continue;
		}
		rec = dec_win_record(prev, i);
		if (win_add(d, win, &rec, last_time))
			return -ENOMEM;
	}
	prev->wn_out = prev->wn = 0;
	return 0;
}

/*
 * Read one round into the window: up to and including FINISHED_ROUND, the end, a reader
 * error (kept for after the window), or WINDOW_MAX_BYTES; then sort it by time. Records the
 * reader hands out in place (a mapped file: HWS_PERF_REC_*_STABLE) are kept as pointers;
 * others are copied (their pointers only live until the reader's next call).
 * perf sorts the same way (ordered events): with per-CPU rings, a file holds one ring's
 * records before another's, so a sample may come before the MMAP2 that maps its code.
 */
static int fill_window(struct hws_decoder *d, struct window *win)
{
	uint64_t last_time = 0;
	struct hws_perf_record rec;
	size_t seg = 0; /* first record of the round being read */
	bool round_end = false;
	int rc;

	win_empty(win);
	if (dec_ensure_events(d))
		return -ENOMEM;
	if (!d->threaded && carry_in(d, win, &last_time))
		return -ENOMEM;
	while (win->wlen + win->wref < WINDOW_MAX_BYTES) {
		if (d->threaded) {
			if (__atomic_load_n(&d->ra.stop, __ATOMIC_RELAXED))
				break;
			if (!plain_record(hws_perf_reader__peek_type(d->r)))
				barrier(d);
		}
		rc = hws_perf_reader__next(d->r, &rec);
		if (rc < 0) {
			win->err = rc;
			snprintf(win->errmsg, sizeof(win->errmsg), "%s",
				 hws_perf_reader__errmsg(d->r));
			break;
		}
		if (rc == 0) {
			win->eof = true;
			break;
		}
		/* only user records add events (pipe-mode HEADER_ATTR) */
		if (rec.hdr->type >= HWS_RECORD_HEADER_ATTR && dec_ensure_events(d))
			return -ENOMEM;
		if (rec.hdr->type == HWS_RECORD_HEADER_FEATURE)
			dec_rematch_events(d);
		if (rec.hdr->type == HWS_RECORD_HEADER_BUILD_ID)
			dec_build_id_record(d, &rec);
		if (win_add(d, win, &rec, &last_time))
			return -ENOMEM;
		if (rec.hdr->type == HWS_RECORD_FINISHED_ROUND) {
			/* one thread: one round per window. Read-ahead: several rounds (each
			 * sorted on its own) per hand-off, which costs a wake-up on each side;
			 * end at a round before a record that needs the barrier, so earlier
			 * rounds never see its state change (mid-round ones still do, as they
			 * do in one thread for their own round) */
			dec_sort_window(win, seg, win->wn);
			seg = win->wn;
			if (!d->threaded || win->wlen + win->wref >= RA_WINDOW_BYTES ||
			    !plain_record(hws_perf_reader__peek_type(d->r))) {
				round_end = !d->threaded;
				break;
			}
		}
	}
	dec_sort_window(win, seg, win->wn);
	hold_back(d, win, round_end);
	return 0;
}

static void *readahead_main(void *arg)
{
	struct hws_decoder *d = arg;
	struct readahead *ra = &d->ra;

	pthread_mutex_lock(&ra->mu);
	for (;;) {
		struct window *win;
		int k;

		while (ra->want < 0 && !ra->stop)
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (ra->stop)
			break;
		k = ra->want;
		ra->want = -1;
		pthread_mutex_unlock(&ra->mu);
		win = &d->win[k];
		win->rc = fill_window(d, win);
		pthread_mutex_lock(&ra->mu);
		ra->filled[k] = true;
		pthread_cond_broadcast(&ra->cv);
		if (win->rc || win->err || win->eof)
			break; /* nothing more to read */
	}
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

/*
 * Start the read-ahead thread on window 0; false: read in the caller's thread. Opt-in
 * (opts.read_ahead; the CLI's HWS_DECODE_THREADS=1): on the 2-vCPU development VM it gained up
 * to 1.2x wall in one hour and cost up to 1.7x in the next (when the host placed the vCPUs far
 * apart every window crossed between caches), so one thread stays the measured default.
 */
static bool readahead_start(struct hws_decoder *d)
{
	/* not on pipes: a reader blocked in read() would hold up the end of an early stop */
	if (!d->opts.read_ahead || sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    hws_perf_reader__is_pipe(d->r))
		return false;
	if (pthread_mutex_init(&d->ra.mu, NULL))
		return false;
	if (pthread_cond_init(&d->ra.cv, NULL)) {
		pthread_mutex_destroy(&d->ra.mu);
		return false;
	}
	d->ra.want = 0;
	d->threaded = true;
	if (pthread_create(&d->ra.th, NULL, readahead_main, d)) {
		d->threaded = false;
		pthread_mutex_destroy(&d->ra.mu);
		pthread_cond_destroy(&d->ra.cv);
		return false;
	}
	d->ra.started = true;
	return true;
}

/* the next window to dispatch into d->cur: 0 or -ENOMEM */
int dec_next_window(struct hws_decoder *d)
{
	int k = d->cur ? d->cur_k ^ 1 : 0;
	struct window *win = &d->win[k];

	if (!d->cur && !d->threaded)
		readahead_start(d);
	if (!d->threaded) {
		win->rc = fill_window(d, win);
	} else {
		pthread_mutex_lock(&d->ra.mu);
		d->ra.main_waiting = true;
		pthread_cond_broadcast(&d->ra.cv);
		while (!d->ra.filled[k])
			pthread_cond_wait(&d->ra.cv, &d->ra.mu);
		d->ra.main_waiting = false;
		d->ra.filled[k] = false;
		/* the window just finished can take the round after this one */
		if (!win->rc && !win->err && !win->eof) {
			d->ra.want = k ^ 1;
			pthread_cond_broadcast(&d->ra.cv);
		}
		pthread_mutex_unlock(&d->ra.mu);
	}
	d->cur = win;
	d->cur_k = k;
	d->wpos = 0;
	d->gen++;
	/* nothing before this window or the oldest held AUX chunk is looked at again (the
	 * read-ahead thread only reads on) */
	hws_perf_reader__release(d->r, d->npend && d->pend[0].file_offset < win->first_off
					   ? d->pend[0].file_offset
					   : win->first_off);
	return win->rc;
}

int dec_win_add(struct hws_decoder *d, struct window *win, const struct hws_perf_record *rec,
		uint64_t *last_time)
{
	return win_add(d, win, rec, last_time);
}

uint64_t dec_record_time(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	return record_time(d, rec);
}

/* ---- exact unordered delivery (struct lookahead; decode.c: run_direct()) ---- */

/* hi again: the earliest sideband record held or ahead (none to check against when off,
 * every sample waits when the look-ahead is incomplete) */
static void la_bounds(struct hws_decoder *d)
{
	struct lookahead *la = &d->la;
	uint64_t ahead = la->mq_head < la->mq_n ? la->ent[la->mq[la->mq_head]].time : UINT64_MAX;

	if (!la->on)
		la->hi = UINT64_MAX;
	else if (!la->ok)
		la->hi = 0;
	else
		la->hi = ahead < la->q_min ? ahead : la->q_min;
}

static int la_push(struct lookahead *la, uint64_t off, uint64_t time)
{
	size_t i;

	if (la->n == la->cap && la->head) { /* the passed entries make room */
		memmove(la->ent, la->ent + la->head, (la->n - la->head) * sizeof(*la->ent));
		for (i = la->mq_head; i < la->mq_n; i++)
			la->mq[i - la->mq_head] = la->mq[i] - la->head;
		la->mq_n -= la->mq_head;
		la->mq_head = 0;
		la->n -= la->head;
		la->head = 0;
	}
	if (la->n == la->cap) {
		size_t cap = la->cap ? la->cap * 2 : 256;
		struct la_ent *e = realloc(la->ent, cap * sizeof(*e));
		size_t *q;

		if (!e)
			return -ENOMEM;
		la->ent = e;
		q = realloc(la->mq, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		la->mq = q;
		la->cap = cap;
	}
	i = la->n++;
	la->ent[i] = (struct la_ent){.off = off, .time = time};
	while (la->mq_n > la->mq_head && la->ent[la->mq[la->mq_n - 1]].time >= time)
		la->mq_n--;
	la->mq[la->mq_n++] = i;
	return 0;
}

int dec_la_fill(struct hws_decoder *d, uint64_t rounds)
{
	struct lookahead *la = &d->la;
	struct hws_perf_record rec;

	while (la->on && la->ok && !la->end && la->rounds < rounds) {
		int rc = pd_reader_scan(d->r, &la->pos, &rec);
		uint64_t t;

		if (rc <= 0) {
			la->end = !rc;
			la->ok = !rc;
			break;
		}
		if (rec.hdr->type == HWS_RECORD_FINISHED_ROUND) {
			la->rounds++;
			continue;
		}
		if (!dec_sb_type(d, rec.hdr->type))
			continue;
		t = record_time(d, &rec);
		if (t == UINT64_MAX) {
			la->ok = false;
			break;
		}
		if (la_push(la, rec.file_offset, t))
			return -ENOMEM;
	}
	la_bounds(d);
	return 0;
}

int dec_la_start(struct hws_decoder *d)
{
	struct lookahead *la = &d->la;

	la->on = !d->opts.no_sideband;
	/* names looked up after the run need no look-ahead, but unwinding a --call-graph dwarf
	 * sample (or one of an event not known yet) reads the maps of its time */
	if (la->on && d->opts.lookup_after_run && d->nr_evs > 1) {
		size_t i = 1;

		while (i < d->nr_evs && d->evs[i].ea &&
		       (d->evs[i].ea->attr.sample_type & DEC_DWARF_BITS) != DEC_DWARF_BITS)
			i++;
		la->on = i < d->nr_evs;
	}
	la->ok = true;
	la->lo = 0;
	la->q_min = UINT64_MAX;
	la->pos = UINT64_MAX; /* from the reader's position */
	/* a record without a time keeps its place after the timed one before it: only the
	 * ordered path knows that place */
	for (size_t i = 1; la->on && i < d->nr_evs; i++)
		if (!d->evs[i].t_smp || !d->evs[i].t_back)
			return 1;
	la->t_smp = malloc(d->nr_evs * sizeof(*la->t_smp));
	if (!la->t_smp)
		return -ENOMEM;
	la->nr_t = d->nr_evs;
	la->t_none = la->on ? UINT64_MAX : 0;
	for (size_t i = 0; i < d->nr_evs; i++)
		la->t_smp[i] = d->evs[i].t_smp ? d->evs[i].t_smp : UINT16_MAX;
	return dec_la_fill(d, 2);
}

void dec_la_pass(struct hws_decoder *d, const struct hws_perf_record *rec, uint64_t time)
{
	struct lookahead *la = &d->la;

	if (la->head < la->n && la->ent[la->head].off == rec->file_offset) {
		if (la->mq_head < la->mq_n && la->mq[la->mq_head] == la->head)
			la->mq_head++;
		if (++la->head == la->n)
			la->head = la->n = la->mq_head = la->mq_n = 0;
	} else {
		la->ok = false; /* not seen by the scan (it stopped): nothing is known ahead */
	}
	if (time < la->q_min)
		la->q_min = time;
	la_bounds(d);
}

struct window *dec_q_sort(struct hws_decoder *d, bool round_end)
{
	struct window *q = &d->win[d->q_k];

	dec_sort_window(q, 0, q->wn);
	hold_back(d, q, round_end);
	return q;
}

int dec_q_next(struct hws_decoder *d)
{
	struct window *q = &d->win[d->q_k ^ 1];
	int rc;

	win_empty(q);
	d->side_last = 0;
	rc = carry_in(d, q, &d->side_last);
	d->q_k ^= 1;
	d->la.q_min = UINT64_MAX;
	for (size_t i = 0; i < q->wn; i++) {
		struct hws_perf_record rec = dec_win_record(q, i);

		if (dec_sb_type(d, rec.hdr->type) && q->wkey[i].time < d->la.q_min)
			d->la.q_min = q->wkey[i].time;
	}
	la_bounds(d);
	return rc;
}

void dec_order_free(struct hws_decoder *d)
{
	if (d->ra.started) {
		pthread_mutex_lock(&d->ra.mu);
		__atomic_store_n(&d->ra.stop, true, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&d->ra.cv);
		pthread_mutex_unlock(&d->ra.mu);
		pthread_join(d->ra.th, NULL);
		pthread_mutex_destroy(&d->ra.mu);
		pthread_cond_destroy(&d->ra.cv);
		d->ra.started = false;
	}
	for (int i = 0; i < 2; i++) {
		free(d->win[i].wbuf);
		free(d->win[i].wrec);
		free(d->win[i].wkey);
		free(d->win[i].wtmp);
		free(d->win[i].wruns);
	}
	free(d->la.ent);
	free(d->la.mq);
	free(d->la.t_smp);
}
