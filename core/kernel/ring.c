// SPDX-License-Identifier: MIT
/*
 * Reader of one perf ring buffer (data area of a perf_event mmap) over plain memory.
 *
 * Invariants:
 *  - Only this file (and core/kernel/aux.c for aux_*) touches data_head / data_tail.
 *  - data_head and data_tail are free-running u64; the offset in the area is pos & mask,
 *    size is a power of two. Every position this reader keeps (start, end, prev) is a
 *    free-running value, never an offset.
 *  - Forward ring: start <= end (mod 2^64), end - start <= size. Records are handed out
 *    from [start, end); a record whose bytes straddle the end of the area is copied into
 *    the bounce buffer (header.size <= 65535, so 64 KiB always fits).
 *  - A header that is not a plausible record (size < 8, size % 8, size > end - start, or a
 *    misaligned start) is counted in bad_headers; the reader drops everything up to the
 *    head it snapshotted (skipped_bytes) and returns NULL. Every call either advances
 *    start or returns NULL: it cannot loop.
 *  - Backward ring: records are read from head towards older data up to min(prev, head +
 *    size); a zero header means never-written space (not an error); the last record of a
 *    full buffer that runs past the window was partly overwritten and is dropped.
 *
 * Barrier pairing (kernel comment in perf_output_put_handle, Linux
 * tools/include/linux/ring_buffer.h):
 *
 *	kernel (producer)                      user (this file)
 *	  A: if (LOAD data_tail) {  <--------    D: last read of record bytes
 *	       write record bytes                  __atomic_store_n(&data_tail, RELEASE)
 *	  B: smp_wmb()                 ------->  C: __atomic_load_n(&data_head, ACQUIRE)
 *	     STORE data_head                        then read record bytes
 *
 * A pairs with D (the kernel does not overwrite bytes we still read), B pairs with C (we
 * see the bytes of every record below the head we loaded).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/ring.h>

#include "util/internal.h"

#define RING_BOUNCE_SIZE 65536u /* header.size is a u16: no record is larger */

struct hws_ring {
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t size;
	uint64_t mask;
	bool backward;
	bool warned_overrun;
	bool warned_lost;
	bool warned_bad;
	uint64_t start; /* next record (free-running) */
	uint64_t end;	/* end of the readable window */
	uint64_t prev;	/* backward: head at the previous read */
	uint64_t head;	/* backward: head snapshotted by read_init */
	bool full;	/* backward: the window is a whole buffer (last record may overshoot) */
	struct hws_ring_stats stats;
	unsigned char bounce[RING_BOUNCE_SIZE];
};

static inline uint64_t load_head(const struct hws_ring *r)
{
	return __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
}

static inline void store_tail(struct hws_ring *r, uint64_t tail)
{
	__atomic_store_n(&r->pc->data_tail, tail, __ATOMIC_RELEASE);
}

struct hws_ring *hws_ring__new(struct perf_event_mmap_page *pc, void *data, size_t size,
			       bool backward)
{
	struct hws_ring *r;

	if (!pc || !data || size < 8 || (size & (size - 1)))
		return errno = EINVAL, NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return errno = ENOMEM, NULL;
	r->pc = pc;
	r->data = data;
	r->size = size;
	r->mask = size - 1;
	r->backward = backward;
	if (backward) {
		/* Whatever the head is now was written before we started: read it too. The
		 * kernel starts at 0, so prev = 0 makes the first read cover all of it. */
		r->prev = 0;
	} else {
		r->start = __atomic_load_n(&pc->data_tail, __ATOMIC_RELAXED);
		r->end = r->start;
	}
	return r;
}

struct hws_ring *hws_ring__new_mmap(void *base, size_t len, bool backward)
{
	struct perf_event_mmap_page *pc = base;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t off, size;

	if (!base || len <= page)
		return errno = EINVAL, NULL;
	off = pc->data_offset ? pc->data_offset : page;
	size = pc->data_size ? pc->data_size : len - page;
	if (off < sizeof(*pc) || off > len || size > len - off)
		return errno = EINVAL, NULL;
	return hws_ring__new(pc, (unsigned char *)base + off, size, backward);
}

void hws_ring__delete(struct hws_ring *r)
{
	free(r);
}

