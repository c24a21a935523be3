// SPDX-License-Identifier: MIT
/*
 * AUX-area engine (see include/hwsample/aux.h for the use).
 *
 * Invariants:
 *  - Only this file touches aux_head / aux_tail. Positions are free-running u64 (stream
 *    offsets); the offset in the area is pos & mask; the area size is a power of two.
 *  - prev is the stream position up to which data was handed out. Drain mode: prev ==
 *    the aux_tail we last published, and the kernel never writes into [tail, tail + size)
 *    beyond what it published, so head - prev <= size (else: overrun, counted, gap).
 *  - A record handed out covers [offset, offset + len[0] + len[1]) of the stream, and
 *    ev.size = len[0] + len[1] + pad with pad < 8: the file keeps perf's 8-byte alignment.
 *  - gaps[] holds pending stream positions (sorted, at most GAP_MAX) where the stream is
 *    discontinuous, all ahead of prev. A drain never emits a chunk that crosses a pending
 *    gap: it splits there and sets gap on the chunk that starts at it. A gap noted too
 *    late (its position already handed out) or beyond GAP_MAX pending ones is counted in
 *    late_gaps and marks the next chunk instead.
 *  - Nothing loops on the head: each drain reads aux_head once.
 *
 * Barrier pairing (kernel perf_aux_output_end / perf's auxtrace_mmap__read_head/write_tail):
 *
 *	kernel (producer)                      user (this file)
 *	  A: aux_tail = READ_ONCE(aux_tail)  <-- D: last read of chunk bytes (in @fn)
 *	     hardware writes up to the tail        __atomic_store_n(&aux_tail, RELEASE)
 *	  B: smp_wmb(); WRITE_ONCE(aux_head) --> C: __atomic_load_n(&aux_head, ACQUIRE)
 *	                                            then read chunk bytes
 *
 * perf uses READ_ONCE + smp_rmb for C and smp_mb + WRITE_ONCE for D: acquire / release give
 * the same ordering for these accesses (loads of the data before the tail store; the head
 * load before the data loads) and ThreadSanitizer understands them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/aux.h>

#include "util/internal.h"

_Static_assert(sizeof(struct hws_auxtrace_event) == 48, "perf's struct perf_record_auxtrace");

#define GAP_MAX	       64
#define SNAPSHOT_PROBE 512 /* perf arm-spe: bytes at the end of the area checked for data */

struct hws_aux {
	struct perf_event_mmap_page *pc;
	unsigned char *base;
	uint64_t size;
	uint64_t mask;
	bool snapshot;
	bool wrapped;  /* snapshot: the area has been filled once (sticky) */
	bool gap_next; /* the next chunk starts after a discontinuity */
	bool warned;
	uint32_t idx, cpu, tid;
	uint64_t prev;	   /* stream position handed out so far */
	uint64_t last_end; /* end of the last chunk handed out (snapshot continuity) */
	bool have_last;
	unsigned int nr_gaps;
	uint64_t gaps[GAP_MAX];
	struct hws_aux_stats stats;
};

static inline uint64_t load_head(const struct hws_aux *a)
{
	return __atomic_load_n(&a->pc->aux_head, __ATOMIC_ACQUIRE);
}

static inline void store_tail(struct hws_aux *a, uint64_t tail)
{
	__atomic_store_n(&a->pc->aux_tail, tail, __ATOMIC_RELEASE);
}

struct hws_aux *hws_aux__new(struct perf_event_mmap_page *pc, void *aux_base, size_t aux_size,
			     bool snapshot)
{
	struct hws_aux *a;

	if (!pc || !aux_base || aux_size < 8 || (aux_size & (aux_size - 1)))
		return errno = EINVAL, NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return errno = ENOMEM, NULL;
	a->pc = pc;
	a->base = aux_base;
	a->size = aux_size;
	a->mask = aux_size - 1;
	a->snapshot = snapshot;
	a->idx = 0;
	a->cpu = (uint32_t)-1;
	a->tid = (uint32_t)-1;
	/* drain mode: start at the tail (0 on a fresh mapping); snapshot mode: at 0 */
	a->prev = snapshot ? 0 : __atomic_load_n(&pc->aux_tail, __ATOMIC_RELAXED);
	return a;
}

