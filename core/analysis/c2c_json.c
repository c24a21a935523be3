// SPDX-License-Identifier: MIT
/*
 * c2c JSON report (c2c report --json, and the data of the HTML page): totals, evidence
 * sources, and per line its verdict, evidence, stats, latency, offsets (writers and readers
 * per offset) and rows; with opts.callchain the call paths of each line and row
 * ("callchains": path caller first, samples, period, percent of the line's period).
 *
 * Invariants: reads the finished object through the public accessors; every string goes
 * through hws_strbuf__add_json_str; "offsets" and "entries" only for the first @detail
 * lines; streamed to the output function in pieces unless rendered for the HTML page.
 */
#include <stdlib.h>

#include <hwsample/c2c.h>

#include "analysis/c2c_int.h"

static void json_stats(struct hws_strbuf *sb, const struct hws_c2c_stats *s)
{
	hws_strbuf__addf(
	    sb,
	    "\"records\":%llu,\"loads\":%llu,\"stores\":%llu,\"locks\":%llu,"
	    "\"hitm\":{\"total\":%llu,\"local\":%llu,\"remote\":%llu},"
	    "\"peer\":{\"total\":%llu,\"local\":%llu,\"remote\":%llu},\"remote_cache_hit\":%llu,"
	    "\"load_hits\":{\"lfb\":%llu,\"l1\":%llu,\"l2\":%llu,\"llc\":%llu,"
	    "\"local_dram\":%llu,\"remote_dram\":%llu,\"uncached\":%llu,\"io\":%llu},"
	    "\"store\":{\"l1_hit\":%llu,\"l1_miss\":%llu,\"na\":%llu},\"rmw\":%llu",
	    (unsigned long long)s->records, (unsigned long long)s->loads,
	    (unsigned long long)s->stores, (unsigned long long)s->locks,
	    (unsigned long long)(s->lcl_hitm + s->rmt_hitm), (unsigned long long)s->lcl_hitm,
	    (unsigned long long)s->rmt_hitm, (unsigned long long)(s->lcl_peer + s->rmt_peer),
	    (unsigned long long)s->lcl_peer, (unsigned long long)s->rmt_peer,
	    (unsigned long long)s->rmt_hit, (unsigned long long)s->ld_fbhit,
	    (unsigned long long)s->ld_l1hit, (unsigned long long)s->ld_l2hit,
	    (unsigned long long)s->ld_llchit, (unsigned long long)s->lcl_dram,
	    (unsigned long long)s->rmt_dram, (unsigned long long)s->ld_uncache,
	    (unsigned long long)s->ld_io, (unsigned long long)s->st_l1hit,
	    (unsigned long long)s->st_l1miss, (unsigned long long)s->st_na,
	    (unsigned long long)s->rmw);
}

/* ,"callchains":[{"path","frames","samples","period","percent"}...] of row @j (or the line)
 * of line @i, when the c2c keeps call chains */
static void json_chains(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i, uint32_t j)
{
	struct hws_c2c_chain_info ch;
	uint32_t k, n;

	if (!c->o.callchain)
		return;
	n = hws_c2c__nr_chains(c, i, j);
	hws_strbuf__addstr(sb, ",\"callchains\":[");
	for (k = 0; k < n; k++) {
		hws_c2c__chain(c, i, j, k, &ch);
		hws_strbuf__addstr(sb, k ? ",{\"path\":" : "{\"path\":");
		hws_strbuf__add_json_str(sb, ch.path);
		hws_strbuf__addf(
		    sb,
		    ",\"frames\":%u,\"samples\":%llu,\"period\":%llu,"
		    "\"percent\":%.4f}",
		    ch.nr_frames, (unsigned long long)ch.samples, (unsigned long long)ch.period,
		    ch.line_period ? 100.0 * (double)ch.period / (double)ch.line_period : 0.0);
	}
	hws_strbuf__addstr(sb, "]");
}

static void json_str_or_null(struct hws_strbuf *sb, const char *s)
{
	if (s)
		hws_strbuf__add_json_str(sb, s);
	else
		hws_strbuf__addstr(sb, "null");
}

static void json_offsets(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i, bool fls)
{
	hws_strbuf__addstr(sb, "[");
	c2c_sharing_offsets(sb, c, i, fls, false);
	hws_strbuf__addstr(sb, "]");
}

