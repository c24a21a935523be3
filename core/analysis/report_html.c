// SPDX-License-Identifier: MIT
/*
 * `report --html`: the report as one self-contained page (see hws_report__render_html()).
 *
 * Invariants:
 *  - no script and no external resource: inline CSS and SVG written here, so the page shows
 *    the same without network or JavaScript, and `chromium --dump-dom` is the page itself;
 *  - every string from the file (event, backend, symbol, dso names) goes through the text
 *    report's escaping (control characters and invalid UTF-8 as \xNN) and then
 *    hws__html_add() ('<', '>', '&', '"' as entities): names are text, never markup;
 *  - every drawn quantity is also written as text (bar rows carry their count and
 *    percentage as <text>, the heat map and latency plots have tables or captions), with
 *    the text report's numbers and formats (counts, "%.1f%%" of the same totals);
 *  - the size is bounded by the rows shown (--top), the counts rows and the heat map grid
 *    (at most HWS_HEAT_T x HEAT_ROWS cells), never by the number of samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/report.h>

#include "analysis/report_view.h"
#include "util/internal.h"

#define HEAT_ROWS 48

/* svg geometry of the bar charts */
#define ROW_H 18
#define X_NUM 100 /* right edge of the count */
#define X_PCT 160 /* right edge of the percentage */
#define X_BAR 170
#define W_BAR 300
#define X_LBL (X_BAR + W_BAR + 10)
#define SVG_W 1200

static const char page_style[] =
    "<style>\n"
    "body{font:13px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:16px;color:#222}\n"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 6px}\n"
    ".meta{color:#555;margin-bottom:8px}\n"
    "table{border-collapse:collapse;margin:6px 0}\n"
    "th,td{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}\n"
    "th{background:#eef}td.l{text-align:left}tr:nth-child(even) td{background:#fafafa}\n"
    "svg{display:block;margin:4px 0}svg text{font:12px ui-monospace,monospace;fill:#222}\n"
    "svg text.hd{fill:#555;font-weight:600}svg .bar{fill:#4a7fc1}svg .lost{fill:#d33}\n"
    "svg .axis{stroke:#999;stroke-width:1}svg .gap{stroke:#333;stroke-dasharray:3 2}\n"
    "nav a{margin-right:10px}\n"
    "</style>\n";

/* snoop results' colours in the data-source chart, by enum hws_snoop */
static const char *const snoop_fill[HWS_SNOOP__MAX] = {
    "#9aa5b1", "#4a7fc1", "#2ca02c", "#d62728", "#ff7f0e", "#9467bd",
};

