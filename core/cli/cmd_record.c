// SPDX-License-Identifier: MIT
/*
 * hwsample [record]: encode events with a backend, open them in one of perf's four modes,
 * drain the rings into a perf.data file until the workload ends or SIGINT/SIGTERM arrives,
 * then finish the file and print a summary with the loss of every event and CPU.
 *
 * The command runs in phases: prepare() (arguments, config file, backends, events: nothing
 * opened yet), open_session() (signals, the held workload, the events; --dry-run ends
 * there), open_output() (the file, its attrs and side-band), record_loop() (the workload
 * released, the rings drained until it ends) and finish() (the file completed, the
 * summary, the exit status); failed() is the way out of any of them after an error. The
 * other record files (see record.h) hold the argument parser, the config and job logic, the
 * workload and the status line.
 *
 * Invariants:
 *  - Nothing is opened or written before every argument, config value and event has been
 *    validated.
 *  - Command line > backend section > [run] > defaults, for every value (record_jobs.c).
 *  - The status line is erased before anything else is printed to stderr (record_status.c).
 *  - Once the output file exists, every exit path closes it (finish() or failed()): the
 *    file is always completed (header, attrs, features) so perf and hwsample can read it.
 *  - Signal handlers only set flags; all work happens in the main loop (record_loop()).
 *  - The workload's process group does not outlive the run (workload.c); once the
 *    recording succeeded, hwsample's exit status is the workload's, as perf record's.
 *  - In pipe mode nothing but the perf.data stream reaches stdout, and everything a reader
 *    needs to decode a sample (attrs, features, tracepoint formats) comes before it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwsample/aux.h>
#include <hwsample/perfdata.h>
#include <hwsample/session.h>
#include <hwsample/symbols.h>
#include <hwsample/synth.h>
#include <hwsample/tracing.h>

#include "record.h"

/* pipe mode: the build-ids of the files @h hit first, as HEADER_BUILD_ID records before it
 * (a file has its HEADER_BUILD_ID section only at its end) */
static int write_build_id_records(struct record *r)
{
	uint8_t buf[4196];
	int n, ret = 0;

	while (!ret && (n = hws_buildid_hits__next_record(
			    r->hits, r->no_buildid_cache ? "" : hws_cli__buildid_dir(), buf,
			    sizeof(buf))) > 0) {
		ret = hws_perf_writer__write(r->w, buf, (size_t)n);
		r->bytes += (uint64_t)n;
	}
	return ret;
}

static int write_record(void *ctx, int cpu, const struct perf_event_header *h)
{
	struct record *r = ctx;
	int ret;

	if (r->hits && hws_buildid_hits__record(r->hits, h) == -ENOMEM) {
		hws_buildid_hits__delete(r->hits); /* no build-ids rather than no recording */
		r->hits = NULL;
	}
	ret = r->hits && r->pipe_out ? write_build_id_records(r) : 0;
	if (!ret)
		ret = hws_perf_writer__write(r->w, h, h->size);
	if (ret < 0) {
		r->write_err = ret;
		return ret;
	}
	r->bytes += h->size;
	r->wrote_since_round = true;
	return 0;
}

static int write_auxtrace(void *ctx, const struct hws_aux_out *out)
{
	struct record *r = ctx;
	static const uint64_t zeros[1];
	int ret = hws_perf_writer__write(r->w, &out->ev, sizeof(out->ev));

	if (!ret && out->len[0])
		ret = hws_perf_writer__write(r->w, out->data[0], out->len[0]);
	if (!ret && out->len[1])
		ret = hws_perf_writer__write(r->w, out->data[1], out->len[1]);
	if (!ret && out->pad)
		ret = hws_perf_writer__write(r->w, zeros, out->pad);
	if (ret < 0) {
		r->write_err = ret;
		return ret;
	}
	r->bytes += sizeof(out->ev) + out->len[0] + out->len[1] + out->pad;
	r->wrote_since_round = true;
	return 0;
}

