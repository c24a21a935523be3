/* SPDX-License-Identifier: MIT */
/*
 * Unchecked number writers for the hot output paths (dump's lines, the backends' raw
 * fields): the tree's one set of integer-to-text writers (decimal, signed, fixed-width,
 * hex). Header-only: nothing here is part of the library's ABI.
 *
 * Invariants: each writer stores at @p and returns the end of what it wrote; it may store
 * up to HWS_FMT_SLACK bytes past that end (whole 4-, 8- or 16-byte stores), so the caller
 * must have reserved the longest result plus HWS_FMT_SLACK (HWS_FMT_*_MAX). The longest
 * results are 20 decimal digits, '-' and 19 digits, and "0x" + 16 hex digits. No division
 * loop: eight digits at a time in one 64-bit word (SWAR) or eight SSE2 lanes, hex nibbles
 * spread into bytes with shifts (or one SSE2 step); the digit count comes from the value's
 * bit length. Each SSE2 path has a portable twin (arm64 and other hosts) that the unit test
 * holds to the same results. Host byte order must be little-endian (x86-64, arm64: the
 * tool's targets). tests/unit/test_fmt.c holds every writer to snprintf.
 */
#ifndef HWSAMPLE_FMT_H
#define HWSAMPLE_FMT_H

#include <float.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__) && defined(__x86_64__) /* 64-bit moves to and from xmm */
#define HWS_FMT_SSE2 1
#include <emmintrin.h>
#endif

#define HWS_FMT_SLACK	16
#define HWS_FMT_U64_MAX (20 + HWS_FMT_SLACK)
#define HWS_FMT_I64_MAX (20 + HWS_FMT_SLACK) /* '-' and 19 digits */
#define HWS_FMT_HEX_MAX (18 + HWS_FMT_SLACK)
#define HWS_FMT_PCT_MAX (11 + HWS_FMT_SLACK) /* 7 digits, '.', 2 digits */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hwsample/fmt.h assumes a little-endian host"
#endif

/* x < 10^8 as eight ASCII digits, leading zeros kept, first digit in the lowest byte */
static inline uint64_t hws_fmt__swar8_scalar(uint32_t x)
{
	uint64_t m = (x / 10000) | ((uint64_t)(x % 10000) << 32);
	/* two 4-digit lanes -> four 2-digit lanes (x / 100 as x * 10486 >> 20, exact < 10^4) */
	uint64_t top = ((m * 10486) >> 20) & 0x0000007f0000007fULL;
	uint64_t h = ((m - 100 * top) << 16) + top;
	/* four 2-digit lanes -> eight digits (x / 10 as x * 103 >> 10, exact < 179) */
	uint64_t t = ((h * 103) >> 10) & 0x000f000f000f000fULL;

	t += (h - 10 * t) << 8;
	return t + 0x3030303030303030ULL;
}

/*
 * The same with SSE2 where it is there (x86-64 baseline): the two 4-digit halves spread over
 * eight 16-bit lanes, divided by 1000/100/10/1 with multiply-high (x * m >> k, exact below
 * 10^4), then each lane minus ten times its left neighbour (Wojciech Mula's SSE2 itoa).
 * Fewer dependent multiplies than the scalar word: measured 1.5-3 ns faster per JSON line.
 */
