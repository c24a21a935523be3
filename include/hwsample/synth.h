/* SPDX-License-Identifier: MIT */
/*
 * Side-band records for what existed before recording started, as perf synthesizes them:
 * COMM and FORK for every thread, MMAP2 for every executable (and, when asked, data)
 * mapping of a process, and the kernel's text map. Each record carries the sample_id
 * trailer of @attr (which must have sample_id_all), with @id as its id.
 */
#ifndef HWSAMPLE_SYNTH_H
#define HWSAMPLE_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <hwsample/abi.h>

#include <hwsample/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Receives one complete record. Return 0 to go on, negative to stop. */
typedef int (*hws_synth_fn)(void *ctx, const void *rec, size_t len);

/* Process @pid (all its threads); pid -1 = every process in /proc. Returns records
 * written or negative. Processes that vanish meanwhile are skipped. */
HWS_API int hws_synth__threads(const struct hws_perf_event_attr *attr, uint64_t id, pid_t pid,
			       bool data_maps, hws_synth_fn fn, void *ctx);
/* PERF_RECORD_MMAP for [kernel.kallsyms]_text. */
HWS_API int hws_synth__kernel_mmap(const struct hws_perf_event_attr *attr, uint64_t id,
				   hws_synth_fn fn, void *ctx);

/*
 * The build-ids of the files the samples hit, as perf record writes them (HEADER_BUILD_ID)
 * and keeps them in its build-id cache. Watch every record written (in order) with
 * hws_buildid_hits__record(); the attrs (and their ids, when there are several) tell how
 * samples are laid out. hws_buildid_hits__finish() sets @w's HEADER_BUILD_ID: the running
 * kernel's entry when kernel samples hit it, one per module hit (misc KERNEL, its file's
 * name under /lib/modules or [name]), then one per file hit (the vDSO as [vdso]), each
 * copied into perf's build-id cache @cache_dir (NULL: ~/.debug; "": no copies) unless a copy
 * exists, and HEADER_SAMPLE_TIME (the earliest and latest sample time) when samples had
 * times. All return 0 or a negative errno.
 * Pipe mode: hws_buildid_hits__next_record() puts into @buf (at least 4196 bytes) the
 * PERF_RECORD_HEADER_BUILD_ID record of the next file (kernel, module) first hit since the
 * last call, copying the file into the cache as __finish() does, and returns its size (0:
 * none left); a writer sends these before the record just watched, so that a reader has the
 * build-id before the first sample that needs it.
 */
struct hws_buildid_hits;
struct hws_perf_writer;
struct hws_buildid_hits_stats {
	uint32_t entries;     /* files listed */
	uint32_t no_build_id; /* files hit that have none (or are gone) */
	uint32_t cached;      /* copies in the cache (new or there already) */
	uint32_t cache_failed;
};
HWS_API struct hws_buildid_hits *hws_buildid_hits__new(void);
HWS_API void hws_buildid_hits__delete(struct hws_buildid_hits *h); /* NULL-safe */
HWS_API int hws_buildid_hits__add_attr(struct hws_buildid_hits *h,
				       const struct hws_perf_event_attr *attr, const uint64_t *ids,
				       size_t nr);
HWS_API int hws_buildid_hits__record(struct hws_buildid_hits *h, const void *rec);
HWS_API int hws_buildid_hits__finish(struct hws_buildid_hits *h, struct hws_perf_writer *w,
				     const char *cache_dir, struct hws_buildid_hits_stats *st);
HWS_API int hws_buildid_hits__next_record(struct hws_buildid_hits *h, const char *cache_dir,
					  void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
