// SPDX-License-Identifier: MIT
/*
 * The decode pipeline (see include/hwsample/decode.h): the decoder object, its run loops
 * (in time order through order.c's windows; or, unordered, samples straight from the reader),
 * dispatch by record type, and samples (parsed or read by the event's fixed-layout plan,
 * filled into struct hws_sample, passed through the event's backend). Its parts and how they
 * call each other: core/decode/decode_int.h.
 *
 * Invariants:
 *  - records are processed in time order within each round, one at a time; nothing read from
 *    a record is kept past its processing except counters, the side-band tables in struct
 *    hws_symbols, the switch history, and AUXTRACE chunks, which are decoded once the window
 *    after their own has been dispatched (aux_stream.c);
 *  - per-event state (backend, counters) exists for every attr the reader knows (events.c);
 *  - a reader error ends the run for good (d->dead); a callback stop does not.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/aux.h>
#include <hwsample/decode.h>
#include <hwsample/errors.h>

#include "decode/decode_int.h"
#include "decode/unwind.h"
#include "perfdata/perfdata_int.h"

#define MISC_EXACT_IP (1U << 14)

struct hws_decoder *hws_decoder__new(struct hws_perf_reader *r, struct hws_registry *reg,
				     const struct hws_decoder_opts *opts)
{
	struct hws_decoder *d;
	struct hws_symbols_opts so = {.sz = sizeof(so)};
	int err;

	if (!r) {
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	err = HWS_OPTS_GET(d->opts, opts, hws_decoder_opts);
	if (err) {
		free(d);
		return errno = -err, NULL;
	}
	d->r = r;
	d->reg = reg;
	d->max_stack = d->opts.max_stack ? d->opts.max_stack : DEC_MAX_STACK_DEFAULT;
	so.srcline = d->opts.srcline;
	so.max_files = d->opts.max_files;
	so.no_demangle = d->opts.no_demangle;
	so.exec_history = d->opts.exec_history;
	d->syms = hws_symbols__new(&so);
	d->aux_trk = calloc(MAX_CPU + 1, sizeof(*d->aux_trk));
	if (!d->syms || !d->aux_trk) {
		hws_decoder__delete(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void hws_decoder__delete(struct hws_decoder *d)
{
	if (!d)
		return;
	dec_order_free(d); /* first: the read-ahead thread reads the events */
	for (size_t i = 0; i < d->nr_evs; i++)
		free(d->evs[i].cpus);
	free(d->evs);
	dec_aux_free(d);
	dec_cc_free(&d->cc);
	hws_unwinder__delete(d->unw);
	hws_symbols__delete(d->syms);
	free(d);
}

