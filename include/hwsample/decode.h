/* SPDX-License-Identifier: MIT */
/*
 * The decode pipeline: perf.data records -> struct hws_sample.
 *
 * struct hws_decoder walks the records of a struct hws_perf_reader (file or pipe) one round
 * at a time (up to a FINISHED_ROUND record, or 32 MiB), each round sorted by time as perf's
 * ordered events do (per-CPU rings put one CPU's records before another's in the file), and:
 *  - SAMPLE: splits the record by the event's sample_type (hws_sample__parse()), fills the
 *    generic fields of a struct hws_sample (time, cpu, pid/tid, period, id, event and backend
 *    name, ip + ip_precise from PERF_RECORD_MISC_EXACT_IP, cpumode, addr, phys_addr, page
 *    sizes, weight, data_src normalized, raw pointer; WEIGHT's low 32 bits / WEIGHT_STRUCT's
 *    var1 go to lat_total and var2 to lat_ins as perf reads them), then hands it to the
 *    event's backend (ops->decode) which may refine or replace vendor fields, or skip it;
 *    a PERF_SAMPLE_CALLCHAIN goes to s->callchain (frames innermost first, PERF_CONTEXT_*
 *    markers turned into each frame's ctx, at most opts.max_stack frames);
 *  - AUXTRACE: feeds the chunk to the AUX backend's ops->aux_decode with per-stream (idx)
 *    state the decoder allocates (ops->aux_stream_size bytes, zeroed); gap=1 where the range
 *    of a PERF_RECORD_AUX with TRUNCATED ends (PARTIAL: where it starts) on that CPU, or
 *    when the stream offset jumps;
 *    ops->aux_flush at the end;
 *  - LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE, AUX flags: counted per event and CPU;
 *  - COMM, MMAP, MMAP2, FORK: kept in a struct hws_symbols for symbolization.
 * The backend of an event is hws_registry__match(attr, PMU_MAPPINGS name) (falls back to
 * "sw"); with no backend at all the generic fields are delivered as they are.
 *
 * Loss is never silent: every dropped or skipped thing has a counter (hws_decoder__counts()).
 * A reader error stops the run; everything decoded before it has been delivered and the
 * counters stay valid; hws_decoder__errmsg() names the byte offset and record type.
 *
 * Not thread-safe: one decoder per thread.
 */
#ifndef HWSAMPLE_DECODE_H
#define HWSAMPLE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>
#include <hwsample/perfdata.h>
#include <hwsample/registry.h>
#include <hwsample/sample.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_decoder;

struct hws_decoder_opts {
	size_t sz;	      /* sizeof(struct hws_decoder_opts) */
	bool no_sideband;     /* do not track COMM/MMAP/FORK (no symbols, slightly faster) */
	bool srcline;	      /* symbols: source file:line lookups */
	bool no_kallsyms;     /* never use /proc/kallsyms, even on the recording host */
	const char *kallsyms; /* kallsyms of the recording's kernel (perf report --kallsyms);
			       * NULL: /proc/kallsyms on that kernel, else perf's build-id cache */
	uint32_t max_files;   /* symbols: ELF files kept loaded (0 = default) */
	/* samples may come in file order rather than time order (faster): for callers that
	 * only aggregate (report, c2c). Each sample still sees the symbol tables (COMM, MMAP,
	 * FORK) as they were at its time; those near such a record in time come in time order
	 * with it. Ignored for pipes, files with AUX data and files with records without a
	 * time (all in time order). */
	bool unordered;
	/* perf's build-id cache, for kallsyms copies; NULL: ~/.debug of the user's home (a
	 * program honouring $PERF_BUILDID_DIR, as perf does, passes it); "": none */
	const char *buildid_dir;
	/* read the next windows of a file in a second thread while the current one is
	 * processed (not for pipes; a gain only where the two threads share a cache) */
	bool read_ahead;
	/* call chains: frames kept per sample (perf script's --max-stack; markers not counted);
	 * deeper chains are cut with HWS_CC_TRUNCATED. 0: 127, perf's default. --call-graph
	 * dwarf: as many again for the unwound user frames (perf limits the two apart) */
	uint32_t max_stack;
	bool no_demangle;  /* symbols: C++ / Rust names as in the file (perf --no-demangle) */
	bool exec_history; /* symbols: keep maps across exec() for lookups after the run
			    * (struct hws_symbols_opts.exec_history) */
	/* with unordered: the caller looks names up only after the run (c2c, report's plain
	 * tables), so samples need not see the symbol tables as at their time: no look-ahead,
	 * every sample at once (sideband still applied in time order, round by round) */
	bool lookup_after_run;
};

