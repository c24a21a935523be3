// SPDX-License-Identifier: MIT
/*
 * c2c text report (c2c report --stdio): perf c2c report's sections (trace event
 * information, shared cache line table, per-line pareto with the rows of the top lines)
 * plus hwsample's verdicts (class, confidence, evidence, false/true-sharing offsets, who
 * writes and reads each offset); with opts.callchain, the call paths of each line and, below
 * each row, of the row (as perf c2c report -g: percent of the line's period, caller first).
 *
 * Invariants: reads the finished object through the public accessors (and its totals);
 * with an output function the text goes out in pieces as it is made (c2c_out_drain), so
 * its size has no bound.
 */
#include <stdint.h>

#include <hwsample/c2c.h>

#include "analysis/c2c_int.h"

static double pctf(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void offsets_text(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i, bool fls)
{
	if (!c2c_sharing_offsets(sb, c, i, fls, true))
		hws_strbuf__addstr(sb, "-");
}

/* "tid(n)" lists of writers or readers of one offset */
static void who_text(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i, uint32_t j0,
		     uint32_t j1, bool writers)
{
	struct hws_c2c_entry_info e;
	uint32_t j, k, nr = 0;
	struct {
		uint32_t tid;
		uint64_t n;
	} who[16];

	for (j = j0; j < j1; j++) {
		uint64_t n;

		hws_c2c__entry(c, i, j, &e);
		n = writers ? e.st.stores + e.st.rmw : e.st.loads;
		if (!n)
			continue;
		for (k = 0; k < nr; k++)
			if (who[k].tid == e.tid)
				break;
		if (k == nr) {
			if (nr == 16)
				continue;
			who[nr].tid = e.tid;
			who[nr++].n = 0;
		}
		who[k].n += n;
	}
	if (!nr) {
		hws_strbuf__addstr(sb, "-");
		return;
	}
	for (k = 0; k < nr; k++)
		hws_strbuf__addf(sb, "%s%d(%llu)", k ? " " : "", (int)who[k].tid,
				 (unsigned long long)who[k].n);
}

/*
 * Strings from the file (symbols, source lines, evidence naming them) for the terminal:
 * as they are when they hold no control character, else escaped
 * (hws_strbuf__add_text_str()) into one of TX_SLOTS scratch buffers, valid for the next
 * TX_SLOTS - 1 calls (one line of the report uses at most four).
 */
#define TX_SLOTS 4
struct tx {
	struct hws_strbuf b[TX_SLOTS];
	unsigned int next;
};

static const char *tx(struct tx *t, const char *s)
{
	struct hws_strbuf *b;

	if (!s || hws_strbuf__text_plain(s))
		return s;
	b = &t->b[t->next];
	t->next = (t->next + 1) % TX_SLOTS;
	hws_strbuf__reset(b);
	if (hws_strbuf__add_text_str(b, s) || !b->buf)
		return "?";
	return b->buf;
}

/* opts.names: "[object +off] {type +off (field)} " of row @e */
static void names_text(struct hws_strbuf *sb, const struct hws_c2c_entry_info *e, struct tx *t)
{
	if (e->object)
		hws_strbuf__addf(sb, "%s +%llu  ", tx(t, e->object),
				 (unsigned long long)e->object_offset);
	if (e->type)
		hws_strbuf__addf(sb, "%s %+lld (%s)  ", tx(t, e->type), (long long)e->type_offset,
				 e->field ? tx(t, e->field) : "no field");
}

/* the call paths of row @j (or the line) of line @i, one a line: percent of the line's
 * period (perf c2c report -g's default value), samples, path caller first */
static void chains_text(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i, uint32_t j,
			struct tx *t, const char *indent)
{
	struct hws_c2c_chain_info ch;
	uint32_t k, n = hws_c2c__nr_chains(c, i, j);

	for (k = 0; k < n; k++) {
		hws_c2c__chain(c, i, j, k, &ch);
		hws_strbuf__addf(sb, "%s%6.2f%% %7llu  %s\n", indent,
				 pctf(ch.period, ch.line_period), (unsigned long long)ch.samples,
				 tx(t, ch.path));
	}
}

static void tx_release(struct tx *t)
{
	for (unsigned int i = 0; i < TX_SLOTS; i++)
		hws_strbuf__release(&t->b[i]);
}

int hws_c2c__render_stdio(const struct hws_c2c *c, struct hws_strbuf *sb)
{
	const struct hws_c2c_stats *t = hws_c2c__totals(c);
	struct hws_c2c_stats tt = *t;
	struct hws_c2c_line_info li;
	struct hws_c2c_entry_info e;
	uint64_t shared = 0, sh_hitm = 0, sh_peer = 0, tot_hitm = tt.lcl_hitm + tt.rmt_hitm;
	uint32_t i, j, nfs = 0, nts = 0, nmx = 0, nun = 0;
	const char *bar = "=================================================\n";
	struct tx tb = {0};
	int k;

	for (i = 0; i < c->nr_report; i++) {
		hws_c2c__line(c, i, &li);
		if (!c2c_contended(li.cls))
			continue;
		shared++;
		sh_hitm += li.st.lcl_hitm + li.st.rmt_hitm;
		sh_peer += li.st.lcl_peer + li.st.rmt_peer;
		nfs += li.cls == HWS_C2C_FALSE_SHARING;
		nts += li.cls == HWS_C2C_TRUE_SHARING;
		nmx += li.cls == HWS_C2C_MIXED;
		nun += li.cls == HWS_C2C_UNRESOLVED;
	}
	hws_strbuf__addf(sb, "%s            Trace Event Information\n%s", bar, bar);
	hws_strbuf__addf(sb, "  Total records                     : %10llu\n",
			 (unsigned long long)tt.records);
	hws_strbuf__addf(sb, "  Locked Load/Store Operations      : %10llu\n",
			 (unsigned long long)tt.locks);
	hws_strbuf__addf(sb, "  Load Operations                   : %10llu\n",
			 (unsigned long long)tt.loads);
	hws_strbuf__addf(sb, "  Loads - uncacheable / IO          : %10llu / %llu\n",
			 (unsigned long long)tt.ld_uncache, (unsigned long long)tt.ld_io);
	hws_strbuf__addf(sb, "  Loads - L1 / LFB / L2 hit         : %10llu / %llu / %llu\n",
			 (unsigned long long)tt.ld_l1hit, (unsigned long long)tt.ld_fbhit,
			 (unsigned long long)tt.ld_l2hit);
	hws_strbuf__addf(sb, "  Load LLC hit (incl. local HITM)   : %10llu\n",
			 (unsigned long long)(tt.ld_llchit + tt.lcl_hitm));
	hws_strbuf__addf(sb, "  Load Local HITM                   : %10llu\n",
			 (unsigned long long)tt.lcl_hitm);
	hws_strbuf__addf(sb, "  Load Remote HITM                  : %10llu\n",
			 (unsigned long long)tt.rmt_hitm);
	hws_strbuf__addf(sb, "  Load Local / Remote Peer          : %10llu / %llu\n",
			 (unsigned long long)tt.lcl_peer, (unsigned long long)tt.rmt_peer);
	hws_strbuf__addf(sb, "  Load Remote cache hit             : %10llu\n",
			 (unsigned long long)tt.rmt_hit);
	hws_strbuf__addf(sb, "  Load Local / Remote DRAM          : %10llu / %llu\n",
			 (unsigned long long)tt.lcl_dram, (unsigned long long)tt.rmt_dram);
	hws_strbuf__addf(sb, "  Store Operations                  : %10llu\n",
			 (unsigned long long)tt.stores);
	hws_strbuf__addf(sb, "  Store - L1 hit / L1 miss / N/A    : %10llu / %llu / %llu\n",
			 (unsigned long long)tt.st_l1hit, (unsigned long long)tt.st_l1miss,
			 (unsigned long long)tt.st_na);
	hws_strbuf__addf(sb, "  No address (ignored)              : %10llu\n",
			 (unsigned long long)tt.noaddr);
	hws_strbuf__addf(sb, "  Other ops (not load/store)        : %10llu\n",
			 (unsigned long long)c->other);
	hws_strbuf__addf(sb, "  Cache line size                   : %10u (%s)\n", c->o.line_size,
			 c->o.line_size_source);
	hws_strbuf__addstr(sb, "  Coherence evidence from           :");
	if (!c->src_seen)
		hws_strbuf__addstr(sb, " none (no HITM or peer snoop in the data)");
	for (k = 0; k < c->nr_src; k++)
		if (c->src_seen & (1U << c->src_order[k]))
			hws_strbuf__addf(sb, " %s (%llu)", c->src_name[c->src_order[k]],
					 (unsigned long long)c->src_count[c->src_order[k]]);
	hws_strbuf__addstr(sb, "\n");
	if (!tt.records)
		hws_strbuf__addstr(
		    sb, "  Note: no load or store samples: record memory samples with data "
			"sources (hwsample c2c record, perf c2c record, perf mem record)\n");
	hws_strbuf__addstr(sb, "\n");
	hws_strbuf__addf(sb, "%s    Global Shared Cache Line Event Information\n%s", bar, bar);
	hws_strbuf__addf(sb, "  Total Shared Cache Lines          : %10llu\n",
			 (unsigned long long)shared);
	hws_strbuf__addf(sb, "  HITM on shared lines              : %10llu (of %llu)\n",
			 (unsigned long long)sh_hitm, (unsigned long long)tot_hitm);
	hws_strbuf__addf(sb, "  Peer snoops on shared lines       : %10llu (of %llu)\n",
			 (unsigned long long)sh_peer,
			 (unsigned long long)(tt.lcl_peer + tt.rmt_peer));
	hws_strbuf__addf(sb, "  False / true / mixed / unresolved : %10u / %u / %u / %u\n", nfs,
			 nts, nmx, nun);
	hws_strbuf__addstr(sb, "\n");

	hws_strbuf__addf(sb, "%s           Shared Data Cache Line Table\n%s", bar, bar);
	hws_strbuf__addf(sb,
			 "#\n# %5s %18s %6s %6s %6s %6s %6s %6s %8s %7s %7s %6s %6s %6s "
			 "%7s %6s %6s %3s %3s %5s  %-14s %-11s %s\n",
			 "Index", "Cacheline", "Hitm%", "Tot", "LclHtm", "RmtHtm", "Peer", "RmtCc",
			 "Records", "Loads", "Stores", "L1Hit", "L1Miss", "N/A", "LatAvg", "p50",
			 "p99", "Thr", "Cpu", "Nodes", "Class", "Confidence", "Evidence");
	hws_strbuf__addf(sb, "#%s\n",
			 "  ......................................................."
			 "...............................................");
	for (i = 0; i < c->nr_report; i++) {
		uint64_t h;

		hws_c2c__line(c, i, &li);
		h = li.st.lcl_hitm + li.st.rmt_hitm;
		hws_strbuf__addf(
		    sb,
		    "  %5u %#18llx %5.2f%% %6llu %6llu %6llu %6llu %6llu %8llu %7llu "
		    "%7llu %6llu %6llu %6llu %7.1f %6u %6u %3u %3u %5u  %-14s "
		    "%4.2f %-6s %s\n",
		    i, (unsigned long long)li.addr, pctf(h, tot_hitm), (unsigned long long)h,
		    (unsigned long long)li.st.lcl_hitm, (unsigned long long)li.st.rmt_hitm,
		    (unsigned long long)(li.st.lcl_peer + li.st.rmt_peer),
		    (unsigned long long)li.st.rmt_hit, (unsigned long long)li.st.records,
		    (unsigned long long)li.st.loads, (unsigned long long)li.st.stores,
		    (unsigned long long)li.st.st_l1hit, (unsigned long long)li.st.st_l1miss,
		    (unsigned long long)li.st.st_na, c2c_mean(li.st.lat_sum, li.st.lat_n),
		    li.lat_p50, li.lat_p99, li.nr_threads, li.nr_cpus, li.nr_nodes,
		    hws_c2c_class__name(li.cls), li.confidence, c2c_conf_label(li.confidence),
		    tx(&tb, li.evidence_text));
		c2c_out_drain(c, sb);
	}
	hws_strbuf__addstr(sb, "\n");

	hws_strbuf__addf(sb, "%s      Shared Cache Line Distribution Pareto\n%s", bar, bar);
	for (i = 0; i < c->nr_report && i < c->o.top; i++) {
		uint32_t n = hws_c2c__nr_entries(c, i), j0;

		hws_c2c__line(c, i, &li);
		hws_strbuf__addstr(sb,
				   "  ----------------------------------------------------------"
				   "---------------------------------\n");
		hws_strbuf__addf(
		    sb, "  %5u  %#llx  pid %d  %s%s  class: %s  confidence %.2f (%s)\n", i,
		    (unsigned long long)li.addr, (int)li.pid, li.data_symbol ? "data: " : "",
		    li.data_symbol ? tx(&tb, li.data_symbol) : "", hws_c2c_class__name(li.cls),
		    li.confidence, c2c_conf_label(li.confidence));
		hws_strbuf__addf(sb, "         evidence: %s\n", tx(&tb, li.evidence_text));
		if (li.sharing_text)
			hws_strbuf__addf(sb, "         %s\n", tx(&tb, li.sharing_text));
		hws_strbuf__addstr(sb, "         false-sharing offsets: ");
		offsets_text(sb, c, i, true);
		hws_strbuf__addstr(sb, "   true-sharing offsets: ");
		offsets_text(sb, c, i, false);
		hws_strbuf__addf(sb,
				 "\n         latency cycles: mean %.1f p50 %u p90 %u p99 %u "
				 "(%llu loads)\n",
				 c2c_mean(li.st.lat_sum, li.st.lat_n), li.lat_p50, li.lat_p90,
				 li.lat_p99, (unsigned long long)li.st.lat_n);
		if (hws_c2c__nr_chains(c, i, HWS_C2C_LINE)) {
			hws_strbuf__addstr(sb, "         call paths (% of the line's period, "
					       "samples, caller first):\n");
			chains_text(sb, c, i, HWS_C2C_LINE, &tb, "         ");
		}
		/* per offset: writers and readers */
		for (j0 = 0; j0 < n; j0 = j) {
			hws_c2c__entry(c, i, j0, &e);
			for (j = j0 + 1; j < n; j++) {
				struct hws_c2c_entry_info f;

				hws_c2c__entry(c, i, j, &f);
				if (f.offset != e.offset)
					break;
			}
			hws_strbuf__addf(sb, "         off 0x%-4x %-24s ", e.offset,
					 e.data_symbol ? tx(&tb, e.data_symbol) : "");
			if (e.object || e.type)
				names_text(sb, &e, &tb);
			hws_strbuf__addstr(sb, "writers: ");
			who_text(sb, c, i, j0, j, true);
			hws_strbuf__addstr(sb, "  readers: ");
			who_text(sb, c, i, j0, j, false);
			hws_strbuf__addstr(sb, "\n");
		}
		hws_strbuf__addf(sb, "  ----------------------------------------------------------"
				     "---------------------------------\n");
		hws_strbuf__addf(sb,
				 "  %7s %7s %7s %5s %7s %7s %7s %6s %7s %7s %18s %8s %8s %8s "
				 "%6s %4s  %-28s %s\n",
				 "LclHitm", "RmtHitm", "Peer", "Share", "L1Hit", "L1Miss", "N/A",
				 "Off", "Pid", "Tid", "Code address", "cyc-lhtm", "cyc-rhtm",
				 "cyc-load", "Recs", "Cpu", "Symbol", "Source:Line  [data]");
		for (j = 0; j < n; j++) {
			hws_c2c__entry(c, i, j, &e);
			hws_strbuf__addf(
			    sb,
			    "  %6.1f%% %6.1f%% %6.1f%% %5s %6.1f%% %6.1f%% %6.1f%% %#6x %7d "
			    "%7d %#18llx %8.0f %8.0f %8.0f %6llu %4u  %-28s %s%s%s%s\n",
			    pctf(e.st.lcl_hitm, li.st.lcl_hitm),
			    pctf(e.st.rmt_hitm, li.st.rmt_hitm),
			    pctf(e.st.lcl_peer + e.st.rmt_peer, li.st.lcl_peer + li.st.rmt_peer),
			    e.in_false && e.in_true ? "F+T"
			    : e.in_false	    ? "false"
			    : e.in_true		    ? "true"
						    : "-",
			    pctf(e.st.st_l1hit, li.st.st_l1hit),
			    pctf(e.st.st_l1miss, li.st.st_l1miss), pctf(e.st.st_na, li.st.st_na),
			    e.offset, (int)e.pid, (int)e.tid, (unsigned long long)e.ip,
			    c2c_mean(e.st.lcl_hitm_lat, e.st.lcl_hitm),
			    c2c_mean(e.st.rmt_hitm_lat, e.st.rmt_hitm),
			    c2c_mean(e.st.lat_sum, e.st.lat_n), (unsigned long long)e.st.records,
			    e.nr_cpus, e.symbol ? tx(&tb, e.symbol) : "[unknown]",
			    e.srcline ? tx(&tb, e.srcline) : "", e.data_symbol ? "  [" : "",
			    e.data_symbol ? tx(&tb, e.data_symbol) : "", e.data_symbol ? "]" : "");
			chains_text(sb, c, i, j, &tb, "            ");
			c2c_out_drain(c, sb);
		}
		c2c_out_drain(c, sb);
	}
	tx_release(&tb);
	return c2c_out_result(c, sb);
}
