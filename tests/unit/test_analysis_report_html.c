// SPDX-License-Identifier: MIT
/*
 * report --html's page (core/analysis/report_html.c) and its heat map (report_heat.c) on
 * hand-built samples: the heat map counts every sample with a time and a data address
 * exactly once whatever the order of times and the spread of addresses (its grid merges as
 * times and addresses spread: the page holds at most 64 x 48 cells and stays small), the
 * latency per memory level, the counts and names from the file escaped.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/report.h>

#include "tests.h"

/* the sum of the heat map's data-n values and the number of cells */
static uint64_t heat_sum(const char *page, uint64_t *cells)
{
	const char *p = strstr(page, "<svg id=\"heatmap\"");
	uint64_t sum = 0;

	*cells = 0;
	for (; p && (p = strstr(p, "data-n=\"")); p += 8) {
		sum += strtoull(p + 8, NULL, 10);
		(*cells)++;
	}
	return sum;
}

static void test_heat(void)
{
	HWS_OPTS(hws_report_opts, o, .html = true);
	struct hws_report *r = hws_report__new(&o);
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	uint64_t x = 0x9e3779b97f4a7c15ULL, cells, n = 200000, untimed = 0;
	char want[96];

	__T("new", r);
	for (uint64_t i = 0; i < n; i++) {
		struct hws_sample s = {.sz = sizeof(s)};
		uint64_t v = tests_xorshift64(&x);

		s.fields = HWS_SF_PID | HWS_SF_IP | HWS_SF_ADDR | HWS_SF_TIME;
		s.pid = 1;
		s.ip = 0x401000 + (v & 0xff);
		/* times out of order over 10 s, some far back; heap, stack and kernel addresses */
		s.time =
		    1000000000000ULL + (v >> 8) % 10000000000ULL - (i % 97 == 0 ? i * 1000 : 0);
		s.addr = (v & 3) == 0	? 0x7ffc00000000ULL + (v >> 20) % (1 << 20)
			 : (v & 3) == 1 ? 0xffff888000000000ULL + (v >> 12) % (1ULL << 30)
					: 0x555500000000ULL + (v >> 16) % (64 << 20);
		if (i % 1000 == 0) {
			s.fields &= ~HWS_SF_TIME;
			untimed++;
		}
		T_EQ_U64("add", hws_report__add(r, &s), 0);
	}
	T_EQ_U64("render", hws_report__render_html(r, NULL, NULL, &sb), 0);
	T_EQ_U64("heat map: every timed sample once", heat_sum(sb.buf, &cells), n - untimed);
	__T("heat map: at most 64 x 48 cells", cells > 0 && cells <= 64 * 48);
	snprintf(want, sizeof(want), "%" PRIu64 " samples without a time", untimed);
	__T("caption counts the untimed samples", strstr(sb.buf, want));
	__T("page bounded (< 400 KB for 200k samples)", sb.len < 400000);
	__T("no script", !strstr(sb.buf, "<script"));
	hws_strbuf__release(&sb);
	hws_report__delete(r);
}

static void test_levels_and_names(void)
{
	HWS_OPTS(hws_report_opts, o, .html = true);
	struct hws_report *r = hws_report__new(&o);
	struct hws_decode_counts c = {.samples = 7, .lost = 3};
	HWS_OPTS(hws_report_html_opts, ho, .title = "a<b>&\"c", .c2c_href = "x\".html",
		 .c2c_lines = 2);
	struct hws_strbuf sb = HWS_STRBUF_INIT;

	for (int i = 0; i < 10; i++) {
		struct hws_sample s = {.sz = sizeof(s)};

		s.fields = HWS_SF_IP | HWS_SF_DATA_SRC | HWS_SF_LAT_TOTAL;
		s.ip = 0x1000;
		s.mem_level = i < 6 ? HWS_MEM_L1 : HWS_MEM_LOCAL_DRAM;
		s.lat_total = i < 6 ? 5 : 300;
		hws_report__add(r, &s);
	}
	hws_report__add_counts(r, "ev<script>\x1b", "sw", 1, &c);
	T_EQ_U64("render", hws_report__render_html(r, NULL, &ho, &sb), 0);
	__T("level strips", strstr(sb.buf, "<g class=\"level\" data-level=\"l1\"") &&
				strstr(sb.buf, "data-level=\"local_dram\""));
	/* lat 5 is bucket 4-7, 300 is 256-511: L1 column 6, local_dram 4 */
	__T("level table 4-7", strstr(sb.buf, "<tr><td>4-7</td><td>6</td><td>0</td></tr>"));
	__T("level table 256-511", strstr(sb.buf, "<tr><td>256-511</td><td>0</td><td>4</td></tr>"));
	__T("title escaped", strstr(sb.buf, "a&lt;b&gt;&amp;&quot;c") && !strstr(sb.buf, "a<b>"));
	__T("event escaped (HTML and control)", strstr(sb.buf, "ev&lt;script&gt;\\x1b"));
	__T("c2c link escaped", strstr(sb.buf, "<a href=\"x&quot;.html\">"));
	__T("loss row",
	    strstr(sb.buf, ">7</text><text class=\"nlost\"") && strstr(sb.buf, ">3</text>"));
	__T("no heat map samples", strstr(sb.buf, "id=\"heatmap-none\""));
	hws_strbuf__release(&sb);
	hws_report__delete(r);
	/* perf's sorted view has no page */
	{
		HWS_OPTS(hws_report_opts, o2, .sort_keys = "sym", .html = true);

		r = hws_report__new(&o2);
		__T("sorted view refused", hws_report__render_html(r, NULL, NULL, &sb) == -EINVAL);
		hws_strbuf__release(&sb);
		hws_report__delete(r);
	}
}

int main(void)
{
	test_heat();
	test_levels_and_names();
	TEST_END();
}
