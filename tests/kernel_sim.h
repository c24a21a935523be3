/* SPDX-License-Identifier: MIT */
/*
 * Simulated kernel producer for perf ring buffers and AUX areas, on plain memory, so the
 * ring reader (core/kernel/ring.c) and the AUX engine (core/kernel/aux.c) are tested without a
 * kernel. Header-only (static functions); any test may include it.
 *
 * What it mimics (Linux 6.1 kernel/events/ring_buffer.c):
 *  - forward, writable ring (perf_output_begin/end): space check against data_tail
 *    (load-acquire, the kernel's control dependency A) with CIRC_SPACE, i.e. at most
 *    size - 8 bytes of aligned records in flight; a record that does not fit is dropped
 *    and counted; the count goes out as PERF_RECORD_LOST {id, lost} in front of the next
 *    record that fits (same reservation); data_head is published with a store-release (B).
 *  - overwrite (read-only) ring: no space check; backward (write_backward): the head is
 *    decremented by the record size and the record written at the new head. While paused
 *    (PERF_EVENT_IOC_PAUSE_OUTPUT) records are dropped and counted, then reported by a
 *    LOST record in front of the next one.
 *  - AUX area (perf_aux_output_begin/end): the "hardware" writes bytes at aux_head; in
 *    non-overwrite mode only into CIRC_SPACE(aux_head, aux_tail) (aux_tail load-acquire);
 *    what does not fit is dropped and the PERF_RECORD_AUX gets TRUNCATED; aux_head is
 *    published (store-release) and then a PERF_RECORD_AUX {aux_offset, aux_size, flags}
 *    is written into the event's data ring. Snapshot (overwrite) mode free-runs over the
 *    area; head_mod makes aux_head wrap modulo the size (SPE snapshot style).
 *    Simplification: when no byte fits, the kernel disables the event and emits nothing;
 *    the sim keeps going and emits a size-0 TRUNCATED record (the event is "re-enabled"
 *    at once), so every loss is announced by a TRUNCATED record at its position.
 *
 * Memory of the control page and areas is page-aligned and zeroed, as a fresh mmap is.
 * Thread use: one producer thread calls ksim_* writers, one reader thread reads through
 * core; the only shared words are data_head/data_tail/aux_head/aux_tail and `paused`.
 */
#ifndef HWS_TESTS_KERNEL_SIM_H
#define HWS_TESTS_KERNEL_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <linux/perf_event.h>

#define KSIM_PAGE 4096u

struct ksim_ring {
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t size, mask;
	bool backward;	/* write_backward */
	bool overwrite; /* read-only mapping: tail ignored */
	uint64_t head;	/* kernel's rb->head (private) */
	uint64_t id;	/* event id put into LOST records */
	uint64_t pending_lost;
	/* producer-side totals, for exact checks */
	uint64_t written;	/* records written (LOST records excluded) */
	uint64_t dropped;	/* records dropped (no space or paused) */
	uint64_t lost_records;	/* LOST records emitted */
	uint64_t lost_reported; /* sum of their lost fields */
	int paused;		/* atomic: 0 running, else the pause generation (reader sets) */
	int pause_ack;		/* atomic: the generation the producer saw (no write in flight) */
	int pause_gen;		/* reader-private */
};

static inline void *ksim_zalloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, KSIM_PAGE, len ? len : KSIM_PAGE))
		return NULL;
	memset(p, 0, len ? len : KSIM_PAGE);
	return p;
}

/* @size: data area bytes (power of two). Returns 0 or -1. */
static inline int ksim_ring__init(struct ksim_ring *k, uint64_t size, bool backward, bool overwrite)
{
	memset(k, 0, sizeof(*k));
	k->pc = ksim_zalloc(KSIM_PAGE);
	k->data = ksim_zalloc(size);
	if (!k->pc || !k->data)
		return -1;
	k->size = size;
	k->mask = size - 1;
	k->backward = backward;
	k->overwrite = overwrite || backward;
	k->id = 42;
	k->pc->data_offset = KSIM_PAGE;
	k->pc->data_size = size;
	return 0;
}

static inline void ksim_ring__fini(struct ksim_ring *k)
{
	free(k->pc);
	free(k->data);
	k->pc = NULL;
	k->data = NULL;
}

static inline void ksim__copy_in(unsigned char *area, uint64_t mask, uint64_t pos, const void *src,
				 uint64_t len)
{
	const unsigned char *p = src;

	while (len) {
		uint64_t off = pos & mask, n = mask + 1 - off;

		if (n > len)
			n = len;
		memcpy(area + off, p, n);
		p += n;
		pos += n;
		len -= n;
	}
}