/* Counters of one (event, CPU) pair. Sums over CPUs/events via HWS_DECODE_ALL. */
struct hws_decode_counts {
	uint64_t samples;	 /* struct hws_sample delivered */
	uint64_t period;	 /* sum of their periods (1 each when the event has none) */
	uint64_t skipped;	 /* backend said HWS_DECODE_SKIP (valid record, no sample) */
	uint64_t errors;	 /* malformed SAMPLE records or backend decode errors */
	uint64_t lost;		 /* PERF_RECORD_LOST: records the kernel dropped */
	uint64_t lost_records;	 /* number of PERF_RECORD_LOST records */
	uint64_t lost_samples;	 /* PERF_RECORD_LOST_SAMPLES: samples the PMU dropped */
	uint64_t throttle;	 /* PERF_RECORD_THROTTLE */
	uint64_t unthrottle;	 /* PERF_RECORD_UNTHROTTLE */
	uint64_t aux_records;	 /* PERF_RECORD_AUX */
	uint64_t aux_bytes;	 /* sum of their aux_size */
	uint64_t aux_truncated;	 /* PERF_AUX_FLAG_TRUNCATED */
	uint64_t aux_partial;	 /* PERF_AUX_FLAG_PARTIAL */
	uint64_t aux_collision;	 /* PERF_AUX_FLAG_COLLISION */
	uint64_t aux_overwrite;	 /* PERF_AUX_FLAG_OVERWRITE */
	uint64_t aux_gaps;	 /* AUX chunks decoded with gap=1 */
	uint64_t auxtrace_bytes; /* AUX bytes carried by PERF_RECORD_AUXTRACE */
	/* call chains with an unknown PERF_CONTEXT_* marker: the sample is delivered without
	 * one (a chain whose nr overruns its record makes the record malformed: errors) */
	uint64_t callchain_errors;
};

/* Event or CPU index meaning "sum over all" in hws_decoder__counts(). */
#define HWS_DECODE_ALL (-2)
/* Event or CPU index of records whose event or CPU is not known. */
#define HWS_DECODE_UNKNOWN (-1)

/**
 * hws_decoder__new() - decoder over an open reader and a backend registry.
 * @r: the reader; stays owned by the caller and must outlive the decoder.
 * @reg: backends; may be NULL or empty (samples then carry generic fields only).
 * @opts: may be NULL.
 * Return: the decoder, or NULL with errno set. Free with hws_decoder__delete().
 */
HWS_API struct hws_decoder *hws_decoder__new(struct hws_perf_reader *r, struct hws_registry *reg,
					     const struct hws_decoder_opts *opts);
HWS_API void hws_decoder__delete(struct hws_decoder *d); /* NULL-safe */

/**
 * hws_decoder__run() - decode every record, calling @fn for each sample.
 * The sample (and its raw pointer) is valid only during the call.
 * Return: 0 at the end of the data, the non-zero value @fn returned (the run stops there
 * and may be resumed by calling __run again), or a negative error (reader error: see
 * hws_decoder__errmsg(); the run cannot go on).
 */
HWS_API int hws_decoder__run(struct hws_decoder *d, hws_sample_fn fn, void *ctx);

/* Text of the last error ("offset 0x1234: record SAMPLE (type 9) ..."), "" if none. */
HWS_API const char *hws_decoder__errmsg(const struct hws_decoder *d);

/* Events seen so far (the reader's attrs; grows in pipe mode). */
HWS_API int hws_decoder__nr_events(const struct hws_decoder *d);
/* Event name (owned by the reader), "unknown" for HWS_DECODE_UNKNOWN, NULL if out of range. */
HWS_API const char *hws_decoder__event_name(const struct hws_decoder *d, int ev);
/* Backend decoding event @ev, NULL if none. */
HWS_API const struct hws_backend *hws_decoder__event_backend(const struct hws_decoder *d, int ev);
/* One more than the highest CPU that has counts (0 if none). */
HWS_API int hws_decoder__nr_cpus(const struct hws_decoder *d);

/**
 * hws_decoder__counts() - counters of event @ev on CPU @cpu.
 * @ev: event index, HWS_DECODE_UNKNOWN or HWS_DECODE_ALL.
 * @cpu: CPU, HWS_DECODE_UNKNOWN (records without a CPU) or HWS_DECODE_ALL.
 * Return: 0 with *out filled (zeros if nothing was counted), -EINVAL if @ev is out of range.
 */
HWS_API int hws_decoder__counts(const struct hws_decoder *d, int ev, int cpu,
				struct hws_decode_counts *out);

/* How many records of @type (kernel 1..63 or user 64..95) were read; others under 0. */
HWS_API uint64_t hws_decoder__nr_records(const struct hws_decoder *d, uint32_t type);

/* Process table and symbols built from the side-band records (owned by the decoder). */
HWS_API struct hws_symbols *hws_decoder__symbols(struct hws_decoder *d);

/* The reader's file info (for backends' raw_json). */
HWS_API const struct hws_file_info *hws_decoder__file_info(struct hws_decoder *d);

/**
 * hws_decoder__raw_json() - append the vendor fields of @s (delivered by this decoder) as
 * one JSON object through its backend's ops->raw_json.
 * Return: 0 if appended, -ENOENT if the backend has no raw_json (nothing appended), or
 * another negative error.
 */
HWS_API int hws_decoder__raw_json(struct hws_decoder *d, const struct hws_sample *s,
				  struct hws_strbuf *sb);

#ifdef __cplusplus
}
#endif
#endif
