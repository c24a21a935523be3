/* SPDX-License-Identifier: MIT */
/*
 * `hwsample report`: aggregation of decoded samples and its terminal rendering.
 *
 * struct hws_report takes samples one by one (hws_report__add(), usable directly as the
 * decoder's hws_sample_fn through hws_report__sample_fn()) and keeps:
 *  - per (pid, ip) and per (pid, data address) tallies (samples, period, latency sum), in
 *    hash tables bounded by opts.max_keys (what does not fit is counted as "other");
 *  - the data-source matrix (mem_level x snoop), TLB and op counts;
 *  - log2 histograms of lat_total, lat_issue, lat_xlat, lat_miss, lat_ins.
 * Per-event/CPU sample and loss counters come from the decoder (hws_report__add_counts()).
 * hws_report__render() writes every section into a struct hws_strbuf, with bar charts in
 * Unicode blocks or ASCII; symbols are looked up at render time, so adding samples stays
 * cheap. Not thread-safe.
 */
#ifndef HWSAMPLE_REPORT_H
#define HWSAMPLE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>
#include <hwsample/decode.h>
#include <hwsample/filter.h>
#include <hwsample/objects.h>
#include <hwsample/sample.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_report;

enum hws_report_sort {
	HWS_REPORT_SORT_SAMPLES = 0, /* default */
	HWS_REPORT_SORT_PERIOD,
	HWS_REPORT_SORT_LATENCY, /* sum of lat_total */
};

/* Sections, for hws_report_opts::sections (0 = all). */
enum hws_report_section {
	HWS_REPORT_COUNTS = 1U << 0,   /* samples and loss per event and CPU */
	HWS_REPORT_TOP_CODE = 1U << 1, /* top functions and code addresses */
	HWS_REPORT_TOP_DATA = 1U << 2, /* top data objects and data addresses */
	HWS_REPORT_DATA_SRC = 1U << 3, /* mem_level x snoop, TLB, op */
	HWS_REPORT_LATENCY = 1U << 4,  /* latency histograms */
};

struct hws_report_opts {
	size_t sz;	   /* sizeof(struct hws_report_opts) */
	uint32_t top;	   /* rows of the top tables; 0 = 20 */
	int sort;	   /* enum hws_report_sort */
	bool ascii;	   /* ASCII bars ('#') instead of Unicode blocks */
	uint32_t width;	   /* bar width in characters; 0 = 30 */
	uint32_t sections; /* HWS_REPORT_* mask; 0 = all */
	size_t max_keys;   /* distinct (pid, address) keys kept per table; 0 = 4M */
	/*
	 * perf report's view instead of the tables above: samples grouped by these perf sort
	 * keys ("comm,dso,sym"; perf's names, prefixes accepted: pid (tid:comm as perf),
	 * comm, dso, symbol, cpu, srcline, local_weight, weight, local_ins_lat,
	 * symbol_daddr, dso_daddr, locked, tlb, mem, snoop, dcacheline, blocked; and tid,
	 * symoff, event, op, data_page, sample, avg_weight, object, offset; type and typeoff, perf
	 * 6.8's data types: include/hwsample/datatype.h), one section per event,
	 * rows "PCT%  KEY  KEY ..." by period as `perf report --stdio --no-children`. Symbols are
	 * taken at each sample's time: set @syms and feed samples in time order.
	 */
	const char *sort_keys;
	bool mem; /* perf mem report's view (weights; default keys when no sort_keys) */
	struct hws_symbols *syms;	 /* symbols for sort_keys and filter (the decoder's) */
	const struct hws_filter *filter; /* only samples passing it (include/hwsample/filter.h) */
	/* perf report --hierarchy: the sort_keys view (perf's default keys when none) as a
	 * tree, one level per key, each level's groups by overhead; keys only (no sample,
	 * weight, avg_weight columns: hws_report__new() fails with EINVAL) */
	bool hierarchy;
	/*
	 * Call graphs, in perf report's view (implied by either): @callgraph is perf's -g /
	 * --call-graph argument (graph|fractal|flat|folded|none, threshold, caller|callee;
	 * checked by hws_report__parse_callgraph()); NULL is perf's default "graph,0.5" with
	 * caller order under --children, callee under --no-children, shown when the samples
	 * have call chains. @children: 1 --children, -1 --no-children, 0 perf's default
	 * (--children when the samples have call chains).
	 */
	const char *callgraph;
	int children;
	/*
	 * Folded stacks instead of any report (enum hws_report_folded, 0 = off): one line
	 * "comm;outermost;...;innermost VALUE" per distinct stack, sorted, as
	 * `perf script | stackcollapse-perf.pl` gives (flamegraph.pl, inferno, speedscope read
	 * it); a sample without a call chain is the frame of its ip.
	 */
	int folded;
	/* perf report's --max-stack: frames of a chain used, the outermost ones in caller
	 * order, the innermost in callee order (as perf); 0 = all. Inlined functions shown at
	 * a frame do not count; a --call-graph dwarf chain's unwound user frames are limited
	 * apart, the innermost ones in either order (as perf 6.1). With folded: the frames
	 * perf script --max-stack prints */
	uint32_t max_stack;
	/* also keep what hws_report__render_html() draws: lat_total per memory level and the
	 * data-address x time heat map (fixed 256 KiB); ignored with sort_keys / mem */
	bool html;
	/* allocation records for the sort keys object and offset (include/hwsample/objects.h;
	 * NULL: static variables, stacks and mappings from @syms only) */
	const struct hws_objects *objects;
	/* call-graph frames that show the functions inlined at them (enum hws_inline_mode of
	 * include/hwsample/symbols.h; perf report's --inline / --no-inline): as perf, each
	 * one "NAME (inlined)" in the graphs, the folded stacks and the --children rows */
	int inline_mode;
	/* the srcline key shows each source file's whole path, not its last component (perf
	 * report's --full-source-path) */
	bool full_source_path;
	/*
	 * perf's --itrace for the records of AUX-trace events (Arm SPE) in perf report's view:
	 * each record counts as a sample of every event perf synthesizes of it (struct
	 * hws_sample::synth), one section per event after the file's own, as perf: l1d-miss,
	 * l1d-access (letter f), llc-miss, llc-access (m), tlb-miss, tlb-access (t),
	 * branch-miss (b: addr the branch target, data source 0), remote-access
	 * (a), memory (M: loads and stores); period 1, weight the total latency. NULL or "":
	 * perf's default, all of them; else only those of its letters (checked by
	 * hws_report__parse_itrace()). Other views count the records as they are.
	 */
	const char *itrace;
};

