// SPDX-License-Identifier: MIT
/*
 * AUX data: AUXTRACE chunks held a window and handed to the backend of their stream's event
 * (aux_decode), the samples it emits counted and passed on (aux_emit()), gaps tracked per
 * CPU, and the task history (SWITCH_CPU_WIDE) that gives AUX samples without a pid (SPE
 * without PID in CONTEXTIDR) the task on their CPU at their time (task_at()).
 *
 * Invariants:
 *  - AUX streams are indexed by the AUXTRACE idx (< MAX_AUX_STREAMS); each has
 *    aux_stream_size zeroed bytes allocated on first use and the next expected offset;
 *  - a chunk is decoded once the window after its own has been dispatched (dec_aux_run()),
 *    so switches written a round late are in the task history first; a payload that lives
 *    only as long as its window is copied while held;
 *  - aux_emit() runs once per AUX sample: its common case is inline and leaf-like, the
 *    rest (task_at(), aux_counts(), aux_emit_copy()) out of line;
 *  - calls events.c only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/aux.h>

#include "decode/decode_int.h"

/*
 * Which task ran on a CPU when: SWITCH_CPU_WIDE switch-out records name the next task
 * (next_prev_pid/tid), as perf's arm_spe decoder reads them. AUX samples that carry no pid
 * (SPE without PID in CONTEXTIDR) take the task on their CPU at their time. A ring of the
 * last TASK_HIST switches per CPU, in time order (records are dispatched by time).
 */
#define TASK_HIST 1024

struct task_hist {
	struct {
		uint64_t time;
		uint32_t pid, tid;
	} e[TASK_HIST];
	size_t n; /* switches seen; the newest is e[(n - 1) % TASK_HIST] */
};

void dec_switch(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	const uint8_t *p = (const uint8_t *)rec->hdr;
	struct task_hist *h;
	uint32_t cpu, pid, tid;
	uint64_t t;
	int ev = -1;

	if (!(rec->hdr->misc & PERF_RECORD_MISC_SWITCH_OUT) || rec->hdr->size < 16)
		return;
	dec_record_ev_cpu(d, rec, &ev, &cpu, &t);
	if (cpu >= MAX_CPU || t == UINT64_MAX)
		return;
	if (!d->tasks) {
		d->tasks = calloc(MAX_CPU, sizeof(*d->tasks));
		if (!d->tasks)
			return;
	}
	h = d->tasks[cpu];
	if (!h) {
		h = d->tasks[cpu] = malloc(sizeof(*h));
		if (!h)
			return;
		h->n = 0;
	}
	memcpy(&pid, p + 8, 4);
	memcpy(&tid, p + 12, 4);
	if (h->n && t < h->e[(h->n - 1) % TASK_HIST].time)
		return; /* out of order: keep the history sorted */
	h->e[h->n % TASK_HIST].time = t;
	h->e[h->n % TASK_HIST].pid = pid;
	h->e[h->n % TASK_HIST].tid = tid;
	h->n++;
}

/* pid/tid of the task on @cpu at @s->time into @s, when the switch history knows it */
static __attribute__((noinline)) void task_at(struct hws_decoder *d, uint32_t cpu,
					      struct hws_sample *s)
{
	const struct task_hist *h = d->tasks && cpu < MAX_CPU ? d->tasks[cpu] : NULL;
	size_t lo, hi, first;

	if (!h || !h->n)
		return;
	/* binary search over the ring's valid part [first, n) for the last time <= s->time */
	first = h->n > TASK_HIST ? h->n - TASK_HIST : 0;
	lo = first;
	hi = h->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->e[mid % TASK_HIST].time <= s->time)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == first)
		return; /* before the oldest switch kept: unknown */
	if (h->e[(lo - 1) % TASK_HIST].tid == (uint32_t)-1)
		return;
	s->pid = h->e[(lo - 1) % TASK_HIST].pid;
	s->tid = h->e[(lo - 1) % TASK_HIST].tid;
	s->fields |= HWS_SF_PID;
}

/* aux_emit()'s counts slot of @cpu, cached until a sample of another CPU comes */
static __attribute__((noinline)) struct hws_decode_counts *aux_counts(struct hws_decoder *d, int ev,
								      uint32_t cpu)
{
	struct hws_decode_counts *c = counts_or_dummy(d, ev, cpu);

	d->aux_cnt = c != &dec_dummy_counts ? c : NULL;
	d->aux_cnt_cpu = cpu;
	return c;
}

/* aux_emit() on a sample core may write to; inline, so that the common case is a leaf
 * that ends in a jump to the callback (no registers to save, no stack frame) */
static inline __attribute__((always_inline)) int aux_emit_fill(struct hws_decoder *d,
							       struct hws_sample *s)
{
	struct aux_stream *st = d->cur_stream;
	struct hws_decode_counts *c;
	uint32_t cpu;