struct hws_aux *hws_aux__new_tracker(void)
{
	struct hws_aux *a = calloc(1, sizeof(*a));

	if (!a)
		return errno = ENOMEM, NULL;
	a->cpu = (uint32_t)-1;
	a->tid = (uint32_t)-1;
	a->warned = true; /* reading a file: the reader reports the counts, no recording advice */
	return a;
}

void hws_aux__delete(struct hws_aux *a)
{
	free(a);
}

void hws_aux__set_stream(struct hws_aux *a, uint32_t idx, uint32_t cpu, uint32_t tid)
{
	a->idx = idx;
	a->cpu = cpu;
	a->tid = tid;
}

/* @pos is at or before prev (already handed out), modulo 2^64 */
static inline bool behind(const struct hws_aux *a, uint64_t pos)
{
	return pos - a->prev > (uint64_t)1 << 62;
}

/* Insert @pos into the sorted gap list. */
static void add_gap(struct hws_aux *a, uint64_t pos)
{
	unsigned int i;

	if (pos == a->prev) {
		a->gap_next = true;
		return;
	}
	if (behind(a, pos) || a->nr_gaps == GAP_MAX) {
		/* too late (or too many) to split at the right place: mark the next chunk */
		a->stats.late_gaps++;
		a->gap_next = true;
		return;
	}
	for (i = 0; i < a->nr_gaps; i++) {
		if (a->gaps[i] == pos)
			return;
		if (a->gaps[i] - a->prev > pos - a->prev)
			break;
	}
	memmove(&a->gaps[i + 1], &a->gaps[i], (a->nr_gaps - i) * sizeof(a->gaps[0]));
	a->gaps[i] = pos;
	a->nr_gaps++;
}

/* Pop gaps at or behind prev; one exactly at prev marks the next chunk. */
static void pop_gaps(struct hws_aux *a)
{
	while (a->nr_gaps && (a->gaps[0] == a->prev || behind(a, a->gaps[0]))) {
		a->gap_next = true;
		a->nr_gaps--;
		memmove(&a->gaps[0], &a->gaps[1], a->nr_gaps * sizeof(a->gaps[0]));
	}
}

uint64_t hws_aux__note_aux_record(struct hws_aux *a, uint64_t aux_offset, uint64_t aux_size,
				  uint64_t flags)
{
	const uint64_t known = HWS_AUX_FLAG_TRUNCATED | HWS_AUX_FLAG_OVERWRITE |
			       HWS_AUX_FLAG_PARTIAL | HWS_AUX_FLAG_COLLISION |
			       HWS_AUX_FLAG_PMU_FORMAT_MASK;

	a->stats.aux_records++;
	a->stats.aux_bytes += aux_size;
	if (flags & HWS_AUX_FLAG_TRUNCATED)
		a->stats.truncated++;
	if (flags & HWS_AUX_FLAG_OVERWRITE)
		a->stats.overwrite++;
	if (flags & HWS_AUX_FLAG_PARTIAL)
		a->stats.partial++;
	if (flags & HWS_AUX_FLAG_COLLISION)
		a->stats.collision++;
	/* Snapshot mode: every chunk is already marked by the snapshot logic. */
	if (!a->snapshot) {
		if (flags & HWS_AUX_FLAG_PARTIAL)
			add_gap(a, aux_offset);
		if (flags & HWS_AUX_FLAG_TRUNCATED)
			add_gap(a, aux_offset + aux_size);
	}
	if ((flags & HWS_AUX_FLAG_TRUNCATED) && !a->warned) {
		pr_warn(
		    "AUX area %u was full: the PMU truncated its data (AUX data lost): use "
		    "more AUX pages (hws_session_opts.aux_pages) or a longer sampling interval\n",
		    a->idx);
		a->warned = true;
	}
	return flags & ~known;
}

