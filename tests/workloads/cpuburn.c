// SPDX-License-Identifier: MIT
/* CPU-bound demo workload for the record-overhead benchmark: integer hashing in a tight
 * loop, no system calls, argv[1] x 100M iterations (default 5: about 0.5-1 s). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 0) : 5) * 100000000ull, x = 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	printf("cpuburn: %llu\n", (unsigned long long)(x & 0xff));
	return 0;
}
