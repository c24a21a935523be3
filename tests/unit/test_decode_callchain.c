// SPDX-License-Identifier: MIT
/*
 * Call chains (core/decode/callchain.c): PERF_SAMPLE_CALLCHAIN entries into struct hws_frame.
 * Checked on the frame builder itself: markers dropped and their context given to the frames
 * after them (kernel, user, hv, guest kernel/user), frames before any marker HWS_CTX_UNKNOWN
 * (old layouts), the max_stack cut with HWS_CC_TRUNCATED (markers not counted), an unknown
 * marker refused, the deferred-user cookie skipped. Then through the decoder on a file
 * written here: samples with a chain get HWS_SF_CALLCHAIN and the frames, samples of the same
 * event with nr = 0 or markers only do not, an unknown marker leaves the sample without a
 * chain and counts callchain_errors, an nr that overruns the record makes it a malformed
 * sample (errors), opts.max_stack cuts, and a sample without PERF_SAMPLE_CALLCHAIN has none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/decode.h>
#include <hwsample/errors.h>
#include <hwsample/perfdata.h>

#include "decode/decode_int.h"
#include "rec_build.h"
#include "tests.h"

/* written out here, not taken from the code under test */
#define M_HV	  ((uint64_t)-32)
#define M_KERNEL  ((uint64_t)-128)
#define M_USER	  ((uint64_t)-512)
#define M_GUEST	  ((uint64_t)-2048)
#define M_GUEST_K ((uint64_t)-2176)
#define M_GUEST_U ((uint64_t)-2560)
#define M_DEFER	  ((uint64_t)-640)

static void check_frames(void)
{
	struct dec_cc cc = {0};
	uint32_t n, fl;
	const uint64_t a[] = {
	    M_KERNEL, 0xffffffff81000010ULL, 0xffffffff81000020ULL, M_USER, 0x401000, 0x401100,
	    0x401200};
	const uint64_t nomark[] = {0x401000, 0x401100};
	const uint64_t guest[] = {M_HV, 0x1, M_GUEST, M_GUEST_K, 0x2, M_GUEST_U, 0x3};
	const uint64_t bad[] = {M_KERNEL, 0xffffffff81000010ULL, (uint64_t)-200, 0x401000};
	const uint64_t defer[] = {M_KERNEL, 0xffffffff81000010ULL, M_DEFER, 12345};
	const uint64_t marks[] = {M_KERNEL, M_USER};

	T_EQ_U64("chain ok", dec_cc_frames(&cc, 127, a, 7, &n, &fl), 0);
	T_EQ_U64("markers dropped: 5 frames", n, 5);
	T_EQ_U64("not truncated", fl, 0);
	T_EQ_U64("frame 0 innermost", cc.buf[0].ip, 0xffffffff81000010ULL);
	T_EQ_U64("frame 0 kernel", cc.buf[0].ctx, HWS_CTX_KERNEL);
	T_EQ_U64("frame 1 kernel", cc.buf[1].ctx, HWS_CTX_KERNEL);
	T_EQ_U64("frame 2 ip", cc.buf[2].ip, 0x401000);
	T_EQ_U64("frame 2 user", cc.buf[2].ctx, HWS_CTX_USER);
	T_EQ_U64("frame 4 outermost", cc.buf[4].ip, 0x401200);
	T_EQ_U64("frame flags clear", cc.buf[4].flags | cc.buf[4].inline_depth, 0);

	T_EQ_U64("max_stack 3", dec_cc_frames(&cc, 3, a, 7, &n, &fl), 0);
	T_EQ_U64("cut to 3 frames (markers not counted)", n, 3);
	T_EQ_U64("truncated flag", fl, HWS_CC_TRUNCATED);
	T_EQ_U64("cut keeps the innermost", cc.buf[2].ip, 0x401000);
	T_EQ_U64("max_stack = frames: not truncated", dec_cc_frames(&cc, 5, a, 7, &n, &fl), 0);
	T_EQ_U64("5 of 5", n * 10 + fl, 50);

	T_EQ_U64("no markers", dec_cc_frames(&cc, 127, nomark, 2, &n, &fl), 0);
	T_EQ_U64("no markers: 2 frames", n, 2);
	T_EQ_U64("no markers: ctx unknown", cc.buf[0].ctx, HWS_CTX_UNKNOWN);

	T_EQ_U64("guest", dec_cc_frames(&cc, 127, guest, 7, &n, &fl), 0);
	T_EQ_U64("guest: 3 frames", n, 3);
	T_EQ_U64("hv", cc.buf[0].ctx, HWS_CTX_HV);
	T_EQ_U64("guest kernel", cc.buf[1].ctx, HWS_CTX_GUEST_KERNEL);
	T_EQ_U64("guest user", cc.buf[2].ctx, HWS_CTX_GUEST_USER);

	n = 99;
	__T("unknown marker refused", dec_cc_frames(&cc, 127, bad, 4, &n, &fl) == HWS_E_BADREC);
	T_EQ_U64("unknown marker: no frames", n, 0);

	T_EQ_U64("deferred", dec_cc_frames(&cc, 127, defer, 4, &n, &fl), 0);
	T_EQ_U64("deferred: cookie is no frame", n, 1);

	T_EQ_U64("markers only", dec_cc_frames(&cc, 127, marks, 2, &n, &fl), 0);
	T_EQ_U64("markers only: no frame", n, 0);
	T_EQ_U64("empty", dec_cc_frames(&cc, 127, a, 0, &n, &fl), 0);
	T_EQ_U64("empty: no frame", n, 0);
	dec_cc_free(&cc);
}