static inline uint64_t hws_fmt__swar8(uint32_t x)
{
#ifdef HWS_FMT_SSE2
	const __m128i v0 = _mm_cvtsi32_si128((int)x);
	/* x / 10^4 as x * 0xd1b71759 >> 45 (exact below 2^32), and the remainder */
	const __m128i hi = _mm_srli_epi64(_mm_mul_epu32(v0, _mm_set1_epi32((int)0xd1b71759)), 45);
	const __m128i lo = _mm_sub_epi32(v0, _mm_mul_epu32(hi, _mm_set1_epi32(10000)));
	/* [4hi, 4lo] -> [4hi x4, 4lo x4] (times 4 so the first multiply keeps more bits) */
	__m128i v = _mm_slli_epi64(_mm_unpacklo_epi16(hi, lo), 2);

	v = _mm_unpacklo_epi16(v, v);
	v = _mm_unpacklo_epi32(v, v);
	/* lanes / 1000, / 100, / 10, / 1: x * m >> 16, then >> 7, 11, 13, 15 as a multiply-high */
	v = _mm_mulhi_epu16(
	    v, _mm_setr_epi16(8389, 5243, 13108, (short)32768, 8389, 5243, 13108, (short)32768));
	v = _mm_mulhi_epu16(v, _mm_setr_epi16(1 << 7, 1 << 11, 1 << 13, (short)(1 << 15), 1 << 7,
					      1 << 11, 1 << 13, (short)(1 << 15)));
	/* [a, ab, abc, abcd] - 10 * [0, a, ab, abc] = [a, b, c, d] */
	v = _mm_sub_epi16(v, _mm_slli_epi64(_mm_mullo_epi16(v, _mm_set1_epi16(10)), 16));
	v = _mm_add_epi8(_mm_packus_epi16(v, v), _mm_set1_epi8('0'));
	return (uint64_t)_mm_cvtsi128_si64(v);
#else
	return hws_fmt__swar8_scalar(x);
#endif
}

/* "00".."99" as little-endian 16-bit words */
#define HWS_FMT_P10(d)                                                                             \
	HWS_FMT_P1(d, 0), HWS_FMT_P1(d, 1), HWS_FMT_P1(d, 2), HWS_FMT_P1(d, 3), HWS_FMT_P1(d, 4),  \
	    HWS_FMT_P1(d, 5), HWS_FMT_P1(d, 6), HWS_FMT_P1(d, 7), HWS_FMT_P1(d, 8),                \
	    HWS_FMT_P1(d, 9)
#define HWS_FMT_P1(a, b) (uint16_t)(('0' + (a)) | ('0' + (b)) << 8)
static const uint16_t hws_fmt__pairs[100] = {
    HWS_FMT_P10(0), HWS_FMT_P10(1), HWS_FMT_P10(2), HWS_FMT_P10(3), HWS_FMT_P10(4),
    HWS_FMT_P10(5), HWS_FMT_P10(6), HWS_FMT_P10(7), HWS_FMT_P10(8), HWS_FMT_P10(9),
};
#undef HWS_FMT_P10
#undef HWS_FMT_P1

/* decimal digits of @v (1..20) */
static inline unsigned int hws_fmt__digits(uint64_t v)
{
	static const uint64_t pow10[20] = {1ULL,
					   10ULL,
					   100ULL,
					   1000ULL,
					   10000ULL,
					   100000ULL,
					   1000000ULL,
					   10000000ULL,
					   100000000ULL,
					   1000000000ULL,
					   10000000000ULL,
					   100000000000ULL,
					   1000000000000ULL,
					   10000000000000ULL,
					   100000000000000ULL,
					   1000000000000000ULL,
					   10000000000000000ULL,
					   100000000000000000ULL,
					   1000000000000000000ULL,
					   10000000000000000000ULL};
	/* bit length * 1233 / 4096 approximates log10(2^bits); one compare fixes it up */
	unsigned int bits, d;

	v |= 1; /* 0 has one digit; or-ing 1 never changes the count */
	bits = 64 - (unsigned int)__builtin_clzll(v);
	d = (bits * 1233) >> 12;
	return d + (v >= pow10[d]);
}

