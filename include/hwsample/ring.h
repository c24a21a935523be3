/* SPDX-License-Identifier: MIT */
/*
 * Reader of one perf ring buffer (the data area of a perf_event mmap), on plain memory:
 * (control page, data area, size). Only core/kernel/ring.c touches data_head / data_tail.
 *
 * Read protocol (forward and backward alike):
 *
 *	hws_ring__read_init(r);              snapshot the head (load-acquire)
 *	while ((ev = hws_ring__read_event(r))) {
 *		use(ev);                     valid until the next read_event
 *		hws_ring__consume(r);        optional: release the space early
 *	}
 *	hws_ring__read_done(r);              publish the tail (store-release)
 *
 * Forward rings (PROT_READ|PROT_WRITE) are drained from data_tail to data_head; a record
 * that straddles the end of the area is copied into a per-ring bounce buffer (64 KiB max,
 * the largest record the kernel writes). A header with size < 8, size not a multiple of 8,
 * or size past the available bytes is counted as a bad header and the reader resyncs by
 * dropping what is left up to the head (never loops).
 *
 * Backward (overwrite) rings (attr.write_backward, PROT_READ) are read from data_head
 * towards older records until the previous head, one full buffer, or a zero header; the
 * caller pauses the event (PERF_EVENT_IOC_PAUSE_OUTPUT) around the read.
 */
#ifndef HWSAMPLE_RING_H
#define HWSAMPLE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include <hwsample/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_ring;

struct hws_ring_stats {
	uint64_t records; /* records handed out */
	uint64_t bytes;	  /* bytes of records handed out */
	uint64_t copied;  /* records that straddled the wrap and went through the bounce buffer */
	uint64_t bad_headers;	/* headers rejected (size 0, misaligned, past the data) */
	uint64_t skipped_bytes; /* bytes dropped while resyncing or catching up */
	uint64_t overruns;	/* times the producer was more than a buffer ahead */
	uint64_t max_fill;	/* highest head - tail seen, bytes */
	/* appended: */
	uint64_t lost; /* sum of PERF_RECORD_LOST.lost over the records handed out */
};

/*
 * hws_ring__new() - reader over @pc (control page) and @data (@size bytes, power of two).
 * @backward: overwrite ring written with write_backward.
 * Returns NULL and sets errno (EINVAL for a size that is not a power of two).
 * Owns nothing but its bounce buffer: the memory stays the caller's.
 */
HWS_API struct hws_ring *hws_ring__new(struct perf_event_mmap_page *pc, void *data, size_t size,
				       bool backward);
/* Reader over a whole perf mmap (control page first; data_offset/data_size from it). */
HWS_API struct hws_ring *hws_ring__new_mmap(void *base, size_t len, bool backward);
HWS_API void hws_ring__delete(struct hws_ring *r); /* NULL-safe */

/* Returns the number of bytes available to read (0: nothing). */
HWS_API uint64_t hws_ring__read_init(struct hws_ring *r);
/* Next record, or NULL. Valid until the next read_event / read_done. */
HWS_API const struct perf_event_header *hws_ring__read_event(struct hws_ring *r);
HWS_API void hws_ring__consume(struct hws_ring *r);
HWS_API void hws_ring__read_done(struct hws_ring *r);

/* Bytes between tail and head right now (fill level; forward rings). */
HWS_API uint64_t hws_ring__fill(const struct hws_ring *r);
HWS_API size_t hws_ring__size(const struct hws_ring *r);
HWS_API const struct hws_ring_stats *hws_ring__stats(const struct hws_ring *r);

#ifdef __cplusplus
}
#endif
#endif
