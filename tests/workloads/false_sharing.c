// SPDX-License-Identifier: MIT
/*
 * false_sharing: N threads each increment their own counter, but all counters sit in one
 * 64-byte cache line (fs_counters), so every increment steals the line from the other
 * cores: the classic false sharing. Compare with padded (same work, one line per counter)
 * and true_sharing (all threads on one counter).
 *
 *   false_sharing [THREADS (2..8, default 4)] [ITERATIONS per thread (default 50000000)]
 *
 * hwsample c2c report shows fs_counters as false sharing at offsets 0x0,0x8,... with
 * fs_worker as the code; prints the elapsed time so the padded fix can be compared.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 8

/* one cache line, one 8-byte counter per thread */
struct {
	volatile long c[MAX_THREADS];
} fs_counters __attribute__((aligned(64)));

static long iters = 50000000;

static void *fs_worker(void *arg)
{
	long i, me = (long)arg;

	for (i = 0; i < iters; i++)
		fs_counters.c[me]++; /* load + store of this thread's counter */
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	struct timespec t0, t1;
	long n = argc > 1 ? atol(argv[1]) : 4, i, sum = 0;

	if (argc > 2)
		iters = atol(argv[2]);
	if (n < 2 || n > MAX_THREADS || iters <= 0) {
		fprintf(stderr, "usage: false_sharing [THREADS 2..8] [ITERATIONS]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, fs_worker, (void *)i);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < n; i++)
		sum += fs_counters.c[i];
	printf("false_sharing: %ld threads x %ld increments, sum %ld, %.3f s\n", n, iters, sum,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return sum == n * iters ? 0 : 1;
}