static inline __attribute__((always_inline)) char *hws_fmt__u64(char *p, uint64_t v)
{
	static const char pairs[200] = "0001020304050607080910111213141516171819"
				       "2021222324252627282930313233343536373839"
				       "4041424344454647484950515253545556575859"
				       "6061626364656667686970717273747576777879"
				       "8081828384858687888990919293949596979899";
	uint64_t w;

	if (v < 100) { /* CPUs, small periods: a table is cheaper than the digit count */
		memcpy(p, pairs + 2 * v + (v < 10), 2);
		return p + 1 + (v >= 10);
	}
	if (v < 10000) { /* pids, latencies: two pairs */
		uint32_t hi = (uint32_t)v / 100, lo = (uint32_t)v % 100;

		memcpy(p, pairs + 2 * hi + (hi < 10), 2);
		p += 1 + (hi >= 10);
		memcpy(p, pairs + 2 * lo, 2);
		return p + 2;
	}
	if (v < 100000000) {
		unsigned int n = hws_fmt__digits(v);

		w = hws_fmt__swar8((uint32_t)v) >> (8 * (8 - n));
		memcpy(p, &w, 8);
		return p + n;
	}
	if (v < 10000000000000000ULL) {
		uint32_t hi = (uint32_t)(v / 100000000), lo = (uint32_t)(v % 100000000);
		unsigned int n = hws_fmt__digits(hi);

		w = hws_fmt__swar8(hi) >> (8 * (8 - n));
		memcpy(p, &w, 8);
		p += n;
		w = hws_fmt__swar8(lo);
		memcpy(p, &w, 8);
		return p + 8;
	} else {
		uint64_t q = v / 100000000;
		uint32_t top = (uint32_t)(q / 100000000), mid = (uint32_t)(q % 100000000),
			 lo = (uint32_t)(v % 100000000);
		unsigned int n = hws_fmt__digits(top);

		w = hws_fmt__swar8(top) >> (8 * (8 - n));
		memcpy(p, &w, 8);
		p += n;
		w = hws_fmt__swar8(mid);
		memcpy(p, &w, 8);
		w = hws_fmt__swar8(lo);
		memcpy(p + 8, &w, 8);
		return p + 16;
	}
}

/* @v below 10^8 as digits in one word (first digit in the lowest byte) and their count */
static inline __attribute__((always_inline)) uint64_t hws_fmt__word8(uint32_t v, unsigned int *n)
{
	static const uint32_t pow10[9] = {1,	  10,	   100,	     1000,     10000,
					  100000, 1000000, 10000000, 100000000};
	unsigned int d = ((32 - (unsigned int)__builtin_clz(v | 1)) * 1233) >> 12;

	d += (v | 1) >= pow10[d];
	*n = d;
	return hws_fmt__swar8(v) >> (8 * (8 - d));
}

/*
 * 0..999 as text in one 32-bit word, first digit in the lowest byte: lead3 without leading
 * zeros and with the digit count in the top byte, pad3 with leading zeros ("007"). One load
 * and one 4-byte store write up to three digits; 8 KiB of tables in all.
 */
#define HWS_FMT_D(x) ((uint32_t)('0' + (x)))
#define HWS_FMT_L3(a, b, c)                                                                        \
	((a)   ? (HWS_FMT_D(a) | HWS_FMT_D(b) << 8 | HWS_FMT_D(c) << 16 | 3u << 24)                \
	 : (b) ? (HWS_FMT_D(b) | HWS_FMT_D(c) << 8 | 2u << 24)                                     \
	       : (HWS_FMT_D(c) | 1u << 24))
#define HWS_FMT_Z3(a, b, c) (HWS_FMT_D(a) | HWS_FMT_D(b) << 8 | HWS_FMT_D(c) << 16)
#define HWS_FMT_R1(F, a, b)                                                                        \
	F(a, b, 0), F(a, b, 1), F(a, b, 2), F(a, b, 3), F(a, b, 4), F(a, b, 5), F(a, b, 6),        \
	    F(a, b, 7), F(a, b, 8), F(a, b, 9)
#define HWS_FMT_R2(F, a)                                                                           \
	HWS_FMT_R1(F, a, 0), HWS_FMT_R1(F, a, 1), HWS_FMT_R1(F, a, 2), HWS_FMT_R1(F, a, 3),        \
	    HWS_FMT_R1(F, a, 4), HWS_FMT_R1(F, a, 5), HWS_FMT_R1(F, a, 6), HWS_FMT_R1(F, a, 7),    \
	    HWS_FMT_R1(F, a, 8), HWS_FMT_R1(F, a, 9)
