/* SPDX-License-Identifier: MIT */
/*
 * Crafted Arm SPE records for the raw JSON test (test_arm_spe_raw.c): every header byte with
 * several payloads (and cut short), every extended ADDRESS/COUNTER header (and bad second
 * bytes), alignment packets at every
 * stream position mod 16, every hex width of the address/context/counter payloads, decimal
 * edges, every EVENTS bit, every OP_TYPE class and payload, records long enough to pass the
 * formatter's buffer, random well-formed records, and the file-info variants (MIDR tables,
 * no MIDR, no file info, no CPU). Deterministic: case k is always the same record.
 * tests/golden/arm_spe/spe_raw_golden.h holds the FNV-1a hash of the raw_json text the
 * formatter of commit 1adbaa5 (before the table-driven one) gave for each case.
 */
#ifndef HWS_TEST_ARM_SPE_RAW_CASES_H
#define HWS_TEST_ARM_SPE_RAW_CASES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tests.h" /* tests_xorshift64 */

#define SPE_RAW_CASE_MAX 4096

struct spe_raw_case {
	size_t len;   /* raw bytes in the caller's buffer */
	int null_raw; /* raw pointer NULL */
	int use_pos;  /* raw is the last record decoded, at stream position @pos */
	uint64_t pos;
	int fi;	 /* file info variant, 0..5 (spe_raw_case_fi) */
	int cpu; /* -1: the sample has no CPU */
};

static inline size_t spe_raw_put(uint8_t *b, size_t n, uint64_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		b[n + i] = (uint8_t)(v >> (8 * i));
	return n + bytes;
}

/* a random well-formed packet (header, payload) at @b + @n */
static inline size_t spe_raw_rand_pkt(uint8_t *b, size_t n, uint64_t *rs)
{
	static const uint8_t hdrs[] = {0x00, 0x01, 0x71, 0x42, 0x52, 0x62, 0x72, 0x43, 0x53,
				       0x63, 0x73, 0x64, 0x65, 0x66, 0x67, 0x48, 0x49, 0x4a,
				       0x4b, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0x98, 0x99,
				       0x9a, 0x9b, 0x9c, 0x20, 0x21, 0x22, 0x23};
	uint64_t r = tests_xorshift64(rs);
	uint8_t h = hdrs[r % sizeof(hdrs)];
	uint64_t v = tests_xorshift64(rs);

	if ((h & 0xfc) == 0x20) { /* extended ADDRESS / COUNTER */
		uint8_t h1 = (uint8_t)(((r >> 8) & 1 ? 0xb0 : 0x98) | ((r >> 9) & 7));

		b[n++] = h;
		b[n++] = h1;
		return spe_raw_put(b, n, v, (h1 & 0xf8) == 0xb0 ? 8 : 2);
	}
	b[n++] = h;
	if (h < 2)
		return n;
	if ((r >> 16) & 1) /* small values too */
		v &= 0xffff;
	if ((r >> 17) & 1) /* high address bits, ns/el variety */
		v |= (r >> 32) << 56;
	return spe_raw_put(b, n, v, 1U << ((h >> 4) & 3));
}