/*
 * who: "writers" or "readers" of rows [j0, j1) (one offset) as [{pid,tid,samples}], threads in
 * the order of their first row; linear in the rows (threads found through a hash table).
 */
static void json_who(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i, uint32_t j0,
		     uint32_t j1, bool writers)
{
	struct who {
		uint32_t pid, tid;
		uint64_t n;
	} *w = NULL;
	uint32_t j, nw = 0, hsz = 16, h, x, *ht = NULL;
	struct hws_c2c_entry_info e;
	const char *sep = "";

	while (hsz < 2 * (j1 - j0))
		hsz *= 2;
	w = malloc(sizeof(*w) * (j1 - j0 ? j1 - j0 : 1));
	ht = calloc(hsz, sizeof(*ht));
	if (!w || !ht) {
		sb->toobig = 1; /* out of memory: the report ends with HWS_E_TOO_BIG (incomplete) */
		goto out;
	}
	for (j = j0; j < j1; j++) {
		uint64_t key;

		hws_c2c__entry(c, i, j, &e);
		key = (uint64_t)e.pid << 32 | e.tid;
		for (h = (uint32_t)mix64(key) & (hsz - 1); (x = ht[h]); h = (h + 1) & (hsz - 1))
			if (w[x - 1].pid == e.pid && w[x - 1].tid == e.tid)
				break;
		if (!x) {
			w[nw].pid = e.pid;
			w[nw].tid = e.tid;
			w[nw].n = 0;
			ht[h] = x = ++nw;
		}
		w[x - 1].n += writers ? e.st.stores + e.st.rmw : e.st.loads;
	}
out:
	hws_strbuf__addstr(sb, "[");
	for (j = 0; j < nw; j++) {
		if (!w[j].n)
			continue;
		hws_strbuf__addf(sb, "%s{\"pid\":%d,\"tid\":%d,\"samples\":%llu}", sep,
				 (int)w[j].pid, (int)w[j].tid, (unsigned long long)w[j].n);
		sep = ",";
	}
	hws_strbuf__addstr(sb, "]");
	free(w);
	free(ht);
}

/* per offset: data symbol, sharing, writers and readers */
static void json_offset_summary(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i)
{
	uint32_t j0, j, n = hws_c2c__nr_entries(c, i);
	struct hws_c2c_entry_info e, f;
	bool fs, ts;

	for (j0 = 0; j0 < n; j0 = j) {
		hws_c2c__entry(c, i, j0, &e);
		fs = e.in_false, ts = e.in_true;
		for (j = j0 + 1; j < n; j++) {
			hws_c2c__entry(c, i, j, &f);
			if (f.offset != e.offset)
				break;
			fs |= f.in_false, ts |= f.in_true;
		}
		hws_strbuf__addf(sb, "%s{\"offset\":%u,\"sharing\":\"%s\",\"data_symbol\":",
				 j0 ? "," : "", e.offset,
				 fs && ts ? "both"
				 : fs	  ? "false"
				 : ts	  ? "true"
					  : "none");
		json_str_or_null(sb, e.data_symbol);
		hws_strbuf__addstr(sb, ",\"writers\":");
		json_who(sb, c, i, j0, j, true);
		hws_strbuf__addstr(sb, ",\"readers\":");
		json_who(sb, c, i, j0, j, false);
		hws_strbuf__addstr(sb, "}");
	}
}

static void json_tids(struct hws_strbuf *sb, const uint32_t *v, uint32_t n)
{
	uint32_t k;

	hws_strbuf__addstr(sb, "[");
	for (k = 0; k < n; k++)
		hws_strbuf__addf(sb, "%s%d", k ? "," : "", (int)v[k]);
	hws_strbuf__addstr(sb, "]");
}

/* opts.names: ,"sharing_text":"...","fields":[{label,type,field,type_offset,offset,object,
 * sharing,writers,readers}] of line @i */