/* Hand out stream range [from, to) (to - from <= size) as one record. */
static int emit(struct hws_aux *a, uint64_t from, uint64_t to, uint64_t reference, bool gap,
		bool snapshot, hws_aux_fn fn, void *ctx)
{
	struct hws_aux_out out;
	uint64_t len = to - from;
	uint64_t off = from & a->mask;
	int err;

	memset(&out, 0, sizeof(out));
	out.ev.header.type = HWS_PERF_RECORD_AUXTRACE;
	out.ev.header.size = sizeof(out.ev);
	out.ev.offset = from;
	out.ev.reference = reference;
	out.ev.idx = a->idx;
	out.ev.tid = a->tid;
	out.ev.cpu = a->cpu;
	if (off + len > a->size) {
		out.data[0] = a->base + off;
		out.len[0] = a->size - off;
		out.data[1] = a->base;
		out.len[1] = len - out.len[0];
	} else {
		out.data[0] = a->base + off;
		out.len[0] = len;
	}
	out.pad =
	    (HWS_AUXTRACE_ALIGN - (len & (HWS_AUXTRACE_ALIGN - 1))) & (HWS_AUXTRACE_ALIGN - 1);
	out.ev.size = len + out.pad;
	out.gap = gap;
	out.snapshot = snapshot;
	err = fn(ctx, &out);
	if (err)
		return err;
	a->stats.chunks++;
	a->stats.bytes += len;
	if (gap)
		a->stats.gaps++;
	a->last_end = to;
	a->have_last = true;
	return 0;
}

int hws_aux__drain(struct hws_aux *a, uint64_t reference, hws_aux_fn fn, void *ctx)
{
	uint64_t head, pos, fill;
	int n = 0, err;

	if (a->snapshot || !a->base)
		return -EINVAL;
	head = load_head(a);
	fill = head - a->prev;
	if (fill > a->stats.max_fill)
		a->stats.max_fill = fill;
	if (fill > a->size) {
		/* The kernel never does this when it honours aux_tail; an overwrite mapping
		 * or a bogus head. Keep the newest buffer's worth. */
		a->stats.overruns++;
		a->stats.lost_bytes += fill - a->size;
		pr_warn("AUX area %u: %llu bytes were overwritten before they were read (AUX "
			"data lost): use more AUX pages (hws_session_opts.aux_pages)\n",
			a->idx, (unsigned long long)(fill - a->size));
		a->prev = head - a->size;
		a->gap_next = true;
	}
	pop_gaps(a);
	pos = a->prev;
	while (pos != head) {
		uint64_t end = head;
		bool gap = a->gap_next;

		if (a->nr_gaps && a->gaps[0] - pos < head - pos)
			end = a->gaps[0]; /* split before the discontinuity */
		err = emit(a, pos, end, reference, gap, false, fn, ctx);
		if (err)
			return err; /* chunks before it stay handed out and consumed */
		n++;
		pos = end;
		a->prev = pos;
		a->gap_next = false;
		pop_gaps(a);
		/* D: every byte of the chunk has been read by @fn: release it */
		store_tail(a, pos);
	}
	return n;
}

/* perf's arm_spe_buffer_has_wrapped(): data in the last bytes of a zero-mapped area */
static bool area_has_wrapped(const struct hws_aux *a, uint64_t head)
{
	uint64_t from = a->size > SNAPSHOT_PROBE ? a->size - SNAPSHOT_PROBE : 0;
	uint64_t i;

	if (head >= a->size)
		return true;
	if (head > from)
		from = head;
	from &= ~(uint64_t)7;
	for (i = from; i + 8 <= a->size; i += 8) {
		uint64_t v;

		memcpy(&v, a->base + i, sizeof(v));
		if (v)
			return true;
	}
	return false;
}