/* case @k into @b (SPE_RAW_CASE_MAX bytes); returns 0 past the last case */
static inline int spe_raw_case(unsigned int k, uint8_t *b, struct spe_raw_case *c)
{
	static const uint8_t hexhdr[] = {0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0x65, 0x73, 0x71};
	static const uint8_t dechdr[] = {0x71, 0x73, 0x98, 0x99, 0x9a, 0x9b, 0x9f, 0x65, 0x43};
	static const uint8_t exth1[] = {0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f, 0xb0,
					0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0x00, 0x01,
					0x10, 0x20, 0x40, 0x7f, 0x80, 0x90, 0x97, 0xa0, 0xa8,
					0xb8, 0xbf, 0xc0, 0xd8, 0xf0, 0xff};
	uint64_t rs = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)k * 0xbf58476d1ce4e5b9ULL);
	size_t n = 0;
	unsigned int i = k;

	memset(c, 0, sizeof(*c));
	c->fi = (int)(k % 6);
	c->cpu = (k % 7 == 0) ? -1 : (int)(k % 4);
	tests_xorshift64(&rs);

	/* every header byte: zeros, 0xff, random, and random cut to 0..7 payload bytes */
	if (i < 1024) {
		unsigned int h = i / 4, var = i % 4, len = var == 3 ? (h & 7) : 16;

		b[n++] = (uint8_t)h;
		for (unsigned int j = 0; j < len; j++)
			b[n++] = var == 0 ? 0 : var == 1 ? 0xff : (uint8_t)tests_xorshift64(&rs);
		c->len = n;
		return 1;
	}
	i -= 1024;
	/* extended headers: every ADDRESS / COUNTER pair, alignment, others, then 8 random bytes */
	if (i < 4 * sizeof(exth1)) {
		b[n++] = (uint8_t)(0x20 | (i / sizeof(exth1)));
		b[n++] = exth1[i % sizeof(exth1)];
		n = spe_raw_put(b, n, tests_xorshift64(&rs), 8);
		c->len = n;
		return 1;
	}
	i -= 4 * sizeof(exth1);
	/* alignment packets at stream positions 0..17, then PADs / a PC packet */
	if (i < 4 * 18 * 2) {
		unsigned int h = i / 36, at = (i / 2) % 18;

		c->use_pos = 1;
		c->pos = 0x1000 + at;
		b[n++] = (uint8_t)(0x20 | h);
		b[n++] = 0;
		if (i & 1) { /* only the header pair: too short unless the boundary is near */
			c->len = n;
			return 1;
		}
		memset(b + n, 0, 24);
		n += 24;
		b[n++] = 0xb0;
		n = spe_raw_put(b, n, tests_xorshift64(&rs), 8);
		c->len = n;
		return 1;
	}
	i -= 4 * 18 * 2;
	/* hex widths: 0, ~0, 2^j, 2^j - 1 and a random j-bit value, top bits varied */
	if (i < sizeof(hexhdr) * (2 + 63 * 3)) {
		unsigned int h = hexhdr[i / (2 + 63 * 3)], w = i % (2 + 63 * 3),
			     j = (w - 2) / 3 + 1;
		uint64_t v = w == 0 ? 0 : w == 1 ? ~0ULL : 0;

		if (w >= 2) {
			switch ((w - 2) % 3) {
			case 0:
				v = 1ULL << j;
				break;
			case 1:
				v = (1ULL << j) - 1;
				break;
			default:
				v = (tests_xorshift64(&rs) | 1ULL << (j - 1)) & ((1ULL << j) - 1);
				v |= (tests_xorshift64(&rs) & 0xff) << 56;
				break;
			}
		}
		b[n++] = (uint8_t)h;
		n = spe_raw_put(b, n, v, 1U << ((h >> 4) & 3));
		c->len = n;
		return 1;
	}
	i -= sizeof(hexhdr) * (2 + 63 * 3);
	/* decimal edges: 10^j - 1, 10^j, 10^j + 1 (j = 0..19), 2^63 - 1, 2^63, ~0 */
	if (i < sizeof(dechdr) * 63) {
		unsigned int h = dechdr[i / 63], w = i % 63;
		uint64_t p10 = 1, v;

		for (unsigned int j = 0; j < (w < 60 ? w / 3 : 0); j++)
			p10 *= 10;
		v = w < 60 ? p10 - 1 + w % 3 : w == 60 ? ~0ULL >> 1 : w == 61 ? 1ULL << 63 : ~0ULL;
		b[n++] = (uint8_t)h;
		n = spe_raw_put(b, n, v, 1U << ((h >> 4) & 3));
		c->len = n;
		return 1;
	}
	i -= sizeof(dechdr) * 63;
	/* EVENTS: each bit, all, none, random; several packets of each size ORed */
	if (i < 64 + 2 + 32 + 16) {
		if (i < 98) {
			uint64_t v = i < 64    ? 1ULL << i
				     : i == 64 ? ~0ULL
				     : i == 65 ? 0
					       : tests_xorshift64(&rs);

			b[n++] = 0x72;
			n = spe_raw_put(b, n, v, 8);
		} else {
			for (unsigned int s = 0; s < 4; s++) {
				b[n++] = (uint8_t)(0x42 | s << 4);
				n = spe_raw_put(b, n, tests_xorshift64(&rs), 1U << s);
			}
			b[n++] = 0x01;
		}
		c->len = n;
		return 1;
	}
	i -= 64 + 2 + 32 + 16;
	/* OP_TYPE: all payloads of a class in one record (more text than one buffer) */
	if (i < 4) {
		for (unsigned int v = 0; v < 256; v++) {
			b[n++] = (uint8_t)(0x48 | i);
			b[n++] = (uint8_t)v;
		}
		c->len = n;
		return 1;
	}
	i -= 4;
	/* long records: PADs, EVENTS with every shown bit, random bytes, random packets */
	if (i < 12) {
		if (i == 0) {
			memset(b, 0, SPE_RAW_CASE_MAX);
			n = SPE_RAW_CASE_MAX;
		} else if (i == 1) {
			while (n + 3 <= SPE_RAW_CASE_MAX) {
				b[n++] = 0x52;
				b[n++] = 0xff;
				b[n++] = 0x0f;
			}
		} else if (i < 6) {
			for (n = 0; n < SPE_RAW_CASE_MAX; n++)
				b[n] = (uint8_t)tests_xorshift64(&rs);
		} else {
			size_t cap = i < 9 ? SPE_RAW_CASE_MAX : 100 + 300 * (i - 9);

			while (n + 10 <= cap)
				n = spe_raw_rand_pkt(b, n, &rs);
		}
		c->len = n;
		return 1;
	}
	i -= 12;
	/* no raw, empty raw */
	if (i < 2) {
		c->null_raw = i == 0;
		return 1;
	}
	i -= 2;
	/* random well-formed records ending with END or TIMESTAMP */
	if (i < 400) {
		unsigned int np = 1 + (unsigned int)(tests_xorshift64(&rs) % 20);

		for (unsigned int j = 0; j < np; j++)
			n = spe_raw_rand_pkt(b, n, &rs);
		if (i & 1) {
			b[n++] = 0x01;
		} else {
			b[n++] = 0x71;
			n = spe_raw_put(b, n, tests_xorshift64(&rs), 8);
		}
		c->len = n;
		return 1;
	}
	return 0;
}

/* the CPUID string of file-info variant @v (NULL: no file info at all for 0, no CPUID for 5) */
static inline const char *spe_raw_case_cpuid(int v)
{
	static const char *const ids[6] = {NULL,
					   "0x00000000413fd0c1", /* Neoverse N1 */
					   "0x00000000481fd061", /* HiSilicon HIP12 */
					   "0x00000000c00fac30", /* AmpereOne */
					   "0x0000000041ffffff", /* unknown */
					   NULL};

	return ids[v];
}

/* FNV-1a, 64 bits */
static inline uint64_t spe_raw_fnv(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ULL;
	return h;
}

#endif