static void json_fields(struct hws_strbuf *sb, const struct hws_c2c *c, uint32_t i,
			const struct hws_c2c_line_info *li)
{
	struct hws_c2c_field_info f;
	uint32_t k;

	if (!c->o.names)
		return;
	hws_strbuf__addstr(sb, ",\"sharing_text\":");
	json_str_or_null(sb, li->sharing_text);
	hws_strbuf__addstr(sb, ",\"fields\":[");
	for (k = 0; k < li->nr_fields; k++) {
		hws_c2c__field(c, i, k, &f);
		hws_strbuf__addstr(sb, k ? ",{\"label\":" : "{\"label\":");
		json_str_or_null(sb, f.label);
		hws_strbuf__addstr(sb, ",\"type\":");
		json_str_or_null(sb, f.type);
		hws_strbuf__addstr(sb, ",\"field\":");
		json_str_or_null(sb, f.field);
		hws_strbuf__addf(sb, ",\"type_offset\":%lld,\"offset\":%u,\"object\":",
				 (long long)f.type_offset, f.offset);
		json_str_or_null(sb, f.object);
		hws_strbuf__addf(sb, ",\"sharing\":\"%s\",\"writers\":",
				 f.in_false && f.in_true ? "both"
				 : f.in_false		 ? "false"
				 : f.in_true		 ? "true"
							 : "none");
		json_tids(sb, f.writers, f.nr_writers);
		hws_strbuf__addstr(sb, ",\"readers\":");
		json_tids(sb, f.readers, f.nr_readers);
		hws_strbuf__addstr(sb, "}");
	}
	hws_strbuf__addstr(sb, "]");
}

int hws_c2c__render_json(const struct hws_c2c *c, struct hws_strbuf *sb)
{
	return hws_c2c__render_json_top(c, sb, UINT32_MAX);
}

int hws_c2c__render_json_top(const struct hws_c2c *c, struct hws_strbuf *sb, uint32_t detail)
{
	return hws__c2c_render_json(c, sb, detail, true);
}

