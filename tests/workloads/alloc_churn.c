// SPDX-License-Identifier: MIT
/*
 * alloc_churn [N]: an allocation-heavy benchmark for hwsample record --objects
 * (scripts/bench-objects): N million (default 4) allocations, each freed a little later
 * (a ring of 256 live blocks), sizes from a fixed pseudo-random sequence: three in four
 * small (16-1008 bytes, under the default 1 KiB threshold), one in four 1-16 KiB; every
 * block's first and last bytes written. Prints a checksum so nothing is optimized away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc_bench.h"

int main(int argc, char **argv)
{
	long n = (argc > 1 ? atol(argv[1]) : 4) * 1000000L;
	static char *live[256];
	uint64_t x = 88172645463325252ULL, sum = 0;

	for (long i = 0; i < n; i++) {
		size_t sz;
		char *p;

		xorshift64(&x);
		sz = (x & 3) ? 16 + (x >> 8) % 993 : 1024 + (x >> 8) % (15 * 1024);
		p = alloc_touch(sz, i, &sum);
		if (!p)
			return 1;
		free(live[i & 255]);
		live[i & 255] = p;
	}
	for (int i = 0; i < 256; i++)
		free(live[i]);
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