	s->sz = sizeof(*s);
	s->attr_idx = (uint32_t)st->ev;
	s->event = d->aux_name;
	s->backend = d->aux_backend;
	cpu = (s->fields & HWS_SF_CPU) ? s->cpu : d->cur_cpu;
	if (!(s->fields & HWS_SF_PID) && (s->fields & HWS_SF_TIME) && d->tasks)
		task_at(d, cpu, s);
	/* the slot stays where it is while the chunk decodes: dec_counts() moves a CPU array only
	 * to add a CPU, which (for this stream's event) happens only here, and a sample of
	 * another CPU refreshes the cache */
	c = __builtin_expect(d->aux_cnt && cpu == d->aux_cnt_cpu, 1) ? d->aux_cnt
								     : aux_counts(d, st->ev, cpu);
	c->samples++;
	c->period += (s->fields & HWS_SF_PERIOD) ? s->period : 1;
	return d->fn ? d->fn(d->ctx, s) : 0;
}

/* the sample is lent to core for the call: it writes the members the plugin ABI says are
 * its own (include/hwsample/backend.h, aux_decode) */
static int aux_emit(void *ctx, const struct hws_sample *in)
{
	return aux_emit_fill(ctx, (struct hws_sample *)(uintptr_t)in);
}

/* Before a backend decodes a chunk of (or flushes) @st on @cpu: aux_emit()'s context */
static void aux_begin(struct hws_decoder *d, struct aux_stream *st, uint32_t cpu)
{
	const struct hws_perf_evattr *ea =
	    st->ev >= 0 && (size_t)st->ev + 1 < d->nr_evs ? d->evs[st->ev + 1].ea : NULL;

	d->cur_stream = st;
	d->cur_cpu = cpu;
	d->aux_name = ea ? ea->name : "aux";
	d->aux_backend = st->backend->ops->name;
	d->aux_cnt = NULL;
}

/* Event whose backend decodes AUX data: the first one with aux_decode. */
int dec_aux_event(struct hws_decoder *d)
{
	for (size_t i = 1; i < d->nr_evs; i++) {
		struct hws_backend *b = d->evs[i].backend;
		if (b && (b->ops->caps & HWS_CAP_AUX) && b->ops->aux_decode)
			return (int)i - 1;
	}
	return -1;
}

/* Gap tracker of CPU slot @slot, created on first use; NULL on OOM (then only offset jumps
 * mark gaps). */
struct hws_aux *dec_aux_tracker(struct hws_decoder *d, size_t slot)
{
	if (slot > MAX_CPU)
		return NULL;
	if (!d->aux_trk[slot])
		d->aux_trk[slot] = hws_aux__new_tracker();
	return d->aux_trk[slot];
}

static int aux_hold(struct hws_decoder *d, const struct hws_perf_record *rec,
		    const struct hws_aux_chunk *ch, size_t stream, int ev);

int dec_auxtrace(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	const uint8_t *p = (const uint8_t *)rec->hdr;
	struct hws_aux_chunk ch = {0};
	struct aux_stream *st;
	struct hws_backend *b;
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;
	uint32_t gslot;
	int ev;

	if (rec->hdr->size < 48) {
		counts_or_dummy(d, -1, (uint32_t)-1)->errors++;
		return 0;
	}
	memcpy(&size, p + 8, 8);
	memcpy(&offset, p + 16, 8);
	memcpy(&reference, p + 24, 8);
	memcpy(&idx, p + 32, 4);
	memcpy(&tid, p + 36, 4);
	memcpy(&cpu, p + 40, 4);
	ev = dec_aux_event(d);
	counts_or_dummy(d, ev, cpu)->auxtrace_bytes += rec->payload_size;
	if (ev < 0)
		return 0;
	if (idx >= MAX_AUX_STREAMS) {
		counts_or_dummy(d, ev, cpu)->errors++;
		return 0;
	}
	if (idx >= d->nr_streams) {
		size_t n = d->nr_streams ? d->nr_streams : 8;
		struct aux_stream *s2;
		while (n <= idx)
			n *= 2;
		s2 = realloc(d->streams, n * sizeof(*s2));
		if (!s2)
			return -ENOMEM;
		memset(s2 + d->nr_streams, 0, (n - d->nr_streams) * sizeof(*s2));
		d->streams = s2;
		d->nr_streams = n;
	}
	b = d->evs[ev + 1].backend;
	st = &d->streams[idx];
	if (!st->started) {
		st->state = calloc(1, b->ops->aux_stream_size ? b->ops->aux_stream_size : 1);
		if (!st->state)
			return -ENOMEM;
		st->backend = b;
		st->ev = ev;
	}
	gslot = cpu < MAX_CPU ? cpu + 1 : 0;
	ch.data = rec->payload;
	ch.size = rec->payload_size < size ? rec->payload_size : size;
	ch.offset = offset;
	ch.reference = reference;
	ch.idx = idx;
	ch.cpu = cpu;
	ch.tid = tid;
	ch.attr = ev_attr(d, ev);
	/* AUXTRACE sizes are padded to 8 while stream offsets advance by the real length:
	 * a chunk starting up to 7 bytes before the padded end of the previous one follows it */
	if (st->started && offset < st->next_offset && st->next_offset - offset < 8)
		offset = st->next_offset;
	{
		struct hws_aux *t = dec_aux_tracker(d, gslot);
		/* the tracker places gaps where the recorder split the chunks (TRUNCATED ends a
		 * chunk, PARTIAL starts one) and flags offset jumps */
		ch.gap = t ? hws_aux__chunk_gap(t, offset, size, NULL) != 0
			   : st->started && offset != st->next_offset;
	}
	if (ch.gap)
		counts_or_dummy(d, ev, cpu)->aux_gaps++;
	st->started = true;
	st->next_offset = offset + size;
	return aux_hold(d, rec, &ch, idx, ev);
}