enum hws_report_folded {
	HWS_REPORT_FOLDED_OFF = 0,
	HWS_REPORT_FOLDED_SAMPLES, /* VALUE: number of samples */
	HWS_REPORT_FOLDED_PERIOD,  /* sum of periods */
	HWS_REPORT_FOLDED_LATENCY, /* sum of lat_total (samples without one add 0) */
};

/**
 * hws_report__parse_callgraph() - check a perf -g argument for hws_report_opts::callgraph.
 * Return: 0, or -EINVAL with the first bad token copied to @bad (@len bytes).
 */
HWS_API int hws_report__parse_callgraph(const char *arg, char *bad, size_t len);

/* Did any sample have a call chain (PERF_SAMPLE_CALLCHAIN)? (perf report's view, folded) */
HWS_API bool hws_report__has_callchains(const struct hws_report *rep);

/**
 * hws_report__parse_sort() - check a perf --sort list for hws_report_opts::sort_keys.
 * Return: 0, or -EINVAL with the first unknown key copied to @bad (@len bytes).
 */
HWS_API int hws_report__parse_sort(const char *keys, char *bad, size_t len);

/**
 * hws_report__parse_itrace() - check a perf --itrace argument for hws_report_opts::itrace
 * and say which synthesized events it picks (enum hws_synth bits, to @mask when not NULL).
 * perf's letters and their periods and flags are accepted; those of other tracers (Intel PT's
 * instructions, calls, ...) pick nothing.
 * Return: 0; -EINVAL for a letter perf does not know, -ENOTSUP for 'i' (instruction samples
 * with a period: not made here), the offending text copied to @bad (@len bytes).
 */
HWS_API int hws_report__parse_itrace(const char *opts, uint32_t *mask, char *bad, size_t len);

/* Number of log2 latency buckets: bucket 0 holds 0, bucket k holds [2^(k-1), 2^k). */
#define HWS_REPORT_LAT_BUCKETS 33

struct hws_perf_group;
/**
 * hws_report__set_groups() - the file's event groups (hws_perf_reader__groups()) for perf
 * report's view: with @side_by_side (perf's default for such a file; its --no-group: false) a
 * group's events are one section, "# Samples: N  of events 'anon group { a, b }'", with an
 * overhead column per event (its share of that event's total) on the rows of any of them;
 * else each event its own section, a leader's header saying "events" as perf's. @names: the
 * file's event names by attr index (@nnames of them). Side by side in the flat view only
 * (--hierarchy, --children, call graphs and --mem keep a section per event). Copied; call
 * before rendering. Return: 0, -ENOMEM, -EINVAL without a perf report view.
 */
