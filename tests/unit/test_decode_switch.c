// SPDX-License-Identifier: MIT
/*
 * AUX samples without a pid (SPE with no PID in CONTEXTIDR) take the task that ran on their
 * CPU at their time, from SWITCH_CPU_WIDE switch-out records (next_prev_pid/tid), as perf's
 * arm_spe decoder does. A test AUX backend emits one sample per u64 of an AUXTRACE chunk,
 * with TIME = the value and CPU = the chunk's CPU; values with bit 63 set carry their own
 * pid (as a CONTEXT packet would) and must keep it.
 * Checked: the pid/tid per sample against the switch schedule on two CPUs, samples before
 * the first switch stay without pid, switch-in records and a switch to tid -1 are ignored,
 * and a CPU with no switches gives no pid. Twice: a backend with a fresh sample each time and
 * one that reuses one sample for a chunk as include/hwsample/backend.h allows (fields set in
 * full for each emit, pid and tid whenever it sets HWS_SF_PID): core, which fills the lent
 * sample in place, changes nothing of it but the members the ABI gives it (sz, attr_idx,
 * event, backend; pid, tid and HWS_SF_PID), and no pid leaks into the next sample.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/decode.h>
#include <hwsample/perfdata.h>
#include <hwsample/registry.h>

#include "rec_build.h"
#include "tests.h"

#define ST	      (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define ID	      77
#define OWN	      (1ULL << 63)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int aux_match(void *priv, const struct hws_perf_event_attr *attr, const char *pmu)
{
	return attr->type == PERF_TYPE_RAW && attr->config == 0x43;
}

static int template_touched; /* emits that changed members core may not write */

static int aux_decode(void *priv, void *stream, const struct hws_file_info *fi,
		      const struct hws_aux_chunk *ch, hws_sample_fn emit, void *ctx)
{
	for (uint64_t off = 0; off + 8 <= ch->size; off += 8) {
		struct hws_sample s = {.sz = sizeof(s)};
		uint64_t v;
		int rc;

		memcpy(&v, (const uint8_t *)ch->data + off, 8);
		s.time = v & ~OWN;
		s.cpu = ch->cpu;
		s.fields = HWS_SF_TIME | HWS_SF_CPU;
		if (v & OWN) {
			s.pid = s.tid = 4242;
			s.fields |= HWS_SF_PID;
		}
		rc = emit(ctx, &s);
		if (rc)
			return rc;
	}
	return 0;
}

/* one sample for the whole chunk: cpu set once, fields in full for each emit */
static int aux_decode_reuse(void *priv, void *stream, const struct hws_file_info *fi,
			    const struct hws_aux_chunk *ch, hws_sample_fn emit, void *ctx)
{
	struct hws_sample s = {.sz = sizeof(s)}, before, after;

	s.cpu = ch->cpu;
	for (uint64_t off = 0; off + 8 <= ch->size; off += 8) {
		uint64_t v;
		int rc;

		memcpy(&v, (const uint8_t *)ch->data + off, 8);
		s.time = v & ~OWN;
		s.fields = HWS_SF_TIME | HWS_SF_CPU;
		if (v & OWN) {
			s.pid = s.tid = 4242;
			s.fields |= HWS_SF_PID;
		}
		before = s;
		rc = emit(ctx, &s);
		/* what core may write, taken back: the rest must be as the backend left it */
		after = s;
		after.sz = before.sz;
		after.attr_idx = before.attr_idx;
		after.event = before.event;
		after.backend = before.backend;
		if (!(before.fields & HWS_SF_PID)) {
			after.pid = before.pid;
			after.tid = before.tid;
			after.fields &= ~(uint64_t)HWS_SF_PID;
		}
		if (memcmp(&before, &after, sizeof(s)))
			template_touched++;
		if (rc)
			return rc;
	}
	return 0;
}

static const struct hws_backend_ops aux_ops = {
    .abi_version = HWS_BACKEND_ABI_VERSION,
    .size = sizeof(struct hws_backend_ops),
    .name = "fakeaux",
    .caps = HWS_CAP_AUX,
    .aux_stream_size = 8,
    .init = be_init,
    .detect = be_detect,
    .encode = be_encode,
    .match = aux_match,
    .aux_decode = aux_decode,
};

static const struct hws_backend_ops aux_ops_reuse = {
    .abi_version = HWS_BACKEND_ABI_VERSION,
    .size = sizeof(struct hws_backend_ops),
    .name = "fakeaux",
    .caps = HWS_CAP_AUX,
    .aux_stream_size = 8,
    .init = be_init,
    .detect = be_detect,
    .encode = be_encode,
    .match = aux_match,
    .aux_decode = aux_decode_reuse,
};

static void emit_rec(struct hws_perf_writer *w, struct rb *r)
{
	((struct perf_event_header *)r->b)->size = (uint16_t)r->n;
	__T("write record", hws_perf_writer__write(w, r->b, r->n) == 0);
}

/* SWITCH_CPU_WIDE on @cpu at @t: out (next task @pid/@tid) or in (current task) */
static void sw(struct hws_perf_writer *w, uint32_t cpu, uint64_t t, bool out, uint32_t pid,
	       uint32_t tid)
{
	struct rb r;

	begin(&r, PERF_RECORD_SWITCH_CPU_WIDE, out ? PERF_RECORD_MISC_SWITCH_OUT : 0);
	put32x2(&r, pid, tid);
	put32x2(&r, 1, 1); /* trailer: the outgoing task, not used */
	put64(&r, t);
	put32x2(&r, cpu, 0);
	put64(&r, ID);
	emit_rec(w, &r);
}