static void set_err(struct hws_decoder *d, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(struct hws_decoder *d, int err, const char *fmt, ...)
{
	va_list ap;

	d->err = err;
	va_start(ap, fmt);
	vsnprintf(d->errmsg, sizeof(d->errmsg), fmt, ap);
	va_end(ap);
}

/* perf's reading of the weight: WEIGHT (low 32 bits) / WEIGHT_STRUCT var1 = latency, var2 =
 * instruction latency; a zero means "not measured" */
static inline void put_weight(struct hws_sample *s, uint64_t st, uint64_t w)
{
	s->weight = w;
	if ((uint32_t)w) {
		s->lat_total = (uint32_t)w;
		s->fields |= HWS_SF_LAT_TOTAL;
	}
	if ((st & PERF_SAMPLE_WEIGHT_STRUCT) && (uint16_t)(w >> 32)) {
		s->lat_ins = (uint16_t)(w >> 32);
		s->fields |= HWS_SF_LAT_INS;
	}
}

static void fill_generic(const struct hws_record_sample *rs, struct hws_sample *s)
{
	uint64_t st = rs->sample_type;

	s->cpumode = (uint8_t)(rs->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	if (st & PERF_SAMPLE_TIME) {
		s->time = rs->time;
		s->fields |= HWS_SF_TIME;
	}
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = rs->cpu;
		s->fields |= HWS_SF_CPU;
	}
	if (st & PERF_SAMPLE_TID) {
		s->pid = rs->pid;
		s->tid = rs->tid;
		s->fields |= HWS_SF_PID;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		s->period = rs->period;
		s->fields |= HWS_SF_PERIOD;
	}
	if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) {
		s->id = rs->id;
		s->fields |= HWS_SF_ID;
	}
	if (st & PERF_SAMPLE_IP) {
		s->ip = rs->ip;
		s->ip_precise = (rs->misc & MISC_EXACT_IP) ? 1 : 0;
		s->fields |= HWS_SF_IP;
	}
	if (st & PERF_SAMPLE_ADDR) {
		s->addr = rs->addr;
		s->fields |= HWS_SF_ADDR;
	}
	if (st & PERF_SAMPLE_PHYS_ADDR) {
		s->phys_addr = rs->phys_addr;
		s->fields |= HWS_SF_PHYS_ADDR;
	}
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE) {
		s->data_page_size = rs->data_page_size;
		s->fields |= HWS_SF_DATA_PAGE_SIZE;
	}
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE) {
		s->code_page_size = rs->code_page_size;
		s->fields |= HWS_SF_CODE_PAGE_SIZE;
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		s->fields |= HWS_SF_WEIGHT;
		put_weight(s, st, rs->weight);
	}
	if ((st & PERF_SAMPLE_DATA_SRC) && rs->data_src)
		hws_data_src__normalize(rs->data_src, s);
	if ((st & PERF_SAMPLE_RAW) && rs->raw) {
		s->raw = rs->raw;
		s->raw_size = rs->raw_size;
		s->fields |= HWS_SF_RAW;
	}
}

/*
 * data_src of a fixed-layout sample: an event's samples mostly repeat a few values, so
 * what hws_data_src__normalize() makes of them is kept per event in a small direct-mapped
 * memo. Exact because op and op_flags, the only fields of @s it reads, are still zero
 * here (fill_fixed()).
 */
static inline void ds_memo_apply(struct ds_memo *memo, uint64_t v, struct hws_sample *s)
{
	struct ds_memo *m = &memo[(v * 0x9e3779b97f4a7c15ULL) >> (64 - DS_MEMO_BITS)];

	if (__builtin_expect(!m->valid || m->v != v, 0)) {
		struct hws_sample t;

		hws_zero(&t, sizeof(t));
		hws_data_src__normalize(v, &t);
		m->v = v;
		m->fields = t.fields;
		m->op_flags = t.op_flags;
		m->op = t.op;
		m->mem_level = t.mem_level;
		m->snoop = t.snoop;
		m->tlb = t.tlb;
		m->valid = true;
	}
	s->data_src = v;
	s->fields |= m->fields;
	s->op_flags = m->op_flags;
	s->op = m->op;
	s->mem_level = m->mem_level;
	s->snoop = m->snoop;
	s->tlb = m->tlb;
}

/*
 * A fixed-layout sample (fix_plan) read into the event's kept record view e->rs and the
 * shared sample @s (zeroed) at once: the same values hws_sample__parse() + fill_generic()
 * + the fixed period give, without the second pass. The caller has checked the record's
 * length against fp->len.
 */
static inline void fill_fixed(struct ev_state *e, const uint8_t *p, uint16_t misc,
			      struct hws_sample *s)
{
	const struct fix_plan *fp = &e->fp;
	struct hws_record_sample *rs = &e->rs;
	unsigned int have = fp->have;
	uint64_t v;

