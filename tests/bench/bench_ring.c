// SPDX-License-Identifier: MIT
/*
 * Drain throughput of the ring reader (core/kernel/ring.c) against the simulated kernel producer
 * (tests/kernel_sim.h), as a ratio to memcpy of the same bytes on the same machine.
 *
 *  concurrent: a producer thread writes records with the kernel protocol (waiting for space
 *	instead of dropping, so every byte is delivered) while the reader drains; the reader
 *	copies every record it is handed into an output buffer, as the session does before
 *	writing the file. Throughput = bytes delivered / wall time.
 *  reader-only: the producer fills the ring, then the reader drains it (read_init,
 *	read_event + copy out, read_done); each drain is timed alone and a run reports the
 *	median drain rate (a drain of a 1 MiB ring takes ~50 us, so preemption on a loaded
 *	machine spoils few of them).
 *  memcpy: ring-sized blocks copied from a ring-sized source into the same output buffer,
 *	one thread, each block timed alone, median rate per run.
 *
 *  producer alone: the simulated producer into an overwrite ring with no reader: the
 *	ceiling of the concurrent figure (the pipeline cannot beat its producer).
 *
 * The headline ("ratio", target >= 0.5) is reader-only / memcpy: what the reader itself
 * costs per byte. The concurrent ratio is bounded by the producer thread (its own record
 * copies, cache-line transfers between the two cores) and by the machine's load.
 *
 * Record sizes vary from 16 to 520 bytes (mean ~270), so records straddle the wrap and go
 * through the bounce buffer as they do in real use. The ratios are the median over 21
 * short runs of (drain / memcpy measured in the same run), so a machine whose load
 * changes over time still gives a stable figure; best-of throughputs are shown too.
 *
 * Usage: bench_ring [-s RING_BYTES] [-t TOTAL_MIB] [-r RUNS] [-c CONSUME_BYTES] [-b BACKOFF]
 * (-c: hws_ring__consume() after every CONSUME_BYTES drained; 0 = only at read_done;
 *  -b: idle loop count after a drain of less than 1/8 ring, as a wakeup watermark would)
 * Prints "ratio reader-only X" (the headline) and "ratio concurrent Y".
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hwsample/ring.h>

#include "kernel_sim.h"

#define NR_TEMPLATES 4096
#define OUT_SIZE     (8u << 20)

static unsigned char *templates;
static uint64_t tpl_off[NR_TEMPLATES], tpl_size[NR_TEMPLATES];
static unsigned char *out;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void build_templates(void)
{
	uint64_t off = 0, i;

	templates = malloc(NR_TEMPLATES * 1024);
	for (i = 0; i < NR_TEMPLATES; i++) {
		tpl_off[i] = off;
		tpl_size[i] = ksim_rec__fill(templates + off, i, ksim_rec__size(i));
		off += tpl_size[i];
	}
}

struct prod {
	struct ksim_ring k;
	uint64_t total; /* bytes to deliver */
};

static void *producer(void *arg)
{
	struct prod *p = arg;
	uint64_t sent = 0, i = 0;

	while (sent < p->total) {
		uint64_t sz = tpl_size[i];

		/* wait for space rather than drop: measure delivery, not loss */
		while (!ksim_ring__write(&p->k, templates + tpl_off[i], sz)) {
			p->k.pending_lost = 0;
			p->k.dropped--;
			sched_yield();
		}
		sent += sz;
		i = (i + 1) % NR_TEMPLATES;
	}
	return NULL;
}

static volatile uint64_t sink;

/* Drain what is there, copying each record out. Returns bytes. */
static uint64_t consume_every = 32768;
static int backoff = 2000; /* -b: idle loops after a small drain */

static uint64_t drain(struct hws_ring *r, uint64_t *out_pos)
{
	const struct perf_event_header *h;
	uint64_t bytes = 0, since = 0;

	if (!hws_ring__read_init(r))
		return 0;
	while ((h = hws_ring__read_event(r))) {
		if (*out_pos + h->size > OUT_SIZE)
			*out_pos = 0;
		memcpy(out + *out_pos, h, h->size);
		*out_pos += h->size;
		bytes += h->size;
		since += h->size;
		if (consume_every && since >= consume_every) {
			/* release space early so the producer is not held up by a long drain */
			hws_ring__consume(r);
			since = 0;
		}
	}
	hws_ring__read_done(r);
	return bytes;
}

