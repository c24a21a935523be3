// SPDX-License-Identifier: MIT
/*
 * The decode pipeline (core/decode/decode.c) on perf.data files written here with the writer, in
 * file and pipe mode, through two test backends registered like any plugin:
 *  - "fake" decodes SAMPLEs of raw event 0x42 from their RAW bytes (ok / skip / bad);
 *  - "fakeaux" decodes AUXTRACE chunks of raw event 0x43 (one sample per u64) and records
 *    the gap flag of each chunk and its aux_flush calls.
 * Checked: generic fields (time, cpu, pid/tid, period, ip + EXACT_IP, addr, raw), event and
 * backend names, per event/CPU counters (samples, skipped, errors, LOST, LOST_SAMPLES,
 * THROTTLE/UNTHROTTLE, AUX flags), gap=1 where a TRUNCATED AUX record's range ends and after
 * an offset jump, aux_flush once per stream at the end, side-band (COMM/MMAP2/FORK) in the symbols,
 * callback stop and resume, decoding without backends, and a truncated file (error with the
 * offset, counters kept).
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

#define ST                                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define ID_A 1001 /* event 0: raw 0x42 (fake) */
#define ID_B 1002 /* event 1: raw 0x43 (fakeaux) */
#define ID_C 1003 /* event 2: software cpu-clock (no backend in this registry) */

/* ------------------------------------------------------------------ test backends */

static int fake_match(void *priv, const struct hws_perf_event_attr *attr, const char *pmu)
{
	return attr->type == PERF_TYPE_RAW && attr->config == 0x42;
}

static int fake_decode(void *priv, const struct hws_file_info *fi,
		       const struct hws_record_sample *rec, struct hws_sample *out)
{
	uint32_t v[2];

	if (!rec->raw || rec->raw_size < sizeof(v))
		return HWS_E_BADREC;
	memcpy(v, rec->raw, sizeof(v));
	if (v[0] == 1)
		return HWS_DECODE_SKIP;
	if (v[0] == 2)
		return HWS_E_BADREC;
	out->lat_total = v[1];
	out->fields |= HWS_SF_LAT_TOTAL;
	out->event = "not mine"; /* the pipeline must restore the identity */
	return 0;
}

static int fake_raw_json(void *priv, const struct hws_file_info *fi, const struct hws_sample *s,
			 struct hws_strbuf *out)
{
	return hws_strbuf__addf(out, "{\"lat\":%u}", s->lat_total);
}

static const struct hws_backend_ops fake_ops = {
    .abi_version = HWS_BACKEND_ABI_VERSION,
    .size = sizeof(struct hws_backend_ops),
    .name = "fake",
    .caps = HWS_CAP_RAW,
    .init = be_init,
    .detect = be_detect,
    .encode = be_encode,
    .match = fake_match,
    .decode = fake_decode,
    .raw_json = fake_raw_json,
};

struct aux_state {
	uint64_t chunks, values;
};

static int gaps[16], nr_chunks, flushes;

static int aux_match(void *priv, const struct hws_perf_event_attr *attr, const char *pmu)
{
	return attr->type == PERF_TYPE_RAW && attr->config == 0x43;
}

static int aux_decode(void *priv, void *stream, const struct hws_file_info *fi,
		      const struct hws_aux_chunk *ch, hws_sample_fn emit, void *ctx)
{
	struct aux_state *st = stream;
	const uint8_t *p = ch->data;

	if (nr_chunks < 16)
		gaps[nr_chunks] = (int)ch->gap;
	nr_chunks++;
	st->chunks++;
	for (uint64_t off = 0; off + 8 <= ch->size; off += 8) {
		struct hws_sample s = {.sz = sizeof(s)};
		int rc;

		memcpy(&s.addr, p + off, 8);
		s.fields = HWS_SF_ADDR | HWS_SF_CPU;
		s.cpu = ch->cpu;
		st->values++;
		rc = emit(ctx, &s);
		if (rc)
			return rc;
	}
	return 0;
}

