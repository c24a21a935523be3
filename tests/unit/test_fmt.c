// SPDX-License-Identifier: MIT
/*
 * include/hwsample/fmt.h (the unchecked decimal/hex writers of dump and the backends) against
 * snprintf: every power of ten and of two and their neighbours, every value below 100000,
 * every digit count and nibble count at both ends, and a million random values spread over
 * all bit lengths. Each writer is checked: hws_fmt__u64, hws_fmt__u32 (for values below
 * 2^32), hws_fmt__word8 (below 10^8), hws_fmt__hex (SSE2 on x86-64), and the portable
 * paths that other hosts use (hws_fmt__hex_digits_swar, hws_fmt__swar8_scalar, which must
 * equal the SSE2 hws_fmt__swar8); the signed hws_fmt__i64 on each value's bits as an int64_t
 * and on its negation (both ends: INT64_MIN, INT64_MAX); the fixed-width hws_fmt__dec9
 * (below 10^9, "%09") and hws_fmt__dec3 (below 1000, "%03"). Also checks that a writer
 * stores nothing beyond its end + HWS_FMT_SLACK. Every value below 10^6 and every
 * 10^4-block edge below 10^8 are included.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hwsample/fmt.h>
#include "tests.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	return tests_xorshift64(&rng);
}

static int bad;
static unsigned long n_u32, n_dec9;

/* @got was filled with '#' before the writer ran and the writer returned @e */
static void expect(const char *what, const char *want, const char *got, const char *e)
{
	size_t n = strlen(want);

	if ((size_t)(e - got) != n || memcmp(got, want, n) || got[n + HWS_FMT_SLACK] != '#') {
		if (bad++ < 5)
			fprintf(stderr, "%s %s: got '%.*s'\n", what, want, (int)(e - got), got);
	}
}

static void check(uint64_t v)
{
	char want[64], got[64 + HWS_FMT_SLACK], *e;

	memset(got, '#', sizeof(got));
	snprintf(want, sizeof(want), "%" PRIu64, v);
	e = hws_fmt__u64(got, v);
	expect("u64", want, got, e);
	if (v <= UINT32_MAX) {
		memset(got, '#', sizeof(got));
		e = hws_fmt__u32(got, (uint32_t)v);
		expect("u32", want, got, e);
		n_u32++;
	}
	if (v < 100000000) {
		unsigned int k;
		uint64_t w = hws_fmt__word8((uint32_t)v, &k);

		memset(got, '#', sizeof(got));
		memcpy(got, &w, 8);
		expect("word8", want, got, got + k);
		/* the portable eight digits (other hosts) agree with the SSE2 ones */
		if (hws_fmt__swar8_scalar((uint32_t)v) != hws_fmt__swar8((uint32_t)v) && bad++ < 5)
			fprintf(stderr, "swar8_scalar %s differs\n", want);
	}
	if (v < 1000000000) {
		memset(got, '#', sizeof(got));
		snprintf(want, sizeof(want), "%09" PRIu64, v);
		e = hws_fmt__dec9(got, (uint32_t)v);
		expect("dec9", want, got, e);
		n_dec9++;
	}
	if (v < 1000) {
		memset(got, '#', sizeof(got));
		snprintf(want, sizeof(want), "%03" PRIu64, v);
		e = hws_fmt__dec3(got, (uint32_t)v);
		expect("dec3", want, got, e);
	}
	/* the same bits as a signed value (negative for the upper half), and its negation */
	memset(got, '#', sizeof(got));
	snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
	e = hws_fmt__i64(got, (int64_t)v);
	expect("i64", want, got, e);
	memset(got, '#', sizeof(got));
	snprintf(want, sizeof(want), "%" PRId64, (int64_t)((uint64_t)0 - v));
	e = hws_fmt__i64(got, (int64_t)((uint64_t)0 - v));
	expect("i64", want, got, e);
	memset(got, '#', sizeof(got));
	snprintf(want, sizeof(want), "0x%" PRIx64, v);
	e = hws_fmt__hex(got, v);
	expect("hex", want, got, e);
	memset(got, '#', sizeof(got));
	e = hws_fmt__hex_digits_swar(got, v);
	expect("hex_swar", want + 2, got, e);
}