static double run_concurrent(uint64_t ring, uint64_t total)
{
	struct prod p;
	struct hws_ring *r;
	pthread_t th;
	uint64_t got = 0, out_pos = 0;
	double t0, t1;

	memset(&p, 0, sizeof(p));
	ksim_ring__init(&p.k, ring, false, false);
	p.total = total;
	r = hws_ring__new(p.k.pc, p.k.data, ring, false);
	t0 = now_s();
	pthread_create(&th, NULL, producer, &p);
	while (got < total) {
		uint64_t n = drain(r, &out_pos);

		got += n;
		if (n < ring / 8) {
			/* like a wakeup watermark: do not poll data_head (the cache line the
			 * producer stores to for every record) in a tight loop */
			for (int i = 0; i < backoff; i++)
				__asm__ __volatile__("" ::: "memory");
			if (!n)
				sched_yield();
		}
	}
	t1 = now_s();
	pthread_join(th, NULL);
	sink += out[out_pos / 2];
	hws_ring__delete(r);
	ksim_ring__fini(&p.k);
	return total / (t1 - t0);
}

/* Median over the drains of a full ring (each ~ring bytes) of bytes / time: a drain takes
 * tens of microseconds, so preemption on a loaded machine spoils few of them. */
static double run_reader_only(uint64_t ring, uint64_t total)
{
	struct ksim_ring k;
	struct hws_ring *r;
	uint64_t got = 0, out_pos = 0, i = 0;
	int n = 0, max = (int)(total / (ring / 2)) + 2;
	double *rate = calloc(max, sizeof(double)), v;

	ksim_ring__init(&k, ring, false, false);
	r = hws_ring__new(k.pc, k.data, ring, false);
	while (got < total && n < max) {
		double t0;
		uint64_t b;

		while (ksim_ring__write(&k, templates + tpl_off[i], tpl_size[i]))
			i = (i + 1) % NR_TEMPLATES;
		k.pending_lost = 0;
		t0 = now_s();
		b = drain(r, &out_pos);
		rate[n++] = b / (now_s() - t0);
		got += b;
	}
	sink += out[out_pos / 2];
	hws_ring__delete(r);
	ksim_ring__fini(&k);
	v = median(rate, n);
	free(rate);
	return v;
}

/* memcpy of the same records one by one, from contiguous memory (no ring): how much of the
 * reader-only gap is just memcpy of small variable sizes. */
static double run_memcpy_records(uint64_t total)
{
	uint64_t done = 0, out_pos = 0, i = 0;
	double t0, t1;

	t0 = now_s();
	while (done < total) {
		uint64_t sz = tpl_size[i];

		if (out_pos + sz > OUT_SIZE)
			out_pos = 0;
		memcpy(out + out_pos, templates + tpl_off[i], sz);
		__asm__ __volatile__("" ::: "memory");
		out_pos += sz;
		done += sz;
		i = (i + 1) % NR_TEMPLATES;
	}
	t1 = now_s();
	sink += out[out_pos / 2];
	return done / (t1 - t0);
}

/* The simulated producer alone (overwrite ring: no reader to wait for): the ceiling of
 * the concurrent figure. */
static double run_producer_only(uint64_t ring, uint64_t total)
{
	struct ksim_ring k;
	uint64_t sent = 0, i = 0;
	double t0, t1;

	ksim_ring__init(&k, ring, false, true);
	t0 = now_s();
	while (sent < total) {
		ksim_ring__write(&k, templates + tpl_off[i], tpl_size[i]);
		sent += tpl_size[i];
		i = (i + 1) % NR_TEMPLATES;
	}
	t1 = now_s();
	ksim_ring__fini(&k);
	return sent / (t1 - t0);
}

