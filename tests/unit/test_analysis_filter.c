// SPDX-License-Identifier: MIT
/*
 * perf's --time syntax (hws_time__parse) and the sample filter (hws_filter__match).
 */
#include <errno.h>
#include <stdio.h>

#include <hwsample/filter.h>

static int fails;
#define T(c)                                                                                       \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                        \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)

int main(void)
{
	struct hws_time_range r[8];
	struct hws_filter *f;
	struct hws_sample s = {.sz = sizeof(s), .fields = HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PID};

	T(hws_time__parse("1.5,2", 0, 0, r, 8) == 1);
	T(r[0].start == 1500000000ULL && r[0].end == 2000000000ULL);
	T(hws_time__parse(",3.000000001", 0, 0, r, 8) == 1 && !r[0].start &&
	  r[0].end == 3000000001ULL);
	T(hws_time__parse("1,2 3,4", 0, 0, r, 8) == 2 && r[1].start == 3000000000ULL);
	T(hws_time__parse("2,1", 0, 0, r, 8) == -EINVAL);
	T(hws_time__parse("x,1", 0, 0, r, 8) == -EINVAL);
	T(hws_time__parse("1.0123456789,2", 0, 0, r, 8) == -EINVAL);
	/* percentages of [1000, 2000] */
	T(hws_time__parse("10%/2", 1000, 2000, r, 8) == 1 && r[0].start == 1100 &&
	  r[0].end == 1199);
	T(hws_time__parse("0%-100%", 1000, 2000, r, 8) == 1 && r[0].start == 1000 &&
	  r[0].end == 2000);
	T(hws_time__parse("0%-10%,30%-40%", 1000, 2000, r, 8) == 2 && r[1].start == 1300);
	T(hws_time__parse("10%/2", 0, 0, r, 8) == -EINVAL);
	T(hws_time__parse("10%/11", 1000, 2000, r, 8) == -EINVAL);
	T(hws_time__parse("1,2 3,4", 0, 0, r, 1) == -E2BIG);

	HWS_OPTS(hws_filter_opts, o, .pid = "5,7", .cpu = "0-1,3", .time = "1,2");
	T(hws_filter__new(&o, &f) == 0);
	s.pid = 7;
	s.cpu = 3;
	s.time = 1500000000ULL;
	T(hws_filter__match(f, NULL, &s));
	s.cpu = 2;
	T(!hws_filter__match(f, NULL, &s));
	s.cpu = 1;
	s.pid = 6;
	T(!hws_filter__match(f, NULL, &s));
	T(hws_filter__match_time_cpu(f, &s));
	s.pid = 5;
	s.time = 2000000001ULL;
	T(!hws_filter__match(f, NULL, &s));
	hws_filter__delete(f);
	HWS_OPTS(hws_filter_opts, bad, .cpu = "1-x");
	T(hws_filter__check(&bad) != NULL);
	T(hws_filter__new(&bad, &f) == -EINVAL);
	T(hws_filter__match(NULL, NULL, &s));
	printf("%s\n", fails ? "FAILED" : "ok");
	return fails != 0;
}