/* a name from the file: as the text report writes it, as HTML text */
static int add_name(struct hws_strbuf *sb, const char *s)
{
	struct hws_strbuf t = HWS_STRBUF_INIT;
	int err;

	if (!s)
		s = "";
	if (hws_strbuf__text_plain(s))
		return hws__html_add(sb, s);
	err = hws_strbuf__add_text_str(&t, s);
	if (!err)
		err = hws__html_add(sb, t.buf ? t.buf : "");
	hws_strbuf__release(&t);
	return err;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

/* width in pixels of @v on a @w-pixel bar whose full length is @max (at least 1 if v > 0) */
static unsigned int bar_px(uint64_t v, uint64_t max, unsigned int w)
{
	unsigned int px;

	if (!v || !max)
		return 0;
	px = (unsigned int)((double)v * w / (double)max + 0.5);
	return px ? (px > w ? w : px) : 1;
}

struct bars {
	const char *id;
	const char *unit, *what; /* header of the count and label columns */
	uint64_t total;		 /* for the percentages */
	uint64_t max;		 /* full bar */
};

static void bars_begin(struct hws_strbuf *sb, const struct bars *b, size_t n)
{
	hws_strbuf__addf(sb,
			 "<svg id=\"%s\" class=\"bars\" width=\"%d\" height=\"%zu\" "
			 "xmlns=\"http://www.w3.org/2000/svg\">\n",
			 b->id, SVG_W, (n + 1) * ROW_H + 4);
	hws_strbuf__addf(sb,
			 "<text class=\"hd\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>"
			 "<text class=\"hd\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%%</text>"
			 "<text class=\"hd\" x=\"%d\" y=\"%d\">",
			 X_NUM, ROW_H - 5, b->unit, X_PCT, ROW_H - 5, X_LBL, ROW_H - 5);
	hws__html_add(sb, b->what);
	hws_strbuf__addstr(sb, "</text>\n");
}

/* one row: count, percentage, bar, label (HTML-ready text already in @label_html) */
static void bars_row(struct hws_strbuf *sb, const struct bars *b, size_t i, uint64_t v,
		     const char *label_html)
{
	unsigned int y = (unsigned int)(i + 1) * ROW_H;

	hws_strbuf__addf(sb,
			 "<g class=\"row\"><text class=\"n\" x=\"%d\" y=\"%u\" "
			 "text-anchor=\"end\">%" PRIu64 "</text><text class=\"pct\" x=\"%d\" "
			 "y=\"%u\" text-anchor=\"end\">%.1f%%</text><rect class=\"bar\" x=\"%d\" "
			 "y=\"%u\" width=\"%u\" height=\"%d\"/><text class=\"label\" x=\"%d\" "
			 "y=\"%u\">%s</text></g>\n",
			 X_NUM, y + ROW_H - 5, v, X_PCT, y + ROW_H - 5, pct(v, b->total), X_BAR,
			 y + 3, bar_px(v, b->max, W_BAR), ROW_H - 5, X_LBL, y + ROW_H - 5,
			 label_html);
}

static void section(struct hws_strbuf *sb, const char *id, const char *title)
{
	hws_strbuf__addf(sb, "<h2 id=\"%s\">%s</h2>\n", id, title);
}

static int render_top(struct hws_report *r, struct hws_symbols *syms,
		      const struct hws_report_view *v, struct hws_strbuf *sb, bool data,
		      bool grouped)
{
	static const char *const ids[2][2] = {{"top-code-addresses", "top-functions"},
					      {"top-data-addresses", "top-objects"}};
	static const char *const titles[2][2] = {{"Top code addresses", "Top functions"},
						 {"Top data addresses", "Top data objects"}};
	struct hws_strbuf lbl = HWS_STRBUF_INIT;
	struct hws_report_top t;
	struct bars b = {.id = ids[data][grouped], .unit = v->sort_name, .total = v->sort_total};
	int err = hws__report_top(r, syms, data, grouped, &t);

	if (err || !t.n)
		return err;
	b.what = grouped ? (data ? "object  [dso]" : "function  [dso]") : "address symbol";
	b.max = t.shown ? t.rows[0].value : 0;
	hws_strbuf__addf(sb, "<h2 id=\"s-%s\" class=\"top\">%s (by %s, top %zu of %zu)</h2>\n",
			 b.id, titles[data][grouped], v->sort_name, t.shown, t.n);
	bars_begin(sb, &b, t.shown);
	for (size_t i = 0; i < t.shown; i++) {
		hws_strbuf__reset(&lbl);
		hws__html_add(&lbl, t.rows[i].label);
		bars_row(sb, &b, i, t.rows[i].value, lbl.buf ? lbl.buf : "");
	}
	hws_strbuf__addstr(sb, "</svg>\n");
	if (t.other)
		hws_strbuf__addf(
		    sb, "<p class=\"meta\">%" PRIu64 " (table full: not itemized)</p>\n", t.other);
	hws_strbuf__release(&lbl);
	hws__report_top_release(&t);
	return 0;
}

/* samples and loss of one CPU, over every event */
struct cpu_loss {
	int cpu; /* -1: unknown */
	uint64_t samples, lost;
};

static int cpu_loss_cmp(const void *a, const void *b)
{
	const struct cpu_loss *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int render_counts(struct hws_report *r, const struct hws_report_view *v,
			 struct hws_strbuf *sb)
{
	const struct hws_decode_counts *c;
	struct cpu_loss *cl;
	const char *ev, *be;
	uint64_t max = 0, tot = 0, lost = 0;
	size_t ncl = 0;
	int cpu;

	if (!v->nr_rows)
		return 0;
	cl = calloc(v->nr_rows, sizeof(*cl));
	if (!cl)
		return -ENOMEM;
	for (size_t i = 0; !hws__report_count_row(r, i, &ev, &be, &cpu, &c); i++) {
		size_t k;

		for (k = 0; k < ncl && cl[k].cpu != (cpu < 0 ? -1 : cpu); k++)
			;
		if (k == ncl)
			cl[ncl++].cpu = cpu < 0 ? -1 : cpu;
		cl[k].samples += c->samples;
		cl[k].lost += c->lost + c->lost_samples;
		tot += c->samples;
		lost += c->lost + c->lost_samples;
	}
	hws__qsort(cl, ncl, sizeof(*cl), cpu_loss_cmp);
	for (size_t k = 0; k < ncl; k++)
		max = cl[k].samples + cl[k].lost > max ? cl[k].samples + cl[k].lost : max;
	section(sb, "s-counts", "Samples and loss per CPU");
	hws_strbuf__addf(sb,
			 "<p class=\"meta\" id=\"loss-total\">%" PRIu64 " samples, %" PRIu64
			 " lost or dropped (%.2f%%)</p>\n",
			 tot, lost, pct(lost, tot + lost));
	hws_strbuf__addf(sb,
			 "<svg id=\"loss\" class=\"bars\" width=\"%d\" height=\"%zu\" "
			 "xmlns=\"http://www.w3.org/2000/svg\">\n"
			 "<text class=\"hd\" x=\"%d\" y=\"13\" text-anchor=\"end\">samples</text>"
			 "<text class=\"hd\" x=\"%d\" y=\"13\" text-anchor=\"end\">lost</text>"
			 "<text class=\"hd\" x=\"%d\" y=\"13\">cpu (blue: samples, red: lost "
			 "records + samples dropped by the PMU, all events)</text>\n",
			 SVG_W, (ncl + 1) * ROW_H + 4, X_NUM, X_PCT, X_LBL);
	for (size_t k = 0; k < ncl; k++) {
		unsigned int y = (unsigned int)(k + 1) * ROW_H;
		unsigned int ws = bar_px(cl[k].samples, max, W_BAR);

		hws_strbuf__addf(
		    sb,
		    "<g class=\"row\"><text class=\"n\" x=\"%d\" y=\"%u\" "
		    "text-anchor=\"end\">%" PRIu64 "</text><text class=\"nlost\" "
		    "x=\"%d\" y=\"%u\" text-anchor=\"end\">%" PRIu64 "</text>"
		    "<rect class=\"bar\" x=\"%d\" y=\"%u\" width=\"%u\" height=\"%d\"/>"
		    "<rect class=\"lost\" x=\"%u\" y=\"%u\" width=\"%u\" "
		    "height=\"%d\"/><text class=\"label\" x=\"%d\" y=\"%u\">",
		    X_NUM, y + ROW_H - 5, cl[k].samples, X_PCT, y + ROW_H - 5, cl[k].lost, X_BAR,
		    y + 3, ws, ROW_H - 5, X_BAR + ws, y + 3, bar_px(cl[k].lost, max, W_BAR),
		    ROW_H - 5, X_LBL, y + ROW_H - 5);
		if (cl[k].cpu < 0)
			hws_strbuf__addstr(sb, "cpu -</text></g>\n");
		else
			hws_strbuf__addf(sb, "cpu %d</text></g>\n", cl[k].cpu);
	}
	free(cl);
	hws_strbuf__addf(sb,
			 "</svg>\n<details><summary>per event and CPU (%zu rows)</summary>\n"
			 "<table id=\"counts\"><tr><th>event</th><th>backend</th>"
			 "<th>cpu</th><th>samples</th><th>period</th><th>skipped</th>"
			 "<th>errors</th><th>lost</th><th>lost_smpl</th><th>throttle</th>"
			 "<th>aux_recs</th><th>truncated</th><th>partial</th>"
			 "<th>collisn</th></tr>\n",
			 v->nr_rows);
	for (size_t i = 0; !hws__report_count_row(r, i, &ev, &be, &cpu, &c); i++) {
		hws_strbuf__addstr(sb, "<tr><td class=\"l\">");
		add_name(sb, ev);
		hws_strbuf__addstr(sb, "</td><td class=\"l\">");
		add_name(sb, be);
		if (cpu < 0)
			hws_strbuf__addstr(sb, "</td><td>-");
		else
			hws_strbuf__addf(sb, "</td><td>%d", cpu);
		hws_strbuf__addf(sb,
				 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
				 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
				 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%" PRIu64
				 "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td></tr>\n",
				 c->samples, c->period, c->skipped, c->errors, c->lost,
				 c->lost_samples, c->throttle, c->aux_records, c->aux_truncated,
				 c->aux_partial, c->aux_collision);
	}
	hws_strbuf__addstr(sb, "</table></details>\n");
	return 0;
}

static int render_data_src(const struct hws_report_view *v, struct hws_strbuf *sb)
{
	uint64_t lvl[HWS_MEM__MAX] = {0}, max = 0;
	struct bars b = {.unit = "samples", .what = "", .total = v->nr_data_src};
	size_t n = 0, i = 0;

	if (!v->nr_data_src && !v->nr_op)
		return 0;
	hws_strbuf__addf(sb,
			 "<h2 id=\"s-data-source\">Data source (%" PRIu64
			 " samples with a data source)</h2>\n",
			 v->nr_data_src);
	for (int l = 0; l < HWS_MEM__MAX; l++) {
		for (int s = 0; s < HWS_SNOOP__MAX; s++)
			lvl[l] += v->ds[l][s];
		max = lvl[l] > max ? lvl[l] : max;
		n += lvl[l] != 0;
	}
	if (v->nr_data_src) {
		b.id = "data-source";
		b.what = "level (bar: by snoop result)";
		b.max = max;
		bars_begin(sb, &b, n);
		for (int l = 0; l < HWS_MEM__MAX; l++) {
			unsigned int y = (unsigned int)(i + 1) * ROW_H, x = X_BAR;

			if (!lvl[l])
				continue;
			hws_strbuf__addf(sb,
					 "<g class=\"row\"><text class=\"n\" x=\"%d\" y=\"%u\" "
					 "text-anchor=\"end\">%" PRIu64
					 "</text><text class=\"pct\" "
					 "x=\"%d\" y=\"%u\" text-anchor=\"end\">%.1f%%</text>",
					 X_NUM, y + ROW_H - 5, lvl[l], X_PCT, y + ROW_H - 5,
					 pct(lvl[l], v->nr_data_src));
			/* segments by snoop, each as wide as its share of the level's bar */
			for (int s = 0; s < HWS_SNOOP__MAX; s++) {
				unsigned int end = X_BAR + bar_px(lvl[l], max, W_BAR), w;
				uint64_t upto = 0;

				if (!v->ds[l][s])
					continue;
				for (int k = 0; k <= s; k++)
					upto += v->ds[l][k];
				w = X_BAR +
				    (unsigned int)((double)(end - X_BAR) * (double)upto /
						       (double)lvl[l] +
						   0.5) -
				    x;
				hws_strbuf__addf(
				    sb,
				    "<rect class=\"snoop\" x=\"%u\" y=\"%u\" width=\"%u\" "
				    "height=\"%d\" fill=\"%s\"><title>%s %s: %" PRIu64
				    "</title></rect>",
				    x, y + 3, w ? w : 1, ROW_H - 5, snoop_fill[s],
				    hws_mem_level__name((unsigned int)l),
				    hws_snoop__name((unsigned int)s), v->ds[l][s]);
				x += w;
			}
			hws_strbuf__addf(
			    sb, "<text class=\"label\" x=\"%d\" y=\"%u\">%s</text></g>\n", X_LBL,
			    y + ROW_H - 5, hws_mem_level__name((unsigned int)l));
			i++;
		}
		hws_strbuf__addstr(sb, "</svg>\n<p class=\"meta\">snoop: ");
		for (int s = 0; s < HWS_SNOOP__MAX; s++)
			hws_strbuf__addf(sb, "<span style=\"color:%s\">&#9632;</span> %s &nbsp; ",
					 snoop_fill[s], hws_snoop__name((unsigned int)s));
		hws_strbuf__addstr(sb, "</p>\n<table id=\"data-source-table\"><tr><th>level</th>"
				       "<th>samples</th>");
		for (int s = 0; s < HWS_SNOOP__MAX; s++)
			hws_strbuf__addf(sb, "<th>%s</th>", hws_snoop__name((unsigned int)s));
		hws_strbuf__addstr(sb, "</tr>\n");
		for (int l = 0; l < HWS_MEM__MAX; l++) {
			if (!lvl[l])
				continue;
			hws_strbuf__addf(sb, "<tr><td class=\"l\">%s</td><td>%" PRIu64 "</td>",
					 hws_mem_level__name((unsigned int)l), lvl[l]);
			for (int s = 0; s < HWS_SNOOP__MAX; s++)
				hws_strbuf__addf(sb, "<td>%" PRIu64 "</td>", v->ds[l][s]);
			hws_strbuf__addstr(sb, "</tr>\n");
		}
		hws_strbuf__addstr(sb, "</table>\n<h3>TLB</h3>\n");
		b.id = "tlb";
		b.what = "TLB";
		for (int t = max = n = 0; t < HWS_TLB__MAX; t++) {
			max = v->tlb[t] > max ? v->tlb[t] : max;
			n += v->tlb[t] != 0;
		}
		b.max = max;
		bars_begin(sb, &b, n);
		for (int t = i = 0; t < HWS_TLB__MAX; t++)
			if (v->tlb[t])
				bars_row(sb, &b, i++, v->tlb[t], hws_tlb__name((unsigned int)t));
		hws_strbuf__addstr(sb, "</svg>\n");
	}
	if (v->nr_op) {
		hws_strbuf__addstr(sb, "<h3>Operation</h3>\n");
		b.id = "op";
		b.what = "operation";
		b.total = v->nr_op;
		for (int o = max = n = 0; o <= HWS_OP_OTHER; o++) {
			max = v->op[o] > max ? v->op[o] : max;
			n += v->op[o] != 0;
		}
		b.max = max;
		bars_begin(sb, &b, n);
		for (int o = i = 0; o <= HWS_OP_OTHER; o++)
			if (v->op[o])
				bars_row(sb, &b, i++, v->op[o], hws_op__name((unsigned int)o));
		hws_strbuf__addstr(sb, "</svg>\n");
	}
	return 0;
}

static void bucket_range(char *buf, size_t len, int b)
{
	if (!b)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%" PRIu64 "-%" PRIu64, (uint64_t)1 << (b - 1),
			 ((uint64_t)1 << b) - 1);
}

/* lat_total by memory level: one strip per level over a shared log2 latency axis */
static void render_lat_levels(const struct hws_report_view *v, struct hws_strbuf *sb)
{
	enum { STRIP = 54, X0 = 170, COLW = 26 };
	int lo = HWS_REPORT_LAT_BUCKETS, hi = -1, nl = 0;
	char range[48];

	for (int l = 0; l < HWS_MEM__MAX; l++) {
		if (!v->lvl_n[l])
			continue;
		nl++;
		for (int b = 0; b < HWS_REPORT_LAT_BUCKETS; b++) {
			if (!v->lvl_lat[l][b])
				continue;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
	}
	if (!nl)
		return;
	hws_strbuf__addstr(sb, "<h3 id=\"s-latency-levels\">lat_total by memory level (cycles, "
			       "log2 buckets: a log scale)</h3>\n");
	hws_strbuf__addf(sb,
			 "<svg id=\"latency-levels\" width=\"%d\" height=\"%d\" "
			 "xmlns=\"http://www.w3.org/2000/svg\">\n",
			 X0 + (hi - lo + 1) * COLW + 20, nl * STRIP + 40);
	nl = 0;
	for (int l = 0; l < HWS_MEM__MAX; l++) {
		int y0 = nl * STRIP + 4;
		uint64_t max = 0;

		if (!v->lvl_n[l])
			continue;
		for (int b = lo; b <= hi; b++)
			max = v->lvl_lat[l][b] > max ? v->lvl_lat[l][b] : max;
		hws_strbuf__addf(sb,
				 "<g class=\"level\" data-level=\"%s\"><text x=\"4\" y=\"%d\">%s"
				 "</text><text x=\"4\" y=\"%d\">%" PRIu64 " samples</text>"
				 "<text x=\"4\" y=\"%d\">mean %.1f</text>"
				 "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>",
				 hws_mem_level__name((unsigned int)l), y0 + 14,
				 hws_mem_level__name((unsigned int)l), y0 + 28, v->lvl_n[l],
				 y0 + 42, (double)v->lvl_sum[l] / (double)v->lvl_n[l], X0,
				 y0 + STRIP - 4, X0 + (hi - lo + 1) * COLW, y0 + STRIP - 4);
		for (int b = lo; b <= hi; b++) {
			uint64_t n = v->lvl_lat[l][b];
			unsigned int hgt = bar_px(n, max, STRIP - 8);

			if (!n)
				continue;
			bucket_range(range, sizeof(range), b);
			hws_strbuf__addf(
			    sb,
			    "<rect class=\"bar\" x=\"%d\" y=\"%u\" width=\"%d\" "
			    "height=\"%u\"><title>%s cycles: %" PRIu64 " samples</title></rect>",
			    X0 + (b - lo) * COLW + 2, (unsigned int)(y0 + STRIP - 4) - hgt,
			    COLW - 4, hgt, range, n);
		}
		hws_strbuf__addstr(sb, "</g>\n");
		nl++;
	}
	for (int b = lo; b <= hi; b++) /* the axis: each bucket's first value */
		hws_strbuf__addf(sb,
				 "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
				 "font-size=\"10\">%" PRIu64 "</text>",
				 X0 + (b - lo) * COLW + COLW / 2, nl * STRIP + 18,
				 b ? (uint64_t)1 << (b - 1) : 0);
	hws_strbuf__addf(sb, "<text class=\"hd\" x=\"%d\" y=\"%d\">cycles (bucket start)</text>",
			 X0, nl * STRIP + 34);
	hws_strbuf__addstr(sb, "</svg>\n<table id=\"latency-levels-table\"><tr><th>cycles</th>");
	for (int l = 0; l < HWS_MEM__MAX; l++)
		if (v->lvl_n[l])
			hws_strbuf__addf(sb, "<th>%s</th>", hws_mem_level__name((unsigned int)l));
	hws_strbuf__addstr(sb, "</tr>\n");
	for (int b = lo; b <= hi; b++) {
		bucket_range(range, sizeof(range), b);
		hws_strbuf__addf(sb, "<tr><td>%s</td>", range);
		for (int l = 0; l < HWS_MEM__MAX; l++)
			if (v->lvl_n[l])
				hws_strbuf__addf(sb, "<td>%" PRIu64 "</td>", v->lvl_lat[l][b]);
		hws_strbuf__addstr(sb, "</tr>\n");
	}
	hws_strbuf__addstr(sb, "</table>\n");
}

static void render_latency(struct hws_report *r, const struct hws_report_view *v,
			   struct hws_strbuf *sb)
{
	bool any = false;

	for (int i = 0;; i++) {
		uint64_t count, sum, min, max, bmax = 0;
		const uint64_t *b;
		const char *name;
		int lo = -1, hi = -1;
		struct bars bs = {.unit = "samples", .what = "cycles"};
		char id[48], range[48];

		if (hws__report_lat(r, i, &name, &b, &count, &sum, &min, &max))
			break;
		if (!count)
			continue;
		if (!any)
			section(sb, "s-latency", "Latency");
		any = true;
		for (int k = 0; k < HWS_REPORT_LAT_BUCKETS; k++) {
			if (!b[k])
				continue;
			lo = lo < 0 ? k : lo;
			hi = k;
			bmax = b[k] > bmax ? b[k] : bmax;
		}
		hws_strbuf__addf(sb,
				 "<h3 class=\"lat\">Latency %s (cycles): %" PRIu64
				 " samples, min %" PRIu64 ", mean %.1f, max %" PRIu64 "</h3>\n",
				 name, count, min, (double)sum / (double)count, max);
		snprintf(id, sizeof(id), "latency-%s", name);
		bs.id = id;
		bs.total = count;
		bs.max = bmax;
		bars_begin(sb, &bs, (size_t)(hi - lo + 1));
		for (int k = lo; k <= hi; k++) {
			bucket_range(range, sizeof(range), k);
			bars_row(sb, &bs, (size_t)(k - lo), b[k], range);
		}
		hws_strbuf__addstr(sb, "</svg>\n");
		if (i == 0)
			render_lat_levels(v, sb);
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* colour of a cell with @n samples, @max the fullest: light yellow to dark red, log scale */
static void heat_colour(char *buf, size_t len, uint64_t n, uint64_t max)
{
	static const int ramp[3][3] = {{255, 237, 160}, {253, 141, 60}, {128, 0, 38}};
	double f = max > 1 ? log1p((double)n) / log1p((double)max) : 1;
	int seg = f > 0.5, c[3];
	double g = seg ? (f - 0.5) * 2 : f * 2;

	for (int k = 0; k < 3; k++)
		c[k] = (int)(ramp[seg][k] + (ramp[seg + 1][k] - ramp[seg][k]) * g + 0.5);
	snprintf(buf, len, "#%02x%02x%02x", c[0], c[1], c[2]);
}

static int render_heat(const struct hws_report_view *v, struct hws_strbuf *sb)
{
	enum { X0 = 150, Y0 = 8, W = 768, H = 384 };
	const struct hws_heat *h = v->heat;
	uint64_t *units = NULL, *grid = NULL, max = 0;
	size_t nu = 0, per, rows, cols = 0;
	unsigned int cw, rh;
	char fill[16];

	if (!h)
		return 0;
	section(sb, "s-heatmap", "Access pattern: data address x time");
	if (!h->samples) {
		hws_strbuf__addf(sb,
				 "<p class=\"meta\" id=\"heatmap-none\">no sample with a data "
				 "address and a time (%" PRIu64 " without a time)</p>\n",
				 h->untimed);
		return 0;
	}
	units = malloc(h->nr * sizeof(*units) + 1);
	grid = calloc((size_t)HWS_HEAT_T * HEAT_ROWS, sizeof(*grid));
	if (!units || !grid) {
		free(units);
		free(grid);
		return -ENOMEM;
	}
	for (size_t i = 0; i < HWS_HEAT_CELLS; i++) {
		const struct hws_heat_cell *c = &h->cell[i];

		if (!c->tbin)
			continue;
		units[nu++] = c->unit;
		cols = c->tbin > cols ? c->tbin : cols;
	}
	hws__qsort(units, nu, sizeof(*units), u64_cmp);
	{
		size_t k = 0;

		for (size_t i = 0; i < nu; i++)
			if (!k || units[i] != units[k - 1])
				units[k++] = units[i];
		nu = k;
	}
	/* rows: the occupied units in address order (empty ranges left out), HEAT_ROWS at most,
	 * each row @per consecutive occupied units */
	per = (nu + HEAT_ROWS - 1) / HEAT_ROWS;
	rows = (nu + per - 1) / per;
	for (size_t i = 0; i < HWS_HEAT_CELLS; i++) {
		const struct hws_heat_cell *c = &h->cell[i];
		const uint64_t *p;
		uint64_t *g;

		if (!c->tbin)
			continue;
		p = bsearch(&c->unit, units, nu, sizeof(*units), u64_cmp);
		g = &grid[(p ? (size_t)(p - units) / per : 0) * HWS_HEAT_T + c->tbin - 1];
		*g += c->n;
		max = *g > max ? *g : max;
	}
	cw = W / (unsigned int)cols;
	rh = H / (unsigned int)rows;
	cw = cw < 2 ? 2 : cw;
	rh = rh > 24 ? 24 : rh < 4 ? 4 : rh;
	hws_strbuf__addf(sb,
			 "<p class=\"meta\" id=\"heatmap-caption\">%" PRIu64
			 " samples with a data address and a time; %zu time bins of "
			 "%.3f ms; address unit %" PRIu64 " bytes; %zu rows of %zu occupied units "
			 "each (address ranges without samples left out: dashed lines); fullest "
			 "cell %" PRIu64 " samples; %" PRIu64 " samples without a time</p>\n",
			 h->samples, cols, (double)h->tw / 1e6,
			 h->ash >= 64 ? 0 : (uint64_t)1 << h->ash, rows, per, max, h->untimed);
	hws_strbuf__addf(sb,
			 "<svg id=\"heatmap\" width=\"%u\" height=\"%u\" "
			 "xmlns=\"http://www.w3.org/2000/svg\">\n",
			 X0 + cw * (unsigned int)cols + 100, Y0 + rh * (unsigned int)rows + 50);
	hws_strbuf__addstr(sb, "<g class=\"cells\">\n");
	for (size_t row = 0; row < rows; row++) {
		for (size_t t = 0; t < cols; t++) {
			uint64_t n = grid[row * HWS_HEAT_T + t];

			if (!n)
				continue;
			heat_colour(fill, sizeof(fill), n, max);
			hws_strbuf__addf(sb,
					 "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" "
					 "fill=\"%s\" data-n=\"%" PRIu64 "\"/>\n",
					 X0 + (unsigned int)t * cw, Y0 + (unsigned int)row * rh, cw,
					 rh, fill, n);
		}
	}
	hws_strbuf__addstr(sb, "</g>\n");
	/* row labels (first address of the row), at most ~16, and the gaps */
	for (size_t row = 0; row < rows; row++) {
		uint64_t first = units[row * per], a = h->ash >= 64 ? 0 : first << h->ash;
		unsigned int y = Y0 + (unsigned int)row * rh;

		if (row && units[row * per - 1] + 1 != first)
			hws_strbuf__addf(sb,
					 "<line class=\"gap\" x1=\"%d\" y1=\"%u\" x2=\"%u\" "
					 "y2=\"%u\"/>",
					 X0 - 6, y, X0 + cw * (unsigned int)cols, y);
		if (row % ((rows + 15) / 16) == 0)
			hws_strbuf__addf(sb,
					 "<text class=\"addr\" x=\"%d\" y=\"%u\" "
					 "text-anchor=\"end\" font-size=\"10\">0x%" PRIx64
					 "</text>",
					 X0 - 8, y + (rh > 10 ? rh / 2 + 4 : rh), a);
	}
	for (size_t t = 0; t <= cols; t += cols > 8 ? cols / 8 : 1)
		hws_strbuf__addf(sb,
				 "<text class=\"time\" x=\"%u\" y=\"%u\" text-anchor=\"middle\" "
				 "font-size=\"10\">%.1f</text>",
				 X0 + (unsigned int)t * cw, Y0 + rh * (unsigned int)rows + 14,
				 (double)(t * h->tw) / 1e6);
	hws_strbuf__addf(sb,
			 "<text class=\"hd\" x=\"%d\" y=\"%u\">ms from %.6f s (perf time)</text>\n"
			 "</svg>\n",
			 X0, Y0 + rh * (unsigned int)rows + 32, (double)h->t0 / 1e9);
	free(units);
	free(grid);
	return 0;
}

int hws_report__render_html(struct hws_report *r, struct hws_symbols *syms,
			    const struct hws_report_html_opts *opts, struct hws_strbuf *sb)
{
	struct hws_report_html_opts o = {0};
	struct hws_report_view v;
	int err;

	if (opts) {
		err = HWS_OPTS_GET(o, opts, hws_report_html_opts);
		if (err)
			return err;
	}
	hws__report_view(r, &v);
	if (v.hist)
		return -EINVAL;
	hws_strbuf__addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			       "<title>hwsample report: ");
	add_name(sb, o.title ? o.title : "report");
	hws_strbuf__addstr(sb, "</title>\n");
	hws_strbuf__addstr(sb, page_style);
	hws_strbuf__addstr(sb, "</head>\n<body>\n<h1>hwsample report: ");
	add_name(sb, o.title ? o.title : "report");
	hws_strbuf__addf(sb,
			 "</h1>\n<p class=\"meta\" id=\"summary\"># hwsample report: %" PRIu64
			 " samples, total period %" PRIu64 "</p>\n",
			 v.nr_samples, v.total_period);
	hws_strbuf__addstr(sb, "<nav><a href=\"#s-counts\">loss</a><a "
			       "href=\"#s-top-functions\">functions</a><a "
			       "href=\"#s-top-objects\">objects</a><a "
			       "href=\"#s-data-source\">data source</a><a "
			       "href=\"#s-latency\">latency</a><a href=\"#s-heatmap\">access "
			       "pattern</a></nav>\n");
	if (o.c2c_href) {
		section(sb, "s-c2c", "Cache-line contention (c2c)");
		hws_strbuf__addf(sb, "<p id=\"c2c\">%u contended cache lines: <a href=\"",
				 o.c2c_lines);
		hws__html_add(sb, o.c2c_href);
		hws_strbuf__addstr(sb, "\">");
		add_name(sb, o.c2c_href);
		hws_strbuf__addstr(sb, "</a> (hwsample c2c report)</p>\n");
	}
	err = render_counts(r, &v, sb);
	if (!err)
		err = render_top(r, syms, &v, sb, false, true);
	if (!err)
		err = render_top(r, syms, &v, sb, false, false);
	if (!err)
		err = render_top(r, syms, &v, sb, true, true);
	if (!err)
		err = render_top(r, syms, &v, sb, true, false);
	if (!err)
		err = render_data_src(&v, sb);
	if (!err)
		render_latency(r, &v, sb);
	if (!err)
		err = render_heat(&v, sb);
	hws_strbuf__addstr(sb, "</body></html>\n");
	if (err)
		return err;
	return sb->toobig ? HWS_E_TOO_BIG : 0;
}
