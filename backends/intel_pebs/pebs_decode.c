// SPDX-License-Identifier: MIT
/*
 * intel_pebs decoding: the sample fields the kernel built from a PEBS record (precise IP,
 * ADDR, WEIGHT / WEIGHT_STRUCT, DATA_SRC, PHYS_ADDR, page sizes) -> struct hws_sample.
 *
 * Meaning (perf-facts.md section 4):
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

#include "pebs_priv.h"

#define MISC_EXACT_IP (1U << 14) /* PERF_RECORD_MISC_EXACT_IP */

int pebs_decode(struct pebs_priv *p, const struct hws_file_info *fi,
		const struct hws_record_sample *rec, struct hws_sample *out)
{
	uint64_t st = rec->sample_type;

	out->backend = "intel_pebs";
	if (st & PERF_SAMPLE_IP) {
		out->ip = rec->ip;
		out->fields |= HWS_SF_IP;
		out->ip_precise = (rec->misc & MISC_EXACT_IP) ? 1 : 0;
	}
	out->cpumode = (uint8_t)(rec->misc & PERF_RECORD_MISC_CPUMODE_MASK);

	out->fields &= ~(uint64_t)HWS_SF_ADDR;
	if ((st & PERF_SAMPLE_ADDR) && rec->addr) {
		out->addr = rec->addr;
		out->fields |= HWS_SF_ADDR;
	}
	out->fields &= ~(uint64_t)HWS_SF_PHYS_ADDR;
	if ((st & PERF_SAMPLE_PHYS_ADDR) && rec->phys_addr) {
		out->phys_addr = rec->phys_addr;
		out->fields |= HWS_SF_PHYS_ADDR;
	}

	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		uint64_t w = rec->weight;

		out->weight = w;
		out->fields |= HWS_SF_WEIGHT;
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			uint32_t var1 = (uint32_t)w;
			uint16_t var2 = (uint16_t)(w >> 32);

			if (var1) {
				out->lat_total = var1;
				out->fields |= HWS_SF_LAT_TOTAL;
			}
			if (var2) {
				out->lat_ins = var2;
				out->fields |= HWS_SF_LAT_INS;
			}
		} else if (w) {
			out->lat_total = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
			out->fields |= HWS_SF_LAT_TOTAL;
		}
	}

	if ((st & PERF_SAMPLE_DATA_SRC) && rec->data_src)
		p->host->data_src_normalize(rec->data_src, out);

	if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) && rec->data_page_size) {
		out->data_page_size = rec->data_page_size;
		out->fields |= HWS_SF_DATA_PAGE_SIZE;
	}
	if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) && rec->code_page_size) {
		out->code_page_size = rec->code_page_size;
		out->fields |= HWS_SF_CODE_PAGE_SIZE;
	}
	return 0;
}

/* {"mem_op":["LOAD"],"mem_lvl":["HIT","L1"],...,"mem_lvl_num":"L1"} ; zero fields left out */
int pebs_data_src_json(const struct hws_host *host, uint64_t v, struct hws_strbuf *out)
{
	size_t i;
	int first = 1, ret = 0;

	ret |= host->strbuf_addf(out, "{"); /* a failed append leaves the buffer marked */
	for (i = 0; i < pebs_nr_ds_fields; i++) {
		const struct pebs_ds_field *f = &pebs_ds_fields[i];
		uint64_t x = (v >> f->shift) & ((1ULL << f->width) - 1);

		if (!x)
			continue;
		ret |= host->strbuf_addf(out, "%s\"%s\":", first ? "" : ",", f->name);
		first = 0;
		if (f->vals) {
			ret |= host->strbuf_add_json_str(out, x < f->nr_vals ? f->vals[x] : "?");
			continue;
		}
		ret |= host->strbuf_addf(out, "[");
		for (unsigned int b = 0, k = 0; b < f->width; b++) {
			const char *nm = NULL;
			unsigned int j;

			if (!(x & (1ULL << b)))
				continue;
			for (j = 0; j <= b && f->bits[j]; j++)
				nm = j == b ? f->bits[j] : NULL;
			if (nm)
				ret |= host->strbuf_addf(out, "%s\"%s\"", k ? "," : "", nm);
			else
				ret |= host->strbuf_addf(out, "%s\"bit%u\"", k ? "," : "", b);
			k++;
		}
		ret |= host->strbuf_addf(out, "]");
	}
	ret |= host->strbuf_addf(out, "}");
	return ret ? (out->toobig ? HWS_E_TOO_BIG : -ENOMEM) : 0;
}

int pebs_raw_json(struct pebs_priv *p, const struct hws_file_info *fi, const struct hws_sample *s,
		  struct hws_strbuf *out)
{
	const struct hws_host *h = p->host;
	const char *sep = "";
	int ret;

	ret = h->strbuf_addf(out, "{");
	if (!ret && (s->fields & HWS_SF_WEIGHT)) {
		ret = h->strbuf_addf(out, "\"weight\":%llu,\"var1\":%u,\"var2\":%u,\"var3\":%u",
				     (unsigned long long)s->weight, (unsigned int)(uint32_t)s->weight,
				     (unsigned int)(uint16_t)(s->weight >> 32),
				     (unsigned int)(uint16_t)(s->weight >> 48));
		sep = ",";
	}
	if (!ret && (s->fields & HWS_SF_DATA_SRC)) {
		ret = h->strbuf_addf(out, "%s\"data_src\":\"0x%llx\",\"data_src_fields\":", sep,
				     (unsigned long long)s->data_src);
		if (!ret)
			ret = pebs_data_src_json(h, s->data_src, out);
		sep = ",";
	}
	if (!ret && (s->fields & HWS_SF_DATA_PAGE_SIZE)) {
		ret = h->strbuf_addf(out, "%s\"data_page_size\":%llu", sep,
				     (unsigned long long)s->data_page_size);
		sep = ",";
	}
	if (!ret && (s->fields & HWS_SF_CODE_PAGE_SIZE))
		ret = h->strbuf_addf(out, "%s\"code_page_size\":%llu", sep,
				     (unsigned long long)s->code_page_size);
	if (!ret)
		ret = h->strbuf_addf(out, "}");
	return ret;
}
