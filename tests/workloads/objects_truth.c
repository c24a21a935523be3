// SPDX-License-Identifier: MIT
/*
 * objects_truth: data objects of known sites, sizes and fields, each touched once per page
 * so that every page fault (hwsample -e page-faults -c 1 -d) lands at a known place:
 *
 *   touch_particles  heap   alloc_particles  malloc(64 x struct particle), field vel
 *   touch_cells      heap   alloc_cells      calloc(24, struct cell), field temp
 *   touch_aligned    heap   alloc_aligned    posix_memalign(4096, 40 x struct particle), id
 *   touch_grown      heap   grow_buffer      realloc to 72 x struct particle, field id
 *   touch_reused     heap   alloc_second     malloc after free of alloc_first's block, pos
 *   touch_thread     heap   thread_alloc     malloc(20 x struct particle) in a 2nd thread, vel
 *   touch_table      static table            .bss array of 32 x struct particle, field vel
 *   touch_region     anon   map_region       mmap(16 pages, anonymous), at 4096 * i + 100
 *   touch_stack      stack                   a 64 KiB local array
 *   touch_tls        tls    tls_arr          __thread array of 4 x struct particle, field
 *                                            vel, in two threads (each its own block)
 *   touch_child      heap   child_alloc      malloc(12 x struct particle) in a forked child,
 *                                            field vel
 *   touch_inherited  heap   alloc_particles  the parent's block, written in the forked child
 *                                            (copy-on-write faults), field id
 *
 * For each, one line on stdout: "expect TOUCH KIND SITE SIZE ELEM FIELD" (ELEM: the element
 * size, FIELD: the field's offset in it; SITE "-" for none). Frame pointers are on and the
 * site functions are not inlined, so each allocation's caller is its site. With an
 * argument N: "done" at the end, then N seconds of sleep.
 */
#include <malloc.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

struct particle { /* one page: every element's field is on its own page */
	double pos[3];
	char pad1[1000];
	double vel[3];
	char pad2[2000];
	long id;
	char pad3[4096 - 24 - 1000 - 24 - 2000 - 8];
};

struct cell { /* two pages */
	char a[4096 + 100];
	double temp;
	char b[8192 - 4096 - 100 - 8];
};

static struct particle table[32];
static __thread struct particle tls_arr[4] __attribute__((aligned(4096)));

#define NOINLINE __attribute__((noinline))

static void expect(const char *touch, const char *kind, const char *site, size_t size, size_t elem,
		   size_t field)
{
	printf("expect %s %s %s %zu %zu %zu\n", touch, kind, site, size, elem, field);
}

NOINLINE static struct particle *alloc_particles(size_t n)
{
	return malloc(n * sizeof(struct particle));
}

NOINLINE static void touch_particles(struct particle *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(volatile double *)&p[i].vel[1] = (double)i; /* no constant: no .rodata fault */
}

NOINLINE static struct cell *alloc_cells(size_t n)
{
	return calloc(n, sizeof(struct cell));
}

NOINLINE static void touch_cells(struct cell *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(volatile double *)&c[i].temp = (double)i;
}

NOINLINE static struct particle *alloc_aligned(size_t n)
{
	void *p;

	return posix_memalign(&p, 4096, n * sizeof(struct particle)) ? NULL : p;
}

NOINLINE static void touch_id(struct particle *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(volatile long *)&p[i].id = (long)i;
}

NOINLINE static void touch_aligned(struct particle *p, size_t n)
{
	touch_id(p, n);
}

NOINLINE static struct particle *grow_buffer(struct particle *p, size_t n)
{
	return realloc(p, n * sizeof(struct particle));
}

NOINLINE static void touch_grown(struct particle *p, size_t from, size_t n)
{
	for (size_t i = from; i < n; i++)
		*(volatile long *)&p[i].id = (long)i;
}

NOINLINE static struct particle *alloc_first(size_t n)
{
	return malloc(n * sizeof(struct particle));
}

NOINLINE static struct particle *alloc_second(size_t n)
{
	return malloc(n * sizeof(struct particle));
}

NOINLINE static void touch_reused(struct particle *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(volatile double *)&p[i].pos[0] = (double)i;
}

NOINLINE static void touch_table(size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(volatile double *)&table[i].vel[0] = (double)i;
}

