// SPDX-License-Identifier: MIT
/*
 * alloc_churn [N [THREADS]]: an allocation-heavy benchmark for hwsample record --objects
 * (scripts/bench-objects): N million (default 4) allocations, each freed a little later
 * (a ring of 256 live blocks), sizes from a fixed pseudo-random sequence: three in four
 * small (16-1008 bytes, under the default 1 KiB threshold), one in four 1-16 KiB; every
 * block's first and last bytes written. Prints a checksum so nothing is optimized away.
 * With THREADS (default 1, the main thread alone), that many threads each make the same
 * sequence at the same time (tests/e2e/objects_preload_frees.sh).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "alloc_bench.h"

struct churn {
	long n;	      /* allocations */
	uint64_t sum; /* the checksum of their bytes */
	int failed;   /* malloc returned NULL */
};

static void *churn(void *arg)
{
	struct churn *c = arg;
	char *live[256] = {0};
	uint64_t x = 88172645463325252ULL;

	for (long i = 0; i < c->n; i++) {
		size_t sz;
		char *p;

		xorshift64(&x);
		sz = (x & 3) ? 16 + (x >> 8) % 993 : 1024 + (x >> 8) % (15 * 1024);
		p = alloc_touch(sz, i, &c->sum);
		if (!p) {
			c->failed = 1;
			break;
		}
		free(live[i & 255]);
		live[i & 255] = p;
	}
	for (int i = 0; i < 256; i++)
		free(live[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = (argc > 1 ? atol(argv[1]) : 4) * 1000000L;
	int nt = argc > 2 ? atoi(argv[2]) : 1;
	struct churn c[64] = {0};
	pthread_t t[64];
	uint64_t sum = 0;

	if (nt < 1 || nt > 64) {
		fprintf(stderr, "alloc_churn: THREADS is 1 to 64\n");
		return 2;
	}
	for (int i = 0; i < nt; i++)
		c[i].n = n;
	if (nt == 1) {
		churn(&c[0]);
	} else {
		for (int i = 0; i < nt; i++)
			if (pthread_create(&t[i], NULL, churn, &c[i])) {
				fprintf(stderr, "alloc_churn: pthread_create failed\n");
				return 1;
			}
		for (int i = 0; i < nt; i++)
			pthread_join(t[i], NULL);
	}
	for (int i = 0; i < nt; i++) {
		if (c[i].failed)
			return 1;
		sum += c[i].sum;
	}
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