/* AUX sessions: TIME_CONV (from the mmap page) and AUXTRACE_INFO (from the backend), which
 * perf needs before the first AUXTRACE record to decode the AUX data. */
static int write_aux_headers(struct record *r, struct hws_registry *reg)
{
	const struct perf_event_mmap_page *pc = hws_session__control_page(r->sess);

	/* TIME_CONV first: perf (6.1) takes the conversion when it reads AUXTRACE_INFO */
	if (pc && pc->cap_user_time_zero) {
		struct {
			struct perf_event_header h;
			uint64_t time_shift, time_mult, time_zero, time_cycles, time_mask;
			uint8_t cap_user_time_zero, cap_user_time_short, reserved[6];
		} tc;
		memset(&tc, 0, sizeof(tc));
		tc.h.type = HWS_RECORD_TIME_CONV;
		tc.h.size = sizeof(tc);
		tc.time_shift = pc->time_shift;
		tc.time_mult = pc->time_mult;
		tc.time_zero = pc->time_zero;
		tc.time_cycles = pc->time_cycles;
		tc.time_mask = pc->time_mask;
		tc.cap_user_time_zero = 1;
		tc.cap_user_time_short = pc->cap_user_time_short;
		if (hws_perf_writer__write(r->w, &tc, sizeof(tc)) < 0)
			return -EIO;
	}
	for (int e = 0; e < hws_session__nr_events(r->sess); e++) {
		struct hws_backend *b =
		    hws_registry__find(reg, hws_session__event_backend(r->sess, e));
		struct {
			struct perf_event_header h;
			uint32_t type, reserved;
			uint64_t priv[64];
		} info;
		int n;

		if (!(hws_session__event_flags(r->sess, e) & HWS_EVF_AUX) || !b ||
		    !HWS_OPS_HAS(b->ops, auxtrace_info))
			continue;
		memset(&info, 0, sizeof(info));
		n = b->ops->auxtrace_info(b->priv, hws_session__attr(r->sess, e), !r->per_thread,
					  &info.type, info.priv, 64);
		if (n < 0)
			return n;
		info.h.type = HWS_RECORD_AUXTRACE_INFO;
		info.h.size = (uint16_t)(16 + 8 * n);
		if (hws_perf_writer__write(r->w, &info, info.h.size) < 0)
			return -EIO;
		break; /* one per file, as perf */
	}
	return 0;
}

static int write_synth(void *ctx, const void *rec, size_t len)
{
	return write_record(ctx, -1, rec);
}

/* Tracepoint formats (HEADER_TRACING_DATA), so perf script and hwsample dump can name the
 * fields of tracepoint samples. */
static void add_tracing_data(struct record *r)
{
	const struct hws_perf_event_attr *attrs[64];
	int na = hws_session__nr_events(r->sess);
	void *td = NULL;
	size_t tdlen = 0;

	int terr;

	for (int e = 0; e < na && e < 64; e++)
		attrs[e] = hws_session__attr(r->sess, e);
	terr = hws_tracing_data__build(attrs, na < 64 ? na : 64, &td, &tdlen);
	if (!terr && tdlen)
		hws_perf_writer__set_feature(r->w, HWS_FEAT_TRACING_DATA, td, tdlen);
	else if (terr)
		fprintf(stderr,
			"hwsample: the tracepoint formats are not in %s (%s%s): perf script and "
			"hwsample dump will not name the tracepoint fields\n",
			hws_cli__text(r->output), strerror(-terr),
			terr == -EACCES ? " reading tracefs: run as root" : "");
	free(td);
}