HWS_API int hws_report__set_groups(struct hws_report *rep, const struct hws_perf_group *groups,
				   size_t n, const char *const *names, size_t nnames,
				   bool side_by_side);

HWS_API struct hws_report *hws_report__new(const struct hws_report_opts *opts);
HWS_API void hws_report__delete(struct hws_report *rep); /* NULL-safe */

/* Account one sample. Return 0 or -ENOMEM. */
HWS_API int hws_report__add(struct hws_report *rep, const struct hws_sample *s);
/* hws_sample_fn adapter: @ctx is the struct hws_report. Stops the run on -ENOMEM. */
HWS_API int hws_report__sample_fn(void *ctx, const struct hws_sample *s);

/**
 * hws_report__add_counts() - one row of the samples/loss table.
 * @cpu: CPU number, or HWS_DECODE_UNKNOWN. Strings are copied.
 */
HWS_API int hws_report__add_counts(struct hws_report *rep, const char *event, const char *backend,
				   int cpu, const struct hws_decode_counts *c);
/* Every (event, CPU) row of a finished decoder, unknown event/CPU included when non-zero. */
HWS_API int hws_report__add_decoder_counts(struct hws_report *rep, const struct hws_decoder *d);

/* Aggregates, for tests and other front ends (c2c). */
HWS_API uint64_t hws_report__nr_samples(const struct hws_report *rep);
/* Samples with HWS_SF_DATA_SRC at this level and snoop result. */
HWS_API uint64_t hws_report__data_src(const struct hws_report *rep, unsigned int level,
				      unsigned int snoop);
/* Latency histogram bucket of @field (HWS_SF_LAT_TOTAL ... HWS_SF_LAT_INS). */
HWS_API uint64_t hws_report__lat_bucket(const struct hws_report *rep, uint64_t field,
					unsigned int bucket);
/* Samples counted for (pid, ip) / (pid, addr); kernel addresses ignore pid. */
HWS_API uint64_t hws_report__ip_samples(const struct hws_report *rep, uint32_t pid, uint64_t ip);
HWS_API uint64_t hws_report__addr_samples(const struct hws_report *rep, uint32_t pid,
					  uint64_t addr);

/**
 * hws_report__render() - write the report.
 * @syms: symbol tables (usually hws_decoder__symbols()); NULL prints addresses only.
 * Return: 0, or a negative error (-ENOMEM, HWS_E_TOO_BIG) with @sb holding what fitted.
 */
HWS_API int hws_report__render(struct hws_report *rep, struct hws_symbols *syms,
			       struct hws_strbuf *sb);

struct hws_report_html_opts {
	size_t sz;	      /* sizeof(struct hws_report_html_opts) */
	const char *title;    /* shown in the page (e.g. the input's path); NULL = "report" */
	const char *c2c_href; /* link to the c2c page of the same file (hws_c2c__render_html()) */
	uint32_t c2c_lines;   /* its contended lines, shown with the link */
};

/**
 * hws_report__render_html() - one self-contained HTML page (no script, no external
 * resource; plots as inline SVG, every number also as text): samples and loss per CPU,
 * top functions, code addresses, data objects and data addresses, data sources, latency
 * histograms and lat_total per memory level (log2 buckets), the data-address x time heat
 * map (with hws_report_opts::html), and the c2c link. Names from the file are escaped.
 * The page is bounded: about 40 KiB + 1 KiB per top row and per counts row + the heat map
 * (at most 64 x 48 cells, ~200 KiB), whatever the number of samples.
 * @syms: as hws_report__render(). Not for sort_keys / mem reports (-EINVAL).
 * Return: 0, or a negative error (-ENOMEM, HWS_E_TOO_BIG).
 */
HWS_API int hws_report__render_html(struct hws_report *rep, struct hws_symbols *syms,
				    const struct hws_report_html_opts *opts, struct hws_strbuf *sb);

/**
 * hws_report__bar() - append a bar of @value / @max scaled to @width characters
 * (Unicode eighth blocks, or '#' when @ascii), padded with spaces to @width.
 */
HWS_API int hws_report__bar(struct hws_strbuf *sb, uint64_t value, uint64_t max, unsigned int width,
			    bool ascii);

#ifdef __cplusplus
}
#endif
#endif
