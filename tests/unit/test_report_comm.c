// SPDX-License-Identifier: MIT
/*
 * perf report's comm of samples taken before a thread's first COMM (core/analysis/
 * report_render.c, comm_fixup()): perf overwrites the thread's default ":TID" comm in place, so
 * those samples count under the comm the thread gets, merged with that comm's rows and call
 * graphs. A hist fed samples before and after the COMM must print exactly what a hist fed the
 * same samples with the comm known from the start prints; a thread that never gets a comm
 * stays ":TID".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/report.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>

#include "../../core/analysis/report_cg.h"
#include "../../core/analysis/report_int.h"
#include "tests.h"

#define CHECK(c) __T(#c, (c))

static const struct hws_frame chain_a[] = {{.ip = 0x401000}, {.ip = 0x402000}, {.ip = 0x403000}};
static const struct hws_frame chain_b[] = {{.ip = 0x401000}, {.ip = 0x405000}, {.ip = 0x403000}};

static void add(struct hws_hist *h, struct hws_symbols *syms, uint32_t pid, uint64_t ip,
		const struct hws_frame *chain, uint32_t n)
{
	struct hws_sample s = {.sz = sizeof(s)};

	s.fields = HWS_SF_PID | HWS_SF_IP | HWS_SF_PERIOD;
	s.pid = s.tid = pid;
	s.ip = ip;
	s.period = 100;
	if (chain) {
		s.fields |= HWS_SF_CALLCHAIN;
		s.callchain = chain;
		s.nr_callchain = n;
	}
	CHECK(hws_hist__add(h, syms, &s, true) == 0);
}

/* pid 100's first samples come before its COMM when @late; pid 300 never gets a comm */
static char *render(const char *keys, const char *g, int children, bool late)
{
	struct hws_symbols_opts so = {.sz = sizeof(so), .no_elf = true};
	struct hws_symbols *syms = hws_symbols__new(&so);
	struct hws_hist *h = hws_hist__new(keys, false, NULL);
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct cg_params p = {0};
	char bad[64];

	CHECK(syms && h);
	if (g) {
		CHECK(cg_parse(g, &p, bad, sizeof(bad)) == 0);
		hws_hist__set_callgraph(h, &p, children, keys, 0);
	}
	CHECK(hws_symbols__comm(syms, 200, 200, "work", true) == 0);
	if (!late)
		CHECK(hws_symbols__comm(syms, 100, 100, "work", true) == 0);
	add(h, syms, 100, 0x403000, g ? chain_a : NULL, 3);
	add(h, syms, 100, 0x403000, g ? chain_b : NULL, 3);
	if (late)
		CHECK(hws_symbols__comm(syms, 100, 100, "work", true) == 0);
	add(h, syms, 100, 0x403000, g ? chain_a : NULL, 3);
	add(h, syms, 200, 0x403000, g ? chain_a : NULL, 3);
	add(h, syms, 300, 0x403000, g ? chain_b : NULL, 3);
	CHECK(hws_hist__render(h, syms, keys, &sb) == 0);
	hws_hist__delete(h);
	hws_symbols__delete(syms);
	return sb.buf;
}

static void test_same_as_known(void)
{
	static const struct {
		const char *keys, *g;
		int children;
	} cases[] = {
	    {"comm", NULL, 0},
	    {"comm,pid", NULL, 0},
	    {"comm", "graph,0.5,caller", -1},
	    {"comm", "fractal,0.5,callee", -1},
	    {"comm,sym", "graph,0.5,caller", 1},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *late = render(cases[i].keys, cases[i].g, cases[i].children, true);
		char *known = render(cases[i].keys, cases[i].g, cases[i].children, false);

		CHECK(late && known);
		if (late && known && strcmp(late, known)) {
			fprintf(stderr, "case %zu (%s %s): before COMM:\n%s\nknown:\n%s\n", i,
				cases[i].keys, cases[i].g ? cases[i].g : "", late, known);
			__T("same output before and after the COMM", false);
		}
		free(late);
		free(known);
	}
}

static void test_rows(void)
{
	char *t = render("comm", NULL, 0, true);

	CHECK(t != NULL);
	if (!t)
		return;
	/* 4 of 5 samples are "work" (2 of them before pid 100's COMM), pid 300 has none */
	CHECK(strstr(t, "80.00%  work") != NULL);
	CHECK(strstr(t, "20.00%  :300") != NULL);
	CHECK(strstr(t, ":100") == NULL);
	if (!strstr(t, "80.00%  work"))
		fprintf(stderr, "%s\n", t);
	free(t);
}

/* a tid made anew (FORK) in the same process takes its new creator's comm: a sample at the
 * same ip as the old thread's must not get the old thread's row from the row cache */
static void test_tid_reused(void)
{
	struct hws_symbols_opts so = {.sz = sizeof(so), .no_elf = true};
	struct hws_symbols *syms = hws_symbols__new(&so);
	struct hws_hist *h = hws_hist__new("comm", false, NULL);
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct hws_sample s = {.sz = sizeof(s)};

	CHECK(syms && h);
	if (!syms || !h)
		return;
	s.fields = HWS_SF_PID | HWS_SF_IP | HWS_SF_PERIOD;
	s.pid = 500;
	s.tid = 501;
	s.ip = 0x403000;
	s.period = 100;
	CHECK(hws_symbols__comm(syms, 500, 500, "srv", true) == 0);
	CHECK(hws_symbols__fork_thread(syms, 500, 500, 502, 500) == 0);
	CHECK(hws_symbols__comm(syms, 500, 502, "new", false) == 0);
	CHECK(hws_symbols__fork_thread(syms, 500, 500, 501, 500) == 0);
	CHECK(hws_symbols__comm(syms, 500, 501, "old", false) == 0);
	CHECK(hws_hist__add(h, syms, &s, true) == 0);
	CHECK(hws_symbols__fork_thread(syms, 500, 500, 501, 502) == 0);
	CHECK(hws_hist__add(h, syms, &s, true) == 0);
	CHECK(hws_hist__render(h, syms, "comm", &sb) == 0);
	CHECK(sb.buf && strstr(sb.buf, "50.00%  old") && strstr(sb.buf, "50.00%  new"));
	if (sb.buf && !strstr(sb.buf, "50.00%  new"))
		fprintf(stderr, "%s\n", sb.buf);
	hws_strbuf__release(&sb);
	hws_hist__delete(h);
	hws_symbols__delete(syms);
}

int main(void)
{
	test_rows();
	test_tid_reused();
	test_same_as_known();
	printf("%d checks, %d failed\n", tests_run, tests_failed);
	return tests_failed ? 1 : 0;
}