int hws__c2c_render_json(const struct hws_c2c *c, struct hws_strbuf *sb, uint32_t detail,
			 bool stream)
{
	const struct hws_c2c_stats *t = hws_c2c__totals(c);
	struct hws_c2c_line_info li;
	struct hws_c2c_entry_info e;
	uint32_t i, j, n;
	const char *sep;
	int k;

	hws_strbuf__addf(sb, "{\"line_size\":%u,\"line_size_source\":", c->o.line_size);
	hws_strbuf__add_json_str(sb, c->o.line_size_source);
	hws_strbuf__addstr(sb, ",\"totals\":{");
	json_stats(sb, t);
	hws_strbuf__addf(sb,
			 ",\"no_address\":%llu,\"other_ops\":%llu,\"lines_seen\":%u},"
			 "\"evidence_sources\":[",
			 (unsigned long long)t->noaddr, (unsigned long long)c->other, c->nr_lines);
	for (sep = "", k = 0; k < c->nr_src; k++) {
		uint32_t s = c->src_order[k];

		if (!(c->src_seen & (1U << s)))
			continue;
		hws_strbuf__addf(sb, "%s{\"source\":", sep);
		hws_strbuf__add_json_str(sb, c->src_name[s]);
		hws_strbuf__addf(sb, ",\"samples\":%llu}", (unsigned long long)c->src_count[s]);
		sep = ",";
	}
	hws_strbuf__addstr(sb, "],\"lines\":[");
	for (i = 0; i < c->nr_report; i++) {
		hws_c2c__line(c, i, &li);
		hws_strbuf__addf(
		    sb,
		    "%s{\"index\":%u,\"address\":\"%#llx\",\"pid\":%d,\"class\":\"%s\","
		    "\"confidence\":%.3f,\"confidence_label\":\"%s\",\"evidence\":[",
		    i ? "," : "", i, (unsigned long long)li.addr, (int)li.pid,
		    hws_c2c_class__name(li.cls), li.confidence, c2c_conf_label(li.confidence));
		sep = "";
		if (li.evidence & HWS_C2C_EV_HITM)
			hws_strbuf__addstr(sb, "\"hitm\""), sep = ",";
		if (li.evidence & HWS_C2C_EV_PEER)
			hws_strbuf__addf(sb, "%s\"peer\"", sep), sep = ",";
		if (li.evidence & HWS_C2C_EV_RMT_CACHE)
			hws_strbuf__addf(sb, "%s\"remote_cache\"", sep), sep = ",";
		if (li.evidence & HWS_C2C_EV_ADDR)
			hws_strbuf__addf(sb, "%s\"address\"", sep);
		hws_strbuf__addstr(sb, "],\"evidence_text\":");
		hws_strbuf__add_json_str(sb, li.evidence_text);
		hws_strbuf__addstr(sb, ",\"data_symbol\":");
		json_str_or_null(sb, li.data_symbol);
		json_fields(sb, c, i, &li);
		hws_strbuf__addstr(sb, ",\"false_sharing_offsets\":");
		json_offsets(sb, c, i, true);
		hws_strbuf__addstr(sb, ",\"true_sharing_offsets\":");
		json_offsets(sb, c, i, false);
		hws_strbuf__addstr(sb, ",");
		json_stats(sb, &li.st);
		hws_strbuf__addf(sb,
				 ",\"latency\":{\"n\":%llu,\"mean\":%.1f,\"p50\":%u,\"p90\":%u,"
				 "\"p99\":%u,\"lcl_hitm_mean\":%.1f,\"rmt_hitm_mean\":%.1f},"
				 "\"threads\":%u,\"cpus\":%u,\"nodes\":[",
				 (unsigned long long)li.st.lat_n,
				 c2c_mean(li.st.lat_sum, li.st.lat_n), li.lat_p50, li.lat_p90,
				 li.lat_p99, c2c_mean(li.st.lcl_hitm_lat, li.st.lcl_hitm),
				 c2c_mean(li.st.rmt_hitm_lat, li.st.rmt_hitm), li.nr_threads,
				 li.nr_cpus);
		for (sep = "", k = 0; k < 64; k++)
			if (li.nodes & (1ULL << k))
				hws_strbuf__addf(sb, "%s%d", sep, k), sep = ",";
		hws_strbuf__addstr(sb, "]");
		if (i < detail)
			json_chains(sb, c, i, HWS_C2C_LINE);
		hws_strbuf__addstr(sb, ",\"offsets\":[");
		if (i < detail)
			json_offset_summary(sb, c, i);
		hws_strbuf__addstr(sb, "],\"entries\":[");
		n = i < detail ? hws_c2c__nr_entries(c, i) : 0;
		for (j = 0; j < n; j++) {
			hws_c2c__entry(c, i, j, &e);
			hws_strbuf__addf(sb,
					 "%s{\"offset\":%u,\"width\":%u,\"pid\":%d,\"tid\":%d,"
					 "\"ip\":\"%#llx\",\"sharing\":\"%s\",\"cpus\":%u,"
					 "\"symbol\":",
					 j ? "," : "", e.offset, e.width, (int)e.pid, (int)e.tid,
					 (unsigned long long)e.ip,
					 e.in_false && e.in_true ? "both"
					 : e.in_false		 ? "false"
					 : e.in_true		 ? "true"
								 : "none",
					 e.nr_cpus);
			json_str_or_null(sb, e.symbol);
			hws_strbuf__addstr(sb, ",\"dso\":");
			json_str_or_null(sb, e.dso);
			hws_strbuf__addstr(sb, ",\"srcline\":");
			json_str_or_null(sb, e.srcline);
			hws_strbuf__addstr(sb, ",\"data_symbol\":");
			json_str_or_null(sb, e.data_symbol);
			if (c->o.names) {
				hws_strbuf__addstr(sb, ",\"object\":");
				json_str_or_null(sb, e.object);
				hws_strbuf__addf(sb, ",\"object_offset\":%llu,\"type\":",
						 (unsigned long long)e.object_offset);
				json_str_or_null(sb, e.type);
				hws_strbuf__addstr(sb, ",\"field\":");
				json_str_or_null(sb, e.field);
				hws_strbuf__addf(sb, ",\"type_offset\":%lld",
						 (long long)e.type_offset);
			}
			hws_strbuf__addf(sb, ",\"latency_mean\":%.1f,",
					 c2c_mean(e.st.lat_sum, e.st.lat_n));
			json_stats(sb, &e.st);
			json_chains(sb, c, i, j);
			hws_strbuf__addstr(sb, "}");
			if (stream)
				c2c_out_drain(c, sb);
		}
		hws_strbuf__addstr(sb, "]}");
		if (stream)
			c2c_out_drain(c, sb);
	}
	hws_strbuf__addstr(sb, "]}\n");
	return stream ? c2c_out_result(c, sb) : sb->toobig ? HWS_E_TOO_BIG : 0;
}
