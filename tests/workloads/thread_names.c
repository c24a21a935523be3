// SPDX-License-Identifier: MIT
/*
 * thread_names: CPU-bound threads with names of their own, for the comm of a thread (perf
 * names a sample by its thread's comm, not its process's):
 *
 *   main thread    "thread_names"  burns, then starts the others, joins them, burns again
 *   "hot-a"        names itself, burns
 *   "hot-b"        names itself, burns
 *   unnamed        burns under the name it inherits from main ("thread_names")
 *   "phase-1"      names itself, burns, renames itself "phase-2" and burns again: its
 *                  samples are split by the comm they were taken under, its tid shows the
 *                  last one (perf report --sort pid)
 *
 * argv[1]: milliseconds of CPU per part (default 60).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static long part_ms = 60;

/* called through its address (the GOT), not the PLT: perf 6.1 names samples in a PLT entry
 * "_init" where hwsample says "clock_gettime@plt", which the comparison would count */
static int (*volatile get_time)(clockid_t, struct timespec *) = clock_gettime;

static double cpu_now(void)
{
	struct timespec t;

	get_time(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void burn(void)
{
	double end = cpu_now() + (double)part_ms / 1000.0;

	while (cpu_now() < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
}

static void *named(void *name)
{
	if (name)
		pthread_setname_np(pthread_self(), name);
	burn();
	return NULL;
}

static void *phases(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "phase-1");
	burn();
	pthread_setname_np(pthread_self(), "phase-2");
	burn();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[4];

	if (argc > 1)
		part_ms = atol(argv[1]);
	burn();
	if (pthread_create(&t[0], NULL, named, "hot-a") ||
	    pthread_create(&t[1], NULL, named, "hot-b") ||
	    pthread_create(&t[2], NULL, named, NULL) || pthread_create(&t[3], NULL, phases, NULL))
		return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	burn();
	printf("thread_names: %lu\n", sink & 0xff);
	return 0;
}