static int aux_flush(void *priv, void *stream, const struct hws_file_info *fi, hws_sample_fn emit,
		     void *ctx)
{
	struct aux_state *st = stream;
	struct hws_sample s = {.sz = sizeof(s), .fields = HWS_SF_ADDR, .addr = 0xf1};

	flushes++;
	return st->chunks ? emit(ctx, &s) : 0;
}

static const struct hws_backend_ops aux_ops = {
    .abi_version = HWS_BACKEND_ABI_VERSION,
    .size = sizeof(struct hws_backend_ops),
    .name = "fakeaux",
    .caps = HWS_CAP_AUX,
    .aux_stream_size = sizeof(struct aux_state),
    .init = be_init,
    .detect = be_detect,
    .encode = be_encode,
    .match = aux_match,
    .aux_decode = aux_decode,
    .aux_flush = aux_flush,
};

/* ------------------------------------------------------------------ file writing */

/* sample_id trailer for ST: TID, TIME, CPU, IDENTIFIER */
static void trailer(struct rb *r, uint32_t pid, uint64_t time, uint32_t cpu, uint64_t id)
{
	put32x2(r, pid, pid);
	put64(r, time);
	put32x2(r, cpu, 0);
	put64(r, id);
}

static void finish(struct rb *r, struct hws_perf_writer *w)
{
	struct perf_event_header *h = (struct perf_event_header *)r->b;

	while (r->n % 8)
		r->b[r->n++] = 0;
	h->size = (uint16_t)r->n;
	__T("write record", hws_perf_writer__write(w, r->b, r->n) == 0);
}

static void sample(struct hws_perf_writer *w, uint64_t id, uint32_t pid, uint64_t time,
		   uint32_t cpu, uint64_t ip, uint64_t addr, uint32_t cmd, uint32_t lat,
		   uint16_t misc)
{
	struct rb r;
	uint32_t raw[3] = {8, cmd, lat}; /* u32 size, then 8 bytes: 4 + 8 = 12 -> pad */

	begin(&r, PERF_RECORD_SAMPLE, misc);
	put64(&r, id);
	put64(&r, ip);
	put32x2(&r, pid, pid + 1);
	put64(&r, time);
	put64(&r, addr);
	put32x2(&r, cpu, 0);
	put64(&r, 1000 + cpu); /* period */
	raw[0] = 12;	       /* 4 + 12 = 16: 8-aligned */
	put(&r, raw, sizeof(raw));
	put(&r, "\0\0\0\0", 4);
	finish(&r, w);
}