static uint64_t forward_init(struct hws_ring *r)
{
	uint64_t head = load_head(r);
	uint64_t avail = head - r->start;

	if (avail > r->size) {
		/* Cannot happen with a writable mapping; a read-only forward ring or a bogus
		 * head. No record boundary is known: jump to the head (perf does the same). */
		r->stats.overruns++;
		r->stats.skipped_bytes += avail;
		if (!r->warned_overrun) {
			pr_warn("the kernel wrote %llu bytes into a %llu-byte ring buffer before "
				"it was read: records lost, reading on from the newest\n",
				(unsigned long long)avail, (unsigned long long)r->size);
			r->warned_overrun = true;
		}
		r->start = head;
		avail = 0;
	}
	r->end = head;
	if (avail > r->stats.max_fill)
		r->stats.max_fill = avail;
	return avail;
}

static uint64_t backward_init(struct hws_ring *r)
{
	uint64_t head = load_head(r);
	uint64_t span = r->prev - head; /* head runs downwards */

	r->head = head;
	r->start = head;
	r->full = false;
	if (span > r->size) {
		/* Overwrite ring: older records were overwritten before we looked. */
		r->stats.overruns++;
		span = r->size;
		r->full = true;
	}
	r->end = head + span;
	if (span > r->stats.max_fill)
		r->stats.max_fill = span;
	return span;
}

uint64_t hws_ring__read_init(struct hws_ring *r)
{
	return r->backward ? backward_init(r) : forward_init(r);
}

static void bad_header(struct hws_ring *r, const struct perf_event_header *h)
{
	r->stats.bad_headers++;
	r->stats.skipped_bytes += r->end - r->start;
	if (!r->warned_bad) {
		pr_warn("malformed record in a ring buffer (type %u, size %u, at 0x%llx): "
			"%llu bytes skipped\n",
			h ? h->type : 0, h ? h->size : 0, (unsigned long long)r->start,
			(unsigned long long)(r->end - r->start));
		r->warned_bad = true;
	}
	r->start = r->end;
}

static void note_lost(struct hws_ring *r, const struct perf_event_header *h)
{
	const uint64_t *p = (const uint64_t *)(h + 1);

	if (h->size < sizeof(*h) + 2 * sizeof(uint64_t))
		return;
	r->stats.lost += p[1];
	if (!r->warned_lost) {
		pr_warn("lost %llu records: a ring buffer was full (the summary counts every "
			"loss): use a larger ring (hws_session_opts.mmap_pages) or a lower rate "
			"(hws_event_request.period/freq)\n",
			(unsigned long long)p[1]);
		r->warned_lost = true;
	}
}

const struct perf_event_header *hws_ring__read_event(struct hws_ring *r)
{
	const struct perf_event_header *h;
	uint64_t avail = r->end - r->start;
	uint64_t off = r->start & r->mask;
	uint64_t size;

	if (avail < sizeof(*h))
		goto done;
	if (off & 7) {
		bad_header(r, NULL);
		return NULL;
	}
	/* 8-byte aligned and size is a multiple of 8: the header never straddles. */
	h = (const struct perf_event_header *)(r->data + off);
	size = h->size;
	if (size == 0 && r->backward) {
		/* never-written space: the end of what a backward ring holds */
		r->start = r->end;
		return NULL;
	}
	if (size < sizeof(*h) || (size & 7)) {
		bad_header(r, h);
		return NULL;
	}
	if (size > avail) {
		if (r->backward && r->full) {
			/* oldest record of a full buffer, partly overwritten: drop it */
			r->stats.skipped_bytes += avail;
			r->start = r->end;
			return NULL;
		}
		bad_header(r, h);
		return NULL;
	}
	if (off + size > r->size) {
		uint64_t first = r->size - off;

		memcpy(r->bounce, r->data + off, first);
		memcpy(r->bounce + first, r->data, size - first);
		h = (const struct perf_event_header *)r->bounce;
		r->stats.copied++;
	}
	r->start += size;
	r->stats.records++;
	r->stats.bytes += size;
	if (h->type == PERF_RECORD_LOST)
		note_lost(r, h);
	return h;
done:
	if (r->backward && avail)
		r->start = r->end; /* < 8 bytes left of a full window: nothing complete */
	return NULL;
}

void hws_ring__consume(struct hws_ring *r)
{
	if (!r->backward)
		store_tail(r, r->start);
}

void hws_ring__read_done(struct hws_ring *r)
{
	if (r->backward) {
		r->prev = r->head;
		r->start = r->end = r->head;
		return;
	}
	store_tail(r, r->start);
}

uint64_t hws_ring__fill(const struct hws_ring *r)
{
	if (r->backward)
		return 0;
	return __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&r->pc->data_tail, __ATOMIC_RELAXED);
}

size_t hws_ring__size(const struct hws_ring *r)
{
	return r->size;
}

const struct hws_ring_stats *hws_ring__stats(const struct hws_ring *r)
{
	return &r->stats;
}
