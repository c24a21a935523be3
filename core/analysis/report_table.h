/* SPDX-License-Identifier: MIT */
/*
 * The plain report's tables (struct hws_report), between report.c, which fills them per sample,
 * and report_text.c, which prints them. The invariants are in report.c's head comment.
 */
#ifndef HWS_REPORT_TABLE_H
#define HWS_REPORT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/decode.h>
#include <hwsample/report.h>
#include <hwsample/sample.h>

#define NR_LAT 5

struct tally {
	uint64_t samples, period, lat;
};

/* one distinct (pid, address), in insertion order */
struct aent {
	uint64_t addr;
	uint32_t pid;
	uint32_t pad;
	struct tally t;
};

/* hash slot: index + 1 into the entries (0 = empty) and the low 32 bits of the key's hash:
 * a probe only reads an entry whose hash matches, and growing rehashes from the slots
 * alone (the home slot is the hash's low bits) */
struct aslot {
	uint32_t tag, idx;
};

/* a sample waiting for its slot's cache line (see at_add()) */
struct staged {
	uint64_t addr, hash;
	uint32_t pid;
	struct tally v;
};

#define STAGE	    32 /* samples in flight */
#define LAST_CPUS   64
#define LASTC_WAYS  4
#define STAGE_SLOTS (64u << 10) /* index size (512 KiB) from which samples are staged */

struct atable {
	struct aslot *slot;
	struct aent *e;
	size_t size, nr, alloc, max; /* slots, entries used, entries allocated, entry bound */
	size_t last;		     /* index + 1 of the previous hit: samples come in runs */
	/* recent hits per CPU (mod LAST_CPUS; CPUs interleave), LASTC_WAYS of them picked by
	 * address bits: a loop's few hot addresses on one CPU each keep their own */
	uint32_t lastc[LAST_CPUS][LASTC_WAYS];
	struct tally other;
	unsigned int nstage;
	struct staged stage[STAGE];
};

struct count_row {
	char *event, *backend;
	int cpu;
	struct hws_decode_counts c;
};

struct lat_hist {
	uint64_t b[HWS_REPORT_LAT_BUCKETS];
	uint64_t count, sum, min, max;
};

struct hws_report {
	struct hws_report_opts opts;
	uint64_t nr_samples, total_period, total_lat;
	struct atable ips, addrs;
	uint64_t ds[HWS_MEM__MAX][HWS_SNOOP__MAX];
	uint64_t tlb[HWS_TLB__MAX];
	uint64_t op[HWS_OP_OTHER + 1];
	uint64_t nr_data_src, nr_op;
	struct lat_hist lat[NR_LAT];
	struct count_row *rows;
	size_t nr_rows, alloc_rows;
	struct hws_hist *hist; /* opts.sort_keys, mem, callgraph or children: perf report's view */
	struct hws_folded *folded; /* opts.folded */
	bool any_chain;
	/* opts.html: lat_total by memory level, the address x time heat map */
	uint64_t lvl_lat[HWS_MEM__MAX][HWS_REPORT_LAT_BUCKETS], lvl_n[HWS_MEM__MAX],
	    lvl_sum[HWS_MEM__MAX];
	struct hws_heat *heat;
	uint32_t synth; /* opts.itrace: the synthesized events (enum hws_synth) kept */
};

/* the latency fields the report keeps a histogram of */
struct report_lat_field {
	uint64_t field;
	const char *name;
	size_t off;
};

extern const struct report_lat_field report__lat_fields[NR_LAT];

static inline void tally_add(struct tally *t, const struct tally *v)
{
	t->samples += v->samples;
	t->period += v->period;
	t->lat += v->lat;
}

/* apply a table's staged samples, in arrival order (before anything reads it) */
int report__at_flush(struct atable *t);

#endif
