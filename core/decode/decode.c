// SPDX-License-Identifier: MIT
/*
 * The decode pipeline (see include/hwsample/decode.h).
 *
 * Invariants:
 *  - records are processed in time order within each round, one at a time; nothing read from
 *    a record is kept past its processing except counters, the side-band tables in struct
 *    hws_symbols, the switch history, and AUXTRACE chunks, which are decoded once the window
 *    after their own has been dispatched (aux_hold(): switches written a round late);
 *  - per-event state (backend, counters) exists for every attr the reader knows; it grows
 *    as pipe-mode HEADER_ATTR records add events (ensure_events());
 *  - counters are kept per (event slot, CPU slot): event slot 0 / CPU slot 0 are "unknown",
 *    event i is slot i + 1, CPU c is slot c + 1; CPUs at or above MAX_CPU count as unknown,
 *    so a corrupt cpu field never makes the table grow without bound;
 *  - AUX streams are indexed by the AUXTRACE idx (< MAX_AUX_STREAMS); each has
 *    aux_stream_size zeroed bytes allocated on first use and the next expected offset;
 *  - a reader error ends the run for good (d->dead); a callback stop does not.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <hwsample/aux.h>
#include <hwsample/decode.h>
#include <hwsample/errors.h>

#include "util/internal.h"
#include "perfdata/perfdata_int.h"

#define MAX_CPU		4096
#define MAX_AUX_STREAMS 4096
#define NR_TYPES	128

#define AUX_FLAG_TRUNCATED 0x01
#define AUX_FLAG_OVERWRITE 0x02
#define AUX_FLAG_PARTIAL   0x04
#define AUX_FLAG_COLLISION 0x08

#define MISC_COMM_EXEC (1U << 13)
#define MISC_EXACT_IP  (1U << 14)

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

/* one data_src value of an event, normalized into a zeroed sample (see ds_memo_apply()) */
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
	const struct hws_perf_evattr *ea; /* the reader's attr (refreshed by ensure_events()) */
	/* where this event's records carry TIME (see time_layout()): SAMPLE: bytes from the
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

/* sort key: the record's time (or the previous timed record's), then its place in the file */
struct win_key {
	uint64_t time;
	size_t idx;
};

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

#define WINDOW_MAX_BYTES ((size_t)32 << 20)
#define RA_WINDOW_BYTES	 ((size_t)512 << 10) /* read-ahead: rounds per hand-off, in bytes */

/* ordered window (perf's ordered events): the records of one round, sorted by time */
struct window {
	uint8_t *wbuf;
	size_t wlen, wcap;
	size_t wref;	    /* bytes of stable records referenced in place (not in wbuf) */
	uint64_t first_off; /* file offset of the first record, UINT64_MAX if none */
	struct win_rec *wrec;
	struct win_key *wkey, *wtmp; /* [wcapn]: the order to process wrec in, merge scratch */
	size_t *wruns; /* [wcapn + 2]: starts of the ascending runs of the round being read:
			* [1, 1 + nruns) as fill_window() finds them, then sort_window()'s */
	size_t nruns;
	size_t wn, wcapn;
	bool eof;
	int rc;	 /* fill_window(): 0 or -ENOMEM */
	int err; /* reader error met while filling: reported once the window is out */
	char errmsg[512];
};

/*
 * Read-ahead (opt-in, see readahead_start()): a thread fills the next window while the caller's
 * thread dispatches the current one (win[k] and win[k ^ 1] alternate). Before the reader
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
 * An AUXTRACE chunk waiting for the window after its own (see hws_decoder__run()): perf
 * record reads a CPU's ring before its AUX area, so a context switch that happened between
 * the two reads lands in the next round while the chunk already holds later records. perf
 * decodes AUX data only up to the time of each event it processes and flushes a round only
 * up to the previous round's last time; holding chunks one window does the same for the
 * task history (task_at()).
 */
struct aux_pend {
	struct hws_aux_chunk ch; /* ch.data: the reader's mapping, or copy */
	uint8_t *copy;		 /* owned copy of a payload that does not outlive its window */
	size_t stream;
	uint64_t file_offset;
	uint64_t gen; /* window it was dispatched in */
	int ev;
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
	/* aux_emit()'s per-chunk cache (aux_begin()): the stream's event and backend names,
	 * its counts slot for aux_cnt_cpu (NULL: look it up) */
	const char *aux_name, *aux_backend;
	struct hws_decode_counts *aux_cnt;
	uint32_t aux_cnt_cpu;
	struct window win[2];
	struct window *cur; /* being dispatched (NULL before the first) */
	size_t wpos;	    /* next record of cur */
	int cur_k;	    /* index of cur in win[] */
	bool threaded;	    /* read-ahead thread in use (decided at the first run) */
	struct readahead ra;
	bool direct_checked, direct; /* unordered delivery decided, in use (run_direct()) */
	uint64_t side_last;	     /* its window's previous record time */
	uint64_t direct_n;	     /* samples it delivered */
	struct aux_pend *pend;	     /* [npend] in dispatch order */
	size_t npend, cappend;
	uint64_t gen; /* windows started */
};

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
	so.srcline = d->opts.srcline;
	so.max_files = d->opts.max_files;
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
	for (size_t i = 0; i < d->nr_evs; i++)
		free(d->evs[i].cpus);
	for (size_t i = 0; i < d->nr_streams; i++)
		free(d->streams[i].state);
	free(d->evs);
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
	if (d->ra.started) {
		pthread_mutex_lock(&d->ra.mu);
		__atomic_store_n(&d->ra.stop, true, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&d->ra.cv);
		pthread_mutex_unlock(&d->ra.mu);
		pthread_join(d->ra.th, NULL);
		pthread_mutex_destroy(&d->ra.mu);
		pthread_cond_destroy(&d->ra.cv);
	}
	for (int i = 0; i < 2; i++) {
		free(d->win[i].wbuf);
		free(d->win[i].wrec);
		free(d->win[i].wkey);
		free(d->win[i].wtmp);
		free(d->win[i].wruns);
	}
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