static void chunk(struct hws_perf_writer *w, uint32_t idx, uint32_t cpu, const uint64_t *v,
		  size_t n, uint64_t offset)
{
	struct rb r;

	begin(&r, HWS_RECORD_AUXTRACE, 0);
	put64(&r, n * 8);
	put64(&r, offset);
	put64(&r, 0);
	put32x2(&r, idx, (uint32_t)-1);
	put32x2(&r, cpu, 0);
	put(&r, v, n * 8);
	((struct perf_event_header *)r.b)->size = 48;
	__T("write auxtrace", hws_perf_writer__write(w, r.b, r.n) == 0);
}

struct got {
	uint64_t time[64];
	uint32_t cpu[64], tid[64], pid[64];
	bool has[64];
	int n;
};

static int collect(void *ctx, const struct hws_sample *s)
{
	struct got *g = ctx;

	if (g->n < 64) {
		g->time[g->n] = s->time;
		g->cpu[g->n] = s->cpu;
		g->has[g->n] = (s->fields & HWS_SF_PID) != 0;
		g->pid[g->n] = s->pid;
		g->tid[g->n] = s->tid;
	}
	g->n++;
	return 0;
}

/* the task the schedule below puts on @cpu at @t: tid or 0 for none */
static uint32_t expected(uint32_t cpu, uint64_t t)
{
	if (cpu == 0)
		return t >= 300 ? 30 : t >= 200 ? 20 : t >= 100 ? 10 : 0;
	if (cpu == 1)
		return t >= 250 ? 0 : t >= 150 ? 16 : 0; /* switch to tid -1 at 250 */
	return 0;
}

static void run(const struct hws_backend_ops *ops)
{
	char path[] = "/tmp/hws-switch-XXXXXX";
	struct hws_perf_event_attr a = {.size = sizeof(a),
					.type = PERF_TYPE_RAW,
					.config = 0x43,
					.sample_type = ST,
					.sample_id_all = 1,
					.sample_period = 1};
	uint64_t id = ID;
	uint64_t c0[] = {50, 120, 199, 200, 250, 310, 400 | OWN, 420};
	uint64_t c1[] = {100, 160, 240, 260};
	uint64_t c2[] = {500};
	struct hws_perf_writer *w;
	struct hws_registry *reg = hws_registry__new();
	struct hws_perf_reader *r;
	struct hws_decoder *d;
	struct got g = {.n = 0};
	char err[256];
	int fd = mkstemp(path), bad = 0;

	__T("tmp", fd >= 0);
	close(fd);
	w = hws_perf_writer__new(path, false);
	__T("writer", w != NULL);
	if (!w)
		return;
	hws_perf_writer__add_attr(w, &a, "fakeaux//", &id, 1);
	sw(w, 0, 90, false, 9, 9); /* switch-in: ignored */
	sw(w, 0, 100, true, 10, 10);
	sw(w, 1, 150, true, 15, 16);
	sw(w, 0, 200, true, 20, 20);
	sw(w, 1, 250, true, 25, (uint32_t)-1);
	sw(w, 0, 300, true, 30, 30);
	chunk(w, 0, 0, c0, ARRAY_SIZE(c0), 0);
	chunk(w, 1, 1, c1, ARRAY_SIZE(c1), 0);
	chunk(w, 2, 2, c2, ARRAY_SIZE(c2), 0);
	__T("close", hws_perf_writer__close(w) == 0);

	__T("add backend", hws_registry__add(reg, ops, "(test)", NULL, err, sizeof(err)) >= 0);
	r = hws_perf_reader__open(path, NULL);
	__T("open", r != NULL);
	if (!r)
		return;
	d = hws_decoder__new(r, reg, NULL);
	T_EQ_U64("run", hws_decoder__run(d, collect, &g), 0);
	T_EQ_U64("samples", g.n, ARRAY_SIZE(c0) + ARRAY_SIZE(c1) + ARRAY_SIZE(c2));
	for (int i = 0; i < g.n && i < 64; i++) {
		uint32_t want = expected(g.cpu[i], g.time[i]);

		if (g.time[i] == 400) {
			/* its own pid (CONTEXT) wins */
			if (!g.has[i] || g.pid[i] != 4242)
				bad++;
			continue;
		}
		if (want ? !g.has[i] || g.tid[i] != want : g.has[i]) {
			printf("cpu %u time %llu: has %d tid %u, want %u\n", g.cpu[i],
			       (unsigned long long)g.time[i], g.has[i], g.tid[i], want);
			bad++;
		}
		if (want == 16 && g.pid[i] != 15)
			bad++; /* pid and tid from next_prev_pid / next_prev_tid */
	}
	T_EQ_U64("samples with the wrong task", bad, 0);
	hws_decoder__delete(d);
	hws_perf_reader__close(r);
	hws_registry__delete(reg);
	unlink(path);
}

int main(void)
{
	printf("# backend with a fresh sample per emit\n");
	run(&aux_ops);
	printf("# backend reusing one sample per chunk\n");
	template_touched = 0;
	run(&aux_ops_reuse);
	T_EQ_U64("emits that changed members core may not write", template_touched, 0);
	TEST_END();
}