/* Queue a chunk for dec_aux_run() (copying a payload that lives only as long as its window). */
static int aux_hold(struct hws_decoder *d, const struct hws_perf_record *rec,
		    const struct hws_aux_chunk *ch, size_t stream, int ev)
{
	struct aux_pend *p;

	if (d->npend == d->cappend) {
		size_t n = d->cappend ? d->cappend * 2 : 64;
		struct aux_pend *np = realloc(d->pend, n * sizeof(*np));

		if (!np)
			return -ENOMEM;
		d->pend = np;
		d->cappend = n;
	}
	p = &d->pend[d->npend];
	p->ch = *ch;
	p->copy = NULL;
	if (ch->data && ch->size && !(rec->flags & HWS_PERF_REC_PAYLOAD_STABLE)) {
		p->copy = malloc((size_t)ch->size);
		if (!p->copy)
			return -ENOMEM;
		memcpy(p->copy, ch->data, (size_t)ch->size);
		p->ch.data = p->copy;
	}
	p->stream = stream;
	p->file_offset = rec->file_offset;
	p->gen = d->gen;
	p->ev = ev;
	d->npend++;
	return 0;
}

/*
 * Decode the held chunks dispatched in windows before @below (all: UINT64_MAX), in order.
 * Returns 0 or the callback's non-zero value (the chunks after the one that stopped stay).
 */
int dec_aux_run(struct hws_decoder *d, uint64_t below)
{
	size_t i = 0;
	int rc = 0;

	for (; i < d->npend && d->pend[i].gen < below && !rc; i++) {
		struct aux_pend *p = &d->pend[i];
		struct aux_stream *st = &d->streams[p->stream];
		struct hws_backend *b = st->backend;

		p->ch.attr = ev_attr(d, p->ev); /* the reader's attrs may have moved */
		aux_begin(d, st, p->ch.cpu);
		rc = b->ops->aux_decode(b->priv, st->state, file_info(d), &p->ch, aux_emit, d);
		if (rc < 0) {
			counts_or_dummy(d, p->ev, p->ch.cpu)->errors++;
			pr_debug("decode: offset 0x%" PRIx64 ": AUX decode error %d\n",
				 p->file_offset, rc);
			rc = 0;
		}
		free(p->copy);
	}
	memmove(d->pend, d->pend + i, (d->npend - i) * sizeof(*d->pend));
	d->npend -= i;
	return rc;
}

int dec_aux_flush_all(struct hws_decoder *d)
{
	for (size_t i = 0; i < d->nr_streams; i++) {
		struct aux_stream *st = &d->streams[i];
		int rc;

		if (!st->started || !st->backend->ops->aux_flush)
			continue;
		aux_begin(d, st, (uint32_t)-1);
		rc = st->backend->ops->aux_flush(st->backend->priv, st->state, file_info(d),
						 aux_emit, d);
		if (rc > 0)
			return rc;
	}
	return 0;
}

void dec_aux_free(struct hws_decoder *d)
{
	for (size_t i = 0; i < d->nr_streams; i++)
		free(d->streams[i].state);
	free(d->streams);
	for (size_t i = 0; d->aux_trk && i <= MAX_CPU; i++)
		hws_aux__delete(d->aux_trk[i]);
	free(d->aux_trk);
	for (size_t i = 0; d->tasks && i < MAX_CPU; i++)
		free(d->tasks[i]);
	free(d->tasks);
	for (size_t i = 0; i < d->npend; i++)
		free(d->pend[i].copy);
	free(d->pend);
}