#ifdef HWS_FMT_HAVE_FIXED2
static unsigned long n_fixed2;

/* hws_fmt__fixed2 against "%.2f" */
static void check_fixed2(double v)
{
	char want[64], got[HWS_FMT_PCT_MAX + 8], *e;

	memset(got, '#', sizeof(got));
	snprintf(want, sizeof(want), "%.2f", v);
	e = hws_fmt__fixed2(got, v);
	expect("fixed2", want, got, e);
	n_fixed2++;
}
#endif

int main(void)
{
	uint64_t p = 1;
	unsigned long n = 0;

	for (int i = 0; i < 20; i++, p *= 10) {
		check(p - 1);
		check(p);
		check(p + 1);
		n += 3;
	}
	for (int i = 0; i < 64; i++) {
		check((1ULL << i) - 1);
		check(1ULL << i);
		check((1ULL << i) + 1);
		n += 3;
	}
	check(UINT64_MAX);
	check(UINT64_MAX - 1);
	check((uint64_t)INT64_MAX); /* and INT64_MIN, its neighbour, as signed values */
	check((uint64_t)INT64_MAX + 1);
	check((uint64_t)INT64_MAX + 2);
	check(999999999);
	check(1000000000);
	check(UINT32_MAX);
	check(UINT32_MAX - 1);
	check((uint64_t)UINT32_MAX + 1);
	/* every nibble count: the smallest and largest value with k nibbles, all-ones digits */
	for (int k = 1; k <= 16; k++, n += 4) {
		uint64_t top = k == 16 ? UINT64_MAX : (1ULL << (4 * k)) - 1;

		check(top);
		check(k == 1 ? 0 : 1ULL << (4 * (k - 1)));
		check(top / 15 * 9);  /* 99...9 in hex */
		check(top / 15 * 10); /* aa...a in hex */
	}
	/* every decimal digit count: 9, 99, ...; 10^k with 1..9 in front (1, 10, 20, ... 900..) */
	for (uint64_t q = 1, k = 0; k < 20; k++, q *= 10) {
		for (uint64_t d = 1; d <= 9; d++, n++)
			if (d * q / q == d)
				check(d * q);
		if (k < 19)
			check(q * 10 - 1);
	}
	for (uint64_t v = 0; v < 1000000; v++, n++)
		check(v);
	/* the SSE2 eight digits split at 10^4: both sides of every block edge */
	for (uint64_t v = 10000; v < 100000000; v += 10000, n += 2) {
		check(v - 1);
		check(v);
	}
	for (int i = 0; i < 1000000; i++, n++)
		check(next_rand() >> (next_rand() & 63));
#ifdef HWS_FMT_HAVE_FIXED2
	/* percentages as report computes them (100 * part / total), every tie (odd eighths:
	 * x.125, x.375 ... round to even), binary fractions, hundredths and their neighbours,
	 * and the whole range up to 10^7 */
	for (uint64_t k = 0; k < 80000; k++) {
		check_fixed2((double)k / 8);
		check_fixed2((double)k / 1024);
		check_fixed2((double)k / 100);
		check_fixed2(nextafter((double)k / 100, 0));
		check_fixed2(nextafter((double)k / 100, 1e9));
		check_fixed2((double)k / 100 + 0.005);
	}
	for (int i = 0; i < 1000000; i++) {
		uint64_t total = (next_rand() >> (next_rand() & 63)) | 1,
			 part = next_rand() % total;

		check_fixed2(100.0 * (double)part / (double)total);
	}
	for (int i = 0; i < 100000; i++)
		check_fixed2((double)(next_rand() % 1000000000) / 100.0 + 1e-3 * (i & 7));
	check_fixed2(9999999.994);
	check_fixed2(9999999.995);
	__T("fixed2 checked on many", n_fixed2 > 1000000);
#endif
	T_EQ_U64("values formatted unlike snprintf", bad, 0);
	__T("checked more than a million values", n > 1000000);
	__T("u32 writer checked on most of them", n_u32 > 100000);
	__T("nine-digit writer checked on many", n_dec9 > 1000000);
	TEST_END();
}
