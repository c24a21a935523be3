// SPDX-License-Identifier: MIT
/*
 * alloc_mix [N]: an allocation-heavy benchmark for hwsample record --objects
 * (scripts/bench-objects) after the design of glibc's own malloc benchmark
 * (glibc benchtests/bench-malloc-thread.c, one thread): a working set of 1024 blocks; each of N
 * million (default 4) steps frees the block of a pseudo-random slot and allocates a new one
 * there, its size drawn from an inverse-square distribution between 4 bytes and 32 KiB
 * (8000 sizes and 4096 slots drawn up front). About 0.5% of the blocks reach the recorder's
 * default 1 KiB threshold. Every block's first and last bytes written; prints a checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc_bench.h"

#define WORKING_SET 1024
#define MIN_SIZE    4.0f
#define MAX_SIZE    32768.0f
#define NSIZES	    8000
#define NSLOTS	    (WORKING_SET * 4)

static uint64_t rng = 88172645463325252ULL;

static uint32_t next(void)
{
	return (uint32_t)(xorshift64(&rng) >> 32);
}

/* inverse square: the inverse of its distribution function at a uniform r in [0, 1] */
static size_t draw_size(void)
{
	float r = (float)next() / 4294967296.0f, lo = 1.0f / MIN_SIZE, hi = 1.0f / MAX_SIZE;

	return (size_t)(1.0f / (lo - (lo - hi) * r));
}

int main(int argc, char **argv)
{
	long n = (argc > 1 ? atol(argv[1]) : 4) * 1000000L;
	static char *blocks[WORKING_SET];
	static size_t sizes[NSIZES];
	static uint32_t slots[NSLOTS];
	uint64_t sum = 0;
	size_t big = 0;

	for (int i = 0; i < NSIZES; i++)
		sizes[i] = draw_size();
	for (int i = 0; i < NSLOTS; i++)
		slots[i] = next() % WORKING_SET;
	for (long i = 0; i < n; i++) {
		uint32_t slot = slots[i % NSLOTS];
		size_t sz = sizes[i % NSIZES];
		char *p;

		free(blocks[slot]);
		p = alloc_touch(sz, i, &sum);
		if (!p)
			return 1;
		big += sz >= 1024;
		blocks[slot] = p;
	}
	for (int i = 0; i < WORKING_SET; i++)
		free(blocks[i]);
	printf("%llu %zu\n", (unsigned long long)sum, big);
	return 0;
}
