// SPDX-License-Identifier: MIT
/*
 * intel_pebs decoding: the sample fields the kernel built from a PEBS record (precise IP,
 * ADDR, WEIGHT / WEIGHT_STRUCT, DATA_SRC, PHYS_ADDR, page sizes) -> struct hws_sample.
 *
 * Meaning (Linux arch/x86/events/intel/ds.c and include/uapi/linux/perf_event.h):
 *  - ip is the sampled instruction itself only when the record says so
 *    (PERF_RECORD_MISC_EXACT_IP: precise_ip >= 2, or fmt >= 2 eventing IP);
 *  - WEIGHT_STRUCT: var1_dw (bits 0-31) = cache/memory latency -> lat_total,
 *    var2_w (bits 32-47) = instruction latency -> lat_ins, var3_w (48-63) = retire latency
 *    (raw only). The kernel writes the union so that, as a u64 in host order, var1 is
 *    always the low 32 bits, on either endianness. Plain WEIGHT: the whole u64 is the
 *    load latency -> lat_total (saturated to u32);
 *  - addr / phys_addr are valid when non-zero (the kernel writes 0 when PEBS gave none);
 *  - data_src is perf_mem_data_src, normalized by core's host->data_src_normalize and
 *    kept raw.
 * Invariant: pure; reads only @rec, never allocates, never fails on any bit pattern.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hwsample/fmt.h>

#include "pebs_priv.h"

#define MISC_EXACT_IP (1U << 14) /* PERF_RECORD_MISC_EXACT_IP */

int pebs_decode(struct pebs_priv *p, const struct hws_file_info *fi,
		const struct hws_record_sample *rec, struct hws_sample *out)
{
	uint64_t st = rec->sample_type, w = rec->weight;
	uint64_t f = out->fields & ~(uint64_t)(HWS_SF_ADDR | HWS_SF_PHYS_ADDR);
	uint16_t misc = rec->misc;

	/* @f holds out->fields until the end: the stores to @out cannot change it */
	out->backend = "intel_pebs";
	if (st & PERF_SAMPLE_IP) {
		out->ip = rec->ip;
		f |= HWS_SF_IP;
		out->ip_precise = (misc & MISC_EXACT_IP) ? 1 : 0;
	}
	out->cpumode = (uint8_t)(misc & PERF_RECORD_MISC_CPUMODE_MASK);
	if ((st & PERF_SAMPLE_ADDR) && rec->addr) {
		out->addr = rec->addr;
		f |= HWS_SF_ADDR;
	}
	if ((st & PERF_SAMPLE_PHYS_ADDR) && rec->phys_addr) {
		out->phys_addr = rec->phys_addr;
		f |= HWS_SF_PHYS_ADDR;
	}

	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		out->weight = w;
		f |= HWS_SF_WEIGHT;
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			uint32_t var1 = (uint32_t)w;
			uint16_t var2 = (uint16_t)(w >> 32);

			if (var1) {
				out->lat_total = var1;
				f |= HWS_SF_LAT_TOTAL;
			}
			if (var2) {
				out->lat_ins = var2;
				f |= HWS_SF_LAT_INS;
			}
		} else if (w) {
			out->lat_total = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
			f |= HWS_SF_LAT_TOTAL;
		}
	}

	if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) && rec->data_page_size) {
		out->data_page_size = rec->data_page_size;
		f |= HWS_SF_DATA_PAGE_SIZE;
	}
	if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) && rec->code_page_size) {
		out->code_page_size = rec->code_page_size;
		f |= HWS_SF_CODE_PAGE_SIZE;
	}
	out->fields = f;
	/* core normalizes data_src with the generic fields; only a sample core left without it
	 * (an older core, or a caller filling @out by hand) needs it here */
	if ((st & PERF_SAMPLE_DATA_SRC) && rec->data_src &&
	    !((f & HWS_SF_DATA_SRC) && out->data_src == rec->data_src))
		p->host->data_src_normalize(rec->data_src, out);
	return 0;
}

/* Small append-only text buffer on the stack: raw_json formats without printf (it runs once
 * per sample in dump --raw) and hands core one finished string. */
struct tbuf {
	char *b;
	size_t n, cap;
	int over;
};

static void t_mem(struct tbuf *t, const char *s, size_t l)
{
	if (t->n + l >= t->cap) {
		t->over = 1;
		return;
	}
	memcpy(t->b + t->n, s, l);
	t->n += l;
	t->b[t->n] = '\0';
}

static void t_str(struct tbuf *t, const char *s)
{
	t_mem(t, s, strlen(s));
}