static void set_backend(struct ev_state *e, struct hws_backend *b)
{
	e->backend = b;
	e->backend_name = b ? b->ops->name : "none";
	e->decode = b && b->ops->decode; /* NULL: core's generic fill is the sample */
}

/* Pipe mode: PMU_MAPPINGS (a HEADER_FEATURE record) arrives after the HEADER_ATTRs, so
 * the PMU names and with them the backends are only known then: match again. */
static void rematch_events(struct hws_decoder *d)
{
	for (size_t i = 1; d->reg && i < d->nr_evs; i++) {
		const struct hws_perf_evattr *ea = hws_perf_reader__attr(d->r, (int)i - 1);
		if (ea)
			set_backend(&d->evs[i],
				    hws_registry__match(d->reg, &ea->attr, ea->pmu_name));
	}
}

/* Where @a's records carry their time, as record_time() reads it. */
static void time_layout(struct ev_state *e, const struct hws_perf_event_attr *a)
{
	uint64_t st = a->sample_type;

	e->t_smp = e->t_back = 0;
	if (!(st & PERF_SAMPLE_TIME))
		return;
	e->t_smp = (uint16_t)(8 + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
				       !!(st & PERF_SAMPLE_TID)));
	if (a->sample_id_all)
		e->t_back =
		    (uint16_t)(8 * (1 + !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
				    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER)));
}

/* fixed period (-c): the kernel does not write it, perf shows the attr's; 0: none */
static inline uint64_t fixed_period(const struct hws_perf_event_attr *a)
{
	return !(a->sample_type & PERF_SAMPLE_PERIOD) && !a->freq ? a->sample_period : 0;
}

/* Field offsets of a fixed layout, in the kernel's order (perf-facts.md section 6). */
static void fix_layout(struct fix_plan *fp, const struct hws_perf_event_attr *a)
{
	uint64_t st = a->sample_type;
	unsigned int o = 8;

	memset(fp, 0, sizeof(*fp));
	if ((st & ~(uint64_t)HWS_FIXED_SAMPLE_FIELDS) ||
	    (st & PERF_SAMPLE_WEIGHT_TYPE) == PERF_SAMPLE_WEIGHT_TYPE)
		return;
#define AT(bit, f, flag)                                                                           \
	do {                                                                                       \
		if (st & (bit)) {                                                                  \
			fp->f = (uint8_t)o;                                                        \
			fp->sf |= (flag);                                                          \
			o += 8;                                                                    \
		}                                                                                  \
	} while (0)
	AT(PERF_SAMPLE_IDENTIFIER, id, HWS_SF_ID);
	AT(PERF_SAMPLE_IP, ip, HWS_SF_IP);
	AT(PERF_SAMPLE_TID, tid, HWS_SF_PID);
	AT(PERF_SAMPLE_TIME, time, HWS_SF_TIME);
	AT(PERF_SAMPLE_ADDR, addr, HWS_SF_ADDR);
	AT(PERF_SAMPLE_ID, id, HWS_SF_ID); /* the same id as IDENTIFIER's: the later one is read */
	AT(PERF_SAMPLE_STREAM_ID, stream, 0);
	AT(PERF_SAMPLE_CPU, cpu, HWS_SF_CPU);
	AT(PERF_SAMPLE_PERIOD, period, HWS_SF_PERIOD);
	AT(PERF_SAMPLE_WEIGHT_TYPE, weight, HWS_SF_WEIGHT);
	AT(PERF_SAMPLE_DATA_SRC, dsrc, 0);
	AT(PERF_SAMPLE_TRANSACTION, trans, 0);
	AT(PERF_SAMPLE_PHYS_ADDR, phys, HWS_SF_PHYS_ADDR);
	AT(PERF_SAMPLE_CGROUP, cgroup, 0);
	AT(PERF_SAMPLE_DATA_PAGE_SIZE, dps, HWS_SF_DATA_PAGE_SIZE);
	AT(PERF_SAMPLE_CODE_PAGE_SIZE, cps, HWS_SF_CODE_PAGE_SIZE);
#undef AT
	fp->len = (uint16_t)o; /* at most 8 + 17 * 8 */
	fp->have = (uint16_t)((fp->id ? FX_ID : 0) | (fp->ip ? FX_IP : 0) | (fp->tid ? FX_TID : 0) |
			      (fp->time ? FX_TIME : 0) | (fp->addr ? FX_ADDR : 0) |
			      (fp->cpu ? FX_CPU : 0) | (fp->dsrc ? FX_DSRC : 0) |
			      (fp->period ? FX_PERIOD : 0) | (fp->weight ? FX_WEIGHT : 0));
	if (fp->stream || fp->trans || fp->phys || fp->cgroup || fp->dps || fp->cps)
		fp->have |= FX_RARE;
	fp->s_period = fixed_period(a);
	if (fp->s_period)
		fp->sf |= HWS_SF_PERIOD;
}

/* The constant part of an event's kept record view (ev_state.rs); @ea may have moved. */
static void rs_layout(struct ev_state *e)
{
	e->rs.attr = &e->ea->attr;
	e->rs.sample_type = e->ea->attr.sample_type;
	/* as hws_sample__parse(): unless PERIOD is sampled */
	e->rs.period = e->ea->attr.sample_period;
}

