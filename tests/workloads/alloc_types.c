// SPDX-License-Identifier: MIT
/*
 * alloc_types: heap blocks whose type only their allocation site tells, every page of each
 * written by memset (libc code without DWARF: no instruction decode names the access), so
 * that each page fault (hwsample -e page-faults -c 1 -d --objects) lands in a block of known
 * type at a known field:
 *
 *   make_table  struct table *t = malloc(sizeof(*t))   optimized: t is the result register
 *                                                      or a copy of it
 *   make_grid   struct grid *g = malloc(sizeof(*g))    built at -O0: the result is stored
 *                                                      to g's stack slot
 *   make_raw    void *v = malloc(...)                  no type to tell (control)
 *
 * It prints its design: "field SITE TYPE NAME START END" per field of each typed site
 * ([START, END) its byte offsets in the type) and "untyped SITE" for the control. Frame
 * pointers are on and the sites are not inlined, so each allocation's caller is its site.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct table { /* 16 KiB: each field spans whole pages */
	long hdr[512];
	long body[1024];
	long tail[512];
};

struct grid { /* 12 KiB */
	char north[4096];
	char south[4096];
	double east[512];
};

#define NOINLINE __attribute__((noinline))
#if defined(__clang__) /* the fuzz builds: clang has no optimize attribute */
#define AT_O0 __attribute__((optnone))
#else
#define AT_O0 __attribute__((optimize("O0")))
#endif
#define FIELD(site, type, f)                                                                       \
	printf("field %s %s %s %zu %zu\n", site, #type, #f, offsetof(type, f),                     \
	       offsetof(type, f) + sizeof(((type *)0)->f))

void *volatile keep[3]; /* the blocks stay live (and used) */

NOINLINE static struct table *make_table(void)
{
	struct table *t = malloc(sizeof(*t));

	if (!t)
		exit(1);
	memset(t, 0x11, sizeof(*t));
	return t;
}

NOINLINE AT_O0 static struct grid *make_grid(void)
{
	struct grid *g = malloc(sizeof(*g));

	if (!g)
		exit(1);
	memset(g, 0x22, sizeof(*g));
	return g;
}

NOINLINE static void *make_raw(size_t n)
{
	void *v = malloc(n);

	if (!v)
		exit(1);
	memset(v, 0x33, n);
	return v;
}

int main(void)
{
	FIELD("make_table", struct table, hdr);
	FIELD("make_table", struct table, body);
	FIELD("make_table", struct table, tail);
	FIELD("make_grid", struct grid, north);
	FIELD("make_grid", struct grid, south);
	FIELD("make_grid", struct grid, east);
	printf("untyped make_raw\n");
	fflush(stdout);
	keep[0] = make_table();
	keep[1] = make_grid();
	keep[2] = make_raw(5 * 4096);
	return 0;
}