/* Median over ring-sized memcpy blocks of bytes / time (as run_reader_only). */
static double run_memcpy(uint64_t ring, uint64_t total)
{
	unsigned char *src = ksim_zalloc(ring);
	uint64_t done = 0, out_pos = 0;
	int n = 0, max = (int)(total / ring) + 2;
	double *rate = calloc(max, sizeof(double)), v;

	memset(src, 0x5a, ring);
	while (done < total && n < max) {
		double t0 = now_s();

		if (out_pos + ring > OUT_SIZE)
			out_pos = 0;
		memcpy(out + out_pos, src, ring);
		__asm__ __volatile__("" ::: "memory");
		rate[n++] = ring / (now_s() - t0);
		out_pos += ring;
		done += ring;
	}
	sink += out[out_pos / 2];
	free(src);
	v = median(rate, n);
	free(rate);
	return v;
}

int main(int argc, char **argv)
{
	uint64_t ring = 1 << 20, total = 64ull << 20;
	double best_c = 0, best_r = 0, best_m = 0, best_p = 0, best_mr = 0, m, v;
	double *ratio_r, *ratio_c;
	int runs = 21, opt, i;

	while ((opt = getopt(argc, argv, "s:t:r:c:b:")) != -1) {
		switch (opt) {
		case 's':
			ring = strtoull(optarg, NULL, 0);
			break;
		case 't':
			total = strtoull(optarg, NULL, 0) << 20;
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		case 'c':
			consume_every = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			backoff = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: %s [-s RING_BYTES] [-t TOTAL_MIB] [-r RUNS] [-c "
				"CONSUME_BYTES] [-b BACKOFF]\n",
				argv[0]);
			return 2;
		}
	}
	if (ring < 4096 || (ring & (ring - 1)) || ring > OUT_SIZE / 2 || runs < 1 || !total) {
		fprintf(stderr, "ring must be a power of two in [4096, %u]\n", OUT_SIZE / 2);
		return 2;
	}
	build_templates();
	out = ksim_zalloc(OUT_SIZE);
	memset(out, 1, OUT_SIZE);
	ratio_r = calloc(runs, sizeof(double));
	ratio_c = calloc(runs, sizeof(double));
	/* Each run measures memcpy right before the drains and keeps the ratios of that run:
	 * on a shared machine the load changes between runs, much less within one. */
	for (i = 0; i < runs; i++) {
		m = run_memcpy(ring, total);
		best_m = m > best_m ? m : best_m;
		v = run_reader_only(ring, total);
		best_r = v > best_r ? v : best_r;
		ratio_r[i] = v / m;
		v = run_concurrent(ring, total);
		best_c = v > best_c ? v : best_c;
		ratio_c[i] = v / m;
		v = run_memcpy_records(total);
		best_mr = v > best_mr ? v : best_mr;
		v = run_producer_only(ring, total);
		best_p = v > best_p ? v : best_p;
	}
	printf("ring %llu bytes, %llu MiB per run, %d runs, %ld CPUs online\n",
	       (unsigned long long)ring, (unsigned long long)(total >> 20), runs,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("best of the runs (memcpy, reader-only: median over ring-sized blocks of a run):\n");
	printf("  memcpy            %8.0f MiB/s\n", best_m / (1 << 20));
	printf("  memcpy per record %8.0f MiB/s (same record sizes, no ring)\n",
	       best_mr / (1 << 20));
	printf("  drain reader-only %8.0f MiB/s\n", best_r / (1 << 20));
	printf("  producer alone    %8.0f MiB/s (ceiling of the concurrent figure)\n",
	       best_p / (1 << 20));
	printf("  drain concurrent  %8.0f MiB/s (%.0f%% of the producer alone)\n",
	       best_c / (1 << 20), 100 * best_c / best_p);
	printf("median of the per-run ratios to memcpy:\n");
	printf("ratio concurrent %.2f\n", median(ratio_c, runs));
	printf("ratio reader-only %.2f\n", median(ratio_r, runs));
	free(ratio_r);
	free(ratio_c);
	return 0;
}