#define HWS_FMT_R3(F)                                                                              \
	HWS_FMT_R2(F, 0), HWS_FMT_R2(F, 1), HWS_FMT_R2(F, 2), HWS_FMT_R2(F, 3), HWS_FMT_R2(F, 4),  \
	    HWS_FMT_R2(F, 5), HWS_FMT_R2(F, 6), HWS_FMT_R2(F, 7), HWS_FMT_R2(F, 8),                \
	    HWS_FMT_R2(F, 9)
static const uint32_t hws_fmt__lead3[1000] = {HWS_FMT_R3(HWS_FMT_L3)};
static const uint32_t hws_fmt__pad3[1000] = {HWS_FMT_R3(HWS_FMT_Z3)};
#undef HWS_FMT_D
#undef HWS_FMT_L3
#undef HWS_FMT_Z3
#undef HWS_FMT_R1
#undef HWS_FMT_R2
#undef HWS_FMT_R3

/*
 * @v below 2^32 with fewer size tiers than hws_fmt__u64(): values of mixed sizes (pids 0, 18,
 * 1234; latencies) would mispredict its branches, so everything below 10^3 takes one path
 * (one table word), everything below 10^6 another (two table words) and the rest the SWAR
 * words. The table paths are a few instructions against about 25 for digit pairs, a digit
 * count and a shift.
 */
static inline __attribute__((always_inline)) char *hws_fmt__u32(char *p, uint32_t v)
{
	static const uint32_t pow10[9] = {1,	  10,	   100,	     1000,     10000,
					  100000, 1000000, 10000000, 100000000};
	unsigned int n, bits;
	uint32_t x;
	uint64_t w;

	if (v < 1000) {
		x = hws_fmt__lead3[v];
		memcpy(p, &x, 4);
		return p + (x >> 24);
	}
	if (v < 1000000) {
		uint32_t hi = v / 1000, lo = v - hi * 1000;

		x = hws_fmt__lead3[hi];
		memcpy(p, &x, 4);
		p += x >> 24;
		x = hws_fmt__pad3[lo];
		memcpy(p, &x, 4);
		return p + 3;
	}
	if (__builtin_expect(v >= 100000000, 0))
		return hws_fmt__u64(p, v);
	bits = 32 - (unsigned int)__builtin_clz(v);
	n = (bits * 1233) >> 12;
	n += v >= pow10[n];
	w = hws_fmt__swar8(v) >> (8 * (8 - n));
	memcpy(p, &w, 8);
	return p + n;
}

/* a pid or tid as perf prints a pid_t: signed (a task the kernel could not name is -1) */
static inline __attribute__((always_inline)) char *hws_fmt__pid(char *p, uint32_t v)
{
	if (__builtin_expect((int32_t)v < 0, 0)) {
		*p++ = '-';
		v = 0u - v;
	}
	return hws_fmt__u32(p, v);
}

/* @v in decimal with a '-' when negative (printf "%" PRId64) */
static inline __attribute__((always_inline)) char *hws_fmt__i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return hws_fmt__u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return hws_fmt__u64(p, (uint64_t)v);
}

/* @v below 1000 as exactly three digits, leading zeros kept (printf "%03u") */
static inline __attribute__((always_inline)) char *hws_fmt__dec3(char *p, uint32_t v)
{
	uint32_t x = hws_fmt__pad3[v];

	memcpy(p, &x, 4);
	return p + 3;
}

/* @v below 10^9 as exactly nine digits, leading zeros kept (printf "%09u"): nanoseconds */
static inline __attribute__((always_inline)) char *hws_fmt__dec9(char *p, uint32_t v)
{
	uint64_t w = hws_fmt__swar8(v % 100000000);

	p[0] = (char)('0' + v / 100000000);
	memcpy(p + 1, &w, 8);
	return p + 9;
}

