// SPDX-License-Identifier: MIT
/*
 * A program built on the installed library alone (tests/install/install.sh builds it with
 * pkg-config and with find_package): reads a perf.data file through the public API and
 * prints, per event, the samples the decoder delivered to it and the decoder's own count:
 *     count_samples FILE BACKEND_DIR      ->   "<samples> <counted> <event name>" per event
 * The two numbers come from different places (the callback, hws_decoder__counts()) and the
 * test compares them with `hwsample dump`. Exit 1 with the library's error on failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/decode.h>
#include <hwsample/errors.h>
#include <hwsample/perfdata.h>
#include <hwsample/registry.h>

#define MAX_EVENTS 64

static int count(void *ctx, const struct hws_sample *s)
{
	unsigned long *seen = ctx;

	if (s->attr_idx < MAX_EVENTS)
		seen[s->attr_idx]++;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long seen[MAX_EVENTS] = {0};
	struct hws_registry *reg;
	struct hws_perf_reader *r;
	struct hws_decoder *d;
	char err[1024] = "";
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: count_samples FILE BACKEND_DIR\n");
		return 2;
	}
	reg = hws_registry__new();
	if (!reg || hws_registry__load_dir(reg, argv[2], err, sizeof(err)) < 0) {
		fprintf(stderr, "count_samples: %s\n", *err ? err : "out of memory");
		return 1;
	}
	r = hws_perf_reader__open(argv[1], NULL);
	if (!r) {
		fprintf(stderr, "count_samples: %s: %s\n", argv[1], hws_strerror(-errno, err, 64));
		return 1;
	}
	d = hws_decoder__new(r, reg, NULL);
	if (!d) {
		fprintf(stderr, "count_samples: no decoder: %s\n", strerror(errno));
		return 1;
	}
	ret = hws_decoder__run(d, count, seen);
	if (ret < 0) {
		fprintf(stderr, "count_samples: %s\n", hws_decoder__errmsg(d));
		return 1;
	}
	for (int ev = 0; ev < hws_decoder__nr_events(d) && ev < MAX_EVENTS; ev++) {
		struct hws_decode_counts c;

		if (hws_decoder__counts(d, ev, HWS_DECODE_ALL, &c))
			memset(&c, 0, sizeof(c));
		if (seen[ev] || c.samples)
			printf("%lu %llu %s\n", seen[ev], (unsigned long long)c.samples,
			       hws_decoder__event_name(d, ev));
	}
	hws_decoder__delete(d);
	hws_perf_reader__close(r);
	hws_registry__delete(reg);
	return 0;
}
