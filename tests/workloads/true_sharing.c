// SPDX-License-Identifier: MIT
/*
 * true_sharing: N threads increment one shared atomic counter (ts_counter). The line moves
 * between cores because the threads really share the data: padding cannot help, only less
 * sharing can (per-thread counters summed at the end, batching).
 *
 *   true_sharing [THREADS (2..8, default 4)] [ITERATIONS per thread (default 20000000)]
 *
 * hwsample c2c report shows ts_counter as true sharing at offset 0x0 with ts_worker as
 * the code.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 8

_Atomic long ts_counter __attribute__((aligned(64)));

static long iters = 20000000;

static void *ts_worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < iters; i++)
		atomic_fetch_add_explicit(&ts_counter, 1, memory_order_relaxed);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	struct timespec t0, t1;
	long n = argc > 1 ? atol(argv[1]) : 4, i, sum;

	if (argc > 2)
		iters = atol(argv[2]);
	if (n < 2 || n > MAX_THREADS || iters <= 0) {
		fprintf(stderr, "usage: true_sharing [THREADS 2..8] [ITERATIONS]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, ts_worker, NULL);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sum = atomic_load(&ts_counter);
	printf("true_sharing: %ld threads x %ld increments, sum %ld, %.3f s\n", n, iters, sum,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return sum == n * iters ? 0 : 1;
}
