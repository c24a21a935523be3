/* SPDX-License-Identifier: MIT */
/*
 * The decoder's state, shared by its parts (core/decode/): decode.c (the decoder object, the
 * run loops, dispatch, samples), events.c (per-event state: backend, sample layout plans,
 * counters), order.c (time-ordered windows, read-ahead), aux_stream.c (AUXTRACE chunks, AUX
 * streams, the task history AUX samples without pid look up), sideband.c (COMM/MMAP/FORK
 * into the symbol tables, the recording kernel's kallsyms, loss records), callchain.c (samples'
 * call chains into frames). Not installed.
 *
 * Invariants:
 *  - calls between the parts go decode.c -> order.c, aux_stream.c, sideband.c, events.c;
 *    order.c -> events.c (and the reader's pd_reader_scan()); aux_stream.c -> events.c;
 *    sideband.c -> events.c, aux_stream.c;
 *    events.c calls none of them;
 *  - what runs once per record or sample across files is static inline here (cpu_counts(),
 *    counts_or_dummy(), file_info()); the out-of-line parts they fall back to (dec_counts())
 *    run when a CPU or event is first seen.
 */
#ifndef HWS_CORE_DECODE_INT_H
#define HWS_CORE_DECODE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/aux.h>
#include <hwsample/decode.h>

#include "util/internal.h"

#define MAX_CPU		4096
#define MAX_AUX_STREAMS 4096
#define NR_TYPES	128

#define WINDOW_MAX_BYTES ((size_t)32 << 20)

/*
 * Samples whose fields are all 8 bytes (the usual memory-sampling and cpu-clock layouts):
 * where each field sits, from the record's start, worked out once per event, so a sample
 * is read straight into both the backend's record view and the shared sample (0: field
 * absent; the header owns bytes 0-7). @have says which fields to read as bits of one
 * register (testing it costs less than loading each offset); the fields cpu-clock and
 * memory samples rarely carry share one bit, FX_RARE. PEBS memory samples (perf mem/c2c)
 * carry period and weight, so those have bits of their own: testing six absent offsets
 * per sample for them cost more than reading the two.
 */
enum {
	FX_ID = 1 << 0,
	FX_IP = 1 << 1,
	FX_TID = 1 << 2,
	FX_TIME = 1 << 3,
	FX_ADDR = 1 << 4,
	FX_CPU = 1 << 5,
	FX_DSRC = 1 << 6,
	FX_RARE = 1 << 7, /* stream, trans, phys, cgroup, dps or cps */
	FX_PERIOD = 1 << 8,
	FX_WEIGHT = 1 << 9,
};

struct fix_plan {
	uint16_t len;  /* bytes a record needs; 0: not a fixed layout */
	uint16_t have; /* FX_* */
	uint8_t id, ip, tid, time, addr, stream, cpu, period, weight, dsrc, trans, phys, cgroup,
	    dps, cps;
	uint64_t sf;	   /* HWS_SF_* set by the layout alone (and by a fixed period) */
	uint64_t s_period; /* s->period unless PERIOD is sampled: the attr's fixed period, or 0 */
};

/* one data_src value of an event, normalized into a zeroed sample (decode.c: ds_memo_apply()) */
struct ds_memo {
	uint64_t v;
	uint64_t fields; /* HWS_SF_DATA_SRC | HWS_SF_OP bits it sets */
	uint32_t op_flags;
	uint8_t op, mem_level, snoop, tlb;
	bool valid;
};

#define DS_MEMO_BITS  4
#define DS_MEMO_SLOTS (1u << DS_MEMO_BITS)

