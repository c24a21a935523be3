// SPDX-License-Identifier: MIT
/*
 * The decoder processes records in time order as perf's ordered events do: with per-CPU
 * rings a file holds one ring's records before another's, so a sample can precede, in the
 * file, the side-band that came before it in time; at a FINISHED_ROUND only the records up to
 * the largest time seen before the previous one go out, the rest wait a round, so a record a
 * ring delivered a round late still comes at its time, and one later than that does not.
 * The expected order is perf 6.1's on the same records (perf script -F time). Also resuming
 * after the callback stops in the middle of a round.
 * Unordered delivery (opts.unordered, used by report and c2c): samples in file order where
 * that changes nothing, each seeing the side-band as in time order: a COMM the file holds a
 * round later but that came earlier in time names the samples after it (not the last COMM in
 * the file, nor the one applied at the round's end); a pipe ignores the option and stays in
 * time order.
 */
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwsample/decode.h>
#include <hwsample/perfdata.h>
#include <hwsample/symbols.h>

#include "tests.h"

#define ST                                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU)
#define ID 77

static void sample(struct hws_perf_writer *w, uint64_t time, uint32_t cpu)
{
	uint64_t r[6] = {0, ID, 0x1000 + time, (uint64_t)7 << 32 | 7, time, cpu};
	struct perf_event_header *h = (void *)r;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(r);
	__T("write sample", hws_perf_writer__write(w, r, sizeof(r)) == 0);
}

static void comm(struct hws_perf_writer *w, const char *name, uint64_t time)
{
	/* header, pid/tid, comm[8], trailer: pid/tid, time, cpu, identifier */
	uint64_t r[1 + 1 + 1 + 4] = {0};
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
	struct perf_event_header h = {.type = HWS_RECORD_FINISHED_ROUND, .size = 8};

	__T("write round", hws_perf_writer__write(w, &h, 8) == 0);
}

struct got {
	struct hws_decoder *d;
	uint64_t t[16];
	char comm[16][16]; /* pid 7's name when the sample came */
	int n;
	int stop_at;
};

static int cb(void *ctx, const struct hws_sample *s)
{
	struct got *g = ctx;
	const char *c = hws_symbols__pid_comm(hws_decoder__symbols(g->d), 7);

	if (g->n < 16) {
		g->t[g->n] = s->time;
		snprintf(g->comm[g->n], sizeof(g->comm[0]), "%s", c ? c : "(none)");
	}
	g->n++;
	return g->n == g->stop_at ? 1 : 0;
}

/* the test records, in a file (or, @pipe, a pipe-mode file) at @path */
static void write_records(const char *path, bool pipe)
{
	struct hws_perf_event_attr a = {.size = sizeof(a),
					.type = PERF_TYPE_SOFTWARE,
					.sample_type = ST,
					.sample_id_all = 1,
					.sample_period = 1};
	uint64_t id = ID;
	struct hws_perf_writer *w = hws_perf_writer__new(path, pipe);

	__T("writer", w != NULL);
	if (!w)
		return;
	hws_perf_writer__add_attr(w, &a, "cpu-clock", &id, 1);
	/* round 1: cpu 0's ring (comm at 70, samples at 300, 100), then cpu 1's (comm at 50,
	 * sample 200) */
	comm(w, "newest", 70);
	sample(w, 300, 0);
	sample(w, 100, 0);
	comm(w, "late", 50);
	sample(w, 200, 1);
	round_end(w);
	/* round 2: times before round 1's come first (perf held round 1 back a round) */
	sample(w, 40, 1);
	sample(w, 30, 0);
	sample(w, 500, 0);
	round_end(w);
	/* round 3: cpu 1's COMM at 450 comes before round 2's sample at 500 in time */
	comm(w, "third", 450);
	sample(w, 600, 0);
	round_end(w);
	/* the end: 450 and 20 are earlier than 500, which went out at round 3's end, so they
	 * come after it (20 after 500 as in perf), then 600 and 700 in time order */
	sample(w, 450, 1);
	sample(w, 20, 1);
	sample(w, 700, 0);
	__T("close", hws_perf_writer__close(w) == 0);
}

/* a reader of @path through a pipe fed by a child process */
static struct hws_perf_reader *open_as_pipe(const char *path, int *pfd)
{
	int fds[2];

	if (pipe(fds))
		return NULL;
	if (fork() == 0) {
		char buf[4096];
		int fd = open(path, O_RDONLY);
		ssize_t n;

		close(fds[0]);
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
			if (write(fds[1], buf, (size_t)n) != n)
				break;
		_exit(0);
	}
	close(fds[1]);
	*pfd = fds[0];
	return hws_perf_reader__open_fd(fds[0], NULL);
}

int main(void)
{
	char path[] = "/tmp/hws-order-XXXXXX", ppath[] = "/tmp/hws-order-pipe-XXXXXX";
	int fd = mkstemp(path), pfd0 = mkstemp(ppath);

	__T("tmp files", fd >= 0 && pfd0 >= 0);
	close(fd);
	close(pfd0);
	write_records(path, false);
	write_records(ppath, true);

	for (int mode = 0; mode < 3; mode++) {
		/* 0: time order; 1: unordered; 2: unordered, read from a pipe (time order) */
		static const uint64_t sorted[10] = {30, 40, 100, 200, 300, 500, 20, 450, 600, 700};
		/* pid 7's name at each of them in that order: COMM late at 50, newest at 70,
		 * third at 450 (20 comes after 500, as in perf) */
		static const char *const names[10] = {"(none)", "(none)", "newest", "newest",
						      "newest", "third",  "third",  "third",
						      "third",	"third"};

		for (int stop = 0; stop <= 2; stop++) {
			int pfd = -1;
			struct hws_perf_reader *r;
			struct hws_decoder_opts o = {.sz = sizeof(o), .unordered = mode > 0};
			struct hws_decoder *d;
			struct got g = {.stop_at = stop};
			int rc;

			r = mode == 2 ? open_as_pipe(ppath, &pfd)
				      : hws_perf_reader__open(path, NULL);
			d = r ? hws_decoder__new(r, NULL, &o) : NULL;
			__T("decoder", d != NULL);
			if (!d)
				break;
			g.d = d;
			while ((rc = hws_decoder__run(d, cb, &g)) > 0)
				; /* callback stopped: resume */
			T_EQ_U64("run ends cleanly", rc, 0);
			T_EQ_U64("samples", g.n, 10);
			for (int i = 0; i < 10; i++) {
				int j = 0;

				if (mode != 1)
					T_EQ_U64("perf's time order", g.t[i], sorted[i]);
				while (j < 10 && sorted[j] != g.t[i])
					j++;
				__T("a sample of the file", j < 10);
				if (j < 10)
					T_EQ_STR("comm of pid 7 as at the sample's time", g.comm[i],
						 names[j]);
			}
			if (mode == 1) /* the ones away from the COMMs in time went at once */
				T_EQ_U64("file order where nothing is near", g.t[0], 40);
			T_EQ_STR("comm of pid 7 at the end: the latest by time",
				 hws_symbols__pid_comm(hws_decoder__symbols(d), 7), "third");
			hws_decoder__delete(d);
			hws_perf_reader__close(r);
			if (pfd >= 0)
				close(pfd);
			while (wait(NULL) > 0)
				;
		}
	}
	unlink(path);
	unlink(ppath);
	TEST_END();
}
