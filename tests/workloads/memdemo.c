// SPDX-License-Identifier: MIT
/*
 * Demo workload for `scripts/run`: three memory behaviours a sampling report should tell
 * apart, each in its own function with its own global array, so symbols show which is which:
 *   chase()   a random pointer chase through 64 MiB (cache and TLB misses, long latency)
 *   stream()  a sequential sum over 32 MiB (prefetch-friendly, mostly L1/L2 hits)
 *   touch()   first touches of fresh pages (page faults with their addresses)
 * Runs about a second. argv[1] scales the work (default 1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define CHASE_N	 (8u << 20) /* 8 Mi entries x 8 B = 64 MiB */
#define STREAM_N (4u << 20)

static uint64_t *chase_table;
static uint64_t *stream_array;
volatile uint64_t demo_sink;

static __attribute__((noinline)) uint64_t chase(unsigned int steps)
{
	uint64_t i = 0;

	for (unsigned int s = 0; s < steps; s++)
		i = chase_table[i];
	return i;
}

static __attribute__((noinline)) uint64_t stream(unsigned int rounds)
{
	uint64_t sum = 0;

	for (unsigned int r = 0; r < rounds; r++)
		for (unsigned int i = 0; i < STREAM_N; i++)
			sum += stream_array[i];
	return sum;
}

static __attribute__((noinline)) void touch(size_t mib)
{
	size_t n = mib << 20;
	volatile char *p =
	    mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < n; i += 4096)
		p[i] = (char)i;
	munmap((void *)p, n);
}

int main(int argc, char **argv)
{
	unsigned int scale = argc > 1 ? (unsigned int)atoi(argv[1]) : 1;
	uint64_t x = 88172645463325252ull;

	chase_table = malloc(sizeof(uint64_t) * CHASE_N);
	stream_array = malloc(sizeof(uint64_t) * STREAM_N);
	if (!chase_table || !stream_array)
		return 1;
	/* a random single cycle (Sattolo) so the chase visits every entry */
	for (uint64_t i = 0; i < CHASE_N; i++)
		chase_table[i] = i;
	for (uint64_t i = CHASE_N - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t j = x % i, t = chase_table[i];
		chase_table[i] = chase_table[j];
		chase_table[j] = t;
	}
	for (unsigned int i = 0; i < STREAM_N; i++)
		stream_array[i] = i;
	for (unsigned int k = 0; k < scale; k++) {
		demo_sink += chase(4u << 20);
		demo_sink += stream(4);
		touch(64);
	}
	printf("memdemo: done (%llu)\n", (unsigned long long)(demo_sink & 0xff));
	return 0;
}