struct ev_state {
	struct hws_backend *backend;
	const char *backend_name; /* backend->ops->name, or "none" */
	bool decode;		  /* samples go through backend->ops->decode */
	struct fix_plan fp;
	const struct hws_perf_evattr *ea; /* the reader's attr (refreshed by dec_ensure_events()) */
	/* where this event's records carry TIME (events.c: time_layout()): SAMPLE: bytes from the
	 * start; others: bytes back from the end; 0 none */
	uint16_t t_smp, t_back;
	bool matched;
	struct hws_decode_counts *cpus; /* [nr_cpu_slots] */
	size_t nr_cpu_slots;
	/* fixed layouts: the backend's view of the current sample, kept from one sample to the
	 * next: what no sample of the plan writes is set once (attr, sample_type, the period
	 * when not sampled) or stays zero, so nothing needs clearing per sample */
	struct hws_record_sample rs;
	/* direct-mapped on the value: c2c recordings alternate among a handful of data_src
	 * values, which a last-value memo missed on every other sample */
	struct ds_memo ds[DS_MEMO_SLOTS];
};

/* callchain.c: the frames of the current sample's call chain (reused by every sample) */
struct dec_cc {
	struct hws_frame *buf;
	uint32_t cap;
};

/* frames kept per chain unless hws_decoder_opts.max_stack says (perf's PERF_MAX_STACK_DEPTH,
 * the default of perf script's --max-stack) */
#define DEC_MAX_STACK_DEFAULT 127

/* a --call-graph dwarf event: callchain.c unwinds its user stack copies */
#define DEC_DWARF_BITS (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

struct aux_stream {
	void *state;
	struct hws_backend *backend;
	int ev;
	uint64_t next_offset;
	bool started;
};

/* One buffered record of the ordered window: in the reader's mapping of the file (hdr,
 * payload set: HWS_PERF_REC_*_STABLE) or copied into wbuf (NULL: at off, payload_off). */
struct win_rec {
	const void *hdr, *payload;
	uint64_t file_offset;
	uint64_t payload_size;
	size_t off, payload_off; /* into wbuf */
	int attr_idx;
};

/*
 * Sort key: the record's time (or the previous timed record's) and the record itself. Nearly
 * every record lies in the reader's mapping, has no payload and a small event index: its key
 * says all (WK_DIRECT: its address, 8-byte aligned, below 2^48, with attr_idx + 1 in the top
 * 16 bits; its file offset is its address less the window's base), so filling, sorting and
 * carrying a window over (a round's records after perf's limit wait one round: most of them
 * with per-CPU rings) moves 16 bytes per record and no win_rec. Others (copied records,
 * payloads, pipes): bit 0 set, the rest the index of their win_rec.
 */
struct win_key {
	uint64_t time;
	uint64_t ref;
};

#define WK_PTR_BITS 48
#define WK_PTR_MASK ((UINT64_C(1) << WK_PTR_BITS) - 1)
#define WK_REC(i)   ((uint64_t)(i) << 1 | 1) /* the win_rec at index i */

struct task_hist; /* aux_stream.c */

/* ordered window (perf's ordered events): the records of one round, sorted by time */
struct window {
	uint8_t *wbuf;
	size_t wlen, wcap;
	size_t wref;	    /* bytes of stable records referenced in place (not in wbuf) */
	uint64_t first_off; /* file offset of the first record, UINT64_MAX if none */
	uintptr_t base;	    /* a direct key's record address less its file offset (win_key) */
	struct win_rec *wrec;
	struct win_key *wkey, *wtmp; /* [wcapn]: the order to process wrec in, merge scratch */
	size_t *wruns; /* [wcapn + 2]: starts of the ascending runs of the round being read:
			* [1, 1 + nruns) as order.c's fill_window() finds them, then
			* dec_sort_window()'s */
	size_t nruns;
	size_t wn, wcapn;
	size_t wn_out; /* keys [0, wn_out) are dispatched; [wn_out, wn), records after perf's
			* round limit, go into the next window (order.c: hold_back()) */
	bool eof;
	int rc;	 /* order.c's fill_window(): 0 or -ENOMEM */
	int err; /* reader error met while filling: reported once the window is out */
	char errmsg[512];
};