	rs->misc = misc;
	s->cpumode = (uint8_t)(misc & PERF_RECORD_MISC_CPUMODE_MASK);
	s->fields = fp->sf;
	s->period = fp->s_period;
	if (have & FX_ID)
		rs->id = s->id = pd_get64(p + fp->id);
	if (have & FX_IP) {
		rs->ip = s->ip = pd_get64(p + fp->ip);
		s->ip_precise = (misc & MISC_EXACT_IP) ? 1 : 0;
	}
	if (have & FX_TID) {
		rs->pid = s->pid = pd_get32(p + fp->tid);
		rs->tid = s->tid = pd_get32(p + fp->tid + 4);
	}
	if (have & FX_TIME)
		rs->time = s->time = pd_get64(p + fp->time);
	if (have & FX_ADDR)
		rs->addr = s->addr = pd_get64(p + fp->addr);
	if (have & FX_CPU)
		rs->cpu = s->cpu = pd_get32(p + fp->cpu);
	if (have & FX_DSRC) {
		rs->data_src = v = pd_get64(p + fp->dsrc);
		if (v)
			ds_memo_apply(e->ds, v, s);
	}
	if (have & FX_PERIOD)
		rs->period = s->period = pd_get64(p + fp->period);
	if (have & FX_WEIGHT) {
		rs->weight = pd_get64(p + fp->weight);
		put_weight(s, rs->sample_type, rs->weight);
	}
	if (__builtin_expect(have & FX_RARE, 0)) {
		if (fp->stream)
			rs->stream_id = pd_get64(p + fp->stream);
		if (fp->trans)
			rs->transaction = pd_get64(p + fp->trans);
		if (fp->phys)
			rs->phys_addr = s->phys_addr = pd_get64(p + fp->phys);
		if (fp->cgroup)
			rs->cgroup = pd_get64(p + fp->cgroup);
		if (fp->dps)
			rs->data_page_size = s->data_page_size = pd_get64(p + fp->dps);
		if (fp->cps)
			rs->code_page_size = s->code_page_size = pd_get64(p + fp->cps);
	}
}

static inline __attribute__((always_inline)) int
sample_body(struct hws_decoder *d, const struct hws_perf_record *rec, hws_sample_fn fn, void *ctx)
{
	const struct hws_perf_evattr *ea;
	const struct hws_record_sample *rsp;
	struct hws_record_sample rs;
	struct hws_decode_counts *c;
	struct hws_backend *b;
	struct ev_state *e;
	struct hws_sample s;
	int ev = rec->attr_idx, rc;
	uint32_t cpu;

	if (!d->host_checked)
		dec_check_host(d);
	if (ev < 0 && d->nr_evs == 2) /* one event: records without an id are its */
		ev = 0;
	ea = ev >= 0 && (size_t)ev + 1 < d->nr_evs ? d->evs[ev + 1].ea : NULL;
	if (!ea) {
		counts_or_dummy(d, -1, (uint32_t)-1)->errors++;
		return 0;
	}
	e = &d->evs[ev + 1];
	hws_zero(&s, sizeof(s));
	if (e->fp.len && rec->hdr->size >= e->fp.len) {
		fill_fixed(e, (const uint8_t *)rec->hdr, rec->hdr->misc, &s);
		e->rs.pmu_name = ea->pmu_name; /* PMU_MAPPINGS may come late (pipe mode) */
		rsp = &e->rs;
	} else {
		if (hws_sample__parse(&ea->attr, rec->hdr, rec->hdr->size, &rs)) {
			counts_or_dummy(d, ev, (uint32_t)-1)->errors++;
			pr_debug("decode: offset 0x%" PRIx64 ": malformed SAMPLE of event %d\n",
				 rec->file_offset, ev);
			return 0;
		}
		rs.attr = &ea->attr;
		rs.misc = rec->hdr->misc;
		rs.pmu_name = ea->pmu_name;
		fill_generic(&rs, &s);
		if (fixed_period(&ea->attr)) {
			s.period = fixed_period(&ea->attr);
			s.fields |= HWS_SF_PERIOD;
		}
		rsp = &rs;
	}
	b = e->backend;
	s.sz = sizeof(s);
	s.attr_idx = (uint32_t)ev;
	s.event = ea->name;
	s.backend = e->backend_name;
	cpu = (ea->attr.sample_type & PERF_SAMPLE_CPU) ? rsp->cpu : (uint32_t)-1;
	/* counts_or_dummy() without its event checks: @e is known good here */
	c = cpu_counts(d, e, cpu);
	if (!c)
		c = counts_or_dummy(d, ev, cpu);
	if (e->decode) {
		rc = b->ops->decode(b->priv, file_info(d), rsp, &s);
		if (rc == HWS_DECODE_SKIP) {
			c->skipped++;
			return 0;
		}
		if (rc) {
			c->errors++;
			return 0;
		}
		/* the backend may not take the identity of the sample */
		s.sz = sizeof(s);
		s.attr_idx = (uint32_t)ev;
		s.event = ea->name;
		s.backend = b->ops->name;
	}
	/* after the backend, which knows nothing of call chains and may set s.fields whole */
	if (__builtin_expect(rsp->sample_type & PERF_SAMPLE_CALLCHAIN, 0))
		dec_callchain(d, c, rec->hdr, rec->hdr->size, rsp, &s);
	c->samples++;
	c->period += (s.fields & HWS_SF_PERIOD) ? s.period : 1;
	return fn ? fn(ctx, &s) : 0;
}