/* x's eight nibbles as lowercase hex, most significant first (lowest byte) */
static inline uint64_t hws_fmt__hex8(uint32_t x)
{
	uint64_t v = x, a;

	v = (v | v << 16) & 0x0000ffff0000ffffULL;
	v = (v | v << 8) & 0x00ff00ff00ff00ffULL;
	v = (v | v << 4) & 0x0f0f0f0f0f0f0f0fULL;
	v = __builtin_bswap64(v);
	/* 'a' - '0' - 10 = 39 added to the nibbles above 9 */
	a = ((v + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	return v + 0x3030303030303030ULL + a * 39;
}

/* hex digits of @v, no leading zeros, no 0x: the portable way (two 8-nibble words) */
static inline __attribute__((always_inline)) char *hws_fmt__hex_digits_swar(char *p, uint64_t v)
{
	unsigned int n = (67 - (unsigned int)__builtin_clzll(v | 1)) >> 2; /* nibbles, 1..16 */
	uint64_t w;

	if (n <= 8) {
		w = hws_fmt__hex8((uint32_t)v) >> (8 * (8 - n));
		memcpy(p, &w, 8);
		return p + n;
	}
	w = hws_fmt__hex8((uint32_t)(v >> 32)) >> (8 * (16 - n));
	memcpy(p, &w, 8);
	p += n - 8;
	w = hws_fmt__hex8((uint32_t)v);
	memcpy(p, &w, 8);
	return p + 8;
}

/* hex digits of @v, no leading zeros, no 0x */
static inline __attribute__((always_inline)) char *hws_fmt__hex_digits(char *p, uint64_t v)
{
#ifdef HWS_FMT_SSE2
	/* all 16 nibbles in one step, the leading zero nibbles shifted out first (n >= 1, so
	 * the shift is below 64); the bytes after the first n are '0's inside the slack */
	unsigned int n = (67 - (unsigned int)__builtin_clzll(v | 1)) >> 2; /* nibbles, 1..16 */
	uint64_t x = __builtin_bswap64(v << (4 * (16 - n)));
	const __m128i m0f = _mm_set1_epi8(0x0f);
	__m128i b = _mm_cvtsi64_si128((long long)x);
	__m128i nib =
	    _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(b, 4), m0f), _mm_and_si128(b, m0f));
	__m128i gt9 = _mm_cmpgt_epi8(nib, _mm_set1_epi8(9));

	nib = _mm_add_epi8(nib, _mm_add_epi8(_mm_set1_epi8('0'),
					     _mm_and_si128(gt9, _mm_set1_epi8('a' - '0' - 10))));
	_mm_storeu_si128((__m128i *)(void *)p, nib);
	return p + n;
#else
	return hws_fmt__hex_digits_swar(p, v);
#endif
}

/* 0x + hex digits, no leading zeros */
static inline __attribute__((always_inline)) char *hws_fmt__hex(char *p, uint64_t v)
{
	p[0] = '0';
	p[1] = 'x';
	return hws_fmt__hex_digits(p + 2, v);
}

#if LDBL_MANT_DIG >= 64
#define HWS_FMT_HAVE_FIXED2 1
/*
 * "%.2f" of 0 <= @v < 10^7 (perf's percentages), as printf rounds it: the exact binary value to
 * the nearest hundredth, ties to even. @v * 100 is exact in long double (53 significant bits
 * times 100's 5 fit its 64 on x86-64, 113 on arm64). Callers check @v's range; hosts without
 * such a long double (no HWS_FMT_HAVE_FIXED2) use printf.
 */
static inline char *hws_fmt__fixed2(char *p, double v)
{
	long double y = (long double)v * 100;
	uint64_t n = (uint64_t)y;
	long double f = y - (long double)n;

	if (f > 0.5L || (f == 0.5L && (n & 1)))
		n++;
	p = hws_fmt__u64(p, n / 100);
	p[0] = '.';
	p[1] = (char)('0' + n % 100 / 10);
	p[2] = (char)('0' + n % 10);
	return p + 3;
}
#endif

#endif