/*
 * Read-ahead (opt-in, see order.c: readahead_start()): a thread fills the next window while the
 * caller's thread dispatches the current one (win[k] and win[k ^ 1] alternate). Before the reader
 * consumes a record that changes what dispatching reads (attrs, features, time conversion:
 * any user record but rounds and AUX data), it waits until the dispatcher has finished the
 * windows before and is waiting for this one, so every record sees the state it would see
 * in one thread. Fields below change under mu.
 */
struct readahead {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool started, stop;
	int want;	   /* window the reader is asked to fill next, or -1 */
	bool filled[2];	   /* window k is ready for the dispatcher */
	bool main_waiting; /* the dispatcher has nothing left and waits for the reader */
};

/*
 * An AUXTRACE chunk waiting for the window after its own (see dec_aux_run()): perf
 * record reads a CPU's ring before its AUX area, so a context switch that happened between
 * the two reads lands in the next round while the chunk already holds later records. perf
 * decodes AUX data only up to the time of each event it processes and flushes a round only
 * up to the previous round's last time; holding chunks one window does the same for the
 * task history (aux_stream.c: task_at()).
 */
struct aux_pend {
	struct hws_aux_chunk ch; /* ch.data: the reader's mapping, or copy */
	uint8_t *copy;		 /* owned copy of a payload that does not outlive its window */
	size_t stream;
	uint64_t file_offset;
	uint64_t gen; /* window it was dispatched in */
	int ev;
};

/*
 * Exact unordered delivery (decode.c: run_direct()): a sample goes to the callback as the
 * reader hands it out when the symbol tables are as they were at its time: no record that
 * changes them (COMM, MMAP, MMAP2, FORK: sideband) with a later time has been applied, none
 * with its time or an earlier one is still to come (lo <= time < hi); other samples wait in
 * the held window with the sideband and go in time order at a round's end, as in the ordered
 * path. perf's rounds bound what is still to come: a record in round R + 2 is later than
 * every record of round R (order.c: hold_back()), so the look-ahead (order.c: dec_la_fill())
 * knows the sideband of the reader's round and the next one.
 */
struct la_ent {
	uint64_t off, time; /* file offset, time of a sideband record ahead of the reader */
};

struct lookahead {
	bool on;	      /* the checks apply (off: no sideband, every sample is delivered) */
	bool ok;	      /* the scan is complete up to where it is (else: hi = 0, all wait) */
	bool end;	      /* the scan reached the end of the data */
	uint64_t pos;	      /* file offset the scan goes on from */
	uint64_t rounds;      /* FINISHED_ROUNDs the scan has passed */
	uint64_t rounds_read; /* FINISHED_ROUNDs the reader has passed */
	struct la_ent *ent;   /* [head, n): sideband ahead of the reader, in file order */
	size_t head, n, cap;
	size_t *mq; /* [mq_head, mq_n): indexes into ent, times ascending: ent[mq[mq_head]] is the
		     * earliest (a monotonic queue: entries leave at the head as they came) */
	size_t mq_head, mq_n;
	uint16_t *t_smp; /* [nr_t]: per event slot, where its samples carry TIME (UINT16_MAX:
			  * nowhere), a copy of ev_state.t_smp kept close for run_direct() */
	size_t nr_t;
	uint64_t t_none; /* the time of a sample without one: UINT64_MAX (held), or 0 when off */
	uint64_t q_min;	 /* earliest sideband time held in the window */
	uint64_t lo, hi;
};