static __attribute__((noinline)) int
do_sample(struct hws_decoder *d, const struct hws_perf_record *rec, hws_sample_fn fn, void *ctx)
{
	return sample_body(d, rec, fn, ctx);
}

/* a record's dispatch failed (@rc < 0): the run cannot go on */
static int dispatch_err(struct hws_decoder *d, const struct hws_perf_record *rec, int rc)
{
	d->dead = true;
	set_err(d, rc, "offset 0x%" PRIx64 ": record %s: %s", rec->file_offset,
		hws_record__type_name(rec->hdr->type), strerror(-rc));
	return rc;
}

/* Process one record. Returns 0, the callback's non-zero value, or negative. */
static int dispatch(struct hws_decoder *d, struct hws_perf_record *rec, hws_sample_fn fn, void *ctx)
{
	int rc;

	d->nr_records[rec->hdr->type < NR_TYPES ? rec->hdr->type : 0]++;
	if (rec->hdr->type >= HWS_RECORD_HEADER_ATTR)
		d->fi = NULL;
	switch (rec->hdr->type) {
	case PERF_RECORD_SAMPLE:
		rc = do_sample(d, rec, fn, ctx);
		break;
	case HWS_RECORD_HEADER_FEATURE:
		dec_rematch_events(d);
		rc = 0;
		break;
	case HWS_RECORD_AUXTRACE:
		if (!d->host_checked)
			dec_check_host(d);
		rc = dec_auxtrace(d, rec);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_AUX:
		dec_loss(d, rec);
		rc = 0;
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		dec_switch(d, rec);
		rc = 0;
		break;
	default:
		dec_sideband(d, rec);
		rc = 0;
		break;
	}
	return rc < 0 ? dispatch_err(d, rec, rc) : rc;
}

/* dispatch() of a SAMPLE record: counted, decoded, given to @fn; @inl: the sample's decoding
 * inline in the caller (run_direct()'s loop of nearly all samples), else do_sample() */
static inline __attribute__((always_inline)) int dispatch_sample(struct hws_decoder *d,
								 struct hws_perf_record *rec,
								 hws_sample_fn fn, void *ctx,
								 bool inl)
{
	int rc;

	d->nr_records[PERF_RECORD_SAMPLE]++;
	rc = inl ? sample_body(d, rec, fn, ctx) : do_sample(d, rec, fn, ctx);
	return rc < 0 ? dispatch_err(d, rec, rc) : rc;
}

/* dispatch(), with SAMPLE records (nearly all of them) taken before its switch */
static inline int dispatch_fast(struct hws_decoder *d, struct hws_perf_record *rec,
				hws_sample_fn fn, void *ctx)
{
	if (__builtin_expect(rec->hdr->type != PERF_RECORD_SAMPLE, 0))
		return dispatch(d, rec, fn, ctx);
	return dispatch_sample(d, rec, fn, ctx, false);
}

