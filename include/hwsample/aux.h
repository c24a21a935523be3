/* SPDX-License-Identifier: MIT */
/*
 * AUX-area engine: drains the AUX area of one perf mmap (Arm SPE, Intel PT/BTS, CoreSight,
 * any PMU whose driver implements setup_aux) into PERF_RECORD_AUXTRACE records
 * with perf's user record layout, so perf can decode the files hwsample writes. Only
 * core/kernel/aux.c touches aux_head / aux_tail. Works on plain memory (control page, AUX base,
 * size), so it is tested without a kernel.
 *
 * Use per mmap (the session owns the mmap, the event fd and the writer):
 *
 *	hws_aux__mmap_sizes(page, data_pages, aux_pages, &sz);  sizes, aux_offset, rounding
 *	pc->aux_offset = sz.aux_offset; pc->aux_size = sz.aux_len;
 *	aux_base = mmap(NULL, sz.aux_len, prot, MAP_SHARED, fd, sz.aux_offset);
 *	a = hws_aux__new(pc, aux_base, sz.aux_len, snapshot);
 *	hws_aux__set_stream(a, idx, cpu, tid);
 *	loop:
 *	  drain the data ring; for each PERF_RECORD_AUX: hws_aux__note_aux_record(a, ...)
 *	  hws_aux__drain(a, reference, write_cb, ctx);     (not in snapshot mode)
 *	on SIGUSR2 with -S: ioctl(PAUSE_OUTPUT, 1); hws_aux__snapshot(a, ref, 0, cb, ctx);
 *	                    ioctl(PAUSE_OUTPUT, 0)
 *	at exit: drain (or snapshot) once more, then hws_aux__delete(a).
 *
 * The callback receives a ready-to-write record: write out->ev (48 bytes), then the bytes
 * of data[0] (len[0]) and data[1] (len[1], may be 0), then out->pad zero bytes. ev.size is
 * len[0] + len[1] + pad, a multiple of 8 (perf's PERF_AUXTRACE_RECORD_ALIGNMENT). The data
 * pointers point into the AUX area and are valid only during the callback.
 *
 * Gaps: a chunk has out->gap set when AUX data before its first byte was lost or is not
 * contiguous with the previous chunk (TRUNCATED or PARTIAL records, a wrapped snapshot, an
 * overrun). Decoders (backend aux_decode, struct hws_aux_chunk::gap) must resync there.
 *
 * Not thread-safe: one engine per mmap, used by one thread.
 */
#ifndef HWSAMPLE_AUX_H
#define HWSAMPLE_AUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include <hwsample/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* perf's PERF_RECORD_AUXTRACE (user type 71), Linux tools/lib/perf/include/perf/event.h. */
#define HWS_PERF_RECORD_AUXTRACE 71
#define HWS_AUXTRACE_ALIGN	 8

struct hws_auxtrace_event {
	struct perf_event_header header; /* type 71, misc 0, size 48 (payload not counted) */
	uint64_t size;			 /* payload bytes that follow, padding included */
	uint64_t offset;		 /* position of the first byte in the AUX stream */
	uint64_t reference;		 /* PMU-specific (perf SPE: timestamp-ish) */
	uint32_t idx;			 /* mmap index */
	uint32_t tid;			 /* (u32)-1 when per-CPU without a thread */
	uint32_t cpu;			 /* (u32)-1 in per-thread mode */
	uint32_t reserved__;
};

/* PERF_AUX_FLAG_* (uapi); repeated so older headers still build. */
#define HWS_AUX_FLAG_TRUNCATED	     0x01ULL
#define HWS_AUX_FLAG_OVERWRITE	     0x02ULL
#define HWS_AUX_FLAG_PARTIAL	     0x04ULL
#define HWS_AUX_FLAG_COLLISION	     0x08ULL
#define HWS_AUX_FLAG_PMU_FORMAT_MASK 0xff00ULL

/* One record for the output file, handed to hws_aux_fn. */
struct hws_aux_out {
	struct hws_auxtrace_event ev;
	const void *data[2]; /* into the AUX area, valid during the callback only */
	size_t len[2];	     /* len[1] is 0 unless the chunk wraps the end of the area */
	size_t pad;	     /* zero bytes to write after the data (0..7) */
	bool gap;	     /* data before this chunk was lost / is not contiguous */
	bool snapshot;	     /* produced by hws_aux__snapshot() */
};