struct hws_decoder {
	struct hws_decoder_opts opts;
	struct hws_perf_reader *r;
	struct hws_registry *reg;
	struct hws_symbols *syms;
	struct ev_state *evs; /* [nr_evs], slot 0 = unknown event */
	size_t nr_evs;
	struct aux_stream *streams;
	size_t nr_streams;
	struct hws_aux **aux_trk; /* per CPU slot: gap tracker fed by PERF_RECORD_AUX (aux.h) */
	struct task_hist **tasks; /* [MAX_CPU]: tasks switched in, for AUX samples without pid */
	int max_cpu_seen;	  /* highest CPU slot used */
	uint64_t nr_records[NR_TYPES];
	const struct hws_file_info *fi; /* cached; refreshed after user (header) records */
	bool host_checked;
	bool dead;
	bool flushed;
	int err;
	char errmsg[512];
	/* AUX emit context */
	hws_sample_fn fn;
	void *ctx;
	struct aux_stream *cur_stream;
	uint32_t cur_cpu;
	/* aux_stream.c: aux_emit()'s per-chunk cache (aux_begin()): the stream's event and backend
	 * names, its counts slot for aux_cnt_cpu (NULL: look it up) */
	const char *aux_name, *aux_backend;
	struct hws_decode_counts *aux_cnt;
	uint32_t aux_cnt_cpu;
	struct window win[2];
	struct window *cur; /* being dispatched (NULL before the first) */
	size_t wpos;	    /* next record of cur */
	int cur_k;	    /* index of cur in win[] */
	bool threaded;	    /* read-ahead thread in use (decided at the first run) */
	/* perf's ordered events (order.c: hold_back()): at a round's end only records up to
	 * the largest time of the rounds before it are dispatched */
	uint64_t oe_limit, oe_max;
	struct readahead ra;
	/* unordered delivery (decode.c: run_direct()) */
	bool direct_checked, direct; /* decided, in use */
	uint64_t side_last;	     /* its window's previous record time */
	uint64_t direct_n;	     /* samples it delivered */
	uint64_t direct_held;	     /* samples it held for time order */
	struct lookahead la;
	int q_k;	 /* the held window: win[q_k] */
	size_t q_pos;	 /* next key of a held window being dispatched */
	bool q_draining; /* keys [q_pos, wn_out) of win[q_k] are still to go (callback stop) */
	bool q_last;	 /* that drain is the last one (the end or a reader error) */
	int q_last_rc;	 /* the reader's value at that end */
	struct aux_pend *pend; /* [npend] in dispatch order */
	size_t npend, cappend;
	uint64_t gen;		  /* windows started */
	struct dec_cc cc;	  /* callchain.c */
	struct hws_unwinder *unw; /* callchain.c: made at the first --call-graph dwarf sample */
	bool unw_failed;	  /* could not make it: dwarf samples keep their kernel part */
	uint32_t max_stack;	  /* frames kept per call chain (opts.max_stack or the default) */
};

/* ---- core/decode/events.c ---- */

/* Make sure there is a slot for every event the reader knows; pick their backends, plan their
 * sample layouts. 0 or -ENOMEM. */
int dec_ensure_events(struct hws_decoder *d);
/* Pipe mode: match the events' backends again once PMU_MAPPINGS has come. */
void dec_rematch_events(struct hws_decoder *d);
/* Counters of event @ev (-1 unknown) on @cpu ((u32)-1 or >= MAX_CPU: unknown). NULL on OOM. */
struct hws_decode_counts *dec_counts(struct hws_decoder *d, int ev, uint32_t cpu);
extern struct hws_decode_counts dec_dummy_counts; /* target when allocation fails */
/* Event and CPU (and, if @time, the time: UINT64_MAX when none) of a non-sample record from
 * its sample_id trailer. */
void dec_record_ev_cpu(struct hws_decoder *d, const struct hws_perf_record *rec, int *ev,
		       uint32_t *cpu, uint64_t *time);

/* ---- core/decode/order.c ---- */

/* The next window to dispatch into d->cur (reads it, or waits for the read-ahead thread):
 * 0 or -ENOMEM. */
int dec_next_window(struct hws_decoder *d);
/* Sort keys [from, to) of @win: one round. */
void dec_sort_window(struct window *win, size_t from, size_t to);
/*
 * The @i-th record of @win in time order. What win_add() kept in place (w->hdr, w->payload
 * non-NULL) is the reader's stable memory and keeps its HWS_PERF_REC_*_STABLE flag, so
 * aux_hold() holds such a payload without copying it; a copy in wbuf lives only as long as
 * the window and has no flag.
 */
