// SPDX-License-Identifier: MIT
/*
 * Arm SPE packet decoder (pure): one packet at a time from a byte buffer, little-endian
 * payloads read byte by byte, never past @len. Header rules (perf-facts.md section 3):
 *   0x00 PAD, 0x01 END, 0x71 TIMESTAMP (8 B),
 *   (h & 0xcf) == 0x42 EVENTS, == 0x43 DATA_SOURCE (payload size 1 << h[5:4]),
 *   (h & 0xfc) == 0x64 CONTEXT (4 B), == 0x48 OP_TYPE (1 B),
 *   (h & 0xfc) == 0x20 extended header: second byte 0x00 = alignment, else its low 3 bits
 *   extend the ADDRESS/COUNTER index by h0[1:0] << 3,
 *   (h & 0xf8) == 0xb0 ADDRESS (8 B), == 0x98 COUNTER (2 B).
 * Anything else is a bad packet; the caller counts it and resyncs.
 */
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "spe.h"

static const char *const pkt_names[] = {
    [SPE_PKT_BAD] = "BAD",	   [SPE_PKT_PAD] = "PAD",
    [SPE_PKT_END] = "END",	   [SPE_PKT_TIMESTAMP] = "TS",
    [SPE_PKT_ADDRESS] = "ADDR",	   [SPE_PKT_COUNTER] = "LAT",
    [SPE_PKT_CONTEXT] = "CONTEXT", [SPE_PKT_OP_TYPE] = "OP-TYPE",
    [SPE_PKT_EVENTS] = "EVENTS",   [SPE_PKT_DATA_SOURCE] = "DATA-SOURCE",
    [SPE_PKT_ALIGN] = "ALIGN",
};

const char *spe_pkt__name(unsigned int type)
{
	return type < sizeof(pkt_names) / sizeof(pkt_names[0]) ? pkt_names[type] : "?";
}

static int payload(const uint8_t *buf, size_t len, unsigned int hdr_len, unsigned int size,
		   struct spe_pkt *p)
{
	uint64_t v = 0;

	if (len >= hdr_len + 8) { /* fast path: one unaligned little-endian load */
		memcpy(&v, buf + hdr_len, 8);
		v = le64toh(v);
		if (size < 8)
			v &= (1ULL << (8 * size)) - 1;
	} else if (len < hdr_len + size) {
		return HWS_E_NEED_MORE;
	} else {
		for (unsigned int i = 0; i < size; i++)
			v |= (uint64_t)buf[hdr_len + i] << (8 * i);
	}
	p->payload = v;
	p->hdr_len = (uint8_t)hdr_len;
	p->payload_len = (uint8_t)size;
	p->len = (uint16_t)(hdr_len + size);
	return (int)p->len;
}

static unsigned int size_of(uint8_t h)
{
	return 1U << ((h >> 4) & 3);
}