int hws_aux__snapshot(struct hws_aux *a, uint64_t reference, size_t max_size, hws_aux_fn fn,
		      void *ctx)
{
	uint64_t head, old = a->prev, len;
	bool gap;
	int err;

	if (!a->base)
		return -EINVAL;
	head = load_head(a);
	if (!a->wrapped && area_has_wrapped(a, head)) {
		a->wrapped = true;
		a->stats.wrapped = 1;
	}
	if (a->wrapped) {
		/* whole area, oldest byte first (perf: head < size is moved up by size) */
		if (head < a->size)
			head += a->size;
		old = head - a->size;
	}
	if (head == old)
		return 0;
	len = head - old;
	if (len > a->size) {
		old = head - a->size;
		len = a->size;
	}
	if (max_size && len > max_size) {
		old = head - max_size;
		len = max_size;
	}
	/* contiguous with the previous snapshot only if nothing was overwritten in between */
	gap = a->have_last ? old != a->last_end : a->wrapped;
	if (a->gap_next)
		gap = true;
	if (len > a->stats.max_fill)
		a->stats.max_fill = len;
	err = emit(a, old, head, reference, gap, true, fn, ctx);
	if (err)
		return err;
	a->gap_next = false;
	a->prev = head;
	a->stats.snapshots++;
	return 1;
}

int hws_aux__chunk_gap(struct hws_aux *a, uint64_t offset, uint64_t size, uint64_t *inside)
{
	bool gap = a->gap_next || (a->have_last && offset != a->last_end);
	uint64_t end = offset + size;

	if (inside)
		*inside = UINT64_MAX;
	/* gaps at or before the chunk start: resync at its first byte */
	while (a->nr_gaps && a->gaps[0] - a->prev <= offset - a->prev) {
		gap = true;
		a->nr_gaps--;
		memmove(&a->gaps[0], &a->gaps[1], a->nr_gaps * sizeof(a->gaps[0]));
	}
	/* gaps strictly inside (chunks perf wrote are not split at gaps) */
	while (a->nr_gaps && a->gaps[0] - a->prev < end - a->prev) {
		if (inside && *inside == UINT64_MAX)
			*inside = a->gaps[0];
		a->stats.late_gaps++;
		a->nr_gaps--;
		memmove(&a->gaps[0], &a->gaps[1], a->nr_gaps * sizeof(a->gaps[0]));
	}
	a->prev = end;
	a->last_end = end;
	a->have_last = true;
	a->gap_next = false;
	pop_gaps(a);
	a->stats.chunks++;
	a->stats.bytes += size;
	if (gap)
		a->stats.gaps++;
	return gap;
}

uint64_t hws_aux__fill(const struct hws_aux *a)
{
	if (!a->pc)
		return 0;
	return __atomic_load_n(&a->pc->aux_head, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&a->pc->aux_tail, __ATOMIC_RELAXED);
}

const struct hws_aux_stats *hws_aux__stats(const struct hws_aux *a)
{
	return &a->stats;
}

static int round_pow2(uint64_t n, uint64_t *out, bool *rounded)
{
	uint64_t p = 1;

	*rounded = false;
	if (n == 0) {
		*out = 0;
		return 0;
	}
	if (n > (uint64_t)1 << 30)
		return -EINVAL;
	while (p < n)
		p <<= 1;
	*rounded = p != n;
	*out = p;
	return 0;
}

int hws_aux__mmap_sizes(size_t page_size, uint64_t data_pages, uint64_t aux_pages,
			struct hws_mmap_sizes *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (!page_size || (page_size & (page_size - 1)))
		return -EINVAL;
	out->page_size = page_size;
	err = round_pow2(data_pages, &out->data_pages, &out->data_rounded);
	if (err)
		return err;
	err = round_pow2(aux_pages, &out->aux_pages, &out->aux_rounded);
	if (err)
		return err;
	out->data_len = (size_t)(1 + out->data_pages) * page_size;
	out->aux_offset = (1 + out->data_pages) * (uint64_t)page_size;
	out->aux_len = (size_t)out->aux_pages * page_size;
	return 0;
}

uint32_t hws_aux__default_watermark(size_t aux_len, bool snapshot)
{
	if (snapshot)
		return 0;
	return (uint32_t)(aux_len / 2 > UINT32_MAX ? UINT32_MAX : aux_len / 2);
}
