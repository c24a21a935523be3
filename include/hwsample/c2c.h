/* SPDX-License-Identifier: MIT */
/*
 * c2c: contended cache lines and false/true sharing from memory samples of any vendor.
 *
 * struct hws_c2c takes struct hws_sample only (Intel PEBS, AMD IBS, Arm SPE, or perf's own
 * data_src from perf mem / perf c2c files), never vendor bits. Each sample with a data
 * address is classified as perf c2c does (c2c_decode_stats: HITM local/remote, peer snoop,
 * remote cache hit, L1/L2/LLC/DRAM hits, store L1 hit/miss) from its perf_mem_data_src,
 * completed by the normalized mem_level/snoop where data_src lacks them, and counted per
 * cache line (key: the line's virtual address, as perf c2c; the line size is a parameter) and per
 * (offset, pid, tid, code address) inside the line.
 *
 * hws_c2c__finish() classifies every line (with no store sampled on the line, e.g. perf mem
 * record -t load, from the offsets of the coherence misses alone: "inferred", lower
 * confidence):
 *  - false sharing: a thread writes the line (store, or locked/atomic read-modify-write)
 *    and another thread accesses bytes that do not overlap the written ones (different
 *    offsets; access widths are used where known);
 *  - true sharing: another thread accesses the very bytes written;
 *  - mixed: both; private: one thread only; read-shared: several threads, no writer and no
 *    coherence event; unresolved: coherence events (HITM/peer) but the writer not sampled.
 * The evidence is named (HITM, peer snoop, remote cache, address overlap alone) with its
 * source as the samples' backends name it (opts.backends; sources in name order), and a
 * confidence in [0,1] from the coherence evidence and how many samples support the
 * writer/other-thread pairs.
 *
 * Not thread-safe. Memory: one hash entry per line and per (line, offset, pid, tid, ip),
 * plus a latency histogram per line: exact while the line has at most 4096 distinct
 * latencies (4 KiB of direct counters for values below 1024 once it has 256 loads, a table
 * for the rest), log-linear past that (exact below 2048 cycles, within 0.1% above), so at
 * most ~100 KiB per line whatever the number of samples. Percentiles are nearest-rank.
 */
#ifndef HWSAMPLE_C2C_H
#define HWSAMPLE_C2C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>
#include <hwsample/filter.h>
#include <hwsample/sample.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_c2c;
struct hws_registry;
struct hws_objects;

struct hws_c2c_opts {
	size_t sz;	    /* sizeof(struct hws_c2c_opts) */
	uint32_t line_size; /* power of two, 16..4096; 0 = 64 */
	bool show_all;	    /* report every line, not only the contended ones */
	uint32_t top;	    /* lines with an offset table / heat map; 0 = 10 */
	/* NUMA node of a CPU (e.g. hws_perf_reader__cpu_node), -1 if unknown; may be NULL */
	int (*cpu_node)(void *ctx, int cpu);
	void *cpu_node_ctx;
	const char *line_size_source; /* shown in reports ("file host", "--line-size"...) */
	/* the backends the samples were decoded with (e.g. the decoder's): the coherence
	 * evidence of a sample is named by its backend's ops->coherence_source; NULL, or a
	 * backend without one: "perf data_src". Must outlive the c2c object. */
	const struct hws_registry *backends;
	/* keep the call chains of the samples that have one (HWS_SF_CALLCHAIN), per row and
	 * per line: hws_c2c__chain(); samples without one cost nothing more */
	bool callchain;
	/* only samples passing this filter are counted (as if the others were not in the
	 * file), perf's --pid, --tid, --comms, --dsos, --symbols, -C, --time
	 * (include/hwsample/filter.h); NULL: all. Its comm, dso and sym lists look names up in
	 * @syms at each sample's time (the decoder's symbols, samples in time order). Both
	 * must outlive the c2c object. */
	const struct hws_filter *filter;
	struct hws_symbols *syms;
	/* name the data of the reported, symbolized lines in __finish() (with its @syms): each
	 * row's object (include/hwsample/objects.h: a heap block with its allocation site from
	 * @objects, a static or thread-local variable from the symbols) and the data type and
	 * field it accesses (include/hwsample/datatype.h: from the instruction at its IP, the
	 * global at its address, or its heap block's allocation site); each line's fields with
	 * their writers and readers (hws_c2c__field) and a verdict by name (sharing_text) */
	bool names;
	const struct hws_objects *objects; /* may be NULL; must outlive the c2c object */
};

enum hws_c2c_class {
	HWS_C2C_PRIVATE = 0,
	HWS_C2C_READ_SHARED,
	HWS_C2C_FALSE_SHARING,
	HWS_C2C_TRUE_SHARING,
	HWS_C2C_MIXED,	    /* both false and true sharing on the same line */
	HWS_C2C_UNRESOLVED, /* coherence events, but no writer / other thread sampled */
	HWS_C2C__CLASS_MAX,
};

