// SPDX-License-Identifier: MIT
/*
 * vdso_clock [N]: N (default 2000000) clock_gettime(CLOCK_MONOTONIC) calls, which the vDSO
 * serves without entering the kernel: most samples of a recording land in the vDSO
 * (__vdso_clock_gettime and the functions it calls), for tests of vDSO symbol names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	struct timespec ts;
	unsigned long sum = 0;

	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += (unsigned long)ts.tv_nsec;
	}
	printf("%lu\n", sum & 1);
	return 0;
}
