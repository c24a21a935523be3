/* SPDX-License-Identifier: MIT */
/*
 * Test helper: turn a host-order perf.data image (file or pipe mode) into the other byte
 * order, the way a big-endian perf would have written it, using core's per-record and
 * per-feature swappers in the "to foreign" direction. Used by tests/unit/test_perfdata_swap.c,
 * test_perfdata_robust.c and `gen_perfdata swap IN OUT` (so the real perf can read the result
 * too).
 * Works in memory on a buffer of @len bytes; returns 0 or -1 on a malformed input.
 */
#ifndef HWS_TEST_PERFDATA_SWAP_H
#define HWS_TEST_PERFDATA_SWAP_H

#include <byteswap.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/perfdata.h>

#include "perfdata/perfdata_int.h"

struct swap_attrs {
	struct hws_perf_event_attr attr[64];
	uint64_t id[64][256];
	size_t nr_id[64];
	int nr;
};

static int swap_attr_of(const struct swap_attrs *sa, const uint8_t *rec)
{
	struct perf_event_header h;
	int64_t id;

	memcpy(&h, rec, sizeof(h));
	if (sa->nr <= 0)
		return -1;
	if (sa->nr == 1)
		return 0;
	id = hws_record__id(&sa->attr[0], rec, h.size);
	for (int i = 0; i < sa->nr; i++)
		for (size_t j = 0; j < sa->nr_id[i]; j++)
			if (sa->id[i][j] == (uint64_t)id)
				return i;
	return -1;
}

static void swap_note_attr(struct swap_attrs *sa, const uint8_t *attr, size_t asz,
			   const uint8_t *ids, size_t nids)
{
	if (sa->nr >= 64)
		return;
	memset(&sa->attr[sa->nr], 0, sizeof(sa->attr[0]));
	memcpy(&sa->attr[sa->nr], attr, asz < sizeof(sa->attr[0]) ? asz : sizeof(sa->attr[0]));
	sa->nr_id[sa->nr] = nids < 256 ? nids : 256;
	memcpy(sa->id[sa->nr], ids, sa->nr_id[sa->nr] * 8);
	sa->nr++;
}

/* Swap the records in [off, end); pipe: HEADER_ATTR records define the attrs. */
static int swap_records(uint8_t *buf, uint64_t off, uint64_t end, struct swap_attrs *sa)
{
	while (off + 8 <= end) {
		struct perf_event_header hh, sw; /* records need not be 8-aligned (COMPRESSED) */
		uint64_t extra = 0;
		int idx;

		memcpy(&hh, buf + off, sizeof(hh));
		if (hh.size < 8 || off + hh.size > end)
			return -1;
		if (hh.type == HWS_RECORD_HEADER_ATTR) {
			uint32_t asz = pd_get32(buf + off + 12);

			if (!asz)
				asz = 64;
			if (8 + asz > hh.size)
				return -1;
			swap_note_attr(sa, buf + off + 8, asz, buf + off + 8 + asz,
				       (hh.size - 8 - asz) / 8);
		}
		if (hh.type == HWS_RECORD_AUXTRACE)
			extra = pd_get64(buf + off + 8);
		if (hh.type == HWS_RECORD_HEADER_TRACING_DATA)
			extra = (pd_get32(buf + off + 8) + 7ULL) & ~7ULL;
		idx = hh.type == PERF_RECORD_SAMPLE || hh.type < 64 ? swap_attr_of(sa, buf + off)
								    : -1;
		if (hws__swap_record(buf + off, hh.size, idx >= 0 ? &sa->attr[idx] : NULL, 0))
			return -1;
		sw.type = bswap_32(hh.type);
		sw.misc = bswap_16(hh.misc);
		sw.size = bswap_16(hh.size);
		memcpy(buf + off, &sw, sizeof(sw));
		off += hh.size + extra;
	}
	return off == end ? 0 : -1;
}

static int perfdata_swap_image(uint8_t *buf, size_t len)
{
	struct swap_attrs *sa = calloc(1, sizeof(*sa));
	struct hws_file_header h;
	int ret = -1;

	if (!sa || len < 16 || pd_get64(buf) != PERF_MAGIC2)
		goto out;
	if (pd_get64(buf + 8) == 16) {
		pd_swap64(buf);
		pd_swap64(buf + 8);
		ret = swap_records(buf, 16, len, sa);
		goto out;
	}
	if (len < sizeof(h))
		goto out;
	memcpy(&h, buf, sizeof(h));
	/* attrs + ids */
	for (uint64_t o = h.attrs.offset; o + h.attr_size <= h.attrs.offset + h.attrs.size;
	     o += h.attr_size) {
		struct hws_file_section ids;
		size_t asz = h.attr_size - sizeof(ids);

		memcpy(&ids, buf + o + asz, sizeof(ids));
		if (ids.offset + ids.size > len)
			goto out;
		swap_note_attr(sa, buf + o, asz, buf + ids.offset, ids.size / 8);
		pd_swap64_array(buf + ids.offset, ids.size / 8);
		hws__swap_attr(buf + o, asz, 0);
		pd_swap64(buf + o + asz);
		pd_swap64(buf + o + asz + 8);
	}
	if (swap_records(buf, h.data.offset, h.data.offset + h.data.size, sa))
		goto out;
	{
		uint64_t fo = h.data.offset + h.data.size;
		int n = 0;

		for (int f = 0; f < HWS_FEAT__MAX; f++) {
			struct hws_file_section s;

			if (!((h.adds_features[f / 64] >> (f % 64)) & 1))
				continue;
			memcpy(&s, buf + fo + 16 * (uint64_t)n, sizeof(s));
			if (s.offset + s.size > len)
				goto out;
			if (hws__swap_feature(f, buf + s.offset, s.size, 0))
				goto out;
			pd_swap64(buf + fo + 16 * (uint64_t)n);
			pd_swap64(buf + fo + 16 * (uint64_t)n + 8);
			n++;
		}
	}
	pd_swap64_array(buf, sizeof(h) / 8);
	ret = 0;
out:
	free(sa);
	return ret;
}

#endif