/* numbers by <hwsample/fmt.h>'s writers, through a buffer with their slack */
static void t_u64(struct tbuf *t, uint64_t v)
{
	char d[HWS_FMT_U64_MAX];

	t_mem(t, d, (size_t)(hws_fmt__u64(d, v) - d));
}

static void t_hex(struct tbuf *t, uint64_t v) /* 0x... */
{
	char d[HWS_FMT_HEX_MAX];

	t_mem(t, d, (size_t)(hws_fmt__hex(d, v) - d));
}

/* {"mem_op":["LOAD"],"mem_lvl":["HIT","L1"],...,"mem_lvl_num":"L1"}; zero fields left out.
 * Every name is a fixed identifier, so no JSON escaping is needed. */
static void data_src_text(uint64_t v, struct tbuf *t)
{
	size_t i;
	int first = 1;

	t_str(t, "{");
	for (i = 0; i < pebs_nr_ds_fields; i++) {
		const struct pebs_ds_field *f = &pebs_ds_fields[i];
		uint64_t x = (v >> f->shift) & ((1ULL << f->width) - 1);
		unsigned int b, k = 0;

		if (!x)
			continue;
		t_str(t, first ? "\"" : ",\"");
		t_str(t, f->name);
		t_str(t, "\":");
		first = 0;
		if (f->vals) {
			t_str(t, "\"");
			t_str(t, x < f->nr_vals ? f->vals[x] : "?");
			t_str(t, "\"");
			continue;
		}
		t_str(t, "[");
		for (b = 0; b < f->width; b++) {
			const char *nm = NULL;
			unsigned int j;

			if (!(x & (1ULL << b)))
				continue;
			for (j = 0; j <= b && f->bits[j]; j++)
				nm = j == b ? f->bits[j] : NULL;
			t_str(t, k++ ? ",\"" : "\"");
			if (nm) {
				t_str(t, nm);
			} else {
				t_str(t, "bit");
				t_u64(t, b);
			}
			t_str(t, "\"");
		}
		t_str(t, "]");
	}
	t_str(t, "}");
}

int pebs_data_src_json(const struct hws_host *host, uint64_t v, struct hws_strbuf *out)
{
	char buf[768];
	struct tbuf t = {buf, 0, sizeof(buf), 0};

	buf[0] = '\0';
	data_src_text(v, &t);
	return t.over ? HWS_E_TOO_BIG : host->strbuf_addf(out, "%s", buf);
}

int pebs_raw_json(struct pebs_priv *p, const struct hws_file_info *fi, const struct hws_sample *s,
		  struct hws_strbuf *out)
{
	char buf[1024];
	struct tbuf t = {buf, 0, sizeof(buf), 0};
	const char *sep = "";

	buf[0] = '\0';
	t_str(&t, "{");
	if (s->fields & HWS_SF_WEIGHT) {
		t_str(&t, "\"weight\":");
		t_u64(&t, s->weight);
		t_str(&t, ",\"var1\":");
		t_u64(&t, (uint32_t)s->weight);
		t_str(&t, ",\"var2\":");
		t_u64(&t, (uint16_t)(s->weight >> 32));
		t_str(&t, ",\"var3\":");
		t_u64(&t, (uint16_t)(s->weight >> 48));
		sep = ",";
	}
	if (s->fields & HWS_SF_DATA_SRC) {
		struct pebs_ds_cache *c = &p->ds_cache[(s->data_src * 0x9E3779B97F4A7C15ULL) >>
						       (64 - PEBS_DS_CACHE_BITS)];

		t_str(&t, sep);
		t_str(&t, "\"data_src\":\"");
		t_hex(&t, s->data_src);
		t_str(&t, "\",\"data_src_fields\":");
		/* data_src values repeat (the kernel builds them from small tables) */
		if (!c->len || c->key != s->data_src) {
			struct tbuf ct = {c->text, 0, sizeof(c->text), 0};

			c->text[0] = '\0';
			data_src_text(s->data_src, &ct);
			c->len = ct.over ? 0 : (uint16_t)ct.n;
			c->key = s->data_src;
			if (ct.over)
				data_src_text(s->data_src, &t);
		}
		if (c->len)
			t_mem(&t, c->text, c->len);
		sep = ",";
	}
	if (s->fields & HWS_SF_DATA_PAGE_SIZE) {
		t_str(&t, sep);
		t_str(&t, "\"data_page_size\":");
		t_u64(&t, s->data_page_size);
		sep = ",";
	}
	if (s->fields & HWS_SF_CODE_PAGE_SIZE) {
		t_str(&t, sep);
		t_str(&t, "\"code_page_size\":");
		t_u64(&t, s->code_page_size);
	}
	t_str(&t, "}");
	if (t.over)
		return HWS_E_TOO_BIG;
	return p->host->strbuf_addf(out, "%s", buf);
}