static int finished_round(struct record *r)
{
	struct perf_event_header h = {
	    .type = HWS_RECORD_FINISHED_ROUND, .misc = 0, .size = sizeof(h)};
	int ret;

	if (!r->wrote_since_round || r->write_err)
		return 0;
	r->wrote_since_round = false;
	/* then flush: a pipe reader (-o - | hwsample dump -i -) sees each round as it
	 * completes, and a file's header names it (a recorder killed later leaves it readable) */
	ret = hws_perf_writer__write(r->w, &h, sizeof(h));
	if (!ret)
		ret = hws_perf_writer__flush(r->w);
	/* a file: the error ends the run, saying what the file holds (record__write_failed()); a
	 * pipe: -EPIPE, the reader went away */
	if (ret < 0)
		r->write_err = ret;
	return ret;
}

static int drain(struct record *r)
{
	int64_t n = r->overwrite ? 0 : hws_session__read(r->sess, write_record, r);

	if (n < 0)
		return (int)n;
	return finished_round(r);
}

/* What the phases of one run pass on to the next (struct record holds what the other
 * record files use too). */
struct run {
	struct hws_registry *reg;
	const char *owner[MAX_ALL_EVENTS]; /* the backend that encoded each event */
	int base_of[MAX_ALL_EVENTS];	   /* the group leader of each event */
	int nall;			   /* events encoded (in all_events[]) */
	pid_t target;	       /* the workload, when it is what is profiled (no -p/-a/-C) */
	bool profile_workload; /* the workload is profiled from its exec, not only timed */
	bool enable_on_exec;   /* its events start at its exec */
	bool started;	       /* the workload was released: the file holds a recording */
	bool moved_old;	       /* a previous output file was renamed to old_path */
	bool runtime_err;      /* failed(): exit 1, whatever the error code would say */
	bool timed_out;	       /* --duration ended the recording */
	bool reraise;	       /* the terminal's Ctrl-C ended the workload: end us with SIGINT */
	int exit_code;
	char old_path[PATH_MAX];
	char err[2048]; /* what failed() prints */
};

/* a phase's return: stop here with run.exit_code (else 0: go on, < 0: failed()) */
#define RUN_DONE 1

static struct hws_event_desc all_events[MAX_ALL_EVENTS];

static int run_done(struct run *u, int exit_code)
{
	u->exit_code = exit_code;
	return RUN_DONE;
}

/* Arguments, config file, backends and events: all validated, nothing opened yet. */
static int prepare(struct hws_cli *cli, struct record *r, struct run *u, int argc, char **argv)
{
	int ret;

	if (record__parse_args(r, argc, argv))
		return run_done(u, HWS_EXIT_USAGE);
	u->reg = hws_cli__registry(cli);
	if (!u->reg)
		return run_done(u, HWS_EXIT_ERROR);
	if (r->config_path) {
		ret = record__load_config(r, u->reg);
		if (ret)
			return run_done(u, hws_cli__exit_code(ret));
	}
	r->pipe_out = !strcmp(r->output, "-");
	if (r->pipe_out && !r->dry_run && record__check_stdout(cli))
		return run_done(u, HWS_EXIT_USAGE);
	/* which backends (and PMUs, and config sections) to encode with, and their events */
	ret = record__select_jobs(r, u->reg);
	if (!ret)
		ret = record__encode(r, u->reg, all_events, u->owner, u->base_of, &u->nall);
	if (ret)
		return run_done(u, ret);
	/* with -p, -a or -C the workload only times the run (perf record -p PID -- sleep 1):
	 * their events are enabled at once; otherwise the workload is profiled from its exec */
	u->profile_workload = !r->nr_pids && !r->system_wide && !r->cpu_list;
	u->enable_on_exec = r->argc > 0 && u->profile_workload;
	ret = record__objects_check(r, u->profile_workload);
	if (ret)
		return run_done(u, ret);
	/* --objects: sample times on the allocation records' clock (perf record -k mono) */
	for (int k = 0; r->objects > 0 && k < u->nall; k++) {
		all_events[k].attr.use_clockid = 1;
		all_events[k].attr.clockid = CLOCK_MONOTONIC;
	}
	return 0;
}