/* Write one record. Return 0 to go on; non-zero stops the drain, nothing is consumed,
 * and the value is returned by hws_aux__drain / hws_aux__snapshot. */
typedef int (*hws_aux_fn)(void *ctx, const struct hws_aux_out *out);

struct hws_aux_stats {
	uint64_t bytes;	      /* AUX bytes handed out (padding excluded) */
	uint64_t chunks;      /* AUXTRACE records handed out */
	uint64_t aux_records; /* PERF_RECORD_AUX noted */
	uint64_t aux_bytes;   /* sum of their aux_size */
	uint64_t truncated;   /* records with PERF_AUX_FLAG_TRUNCATED (perf: total_aux_lost) */
	uint64_t overwrite;   /* ... OVERWRITE */
	uint64_t partial;     /* ... PARTIAL (perf: total_aux_partial) */
	uint64_t collision;   /* ... COLLISION (perf: total_aux_collision) */
	uint64_t gaps;	      /* chunks handed out with gap set */
	uint64_t late_gaps;   /* gaps noted after the data was already handed out */
	uint64_t overruns;    /* head more than a buffer ahead of the tail (data lost) */
	uint64_t lost_bytes;  /* bytes lost to overruns (known exactly) */
	uint64_t max_fill;    /* highest aux_head - aux_tail seen */
	uint64_t snapshots;   /* hws_aux__snapshot() calls that produced data */
	uint64_t wrapped;     /* 1 once a snapshot found the free-running area wrapped */
};

struct hws_aux;

/*
 * hws_aux__new() - engine over @pc (control page of the event's mmap) and the AUX area at
 * @aux_base, @aux_size bytes (power of two, >= 8, as mapped at pc->aux_offset).
 * @snapshot: -S / overwrite AUX (read-only mapping): the area free-runs, never write
 * aux_tail, read with hws_aux__snapshot(). Otherwise the area is drained with
 * hws_aux__drain() and aux_tail is published after each chunk.
 * Returns NULL with errno (EINVAL, ENOMEM). The memory stays the caller's.
 */
HWS_API struct hws_aux *hws_aux__new(struct perf_event_mmap_page *pc, void *aux_base,
				     size_t aux_size, bool snapshot);
HWS_API void hws_aux__delete(struct hws_aux *a); /* NULL-safe */

/* Stream identity copied into every record (perf: per-CPU: cpu=N, tid=-1 or the target
 * pid; per-thread: cpu=-1, tid=thread). Default idx 0, cpu -1, tid -1. */
HWS_API void hws_aux__set_stream(struct hws_aux *a, uint32_t idx, uint32_t cpu, uint32_t tid);

/*
 * hws_aux__note_aux_record() - account one PERF_RECORD_AUX (@aux_offset, @aux_size, @flags)
 * read from the data ring of the same event. Counts TRUNCATED / OVERWRITE / PARTIAL /
 * COLLISION. TRUNCATED: the stream after aux_offset + aux_size is not contiguous (the
 * chunk starting there gets gap). PARTIAL: the record's own data has holes (gap at
 * aux_offset). COLLISION and OVERWRITE are counted only. A drain splits a chunk at a gap
 * position so gap marks the first byte after the loss exactly, provided the record was
 * noted before its data was drained (else late_gaps++ and the next chunk gets gap).
 * Returns the flags bits it does not know (0 normally).
 */
HWS_API uint64_t hws_aux__note_aux_record(struct hws_aux *a, uint64_t aux_offset, uint64_t aux_size,
					  uint64_t flags);

/*
 * hws_aux__drain() - hand out everything between the last position and aux_head (load-
 * acquire) as one record (a chunk that wraps the area comes as two pieces, data[0] and
 * data[1]; a chunk is split at noted gap positions), then publish aux_tail (store-release).
 * @reference goes into every record. Returns the number of records handed out, -EINVAL in
 * snapshot mode, or the non-zero value @fn returned (the records handed out before that
 * one stay consumed; the refused one is handed out again by the next drain).
 */