/* CIRC_SPACE(head, tail, size) of Linux include/linux/circ_buf.h */
static inline uint64_t ksim__circ_space(uint64_t head, uint64_t tail, uint64_t size)
{
	return (tail - (head + 1)) & (size - 1);
}

/*
 * PERF_EVENT_IOC_PAUSE_OUTPUT. @on with @sync: wait until the producer has seen the pause
 * (its write in flight is over), as a reader that wants a stable area must; the producer
 * must keep calling ksim_ring__write for that. Off: clears the acknowledgement.
 */
static inline void ksim_ring__pause(struct ksim_ring *k, bool on, bool sync)
{
	int gen;

	if (!on) {
		__atomic_store_n(&k->paused, 0, __ATOMIC_RELEASE);
		return;
	}
	gen = ++k->pause_gen;
	__atomic_store_n(&k->paused, gen, __ATOMIC_RELEASE);
	while (sync && __atomic_load_n(&k->pause_ack, __ATOMIC_ACQUIRE) != gen)
		sched_yield();
}

/*
 * Write one record (@rec, @size bytes, size a multiple of 8 and == header.size) with the
 * kernel's protocol. Returns true if written, false if dropped (and counted as lost).
 * @publish false leaves data_head unpublished (an NMI-nested writer; call
 * ksim_ring__publish later).
 */
static inline bool ksim_ring__write_ex(struct ksim_ring *k, const void *rec, uint64_t size,
				       bool publish)
{
	struct {
		struct perf_event_header header;
		uint64_t id;
		uint64_t lost;
	} lost_ev;
	uint64_t need = size, head = k->head, pos;
	int gen = __atomic_load_n(&k->paused, __ATOMIC_ACQUIRE);

	if (gen) {
		__atomic_store_n(&k->pause_ack, gen, __ATOMIC_RELEASE);
		k->pending_lost++;
		k->dropped++;
		return false;
	}
	if (k->pending_lost)
		need += sizeof(lost_ev);
	if (!k->overwrite) {
		/* A: the tail load orders our stores after the reader's last reads (D) */
		uint64_t tail = __atomic_load_n(&k->pc->data_tail, __ATOMIC_ACQUIRE);

		if (ksim__circ_space(head, tail, k->size) < need) {
			k->pending_lost++;
			k->dropped++;
			return false;
		}
	}
	if (k->backward) {
		head -= need;
		pos = head;
	} else {
		pos = head;
		head += need;
	}
	if (k->pending_lost) {
		lost_ev.header.type = PERF_RECORD_LOST;
		lost_ev.header.misc = 0;
		lost_ev.header.size = sizeof(lost_ev);
		lost_ev.id = k->id;
		lost_ev.lost = k->pending_lost;
		ksim__copy_in(k->data, k->mask, pos, &lost_ev, sizeof(lost_ev));
		pos += sizeof(lost_ev);
		k->lost_records++;
		k->lost_reported += k->pending_lost;
		k->pending_lost = 0;
	}
	ksim__copy_in(k->data, k->mask, pos, rec, size);
	k->head = head;
	k->written++;
	/* B: record bytes before the head (pairs with the reader's load-acquire, C) */
	if (publish)
		__atomic_store_n(&k->pc->data_head, head, __ATOMIC_RELEASE);
	return true;
}

static inline bool ksim_ring__write(struct ksim_ring *k, const void *rec, uint64_t size)
{
	return ksim_ring__write_ex(k, rec, size, true);
}

static inline void ksim_ring__publish(struct ksim_ring *k)
{
	__atomic_store_n(&k->pc->data_head, k->head, __ATOMIC_RELEASE);
}

/*
 * Test record: PERF_RECORD_SAMPLE-typed, {header, u64 seq, payload bytes derived from
 * seq}; size from 16 to 16 + 8 * 63 by a hash of seq (so straddles happen at varied
 * offsets). ksim_rec__check() verifies all of it.
 */
static inline uint64_t ksim_rec__size(uint64_t seq)
{
	uint64_t h = seq * 0x9e3779b97f4a7c15ULL;

	return 16 + 8 * ((h >> 58) & 63);
}

static inline uint64_t ksim_rec__fill(void *buf, uint64_t seq, uint64_t size)
{
	struct perf_event_header *h = buf;
	unsigned char *p = buf;
	uint64_t i;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = (uint16_t)(seq & 0xffff);
	h->size = (uint16_t)size;
	memcpy(p + 8, &seq, 8);
	for (i = 16; i < size; i++)
		p[i] = (unsigned char)(seq * 31 + i);
	return size;
}