/* Signals, the workload (forked, held until record_loop()) and the session with every
 * event; --dry-run prints them and stops here. */
static int open_session(struct record *r, struct run *u)
{
	struct hws_session_opts so = {
	    .sz = sizeof(so),
	    .per_thread = r->per_thread,
	    .system_wide = r->system_wide,
	    .cpu_list = r->cpu_list,
	    .no_inherit = r->no_inherit,
	    .mmap_pages = r->pages,
	    .aux_pages = r->aux_pages,
	    .overwrite = r->overwrite,
	    .aux_snapshot = r->snapshot,
	    .want_data_mmaps = r->data_addr,
	    .call_graph = r->call_graph,
	    .stack_size = r->cg_stack_size,
	    .enable_on_exec = u->enable_on_exec,
	};
	int ret;

	if (!r->dry_run) {
		record__install_signals(r);
		if (r->argc) {
			r->tty_fd = workload__controlling_tty();
			ret = record__objects_start(r, u->err, sizeof(u->err));
			if (ret)
				return ret;
			ret = workload__start(r, u->err, sizeof(u->err));
			record__objects_forked(r);
			if (ret)
				return ret;
			if (u->profile_workload)
				u->target = r->child;
		}
	} else if (u->profile_workload) {
		u->target = getpid(); /* stands for the workload: nothing is opened */
	}
	so.pids = u->target ? &u->target : r->pids;
	so.nr_pids = u->target ? 1 : r->nr_pids;
	r->sess = hws_session__new(&so);
	if (!r->sess)
		return -ENOMEM;
	for (int k = 0; k < u->nall; k++) {
		ret = hws_session__add_event(r->sess, &all_events[k], u->owner[k], u->base_of[k]);
		if (ret < 0)
			return ret;
	}
	if (r->dry_run) {
		ret = hws_session__prepare(r->sess, u->err, sizeof(u->err));
		if (ret)
			return ret;
		record__print_dry_run(r, u->reg);
		return run_done(u, HWS_EXIT_OK);
	}
	return hws_session__open(r->sess, u->err, sizeof(u->err));
}

/* The output file (a previous one kept as FILE.old, as perf does), its event list, the
 * AUX headers and the side-band of what already exists. */
static int open_output(struct record *r, struct run *u)
{
	int ret;

	if (strcmp(r->output, "-")) {
		struct stat st;
		snprintf(u->old_path, sizeof(u->old_path), "%s.old", r->output);
		if (!stat(r->output, &st) && S_ISREG(st.st_mode))
			u->moved_old = !rename(r->output, u->old_path);
	}
	r->w = hws_perf_writer__new(r->output, false);
	if (!r->w) {
		ret = -errno;
		u->runtime_err = true;
		if (errno == ELOOP)
			snprintf(u->err, sizeof(u->err),
				 "cannot create %s: it is a symbolic link (hwsample never writes "
				 "through one): remove it or name a regular file",
				 r->output);
		else
			snprintf(u->err, sizeof(u->err), "cannot create '%s': %s",
				 hws_cli__text(r->output), strerror(errno));
		return ret < 0 ? ret : -EIO;
	}
	/* as perf record: the build-ids of the files samples hit, found at the end (a pipe:
	 * HEADER_BUILD_ID records, each before the first sample that hits its file) */
	if (!r->no_buildid)
		r->hits = hws_buildid_hits__new();
	for (int e = 0; e < hws_session__nr_events(r->sess); e++) {
		size_t nids;
		const uint64_t *ids = hws_session__ids(r->sess, e, &nids);
		ret = hws_perf_writer__add_attr(r->w, hws_session__attr(r->sess, e),
						hws_session__event_name(r->sess, e), ids, nids);
		if (!ret && r->hits)
			ret = hws_buildid_hits__add_attr(r->hits, hws_session__attr(r->sess, e),
							 ids, nids);
		if (ret < 0) {
			snprintf(u->err, sizeof(u->err), "writing the event list: %s",
				 strerror(-ret));
			return ret;
		}
	}
	/* pipe mode: the tracepoint formats go before the first sample, so that a reader can
	 * decode the samples' raw fields (a file gets them at the end, as perf record does) */
	if (r->pipe_out)
		add_tracing_data(r);

	if (hws_session__has_aux(r->sess)) {
		hws_session__set_aux_writer(r->sess, write_auxtrace, r);
		ret = write_aux_headers(r, u->reg);
		if (ret < 0) {
			snprintf(u->err, sizeof(u->err), "writing the AUX headers: %s",
				 strerror(-ret));
			u->runtime_err = true;
			return ret;
		}
	}

	/* side-band for what already exists */
	size_t nids;
	const uint64_t *ids = hws_session__ids(r->sess, 0, &nids);
	uint64_t id0 = nids ? ids[0] : 0;
	const struct hws_perf_event_attr *a0 = hws_session__attr(r->sess, 0);

	hws_synth__kernel_mmap(a0, id0, write_synth, r);
	if (r->system_wide || r->cpu_list)
		hws_synth__threads(a0, id0, -1, r->data_addr, write_synth, r);
	else if (!u->profile_workload)
		for (int i = 0; i < r->nr_pids; i++)
			hws_synth__threads(a0, id0, r->pids[i], r->data_addr, write_synth, r);
	finished_round(r);
	return 0;
}