static inline struct hws_perf_record dec_win_record(const struct window *win, size_t i)
{
	uint64_t ref = win->wkey[i].ref;
	const struct win_rec *w;

	if (!(ref & 1)) { /* a direct key (struct win_key) */
		uintptr_t hdr = (uintptr_t)(ref & WK_PTR_MASK);

		return (struct hws_perf_record){
		    .hdr = (const void *)hdr,
		    .file_offset = hdr - win->base,
		    .attr_idx = (int)(ref >> WK_PTR_BITS) - 1,
		    .flags = HWS_PERF_REC_HDR_STABLE,
		};
	}
	w = &win->wrec[ref >> 1];
	return (struct hws_perf_record){
	    .hdr = w->hdr ? w->hdr : (const void *)(win->wbuf + w->off),
	    .file_offset = w->file_offset,
	    .payload = !w->payload_size ? NULL
		       : w->payload	? w->payload
					: win->wbuf + w->payload_off,
	    .payload_size = w->payload_size,
	    .attr_idx = w->attr_idx,
	    .flags = (w->hdr ? HWS_PERF_REC_HDR_STABLE : 0) |
		     (w->payload_size && w->payload ? HWS_PERF_REC_PAYLOAD_STABLE : 0),
	};
}

/* Append @rec to @win with its sort key (*last_time: the round's last record time so far):
 * 0 or -ENOMEM. */
int dec_win_add(struct hws_decoder *d, struct window *win, const struct hws_perf_record *rec,
		uint64_t *last_time);
/* Exact unordered delivery (struct lookahead, decode.c: run_direct()). */
/* Does record @type change the symbol tables (sideband)? */
static inline bool dec_sb_type(const struct hws_decoder *d, uint32_t type)
{
	return !d->opts.no_sideband && (type == PERF_RECORD_COMM || type == PERF_RECORD_MMAP ||
					type == PERF_RECORD_MMAP2 || type == PERF_RECORD_FORK);
}
/* Can the files' records be checked (every event's samples and sideband carry TIME)? Sets
 * d->la.on, .ok; then the look-ahead of the first two rounds. 0 or -ENOMEM. */
int dec_la_start(struct hws_decoder *d);
/* Scan on until the look-ahead has passed @rounds FINISHED_ROUNDs (or the end); lo and hi
 * again. 0 or -ENOMEM. */
int dec_la_fill(struct hws_decoder *d, uint64_t rounds);
/* The reader handed out sideband record @rec: it leaves the look-ahead (it is held now). */
void dec_la_pass(struct hws_decoder *d, const struct hws_perf_record *rec, uint64_t time);
/* Time of record @rec as the kernel wrote it, or UINT64_MAX when it has none. */
uint64_t dec_record_time(struct hws_decoder *d, const struct hws_perf_record *rec);
/* Sort the held window (one round when @round_end, then only the keys up to perf's round
 * limit go: [0, wn_out)) and return it. */
struct window *dec_q_sort(struct hws_decoder *d, bool round_end);
/* After keys [0, wn_out) of the held window went: the others into the other window, which
 * is held from now on; the look-ahead's hi again. 0 or -ENOMEM. */
int dec_q_next(struct hws_decoder *d);

/* Stop the read-ahead thread and free the windows. */
void dec_order_free(struct hws_decoder *d);

/* ---- core/decode/aux_stream.c ---- */

/* An AUXTRACE record: its chunk is held for dec_aux_run(). 0 or -ENOMEM. */
int dec_auxtrace(struct hws_decoder *d, const struct hws_perf_record *rec);
/* Decode the held chunks dispatched in windows before @below (all: UINT64_MAX), in order.
 * 0 or the callback's non-zero value. */
int dec_aux_run(struct hws_decoder *d, uint64_t below);
/* At the end: let the backends emit what their streams still hold. */
int dec_aux_flush_all(struct hws_decoder *d);
/* Event whose backend decodes AUX data: the first one with aux_decode; -1: none. */
int dec_aux_event(struct hws_decoder *d);
/* Gap tracker of CPU slot @slot, created on first use; NULL on OOM. */
struct hws_aux *dec_aux_tracker(struct hws_decoder *d, size_t slot);
/* A SWITCH_CPU_WIDE record: the task history of its CPU. */
void dec_switch(struct hws_decoder *d, const struct hws_perf_record *rec);
/* Free the streams, trackers, task history and held chunks. */
void dec_aux_free(struct hws_decoder *d);