/* 0 if @h is the intact test record @seq. */
static inline int ksim_rec__check(const struct perf_event_header *h, uint64_t seq)
{
	const unsigned char *p = (const unsigned char *)h;
	uint64_t s, i, size = ksim_rec__size(seq);

	if (h->type != PERF_RECORD_SAMPLE || h->size != size || h->misc != (seq & 0xffff))
		return -1;
	memcpy(&s, p + 8, 8);
	if (s != seq)
		return -1;
	for (i = 16; i < size; i++)
		if (p[i] != (unsigned char)(seq * 31 + i))
			return -1;
	return 0;
}

static inline uint64_t ksim_rec__seq(const struct perf_event_header *h)
{
	uint64_t s;

	memcpy(&s, (const unsigned char *)h + 8, 8);
	return s;
}

/* ---------------------------------------------------------------- AUX */

struct ksim_aux {
	struct perf_event_mmap_page *pc; /* shared with the event's ksim_ring */
	unsigned char *base;
	uint64_t size, mask;
	bool overwrite;		/* snapshot / read-only AUX mapping */
	bool head_mod;		/* aux_head reported modulo size (SPE-style snapshot head) */
	uint64_t head;		/* kernel's rb->aux_head, free-running */
	struct ksim_ring *ring; /* where PERF_RECORD_AUX goes (may be NULL) */
	/* producer-side totals */
	uint64_t bytes_written;
	uint64_t bytes_dropped;
	uint64_t aux_records;
	uint64_t truncated;
};

struct ksim_aux_rec {
	struct perf_event_header header;
	uint64_t aux_offset;
	uint64_t aux_size;
	uint64_t flags;
};

static inline int ksim_aux__init(struct ksim_aux *a, struct perf_event_mmap_page *pc, uint64_t size,
				 bool overwrite, struct ksim_ring *ring)
{
	memset(a, 0, sizeof(*a));
	a->base = ksim_zalloc(size);
	if (!a->base)
		return -1;
	a->pc = pc;
	a->size = size;
	a->mask = size - 1;
	a->overwrite = overwrite;
	a->ring = ring;
	pc->aux_offset = KSIM_PAGE + (ring ? ring->size : 0);
	pc->aux_size = size;
	return 0;
}

static inline void ksim_aux__fini(struct ksim_aux *a)
{
	free(a->base);
	a->base = NULL;
}

/*
 * One perf_aux_output_begin/end session: the hardware writes @len bytes of @src (a
 * multiple of 8), @flags are extra PERF_AUX_FLAG_* the "driver" sets (PARTIAL,
 * COLLISION). Non-overwrite: only what fits is written (rounded down to 8), the record
 * gets TRUNCATED if anything was dropped. Fills @out (if non-NULL) with the AUX record
 * and returns the number of bytes written.
 */
static inline uint64_t ksim_aux__write(struct ksim_aux *a, const void *src, uint64_t len,
				       uint64_t flags, struct ksim_aux_rec *out)
{
	struct ksim_aux_rec rec;
	uint64_t n = len, start = a->head;

	if (!a->overwrite) {
		uint64_t tail = __atomic_load_n(&a->pc->aux_tail, __ATOMIC_ACQUIRE);
		uint64_t space = ksim__circ_space(a->head, tail, a->size) & ~(uint64_t)7;

		if (n > space) {
			n = space;
			flags |= PERF_AUX_FLAG_TRUNCATED;
		}
	} else {
		flags |= PERF_AUX_FLAG_OVERWRITE;
	}
	ksim__copy_in(a->base, a->mask, a->head, src, n);
	a->head += n;
	a->bytes_written += n;
	a->bytes_dropped += len - n;
	/* B: hardware data before aux_head (pairs with the engine's load-acquire) */
	__atomic_store_n(&a->pc->aux_head, a->head_mod ? a->head & a->mask : a->head,
			 __ATOMIC_RELEASE);
	rec.header.type = PERF_RECORD_AUX;
	rec.header.misc = 0;
	rec.header.size = sizeof(rec);
	rec.aux_offset = start;
	rec.aux_size = n;
	rec.flags = flags;
	if (out)
		*out = rec;
	if (flags & PERF_AUX_FLAG_TRUNCATED)
		a->truncated++;
	/* the kernel does not emit a record whose only content is OVERWRITE with size 0 */
	if (n || (flags & ~(uint64_t)PERF_AUX_FLAG_OVERWRITE)) {
		a->aux_records++;
		if (a->ring)
			ksim_ring__write(a->ring, &rec, sizeof(rec));
	}
	return n;
}

/* AUX test payload: a stream of u64 words 0xA5 << 56 | word index in the stream. */
static inline uint64_t ksim_aux__word(uint64_t seq)
{
	return (0xA5ULL << 56) | seq;
}

#endif