/* Release the workload and drain the rings until it ends, --duration is over, a signal
 * arrives, the targets are gone or the output fails. */
static int record_loop(struct record *r, struct run *u)
{
	int ret;

	/* per-task events on a workload start at its exec (enable_on_exec); everything else
	 * is enabled here, before the workload is released */
	if (!u->enable_on_exec)
		hws_session__enable(r->sess);
	if (r->argc && !r->write_err) { /* (-o -: a reader gone already stops the run) */
		ret = workload__go(r, u->err, sizeof(u->err));
		if (ret) {
			u->runtime_err = true;
			return ret;
		}
	}
	u->started = true;
	r->t0 = r->st_last = now_s();
	record__status_start(r);

	while (!record_done_sig && !r->write_err) {
		int wait_ms = 200;
		if (r->duration > 0) {
			double left = r->t0 + r->duration - now_s();
			if (left <= 0) {
				u->timed_out = true;
				break;
			}
			if (left * 1000 < wait_ms)
				wait_ms = (int)(left * 1000) + 1;
		}
		int p = hws_session__poll(r->sess, wait_ms);
		record__status_line(r, false);
		if (drain(r) < 0)
			break;
		if (record_snapshot_req) {
			record_snapshot_req = 0;
			if (r->overwrite)
				hws_session__read_overwrite(r->sess, write_record, r);
			if (r->snapshot)
				hws_session__aux_snapshot(r->sess);
			finished_round(r);
		}
		if (r->pgid > 0 && record_child_exited) {
			record_child_exited = 0;
			workload__reap(r);
			if (r->child_done)
				break;
		}
		/* our group has the terminal again (fg after Ctrl-Z or bg): it goes back to the
		 * workload, which continues if it stopped for it (SIGTTIN) */
		record_cont_req = 0;
		if (r->pgid > 0 && r->tty_fd >= 0 && tcgetpgrp(r->tty_fd) == getpgrp())
			workload__resume(r);
		if (r->pipe_out && record__stdout_reader_gone()) {
			r->pipe_gone = true;
			break;
		}
		if (r->nr_pids) {
			bool alive = false;
			for (int i = 0; i < r->nr_pids; i++)
				alive |= !kill(r->pids[i], 0) || errno != ESRCH;
			if (!alive)
				break;
		}
		if (p == -EHOSTDOWN && !r->system_wide && !r->cpu_list) {
			/* every target exited; the workload's leader hangs its events up just
			 * before it becomes waitable: its status is moments away */
			if (u->profile_workload)
				workload__wait_leader(r, STOP_GRACE_S);
			break;
		}
	}
	record__status_stop(r);
	return 0;
}

