/* SPDX-License-Identifier: MIT */
/*
 * Reading one line of a kallsyms file: "ffffffff81000000 T name\t[module]". Header-only so
 * the unit test can hold the two readers to each other (tests/unit/test_kallsyms_line.c).
 *
 * Invariant: ksyms_line() gives exactly what ksyms_line_slow() gives for every input; it
 * only takes a short cut for the lines the kernel prints on 64-bit hosts (16 lower-case hex
 * digits) when at least KSYMS_FAST_MIN bytes are left, and otherwise calls the slow reader.
 */
#ifndef HWS_KSYMS_LINE_H
#define HWS_KSYMS_LINE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* hex digit value + 1 of a character, 0 if none */
static const uint8_t hex1[256] = {
    ['0'] = 1,	['1'] = 2,  ['2'] = 3,	['3'] = 4,  ['4'] = 5,	['5'] = 6,  ['6'] = 7,	['7'] = 8,
    ['8'] = 9,	['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* symbol types kept: text, weak, data, bss, read-only */
static const bool ks_kept[256] = {
    ['t'] = 1, ['T'] = 1, ['w'] = 1, ['W'] = 1, ['d'] = 1,
    ['D'] = 1, ['b'] = 1, ['B'] = 1, ['r'] = 1, ['R'] = 1,
};

/* One "ffffffff81000000 T name\t[module]" line at @p: its address, type and name (up to
 * *name_end: the first space, tab or control character); false if it is not such a line or
 * not a kept type. */
static inline bool ksyms_line_slow(char *p, char *end, uint64_t *addr, char *type, char **name,
				   char **name_end)
{
	uint64_t a = 0;
	int h, nd = 0;

	while (nd < 16 && p < end && (h = hex1[(unsigned char)*p])) {
		a = a << 4 | (uint64_t)(h - 1);
		p++;
		nd++;
	}
	if (!nd || p + 2 >= end || p[0] != ' ' || p[2] != ' ' || !ks_kept[(unsigned char)p[1]])
		return false;
	*type = p[1];
	*name = p += 3;
	while (p < end && (unsigned char)*p > ' ')
		p++;
	*name_end = p;
	*addr = a;
	return p != *name;
}

#define KSYMS_FAST_MIN 32

#define KS_ONES (~0ULL / 255)
#define KS_HIGH (KS_ONES * 0x80)

/* 8 bytes of lower-case hex digits (first digit in the low byte) as their value; false if
 * any byte is not one */
static inline bool ks_hex8(uint64_t x, uint32_t *v)
{
	uint64_t ge30 = x + KS_ONES * 0x50, le39 = ~(x + KS_ONES * 0x46);
	uint64_t ge61 = x + KS_ONES * 0x1f, le66 = ~(x + KS_ONES * 0x19);

	/* bytes below 0x80 only, so no per-byte sum carries into the next byte */
	if ((x & KS_HIGH) || (((ge30 & le39) | (ge61 & le66)) & KS_HIGH) != KS_HIGH)
		return false;
	/* '0'-'9' -> 0-9, 'a'-'f' -> 10-15, then pairs, quads, octets of digits */
	x = (x & KS_ONES * 0x0f) + 9 * ((x & KS_ONES * 0x40) >> 6);
	x = ((x & 0x00ff00ff00ff00ffULL) << 4) | ((x >> 8) & 0x00ff00ff00ff00ffULL);
	x = ((x & 0x0000ffff0000ffffULL) << 8) | ((x >> 16) & 0x0000ffff0000ffffULL);
	*v = (uint32_t)(((x & 0xffffffffULL) << 16) | (x >> 32));
	return true;
}

static inline uint64_t ks_load8(const char *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return x; /* little-endian hosts only: see ksyms_line() */
}

/* ksyms_line_slow(), faster for the usual lines */
static inline bool ksyms_line(char *p, char *end, uint64_t *addr, char *type, char **name,
			      char **name_end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t hi, lo;
	char *q;

	if (end - p < KSYMS_FAST_MIN || p[16] != ' ' || p[18] != ' ' ||
	    !ks_kept[(unsigned char)p[17]] || !ks_hex8(ks_load8(p), &hi) ||
	    !ks_hex8(ks_load8(p + 8), &lo))
		return ksyms_line_slow(p, end, addr, type, name, name_end);
	*addr = (uint64_t)hi << 32 | lo;
	*type = p[17];
	*name = q = p + 19;
	/* the first byte <= ' ': 8 at a time while 8 are left (bytes >= 0x80 are name bytes) */
	while (end - q >= 8) {
		uint64_t x = ks_load8(q);
		uint64_t m = (x - KS_ONES * 0x21) & ~x & KS_HIGH;

		if (m) {
			q += __builtin_ctzll(m) / 8;
			*name_end = q;
			return q != *name;
		}
		q += 8;
	}
	while (q < end && (unsigned char)*q > ' ')
		q++;
	*name_end = q;
	return q != *name;
#else
	return ksyms_line_slow(p, end, addr, type, name, name_end);
#endif
}

#endif