/* Make sure there is a slot for every event the reader knows; pick their backends. */
static int ensure_events(struct hws_decoder *d)
{
	int n = hws_perf_reader__nr_attrs(d->r);
	size_t want = (size_t)(n < 0 ? 0 : n) + 1;

	if (want <= d->nr_evs)
		return 0;
	struct ev_state *e = realloc(d->evs, want * sizeof(*e));
	if (!e)
		return -ENOMEM;
	memset(e + d->nr_evs, 0, (want - d->nr_evs) * sizeof(*e));
	d->evs = e;
	/* adding attrs may have moved the reader's array */
	for (size_t i = 1; i < d->nr_evs; i++) {
		e[i].ea = hws_perf_reader__attr(d->r, (int)i - 1);
		if (e[i].ea)
			rs_layout(&e[i]);
	}
	for (size_t i = d->nr_evs ? d->nr_evs : 1; i < want; i++) {
		const struct hws_perf_evattr *ea = hws_perf_reader__attr(d->r, (int)i - 1);
		set_backend(&e[i], ea && d->reg
				       ? hws_registry__match(d->reg, &ea->attr, ea->pmu_name)
				       : NULL);
		e[i].matched = true;
		e[i].ea = ea;
		if (ea) {
			time_layout(&e[i], &ea->attr);
			fix_layout(&e[i].fp, &ea->attr);
			rs_layout(&e[i]);
		}
		if (ea)
			pr_debug("decode: event %zu '%s' (type %u, pmu %s) -> backend %s\n", i - 1,
				 ea->name ? ea->name : "?", ea->attr.type,
				 ea->pmu_name ? ea->pmu_name : "-",
				 e[i].backend ? e[i].backend->ops->name : "none");
	}
	d->nr_evs = want;
	return 0;
}

/* Counters of event @ev (-1 unknown) on @cpu ((u32)-1 or >= MAX_CPU: unknown). NULL on OOM. */
static struct hws_decode_counts *counts(struct hws_decoder *d, int ev, uint32_t cpu)
{
	size_t es = ev >= 0 && (size_t)ev + 1 < d->nr_evs ? (size_t)ev + 1 : 0;
	size_t cs = cpu < MAX_CPU ? (size_t)cpu + 1 : 0;
	struct ev_state *e;

	if (!d->nr_evs && ensure_events(d))
		return NULL;
	if (!d->nr_evs)
		return NULL;
	e = &d->evs[es];
	if (cs >= e->nr_cpu_slots) {
		size_t n = e->nr_cpu_slots ? e->nr_cpu_slots : 8;
		struct hws_decode_counts *c;
		while (n <= cs)
			n *= 2;
		if (n > MAX_CPU + 1)
			n = MAX_CPU + 1;
		c = realloc(e->cpus, n * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + e->nr_cpu_slots, 0, (n - e->nr_cpu_slots) * sizeof(*c));
		e->cpus = c;
		e->nr_cpu_slots = n;
	}
	if ((int)cs > d->max_cpu_seen)
		d->max_cpu_seen = (int)cs;
	return &e->cpus[cs];
}

static struct hws_decode_counts dummy_counts; /* target when allocation fails */

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
	c = counts(d, ev, cpu);
	return c ? c : &dummy_counts;
}

/*
 * Kernel symbols: from the kallsyms of the kernel the file was recorded on.
 *  - opts.kallsyms (perf report --kallsyms): that file, whatever the host;
 *  - the recording kernel is the running one (the file's HEADER_BUILD_ID entry for
 *    [kernel.kallsyms] equals /sys/kernel/notes; without a build-id on either side,
 *    hostname and osrelease): /proc/kallsyms, or perf's build-id cache copy of it when that
 *    provably lists the same addresses (much cheaper than the kernel generating it);
 *  - another kernel: the build-id cache copy, if there is one; else no kernel names.
 * Symbols move with KASLR when the file's kernel MMAP says so (see symbols.h).
 */
static void check_host(struct hws_decoder *d)
{
	char bid[48], run[48], copy[4096], dir[4096];
	const char *cdir = d->opts.buildid_dir;
	bool have_copy = false, same;
	struct utsname u;
	int nb, err;

	d->host_checked = true;
	if (d->opts.no_kallsyms || d->opts.no_sideband)
		return;
	if (d->opts.kallsyms) {
		err = hws_symbols__use_kallsyms(d->syms, d->opts.kallsyms);
		if (err)
			pr_warn("kallsyms file %s: %s: kernel addresses stay [kernel]\n",
				d->opts.kallsyms, strerror(-err));
		return;
	}
	nb = hws_perf_reader__build_id(d->r, "[kernel.kallsyms]", bid, sizeof(bid));
	if (nb > 0) {
		if (!cdir && !hws__buildid_dir(dir, sizeof(dir)))
			cdir = dir;
		have_copy =
		    cdir && *cdir && !hws__buildid_kallsyms_path(cdir, bid, copy, sizeof(copy));
	}
	if (nb > 0 && hws__kernel_build_id(run, sizeof(run)) > 0) {
		same = !strcmp(bid, run);
	} else {
		const char *host = hws_perf_reader__string(d->r, HWS_FEAT_HOSTNAME);
		const char *rel = hws_perf_reader__string(d->r, HWS_FEAT_OSRELEASE);

		same = !uname(&u) && host && rel && !strcmp(host, u.nodename) &&
		       !strcmp(rel, u.release);
	}
	if (same)
		err = hws_symbols__use_kallsyms_copy(d->syms, "/proc/kallsyms",
						     have_copy ? copy : NULL, "/proc/modules");
	else if (have_copy)
		err = hws_symbols__use_kallsyms(d->syms, copy);
	else
		return (void)pr_info("decode: no kallsyms of the recording's kernel%s%s (not the "
				     "running one, none in the build-id cache): kernel addresses "
				     "stay [kernel]; hws_decoder_opts.kallsyms names them\n",
				     nb > 0 ? " " : "", nb > 0 ? bid : "");
	if (err)
		pr_debug("decode: kallsyms not usable (%s), kernel addresses stay [kernel]\n",
			 strerror(-err));
}