/* HEADER_BUILD_ID: the kernel's and the sampled files' build-ids, each file copied to the
 * build-id cache (unless -N); empty with -B, as perf record -B leaves it */
static void add_build_ids(struct record *r)
{
	struct hws_buildid_hits_stats st;
	int err;

	if (r->no_buildid) {
		hws_perf_writer__set_feature(r->w, HWS_FEAT_BUILD_ID, NULL, 0);
		return;
	}
	if (!r->hits || r->pipe_out)
		return;
	err = hws_buildid_hits__finish(r->hits, r->w,
				       r->no_buildid_cache ? "" : hws_cli__buildid_dir(), &st);
	if (err && r->verbose)
		fprintf(stderr, "hwsample: build-ids of the sampled files not written (%s)\n",
			strerror(-err));
	else if (r->verbose && (st.no_build_id || st.cache_failed))
		fprintf(stderr,
			"hwsample: %u sampled files listed by build-id, %u without one; %u "
			"copied to the build-id cache, %u not\n",
			st.entries, st.no_build_id, st.cached, st.cache_failed);
}

/* Stop, drain what is left, complete the file (its features record @argv), print the
 * summary; the exit status is the workload's. */
static int finish(struct record *r, struct run *u, int argc, char **argv)
{
	struct hws_perf_writer_stats wst;
	uint64_t fsize;
	int ret, exit_code;

	if (r->pipe_out && r->write_err == -EPIPE)
		r->pipe_gone = true;
	if (r->pipe_gone)
		fprintf(stderr, "hwsample: the reader of the output pipe went away: stopping\n");
	hws_session__disable(r->sess);
	if (r->overwrite)
		hws_session__read_overwrite(r->sess, write_record, r);
	drain(r);
	if (r->snapshot)
		hws_session__aux_snapshot(r->sess); /* the final snapshot, at exit */
	finished_round(r);
	workload__stop(r);
	if (!r->pipe_out)
		add_tracing_data(r);
	record__objects_finish(r);
	{
		char *argv_copy[256];
		int n = argc < 255 ? argc : 255;
		for (int i = 0; i < n; i++)
			argv_copy[i] = argv[i];
		argv_copy[n] = NULL;
		hws_perf_writer__add_host_features(r->w, n, argv_copy,
						   r->objects > 0 ? CLOCK_MONOTONIC : -1);
	}
	add_build_ids(r);
	fsize = hws_perf_writer__data_size(r->w);
	hws_perf_writer__stats(r->w, &wst); /* complete: the last round flushed */
	ret = hws_perf_writer__close(r->w);
	r->w = NULL;
	if (r->pipe_out && (r->pipe_gone || ret == -EPIPE)) {
		if (!r->pipe_gone)
			fprintf(stderr, "hwsample: the reader of the output pipe went away\n");
		return run_done(u, HWS_EXIT_ERROR); /* the stream is incomplete */
	}
	if (!r->no_buildid_cache && !r->no_buildid) {
		/* as perf record: the kernel's kallsyms kept by build-id, unless already there */
		int cerr = hws_buildid_cache__add_kernel(hws_cli__buildid_dir());

		/* quietly when there is nothing to copy (no build-id, kptr_restrict) */
		if (cerr && cerr != -ENOENT && cerr != -EPERM && r->verbose)
			fprintf(stderr,
				"hwsample: kallsyms not copied to the build-id cache (%s); "
				"kernel names of this file need this boot's /proc/kallsyms\n",
				strerror(-cerr));
	}
	if (!wst.pipe && (r->write_err || ret < 0)) {
		record__write_failed(r, r->write_err ? r->write_err : ret, &wst, u->err,
				     sizeof(u->err));
		u->runtime_err = true;
		return r->write_err ? r->write_err : ret;
	}
	if (ret < 0) {
		snprintf(u->err, sizeof(u->err), "finishing %s: %s", r->output, strerror(-ret));
		return ret;
	}
	if (r->write_err) {
		snprintf(u->err, sizeof(u->err),
			 "writing %s failed (%s): the file holds what was written before the error",
			 r->output, strerror(-r->write_err));
		return r->write_err;
	}
	{
		struct stat st;
		if (strcmp(r->output, "-") && !stat(r->output, &st))
			fsize = (uint64_t)st.st_size;
	}
	if (!r->quiet)
		record__print_summary(r, fsize);
	record__objects_done(r, true);
	if (record_done_sig && !r->quiet)
		fprintf(stderr, "  (stopped by signal %d; the file is complete)\n",
			(int)record_done_sig);
	else if (u->timed_out && !r->quiet)
		fprintf(stderr, "  (stopped after %g s (duration); the file is complete)\n",
			r->duration);
	if (r->child_done && !r->quiet)
		workload__print_end(r);
	/* the workload's status, as perf record; --duration ending it is a success, as
	 * perf stat --timeout */
	exit_code = HWS_EXIT_OK;
	if (r->child_done && !(u->timed_out && r->killed_by_us))
		exit_code = workload__exit_code(r->wstatus);
	/* Ctrl-C, which reached only the workload */
	u->reraise = r->child_done && r->tty_given && !r->killed_by_us && WIFSIGNALED(r->wstatus) &&
		     WTERMSIG(r->wstatus) == SIGINT;
	return run_done(u, exit_code);
}