HWS_API int hws_aux__drain(struct hws_aux *a, uint64_t reference, hws_aux_fn fn, void *ctx);

/*
 * hws_aux__snapshot() - -S mode: hand out what the free-running area holds (the caller has
 * paused the event with PERF_EVENT_IOC_PAUSE_OUTPUT). aux_tail is never written.
 * Validity (perf's arm_spe_find_snapshot): the area has wrapped once aux_head >= size, or
 * when any of the last 512 bytes of the area (or from head to the end, if head is in
 * them) is non-zero: the area is mapped zeroed, so bytes there mean the producer has been
 * there. Wrapped: the whole area, oldest first, from head around to head (gap set). Not
 * wrapped: from the previous snapshot's head to head. @max_size (0 = no limit) keeps only
 * the newest @max_size bytes (perf -S size). Returns records handed out (0 or 1), or the
 * non-zero value of @fn.
 * Heuristic limit: a producer that writes zeros into the tail region is not detected until
 * its head passes size; a free-running head that is reduced modulo size (SPE style) is
 * handled by the sticky "wrapped" state.
 */
HWS_API int hws_aux__snapshot(struct hws_aux *a, uint64_t reference, size_t max_size, hws_aux_fn fn,
			      void *ctx);

/* ---------------------------------------------------------------- file side */

/*
 * hws_aux__new_tracker() - the same gap rule for a decoder reading a file, per AUX stream
 * (AUXTRACE idx): no area, no head/tail. Feed it the stream's PERF_RECORD_AUX records with
 * hws_aux__note_aux_record() in file order and call hws_aux__chunk_gap() for each of its
 * AUXTRACE records. Free with hws_aux__delete(). NULL with errno ENOMEM.
 */
HWS_API struct hws_aux *hws_aux__new_tracker(void);

/*
 * hws_aux__chunk_gap() - AUXTRACE chunk [@offset, @offset + @size) of the stream arrives.
 * Returns 1 if the decoder must resync at its first byte (struct hws_aux_chunk::gap): a
 * noted gap at or before @offset, a truncation that ended where this chunk starts, or an
 * @offset that is not where the previous chunk ended (snapshots, lost chunks); else 0.
 * *@inside (may be NULL) gets the first noted gap strictly inside the chunk, or UINT64_MAX:
 * files hwsample writes never have one (the drain splits there), perf's may.
 */
HWS_API int hws_aux__chunk_gap(struct hws_aux *a, uint64_t offset, uint64_t size, uint64_t *inside);

/* Bytes between aux_tail and aux_head now (non-snapshot). */
HWS_API uint64_t hws_aux__fill(const struct hws_aux *a);
HWS_API const struct hws_aux_stats *hws_aux__stats(const struct hws_aux *a);

/* ---------------------------------------------------------------- mmap sizes */

struct hws_mmap_sizes {
	size_t page_size;
	uint64_t data_pages; /* after rounding up to a power of two */
	uint64_t aux_pages;  /* 0: no AUX area */
	size_t data_len;     /* mmap length of the data mapping: (1 + data_pages) * page */
	uint64_t aux_offset; /* pc->aux_offset and the mmap offset: (1 + data_pages) * page */
	size_t aux_len;	     /* pc->aux_size and the mmap length: aux_pages * page */
	bool data_rounded;   /* data_pages was not a power of two and was rounded up */
	bool aux_rounded;    /* aux_pages likewise */
};

/*
 * hws_aux__mmap_sizes() - sizes for -m @data_pages,@aux_pages. Like perf, a count that is
 * not a power of two is rounded up to the next one (the *_rounded flags let the caller
 * warn). @data_pages 0 is allowed (control page only). Returns 0, or -EINVAL when a count
 * is too large (> 2^30 pages) or @page_size is not a power of two.
 */
HWS_API int hws_aux__mmap_sizes(size_t page_size, uint64_t data_pages, uint64_t aux_pages,
				struct hws_mmap_sizes *out);

/* Default aux_watermark for an AUX area of @aux_len bytes: half of it when draining
 * (kernel default), 0 in snapshot mode (the kernel ignores it there). */
HWS_API uint32_t hws_aux__default_watermark(size_t aux_len, bool snapshot);

#ifdef __cplusplus
}
#endif
#endif