NOINLINE static char *map_region(size_t pages)
{
	void *p =
	    mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

NOINLINE static void touch_region(char *r, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		((volatile char *)r)[i * 4096 + 100] = 5;
}

NOINLINE static long touch_stack(void)
{
	volatile char buf[64 * 1024];

	for (size_t i = sizeof(buf); i >= 4096; i -= 4096)
		buf[i - 1] = 6;
	return buf[4095];
}

NOINLINE static struct particle *thread_alloc(size_t n)
{
	return malloc(n * sizeof(struct particle));
}

NOINLINE static void touch_thread(struct particle *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(volatile double *)&p[i].vel[2] = (double)i;
}

NOINLINE static void touch_tls(size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(volatile double *)&tls_arr[i].vel[0] = (double)i;
}

static void *tls_main(void *arg)
{
	/* glibc zeroed the thread's block when it made it: its pages dropped (zero again when
	 * touched), each touch faults */
	madvise(tls_arr, sizeof(tls_arr), MADV_DONTNEED);
	touch_tls(4);
	return arg;
}

NOINLINE static struct particle *child_alloc(size_t n)
{
	return malloc(n * sizeof(struct particle));
}

NOINLINE static void touch_child(struct particle *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(volatile double *)&p[i].vel[1] = (double)i;
}

NOINLINE static void touch_inherited(struct particle *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(volatile long *)&p[i].id = (long)i;
}

/* a forked child: a block of its own and its copy of the parent's @a (64 elements) */
static int forked(struct particle *a)
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct particle *k = child_alloc(12);

		if (!k)
			exit(1);
		touch_child(k, 12);
		touch_inherited(a, 64);
		free(k);
		exit(0); /* the recorder's last records at exit */
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	expect("touch_child", "heap", "child_alloc", 12 * sizeof(*a), sizeof(*a),
	       offsetof(struct particle, vel[1]));
	expect("touch_inherited", "heap", "alloc_particles", 64 * sizeof(*a), sizeof(*a),
	       offsetof(struct particle, id));
	return 0;
}

static void *thread_main(void *arg)
{
	struct particle *p = thread_alloc(20);

	if (p)
		touch_thread(p, 20);
	free(p);
	return arg;
}

int main(int argc, char **argv)
{
	const size_t ps = sizeof(struct particle), cs = sizeof(struct cell);
	struct particle *a, *b, *g, *f;
	struct cell *c;
	pthread_t th, t1, t2;
	char *r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a fixed mmap threshold: the freed block's mapping goes back to the kernel, and the
	 * next one of the same size most likely reuses its address */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	a = alloc_particles(64);
	c = alloc_cells(24);
	b = alloc_aligned(40);
	g = malloc(16 * ps); /* site main: grown below */
	if (!a || !c || !b || !g)
		return 1;
	touch_particles(a, 64);
	expect("touch_particles", "heap", "alloc_particles", 64 * ps, ps,
	       offsetof(struct particle, vel[1]));
	touch_cells(c, 24);
	expect("touch_cells", "heap", "alloc_cells", 24 * cs, cs, offsetof(struct cell, temp));
	touch_aligned(b, 40);
	expect("touch_id", "heap", "alloc_aligned", 40 * ps, ps, offsetof(struct particle, id));
	g = grow_buffer(g, 72);
	if (!g)
		return 1;
	touch_grown(g, 0, 72);
	expect("touch_grown", "heap", "grow_buffer", 72 * ps, ps, offsetof(struct particle, id));

	f = alloc_first(48);
	if (!f)
		return 1;
	f[0].id = 1;
	free(f);
	f = alloc_second(48); /* most likely the same address: attributed by time */
	if (!f)
		return 1;
	touch_reused(f, 48);
	expect("touch_reused", "heap", "alloc_second", 48 * ps, ps,
	       offsetof(struct particle, pos[0]));

	touch_table(32);
	expect("touch_table", "static", "table", sizeof(table), ps,
	       offsetof(struct particle, vel[0]));
	r = map_region(16);
	if (!r)
		return 1;
	touch_region(r, 16);
	expect("touch_region", "anon", "map_region", 16 * 4096, 4096, 100);
	touch_stack();
	expect("touch_stack", "stack", "-", 0, 0, 0);
	if (pthread_create(&th, NULL, thread_main, NULL) || pthread_join(th, NULL))
		return 1;
	expect("touch_thread", "heap", "thread_alloc", 20 * ps, ps,
	       offsetof(struct particle, vel[2]));
	if (pthread_create(&t1, NULL, tls_main, NULL) ||
	    pthread_create(&t2, NULL, tls_main, NULL) || pthread_join(t1, NULL) ||
	    pthread_join(t2, NULL))
		return 1;
	expect("touch_tls", "tls", "tls_arr", sizeof(tls_arr), ps,
	       offsetof(struct particle, vel[0]));
	if (forked(a))
		return 1;
	free(a);
	free(b);
	free(c);
	free(f);
	free(g);
	munmap(r, 16 * 4096);
	if (argc > 1) { /* "done", then stay a while (for a recorder to be killed meanwhile) */
		printf("done\n");
		sleep((unsigned int)atoi(argv[1]));
	}
	return 0;
}
