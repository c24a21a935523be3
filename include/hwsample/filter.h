/* SPDX-License-Identifier: MIT */
/*
 * Sample filters with perf's options and semantics: --pid, --tid, --comms, --dsos, --symbols,
 * -C/--cpu, --time and the event name, shared by dump, report and c2c (through their options
 * structs) and usable by any program linking libhwsample.
 *
 * A struct hws_filter is made once from strings as perf takes them (comma-separated lists,
 * CPU lists with ranges "0-3,7", perf's --time syntax) and then asked about each sample.
 * Lists match exactly: a pid or tid in the list; the comm of the sample's process; the DSO
 * of the sample's ip as perf shows it (base name, "[kernel.kallsyms]") or its full path; the
 * name of the function at the ip. Every list given must match (AND), as in perf.
 *
 * --time takes perf's forms: "START,STOP" in seconds with up to nine decimals (either side
 * may be empty: open), several such ranges separated by spaces; percentages of the recording
 * ("10%/2": the second tenth, "0%-10%", several separated by commas). Percentages need the
 * times of the first and last sample (perf's HEADER_SAMPLE_TIME), in the options.
 * A time is inside a range when START <= time <= STOP (perf's rule).
 */
#ifndef HWSAMPLE_FILTER_H
#define HWSAMPLE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>
#include <hwsample/sample.h>
#include <hwsample/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_filter;

struct hws_filter_opts {
	size_t sz;	     /* sizeof(struct hws_filter_opts) */
	const char *pid;     /* perf --pid: "1,2" */
	const char *tid;     /* perf --tid */
	const char *comm;    /* perf --comms */
	const char *dso;     /* perf --dsos */
	const char *sym;     /* perf --symbols */
	const char *cpu;     /* perf -C/--cpu: "0-3,7" */
	const char *time;    /* perf --time */
	const char *event;   /* event name, as perf evlist prints it; comma list */
	uint64_t first_time; /* first and last sample time (ns) for --time percentages */
	uint64_t last_time;
};

/* One --time range, inclusive; 0 means open at that side. */
struct hws_time_range {
	uint64_t start, end;
};

/**
 * hws_time__parse() - parse perf's --time syntax.
 * @first, @last: times of the first and last sample (only for percentages).
 * @out: up to @max ranges.
 * Return: number of ranges (>= 1), -EINVAL for a string perf would refuse (also percentages
 * without @first/@last), -E2BIG for more than @max ranges.
 */
HWS_API int hws_time__parse(const char *str, uint64_t first, uint64_t last,
			    struct hws_time_range *out, size_t max);

/**
 * hws_filter__new() - a filter from @opts (NULL or all members NULL: passes everything).
 * Return: 0 with *@out set, or -EINVAL naming nothing (the caller knows which option it
 * passed: hws_filter__check() tells which one is wrong), -ENOMEM.
 */
HWS_API int hws_filter__new(const struct hws_filter_opts *opts, struct hws_filter **out);
HWS_API void hws_filter__delete(struct hws_filter *f); /* NULL-safe */

/**
 * hws_filter__check() - the name of the first option of @opts that does not parse ("pid",
 * "tid", "cpu", "time"), or NULL when all do.
 */
HWS_API const char *hws_filter__check(const struct hws_filter_opts *opts);

/* True when the filter has a list that needs symbols (comm, dso, sym). */
HWS_API bool hws_filter__needs_symbols(const struct hws_filter *f);
/* True when the filter drops samples by time or CPU only (what perf report does not count). */
HWS_API bool hws_filter__has_time_or_cpu(const struct hws_filter *f);

/**
 * hws_filter__match() - does @s pass every list of @f?
 * @syms: the symbols of the recording at the time of @s (the decoder's, during its run);
 * NULL fails the comm/dso/sym lists. A NULL @f passes everything.
 */
HWS_API bool hws_filter__match(const struct hws_filter *f, struct hws_symbols *syms,
			       const struct hws_sample *s);
/* Only the --cpu and --time parts of hws_filter__match(). */
HWS_API bool hws_filter__match_time_cpu(const struct hws_filter *f, const struct hws_sample *s);
/* Only the pid, tid, comm, dso, sym and event parts of hws_filter__match(). */
HWS_API bool hws_filter__match_entry(const struct hws_filter *f, struct hws_symbols *syms,
				     const struct hws_sample *s);

/* Entries of the list @what ("pid", "tid", "comm", "dso", "sym", "event") of @f; 0 if none.
 * perf hides a sort column whose filter list has exactly one entry. */
HWS_API size_t hws_filter__list_len(const struct hws_filter *f, const char *what);
/* The --time string of @f as given, or NULL. */
HWS_API const char *hws_filter__time_str(const struct hws_filter *f);

/* perf's short name of a DSO path: "[kernel]" -> "[kernel.kallsyms]", a JIT's perf map
 * "/tmp/perf-PID.map" -> "[JIT] tid PID", else the base name. */
HWS_API const char *hws_dso__short_name(const char *path);

#ifdef __cplusplus
}
#endif
#endif
