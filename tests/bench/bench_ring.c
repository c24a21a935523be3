// SPDX-License-Identifier: MIT
/*
 * Drain throughput of the ring reader (core/ring.c) against the simulated kernel producer
 * (tests/kernel_sim.h), as a ratio to memcpy of the same bytes on the same machine.
 *
 *  concurrent: a producer thread writes records with the kernel protocol (waiting for space
 *	instead of dropping, so every byte is delivered) while the reader drains; the reader
 *	copies every record it is handed into an output buffer, as the session does before
 *	writing the file. Throughput = bytes delivered / wall time.
 *  reader-only: the producer fills the ring, then the reader drains it (read_init,
 *	read_event + copy out, read_done); only the drain is timed.
 *  memcpy: the same number of bytes copied from a ring-sized source into the same output
 *	buffer in ring-sized blocks, one thread.
 *
 *  producer alone: the simulated producer into an overwrite ring with no reader: the
 *	ceiling of the concurrent figure (the pipeline cannot beat its producer).
 *
 * The headline ("ratio", target >= 0.5) is reader-only / memcpy: what the reader itself
 * costs per byte. The concurrent ratio is bounded by the producer thread (its own record
 * copies, cache-line transfers between the two cores) and by the machine's load.
 *
 * Record sizes vary from 16 to 520 bytes (mean ~270), so records straddle the wrap and go
 * through the bounce buffer as they do in real use. Best of 15 short runs each,
 * interleaved, so a loaded machine hurts all figures alike.
 *
 * Usage: bench_ring [-s RING_BYTES] [-t TOTAL_MIB] [-r RUNS] [-c CONSUME_BYTES]
 * (-c: hws_ring__consume() after every CONSUME_BYTES drained; 0 = only at read_done)
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
		if (!n)
			sched_yield();
	}
	t1 = now_s();
	pthread_join(th, NULL);
	sink += out[out_pos / 2];
	hws_ring__delete(r);
	ksim_ring__fini(&p.k);
	return total / (t1 - t0);
}

static double run_reader_only(uint64_t ring, uint64_t total)
{
	struct ksim_ring k;
	struct hws_ring *r;
	uint64_t got = 0, out_pos = 0, i = 0;
	double t = 0;

	ksim_ring__init(&k, ring, false, false);
	r = hws_ring__new(k.pc, k.data, ring, false);
	while (got < total) {
		double t0;

		while (ksim_ring__write(&k, templates + tpl_off[i], tpl_size[i]))
			i = (i + 1) % NR_TEMPLATES;
		k.pending_lost = 0;
		t0 = now_s();
		got += drain(r, &out_pos);
		t += now_s() - t0;
	}
	sink += out[out_pos / 2];
	hws_ring__delete(r);
	ksim_ring__fini(&k);
	return got / t;
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

static double run_memcpy(uint64_t ring, uint64_t total)
{
	unsigned char *src = ksim_zalloc(ring);
	uint64_t done = 0, out_pos = 0;
	double t0, t1;

	memset(src, 0x5a, ring);
	t0 = now_s();
	while (done < total) {
		if (out_pos + ring > OUT_SIZE)
			out_pos = 0;
		memcpy(out + out_pos, src, ring);
		out_pos += ring;
		done += ring;
		__asm__ __volatile__("" ::: "memory");
	}
	t1 = now_s();
	sink += out[out_pos / 2];
	free(src);
	return done / (t1 - t0);
}

int main(int argc, char **argv)
{
	uint64_t ring = 1 << 20, total = 128ull << 20;
	double best_c = 0, best_r = 0, best_m = 0, best_p = 0, best_mr = 0, v;
	int runs = 15, opt, i;

	while ((opt = getopt(argc, argv, "s:t:r:c:")) != -1) {
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
		default:
			fprintf(stderr,
				"usage: %s [-s RING_BYTES] [-t TOTAL_MIB] [-r RUNS] [-c "
				"CONSUME_BYTES]\n",
				argv[0]);
			return 2;
		}
	}
	if (ring < 4096 || (ring & (ring - 1)) || ring > OUT_SIZE / 2 || runs < 1) {
		fprintf(stderr, "ring must be a power of two in [4096, %u]\n", OUT_SIZE / 2);
		return 2;
	}
	build_templates();
	out = ksim_zalloc(OUT_SIZE);
	memset(out, 1, OUT_SIZE);
	for (i = 0; i < runs; i++) {
		v = run_memcpy(ring, total);
		best_m = v > best_m ? v : best_m;
		v = run_reader_only(ring, total);
		best_r = v > best_r ? v : best_r;
		v = run_concurrent(ring, total);
		best_c = v > best_c ? v : best_c;
		v = run_memcpy_records(total);
		best_mr = v > best_mr ? v : best_mr;
		v = run_producer_only(ring, total);
		best_p = v > best_p ? v : best_p;
	}
	printf("ring %llu bytes, %llu MiB per run, best of %d, %ld CPUs online\n",
	       (unsigned long long)ring, (unsigned long long)(total >> 20), runs,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("memcpy            %8.0f MiB/s\n", best_m / (1 << 20));
	printf("memcpy per record %8.0f MiB/s (same record sizes, no ring)\n", best_mr / (1 << 20));
	printf("drain reader-only %8.0f MiB/s\n", best_r / (1 << 20));
	printf("producer alone    %8.0f MiB/s (ceiling of the concurrent figure)\n",
	       best_p / (1 << 20));
	printf("drain concurrent  %8.0f MiB/s (%.0f%% of the producer alone)\n", best_c / (1 << 20),
	       100 * best_c / best_p);
	printf("ratio concurrent %.2f\n", best_c / best_m);
	printf("ratio reader-only %.2f\n", best_r / best_m);
	return 0;
}