static void write_file(const char *path, bool pipe)
{
	struct hws_perf_event_attr a = {.size = sizeof(a),
					.type = PERF_TYPE_RAW,
					.config = 0x42,
					.sample_type = ST,
					.sample_id_all = 1,
					.sample_period = 1000};
	struct hws_perf_event_attr b = a, c = a;
	uint64_t ida = ID_A, idb = ID_B, idc = ID_C;
	struct hws_perf_writer *w = hws_perf_writer__new(path, pipe);
	struct rb r;

	__T("writer", w != NULL);
	if (!w)
		return;
	b.config = 0x43;
	c.type = PERF_TYPE_SOFTWARE;
	c.config = PERF_COUNT_SW_CPU_CLOCK;
	hws_perf_writer__add_attr(w, &a, "fake/lat/", &ida, 1);
	hws_perf_writer__add_attr(w, &b, "fakeaux//", &idb, 1);
	hws_perf_writer__add_attr(w, &c, "cpu-clock", &idc, 1);
	hws_perf_writer__set_string(w, HWS_FEAT_HOSTNAME, "some-other-host");

	/* side band: COMM (exec), MMAP2 of a file, FORK */
	begin(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32x2(&r, 100, 100);
	put(&r, "prog\0\0\0\0", 8);
	trailer(&r, 100, 10, 0, ID_A);
	finish(&r, w);
	begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put32x2(&r, 100, 100);
	put64(&r, 0x400000);
	put64(&r, 0x10000);
	put64(&r, 0);
	put64(&r, 0);	   /* maj, min */
	put64(&r, 0);	   /* ino */
	put64(&r, 0);	   /* ino_generation */
	put32x2(&r, 5, 2); /* prot, flags */
	put(&r, "/nonexistent/prog\0\0\0\0\0\0\0", 24);
	trailer(&r, 100, 11, 0, ID_A);
	finish(&r, w);
	begin(&r, PERF_RECORD_FORK, 0);
	put32x2(&r, 200, 100);
	put32x2(&r, 200, 100);
	put64(&r, 12);
	trailer(&r, 200, 12, 0, ID_A);
	finish(&r, w);

	/* fake samples: ok (exact ip), ok, skip, bad, ok on cpu 3 */
	sample(w, ID_A, 100, 20, 0, 0x401000, 0x601000, 0, 77, PERF_RECORD_MISC_USER | (1 << 14));
	sample(w, ID_A, 100, 21, 1, 0x401004, 0x601008, 0, 88, PERF_RECORD_MISC_USER);
	sample(w, ID_A, 100, 22, 1, 0x401008, 0, 1, 0, PERF_RECORD_MISC_USER);
	sample(w, ID_A, 100, 23, 1, 0x40100c, 0, 2, 0, PERF_RECORD_MISC_USER);
	sample(w, ID_A, 200, 24, 3, 0x401010, 0x601010, 0, 99, PERF_RECORD_MISC_USER);
	/* a software sample: no backend matches in this registry */
	sample(w, ID_C, 100, 25, 2, 0xffffffff81000000ULL, 0, 0, 0, PERF_RECORD_MISC_KERNEL);

	/* loss: LOST on event A cpu 1 (by id), LOST_SAMPLES on A cpu 0, THROTTLE/UNTHROTTLE */
	begin(&r, PERF_RECORD_LOST, 0);
	put64(&r, ID_A);
	put64(&r, 5);
	trailer(&r, 100, 30, 1, ID_A);
	finish(&r, w);
	begin(&r, PERF_RECORD_LOST_SAMPLES, 0);
	put64(&r, 3);
	trailer(&r, 100, 31, 0, ID_A);
	finish(&r, w);
	for (int i = 0; i < 2; i++) {
		begin(&r, i ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0);
		put64(&r, 32);
		put64(&r, ID_C);
		put64(&r, 0);
		trailer(&r, 100, 32, 2, ID_C);
		finish(&r, w);
	}

	/* AUX stream idx 0 (cpu 0): chunk [0,16), AUX TRUNCATED for [16,32), chunk [16,32)
	 * (contiguous: its own data is whole), chunk [32,48) (gap: what followed the truncated
	 * transaction is lost), jump to 4096 (gap) */
	for (int k = 0; k < 4; k++) {
		uint64_t data[2] = {0xa000 + (uint64_t)k * 2, 0xa001 + (uint64_t)k * 2};
		uint64_t offset = k < 3 ? (uint64_t)k * 16 : 4096;

		if (k == 1) {
			begin(&r, PERF_RECORD_AUX, 0);
			put64(&r, 16);
			put64(&r, 16);
			put64(&r, 0x01 | 0x08); /* TRUNCATED | COLLISION */
			trailer(&r, 100, 40, 0, ID_B);
			finish(&r, w);
		}
		begin(&r, HWS_RECORD_AUXTRACE, 0);
		put64(&r, sizeof(data)); /* size */
		put64(&r, offset);
		put64(&r, 0);	     /* reference */
		put32x2(&r, 0, 100); /* idx, tid */
		put32x2(&r, 0, 0);   /* cpu, reserved */
		put(&r, data, sizeof(data));
		struct perf_event_header *h = (struct perf_event_header *)r.b;
		h->size = 48; /* the payload is not counted in size */
		__T("write auxtrace", hws_perf_writer__write(w, r.b, r.n) == 0);
	}
	/* a second stream (idx 1, cpu 1), one chunk: flushed too */
	{
		uint64_t data = 0xb000;
		begin(&r, HWS_RECORD_AUXTRACE, 0);
		put64(&r, 8);
		put64(&r, 0);
		put64(&r, 0);
		put32x2(&r, 1, 100);
		put32x2(&r, 1, 0);
		put(&r, &data, 8);
		((struct perf_event_header *)r.b)->size = 48;
		hws_perf_writer__write(w, r.b, r.n);
	}
	__T("close", hws_perf_writer__close(w) == 0);
}

/* ------------------------------------------------------------------ decoding */

struct got {
	struct hws_sample s[64];
	char ev[64][32], be[64][16];
	int n, stop_at;
};

static int collect(void *ctx, const struct hws_sample *s)
{
	struct got *g = ctx;

	if (g->n < 64) {
		g->s[g->n] = *s;
		snprintf(g->ev[g->n], sizeof(g->ev[0]), "%s", s->event ? s->event : "");
		snprintf(g->be[g->n], sizeof(g->be[0]), "%s", s->backend ? s->backend : "");
	}
	g->n++;
	return g->stop_at && g->n == g->stop_at ? 7 : 0;
}

static struct hws_registry *test_registry(void)
{
	struct hws_registry *reg = hws_registry__new();
	char err[256];

	__T("add fake", hws_registry__add(reg, &fake_ops, "(test)", NULL, err, sizeof(err)) >= 0);
	__T("add fakeaux", hws_registry__add(reg, &aux_ops, "(test)", NULL, err, sizeof(err)) >= 0);
	return reg;
}

static void check_file(const char *path, const char *what)
{
	struct hws_registry *reg = test_registry();
	struct hws_perf_reader *r;
	struct hws_decoder *d;
	struct hws_decode_counts c;
	struct got *g = calloc(1, sizeof(*g));
	int rc;

	printf("-- %s\n", what);
	nr_chunks = flushes = 0;
	memset(gaps, 0, sizeof(gaps));
	r = hws_perf_reader__open(path, NULL);
	__T("open", r != NULL);
	if (!r)
		return;
	d = hws_decoder__new(r, reg, NULL);
	g->stop_at = 2;
	rc = hws_decoder__run(d, collect, g);
	T_EQ_U64("callback stop value", rc, 7);
	T_EQ_U64("stopped after 2", g->n, 2);
	g->stop_at = 0;
	rc = hws_decoder__run(d, collect, g);
	T_EQ_U64("resume to the end", rc, 0);
	/* 3 fake + 1 sw + 8 aux values + 1 value on stream 1 + 2 flush samples */
	T_EQ_U64("samples", g->n, 15);

	struct hws_sample *s = &g->s[0];
	T_EQ_U64("time", s->time, 20);
	T_EQ_U64("cpu", s->cpu, 0);
	T_EQ_U64("pid", s->pid, 100);
	T_EQ_U64("tid", s->tid, 101);
	T_EQ_U64("ip", s->ip, 0x401000);
	T_EQ_U64("exact ip", s->ip_precise, 1);
	T_EQ_U64("addr", s->addr, 0x601000);
	T_EQ_U64("period", s->period, 1000);
	T_EQ_U64("lat from backend", s->lat_total, 77);
	T_EQ_U64("cpumode", s->cpumode, PERF_RECORD_MISC_USER);
	__T("fields",
	    (s->fields & (HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PID | HWS_SF_IP | HWS_SF_ADDR |
			  HWS_SF_PERIOD | HWS_SF_ID | HWS_SF_RAW | HWS_SF_LAT_TOTAL)) ==
		(HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PID | HWS_SF_IP | HWS_SF_ADDR | HWS_SF_PERIOD |
		 HWS_SF_ID | HWS_SF_RAW | HWS_SF_LAT_TOTAL));
	T_EQ_STR("event name restored", g->ev[0], "fake/lat/");
	T_EQ_STR("backend", g->be[0], "fake");
	T_EQ_U64("not precise", g->s[1].ip_precise, 0);
	T_EQ_U64("3rd delivered is the cpu 3 one", g->s[2].cpu, 3);
	T_EQ_STR("sw event without backend", g->be[3], "none");
	T_EQ_STR("sw event name", g->ev[3], "cpu-clock");
	T_EQ_U64("sw ip", g->s[3].ip, 0xffffffff81000000ULL);
	T_EQ_STR("aux backend", g->be[4], "fakeaux");
	T_EQ_STR("aux event", g->ev[4], "fakeaux//");
	T_EQ_U64("aux value", g->s[4].addr, 0xa000);
	T_EQ_U64("aux last value stream 0", g->s[11].addr, 0xa007);
	T_EQ_U64("stream 1 value", g->s[12].addr, 0xb000);
	T_EQ_U64("flush samples", g->s[13].addr, 0xf1);
	T_EQ_U64("flush samples 2", g->s[14].addr, 0xf1);
	T_EQ_U64("flushes (once per stream)", flushes, 2);
	T_EQ_U64("chunks", nr_chunks, 5);
	T_EQ_U64("chunk 0 no gap", gaps[0], 0);
	T_EQ_U64("chunk of the TRUNCATED record: no gap", gaps[1], 0);
	T_EQ_U64("chunk after the truncated range: gap", gaps[2], 1);
	T_EQ_U64("offset jump: gap", gaps[3], 1);
	T_EQ_U64("new stream no gap", gaps[4], 0);

	/* raw_json through the backend */
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	__T("raw_json", hws_decoder__raw_json(d, &g->s[0], &sb) == 0);
	T_EQ_STR("raw_json text", sb.buf, "{\"lat\":77}");
	__T("raw_json none", hws_decoder__raw_json(d, &g->s[3], &sb) == -ENOENT);
	hws_strbuf__release(&sb);

	/* counters */
	T_EQ_U64("events", hws_decoder__nr_events(d), 3);
	T_EQ_U64("cpus", hws_decoder__nr_cpus(d), 4);
	hws_decoder__counts(d, 0, 1, &c);
	T_EQ_U64("A cpu1 samples", c.samples, 1);
	T_EQ_U64("A cpu1 skipped", c.skipped, 1);
	T_EQ_U64("A cpu1 errors", c.errors, 1);
	T_EQ_U64("A cpu1 lost", c.lost, 5);
	T_EQ_U64("A cpu1 lost records", c.lost_records, 1);
	T_EQ_U64("A cpu1 period", c.period, 1001);
	hws_decoder__counts(d, 0, 0, &c);
	T_EQ_U64("A cpu0 lost samples", c.lost_samples, 3);
	hws_decoder__counts(d, 0, HWS_DECODE_ALL, &c);
	T_EQ_U64("A samples", c.samples, 3);
	hws_decoder__counts(d, 2, 2, &c);
	T_EQ_U64("C cpu2 throttle", c.throttle, 1);
	T_EQ_U64("C cpu2 unthrottle", c.unthrottle, 1);
	T_EQ_U64("C cpu2 samples", c.samples, 1);
	hws_decoder__counts(d, 1, 0, &c);
	T_EQ_U64("B cpu0 aux records", c.aux_records, 1);
	T_EQ_U64("B cpu0 truncated", c.aux_truncated, 1);
	T_EQ_U64("B cpu0 collision", c.aux_collision, 1);
	T_EQ_U64("B cpu0 partial", c.aux_partial, 0);
	T_EQ_U64("B cpu0 gaps", c.aux_gaps, 2);
	T_EQ_U64("B cpu0 auxtrace bytes", c.auxtrace_bytes, 64);
	hws_decoder__counts(d, HWS_DECODE_ALL, HWS_DECODE_ALL, &c);
	T_EQ_U64("all samples", c.samples, 15);
	__T("bad event index", hws_decoder__counts(d, 9, 0, &c) == -EINVAL);
	T_EQ_U64("SAMPLE records", hws_decoder__nr_records(d, PERF_RECORD_SAMPLE), 6);
	T_EQ_STR("backend of event 1", hws_decoder__event_backend(d, 1)->ops->name, "fakeaux");
	__T("no backend for event 2", hws_decoder__event_backend(d, 2) == NULL);

	/* side band */
	struct hws_symbols *syms = hws_decoder__symbols(d);
	struct hws_symbol sym;
	T_EQ_STR("comm", hws_symbols__pid_comm(syms, 100), "prog");
	hws_symbols__resolve(syms, 100, 0x401000, false, &sym);
	T_EQ_STR("mmap2 file", sym.dso, "/nonexistent/prog");
	hws_symbols__resolve(syms, 200, 0x401000, false, &sym);
	T_EQ_STR("forked child has the maps", sym.dso, "/nonexistent/prog");
	hws_symbols__resolve(syms, 100, 0xffffffff81000000ULL, false, &sym);
	__T("other host: no kernel names", sym.name == NULL);

	hws_decoder__delete(d);
	hws_perf_reader__close(r);

	/* no registry: generic fields only, still every sample */
	r = hws_perf_reader__open(path, NULL);
	d = hws_decoder__new(r, NULL, NULL);
	memset(g, 0, sizeof(*g));
	T_EQ_U64("no registry run", hws_decoder__run(d, collect, g), 0);
	T_EQ_U64("no registry: all 6 SAMPLE records", g->n, 6);
	T_EQ_STR("no registry: backend none", g->be[0], "none");
	hws_decoder__counts(d, HWS_DECODE_ALL, HWS_DECODE_ALL, &c);
	T_EQ_U64("no registry: auxtrace bytes still counted", c.auxtrace_bytes, 72);
	hws_decoder__delete(d);
	hws_perf_reader__close(r);
	hws_registry__delete(reg);
	free(g);
}

static void check_truncated(const char *path)
{
	char tpath[256];
	FILE *in = fopen(path, "rb"), *out;
	struct hws_perf_reader *r;
	struct hws_decoder *d;
	struct got *g = calloc(1, sizeof(*g));
	char buf[65536];
	size_t n = in ? fread(buf, 1, sizeof(buf), in) : 0;

	if (in)
		fclose(in);
	snprintf(tpath, sizeof(tpath), "%s.trunc", path);
	out = fopen(tpath, "wb");
	/* pipe file: cut in the middle of the AUX records, inside a record */
	fwrite(buf, 1, n > 100 ? n - 100 - 3 : n, out);
	fclose(out);
	r = hws_perf_reader__open(tpath, NULL);
	__T("open truncated", r != NULL);
	if (r) {
		d = hws_decoder__new(r, NULL, NULL);
		int rc = hws_decoder__run(d, collect, g);
		__T("truncated: negative error", rc < 0);
		__T("truncated: message with offset",
		    strstr(hws_decoder__errmsg(d), "offset 0x") != NULL);
		T_EQ_U64("truncated: samples before the error delivered", g->n, 6);
		__T("dead decoder stays dead", hws_decoder__run(d, collect, g) < 0);
		hws_decoder__delete(d);
		hws_perf_reader__close(r);
	}
	unlink(tpath);
	free(g);
}

int main(void)
{
	char fpath[] = "/tmp/hws-test-decode-XXXXXX", ppath[64];
	int fd = mkstemp(fpath);

	if (fd < 0)
		TEST_SKIP("mkstemp");
	close(fd);
	snprintf(ppath, sizeof(ppath), "%s.pipe", fpath);
	write_file(fpath, false);
	write_file(ppath, true);
	check_file(fpath, "file mode");
	check_file(ppath, "pipe mode");
	check_truncated(ppath);
	unlink(fpath);
	unlink(ppath);
	TEST_END();
}