#define ST                                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CALLCHAIN)
#define ID_CC 11
#define ID_NO 12

static void cc_sample(struct hws_perf_writer *w, uint64_t time, const uint64_t *ips, uint64_t nr,
		      uint64_t claim)
{
	struct rb r;
	struct perf_event_header *h;

	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&r, ID_CC);
	put64(&r, 0x401000);
	put32x2(&r, 100, 100);
	put64(&r, time);
	put64(&r, claim);
	for (uint64_t i = 0; i < nr; i++)
		put64(&r, ips[i]);
	h = (struct perf_event_header *)r.b;
	h->size = (uint16_t)r.n;
	__T("write sample", hws_perf_writer__write(w, r.b, r.n) == 0);
}

static void plain_sample(struct hws_perf_writer *w, uint64_t time)
{
	struct rb r;
	struct perf_event_header *h;

	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&r, ID_NO);
	put64(&r, 0x402000);
	put32x2(&r, 100, 100);
	put64(&r, time);
	h = (struct perf_event_header *)r.b;
	h->size = (uint16_t)r.n;
	__T("write sample", hws_perf_writer__write(w, r.b, r.n) == 0);
}

struct got {
	int n;
	uint64_t fields[16];
	uint32_t nr[16], flags[16];
	uint64_t ip0[16], ipl[16];
	uint8_t ctx0[16];
};

static int collect(void *ctx, const struct hws_sample *s)
{
	struct got *g = ctx;

	if (g->n >= 16)
		return 0;
	g->fields[g->n] = s->fields;
	g->nr[g->n] = s->nr_callchain;
	g->flags[g->n] = s->callchain_flags;
	if (s->nr_callchain) {
		g->ip0[g->n] = s->callchain[0].ip;
		g->ipl[g->n] = s->callchain[s->nr_callchain - 1].ip;
		g->ctx0[g->n] = s->callchain[0].ctx;
	}
	g->n++;
	return 0;
}

