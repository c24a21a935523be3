// SPDX-License-Identifier: MIT
/*
 * The decoder processes records in time order within each round (between FINISHED_ROUND
 * records), as perf's ordered events do: with per-CPU rings a file holds one ring's
 * records before another's, so a sample can precede, in the file, the side-band that
 * came before it in time. Rounds stay barriers: nothing crosses a FINISHED_ROUND. Also
 * resuming after the callback stops in the middle of a round.
 */
#include <unistd.h>

#include <hwsample/decode.h>
#include <hwsample/perfdata.h>
#include <hwsample/symbols.h>

#include "tests.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU)
#define ID 77

static void sample(struct hws_perf_writer *w, uint64_t time, uint32_t cpu)
{
	uint64_t r[6] = { 0, ID, 0x1000 + time, (uint64_t)7 << 32 | 7, time, cpu };
	struct perf_event_header *h = (void *)r;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(r);
	__T("write sample", hws_perf_writer__write(w, r, sizeof(r)) == 0);
}

static void comm(struct hws_perf_writer *w, const char *name, uint64_t time)
{
	/* header, pid/tid, comm[8], trailer: pid/tid, time, cpu, identifier */
	uint64_t r[1 + 1 + 1 + 4] = { 0 };
	struct perf_event_header *h = (void *)r;

	h->type = PERF_RECORD_COMM;
	h->size = sizeof(r);
	r[1] = (uint64_t)7 << 32 | 7;
	strncpy((char *)&r[2], name, 7);
	r[3] = (uint64_t)7 << 32 | 7;
	r[4] = time;
	r[5] = 1;
	r[6] = ID;
	__T("write comm", hws_perf_writer__write(w, r, sizeof(r)) == 0);
}

static void round_end(struct hws_perf_writer *w)
{
	struct perf_event_header h = { .type = HWS_RECORD_FINISHED_ROUND, .size = 8 };

	__T("write round", hws_perf_writer__write(w, &h, 8) == 0);
}

struct got {
	uint64_t t[16];
	int n;
	int stop_at;
};

static int cb(void *ctx, const struct hws_sample *s)
{
	struct got *g = ctx;

	if (g->n < 16)
		g->t[g->n] = s->time;
	g->n++;
	return g->n == g->stop_at ? 1 : 0;
}

int main(void)
{
	char path[] = "/tmp/hws-order-XXXXXX";
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .sample_type = ST, .sample_id_all = 1, .sample_period = 1 };
	uint64_t id = ID;
	int fd = mkstemp(path);
	struct hws_perf_writer *w;

	__T("tmp file", fd >= 0);
	close(fd);
	w = hws_perf_writer__new(path, false);
	__T("writer", w != NULL);
	hws_perf_writer__add_attr(w, &a, "cpu-clock", &id, 1);
	/* round 1: cpu 0's ring (samples at 300, 100), then cpu 1's (comm at 50, sample 200) */
	sample(w, 300, 0);
	sample(w, 100, 0);
	comm(w, "late", 50);
	sample(w, 200, 1);
	round_end(w);
	/* round 2: an earlier time than round 1 stays after it (rounds are barriers) */
	sample(w, 40, 1);
	sample(w, 30, 0);
	__T("close", hws_perf_writer__close(w) == 0);

	for (int stop = 0; stop <= 2; stop++) {
		int err = 0;
		struct hws_perf_reader *r = hws_perf_reader__open(path, &err);
		struct hws_decoder_opts o = { .sz = sizeof(o) };
		struct hws_decoder *d = r ? hws_decoder__new(r, NULL, &o) : NULL;
		struct got g = { .stop_at = stop };
		int rc;

		__T("decoder", d != NULL);
		if (!d)
			break;
		while ((rc = hws_decoder__run(d, cb, &g)) > 0)
			; /* callback stopped: resume */
		T_EQ_U64("run ends cleanly", rc, 0);
		T_EQ_U64("samples", g.n, 5);
		T_EQ_U64("1st: sorted within round 1", g.t[0], 100);
		T_EQ_U64("2nd", g.t[1], 200);
		T_EQ_U64("3rd", g.t[2], 300);
		T_EQ_U64("4th: round 2 after round 1, sorted", g.t[3], 30);
		T_EQ_U64("5th", g.t[4], 40);
		T_EQ_STR("comm of pid 7 known", hws_symbols__pid_comm(hws_decoder__symbols(d), 7),
			 "late");
		hws_decoder__delete(d);
		hws_perf_reader__close(r);
	}
	unlink(path);
	TEST_END();
}
