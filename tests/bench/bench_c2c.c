// SPDX-License-Identifier: MIT
/*
 * Where c2c report's CPU time goes, on a perf.data file (e.g. one from tests/gen/gen_c2c):
 * the shared decode pipeline alone (a callback that only counts), the c2c aggregation on
 * top of it, and hws_c2c__finish (best of 3; decoding in one thread: no read_ahead in the
 * decoder's options, so CPU time differences are the c2c work alone; as c2c report decodes:
 * in file order unless
 * HWS_DECODE_ORDERED=1, NUMA nodes from the file). Prints CPU milliseconds, one
 * "name value" per line. Built, never run by ctest; scripts/bench-c2c runs it.
 *
 *   bench_c2c FILE
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hwsample/c2c.h>
#include <hwsample/decode.h>
#include <hwsample/perfdata.h>
#include <hwsample/registry.h>

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int count_only(void *ctx, const struct hws_sample *s)
{
	(void)s;
	(*(uint64_t *)ctx)++;
	return 0;
}

static int cpu_node(void *ctx, int cpu)
{
	return hws_perf_reader__cpu_node(ctx, cpu);
}

/*
 * Decode @path (static backends, symbols on, decode order and NUMA nodes as c2c report) three
 * ways, best of @rounds:
 * with a callback that only counts (the shared decode pipeline: c2c's floor), into
 * hws_c2c__add (decode + aggregation), and hws_c2c__finish (classification, sorting,
 * percentiles, symbols of the reported lines). Prints CPU milliseconds.
 */
static int time_decode(const char *path, int rounds)
{
	double best[3] = {1e18, 1e18, 1e18};
	const char *ord = getenv("HWS_DECODE_ORDERED");
	bool unordered = !(ord && !strcmp(ord, "1"));
	uint64_t n = 0;
	char err[256];

	for (int r = 0; r < rounds; r++) {
		for (int mode = 0; mode < 2; mode++) {
			struct hws_decoder_opts o = {
			    .sz = sizeof(o), .srcline = true, .unordered = unordered};
			struct hws_c2c_opts co = {.sz = sizeof(co), .cpu_node = cpu_node};
			struct hws_registry *reg = hws_registry__new();
			struct hws_perf_reader *rd;
			struct hws_decoder *d = NULL;
			struct hws_c2c *c = NULL;
			double t0, t1, t2;
			int e = 0, rc;

			if (!reg || hws_registry__add_static(reg, err, sizeof(err)) < 0)
				return -ENOMEM;
			t0 = cpu_ms();
			rd = hws_perf_reader__open(path, NULL);
			e = rd ? 0 : -errno;
			if (!rd) {
				hws_registry__delete(reg);
				return e ? e : -EINVAL;
			}
			d = hws_decoder__new(rd, reg, &o);
			co.cpu_node_ctx = rd;
			c = mode ? hws_c2c__new(&co) : NULL;
			if (!mode)
				n = 0;
			rc = !d || (mode && !c) ? -ENOMEM
			     : mode		? hws_decoder__run(d, hws_c2c__sample_fn, c)
						: hws_decoder__run(d, count_only, &n);
			t1 = cpu_ms();
			if (!rc && mode)
				rc = hws_c2c__finish(c, hws_decoder__symbols(d));
			t2 = cpu_ms();
			if (t1 - t0 < best[mode])
				best[mode] = t1 - t0;
			if (mode && t2 - t1 < best[2])
				best[2] = t2 - t1;
			hws_c2c__delete(c);
			hws_decoder__delete(d);
			hws_perf_reader__close(rd);
			hws_registry__delete(reg);
			if (rc)
				return rc < 0 ? rc : -ENOMEM;
		}
	}
	printf("samples %llu\ndecode_ms %.1f\nc2c_add_ms %.1f\nc2c_finish_ms %.1f\n",
	       (unsigned long long)n, best[0], best[1] - best[0], best[2]);
	return 0;
}

int main(int argc, char **argv)
{
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_c2c FILE   (CPU ms: decode floor, c2c aggregation, "
				"c2c finish)\n");
		return 2;
	}
	err = time_decode(argv[1], 3);
	if (err)
		fprintf(stderr, "bench_c2c: %s: %s\n", argv[1], strerror(-err));
	return err ? 1 : 0;
}
