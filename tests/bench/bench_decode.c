// SPDX-License-Identifier: MIT
/*
 * The decode pipeline's floor: a perf.data file through the reader and the decoder (sorted
 * rounds, every backend, hws_sample filled) with a callback that only counts, so a
 * consumer's own cost (dump formatting, report or c2c aggregation) can be told apart from
 * the shared part. Built, never run by ctest.
 *
 *   bench_decode FILE [ROUNDS]    prints samples and the best CPU time of ROUNDS (default 3)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <hwsample/decode.h>
#include <hwsample/perfdata.h>
#include <hwsample/registry.h>

static int count_cb(void *ctx, const struct hws_sample *s)
{
	(void)s;
	++*(unsigned long *)ctx;
	return 0;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct hws_registry *reg = hws_registry__new();
	int rounds = argc > 2 ? atoi(argv[2]) : 3;
	double best = 1e30;
	unsigned long n = 0;
	char err[256];

	if (argc < 2 || !reg || rounds < 1) {
		fprintf(stderr, "usage: bench_decode FILE [ROUNDS]\n");
		return 2;
	}
	if (hws_registry__add_static(reg, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_decode: %s\n", err);
		return 1;
	}
	for (int i = 0; i < rounds; i++) {
		struct hws_decoder_opts o = {.sz = sizeof(o), .no_kallsyms = true};
		struct hws_perf_reader *r;
		struct hws_decoder *d;
		double t0 = cpu_now();
		int rc, e = 0;

		r = hws_perf_reader__open(argv[1], NULL);
		e = r ? 0 : -errno;
		if (!r) {
			fprintf(stderr, "bench_decode: %s: cannot open (%d)\n", argv[1], e);
			return 1;
		}
		d = hws_decoder__new(r, reg, &o);
		n = 0;
		rc = d ? hws_decoder__run(d, count_cb, &n) : -1;
		if (rc < 0)
			fprintf(stderr, "bench_decode: %s\n",
				d ? hws_decoder__errmsg(d) : "no memory");
		hws_decoder__delete(d);
		hws_perf_reader__close(r);
		if (cpu_now() - t0 < best)
			best = cpu_now() - t0;
		if (rc < 0)
			return 1;
	}
	printf("%lu samples, %.3f s CPU (best of %d), %.1f ns/sample\n", n, best, rounds,
	       n ? best * 1e9 / (double)n : 0.0);
	hws_registry__delete(reg);
	return 0;
}
