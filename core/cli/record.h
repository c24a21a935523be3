/* SPDX-License-Identifier: MIT */
/*
 * hwsample record, private to its files: struct record (one run of the command: what the
 * command line and the config file asked for, the session, the output and the workload),
 * the limits, and what each file gives the others:
 *   record_args.c   usage text and the command line (getopt_long) into struct record
 *   record_jobs.c   the config file, the backends and jobs, option checks, event encoding,
 *                   the --dry-run listing
 *   workload.c      signals, the workload's process group and the terminal, stdout checks
 *   record_status.c the status line, the summary, loss words, write-failure messages
 *   record_objects.c --objects: the allocation recorder preloaded into the workload
 *   cmd_record.c    the command: its phases, the ring drain and the perf.data writes
 *
 * Invariants: see cmd_record.c; every function here prints its own message (this is the
 * CLI) and returns non-zero after it.
 */
#ifndef HWS_CLI_RECORD_H
#define HWS_CLI_RECORD_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <hwsample/config.h>
#include <hwsample/perfdata.h>
#include <hwsample/session.h>

#include "cli.h"

#define MAX_EVENTS     32 /* -e events */
#define MAX_CONTROLS   64 /* KEY=VALUE controls */
#define MAX_PIDS       64 /* -p pids */
#define MAX_JOBS       16 /* backends (and PMUs, and sections) in one run */
#define MAX_ALL_EVENTS 64 /* events of all jobs, as encoded */

/* A workload that is stopped gets SIGTERM, then SIGKILL after this many seconds. */
#define STOP_GRACE_S 2.0

/* One backend (and PMU) to encode events with, from -b or a config section. */
struct job {
	struct hws_backend *b;
	const char *pmu;		      /* NULL: the backend's default PMU */
	const struct hws_config_section *sec; /* NULL: no config section */
	int first_event, nr_events;	      /* its events in the session */
	char pmu_buf[HWS_PMU_NAME_MAX];
};

struct record {
	const char *backend;
	char *events[MAX_EVENTS];
	int nr_events;
	struct hws_control controls[MAX_CONTROLS];
	int nr_controls;
	uint64_t freq, period;
	bool system_wide, per_thread, no_inherit, overwrite, snapshot, dry_run, quiet;
	bool data_addr, phys_data;
	int call_graph;		    /* -g / --call-graph: enum hws_call_graph */
	uint32_t cg_stack_size;	    /* --call-graph dwarf,SIZE */
	const char *call_graph_arg; /* as given ("fp", "dwarf,4096"), for the config notes */
	bool c2c;	/* hidden --c2c (from `hwsample c2c record`): HWS_REQ_C2C to the backends */
	bool ldlat_set; /* hidden --ldlat N (from `hwsample c2c record`): HWS_REQ_LDLAT */
	uint32_t ldlat;
	const char *cpu_list;
	pid_t pids[MAX_PIDS];
	int nr_pids;
	unsigned int pages, aux_pages;
	const char *output;
	char **argv; /* workload */
	int argc;
	double duration; /* seconds, 0 = until the workload ends */
	bool no_status, output_given;
	bool no_buildid_cache;	       /* -N: no kallsyms copy in perf's build-id cache */
	bool no_buildid;	       /* -B: no HEADER_BUILD_ID entries, no cache copies */
	struct hws_buildid_hits *hits; /* the files samples hit (unless -B) */
	int verbose;
	const char *config_path;
	struct hws_config *over; /* command-line values as config items ("command line") */
	struct hws_config *cfg;	 /* the file, with the command line merged in */
	struct job jobs[MAX_JOBS];
	int nr_jobs;

	/* status line (stderr is a terminal) */
	bool status_on, status_shown;
	double t0, st_last;
	uint64_t st_last_samples;

	struct hws_session *sess;
	struct hws_perf_writer *w;
	pid_t child;
	int cork_fd;
	int exec_status_fd;
	uint64_t bytes;
	int write_err;
	bool wrote_since_round;
	bool pipe_out;	/* -o -: the stream goes to stdout */
	bool pipe_gone; /* its reader went away (EPIPE) */

