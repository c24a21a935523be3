/* SPDX-License-Identifier: MIT */
/*
 * Between core/analysis/report.c and core/analysis/report_html.c: what the HTML page draws beyond
 * the text report.
 *
 * struct hws_heat is the data-address x time heat map of hws_report_opts::html: a bounded
 * grid of counts, never the samples themselves. Time is cut into at most HWS_HEAT_T bins
 * of a power-of-two width (ns) from t0, a multiple of it; addresses into units of
 * 2^ash bytes (a cache line at first). A cell (time bin, address unit) lives in an
 * open-addressing table of HWS_HEAT_CELLS slots, at most 3/4 full: a sample past the last
 * bin doubles the bin width (and moves t0 down to a multiple of it) and a new cell that
 * would fill the table past 3/4 doubles the unit, both merging the cells they join; so
 * memory is fixed (HWS_HEAT_CELLS x 16 bytes) whatever the number of samples, and every
 * sample with a time and a data address is counted in exactly one cell.
 */
#ifndef HWS_REPORT_VIEW_H
#define HWS_REPORT_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include <hwsample/report.h>

#define HWS_HEAT_T     64
#define HWS_HEAT_CELLS 8192
#define HWS_HEAT_ASH0  6	 /* a 64-byte unit to begin with */
#define HWS_HEAT_TW0   (1 << 16) /* first bin width: 65.5 us */

struct hws_heat_cell {
	uint64_t unit; /* address >> ash */
	uint32_t tbin; /* time bin + 1; 0 = empty slot */
	uint32_t n;    /* samples (saturating) */
};

struct hws_heat {
	uint64_t t0, tw;  /* first bin's start and bins' width (ns); tw 0 = no sample yet */
	uint64_t tmax;	  /* latest time counted */
	unsigned int ash; /* address unit = 2^ash bytes */
	uint64_t samples; /* samples counted in the grid */
	uint64_t untimed; /* samples with a data address but no time */
	size_t nr;	  /* used cells */
	struct hws_heat_cell cell[HWS_HEAT_CELLS];
	struct hws_heat_cell old[HWS_HEAT_CELLS]; /* scratch of a merge */
};

void hws_heat__add(struct hws_heat *h, uint64_t time, uint64_t addr);

/* Report internals for core/analysis/report_html.c. */
struct hws_report_view {
	uint64_t nr_samples, total_period, total_lat, nr_data_src, nr_op;
	const uint64_t (*ds)[HWS_SNOOP__MAX]; /* [HWS_MEM__MAX] */
	const uint64_t *tlb;		      /* [HWS_TLB__MAX] */
	const uint64_t *op;		      /* [HWS_OP_OTHER + 1] */
	/* lat_total by memory level (hws_report_opts::html): log2 buckets, count, sum */
	const uint64_t (*lvl_lat)[HWS_REPORT_LAT_BUCKETS]; /* [HWS_MEM__MAX] */
	const uint64_t *lvl_n, *lvl_sum;		   /* [HWS_MEM__MAX] */
	const struct hws_heat *heat;			   /* NULL without opts.html */
	const char *sort_name;				   /* "samples", "period", "latency" */
	uint64_t sort_total;
	uint32_t top;
	size_t nr_rows; /* counts rows (hws__report_count_row()) */
	bool hist;	/* a sort_keys / mem report: none of the above */
};

void hws__report_view(struct hws_report *r, struct hws_report_view *v);
/* Row @i of the samples/loss table. 0, or -EINVAL past the end. */
int hws__report_count_row(const struct hws_report *r, size_t i, const char **event,
			  const char **backend, int *cpu, const struct hws_decode_counts **c);
/* Latency histogram @i (0 = lat_total ... 4 = lat_ins); -EINVAL past the end. */
int hws__report_lat(const struct hws_report *r, int i, const char **name, const uint64_t **b,
		    uint64_t *count, uint64_t *sum, uint64_t *min, uint64_t *max);

/* One row of a top table: the label as the text report writes it, and the sort value. */
struct hws_report_top_row {
	char *label;
	uint64_t value;
};

struct hws_report_top {
	struct hws_report_top_row *rows;
	size_t shown, n; /* rows shown, out of n */
	uint64_t other;	 /* sort value of what the full table could not itemize */
};

/*
 * The top table of code (@data false) or data addresses, grouped by symbol (@grouped) or
 * not: the rows of the text report's "Top functions" / "Top data objects" / "Top code
 * addresses" / "Top data addresses". 0 or -ENOMEM; release with hws__report_top_release().
 */
int hws__report_top(struct hws_report *r, struct hws_symbols *syms, bool data, bool grouped,
		    struct hws_report_top *out);
void hws__report_top_release(struct hws_report_top *t);

/* @s as HTML text ('<', '>', '&', '"' as entities), from c2c_html.c */
int hws__html_add(struct hws_strbuf *sb, const char *s);

#endif
