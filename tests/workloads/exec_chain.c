// SPDX-License-Identifier: MIT
/* Exec demo workload: spins in before_exec() for argv[1] iterations (default 30M, about
 * 0.1 s), then, given more arguments, replaces itself with them (execv(argv[2], argv + 2)),
 * so a recording holds samples of one process (one pid) in two images. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) long before_exec(long n)
{
	volatile long s = 0;

	for (long i = 0; i < n; i++)
		s += i % 7;
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30000000;

	printf("exec_chain: %ld\n", before_exec(n));
	fflush(stdout);
	if (argc > 2) {
		execv(argv[2], argv + 2);
		perror("exec_chain: execv");
		return 1;
	}
	return 0;
}