int spe_pkt__get(const uint8_t *buf, size_t len, uint64_t pos, struct spe_pkt *p)
{
	uint8_t h;
	unsigned int hdr_len = 1;

	p->index = 0;
	p->hdr1 = 0;
	p->payload = 0;
	p->payload_len = 0;
	if (!len)
		return HWS_E_NEED_MORE;
	h = buf[0];
	p->hdr0 = h;
	if (h == 0x00) {
		p->type = SPE_PKT_PAD;
		p->hdr_len = 1;
		p->len = 1;
		return 1;
	}
	if (h == 0x01) {
		p->type = SPE_PKT_END;
		p->hdr_len = 1;
		p->len = 1;
		return 1;
	}
	if (h == 0x71) {
		p->type = SPE_PKT_TIMESTAMP;
		return payload(buf, len, 1, 8, p);
	}
	if ((h & 0xcf) == 0x42) {
		p->type = SPE_PKT_EVENTS;
		p->index = (uint8_t)size_of(h);
		return payload(buf, len, 1, size_of(h), p);
	}
	if ((h & 0xcf) == 0x43) {
		p->type = SPE_PKT_DATA_SOURCE;
		return payload(buf, len, 1, size_of(h), p);
	}
	if ((h & 0xfc) == 0x64) {
		p->type = SPE_PKT_CONTEXT;
		p->index = h & 3;
		return payload(buf, len, 1, size_of(h), p);
	}
	if ((h & 0xfc) == 0x48) {
		p->type = SPE_PKT_OP_TYPE;
		p->index = h & 3;
		return payload(buf, len, 1, size_of(h), p);
	}
	if ((h & 0xfc) == 0x20) {
		uint8_t h1;

		if (len < 2)
			return HWS_E_NEED_MORE;
		h1 = buf[1];
		p->hdr1 = h1;
		if (h1 == 0x00) {
			uint64_t align = 1ULL << ((h & 3) + 1);
			uint64_t n = align - (pos & (align - 1));

			p->type = SPE_PKT_ALIGN;
			p->index = (uint8_t)align;
			p->hdr_len = 2;
			/* perf's rule: skip from the header to the next boundary */
			if (len < n)
				return HWS_E_NEED_MORE;
			p->len = (uint16_t)n;
			return (int)n;
		}
		hdr_len = 2;
		if ((h1 & 0xf8) == 0xb0) {
			p->type = SPE_PKT_ADDRESS;
			p->index = (uint8_t)(((h & 3) << 3) | (h1 & 7));
			return payload(buf, len, 2, size_of(h1), p);
		}
		if ((h1 & 0xf8) == 0x98) {
			p->type = SPE_PKT_COUNTER;
			p->index = (uint8_t)(((h & 3) << 3) | (h1 & 7));
			return payload(buf, len, 2, size_of(h1), p);
		}
		p->type = SPE_PKT_BAD;
		return HWS_E_BADREC;
	}
	if ((h & 0xf8) == 0xb0) {
		p->type = SPE_PKT_ADDRESS;
		p->index = h & 7;
		return payload(buf, len, hdr_len, size_of(h), p);
	}
	if ((h & 0xf8) == 0x98) {
		p->type = SPE_PKT_COUNTER;
		p->index = h & 7;
		return payload(buf, len, hdr_len, size_of(h), p);
	}
	p->type = SPE_PKT_BAD;
	return HWS_E_BADREC;
}

int spe_record__add(struct spe_record *r, const struct spe_pkt *p)
{
	uint64_t v = p->payload;

	r->nr_packets++;
	switch (p->type) {
	case SPE_PKT_END:
		return 1;
	case SPE_PKT_TIMESTAMP:
		r->ts = v;
		r->present |= SPE_HAVE_TS;
		return 1;
	case SPE_PKT_ADDRESS:
		switch (p->index) {
		case SPE_ADDR_PC:
			r->pc = v;
			r->present |= SPE_HAVE_PC;
			break;
		case SPE_ADDR_TGT:
			r->tgt = v;
			r->present |= SPE_HAVE_TGT;
			break;
		case SPE_ADDR_VA:
			r->va = v;
			r->present |= SPE_HAVE_VA;
			break;
		case SPE_ADDR_PA:
			r->pa = v;
			r->present |= SPE_HAVE_PA;
			break;
		case SPE_ADDR_PBT:
			r->pbt = v;
			r->present |= SPE_HAVE_PBT;
			break;
		default:
			break;
		}
		break;
	case SPE_PKT_COUNTER:
		if (p->index <= SPE_CNT_XLAT) {
			r->lat[p->index] = (uint16_t)v;
			r->present |= SPE_HAVE_LAT_TOTAL << p->index;
		}
		break;
	case SPE_PKT_CONTEXT:
		r->context = v;
		r->ctx_index = p->index;
		r->present |= SPE_HAVE_CONTEXT;
		break;
	case SPE_PKT_OP_TYPE:
		r->op_class = p->index;
		r->op_payload = (uint8_t)v;
		r->present |= SPE_HAVE_OP;
		break;
	case SPE_PKT_EVENTS:
		r->events |= v;
		r->events_len = p->payload_len;
		r->present |= SPE_HAVE_EVENTS;
		break;
	case SPE_PKT_DATA_SOURCE:
		r->source = v;
		r->source_len = p->payload_len;
		r->present |= SPE_HAVE_SOURCE;
		break;
	default:
		r->nr_packets--;
		break;
	}
	return 0;
}