/* struct hws_c2c_line_info::evidence */
enum hws_c2c_evidence {
	HWS_C2C_EV_HITM = 1U << 0,	/* load hit a modified line in another core's cache */
	HWS_C2C_EV_PEER = 1U << 1,	/* load served by a peer core/cluster cache */
	HWS_C2C_EV_RMT_CACHE = 1U << 2, /* load served by a cache on another node */
	HWS_C2C_EV_ADDR = 1U << 3,	/* writer and other threads sampled on the line */
};

/* Per-sample counters, as perf c2c (c2c_decode_stats) names them. */
struct hws_c2c_stats {
	uint64_t records, loads, stores, locks, noaddr;
	uint64_t lcl_hitm, rmt_hitm, lcl_peer, rmt_peer, rmt_hit;
	uint64_t ld_fbhit, ld_l1hit, ld_l2hit, ld_llchit, ld_uncache, ld_io;
	uint64_t lcl_dram, rmt_dram;
	uint64_t st_l1hit, st_l1miss, st_na;
	uint64_t lat_sum, lat_n;	     /* all loads with a latency */
	uint64_t lcl_hitm_lat, rmt_hitm_lat; /* sums, for mean cycles per HITM kind */
	uint64_t peer_lat;
	uint64_t rmw; /* locked / atomic loads (read-modify-write): writers too */
};

/* One line of the report (after __finish), in report order. */
struct hws_c2c_line_info {
	uint32_t sz;
	uint32_t index;
	uint64_t addr; /* line address (virtual) */
	uint32_t pid;
	uint32_t cls;	   /* enum hws_c2c_class */
	uint32_t evidence; /* HWS_C2C_EV_* */
	float confidence;  /* 0..1 */
	struct hws_c2c_stats st;
	uint32_t lat_p50, lat_p90, lat_p99;
	uint32_t nr_threads, nr_cpus, nr_nodes;
	uint64_t nodes; /* bit per node < 64 */
	uint32_t nr_offsets;
	uint64_t false_offsets; /* bit per 8-byte chunk of the line involved in false sharing
				 * (line <= 512 B), see the JSON for exact offsets */
	uint64_t true_offsets;
	const char *evidence_text; /* "HITM (Intel PEBS data_src)", owned by the c2c */
	const char *data_symbol;   /* variable at the line start, NULL if unknown */
	/* opts.names: the verdict by name, "false sharing: struct counters.a (+0, written by
	 * tids 101, 102) and .b (+8, written by tid 103)"; NULL for uncontended lines, without
	 * names, or past the first 1000 lines */
	const char *sharing_text;
	uint32_t nr_fields; /* hws_c2c__field() */
};

/**
 * hws_c2c__new() - empty analysis. @opts may be NULL.
 * Return: the object, or NULL with errno (EINVAL: bad line size). Free with __delete().
 */
HWS_API struct hws_c2c *hws_c2c__new(const struct hws_c2c_opts *opts);
HWS_API void hws_c2c__delete(struct hws_c2c *c); /* NULL-safe */

/* Count one sample. 0 or -ENOMEM. Samples after __finish() are refused (-EBUSY). */
HWS_API int hws_c2c__add(struct hws_c2c *c, const struct hws_sample *s);
/* hws_sample_fn adapter for hws_decoder__run(): returns 0, or 1 when out of memory. */
HWS_API int hws_c2c__sample_fn(void *ctx, const struct hws_sample *s);

/**
 * hws_c2c__finish() - classify lines, sort them (HITM, then peer, then contention), and
 * symbolize code and data addresses of the reported lines through @syms (may be NULL).
 * Return: 0 or -ENOMEM.
 */
HWS_API int hws_c2c__finish(struct hws_c2c *c, struct hws_symbols *syms);

/* Reported lines after __finish (contended ones, or all with show_all). */
HWS_API uint32_t hws_c2c__nr_lines(const struct hws_c2c *c);
/* Fill @out for report line @i. 0, or -EINVAL if out of range. Strings owned by @c. */
HWS_API int hws_c2c__line(const struct hws_c2c *c, uint32_t i, struct hws_c2c_line_info *out);
/* One (offset, pid, tid, code address) row of a reported line, in offset order. */
struct hws_c2c_entry_info {
	uint32_t sz;
	uint32_t offset; /* byte offset in the line */
	uint32_t width;	 /* widest access seen (bytes), 0 if unknown */
	uint32_t pid, tid;
	uint64_t ip;
	struct hws_c2c_stats st;
	uint32_t nr_cpus;	 /* exact up to 64 CPUs (CPU numbers modulo 64 above) */
	bool in_false, in_true;	 /* part of a false / true sharing pair */
	const char *symbol;	 /* "func+0x12" or NULL; owned by the c2c */
	const char *dso;	 /* NULL if unknown */
	const char *srcline;	 /* "FILE:LINE" of the source or NULL */
	const char *data_symbol; /* "counters+0x8" or NULL */
	/* opts.names (NULL if unknown): the object, "[heap] make_counters+0x1f (16 bytes)" or
	 * "[static] counters", and the offset in it; the type accessed and its field */
	const char *object;
	uint64_t object_offset;
	const char *type;  /* "struct counters" */
	const char *field; /* "b"; NULL: none */
	int64_t type_offset;
};