static void check_decoder(const char *keep)
{
	char path[] = "/tmp/hws_test_cc_XXXXXX";
	int fd = mkstemp(path);
	struct hws_perf_event_attr a = {.size = sizeof(a),
					.type = PERF_TYPE_SOFTWARE,
					.config = PERF_COUNT_SW_CPU_CLOCK,
					.sample_type = ST,
					.sample_id_all = 1,
					.sample_period = 1000};
	struct hws_perf_event_attr b = a;
	uint64_t ida = ID_CC, idb = ID_NO;
	const uint64_t c1[] = {M_KERNEL, 0xffffffff81000010ULL, M_USER, 0x401000, 0x401100,
			       0x401200};
	const uint64_t cbad[] = {M_USER, 0x401000, (uint64_t)-300};
	const uint64_t cm[] = {M_USER};
	struct hws_perf_writer *w;
	struct hws_perf_reader *r;
	struct hws_decoder *d;
	struct hws_decode_counts c;
	struct hws_decoder_opts o = {.sz = sizeof(o), .max_stack = 2};
	struct got g;

	__T("temp file", fd >= 0);
	close(fd);
	b.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
	w = hws_perf_writer__new(path, false);
	__T("writer", w != NULL);
	if (!w)
		return;
	hws_perf_writer__add_attr(w, &a, "cpu-clock", &ida, 1);
	hws_perf_writer__add_attr(w, &b, "cpu-clock", &idb, 1);
	cc_sample(w, 10, c1, 6, 6);	/* 0: kernel + user frames */
	cc_sample(w, 11, c1, 0, 0);	/* 1: nr 0 */
	cc_sample(w, 12, cm, 1, 1);	/* 2: a marker only */
	cc_sample(w, 13, cbad, 3, 3);	/* 3: unknown marker */
	plain_sample(w, 14);		/* 4: no PERF_SAMPLE_CALLCHAIN */
	cc_sample(w, 15, c1, 6, 1000);	/* nr overruns the record: malformed, not delivered */
	cc_sample(w, 16, c1 + 2, 4, 4); /* 5: user only */
	__T("close", hws_perf_writer__close(w) == 0);

	r = hws_perf_reader__open(path, NULL);
	__T("reader", r != NULL);
	if (!r)
		goto out;
	d = hws_decoder__new(r, NULL, NULL);
	memset(&g, 0, sizeof(g));
	T_EQ_U64("run", hws_decoder__run(d, collect, &g), 0);
	T_EQ_U64("6 samples delivered", g.n, 6);
	__T("0: has a chain", g.fields[0] & HWS_SF_CALLCHAIN);
	T_EQ_U64("0: 4 frames", g.nr[0], 4);
	T_EQ_U64("0: innermost is the kernel frame", g.ip0[0], 0xffffffff81000010ULL);
	T_EQ_U64("0: its ctx", g.ctx0[0], HWS_CTX_KERNEL);
	T_EQ_U64("0: outermost", g.ipl[0], 0x401200);
	for (int i = 1; i <= 4; i++) {
		char t[64];

		snprintf(t, sizeof(t), "%d: no chain", i);
		T_EQ_U64(t, (g.fields[i] & HWS_SF_CALLCHAIN) | g.nr[i], 0);
	}
	__T("5: has a chain", g.fields[5] & HWS_SF_CALLCHAIN);
	T_EQ_U64("5: 3 frames", g.nr[5], 3);
	T_EQ_U64("5: user ctx", g.ctx0[5], HWS_CTX_USER);
	hws_decoder__counts(d, HWS_DECODE_ALL, HWS_DECODE_ALL, &c);
	T_EQ_U64("unknown marker counted", c.callchain_errors, 1);
	T_EQ_U64("overrunning nr: malformed sample", c.errors, 1);
	hws_decoder__delete(d);
	hws_perf_reader__close(r);

	r = hws_perf_reader__open(path, NULL);
	d = hws_decoder__new(r, NULL, &o);
	memset(&g, 0, sizeof(g));
	T_EQ_U64("run max_stack 2", hws_decoder__run(d, collect, &g), 0);
	T_EQ_U64("max_stack: 2 frames", g.nr[0], 2);
	T_EQ_U64("max_stack: truncated", g.flags[0], HWS_CC_TRUNCATED);
	T_EQ_U64("max_stack: outermost kept is 0x401000", g.ipl[0], 0x401000);
	hws_decoder__delete(d);
	hws_perf_reader__close(r);
out:
	if (keep && rename(path, keep))
		__T("keep the file", 0);
	unlink(path);
}

/* test_decode_callchain [FILE]: with FILE, the file written for the decoder checks is kept
 * there (the fuzz seed tests/fuzz/corpus/decode/callchain_markers) */
int main(int argc, char **argv)
{
	check_frames();
	check_decoder(argc > 1 ? argv[1] : NULL);
	TEST_END();
}
