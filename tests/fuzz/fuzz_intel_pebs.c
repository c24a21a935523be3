// SPDX-License-Identifier: MIT
/*
 * Fuzz target for the intel_pebs sample path: bytes 0-3 pick the sample_type (masked to
 * the bits a PEBS event records; WEIGHT and WEIGHT_STRUCT made exclusive), bytes 4-5 the
 * record misc, byte 6 precise_ip; the rest is the body of a PERF_RECORD_SAMPLE. The record
 * is split by core's hws_sample__parse() into an exactly sized heap copy (so ASan sees any
 * read past it), then decoded by intel_pebs and printed with raw_json().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/backend.h>
#include <hwsample/perfdata.h>
#include <hwsample/registry.h>

const struct hws_backend_ops *hws_backend_entry_intel_pebs(const struct hws_host *host);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PEBS_ST                                                                                    \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
	 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |       \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TRANSACTION |                 \
	 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE |         \
	 PERF_SAMPLE_WEIGHT_STRUCT)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct hws_backend_ops *ops;
	static void *priv;
	struct hws_perf_event_attr attr;
	struct perf_event_header *hdr;
	struct hws_record_sample rec;
	struct hws_sample s;
	struct hws_strbuf sb;
	uint32_t st;
	size_t len;
	int ret;

	if (!ops) {
		ops = hws_backend_entry_intel_pebs(hws_host__get());
		priv = calloc(1, ops->priv_size);
		if (!priv || ops->init(priv, hws_host__get()))
			abort();
	}
	if (size < 7 || size - 7 > 65535 - sizeof(*hdr))
		return 0;
	memcpy(&st, data, 4);
	st &= (uint32_t)PEBS_ST;
	if ((st & PERF_SAMPLE_WEIGHT) && (st & PERF_SAMPLE_WEIGHT_STRUCT))
		st &= ~(uint32_t)PERF_SAMPLE_WEIGHT;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = 0x1cd;
	attr.sample_type = st;
	attr.precise_ip = data[6] & 3;

	len = sizeof(*hdr) + size - 7;
	hdr = malloc(len);
	if (!hdr)
		return 0;
	hdr->type = PERF_RECORD_SAMPLE;
	hdr->misc = (uint16_t)(data[4] | data[5] << 8);
	hdr->size = (uint16_t)len;
	memcpy(hdr + 1, data + 7, size - 7);

	memset(&rec, 0, sizeof(rec));
	if (hws_sample__parse(&attr, hdr, len, &rec) == 0) {
		memset(&s, 0, sizeof(s));
		s.sz = sizeof(s);
		rec.attr = &attr;
		ret = ops->decode(priv, NULL, &rec, &s);
		if (ret == 0) {
			hws_strbuf__init(&sb, 1 << 16);
			if (ops->raw_json(priv, NULL, &s, &sb) == 0 &&
			    (!sb.buf || sb.buf[0] != '{'))
				abort();
			hws_strbuf__release(&sb);
		} else if (ret != HWS_DECODE_SKIP && ret != HWS_E_BADREC) {
			abort();
		}
		/* the fields the kernel wrote are valid only when the record had them */
		if ((s.fields & HWS_SF_PHYS_ADDR) && !(st & PERF_SAMPLE_PHYS_ADDR))
			abort();
		if ((s.fields & HWS_SF_LAT_INS) && !(st & PERF_SAMPLE_WEIGHT_STRUCT))
			abort();
	}
	free(hdr);
	return 0;
}