/* Number of rows of report line @i (0 if out of range). */
HWS_API uint32_t hws_c2c__nr_entries(const struct hws_c2c *c, uint32_t i);
/* Row @j of report line @i. 0, or -EINVAL. Strings owned by @c. */
HWS_API int hws_c2c__entry(const struct hws_c2c *c, uint32_t i, uint32_t j,
			   struct hws_c2c_entry_info *out);
/*
 * A field of a reported line (opts.names): the rows that access one field of one instance of
 * a type (or one offset, when the type is unknown), in offset order, with the threads that
 * wrote and read it.
 */
struct hws_c2c_field_info {
	uint32_t sz;
	uint32_t offset;     /* its first byte accessed in the line */
	const char *label;   /* "struct counters.a", "long", the data symbol or "offset 0x20" */
	const char *type;    /* NULL if unknown */
	const char *field;   /* NULL: none */
	int64_t type_offset; /* of that first byte in the type */
	const char *object;  /* "[static] counters", NULL if unknown */
	bool in_false, in_true;
	uint32_t nr_writers, nr_readers;
	const uint32_t *writers, *readers; /* tids, sorted */
};
/* Field @k (< hws_c2c_line_info::nr_fields) of report line @i. 0, or -EINVAL. Owned by @c. */
HWS_API int hws_c2c__field(const struct hws_c2c *c, uint32_t i, uint32_t k,
			   struct hws_c2c_field_info *out);

/*
 * Call paths of a reported line (opts.callchain), as perf c2c report -g shows them under
 * each row of a cache line: frames named by function ("0x..." for an address without a
 * symbol), caller first, joined by ';' (perf's folded form), one path per distinct
 * sequence of names; in order of period, then samples (most first), then name.
 */
struct hws_c2c_chain_info {
	uint32_t sz;
	uint32_t nr_frames;
	uint64_t samples;     /* samples that took this path */
	uint64_t period;      /* sum of their periods (1 for a sample without a period) */
	uint64_t line_period; /* period of all the line's samples: the base of perf's percents */
	const char *path;     /* "main;worker;update", owned by the c2c */
};
#define HWS_C2C_LINE UINT32_MAX /* @j of hws_c2c__nr_chains / __chain: the whole line */
/* Call paths of row @j of report line @i (or of the line: HWS_C2C_LINE); 0 without
 * opts.callchain, out of range, or past the first 1000 lines (not symbolized). */
HWS_API uint32_t hws_c2c__nr_chains(const struct hws_c2c *c, uint32_t i, uint32_t j);
/* Path @k of row @j (or HWS_C2C_LINE) of report line @i. 0, or -EINVAL. */
HWS_API int hws_c2c__chain(const struct hws_c2c *c, uint32_t i, uint32_t j, uint32_t k,
			   struct hws_c2c_chain_info *out);
/* Lines that get an offset table / heat map (opts.top). */
HWS_API uint32_t hws_c2c__top(const struct hws_c2c *c);
/* Totals over all samples (filled by __finish; zeros before). Owned by @c. */
HWS_API const struct hws_c2c_stats *hws_c2c__totals(const struct hws_c2c *c);

/* Short names: "false-sharing", "true-sharing", ... Never NULL. */
HWS_API const char *hws_c2c_class__name(unsigned int cls);

/*
 * Reports (after __finish), appended to @sb. Return 0, -ENOMEM, or HWS_E_TOO_BIG when the
 * text would pass @sb's cap (hws_strbuf__init; 64 MiB by default) or the output function
 * failed. With an output function (hws_c2c__set_output) the text and JSON reports are handed
 * to it in pieces of about 1 MiB as they are made (what is left in @sb at the end too), so
 * their size has no bound; the HTML page is made whole in @sb.
 */
typedef int (*hws_c2c_out_fn)(void *ctx, const char *buf, size_t len); /* 0 or -errno */
HWS_API void hws_c2c__set_output(struct hws_c2c *c, hws_c2c_out_fn fn, void *ctx);
HWS_API int hws_c2c__render_stdio(const struct hws_c2c *c, struct hws_strbuf *sb);
HWS_API int hws_c2c__render_json(const struct hws_c2c *c, struct hws_strbuf *sb);
/* The same JSON with "offsets" and "entries" only for the first @detail lines (empty
 * arrays after), to keep pages of huge reports small. */
HWS_API int hws_c2c__render_json_top(const struct hws_c2c *c, struct hws_strbuf *sb,
				     uint32_t detail);
/* Self-contained HTML page (inline CSS/JS): sortable line table, offset x thread heat map
 * of the top lines, per-line offset tables. @title may be NULL. */
HWS_API int hws_c2c__render_html(const struct hws_c2c *c, const char *title, struct hws_strbuf *sb);

#ifdef __cplusplus
}
#endif
#endif
