/* SPDX-License-Identifier: MIT */
/*
 * Converting decoded samples into other tools' formats (perf's `perf data convert` spirit).
 *
 * pprof: struct hws_pprof takes samples one by one (hws_pprof__add(), usable as the
 * decoder's hws_sample_fn through hws_pprof__sample_fn()) and writes them as Google's pprof
 * profile (profile.proto, gzip-compressed) with hws_pprof__write(), which `go tool pprof`,
 * pprof and the tools reading its format (Grafana Pyroscope, Parca, speedscope...) read:
 *  - sample types: "samples"/"count" (one per sample), "event"/"count" (the sum of the
 *    periods, 1 for samples without one: what perf report weighs by) and, when any sample
 *    carries a latency, "latency"/"cycles" (the sum of lat_total, what perf shows as
 *    weight / local_weight);
 *  - stacks: the sample's call chain (HWS_SF_CALLCHAIN, leaf first), else its ip alone;
 *    with opts.data_frames the data address (HWS_SF_ADDR) is added as the leaf, as the data
 *    frames of Google's perf_data_converter, named "[data] SYMBOL" (or "[data] [DSO]" /
 *    "[data] [unknown]" where no variable covers it);
 *  - locations with their mapping (the file, "[kernel.kallsyms]" ...), function and, with
 *    srcline in the symbols' options, source file and line; one location per distinct
 *    (process, address), kernel addresses shared by all processes; addresses no symbol
 *    covers have no function (pprof shows the address);
 *  - labels: pid, tid and cpu (numbers), comm, event, and with a data source op, mem_level,
 *    snoop and tlb (the names of every hwsample output: hws_op__name()...), each only
 *    where the sample has the field; with opts.object_labels, object (the data address's
 *    object, include/hwsample/objects.h); with opts.types, type and typeoff (the data
 *    type of the access, include/hwsample/datatype.h).
 * Samples with the same stack and labels are summed into one pprof sample.
 * Symbols are looked up at hws_pprof__write() time (as hws_report__render() does), once per
 * location, in opts.syms, which must live until then.
 * Not thread-safe.
 */
#ifndef HWSAMPLE_CONVERT_H
#define HWSAMPLE_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>
#include <hwsample/filter.h>
#include <hwsample/sample.h>
#include <hwsample/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_pprof;
struct hws_objects;
struct hws_datatypes;

struct hws_pprof_opts {
	size_t sz;			 /* sizeof(struct hws_pprof_opts) */
	struct hws_symbols *syms;	 /* names, comms, filter lists (the decoder's); NULL:
					  * addresses only, no comm label */
	const struct hws_filter *filter; /* only samples passing it (include/hwsample/filter.h) */
	bool data_frames;		 /* the data address as the leaf frame */
	const char *comment;		 /* a comment stored in the profile (NULL: none) */
	/* allocation records (include/hwsample/objects.h): an "object" label on samples with a
	 * data address, "[kind] site" or "[kind] name" (heap, static, stack, mmap, anon), as
	 * report --sort object names it without the size; NULL: static variables and mappings
	 * from @syms only (still labelled). Must outlive the profile. */
	const struct hws_objects *objects;
	bool object_labels; /* add the "object" label (with or without @objects) */
	/* call-chain frames that show the functions inlined at them (enum hws_inline_mode of
	 * include/hwsample/symbols.h): their location gets one Line per function of its inline
	 * stack, innermost first (pprof's representation of inlining) */
	int inline_mode;
	/* data types (include/hwsample/datatype.h, needs @syms): samples with a data address
	 * whose access it finds get the labels "type" ("struct pair") and "typeoff" ("struct
	 * pair +8 (second)"), as perf report --sort type,typeoff names them; NULL: none. Used
	 * by hws_pprof__add() (not thread-safe), must outlive it. */
	struct hws_datatypes *types;
};

/**
 * hws_pprof__new() - an empty profile.
 * @opts: may be NULL (defaults).
 * Return: the object, or NULL with errno set. Free with hws_pprof__delete().
 */
HWS_API struct hws_pprof *hws_pprof__new(const struct hws_pprof_opts *opts);
HWS_API void hws_pprof__delete(struct hws_pprof *p); /* NULL-safe */

/* Account one sample (dropped when opts.filter refuses it). Return 0 or -ENOMEM. */
HWS_API int hws_pprof__add(struct hws_pprof *p, const struct hws_sample *s);
/* hws_sample_fn adapter: @ctx is the struct hws_pprof. Stops the run on -ENOMEM. */
HWS_API int hws_pprof__sample_fn(void *ctx, const struct hws_sample *s);

/**
 * hws_pprof__write() - write the profile, gzip-compressed, to @fd (from its current
 * position; @fd stays open). May be called more than once.
 * Return: 0, or a negative errno (-EINVAL for a NULL @p or a negative @fd, -ENOMEM, the
 * write's error, -EIO when zlib fails). On error part of the stream may have been written.
 */
HWS_API int hws_pprof__write(struct hws_pprof *p, int fd);

/* What a profile holds, for tests and -v; functions and mappings are known after
 * hws_pprof__write(). */
struct hws_pprof_stats {
	uint64_t samples;	/* samples added (passing the filter) */
	uint64_t filtered;	/* samples the filter dropped */
	uint64_t pprof_samples; /* distinct (stack, labels): pprof samples written */
	uint64_t locations, functions, mappings, strings;
};
HWS_API void hws_pprof__stats(const struct hws_pprof *p, struct hws_pprof_stats *st);

#ifdef __cplusplus
}
#endif
#endif