static const struct hws_perf_event_attr *ev_attr(struct hws_decoder *d, int ev)
{
	const struct hws_perf_evattr *ea = ev >= 0 ? hws_perf_reader__attr(d->r, ev) : NULL;

	return ea ? &ea->attr : NULL;
}

/* Event and CPU (and, if @time, the time: UINT64_MAX when none) of a non-sample record from
 * its sample_id trailer. */
static void record_ev_cpu(struct hws_decoder *d, const struct hws_perf_record *rec, int *ev,
			  uint32_t *cpu, uint64_t *time)
{
	const struct hws_perf_event_attr *attr;
	struct hws_sample_id sid;

	*cpu = (uint32_t)-1;
	if (time)
		*time = UINT64_MAX;
	if (*ev < 0)
		*ev = rec->attr_idx;
	if (*ev < 0 && hws_perf_reader__nr_attrs(d->r) == 1)
		*ev = 0;
	attr = ev_attr(d, *ev >= 0 ? *ev : 0);
	if (!attr || !attr->sample_id_all)
		return;
	if (hws_sample_id__parse(attr, rec->hdr, rec->hdr->size, &sid))
		return;
	if (sid.fields & HWS_SF_CPU)
		*cpu = sid.cpu;
	if (time && (sid.fields & HWS_SF_TIME))
		*time = sid.time;
}

/* The reader rebuilds its file info on each call; features only change with user records
 * (pipe mode), so keep it until one of those passes. */
static const struct hws_file_info *file_info(struct hws_decoder *d)
{
	if (!d->fi)
		d->fi = hws_perf_reader__file_info(d->r);
	return d->fi;
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

static int do_sample(struct hws_decoder *d, const struct hws_perf_record *rec, hws_sample_fn fn,
		     void *ctx)
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
		check_host(d);
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
	c->samples++;
	c->period += (s.fields & HWS_SF_PERIOD) ? s.period : 1;
	return fn ? fn(ctx, &s) : 0;
}