/*
 * Unordered delivery (opts.unordered): samples go to the callback in file order, as the
 * reader hands them out, without passing through a window, when the symbol tables are as
 * they were at the sample's time (struct lookahead in decode_int.h: no sideband record with
 * a later time applied yet, none with an earlier one still to come). Every other record, and
 * the few samples that fail that check (those near a sideband record in time), wait in the
 * held window (d->win[d->q_k]) and go sorted by time at the round's end, up to perf's round
 * limit, as in the ordered path; so each sample sees the tables the ordered path shows it.
 * Only for files without AUX data (whose decoding follows context switches in time), not
 * for pipes (whose events may only be known later) and only where every record has a time.
 */
static bool direct_mode(struct hws_decoder *d)
{
	if (!d->direct_checked) {
		d->direct_checked = true;
		d->direct = d->opts.unordered && !hws_perf_reader__is_pipe(d->r) &&
			    !dec_ensure_events(d) && dec_aux_event(d) < 0 && !dec_la_start(d);
	}
	return d->direct;
}

/* the time of a SAMPLE record; la.t_none when its event has none (or is not known) */
static inline uint64_t sample_time(const struct hws_decoder *d, const struct hws_perf_record *rec)
{
	size_t es = (size_t)(rec->attr_idx + 1), off;
	uint64_t t;

	if (es >= d->la.nr_t)
		return d->la.t_none;
	off = d->la.t_smp[es];
	if (off + 8 > rec->hdr->size) /* also UINT16_MAX: none */
		return d->la.t_none;
	memcpy(&t, (const uint8_t *)rec->hdr + off, 8);
	return t;
}

/* dispatch the held window's keys [q_pos, wn_out), then hold the others in the other window;
 * after a callback stop, the next run goes on from q_pos */
