// SPDX-License-Identifier: MIT
/*
 * perf.data reader and writer speed (built, not run by ctest).
 *
 *   bench_perfdata bench FILE     read + parse every record, print records/s and MB/s
 *   bench_perfdata write FILE N   write N synthetic samples with the writer, print MB/s
 *
 * What the reader sees in a file, and the files the tests write: tests/gen/gen_perfdata.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hwsample/perfdata.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int do_write(const char *path, long n)
{
	struct hws_perf_event_attr a = {.type = PERF_TYPE_SOFTWARE,
					.size = sizeof(a),
					.config = PERF_COUNT_SW_CPU_CLOCK,
					.sample_period = 1000,
					.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						       PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						       PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU,
					.sample_id_all = 1};
	uint64_t id = 42, rec[7];
	struct hws_perf_writer *w = hws_perf_writer__new(path, false);
	double t0 = now(), dt;
	int err;

	if (!w || hws_perf_writer__add_attr(w, &a, "cpu-clock", &id, 1) < 0)
		return 1;
	hws_perf_writer__add_host_features(w, 0, NULL, -1);
	for (long i = 0; i < n; i++) {
		struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
					      sizeof(rec)};

		memcpy(&rec[0], &h, 8);
		rec[1] = id;
		rec[2] = 0x400000 + (uint64_t)i;
		rec[3] = (1ULL << 32) | 1;
		rec[4] = (uint64_t)i * 1000;
		rec[5] = 0x7f0000000000ULL + (uint64_t)i * 64;
		rec[6] = (uint64_t)(i & 3);
		if (hws_perf_writer__write(w, rec, sizeof(rec)))
			return 1;
	}
	err = hws_perf_writer__close(w);
	dt = now() - t0;
	printf("wrote %ld samples (%.1f MB) in %.3f s: %.0f MB/s\n", n, n * 56.0 / 1e6, dt,
	       n * 56.0 / 1e6 / dt);
	return err ? 1 : 0;
}

static int do_bench(const char *path)
{
	struct hws_perf_reader *r = hws_perf_reader__open(path, NULL);
	struct hws_perf_record rec;
	uint64_t total = 0, bytes = 0, bad = 0;
	double t0 = now(), dt;
	int ret;

	if (!r) {
		fprintf(stderr, "error: cannot open %s: %d\n", path, -errno);
		return 1;
	}
	while ((ret = hws_perf_reader__next(r, &rec)) > 0) {
		const struct perf_event_header *h = rec.hdr;

		total++;
		bytes += h->size + rec.payload_size;
		if (h->type == PERF_RECORD_SAMPLE) {
			const struct hws_perf_evattr *ev = hws_perf_reader__attr(r, rec.attr_idx);
			struct hws_record_sample s;

			if (!ev || hws_sample__parse(&ev->attr, h, h->size, &s))
				bad++;
		}
	}
	dt = now() - t0;
	printf("%" PRIu64 " records, %" PRIu64 " unparsed samples, %.1f MB in %.3f s: "
	       "%.0f krec/s %.0f MB/s\n",
	       total, bad, bytes / 1e6, dt, total / dt / 1e3, bytes / 1e6 / dt);
	if (ret < 0)
		fprintf(stderr, "error: %s\n", hws_perf_reader__errmsg(r));
	hws_perf_reader__close(r);
	return ret < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "bench"))
		return do_bench(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "write"))
		return do_write(argv[2], argc > 3 ? atol(argv[3]) : 1000000);
	fprintf(stderr, "usage: %s bench FILE | write FILE [N]\n", argv[0]);
	return 2;
}