static void do_switch(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	const uint8_t *p = (const uint8_t *)rec->hdr;
	struct task_hist *h;
	uint32_t cpu, pid, tid;
	uint64_t t;
	int ev = -1;

	if (!(rec->hdr->misc & PERF_RECORD_MISC_SWITCH_OUT) || rec->hdr->size < 16)
		return;
	record_ev_cpu(d, rec, &ev, &cpu, &t);
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

	d->aux_cnt = c != &dummy_counts ? c : NULL;
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
	/* the slot stays where it is while the chunk decodes: counts() moves a CPU array only
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
static int aux_event(struct hws_decoder *d)
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
static struct hws_aux *aux_tracker(struct hws_decoder *d, size_t slot)
{
	if (slot > MAX_CPU)
		return NULL;
	if (!d->aux_trk[slot])
		d->aux_trk[slot] = hws_aux__new_tracker();
	return d->aux_trk[slot];
}

static int aux_hold(struct hws_decoder *d, const struct hws_perf_record *rec,
		    const struct hws_aux_chunk *ch, size_t stream, int ev);

static int do_auxtrace(struct hws_decoder *d, const struct hws_perf_record *rec)
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
	ev = aux_event(d);
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
		struct hws_aux *t = aux_tracker(d, gslot);
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

/* Queue a chunk for aux_run() (copying a payload that lives only as long as its window). */
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
static int aux_run(struct hws_decoder *d, uint64_t below)
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

static int aux_flush_all(struct hws_decoder *d)
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

static const char *rec_str(const struct hws_perf_record *rec, size_t off, char *buf, size_t len)
{
	size_t sz = rec->hdr->size, n;
	const char *s = (const char *)rec->hdr + off;

	if (off >= sz)
		return "";
	n = strnlen(s, sz - off);
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

static void do_sideband(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	const uint8_t *p = (const uint8_t *)rec->hdr;
	uint32_t type = rec->hdr->type, size = rec->hdr->size, pid, tid;
	uint64_t addr, len, pgoff;
	char name[4096];

	if (d->opts.no_sideband)
		return;
	switch (type) {
	case PERF_RECORD_COMM:
		if (size < 16)
			return;
		memcpy(&pid, p + 8, 4);
		memcpy(&tid, p + 12, 4);
		hws_symbols__comm(d->syms, pid, tid, rec_str(rec, 16, name, 64),
				  (rec->hdr->misc & MISC_COMM_EXEC) != 0);
		return;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		size_t fo = type == PERF_RECORD_MMAP ? 40 : 72;
		if (size < fo)
			return;
		memcpy(&pid, p + 8, 4);
		memcpy(&addr, p + 16, 8);
		memcpy(&len, p + 24, 8);
		memcpy(&pgoff, p + 32, 8);
		hws_symbols__mmap(d->syms, pid, addr, len, pgoff,
				  rec_str(rec, fo, name, sizeof(name)));
		return;
	}
	case PERF_RECORD_FORK: {
		uint32_t ppid;
		if (size < 24)
			return;
		memcpy(&pid, p + 8, 4);
		memcpy(&ppid, p + 12, 4);
		hws_symbols__fork(d->syms, pid, ppid);
		return;
	}
	default:
		return;
	}
}

static void do_loss(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	const uint8_t *p = (const uint8_t *)rec->hdr;
	uint32_t size = rec->hdr->size, cpu;
	struct hws_decode_counts *c;
	uint64_t a, b, fl;
	int ev = -1;

	switch (rec->hdr->type) {
	case PERF_RECORD_LOST:
		if (size < 24)
			break;
		memcpy(&a, p + 8, 8); /* id */
		memcpy(&b, p + 16, 8);
		ev = hws_perf_reader__attr_by_id(d->r, a);
		record_ev_cpu(d, rec, &ev, &cpu, NULL);
		c = counts_or_dummy(d, ev, cpu);
		c->lost += b;
		c->lost_records++;
		return;
	case PERF_RECORD_LOST_SAMPLES:
		if (size < 16)
			break;
		memcpy(&a, p + 8, 8);
		record_ev_cpu(d, rec, &ev, &cpu, NULL);
		counts_or_dummy(d, ev, cpu)->lost_samples += a;
		return;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (size < 32)
			break;
		memcpy(&a, p + 16, 8); /* id */
		ev = hws_perf_reader__attr_by_id(d->r, a);
		record_ev_cpu(d, rec, &ev, &cpu, NULL);
		c = counts_or_dummy(d, ev, cpu);
		if (rec->hdr->type == PERF_RECORD_THROTTLE)
			c->throttle++;
		else
			c->unthrottle++;
		return;
	case PERF_RECORD_AUX:
		if (size < 32)
			break;
		memcpy(&b, p + 16, 8); /* aux_size */
		memcpy(&fl, p + 24, 8);
		record_ev_cpu(d, rec, &ev, &cpu, NULL);
		c = counts_or_dummy(d, ev, cpu);
		c->aux_records++;
		c->aux_bytes += b;
		c->aux_truncated += !!(fl & AUX_FLAG_TRUNCATED);
		c->aux_partial += !!(fl & AUX_FLAG_PARTIAL);
		c->aux_collision += !!(fl & AUX_FLAG_COLLISION);
		c->aux_overwrite += !!(fl & AUX_FLAG_OVERWRITE);
		{
			struct hws_aux *t = aux_tracker(d, cpu < MAX_CPU ? cpu + 1 : 0);
			uint64_t aoff;
			memcpy(&aoff, p + 8, 8);
			if (t)
				hws_aux__note_aux_record(t, aoff, b, fl);
		}
		return;
	default:
		return;
	}
	counts_or_dummy(d, -1, (uint32_t)-1)->errors++;
}

/* Time of a record as the kernel wrote it (sample TIME, or the sample_id trailer of other
 * kernel records), or UINT64_MAX when it has none (user records, no TIME, no trailer). */
static uint64_t record_time(struct hws_decoder *d, const struct hws_perf_record *rec)
{
	const struct perf_event_header *h = rec->hdr;
	size_t es = rec->attr_idx >= 0 ? (size_t)rec->attr_idx + 1 : 1, off;
	const struct ev_state *e;
	uint64_t t;

	if (h->type >= HWS_RECORD_HEADER_ATTR || es >= d->nr_evs)
		return UINT64_MAX;
	e = &d->evs[es];
	if (h->type == PERF_RECORD_SAMPLE) {
		off = e->t_smp;
	} else {
		if (!e->t_back || h->size < sizeof(*h) + e->t_back)
			return UINT64_MAX;
		off = h->size - e->t_back;
	}
	if (!off || off + 8 > h->size)
		return UINT64_MAX;
	memcpy(&t, (const uint8_t *)h + off, 8);
	return t;
}

/*
 * Stable sort of the window's keys by time. A round holds one ring's records, then the next
 * ring's, each already in time order: find those ascending runs and merge them pairwise
 * (a run of equal times stays in file order: ties take the earlier run). One run: nothing to
 * do, which is the common case for single-ring and pipe recordings.
 */
static void merge_runs(const struct win_key *a, size_t na, const struct win_key *b, size_t nb,
		       struct win_key *out)
{
	size_t i = 0, j = 0;

	while (i < na && j < nb)
		*out++ = b[j].time < a[i].time ? b[j++] : a[i++];
	memcpy(out, a + i, (na - i) * sizeof(*a));
	memcpy(out + (na - i), b + j, (nb - j) * sizeof(*b));
}

/* sort keys [from, to) of @d: one round, whose run starts fill_window() noted */
static void sort_window(struct window *d, size_t from, size_t to)
{
	struct win_key *src, *dst, *t;
	size_t *run = d->wruns, n = to - from, nruns = 1, found = d->nruns;

	d->nruns = 0; /* the next round's starts */
	if (n < 2 || !found)
		return; /* also: no arrays yet (NULL) for an empty window */
	src = d->wkey + from;
	dst = d->wtmp + from;
	run[0] = 0;
	/* starts as offsets into the round; one at the round's first record (it began below
	 * the previous round's last time) is run[0] already */
	for (size_t j = 1; j <= found; j++)
		if (run[j] > from)
			run[nruns++] = run[j] - from;
	while (nruns > 1) {
		size_t r, m = 0;

		run[nruns] = n;
		for (r = 0; r + 1 < nruns; r += 2) {
			merge_runs(src + run[r], run[r + 1] - run[r], src + run[r + 1],
				   run[r + 2] - run[r + 1], dst + run[r]);
			run[m++] = run[r];
		}
		if (r < nruns) {
			memcpy(dst + run[r], src + run[r], (n - run[r]) * sizeof(*src));
			run[m++] = run[r];
		}
		nruns = m;
		t = src;
		src = dst;
		dst = t;
	}
	if (src == d->wkey + from)
		return;
	/* the sorted keys ended in the scratch array: when the round starts the window (one
	 * round per window, the usual case) and is its last part (always: rounds are sorted
	 * as they end), the arrays can trade places instead of copying */
	if (!from && to == d->wn) {
		t = d->wkey;
		d->wkey = d->wtmp;
		d->wtmp = t;
	} else {
		memcpy(d->wkey + from, src, n * sizeof(*src));
	}
}

static int win_reserve(struct window *d, size_t bytes)
{
	if (d->wn == d->wcapn) {
		size_t n = d->wcapn ? d->wcapn * 2 : 4096;
		struct win_rec *w = realloc(d->wrec, n * sizeof(*w));
		struct win_key *k;
		size_t *runs;

		if (!w)
			return -ENOMEM;
		d->wrec = w;
		k = realloc(d->wkey, n * sizeof(*k));
		if (!k)
			return -ENOMEM;
		d->wkey = k;
		k = realloc(d->wtmp, n * sizeof(*k));
		if (!k)
			return -ENOMEM;
		d->wtmp = k;
		runs = realloc(d->wruns, (n + 2) * sizeof(*runs));
		if (!runs)
			return -ENOMEM;
		d->wruns = runs;
		d->wcapn = n;
	}
	if (d->wlen + bytes > d->wcap) {
		size_t n = d->wcap ? d->wcap : (size_t)1 << 20;
		uint8_t *b;
		while (n < d->wlen + bytes)
			n *= 2;
		b = realloc(d->wbuf, n);
		if (!b)
			return -ENOMEM;
		d->wbuf = b;
		d->wcap = n;
	}
	return 0;
}

/* Entry @i's sort key (and the window's first offset): a record without a time keeps its
 * place after the previous timed one; one that goes back starts a new ascending run (see
 * sort_window()). */
static inline __attribute__((always_inline)) void win_key_set(struct hws_decoder *d,
							      struct window *win,
							      const struct hws_perf_record *r,
							      size_t i, uint64_t *last_time)
{
	uint64_t t = record_time(d, r);

	if (!i)
		win->first_off = r->file_offset;
	if (t == UINT64_MAX) {
		t = *last_time;
	} else {
		if (t < *last_time)
			win->wruns[1 + win->nruns++] = i;
		*last_time = t;
	}
	win->wkey[i] = (struct win_key){.time = t, .idx = i};
}

/* Append @rec to @win with its sort key: in place when the reader says it stays (stable),
 * else copied. *last_time: the previous timed record's time in this round; a record that
 * goes back starts a new ascending run (see sort_window()). 0 or -ENOMEM. */
static __attribute__((noinline)) int win_add_slow(struct hws_decoder *d, struct window *win,
						  const struct hws_perf_record *r,
						  uint64_t *last_time)
{
	struct win_rec *w;
	size_t need = 16;

	if (!(r->flags & HWS_PERF_REC_HDR_STABLE))
		need += r->hdr->size;
	if (r->payload && !(r->flags & HWS_PERF_REC_PAYLOAD_STABLE))
		need += (size_t)r->payload_size;
	if (win_reserve(win, need))
		return -ENOMEM;
	win_key_set(d, win, r, win->wn, last_time);
	w = &win->wrec[win->wn++];
	w->file_offset = r->file_offset;
	w->attr_idx = r->attr_idx;
	if (r->flags & HWS_PERF_REC_HDR_STABLE) {
		w->hdr = r->hdr;
		win->wref += r->hdr->size;
	} else {
		w->hdr = NULL;
		w->off = win->wlen;
		memcpy(win->wbuf + win->wlen, r->hdr, r->hdr->size);
		win->wlen += (r->hdr->size + 7) & ~(size_t)7;
	}
	w->payload_size = r->payload ? r->payload_size : 0;
	w->payload = NULL;
	if (w->payload_size && (r->flags & HWS_PERF_REC_PAYLOAD_STABLE)) {
		w->payload = r->payload;
		win->wref += (size_t)w->payload_size;
	} else if (w->payload_size) {
		w->payload_off = win->wlen;
		memcpy(win->wbuf + win->wlen, r->payload, (size_t)w->payload_size);
		win->wlen += ((size_t)w->payload_size + 7) & ~(size_t)7;
	}
	return 0;
}

/* win_add_slow() with the common case taken inline (no registers to save): a record in the
 * reader's mapping without a payload, nothing to copy, room for its entry */
static inline __attribute__((always_inline)) int win_add(struct hws_decoder *d, struct window *win,
							 const struct hws_perf_record *r,
							 uint64_t *last_time)
{
	struct win_rec *w;
	size_t i;

	if (__builtin_expect(
		!(r->flags & HWS_PERF_REC_HDR_STABLE) || r->payload || win->wn >= win->wcapn, 0))
		return win_add_slow(d, win, r, last_time);
	i = win->wn++;
	win_key_set(d, win, r, i, last_time);
	w = &win->wrec[i];
	w->hdr = r->hdr;
	w->payload = NULL;
	w->file_offset = r->file_offset;
	w->payload_size = 0;
	w->attr_idx = r->attr_idx;
	win->wref += r->hdr->size;
	return 0;
}

/* user records the reader only moves along: they change nothing dispatching reads */
static bool plain_record(int type)
{
	return type < HWS_RECORD_HEADER_ATTR || type == HWS_RECORD_FINISHED_ROUND ||
	       type == HWS_RECORD_AUXTRACE || type == HWS_RECORD_COMPRESSED ||
	       type == HWS_RECORD_COMPRESSED2;
}

/* read-ahead thread: wait until the dispatcher has finished every window before this one */
static void barrier(struct hws_decoder *d)
{
	pthread_mutex_lock(&d->ra.mu);
	while (!d->ra.main_waiting && !d->ra.stop)
		pthread_cond_wait(&d->ra.cv, &d->ra.mu);
	pthread_mutex_unlock(&d->ra.mu);
}

/*
 * Read one round into the window: up to and including FINISHED_ROUND, the end, a reader
 * error (kept for after the window), or WINDOW_MAX_BYTES; then sort it by time. Records the
 * reader hands out in place (a mapped file: HWS_PERF_REC_*_STABLE) are kept as pointers;
 * others are copied (their pointers only live until the reader's next call).
 * perf sorts the same way (ordered events): with per-CPU rings, a file holds one ring's
 * records before another's, so a sample may come before the MMAP2 that maps its code.
 */
static int fill_window(struct hws_decoder *d, struct window *win)
{
	uint64_t last_time = 0;
	struct hws_perf_record rec;
	size_t seg = 0; /* first record of the round being read */
	int rc;

	win->wlen = win->wn = win->wref = win->nruns = 0;
	win->first_off = UINT64_MAX;
	if (ensure_events(d))
		return -ENOMEM;
	while (win->wlen + win->wref < WINDOW_MAX_BYTES) {
		if (d->threaded) {
			if (__atomic_load_n(&d->ra.stop, __ATOMIC_RELAXED))
				break;
			if (!plain_record(hws_perf_reader__peek_type(d->r)))
				barrier(d);
		}
		rc = hws_perf_reader__next(d->r, &rec);
		if (rc < 0) {
			win->err = rc;
			snprintf(win->errmsg, sizeof(win->errmsg), "%s",
				 hws_perf_reader__errmsg(d->r));
			break;
		}
		if (rc == 0) {
			win->eof = true;
			break;
		}
		/* only user records add events (pipe-mode HEADER_ATTR) */
		if (rec.hdr->type >= HWS_RECORD_HEADER_ATTR && ensure_events(d))
			return -ENOMEM;
		if (rec.hdr->type == HWS_RECORD_HEADER_FEATURE)
			rematch_events(d);
		if (win_add(d, win, &rec, &last_time))
			return -ENOMEM;
		if (rec.hdr->type == HWS_RECORD_FINISHED_ROUND) {
			/* one thread: one round per window. Read-ahead: several rounds (each
			 * sorted on its own) per hand-off, which costs a wake-up on each side;
			 * end at a round before a record that needs the barrier, so earlier
			 * rounds never see its state change (mid-round ones still do, as they
			 * do in one thread for their own round) */
			sort_window(win, seg, win->wn);
			seg = win->wn;
			if (!d->threaded || win->wlen + win->wref >= RA_WINDOW_BYTES ||
			    !plain_record(hws_perf_reader__peek_type(d->r)))
				break;
		}
	}
	sort_window(win, seg, win->wn);
	return 0;
}

static void *readahead_main(void *arg)
{
	struct hws_decoder *d = arg;
	struct readahead *ra = &d->ra;

	pthread_mutex_lock(&ra->mu);
	for (;;) {
		struct window *win;
		int k;

		while (ra->want < 0 && !ra->stop)
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (ra->stop)
			break;
		k = ra->want;
		ra->want = -1;
		pthread_mutex_unlock(&ra->mu);
		win = &d->win[k];
		win->rc = fill_window(d, win);
		pthread_mutex_lock(&ra->mu);
		ra->filled[k] = true;
		pthread_cond_broadcast(&ra->cv);
		if (win->rc || win->err || win->eof)
			break; /* nothing more to read */
	}
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

/*
 * Start the read-ahead thread on window 0; false: read in the caller's thread. Opt-in
 * (opts.read_ahead; the CLI's HWS_DECODE_THREADS=1): on the 2-vCPU development VM it gained up to 1.2x wall in one
 * hour and cost up to 1.7x in the next (when the host placed the vCPUs far apart every
 * window crossed between caches), so one thread stays the measured default.
 */
static bool readahead_start(struct hws_decoder *d)
{
	/* not on pipes: a reader blocked in read() would hold up the end of an early stop */
	if (!d->opts.read_ahead || sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    hws_perf_reader__is_pipe(d->r))
		return false;
	if (pthread_mutex_init(&d->ra.mu, NULL))
		return false;
	if (pthread_cond_init(&d->ra.cv, NULL)) {
		pthread_mutex_destroy(&d->ra.mu);
		return false;
	}
	d->ra.want = 0;
	d->threaded = true;
	if (pthread_create(&d->ra.th, NULL, readahead_main, d)) {
		d->threaded = false;
		pthread_mutex_destroy(&d->ra.mu);
		pthread_cond_destroy(&d->ra.cv);
		return false;
	}
	d->ra.started = true;
	return true;
}

/* the next window to dispatch into d->cur: 0 or -ENOMEM */
static int next_window(struct hws_decoder *d)
{
	int k = d->cur ? d->cur_k ^ 1 : 0;
	struct window *win = &d->win[k];

	if (!d->cur && !d->threaded)
		readahead_start(d);
	if (!d->threaded) {
		win->rc = fill_window(d, win);
	} else {
		pthread_mutex_lock(&d->ra.mu);
		d->ra.main_waiting = true;
		pthread_cond_broadcast(&d->ra.cv);
		while (!d->ra.filled[k])
			pthread_cond_wait(&d->ra.cv, &d->ra.mu);
		d->ra.main_waiting = false;
		d->ra.filled[k] = false;
		/* the window just finished can take the round after this one */
		if (!win->rc && !win->err && !win->eof) {
			d->ra.want = k ^ 1;
			pthread_cond_broadcast(&d->ra.cv);
		}
		pthread_mutex_unlock(&d->ra.mu);
	}
	d->cur = win;
	d->cur_k = k;
	d->wpos = 0;
	d->gen++;
	/* nothing before this window or the oldest held AUX chunk is looked at again (the
	 * read-ahead thread only reads on) */
	hws_perf_reader__release(d->r, d->npend && d->pend[0].file_offset < win->first_off
					   ? d->pend[0].file_offset
					   : win->first_off);
	return win->rc;
}

/* Process one record. Returns 0, the callback's non-zero value, or negative. */
/* a record's dispatch failed (@rc < 0): the run cannot go on */
static int dispatch_err(struct hws_decoder *d, const struct hws_perf_record *rec, int rc)
{
	d->dead = true;
	set_err(d, rc, "offset 0x%" PRIx64 ": record %s: %s", rec->file_offset,
		hws_record__type_name(rec->hdr->type), strerror(-rc));
	return rc;
}

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
		rematch_events(d);
		rc = 0;
		break;
	case HWS_RECORD_AUXTRACE:
		if (!d->host_checked)
			check_host(d);
		rc = do_auxtrace(d, rec);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_AUX:
		do_loss(d, rec);
		rc = 0;
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		do_switch(d, rec);
		rc = 0;
		break;
	default:
		do_sideband(d, rec);
		rc = 0;
		break;
	}
	return rc < 0 ? dispatch_err(d, rec, rc) : rc;
}

