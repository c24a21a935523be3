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

#ifdef __cplusplus
}
#endif
#endif