	/* the workload (see workload.c) */
	pid_t pgid;	   /* its process group (the child's pid), 0 once ended */
	int tty_fd;	   /* our controlling terminal (fd 0, 2 or 1), or -1 */
	bool tty_given;	   /* the workload's group got the terminal (foreground) */
	bool child_done;   /* the child ended and was reaped: wstatus holds how */
	bool stopping;	   /* workload__stop() runs: no job control meanwhile */
	bool killed_by_us; /* it was still running when the recording stopped */
	int leftovers;	   /* its group outlived it: 1 ended by SIGTERM, 2 by SIGKILL */
	int wstatus;
	/* --objects (record_objects.c): -1 default (off), 0 off, 1 on, 2 auto (c2c) */
	int objects;
	uint64_t objects_min;	    /* 0: 1024 */
	unsigned int objects_depth; /* 0: HWS_OBJ_FRAMES */
	char objects_dir[PATH_MAX]; /* FILE.objects, once created */
	char objects_old_preload[4096];
	bool objects_env_saved, objects_keep_dir;
	uint64_t objects_recs, objects_dropped;
	bool objects_nospace; /* a process's records met a full file system (some dropped) */
	size_t objects_procs;
	struct sigaction saved_sa[8]; /* dispositions of the handled signals at start */
	bool sa_saved;
};

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline unsigned int round_pow2(uint64_t v)
{
	unsigned int p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* ---- record_args.c ---- */

/* The command line into @r (argv[0] is the command's name); nothing opened. 0, or -1 after
 * the message (a usage error). -h prints the usage and exits 0. */
int record__parse_args(struct record *r, int argc, char **argv);

/* ---- record_jobs.c ---- */

/* -c FILE: load it, let the command line override it, validate it against @reg's backends
 * and take its [run] values. 0 or an error (HWS_E_* / -errno) after the message. */
int record__load_config(struct record *r, struct hws_registry *reg);

/* The jobs (backends, PMUs, config sections) to encode with, refusing options they cannot
 * honour and (unless --dry-run) backends not usable here. 0 or an HWS_EXIT_* code. */
int record__select_jobs(struct record *r, struct hws_registry *reg);

/* Encode the events of every job into @all (MAX_ALL_EVENTS entries; @owner: the backend
 * that encoded each, @base_of: its group leader) and check --phys-data against them.
 * 0 or an HWS_EXIT_* code. */
int record__encode(struct record *r, struct hws_registry *reg, struct hws_event_desc *all,
		   const char **owner, int *base_of, int *nall);

/* --dry-run: every event's attr (and, with a config file, where each value came from) */
void record__print_dry_run(struct record *r, struct hws_registry *reg);

/* ---- workload.c ---- */

/* set by the signal handlers (see record__install_signals()), read by the main loop */
extern volatile sig_atomic_t record_done_sig, record_child_exited, record_snapshot_req,
    record_cont_req;

void record__install_signals(struct record *r);
void record__restore_signals(struct record *r);

/* -o -: the stream needs a writable stdout. 0, or -1 after the message. */
int record__check_stdout(const struct hws_cli *cli);
/* -o -: its reader went away */
bool record__stdout_reader_gone(void);

/* our controlling terminal, if one of fds 0, 2, 1 is it, else -1 */
int workload__controlling_tty(void);
/* fork the workload (r->argv) in its own process group, held until workload__go() */
int workload__start(struct record *r, char *err, size_t errlen);
/* release it (the terminal goes to its group in the foreground); it exec()s */
int workload__go(struct record *r, char *err, size_t errlen);
/* what happened to the workload's leader; orphans of its group reaped */
void workload__reap(struct record *r);
/* wait up to @secs for the workload's leader to end by itself */
void workload__wait_leader(struct record *r, double secs);
/* the terminal back to the workload's group when we have it, and SIGCONT */
void workload__resume(struct record *r);
/* end the workload's process group (SIGTERM, SIGKILL after STOP_GRACE_S), reap its leader */
void workload__stop(struct record *r);
/* the exit status a shell gives a process that ended with @st (128+N for signal N) */
int workload__exit_code(int st);
/* "  workload exited with status N" (and how it was stopped) on stderr */
void workload__print_end(const struct record *r);

/* ---- record_objects.c ---- */

/* --objects[=min=N,depth=N|auto]: 0, or -1 after the message */
int record__objects_arg(struct record *r, const char *arg);
/* refuse --objects where it cannot work: 0 or an HWS_EXIT_* code after the message */
int record__objects_check(struct record *r, bool profile_workload);
/* the directory and the environment for the workload (before it is forked) */
int record__objects_start(struct record *r, char *err, size_t errlen);
/* the environment back as it was (once the workload is forked) */
void record__objects_forked(struct record *r);
/* the processes' records into the file's feature (the workload has ended) */
int record__objects_finish(struct record *r);
/* the directory removed once the file is complete, and the summary line */
void record__objects_done(struct record *r, bool file_ok);
/* nothing was recorded: no directory left */
void record__objects_abandon(struct record *r);

/* ---- record_status.c ---- */

/* The status line from now on if stderr is a terminal (and not -q / --no-status). */
void record__status_start(struct record *r);
/* redrawn when a second has passed since the last time (or @force) */
void record__status_line(struct record *r, bool force);
/* erased for good */
void record__status_stop(struct record *r);
/* "[ hwsample: recorded FILE ]" and every event's samples and loss per CPU */
void record__print_summary(struct record *r, uint64_t file_size);
/* the message for a failed write to the output file (@err, @st taken before closing) */
void record__write_failed(const struct record *r, int err, const struct hws_perf_writer_stats *st,
			  char *buf, size_t len);

#endif
