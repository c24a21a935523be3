/* SPDX-License-Identifier: MIT */
/*
 * What the allocation benchmarks (alloc_churn.c, alloc_mix.c) share: their pseudo-random
 * sequence and the work done on each block, so that they differ only in their sizes and
 * in the order of their frees.
 */
#ifndef HWS_WORKLOADS_ALLOC_BENCH_H
#define HWS_WORKLOADS_ALLOC_BENCH_H

#include <stdint.h>
#include <stdlib.h>

/* the next number of the xorshift64 sequence in @x */
static inline uint64_t xorshift64(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* a block of @sz bytes (step @i) with its first and last bytes written, its first added to
 * @sum; NULL when malloc fails */
static inline char *alloc_touch(size_t sz, long i, uint64_t *sum)
{
	char *p = malloc(sz);

	if (p) {
		p[0] = (char)i;
		p[sz - 1] = (char)sz;
		*sum += (uint8_t)p[0];
	}
	return p;
}

#endif
