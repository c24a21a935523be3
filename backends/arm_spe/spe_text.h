/* SPDX-License-Identifier: MIT */
/*
 * Unchecked text writers for the raw JSON formatter (spe_raw.c). Each writes at @p and
 * returns the end of its text; it may store up to SPE_TEXT_SLACK bytes past that end
 * (whole 8- or 16-byte stores), so the caller keeps that much room.
 *
 * Hex: the digit count from the bit length; the value shifted so its first digit is the top
 * nibble, then all 16 digits from one byte swap and a vector nibble split (GCC/clang vector
 * extensions: SSE2 on x86-64, NEON on arm64; a shift-and-mask twin elsewhere) and one
 * 16-byte store, of which the first count are kept. Decimal: core/fmt_num.h's writer.
 * Little-endian hosts only (arm64, x86-64: the tool's targets).
 */
#ifndef HWS_ARM_SPE_TEXT_H
#define HWS_ARM_SPE_TEXT_H

#include <stdint.h>
#include <string.h>

#include "../../core/fmt_num.h" /* header-only number writers shared with core */

#define SPE_TEXT_SLACK 16
_Static_assert(SPE_TEXT_SLACK >= HWS_FMT_SLACK, "decimal writes stay in the slack");

/* a string literal, without its NUL */
#define SPE_PUT_LIT(p, s)                                                                          \
	do {                                                                                       \
		memcpy((p), "" s, sizeof(s) - 1);                                                  \
		(p) += sizeof(s) - 1;                                                              \
	} while (0)

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "arm_spe/spe_text.h assumes a little-endian host"
#endif

/* hex digits of @v, 1..16 (0 has one) */
static inline unsigned int spe_hex_digits(uint64_t v)
{
	return (unsigned int)(64 - __builtin_clzll(v | 1) + 3) >> 2;
}

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12) /* __builtin_shufflevector */
#define SPE_TEXT_VEC 1
typedef uint8_t spe_u8x16 __attribute__((vector_size(16)));
typedef int8_t spe_i8x16 __attribute__((vector_size(16)));
typedef uint64_t spe_u64x2 __attribute__((vector_size(16)));

/* The 16 lower-case hex digits of @v, most significant first, stored at @p: the bytes in
 * digit order, split into nibbles and interleaved. */
static inline void spe_hex16_vec(char *p, uint64_t v)
{
	spe_u64x2 w = {__builtin_bswap64(v), 0};
	spe_u8x16 b = (spe_u8x16)w, hi = b >> 4, lo = b & 15, n, c;

	n = __builtin_shufflevector(hi, lo, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
	c = n + '0' + ((spe_u8x16)((spe_i8x16)n > 9) & ('a' - '0' - 10));
	memcpy(p, &c, 16);
}
#endif

/* The same with shifts in two words. */
static inline void spe_hex16_swar(char *p, uint64_t v)
{
	for (int k = 0; k < 2; k++) {
		uint64_t x = k ? (uint32_t)v : v >> 32, m;

		x = (x | x << 16) & 0x0000ffff0000ffffULL;
		x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
		x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL; /* byte i: nibble i */
		x = __builtin_bswap64(x);
		m = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL; /* nibble > 9 */
		x += 0x3030303030303030ULL + m * ('a' - '0' - 10);
		memcpy(p + 8 * k, &x, 8);
	}
}

#ifdef SPE_TEXT_VEC
#define spe_hex16 spe_hex16_vec
#else
#define spe_hex16 spe_hex16_swar
#endif

/* @v in lower-case hex without leading zeros or prefix: its digits moved to the top of the
 * word first, so the 16 stored start with them (the rest is overwritten by what follows) */
static inline char *spe_put_hex(char *p, uint64_t v)
{
	unsigned int nd = spe_hex_digits(v);

	spe_hex16(p, v << (64 - 4 * nd));
	return p + nd;
}

/* @v in decimal: core's writer (eight digits a word, the count from the bit length) */
#define spe_put_u64 hws_fmt__u64

static inline char *spe_put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return spe_put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return spe_put_u64(p, (uint64_t)v);
}

#endif