/* The way out after error @ret of a phase: the message, the exit code, no output file when
 * nothing was recorded (a previous one put back), the workload stopped. */
static void failed(struct record *r, struct run *u, int ret)
{
	fprintf(stderr, "hwsample: %s\n",
		hws_cli__text_lines(*u->err ? hws_cli__lib_text(u->err) : "recording failed"));
	u->exit_code = u->runtime_err ? HWS_EXIT_ERROR : hws_cli__exit_code(ret);
	if (r->w) {
		hws_perf_writer__close(r->w);
		r->w = NULL;
		/* nothing was recorded: leave no file, and put back the one we moved */
		if (!u->started && strcmp(r->output, "-")) {
			unlink(r->output);
			record__objects_abandon(r);
			if (u->moved_old)
				rename(u->old_path, r->output);
		}
	}
	workload__stop(r);
}

int cmd_record(struct hws_cli *cli, int argc, char **argv)
{
	struct record rec = {.output = "hwsample.data",
			     .objects = -1,
			     .cork_fd = -1,
			     .exec_status_fd = -1,
			     .tty_fd = -1,
			     .verbose = cli->verbose};
	struct record *r = &rec;
	struct run u = {.exit_code = HWS_EXIT_ERROR};
	int ret;

	ret = prepare(cli, r, &u, argc, argv);
	if (!ret)
		ret = open_session(r, &u);
	if (!ret)
		ret = open_output(r, &u);
	if (!ret)
		ret = record_loop(r, &u);
	if (!ret)
		ret = finish(r, &u, argc, argv);
	if (ret < 0)
		failed(r, &u, ret);

	hws_buildid_hits__delete(r->hits);
	hws_session__delete(r->sess);
	hws_config__delete(r->cfg);
	hws_config__delete(r->over);
	for (int i = 0; i < r->nr_events; i++)
		free(r->events[i]);
	for (int i = 0; i < r->nr_controls; i++)
		free((char *)r->controls[i].key);
	record__restore_signals(r);
	if (u.reraise)
		kill(0, SIGINT); /* ends us too, unless SIGINT was ignored when we started */
	return u.exit_code;
}
