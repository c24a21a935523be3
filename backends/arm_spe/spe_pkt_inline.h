/* SPDX-License-Identifier: MIT */
/*
 * Arm SPE packet decoder and record accumulation as inline functions, so the AUX stream
 * loop (spe_decode.c) gets them without a call per packet; spe_pkt.c exports the same code
 * as spe_pkt__get() / spe_record__add(). Header rules: see spe_pkt.c.
 * Pure: reads at most @len bytes, never allocates.
 */
#ifndef HWS_ARM_SPE_PKT_INLINE_H
#define HWS_ARM_SPE_PKT_INLINE_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "spe.h"

static inline int spe__payload(const uint8_t *buf, size_t len, unsigned int hdr_len,
			       unsigned int size, struct spe_pkt *p)
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

static inline unsigned int spe__size_of(uint8_t h)
{
	return 1U << ((h >> 4) & 3);
}

static inline int spe_pkt__get_inline(const uint8_t *buf, size_t len, uint64_t pos,
				      struct spe_pkt *p)
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
		return spe__payload(buf, len, 1, 8, p);
	}
	if ((h & 0xcf) == 0x42) {
		p->type = SPE_PKT_EVENTS;
		p->index = (uint8_t)spe__size_of(h);
		return spe__payload(buf, len, 1, spe__size_of(h), p);
	}
	if ((h & 0xcf) == 0x43) {
		p->type = SPE_PKT_DATA_SOURCE;
		return spe__payload(buf, len, 1, spe__size_of(h), p);
	}
	if ((h & 0xfc) == 0x64) {
		p->type = SPE_PKT_CONTEXT;
		p->index = h & 3;
		return spe__payload(buf, len, 1, spe__size_of(h), p);
	}
	if ((h & 0xfc) == 0x48) {
		p->type = SPE_PKT_OP_TYPE;
		p->index = h & 3;
		return spe__payload(buf, len, 1, spe__size_of(h), p);
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
			return spe__payload(buf, len, 2, spe__size_of(h1), p);
		}
		if ((h1 & 0xf8) == 0x98) {
			p->type = SPE_PKT_COUNTER;
			p->index = (uint8_t)(((h & 3) << 3) | (h1 & 7));
			return spe__payload(buf, len, 2, spe__size_of(h1), p);
		}
		p->type = SPE_PKT_BAD;
		return HWS_E_BADREC;
	}
	if ((h & 0xf8) == 0xb0) {
		p->type = SPE_PKT_ADDRESS;
		p->index = h & 7;
		return spe__payload(buf, len, hdr_len, spe__size_of(h), p);
	}
	if ((h & 0xf8) == 0x98) {
		p->type = SPE_PKT_COUNTER;
		p->index = h & 7;
		return spe__payload(buf, len, hdr_len, spe__size_of(h), p);
	}
	p->type = SPE_PKT_BAD;
	return HWS_E_BADREC;
}

static inline int spe_record__add_inline(struct spe_record *r, const struct spe_pkt *p)
{
	uint64_t v = p->payload;

	switch (p->type) {
	case SPE_PKT_END:
		return 1;
	case SPE_PKT_TIMESTAMP:
		r->ts = v;
		r->present |= SPE_HAVE_TS;
		return 1;
	case SPE_PKT_ADDRESS:
		if (p->index <= SPE_ADDR_PBT) {
			r->addr[p->index] = v;
			r->present |= SPE_HAVE_PC << p->index;
		}
		break;
	case SPE_PKT_COUNTER:
		if (p->index <= SPE_CNT_XLAT) {
			r->lat[p->index] = v;
			r->present |= SPE_HAVE_LAT_TOTAL << p->index;
		}
		break;
	case SPE_PKT_CONTEXT:
		r->context = v;
		r->ctx_index = p->index;
		r->hdr[SPE_SLOT_CONTEXT] = p->hdr0;
		r->present |= SPE_HAVE_CONTEXT;
		break;
	case SPE_PKT_OP_TYPE:
		r->op_class = p->index;
		r->op_payload = (uint8_t)v;
		r->op = v;
		r->hdr[SPE_SLOT_OP] = p->hdr0;
		r->present |= SPE_HAVE_OP;
		break;
	case SPE_PKT_EVENTS:
		r->events |= v;
		r->present |= SPE_HAVE_EVENTS;
		break;
	case SPE_PKT_DATA_SOURCE:
		r->source = v;
		r->present |= SPE_HAVE_SOURCE;
		break;
	default:
		break;
	}
	return 0;
}

#endif
