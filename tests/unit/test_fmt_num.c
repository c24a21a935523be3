// SPDX-License-Identifier: MIT
/*
 * core/fmt_num.h (the unchecked decimal/hex writers of dump, report and c2c) against
 * snprintf: every power of ten and of two and their neighbours, every value below 100000,
 * and a million random values spread over all bit lengths. Also checks that a writer stores
 * nothing beyond its end + HWS_FMT_SLACK.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../core/fmt_num.h"
#include "tests.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int bad;

static void check(uint64_t v)
{
	char want[64], got[64 + HWS_FMT_SLACK], *e;

	memset(got, '#', sizeof(got));
	snprintf(want, sizeof(want), "%" PRIu64, v);
	e = hws_fmt__u64(got, v);
	if ((size_t)(e - got) != strlen(want) || memcmp(got, want, strlen(want)) ||
	    got[strlen(want) + HWS_FMT_SLACK] != '#') {
		if (bad++ < 5)
			fprintf(stderr, "u64 %s: got '%.*s'\n", want, (int)(e - got), got);
	}
	memset(got, '#', sizeof(got));
	snprintf(want, sizeof(want), "0x%" PRIx64, v);
	e = hws_fmt__hex(got, v);
	if ((size_t)(e - got) != strlen(want) || memcmp(got, want, strlen(want)) ||
	    got[strlen(want) + HWS_FMT_SLACK] != '#') {
		if (bad++ < 5)
			fprintf(stderr, "hex %s: got '%.*s'\n", want, (int)(e - got), got);
	}
}

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
	for (uint64_t v = 0; v < 100000; v++, n++)
		check(v);
	for (int i = 0; i < 1000000; i++, n++)
		check(next_rand() >> (next_rand() & 63));
	T_EQ_U64("values formatted unlike snprintf", bad, 0);
	__T("checked more than a million values", n > 1000000);
	TEST_END();
}