/* ---- core/decode/sideband.c ---- */

/* Choose the kernel symbols (kallsyms of the recording's kernel), once, before the first
 * sample or AUX data. */
void dec_check_host(struct hws_decoder *d);
/* a HEADER_BUILD_ID record (pipe mode), taken when read, before the samples around it are
 * sorted: the file's recorded build-id (and cache copy) for symbols and the unwinder */
void dec_build_id_record(struct hws_decoder *d, const struct hws_perf_record *rec);
/* COMM, MMAP, MMAP2, FORK: the symbol tables. */
void dec_sideband(struct hws_decoder *d, const struct hws_perf_record *rec);
/* LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE, AUX: the counters (AUX: also the gap tracker). */
void dec_loss(struct hws_decoder *d, const struct hws_perf_record *rec);

/* ---- core/decode/callchain.c ---- */

/* A sample's PERF_SAMPLE_CALLCHAIN entries @ips[@nr] into @cc's frames, innermost first,
 * markers dropped, at most @max_stack frames (more: HWS_CC_TRUNCATED in *flags_out).
 * 0 (*nr_out frames), HWS_E_BADREC (an unknown marker: no frames) or -ENOMEM. */
int dec_cc_frames(struct dec_cc *cc, uint32_t max_stack, const uint64_t *ips, uint64_t nr,
		  uint32_t *nr_out, uint32_t *flags_out);
/* The call chain of @rs (which has PERF_SAMPLE_CALLCHAIN) into @s: sets HWS_SF_CALLCHAIN when
 * it has frames; a corrupt chain is counted in @c->callchain_errors and left out. */
void dec_callchain(struct hws_decoder *d, struct hws_decode_counts *c, const void *rec, size_t size,
		   const struct hws_record_sample *rs, struct hws_sample *s);
void dec_cc_free(struct dec_cc *cc);

/* ---- inline helpers ---- */

/* fixed period (-c): the kernel does not write it, perf shows the attr's; 0: none */
static inline uint64_t fixed_period(const struct hws_perf_event_attr *a)
{
	return !(a->sample_type & PERF_SAMPLE_PERIOD) && !a->freq ? a->sample_period : 0;
}

/* @e's counts of @cpu when it is a CPU already seen (the common case; its slot exists, so
 * cpu < MAX_CPU), else NULL */
static inline struct hws_decode_counts *cpu_counts(const struct hws_decoder *d, struct ev_state *e,
						   uint32_t cpu)
{
	return (size_t)cpu + 1 < e->nr_cpu_slots && (int)cpu + 1 <= d->max_cpu_seen
		   ? &e->cpus[cpu + 1]
		   : NULL;
}

static inline struct hws_decode_counts *counts_or_dummy(struct hws_decoder *d, int ev, uint32_t cpu)
{
	struct hws_decode_counts *c;

	/* the common case: a known event on a CPU already seen */
	if (ev >= 0 && (size_t)ev + 1 < d->nr_evs && (c = cpu_counts(d, &d->evs[ev + 1], cpu)))
		return c;
	c = dec_counts(d, ev, cpu);
	return c ? c : &dec_dummy_counts;
}

static inline const struct hws_perf_event_attr *ev_attr(struct hws_decoder *d, int ev)
{
	const struct hws_perf_evattr *ea = ev >= 0 ? hws_perf_reader__attr(d->r, ev) : NULL;

	return ea ? &ea->attr : NULL;
}

/* The reader rebuilds its file info on each call; features only change with user records
 * (pipe mode), so keep it until one of those passes. */
static inline const struct hws_file_info *file_info(struct hws_decoder *d)
{
	if (!d->fi)
		d->fi = hws_perf_reader__file_info(d->r);
	return d->fi;
}

#endif