static int q_drain(struct hws_decoder *d, hws_sample_fn fn, void *ctx)
{
	struct window *q = &d->win[d->q_k];
	int rc;

	while (d->q_pos < q->wn_out) {
		size_t i = d->q_pos++;
		struct hws_perf_record rec = dec_win_record(q, i);

		if (dec_sb_type(d, rec.hdr->type) && q->wkey[i].time > d->la.lo)
			d->la.lo = q->wkey[i].time;
		rc = dispatch_fast(d, &rec, fn, ctx);
		if (rc)
			return rc;
	}
	d->q_draining = false;
	if (dec_q_next(d)) {
		d->dead = true;
		set_err(d, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* a round's end (@round_end; else a full window, the end of the data or a reader error):
 * the held records up to perf's round limit (all of them unless @round_end) go in time
 * order; then the reader may drop what lies before @upto and before what is still held */
static int q_flush(struct hws_decoder *d, bool round_end, uint64_t upto, hws_sample_fn fn,
		   void *ctx)
{
	struct window *q = &d->win[d->q_k];
	int rc;

	if (!q->wn) { /* nothing held (most rounds): only perf's limit moves on */
		d->oe_limit = d->oe_max;
		return 0;
	}
	dec_q_sort(d, round_end);
	d->q_pos = 0;
	d->q_draining = true;
	rc = q_drain(d, fn, ctx);
	if (rc)
		return rc;
	q = &d->win[d->q_k];
	hws_perf_reader__release(d->r, q->wn && q->first_off < upto ? q->first_off : upto);
	return 0;
}

/* the end of the data (@rc 0) or a reader error (< 0), once what was read before is out */
static int direct_end(struct hws_decoder *d, int rc)
{
	d->q_last = false;
	pr_debug("decode: unordered: %" PRIu64 " samples went at once, %" PRIu64
		 " held for time order (near sideband in time)%s\n",
		 d->nr_records[PERF_RECORD_SAMPLE] - d->direct_held, d->direct_held,
		 !d->la.on  ? ", no checks (no sideband, or names looked up after the run)"
		 : d->la.ok ? ""
			    : ", look-ahead stopped (all held since)");
	if (rc < 0) {
		d->dead = true;
		if (rc == -ENOMEM)
			set_err(d, rc, "out of memory");
		else
			set_err(d, rc, "%s", hws_perf_reader__errmsg(d->r));
	}
	return rc;
}

static int run_direct(struct hws_decoder *d, hws_sample_fn fn, void *ctx)
{
	struct lookahead *la = &d->la;
	struct hws_perf_record rec;
	int rc;

	if (d->q_draining) { /* a callback stopped the last run inside a held window */
		rc = q_drain(d, fn, ctx);
		if (rc)
			return rc;
		if (d->q_last)
			return direct_end(d, d->q_last_rc);
	}
	while ((rc = pd_reader_next(d->r, &rec)) > 0) {
		struct window *q;

		if (rec.hdr->type == PERF_RECORD_SAMPLE) {
			uint64_t t = sample_time(d, &rec);

			/* (no time: UINT64_MAX never passes, hi is at most that) */
			if (__builtin_expect(t >= la->lo && t < la->hi, 1)) {
				if (t > d->oe_max)
					d->oe_max = t;
				rc = dispatch_sample(d, &rec, fn, ctx, true);
				if (rc)
					return rc;
				if (!(++d->direct_n & 0xffff)) {
					q = &d->win[d->q_k];
					hws_perf_reader__release(d->r, q->wn ? q->first_off
									     : rec.file_offset);
				}
				continue;
			}
			/* near a sideband record in time: in time order with it */
			q = &d->win[d->q_k];
			d->direct_held++;
			if (t > d->oe_max && t != UINT64_MAX)
				d->oe_max = t;
			if (dec_win_add(d, q, &rec, &d->side_last)) {
				rc = -ENOMEM;
				break;
			}
		} else {
			q = &d->win[d->q_k];
			/* before the samples after it */
			if (rec.hdr->type == HWS_RECORD_HEADER_BUILD_ID)
				dec_build_id_record(d, &rec);
			/* only user records add events (pipe-mode HEADER_ATTR) */
			if (rec.hdr->type >= HWS_RECORD_HEADER_ATTR && dec_ensure_events(d)) {
				rc = -ENOMEM;
				break;
			}
			if (rec.hdr->type == HWS_RECORD_FINISHED_ROUND) {
				/* nothing to dispatch but its count; the look-ahead first: a
				 * callback stop in the flush comes back to the drain only */
				d->nr_records[HWS_RECORD_FINISHED_ROUND]++;
				if (dec_la_fill(d, ++la->rounds_read + 2)) {
					rc = -ENOMEM;
					break;
				}
				rc = q_flush(d, true, rec.file_offset, fn, ctx);
				if (rc)
					return rc;
				continue;
			}
			if (la->on && dec_sb_type(d, rec.hdr->type))
				dec_la_pass(d, &rec, dec_record_time(d, &rec));
			if (dec_win_add(d, q, &rec, &d->side_last)) {
				rc = -ENOMEM;
				break;
			}
		}
		if (q->wlen + q->wref >= WINDOW_MAX_BYTES) {
			rc = q_flush(d, false, rec.file_offset, fn, ctx);
			if (rc)
				return rc;
		}
	}
	/* the end, or an error: what was read before it goes first */
	d->q_last = true;
	d->q_last_rc = rc;
	rc = q_flush(d, false, UINT64_MAX, fn, ctx);
	if (rc)
		return rc;
	return direct_end(d, d->q_last_rc);
}

int hws_decoder__run(struct hws_decoder *d, hws_sample_fn fn, void *ctx)
{
	int rc;

	if (d->dead)
		return d->err ? d->err : -EINVAL;
	d->fn = fn;
	d->ctx = ctx;
	if (!d->cur && direct_mode(d))
		return run_direct(d, fn, ctx);
	for (;;) {
		struct window *win = d->cur;

		if (win && d->wpos < win->wn_out) {
			struct hws_perf_record rec = dec_win_record(win, d->wpos++);

			rc = dispatch_fast(d, &rec, fn, ctx);
			if (rc)
				return rc;
			continue;
		}
		/* the window is done: chunks held from the one before can be decoded now; at the
		 * end or before an error, all of them */
		if (win && d->npend) {
			rc = dec_aux_run(d, win->err || win->eof ? UINT64_MAX : d->gen);
			if (rc)
				return rc;
		}
		if (win && win->err) {
			d->dead = true;
			set_err(d, win->err, "%s", win->errmsg);
			return win->err;
		}
		if (win && win->eof)
			break;
		if (dec_next_window(d)) {
			d->dead = true;
			set_err(d, -ENOMEM, "out of memory");
			return -ENOMEM;
		}
	}
	if (!d->flushed) {
		d->flushed = true;
		rc = dec_aux_flush_all(d);
		if (rc)
			return rc;
	}
	return 0;
}

const char *hws_decoder__errmsg(const struct hws_decoder *d)
{
	return d->errmsg;
}

int hws_decoder__nr_events(const struct hws_decoder *d)
{
	int n = hws_perf_reader__nr_attrs(d->r);

	return n < 0 ? 0 : n;
}

const char *hws_decoder__event_name(const struct hws_decoder *d, int ev)
{
	const struct hws_perf_evattr *ea;

	if (ev == HWS_DECODE_UNKNOWN)
		return "unknown";
	ea = ev >= 0 ? hws_perf_reader__attr(d->r, ev) : NULL;
	return ea ? (ea->name ? ea->name : "?") : NULL;
}

const struct hws_backend *hws_decoder__event_backend(const struct hws_decoder *d, int ev)
{
	if (ev < 0 || (size_t)ev + 1 >= d->nr_evs)
		return NULL;
	return d->evs[ev + 1].backend;
}

int hws_decoder__nr_cpus(const struct hws_decoder *d)
{
	return d->max_cpu_seen; /* slot c+1 used -> c+1 CPUs */
}

static void add_counts(struct hws_decode_counts *o, const struct hws_decode_counts *c)
{
	const uint64_t *src = (const uint64_t *)c;
	uint64_t *dst = (uint64_t *)o;

	for (size_t i = 0; i < sizeof(*c) / sizeof(uint64_t); i++)
		dst[i] += src[i];
}

int hws_decoder__counts(const struct hws_decoder *d, int ev, int cpu, struct hws_decode_counts *out)
{
	size_t e0, e1;

	memset(out, 0, sizeof(*out));
	if (ev == HWS_DECODE_ALL) {
		e0 = 0;
		e1 = d->nr_evs;
	} else if (ev == HWS_DECODE_UNKNOWN) {
		e0 = 0;
		e1 = d->nr_evs ? 1 : 0;
	} else if (ev >= 0 && ev < hws_decoder__nr_events(d)) {
		e0 = (size_t)ev + 1;
		e1 = e0 + 1 <= d->nr_evs ? e0 + 1 : e0;
	} else {
		return -EINVAL;
	}
	for (size_t e = e0; e < e1; e++) {
		const struct ev_state *es = &d->evs[e];
		for (size_t c = 0; c < es->nr_cpu_slots; c++) {
			if (cpu == HWS_DECODE_ALL || (cpu == HWS_DECODE_UNKNOWN && c == 0) ||
			    (cpu >= 0 && c == (size_t)cpu + 1))
				add_counts(out, &es->cpus[c]);
		}
	}
	return 0;
}

uint64_t hws_decoder__nr_records(const struct hws_decoder *d, uint32_t type)
{
	return d->nr_records[type < NR_TYPES ? type : 0];
}

struct hws_symbols *hws_decoder__symbols(struct hws_decoder *d)
{
	return d->syms;
}

const struct hws_file_info *hws_decoder__file_info(struct hws_decoder *d)
{
	return hws_perf_reader__file_info(d->r);
}

int hws_decoder__raw_json(struct hws_decoder *d, const struct hws_sample *s, struct hws_strbuf *sb)
{
	const struct hws_backend *b = hws_decoder__event_backend(d, (int)s->attr_idx);

	if (!b || !b->ops->raw_json)
		return -ENOENT;
	return b->ops->raw_json(b->priv, hws_perf_reader__file_info(d->r), s, sb);
}
