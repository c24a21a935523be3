// SPDX-License-Identifier: MIT
/*
 * types_truth: structs whose fields lie on pages of their own, touched through known fields
 * once per page, so that every page fault (hwsample -b sw -e page-faults -c 1 -d: its IP is
 * the faulting instruction, its address the data) has a known data type and field:
 *
 *   touch_global   a .bss array of struct pair, field second        (a global)
 *   touch_first    the same array's elements, field first           (a global, 2nd field)
 *   touch_stack    a local array of struct pair, field second       (the frame base)
 *   touch_heap     malloc'd struct pair, the pointer in a register  (a pointer variable)
 *   touch_param    a struct pair * parameter, field second          (a parameter, followed)
 *   touch_nested   malloc'd struct outer, field in.y                (a nested member)
 *
 * Built with -O2 -g (tests/CMakeLists.txt). One line per function on stdout:
 * "expect FUNC TYPE OFFSET FIELD" (perf's typeoff: "TYPE +OFFSET (FIELD)"), and one per
 * heap block and g_pairs: "block NAME ADDRESS" (h of touch_heap, then p and o of main,
 * malloc'd in that order: tests/e2e/symbols_vendor_truth.sh places its samples with them). A push
 * or call of these functions that faults on a new stack page is perf's "(stack operation)". With an
 * argument S: then S seconds of the same accesses in a loop (scripts/bench-types).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define PAGE	 4096
#define N	 16

struct pair { /* two pages: each field on its own */
	char first[PAGE];
	long second;
	char pad[PAGE - sizeof(long)];
};

struct inner {
	long x;
	char pad[PAGE - 2 * sizeof(long)];
	long y;
};

struct outer { /* in.y on the second page */
	char head[PAGE];
	struct inner in;
};

struct pair g_pairs[2 * N];
static volatile long sink;

static void expect(const char *fn, const char *type, long off, const char *field)
{
	printf("expect %s %s %ld %s\n", fn, type, off, field);
}

NOINLINE void touch_global(void)
{
	for (int i = 0; i < N; i++)
		g_pairs[i].second = i;
}

NOINLINE void touch_first(void)
{
	for (int i = N; i < 2 * N; i++)
		g_pairs[i].first[8] = (char)i;
}

NOINLINE long consume(struct pair *p, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += p[i].second;
	return s;
}

NOINLINE long touch_stack(void)
{
	struct pair local[4];

	local[3].second = 4;
	local[2].second = 3;
	local[1].second = 2;
	local[0].second = 1;
	return consume(local, 4); /* the call's push may fault: "(stack operation)" */
}

NOINLINE struct pair *touch_heap(void)
{
	struct pair *h = malloc(4 * sizeof(*h));

	if (!h)
		exit(1);
	h[0].second = 1;
	h[1].second = 2;
	h[2].second = 3;
	h[3].second = 4;
	return h;
}

NOINLINE void touch_param(struct pair *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i].second = i;
}

NOINLINE void touch_nested(struct outer *o, int n)
{
	for (int i = 0; i < n; i++)
		o[i].in.y = i;
}

int main(int argc, char **argv)
{
	struct pair *h, *p;
	struct outer *o;
	struct timespec t0, t;

	touch_global();
	touch_first();
	sink = touch_stack();
	h = touch_heap();
	p = malloc(N * sizeof(*p));
	o = malloc(N * sizeof(*o));
	if (!p || !o)
		return 1;
	touch_param(p, N);
	touch_nested(o, N);
	sink = consume(h, 4) + consume(p, N) + o[N - 1].in.y + consume(g_pairs, 2 * N) +
	       g_pairs[N + 1].first[8];
	expect("touch_global", "struct pair", 4096, "second");
	expect("touch_first", "struct pair", 8, "first");
	expect("touch_stack", "struct pair", 4096, "second");
	expect("touch_heap", "struct pair", 4096, "second");
	expect("touch_param", "struct pair", 4096, "second");
	expect("touch_nested", "struct outer", 4096 + PAGE - sizeof(long), "in.y");
	printf("block h %p\nblock p %p\nblock o %p\nblock g_pairs %p\n", (void *)h, (void *)p,
	       (void *)o, (void *)g_pairs);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; argc > 1; i++) {
		touch_param(p, N);
		touch_nested(o, N);
		touch_global();
		sink += touch_stack() + consume(p, N);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= atol(argv[1]))
			break;
	}
	free(h);
	free(p);
	free(o);
	return 0;
}
