// SPDX-License-Identifier: MIT
/*
 * callchain [SECONDS]: known call chains for the call-graph tests (tests/e2e/decode_callchain.sh).
 * Burns CPU for SECONDS (default 0.3) in loops of three paths:
 *   main -> cc_level1 -> cc_level2 -> cc_level3 -> cc_leaf (cc_mix inlined into cc_leaf)
 *   main -> cc_recurse x5 -> cc_leaf
 *   main -> qsort (libc, a shared library) -> cc_cmp (a callback called from the library)
 * Built twice: callchain with -fno-omit-frame-pointer (frame-pointer chains are whole) and
 * callchain_nofp with -fomit-frame-pointer (they are not: only what the kernel finds).
 */
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long cc_mix(unsigned long x)
{
	return (x * 2654435761UL) ^ (x >> 7);
}

NOINLINE unsigned long cc_leaf(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += cc_mix(i + sink);
	sink += s;
	return s;
}

/* each adds after its call, so that no call is a tail call */
NOINLINE unsigned long cc_level3(unsigned long n)
{
	return cc_leaf(n) + sink;
}

NOINLINE unsigned long cc_level2(unsigned long n)
{
	return cc_level3(n) + sink;
}

NOINLINE unsigned long cc_level1(unsigned long n)
{
	return cc_level2(n) + sink;
}

NOINLINE unsigned long cc_recurse(int depth, unsigned long n)
{
	if (!depth)
		return cc_leaf(n);
	return cc_recurse(depth - 1, n) + sink;
}

NOINLINE int cc_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	for (int i = 0; i < 20; i++)
		sink += cc_mix(x + i);
	return x < y ? -1 : x > y;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.3, t0 = cpu_seconds();
	static unsigned long arr[2048];

	while (cpu_seconds() - t0 < secs) {
		cc_level1(200000);
		cc_recurse(5, 200000);
		for (unsigned long i = 0; i < 2048; i++)
			arr[i] = cc_mix(i * 7 + sink) & 0xffff;
		qsort(arr, 2048, sizeof(arr[0]), cc_cmp);
	}
	return (int)(sink & 0);
}
