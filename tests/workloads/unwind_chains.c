// SPDX-License-Identifier: MIT
/*
 * unwind_chains [ms]: known call chains for --call-graph dwarf tests, built with -O2 -g
 * -fomit-frame-pointer (tests/CMakeLists.txt), so only the DWARF CFI finds the callers:
 *   main -> uc_level1 -> uc_level2 -> uc_level3 -> uc_spin          (noinline levels)
 *   main -> uc_recurse x UC_DEPTH -> uc_spin                        (recursion)
 *   main -> uc_sort -> qsort (libc) -> ... -> uc_cmp -> uc_spin      (a shared library)
 *   main -> uc_outer -> uc_mix (inlined) -> uc_hash (inlined)        (inline frames)
 * each for about @ms milliseconds (default 300) in total, round robin.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define UC_DEPTH 6
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noipa)) /* no clones (.constprop) under LTO */
#endif

volatile uint64_t uc_sink;

NOINLINE void uc_spin(unsigned n)
{
	uint64_t x = uc_sink;

	for (unsigned i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	uc_sink = x;
}

NOINLINE void uc_level3(unsigned n)
{
	uc_spin(n);
	uc_sink++;
}

NOINLINE void uc_level2(unsigned n)
{
	uc_level3(n);
	uc_sink++;
}

NOINLINE void uc_level1(unsigned n)
{
	uc_level2(n);
	uc_sink++;
}

NOINLINE void uc_recurse(int depth, unsigned n)
{
	if (depth > 0)
		uc_recurse(depth - 1, n);
	else
		uc_spin(n);
	uc_sink++;
}

static int uc_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	uc_spin(20);
	return x < y ? -1 : x > y;
}

NOINLINE void uc_sort(uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (i * 2654435761u) % 1000003u;
	qsort(v, n, sizeof(*v), uc_cmp);
	uc_sink += v[0];
}

static inline __attribute__((always_inline)) uint64_t uc_hash(uint64_t x)
{
	for (int i = 0; i < 64; i++)
		x = (x ^ (x >> 31)) * 0x9E3779B97F4A7C15ULL + (uint64_t)i;
	return x;
}

static inline __attribute__((always_inline)) uint64_t uc_mix(uint64_t x, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		x = uc_hash(x + i);
	return x;
}

NOINLINE void uc_outer(unsigned n)
{
	uc_sink = uc_mix(uc_sink, n);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300, t0 = now_ms();
	static uint64_t v[2048];

	do {
		uc_level1(200000);
		uc_recurse(UC_DEPTH, 200000);
		uc_sort(v, 2048);
		uc_outer(2000);
	} while (now_ms() - t0 < ms);
	return 0;
}