/* dispatch(), with SAMPLE records (nearly all of them) taken before its switch */
static inline int dispatch_fast(struct hws_decoder *d, struct hws_perf_record *rec,
				hws_sample_fn fn, void *ctx)
{
	int rc;

	if (__builtin_expect(rec->hdr->type != PERF_RECORD_SAMPLE, 0))
		return dispatch(d, rec, fn, ctx);
	d->nr_records[PERF_RECORD_SAMPLE]++;
	rc = do_sample(d, rec, fn, ctx);
	return rc < 0 ? dispatch_err(d, rec, rc) : rc;
}

/*
 * The @i-th record of @win in time order. What win_add() kept in place (w->hdr, w->payload
 * non-NULL) is the reader's stable memory and keeps its HWS_PERF_REC_*_STABLE flag, so
 * aux_hold() holds such a payload without copying it; a copy in wbuf lives only as long as
 * the window and has no flag.
 */
static inline struct hws_perf_record win_record(const struct window *win, size_t i)
{
	const struct win_rec *w = &win->wrec[win->wkey[i].idx];

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

/*
 * Unordered delivery (opts.unordered): samples go to the callback in file order, as the
 * reader hands them out, without passing through the window; every other record (sideband,
 * loss, user records) still goes through the window d->win[0], one round at a time, and is
 * dispatched sorted by time at the round's end (or the end of the data, or before a reader
 * error), so the symbol tables end in the same state as in time order. Only for files
 * without AUX data (whose decoding follows context switches in time) and not for pipes
 * (whose events may only be known later).
 */
static bool direct_mode(struct hws_decoder *d)
{
	if (!d->direct_checked) {
		d->direct_checked = true;
		d->direct = d->opts.unordered && !hws_perf_reader__is_pipe(d->r) &&
			    !ensure_events(d) && aux_event(d) < 0;
	}
	return d->direct;
}

/* dispatch the held non-sample records of the direct mode in time order, then let the reader
 * drop what lies before @upto (nothing before it is referenced any more) */
static int side_flush(struct hws_decoder *d, uint64_t upto)
{
	struct window *side = &d->win[0];
	int rc = 0;

	sort_window(side, 0, side->wn);
	for (size_t i = 0; i < side->wn && !rc; i++) {
		struct hws_perf_record rec = win_record(side, i);

		rc = dispatch(d, &rec, NULL, NULL); /* no samples here: no callback */
	}
	side->wlen = side->wn = side->wref = side->nruns = 0;
	side->first_off = UINT64_MAX;
	d->side_last = 0;
	hws_perf_reader__release(d->r, upto);
	return rc;
}

static int run_direct(struct hws_decoder *d, hws_sample_fn fn, void *ctx)
{
	struct window *side = &d->win[0];
	struct hws_perf_record rec;
	int rc, frc;

	while ((rc = hws_perf_reader__next(d->r, &rec)) > 0) {
		if (rec.hdr->type == PERF_RECORD_SAMPLE) {
			rc = dispatch_fast(d, &rec, fn, ctx);
			if (rc)
				return rc;
			if (!(++d->direct_n & 0xffff))
				hws_perf_reader__release(d->r, side->wn ? side->first_off
									: rec.file_offset);
			continue;
		}
		/* only user records add events (pipe-mode HEADER_ATTR) */
		if ((rec.hdr->type >= HWS_RECORD_HEADER_ATTR && ensure_events(d)) ||
		    win_add(d, side, &rec, &d->side_last)) {
			rc = -ENOMEM;
			break;
		}
		if (rec.hdr->type == HWS_RECORD_FINISHED_ROUND ||
		    side->wlen + side->wref >= WINDOW_MAX_BYTES) {
			rc = side_flush(d, rec.file_offset);
			if (rc)
				return rc;
		}
	}
	/* the end, or an error: what was read before it is applied first */
	frc = side_flush(d, UINT64_MAX);
	if (frc)
		return frc;
	if (rc < 0) {
		d->dead = true;
		if (rc == -ENOMEM)
			set_err(d, rc, "out of memory");
		else
			set_err(d, rc, "%s", hws_perf_reader__errmsg(d->r));
	}
	return rc;
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

		if (win && d->wpos < win->wn) {
			struct hws_perf_record rec = win_record(win, d->wpos++);

			rc = dispatch_fast(d, &rec, fn, ctx);
			if (rc)
				return rc;
			continue;
		}
		/* the window is done: chunks held from the one before can be decoded now; at the
		 * end or before an error, all of them */
		if (win && d->npend) {
			rc = aux_run(d, win->err || win->eof ? UINT64_MAX : d->gen);
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
		if (next_window(d)) {
			d->dead = true;
			set_err(d, -ENOMEM, "out of memory");
			return -ENOMEM;
		}
	}
	if (!d->flushed) {
		d->flushed = true;
		rc = aux_flush_all(d);
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
