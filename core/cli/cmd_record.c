// SPDX-License-Identifier: MIT
/*
 * hwsample [record]: encode events with a backend, open them in one of perf's four modes,
 * drain the rings into a perf.data file until the workload ends or SIGINT/SIGTERM arrives,
 * then finish the file and print a summary with the loss of every event and CPU.
 *
 * Config files (-c FILE / --config FILE, core/record/config.c): the file is loaded, the command line
 * is merged over it (each value keeps its origin for --dry-run), it is validated against
 * the backends, and then it only fills struct record and the list of jobs: one job per
 * backend/PMU/section to encode, so several backends record in one session.
 *
 * Invariants:
 *  - Nothing is opened or written before every argument, config value and event has been
 *    validated.
 *  - Command line > backend section > [run] > defaults, for every value.
 *  - The status line is drawn only when stderr is a terminal, at most once a second from
 *    the poll loop, and erased before anything else is printed to stderr (library messages
 *    erase it through hws_cli__set_before_message()). It counts loss with the summary's
 *    counters and words (loss_totals(), loss_words()).
 *  - Options a chosen backend cannot honour (c2c without data sources, -S without an AUX
 *    area, --phys-data without any physical address) are refused before anything opens.
 *  - Once the output file exists, every exit path goes through finish(): the file is always
 *    completed (header, attrs, features) so perf and hwsample can read it.
 *  - Signal handlers only set flags; all work happens in the main loop.
 *  - The workload's process group does not outlive the run (see "the workload"); once the
 *    recording succeeded, hwsample's exit status is the workload's, as perf record's.
 *  - In pipe mode nothing but the perf.data stream reaches stdout, and everything a reader
 *    needs to decode a sample (attrs, features, tracepoint formats) comes before it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <hwsample/aux.h>
#include <hwsample/config.h>
#include <hwsample/perfdata.h>
#include <hwsample/session.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>
#include <hwsample/synth.h>
#include <hwsample/tracing.h>

#include "cli.h"

#define MAX_EVENTS 32
#define MAX_CONTROLS 64
#define MAX_PIDS 64
#define MAX_JOBS 16

/* One backend (and PMU) to encode events with, from -b or a config section. */
struct job {
	struct hws_backend *b;
	const char *pmu;			/* NULL: the backend's default PMU */
	const struct hws_config_section *sec;	/* NULL: no config section */
	int first_event, nr_events;		/* its events in the session */
	char pmu_buf[HWS_PMU_NAME_MAX];
};

static const char record_usage[] =
	"usage: hwsample [record] [-c FILE.conf | --config FILE] [-b BACKEND|PMU[,...]]\n"
	"                [-e EVENT[,EVENT...]] [KEY=VALUE ...]\n"
	"                [-F FREQ | -c PERIOD] [-a | -C CPUS | -p PID | --per-thread]\n"
	"                [-m PAGES[,AUXPAGES]] [-o FILE] [--overwrite] [-S] [-d] [--phys-data]\n"
	"                [--no-inherit] [--duration SECS] [--dry-run] [-q] [--no-status] [-N]\n"
	"                [--] [PROG [ARGS...]]\n"
	"\n"
	"  -c FILE        run configuration (INI; see cfg/ and hwsample(1)). -c takes a file\n"
	"                 when its argument contains '/', ends in .conf or .ini, or is an\n"
	"                 existing file that is not a number; otherwise -c is perf's period\n"
	"  --config FILE  run configuration, always a file\n"
	"  -b NAME        backend (sw, amd_ibs, arm_spe, intel_pebs), a PMU it serves\n"
	"                 (ibs_op, ibs_fetch, arm_spe_0, cpu), 'auto' (the best one here),\n"
	"                 or a comma list of them recorded together (ibs_op,ibs_fetch)\n"
	"  -e EVENTS      comma-separated events of that backend (sw: cpu-clock, page-faults,\n"
	"                 ..., or tracepoints sys:name)\n"
	"  KEY=VALUE      backend controls, e.g. l3missonly=1, load_filter=1, ldlat=30\n"
	"  -F FREQ        samples per second (frequency mode)\n"
	"  -c PERIOD      one sample every PERIOD events (also --count PERIOD)\n"
	"  -a             all CPUs (system-wide)\n"
	"  -C LIST        only these CPUs, e.g. 0-3,8\n"
	"  -p PID[,PID]   attach to existing processes; with a PROG, record them while PROG\n"
	"                 runs (PROG only times the run, as in perf record -p PID -- sleep 1)\n"
	"  --per-thread   one ring per thread instead of per CPU (no inherit)\n"
	"  -m P[,A]       ring pages per CPU (power of two; rounded up as perf does), AUX pages\n"
	"  -o FILE        output (default hwsample.data; '-' = stdout, pipe mode: what the\n"
	"                 workload prints to stdout goes to stderr, as with perf)\n"
	"  --overwrite    flight recorder: rings keep the newest data; dumped on SIGUSR2 and at exit\n"
	"  -S             AUX snapshot mode: AUX area free-runs, SIGUSR2 takes a snapshot\n"
	"                 (AUX PMUs only, such as arm_spe)\n"
	"  -d             sample data addresses (software events: faulting address)\n"
	"  --phys-data    sample physical addresses where the backend can (software\n"
	"                 events: page faults on resident pages, as perf)\n"
	"  --duration S   stop recording, and the workload, after S seconds (2.5 allowed)\n"
	"  --dry-run      print every perf_event_attr that would be opened (and, with a\n"
	"                 config file, where each value came from); open nothing\n"
	"  -q             no summary, no status line\n"
	"  --no-status    no status line (it is shown only when stderr is a terminal)\n"
	"  -N, --no-buildid-cache  do not copy /proc/kallsyms into perf's build-id cache\n"
	"                 (~/.debug, or $PERF_BUILDID_DIR) as perf record does; the copy lets\n"
	"                 hwsample and perf name kernel addresses after a reboot or elsewhere\n"
	"  -v, -vv        more messages from the library (also before the command)\n"
	"\n"
	"Command-line values override the config file: -c/-F replace the file's period and\n"
	"freq, -a/-C/-p/--per-thread its mode and cpus, -b its backend choice, -e the events\n"
	"and KEY=VALUE the controls of the selected sections.\n"
	"\n"
	"Examples:\n"
	"  hwsample -b sw -e cpu-clock,page-faults -F 4000 -- ./prog\n"
	"  hwsample -b sw -e sched:sched_switch -a sleep 1\n"
	"  hwsample -b ibs_op l3missonly=1 -- ./prog\n"
	"  hwsample -b arm_spe load_filter=1 min_latency=64 -a sleep 5\n"
	"  hwsample --dry-run -b sw -e page-faults -c 1 -- true\n"
	"  hwsample -c cfg/l3-miss.conf -- ./prog\n"
	"  hwsample -c cfg/load-latency.conf --dry-run\n"
	"  hwsample -c cfg/l3-miss.conf -F 2000 -o l3.data -a --duration 10\n"
	"  hwsample -b ibs_op,ibs_fetch -a sleep 1\n"
	"  hwsample -b sw -e cpu-clock -p 1234 -- sleep 5\n"
	"  hwsample -b sw -e cpu-clock -o - -- ./prog | hwsample dump -i -\n"
	"\n"
	"The workload runs in its own process group, given the terminal when hwsample has it\n"
	"(Ctrl-C and Ctrl-Z reach it and what it started). --duration, SIGINT, SIGTERM, SIGHUP,\n"
	"an error or a reader of -o - that goes away stop that whole group: SIGTERM, then SIGKILL\n"
	"after 2 s. Processes it started and left running are stopped the same way at the end.\n"
	"\n"
	"Exit codes: once the recording succeeded, the workload's status (its exit code, or\n"
	"128+N if signal N killed it; 0 when --duration stopped it, as perf stat --timeout), as\n"
	"perf record; 0 without a workload. Failures of hwsample itself: 1 runtime error (also\n"
	"when the reader of -o - went away), 2 usage error (bad option or config, -o - with\n"
	"stdout closed), 3 not supported here, 4 permission denied.\n";

struct record {
	const char *backend;
	char *events[MAX_EVENTS];
	int nr_events;
	struct hws_control controls[MAX_CONTROLS];
	int nr_controls;
	uint64_t freq, period;
	bool system_wide, per_thread, no_inherit, overwrite, snapshot, dry_run, quiet;
	bool data_addr, phys_data;
	bool c2c; /* hidden --c2c (from `hwsample c2c record`): HWS_REQ_C2C to the backends */
	const char *cpu_list;
	pid_t pids[MAX_PIDS];
	int nr_pids;
	unsigned int pages, aux_pages;
	const char *output;
	char **argv; /* workload */
	int argc;
	double duration;    /* seconds, 0 = until the workload ends */
	bool no_status, output_given;
	bool no_buildid_cache; /* -N: no kallsyms copy in perf's build-id cache */
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

	/* the workload (see "the workload" below) */
	pid_t pgid;	   /* its process group (the child's pid), 0 once ended */
	int tty_fd;	   /* our controlling terminal (fd 0, 2 or 1), or -1 */
	bool tty_given;	   /* the workload's group got the terminal (foreground) */
	bool child_done;   /* the child ended and was reaped: wstatus holds how */
	bool stopping;	   /* stop_workload() runs: no job control meanwhile */
	bool killed_by_us; /* it was still running when the recording stopped */
	int leftovers;	   /* its group outlived it: 1 ended by SIGTERM, 2 by SIGKILL */
	int wstatus;
	struct sigaction saved_sa[8]; /* dispositions of handled_sigs[] at start */
	bool sa_saved;
};

static volatile sig_atomic_t done_sig, child_exited, snapshot_req, cont_req;

static void on_signal(int sig)
{
	if (sig == SIGCHLD)
		child_exited = 1;
	else if (sig == SIGUSR2)
		snapshot_req = 1;
	else if (sig == SIGCONT)
		cont_req = 1;
	else
		done_sig = sig;
}

static int parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s)) {
		fprintf(stderr, "hwsample: %s '%s': expected a positive whole number\n", opt,
			s ? s : "");
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "hwsample: %s '%s': expected a positive whole number\n", opt, s);
		return -1;
	}
	if (v == 0 || v > max) {
		fprintf(stderr, "hwsample: %s %s: out of range, valid 1..%" PRIu64 "\n", opt, s, max);
		return -1;
	}
	*out = v;
	return 0;
}

static unsigned int round_pow2(uint64_t v)
{
	unsigned int p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static int parse_pages(struct record *r, const char *arg)
{
	char buf[64], *comma;
	uint64_t v;

	snprintf(buf, sizeof(buf), "%s", arg);
	comma = strchr(buf, ',');
	if (comma)
		*comma++ = 0;
	if (*buf) {
		if (parse_u64("-m", buf, 1u << 20, &v))
			return -1;
		r->pages = round_pow2(v);
		if (r->pages != v)
			fprintf(stderr, "hwsample: rounding -m %s up to %u pages (a power of two, "
				"as the kernel requires)\n", buf, r->pages);
	}
	if (comma && *comma) {
		if (parse_u64("-m (AUX pages)", comma, 1u << 22, &v))
			return -1;
		r->aux_pages = round_pow2(v);
		if (r->aux_pages != v)
			fprintf(stderr, "hwsample: rounding AUX pages %s up to %u\n", comma,
				r->aux_pages);
	}
	return 0;
}

static int max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	int v = 100000;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 100000;
		fclose(f);
	}
	return v;
}

/* The [run] keys and backend-section keys, from the table the parser uses. */
static void print_config_keys(void)
{
	printf("\nConfig file [run] keys (the option each one stands for):\n");
	for (const struct hws_config_key *k = hws_config_run_keys; k->name; k++)
		printf("  %-12s %-20s %s\n", k->name, k->cli, k->help);
	printf("Backend sections ([ibs_op], [arm_spe], [intel_pebs], [sw], ...) take:\n");
	for (const struct hws_config_key *k = hws_config_backend_keys; k->name; k++)
		printf("  %-12s %-20s %s\n", k->name, k->cli, k->help);
	printf("  and the PMU's controls (hwsample list); 'key? = v' applies only where the PMU\n"
	       "  has it; events = A|B takes the first event this CPU knows.\n");
}

/*
 * perf's -c is the period; hwsample's issue 7 also wants "-c FILE". -c is a config file when
 * its argument cannot be a period: it contains '/', ends in .conf or .ini, or names an
 * existing regular file and does not start with a digit. Everything else stays a period
 * (and gets the period's error messages), so "-c 10000" works as perf users expect.
 */
static bool looks_like_config(const char *v)
{
	size_t l = strlen(v);
	struct stat st;

	if (strchr(v, '/'))
		return true;
	if ((l > 5 && !strcmp(v + l - 5, ".conf")) || (l > 4 && !strcmp(v + l - 4, ".ini")))
		return true;
	return !isdigit((unsigned char)v[0]) && v[0] != '-' && v[0] != '+' && !stat(v, &st) &&
	       S_ISREG(st.st_mode);
}

/* Record what the command line said as config items, for overrides and provenance. */
static int note(struct record *r, const char *key, const char *value)
{
	return hws_config__set(r->over, "run", key, value, "command line");
}

static int note_cli(struct record *r)
{
	char buf[4096];
	size_t off = 0;
	int ret = 0;

	r->over = hws_config__new();
	if (!r->over)
		return -1;
	if (r->backend)
		ret |= note(r, "backend", r->backend);
	for (int i = 0; i < r->nr_events && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? "," : "",
					r->events[i]);
	if (r->nr_events)
		ret |= note(r, "events", buf);
	if (r->freq) {
		snprintf(buf, sizeof(buf), "%" PRIu64, r->freq);
		ret |= note(r, "freq", buf);
	}
	if (r->period) {
		snprintf(buf, sizeof(buf), "%" PRIu64, r->period);
		ret |= note(r, "period", buf);
	}
	if (r->system_wide)
		ret |= note(r, "mode", "system-wide");
	else if (r->cpu_list)
		ret |= note(r, "mode", "cpus") | note(r, "cpus", r->cpu_list);
	else if (r->per_thread)
		ret |= note(r, "mode", "per-thread");
	if (r->pages) {
		snprintf(buf, sizeof(buf), "%u", r->pages);
		ret |= note(r, "mmap_pages", buf);
	}
	if (r->aux_pages) {
		snprintf(buf, sizeof(buf), "%u", r->aux_pages);
		ret |= note(r, "aux_pages", buf);
	}
	if (r->overwrite)
		ret |= note(r, "overwrite", "true");
	if (r->snapshot)
		ret |= note(r, "snapshot", "true");
	if (r->output_given)
		ret |= note(r, "output", r->output);
	if (r->duration > 0) {
		snprintf(buf, sizeof(buf), "%g", r->duration);
		ret |= note(r, "duration", buf);
	}
	if (r->data_addr)
		ret |= note(r, "data_addr", "true");
	if (r->phys_data)
		ret |= note(r, "phys_data", "true");
	if (r->no_inherit)
		ret |= note(r, "inherit", "false");
	if (ret) {
		fprintf(stderr, "hwsample: out of memory\n");
		return -1;
	}
	return 0;
}

static int parse_args(struct record *r, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_ARG()                                                                          \
	do {                                                                                \
		if (!val) {                                                                 \
			fprintf(stderr, "hwsample: option %s needs an argument\n", a);     \
			return -1;                                                          \
		}                                                                           \
		i++;                                                                        \
	} while (0)

		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(record_usage, stdout);
			print_config_keys();
			exit(0);
		} else if (!strcmp(a, "-b") || !strcmp(a, "--backend")) {
			NEED_ARG();
			r->backend = val;
		} else if (!strcmp(a, "-e") || !strcmp(a, "--event")) {
			NEED_ARG();
			/* split on commas outside pmu/.../ terms, so that
			 * "cpu/mem-loads,ldlat=30/P,cpu/mem-stores/P" is two events, as in perf */
			const char *st = val;
			int depth = 0;
			for (const char *c = val;; c++) {
				if (*c == '/')
					depth = !depth;
				if (*c && (*c != ',' || depth))
					continue;
				if (c > st) {
					if (r->nr_events == MAX_EVENTS) {
						fprintf(stderr, "hwsample: too many events (max %d)\n",
							MAX_EVENTS);
						return -1;
					}
					r->events[r->nr_events++] = strndup(st, (size_t)(c - st));
				}
				if (!*c)
					break;
				st = c + 1;
			}
		} else if (!strcmp(a, "-F") || !strcmp(a, "--freq")) {
			NEED_ARG();
			uint64_t max = (uint64_t)max_sample_rate();
			if (parse_u64("-F", val, UINT32_MAX, &r->freq))
				return -1;
			if (r->freq > max) {
				fprintf(stderr,
					"hwsample: -F %s exceeds the kernel's limit of %" PRIu64
					" samples/s (kernel.perf_event_max_sample_rate); lower -F or "
					"raise it: sysctl kernel.perf_event_max_sample_rate=%s\n",
					val, max, val);
				return -1;
			}
		} else if (!strcmp(a, "--config")) {
			NEED_ARG();
			r->config_path = val;
		} else if (!strncmp(a, "--config=", 9)) {
			r->config_path = a + 9;
		} else if (!strcmp(a, "-c") && val && looks_like_config(val)) {
			i++;
			if (r->config_path) {
				fprintf(stderr, "hwsample: only one config file (-c %s and %s)\n", val,
					r->config_path);
				return -1;
			}
			r->config_path = val;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--count")) {
			NEED_ARG();
			if (parse_u64("-c", val, (uint64_t)INT64_MAX, &r->period))
				return -1;
		} else if (!strcmp(a, "--duration")) {
			NEED_ARG();
			char *end;
			errno = 0;
			r->duration = strtod(val, &end);
			if (errno || end == val || *end || !(r->duration > 0) ||
			    r->duration > 31536000) {
				fprintf(stderr, "hwsample: --duration '%s': expected a number of seconds "
					"> 0 (e.g. 10 or 2.5)\n", val);
				return -1;
			}
		} else if (!strcmp(a, "--no-status")) {
			r->no_status = true;
		} else if (!strcmp(a, "-N") || !strcmp(a, "--no-buildid-cache")) {
			r->no_buildid_cache = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose") || !strcmp(a, "-vv")) {
			r->verbose += !strcmp(a, "-vv") ? 2 : 1;
			hws_set_log_level(HWS_LOG_WARN + r->verbose);
		} else if (!strcmp(a, "-a") || !strcmp(a, "--all-cpus")) {
			r->system_wide = true;
		} else if (!strcmp(a, "-C") || !strcmp(a, "--cpu")) {
			NEED_ARG();
			r->cpu_list = val;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pid")) {
			NEED_ARG();
			char *copy = strdup(val), *save = NULL;
			for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				uint64_t p;
				if (parse_u64("-p", t, INT32_MAX, &p) || r->nr_pids == MAX_PIDS) {
					free(copy);
					return -1;
				}
				r->pids[r->nr_pids++] = (pid_t)p;
			}
			free(copy);
		} else if (!strcmp(a, "--per-thread")) {
			r->per_thread = true;
		} else if (!strcmp(a, "--no-inherit")) {
			r->no_inherit = true;
		} else if (!strcmp(a, "-m") || !strcmp(a, "--mmap-pages")) {
			NEED_ARG();
			if (parse_pages(r, val))
				return -1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			NEED_ARG();
			r->output = val;
			r->output_given = true;
		} else if (!strcmp(a, "--overwrite")) {
			r->overwrite = true;
		} else if (!strcmp(a, "-S") || !strcmp(a, "--snapshot")) {
			r->snapshot = true;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--data")) {
			r->data_addr = true;
		} else if (!strcmp(a, "--c2c")) {
			r->c2c = true;
		} else if (!strcmp(a, "--phys-data")) {
			r->phys_data = true;
		} else if (!strcmp(a, "--dry-run")) {
			r->dry_run = true;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			r->quiet = true;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hwsample: unknown option '%s' (see hwsample record --help)\n", a);
			return -1;
		} else if (strchr(a, '=') && a[0] != '=' && a[0] != '.' && a[0] != '/') {
			if (r->nr_controls == MAX_CONTROLS) {
				fprintf(stderr, "hwsample: too many controls (max %d)\n", MAX_CONTROLS);
				return -1;
			}
			char *k = strdup(a), *eq = strchr(k, '=');
			*eq = 0;
			r->controls[r->nr_controls].key = k;
			r->controls[r->nr_controls].value = eq + 1;
			r->nr_controls++;
		} else {
			break; /* the workload */
		}
#undef NEED_ARG
	}
	r->argv = argv + i;
	r->argc = argc - i;
	if (r->freq && r->period) {
		fprintf(stderr, "hwsample: give either -F FREQ or -c PERIOD, not both\n");
		return -1;
	}
	if ((r->system_wide || r->cpu_list) && r->nr_pids) {
		fprintf(stderr, "hwsample: -p cannot be combined with -a or -C\n");
		return -1;
	}
	if (r->per_thread && (r->system_wide || r->cpu_list)) {
		fprintf(stderr, "hwsample: --per-thread cannot be combined with -a or -C\n");
		return -1;
	}
	if (!r->argc && !r->nr_pids && !r->system_wide && !r->cpu_list && !r->config_path &&
	    !r->dry_run) {
		fprintf(stderr, "hwsample: nothing to record: give a program (-- PROG ARGS), "
			"-p PID, -a or -C CPUS\n");
		return -1;
	}
	return note_cli(r);
}

static uint32_t kernel_version(void)
{
	const char *env = getenv("HWS_KERNEL_VERSION");
	struct utsname u;
	unsigned int a = 0, b = 0, c = 0;

	if (env && *env)
		sscanf(env, "%u.%u.%u", &a, &b, &c);
	else if (!uname(&u))
		sscanf(u.release, "%u.%u.%u", &a, &b, &c);
	return HWS_KERNEL_VERSION(a, b, c);
}

/* -b: a backend name, a PMU a backend serves, or auto. */
static struct hws_backend *pick_backend(struct record *r, struct hws_registry *reg,
					const char **pmu)
{
	const char *name = r->backend;
	struct hws_backend *b, *best = NULL;
	char why[512];
	int best_score = 0;

	*pmu = NULL;
	if (!name && r->nr_events)
		name = "sw"; /* events without -b: tried below against every backend */
	if (!name || !strcmp(name, "auto")) {
		for (int i = 0; i < hws_registry__count(reg); i++) {
			b = hws_registry__at(reg, i);
			int score = b->ops->detect(b->priv, why, sizeof(why));
			if (score > best_score) {
				best_score = score;
				best = b;
			}
		}
		if (!best)
			fprintf(stderr, "hwsample: no usable backend on this machine (see hwsample list)\n");
		else if (!r->quiet && !r->dry_run)
			fprintf(stderr, "hwsample: using backend %s\n", best->ops->name);
		return best;
	}
	b = hws_registry__find(reg, name);
	if (!b) {
		fprintf(stderr, "hwsample: no backend or PMU named '%s'; available backends:", name);
		for (int i = 0; i < hws_registry__count(reg); i++)
			fprintf(stderr, " %s", hws_registry__at(reg, i)->ops->name);
		fprintf(stderr, " (and the PMUs they serve: see hwsample list)\n");
		return NULL;
	}
	if (strcmp(name, b->ops->name))
		*pmu = name;
	return b;
}

/* ---- config files ---- */

static int check_freq(const char *origin, const char *opt, uint64_t freq)
{
	uint64_t max = (uint64_t)max_sample_rate();

	if (freq <= max)
		return 0;
	fprintf(stderr, "hwsample: %s: %s %" PRIu64 " exceeds the kernel's limit of %" PRIu64
		" samples/s (kernel.perf_event_max_sample_rate); lower it or raise the limit: "
		"sysctl kernel.perf_event_max_sample_rate=%" PRIu64 "\n", origin, opt, freq, max,
		freq);
	return -1;
}

/* Take the [run] values the command line did not give (items with a line number). */
static int apply_run(struct record *r)
{
	const struct hws_config_section *run = hws_config__section(r->cfg, "run");
	const struct hws_config_item *per = hws_config__get(r->cfg, "run", "period");
	const struct hws_config_item *fr = hws_config__get(r->cfg, "run", "freq");
	const struct hws_config_item *mode = hws_config__get(r->cfg, "run", "mode");
	const struct hws_config_item *cpus = hws_config__get(r->cfg, "run", "cpus");
	char err[1024];
	uint64_t v;
	bool bv;

	if (per && fr) {
		fprintf(stderr, "hwsample: %s: give period or freq, not both (freq at %s)\n",
			per->origin, fr->origin);
		return HWS_E_BAD_CONFIG;
	}
	if (mode && !strcmp(mode->value, "cpus") && !cpus) {
		fprintf(stderr, "hwsample: %s: mode = cpus needs cpus = LIST (e.g. cpus = 0-3)\n",
			mode->origin);
		return HWS_E_BAD_CONFIG;
	}
	if (cpus && mode && strcmp(mode->value, "cpus")) {
		fprintf(stderr, "hwsample: %s: cpus = %s needs mode = cpus (mode is %s at %s)\n",
			cpus->origin, cpus->value, mode->value, mode->origin);
		return HWS_E_BAD_CONFIG;
	}
	for (int i = 0; run && i < run->nr_items; i++) {
		const struct hws_config_item *it = &run->items[i];
		int ret = 0;

		if (!it->line)
			continue; /* from the command line: already in place */
		if (!strcmp(it->key, "backend")) {
			r->backend = it->value;
		} else if (!strcmp(it->key, "period")) {
			ret = hws_config__uint(it, 1, INT64_MAX, &r->period, err, sizeof(err));
		} else if (!strcmp(it->key, "freq")) {
			ret = hws_config__uint(it, 1, UINT32_MAX, &r->freq, err, sizeof(err));
			if (!ret && check_freq(it->origin, "freq", r->freq))
				return HWS_E_BAD_CONFIG;
		} else if (!strcmp(it->key, "mode")) {
			r->system_wide = !strcmp(it->value, "system-wide");
			r->per_thread = !strcmp(it->value, "per-thread");
		} else if (!strcmp(it->key, "cpus")) {
			r->cpu_list = it->value;
		} else if (!strcmp(it->key, "mmap_pages") || !strcmp(it->key, "aux_pages")) {
			bool aux = it->key[0] == 'a';
			ret = hws_config__uint(it, 1, aux ? 1u << 22 : 1u << 20, &v, err, sizeof(err));
			if (!ret) {
				unsigned int p = round_pow2(v);
				if (p != v)
					fprintf(stderr, "hwsample: %s: rounding %s %" PRIu64 " up to %u "
						"(a power of two, as the kernel requires)\n", it->origin,
						it->key, v, p);
				*(aux ? &r->aux_pages : &r->pages) = p;
			}
		} else if (!strcmp(it->key, "overwrite")) {
			ret = hws_config__bool(it, &r->overwrite, err, sizeof(err));
		} else if (!strcmp(it->key, "snapshot")) {
			ret = hws_config__bool(it, &r->snapshot, err, sizeof(err));
		} else if (!strcmp(it->key, "data_addr")) {
			ret = hws_config__bool(it, &r->data_addr, err, sizeof(err));
		} else if (!strcmp(it->key, "phys_data")) {
			ret = hws_config__bool(it, &r->phys_data, err, sizeof(err));
		} else if (!strcmp(it->key, "inherit")) {
			ret = hws_config__bool(it, &bv, err, sizeof(err));
			r->no_inherit = !bv;
		} else if (!strcmp(it->key, "output")) {
			r->output = it->value;
		} else if (!strcmp(it->key, "duration")) {
			ret = hws_config__seconds(it, &r->duration, err, sizeof(err));
		}
		if (ret) {
			fprintf(stderr, "hwsample: %s\n", hws_cli__lib_text(err));
			return ret;
		}
	}
	if (r->per_thread && r->nr_pids == 0 && !r->argc && !r->dry_run) {
		fprintf(stderr, "hwsample: %s: mode = per-thread needs a program or -p PID\n",
			mode ? mode->origin : "config");
		return HWS_E_BAD_CONFIG;
	}
	if (!r->argc && !r->nr_pids && !r->system_wide && !r->cpu_list && !r->dry_run) {
		fprintf(stderr, "hwsample: nothing to record: give a program (-- PROG ARGS), "
			"-p PID, -a or -C CPUS (or mode = system-wide / cpus in %s)\n",
			r->config_path);
		return HWS_E_BAD_ARG;
	}
	return 0;
}

/* Load the file, let the command line override it, validate it against the backends. */
static int load_config(struct record *r, struct hws_registry *reg)
{
	const struct hws_config_section *o = hws_config__section(r->over, "run");
	char err[2048] = "";
	int ret;

	r->cfg = hws_config__new();
	if (!r->cfg)
		return -ENOMEM;
	ret = hws_config__load(r->cfg, r->config_path, err, sizeof(err));
	if (ret) {
		/* a missing or unreadable file is a usage error too (exit 2) */
		fprintf(stderr, "hwsample: %s\n", *err ? hws_cli__lib_text(err) : strerror(-ret));
		return HWS_E_BAD_CONFIG;
	}
	if (!ret) {
		bool mode_cli = r->system_wide || r->cpu_list || r->per_thread || r->nr_pids;
		bool rate_cli = r->freq || r->period;

		if (mode_cli) {
			hws_config__unset(r->cfg, "run", "mode");
			hws_config__unset(r->cfg, "run", "cpus");
		}
		for (int i = 0; i < r->cfg->nr_sections; i++) {
			const char *sn = r->cfg->sections[i].name;
			if (rate_cli) {
				hws_config__unset(r->cfg, sn, "period");
				hws_config__unset(r->cfg, sn, "freq");
			}
			if (r->nr_events && strcmp(sn, "run"))
				hws_config__unset(r->cfg, sn, "events");
		}
		for (int i = 0; o && i < o->nr_items && !ret; i++)
			ret = hws_config__set(r->cfg, "run", o->items[i].key, o->items[i].value,
					      o->items[i].origin);
		for (int i = 0; i < r->nr_controls && !ret; i++)
			; /* controls are merged per section when the events are encoded */
	}
	if (!ret)
		ret = hws_config__validate(r->cfg, reg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "hwsample: %s\n", *err ? hws_cli__lib_text(err) : strerror(-ret));
		return ret;
	}
	for (int i = 0; i < r->cfg->nr_sections; i++) {
		const struct hws_config_item *f = hws_config__get(r->cfg, r->cfg->sections[i].name,
								  "freq");
		uint64_t v;
		if (f && strcmp(r->cfg->sections[i].name, "run") &&
		    (hws_config__uint(f, 1, UINT32_MAX, &v, err, sizeof(err)) ||
		     check_freq(f->origin, "freq", v)))
			return HWS_E_BAD_CONFIG;
		if (f && strcmp(r->cfg->sections[i].name, "run") &&
		    hws_config__get(r->cfg, r->cfg->sections[i].name, "period")) {
			fprintf(stderr, "hwsample: %s: give period or freq, not both\n", f->origin);
			return HWS_E_BAD_CONFIG;
		}
	}
	return apply_run(r);
}

static bool is_run(const struct hws_config_section *s)
{
	return !strcmp(s->name, "run");
}

static const char *section_pmu(const struct hws_config_section *sec, const struct hws_backend *b)
{
	const struct hws_config_item *p;

	if (strcmp(sec->name, b->ops->name))
		return sec->name;
	for (int i = 0; i < sec->nr_items; i++) {
		p = &sec->items[i];
		if (!strcmp(p->key, "pmu"))
			return p->value;
	}
	return NULL;
}

static int add_job(struct record *r, struct hws_backend *b, const char *pmu,
		   const struct hws_config_section *sec)
{
	for (int i = 0; i < r->nr_jobs; i++)
		if (r->jobs[i].sec == sec && sec)
			return 0;
	if (r->nr_jobs == MAX_JOBS) {
		fprintf(stderr, "hwsample: too many backends in one run (max %d)\n", MAX_JOBS);
		return -1;
	}
	r->jobs[r->nr_jobs] = (struct job){ .b = b, .sec = sec };
	if (pmu) {
		snprintf(r->jobs[r->nr_jobs].pmu_buf, sizeof(r->jobs[0].pmu_buf), "%s", pmu);
		r->jobs[r->nr_jobs].pmu = r->jobs[r->nr_jobs].pmu_buf;
	}
	r->nr_jobs++;
	return 0;
}

static struct hws_backend *find_backend(struct hws_registry *reg, const char *name)
{
	struct hws_backend *b = hws_registry__find(reg, name);

	if (!b) {
		fprintf(stderr, "hwsample: no backend or PMU named '%s'; available backends:", name);
		for (int i = 0; i < hws_registry__count(reg); i++)
			fprintf(stderr, " %s", hws_registry__at(reg, i)->ops->name);
		fprintf(stderr, " (and the PMUs they serve: see hwsample list)\n");
	}
	return b;
}

/* "auto" with a config file: the best usable backend among the file's sections, with
 * every section it serves (ibs_op and ibs_fetch together). */
static int select_auto(struct record *r, struct hws_registry *reg)
{
	struct hws_backend *best = NULL;
	int best_score = 0, nsec = 0;

	for (int i = 0; i < r->cfg->nr_sections; i++) {
		const struct hws_config_section *sec = &r->cfg->sections[i];
		struct hws_backend *b;
		char why[512];
		int score;

		if (is_run(sec))
			continue;
		nsec++;
		b = hws_registry__find(reg, sec->name);
		score = b->ops->detect(b->priv, why, sizeof(why));
		if (score > best_score) {
			best_score = score;
			best = b;
		}
	}
	if (!nsec)
		return 1; /* no backend sections: plain auto */
	if (!best) {
		fprintf(stderr, "hwsample: none of the backends %s configures is usable here:\n",
			r->config_path);
		for (int i = 0; i < r->cfg->nr_sections; i++) {
			const struct hws_config_section *sec = &r->cfg->sections[i];
			struct hws_backend *b;
			char why[512] = "";
			if (is_run(sec))
				continue;
			b = hws_registry__find(reg, sec->name);
			b->ops->detect(b->priv, why, sizeof(why));
			fprintf(stderr, "  [%s] (%s:%d): %s\n", sec->name, r->config_path, sec->line,
				why);
		}
		fprintf(stderr, "  (see hwsample list; add a section for a backend this machine has, "
			"or give -b)\n");
		return HWS_E_NO_BACKEND;
	}
	for (int i = 0; i < r->cfg->nr_sections; i++) {
		const struct hws_config_section *sec = &r->cfg->sections[i];
		if (!is_run(sec) && hws_registry__find(reg, sec->name) == best &&
		    add_job(r, best, section_pmu(sec, best), sec))
			return HWS_E_BAD_ARG;
	}
	if (!r->quiet && !r->dry_run)
		fprintf(stderr, "hwsample: using backend %s (from %s)\n", best->ops->name,
			r->config_path);
	return 0;
}

/* -b / backend = a list: each name selects the sections it names or serves, or, without
 * a section, the backend (on that PMU) with its defaults. */
static int select_list(struct record *r, struct hws_registry *reg, const char *spec)
{
	char *copy = strdup(spec), *save = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ", \t", &save); t && !ret; t = strtok_r(NULL, ", \t", &save)) {
		struct hws_backend *b = find_backend(reg, t);
		bool matched = false;

		if (!b) {
			ret = HWS_E_NO_BACKEND;
			break;
		}
		for (int i = 0; r->cfg && i < r->cfg->nr_sections; i++) {
			const struct hws_config_section *sec = &r->cfg->sections[i];
			const char *pmu;
			if (is_run(sec) || hws_registry__find(reg, sec->name) != b)
				continue;
			pmu = section_pmu(sec, b);
			if (strcmp(t, b->ops->name) && strcmp(sec->name, t) && (!pmu || strcmp(pmu, t)))
				continue;
			matched = true;
			if (add_job(r, b, pmu, sec))
				ret = HWS_E_BAD_ARG;
		}
		if (!matched && add_job(r, b, strcmp(t, b->ops->name) ? t : NULL, NULL))
			ret = HWS_E_BAD_ARG;
	}
	free(copy);
	return ret;
}

/* Where a [run] option came from, for messages: @opt on the command line, else "key =
 * value at FILE:LINE". */
static const char *option_origin(struct record *r, const char *key, const char *opt, char *buf,
				 size_t len)
{
	const struct hws_config_item *it = hws_config__get(r->cfg ? r->cfg : r->over, "run", key);

	if (!it || !it->line)
		return opt;
	snprintf(buf, len, "%s = %s at %s", key, it->value, it->origin);
	return buf;
}

/*
 * Options the chosen backends cannot honour are refused before anything is opened, from
 * the backends' caps: c2c needs data sources, -S an AUX area. (--phys-data is checked on
 * the encoded events: software page faults can carry one.)
 */
static int check_backend_options(struct record *r)
{
	bool aux = false;
	char at[512];

	for (int j = 0; j < r->nr_jobs; j++) {
		const struct hws_backend_ops *o = r->jobs[j].b->ops;
		const char *name = r->jobs[j].pmu ? r->jobs[j].pmu : o->name;

		aux |= !!(o->caps & HWS_CAP_AUX);
		if (r->c2c && !(o->caps & HWS_CAP_DATA_SRC)) {
			fprintf(stderr,
				"hwsample c2c record: %s cannot record for c2c: c2c needs memory "
				"samples with data addresses and data sources, which only a "
				"sampling PMU gives (AMD IBS op, Intel PEBS load latency, Arm SPE); "
				"%s events have none. Leave -b out to use this machine's sampling "
				"PMU (hwsample list says which are usable), or record on a machine "
				"that has one\n",
				name, name);
			return -1;
		}
	}
	if (r->snapshot && !aux) {
		fprintf(stderr,
			"hwsample: %s (AUX snapshot mode) needs an event with an AUX area, from a "
			"PMU such as arm_spe (Arm SPE); %s writes its samples to the ring buffer "
			"only: for a flight recorder of the ring buffer use --overwrite\n",
			option_origin(r, "snapshot", "-S", at, sizeof(at)),
			r->jobs[0].pmu ? r->jobs[0].pmu : r->jobs[0].b->ops->name);
		return -1;
	}
	if (r->aux_pages && !aux && hws_config__get(r->over, "run", "aux_pages"))
		fprintf(stderr, "hwsample: -m ,%u: no event of this run has an AUX area (only AUX "
			"PMUs such as arm_spe do): the AUX page count is not used\n",
			r->aux_pages);
	return 0;
}

/* --phys-data with no event that can give a physical address would do nothing: refuse. */
static int check_phys(struct record *r, struct hws_registry *reg,
		      const struct hws_event_desc *all, const char *const *owner, int nall)
{
	char at[512];

	if (!r->phys_data || r->c2c)
		return 0;
	for (int k = 0; k < nall; k++) {
		struct hws_backend *b = hws_registry__find(reg, owner[k]);

		if ((b && (b->ops->caps & HWS_CAP_PHYS_ADDR)) ||
		    (all[k].attr.sample_type & PERF_SAMPLE_PHYS_ADDR))
			return 0;
	}
	fprintf(stderr,
		"hwsample: %s: no event of this run can give physical addresses (%s%s): they "
		"come from a memory-sampling PMU (AMD IBS, Intel PEBS, Arm SPE) or, among "
		"software events, from page faults (-e page-faults, with the faulting address)\n",
		option_origin(r, "phys_data", "--phys-data", at, sizeof(at)), all[0].name,
		nall > 1 ? ", ..." : "");
	return -1;
}

static int write_record(void *ctx, int cpu, const struct perf_event_header *h)
{
	struct record *r = ctx;
	int ret = hws_perf_writer__write(r->w, h, h->size);

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

/* AUX sessions: AUXTRACE_INFO (from the backend) and TIME_CONV (from the mmap page), which
 * perf needs before the first AUXTRACE record to decode the AUX data. */
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
		struct hws_backend *b = hws_registry__find(reg, hws_session__event_backend(r->sess, e));
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
			r->output, strerror(-terr), terr == -EACCES ? " reading tracefs: run as root" : "");
	free(td);
}

static int finished_round(struct record *r)
{
	struct perf_event_header h = { .type = HWS_RECORD_FINISHED_ROUND, .misc = 0,
				       .size = sizeof(h) };
	int ret;

	if (!r->wrote_since_round || r->write_err)
		return 0;
	r->wrote_since_round = false;
	/* then flush: a pipe reader (-o - | hwsample dump -i -) sees each round as it
	 * completes, and a file's header names it (a recorder killed later leaves it readable) */
	ret = hws_perf_writer__write(r->w, &h, sizeof(h));
	if (!ret)
		ret = hws_perf_writer__flush(r->w);
	/* a file: the error ends the run, saying what the file holds (write_failed()); a pipe:
	 * -EPIPE, the reader went away */
	if (ret < 0)
		r->write_err = ret;
	return ret;
}

/* ---- the workload ----
 *
 * The workload runs in its own process group (its pid), so that stopping it (--duration,
 * SIGINT/SIGTERM/SIGHUP to hwsample, an error, the end of the run) reaches its children
 * and grandchildren too: SIGTERM to the group, SIGKILL after STOP_GRACE_S seconds to
 * whatever is left of it. hwsample is its children's subreaper, so the orphans of the
 * workload are reaped here and "gone" means gone.
 *
 * Terminal: when hwsample runs in the foreground of its controlling terminal, the workload's
 * group is made the foreground group when it starts (as a shell does for a job), so that it
 * can read the terminal and Ctrl-C / Ctrl-\ reach it and its children; hwsample sees it end
 * and finishes the file. Ctrl-Z stops the workload's group: hwsample takes the terminal
 * back and stops its own group with SIGTSTP, as the shell expects of the job it started;
 * when continued, it gives the terminal back (if it has it) and continues the workload.
 * The terminal is taken back when the workload ends. A workload ended by Ctrl-C ends
 * hwsample with SIGINT, sent to hwsample's group as the terminal would have sent it, so
 * that a calling shell script stops as it does when Ctrl-C reaches it (bash waits for its
 * child and stops only if it got SIGINT too and the child died of it).
 *
 * The workload gets the signal dispositions hwsample started with (hwsample ignores SIGPIPE
 * and SIGTTOU, and catches others, while it records); in pipe mode (-o -) its stdout is
 * hwsample's stderr, as perf does, so nothing it prints can enter the stream.
 */
#define STOP_GRACE_S 2.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const int handled_sigs[8] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD,
				     SIGUSR2, SIGCONT, SIGPIPE, SIGTTOU };

static void install_signals(struct record *r)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 8; i++)
		sigaction(handled_sigs[i], NULL, &r->saved_sa[i]);
	r->sa_saved = true;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (r->saved_sa[2].sa_handler != SIG_IGN) /* nohup: hangups stay ignored */
		sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGCONT, &sa, NULL);
	/* a reader that goes away is an EPIPE to handle, not a silent death; writing to the
	 * terminal or taking it back while the workload has it must not stop us */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGTTOU, &sa, NULL);
}

static void restore_signals(struct record *r)
{
	for (int i = 0; r->sa_saved && i < 8; i++)
		sigaction(handled_sigs[i], &r->saved_sa[i], NULL);
}

/* Our controlling terminal, if one of fds 0, 2, 1 is it. */
static int controlling_tty(void)
{
	static const int fds[3] = { STDIN_FILENO, STDERR_FILENO, STDOUT_FILENO };

	for (int i = 0; i < 3; i++)
		if (isatty(fds[i]) && tcgetsid(fds[i]) == getsid(0))
			return fds[i];
	return -1;
}

/* Give the terminal to the workload's group when our group has it (we are in the
 * foreground), and continue the group. */
static void resume_workload(struct record *r)
{
	if (r->pgid <= 0)
		return;
	if (r->tty_fd >= 0 && tcgetpgrp(r->tty_fd) == getpgrp())
		tcsetpgrp(r->tty_fd, r->pgid);
	kill(-r->pgid, SIGCONT);
}

/* Take the terminal back from the workload's group. */
static void reclaim_tty(struct record *r)
{
	if (r->tty_fd >= 0 && r->pgid > 0 && tcgetpgrp(r->tty_fd) == r->pgid)
		tcsetpgrp(r->tty_fd, getpgrp());
}

/* Ctrl-Z stopped the workload: stop with it, so the shell sees its job stopped. */
static void job_stopped(struct record *r, int sig)
{
	if (sig != SIGTSTP || r->tty_fd < 0 || r->stopping)
		return; /* kill -STOP from elsewhere, SIGTTIN in the background: left alone */
	reclaim_tty(r);
	kill(0, SIGTSTP); /* returns once we are continued (fg or bg) */
	resume_workload(r);
}

/* Collect what happened to the workload's leader, and reap the orphans of its group that
 * came to us as their subreaper. */
static void reap(struct record *r)
{
	pid_t p;
	int st;

	while ((p = waitpid(-1, &st, WNOHANG | WUNTRACED)) > 0) {
		if (p != r->child || r->child_done)
			continue;
		if (WIFSTOPPED(st)) {
			job_stopped(r, WSTOPSIG(st));
			continue;
		}
		r->wstatus = st;
		r->child_done = true;
	}
}

/* Wait up to @secs for the workload's leader to end by itself. */
static void wait_leader(struct record *r, double secs)
{
	const struct timespec tick = { 0, 1000 * 1000 };
	double deadline = now_s() + secs;

	for (reap(r); r->pgid > 0 && !r->child_done && now_s() < deadline; reap(r))
		nanosleep(&tick, NULL);
}

/* End the workload's process group and reap its leader (whose status is kept): SIGTERM
 * (and SIGCONT, for stopped members), then SIGKILL to what is left after STOP_GRACE_S.
 * Also when the leader already ended: its children must not outlive the run. */
static void stop_workload(struct record *r)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	double deadline;
	bool killed = false;

	if (r->cork_fd >= 0) { /* never started: it exits without exec */
		close(r->cork_fd);
		r->cork_fd = -1;
	}
	if (r->pgid <= 0)
		return;
	r->stopping = true;
	reap(r);
	if (!r->child_done)
		r->killed_by_us = true;
	if (!kill(-r->pgid, SIGTERM)) {
		kill(-r->pgid, SIGCONT);
		if (r->child_done)
			r->leftovers = 1;
	}
	deadline = now_s() + STOP_GRACE_S;
	for (;;) {
		reap(r);
		if (r->child_done && kill(-r->pgid, 0) && errno == ESRCH)
			break; /* nothing of the group is left */
		if (now_s() >= deadline) {
			if (killed)
				break; /* left to init (uninterruptible sleep?) */
			kill(-r->pgid, SIGKILL);
			killed = true;
			if (r->leftovers || r->child_done)
				r->leftovers = 2;
			deadline = now_s() + STOP_GRACE_S;
		}
		nanosleep(&tick, NULL);
	}
	if (!r->child_done && waitpid(r->child, &r->wstatus, 0) == r->child)
		r->child_done = true;
	reclaim_tty(r);
	r->pgid = 0;
	r->child = 0;
}

static int start_workload(struct record *r, char *err, size_t errlen)
{
	int cork[2], status[2];
	pid_t parent = getpid();

	if (pipe2(cork, O_CLOEXEC) || pipe2(status, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -errno;
	}
	/* orphans of the workload come to us: reaped, and stopped with its group */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	r->child = fork();
	if (r->child < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -errno;
	}
	if (r->child == 0) {
		char c;
		int e;

		close(cork[1]);
		close(status[0]);
		restore_signals(r);
		setpgid(0, 0);
		/* hwsample killed outright: the workload does not run on unobserved */
		prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
		if (getppid() != parent)
			_exit(127);
		/* pipe mode: what the workload prints goes to stderr, never into the stream */
		if (r->pipe_out && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		/* wait until the parent has opened the events */
		if (read(cork[0], &c, 1) != 1)
			_exit(127);
		execvp(r->argv[0], r->argv);
		e = errno;
		if (write(status[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(r->child, r->child); /* also here: kill(-pgid) works from now on */
	r->pgid = r->child;
	close(cork[0]);
	close(status[1]);
	r->cork_fd = cork[1];
	r->exec_status_fd = status[0];
	return 0;
}

static int go_workload(struct record *r, char *err, size_t errlen)
{
	int e = 0;
	ssize_t n;

	/* in the foreground of a terminal: the workload's group takes it, as a shell's job */
	if (r->tty_fd >= 0 && tcgetpgrp(r->tty_fd) == getpgrp())
		r->tty_given = !tcsetpgrp(r->tty_fd, r->pgid);
	if (write(r->cork_fd, "x", 1) != 1) {
		snprintf(err, errlen, "cannot start the workload: %s", strerror(errno));
		return -errno;
	}
	close(r->cork_fd);
	r->cork_fd = -1;
	n = read(r->exec_status_fd, &e, sizeof(e));
	close(r->exec_status_fd);
	r->exec_status_fd = -1;
	if (n == sizeof(e)) {
		snprintf(err, errlen, "cannot run '%s': %s", r->argv[0], strerror(e));
		return -e;
	}
	return 0;
}

/* The exit status a shell gives a process that ended with @st (128+N for signal N). */
static int status_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return HWS_EXIT_ERROR;
}

static void print_workload_end(const struct record *r)
{
	int st = r->wstatus;

	if (WIFEXITED(st))
		fprintf(stderr, "  workload exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		fprintf(stderr, "  workload killed by signal %d (%s)%s", WTERMSIG(st),
			strsignal(WTERMSIG(st)), WCOREDUMP(st) ? ", core dumped" : "");
	fprintf(stderr, "%s\n", r->killed_by_us ? ": hwsample stopped it" : "");
	if (r->leftovers)
		fprintf(stderr,
			"  processes the workload started were still running in its process "
			"group: hwsample stopped them (SIGTERM%s)\n",
			r->leftovers > 1 ? ", then SIGKILL" : "");
}

/* -o -: the stream needs a writable stdout (checked before anything is opened). */
static int check_stdout(const struct hws_cli *cli)
{
	int fl = fcntl(STDOUT_FILENO, F_GETFL);

	if ((cli->stdio_closed & (1u << STDOUT_FILENO)) || fl < 0) {
		fprintf(stderr,
			"hwsample: -o -: standard output is closed, and pipe mode writes the "
			"perf.data stream there: connect it to a reader (| hwsample dump -i -) or "
			"a file, or give -o FILE\n");
		return -1;
	}
	if ((fl & O_ACCMODE) == O_RDONLY) {
		fprintf(stderr,
			"hwsample: -o -: standard output is open for reading only; pipe "
			"mode writes the perf.data stream there: redirect it to a reader or a "
			"file, or give -o FILE\n");
		return -1;
	}
	return 0;
}

/* -o -: its reader went away (a pipe whose read end is closed polls as POLLERR). */
static bool stdout_reader_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

static bool is_optional(const char *key)
{
	size_t l = strlen(key);

	return l > 1 && l < 48 && key[l - 1] == '?';
}

static bool pmu_has_control(const struct job *jb, const char *key)
{
	struct hws_control_info ci[64];
	int n;

	if (!jb->b->ops->controls)
		return false;
	n = jb->b->ops->controls(jb->b->priv, jb->pmu, ci, 64);
	for (int i = 0; i < n && i < 64; i++)
		if (!strcmp(ci[i].name, key))
			return true;
	return false;
}

static void print_item(struct hws_strbuf *sb, const char *sec, const struct hws_config_item *it)
{
	char kv[512];

	snprintf(kv, sizeof(kv), "%s.%s = %s", sec, it->key, it->value);
	hws_strbuf__addf(sb, "    %-44s %s\n", kv, it->origin);
}

/* Where every value came from, which sections were chosen and why the others were not. */
static void print_provenance(struct record *r, struct hws_strbuf *sb, struct hws_registry *reg)
{
	hws_strbuf__addf(sb, "config: %s (value, then where it came from)\n", r->cfg->path);
	for (int i = 0; i < r->cfg->nr_sections; i++) {
		const struct hws_config_section *sec = &r->cfg->sections[i];
		bool chosen = is_run(sec);
		char why[512] = "";

		for (int j = 0; j < r->nr_jobs; j++)
			chosen |= r->jobs[j].sec == sec;
		if (!is_run(sec)) {
			struct hws_backend *b = hws_registry__find(reg, sec->name);
			if (!chosen && b && b->ops->detect(b->priv, why, sizeof(why)) > 0)
				snprintf(why, sizeof(why), "another backend was chosen");
			char at[300] = " (command line)";
			if (sec->line)
				snprintf(at, sizeof(at), " at %s:%d", r->cfg->path, sec->line);
			hws_strbuf__addf(sb, "  [%s]%s: %s%s\n", sec->name, at,
					 chosen ? "selected" : "not selected: ", chosen ? "" : why);
		}
		for (int k = 0; k < sec->nr_items; k++) {
			const struct hws_config_item *it = &sec->items[k];
			print_item(sb, sec->name, it);
			for (int j = 0; j < r->nr_jobs; j++) {
				char key[48];
				if (r->jobs[j].sec != sec || !is_optional(it->key))
					continue;
				snprintf(key, sizeof(key), "%.*s", (int)strlen(it->key) - 1, it->key);
				if (!pmu_has_control(&r->jobs[j], key))
					hws_strbuf__addf(sb, "      (skipped: %s has no %s here)\n",
							 r->jobs[j].pmu ? r->jobs[j].pmu
									: r->jobs[j].b->ops->name,
							 key);
			}
		}
	}
	for (int k = 0; k < r->nr_controls; k++) {
		char kv[512];
		snprintf(kv, sizeof(kv), "%s=%s", r->controls[k].key, r->controls[k].value);
		hws_strbuf__addf(sb, "    %-44s command line (selected sections that have it)\n", kv);
	}
}

static void print_dry_run(struct record *r, struct hws_registry *reg)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	int n = hws_session__nr_events(r->sess);

	if (r->cfg)
		print_provenance(r, &sb, reg);
	for (int e = 0; e < n; e++) {
		hws_strbuf__addf(&sb, "event %d: %s (pmu %s, backend %s)\n", e,
				 hws_session__event_name(r->sess, e), hws_session__event_pmu(r->sess, e),
				 hws_session__event_backend(r->sess, e));
		for (int j = 0; r->cfg && j < r->nr_jobs; j++) {
			const struct job *jb = &r->jobs[j];
			if (e < jb->first_event || e >= jb->first_event + jb->nr_events)
				continue;
			if (jb->sec && jb->sec->line)
				hws_strbuf__addf(&sb, "  from [%s] at %s:%d\n", jb->sec->name,
						 r->cfg->path, jb->sec->line);
			else
				hws_strbuf__addf(&sb, "  from backend %s%s%s (defaults)\n",
						 jb->b->ops->name, jb->pmu ? " pmu " : "",
						 jb->pmu ? jb->pmu : "");
		}
		hws_attr__print(hws_session__attr(r->sess, e), &sb, "  ");
	}
	hws_strbuf__addf(&sb, "mode: %s\n",
			 r->system_wide ? "system-wide (-a)"
			 : r->cpu_list	? "cpu list (-C)"
			 : r->per_thread ? "per-thread"
					 : "default (per-CPU rings, target threads, inherit)");
	hws_strbuf__addf(&sb, "mmap pages: %u per ring\n", hws_session__mmap_pages(r->sess));
	if (r->cfg || r->duration > 0) {
		hws_strbuf__addf(&sb, "output: %s\n", r->output);
		if (r->duration > 0)
			hws_strbuf__addf(&sb, "duration: %g s\n", r->duration);
	}
	if (r->cfg) {
		static const char *const keys[] = { "mode", "mmap_pages", "aux_pages", "output",
						    "duration" };
		hws_strbuf__addf(&sb, "where from:");
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			const struct hws_config_item *it = hws_config__get(r->cfg, "run", keys[k]);
			hws_strbuf__addf(&sb, "%s %s %s", k ? "," : "", keys[k],
					 it ? it->origin : "default");
		}
		hws_strbuf__addf(&sb, "\n");
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	hws_strbuf__release(&sb);
}

static void human_bytes(uint64_t b, char *buf, size_t len)
{
	if (b >= 10ull << 20)
		snprintf(buf, len, "%.1f MB", b / 1048576.0);
	else
		snprintf(buf, len, "%.1f KB", b / 1024.0);
}

/* The session's totals, which the status line and the summary both show. */
struct loss_totals {
	uint64_t samples, lost, lost_samples, throttle, aux_truncated, aux_collision;
};

static void loss_totals(struct record *r, struct loss_totals *t)
{
	int ne = hws_session__nr_events(r->sess), ns = hws_session__nr_cpu_slots(r->sess);

	memset(t, 0, sizeof(*t));
	for (int e = 0; e < ne; e++) {
		for (int sl = 0; sl < ns; sl++) {
			const struct hws_loss_stats *st = hws_session__stats(r->sess, e, sl);
			if (!st)
				continue;
			t->samples += st->samples;
			t->lost += st->lost;
			t->lost_samples += st->lost_samples;
			t->throttle += st->throttle;
			t->aux_truncated += st->aux_truncated;
			t->aux_collision += st->aux_collision;
		}
	}
}

/*
 * The loss counters in the words of both the status line and the summary: "lost N records"
 * (PERF_RECORD_LOST), "lost samples N" (PERF_RECORD_LOST_SAMPLES), "throttled N times",
 * "AUX truncated N collisions N". @all: every counter (the summary); else only those that
 * are not 0, or "nothing lost" (the status line, which must fit a terminal line).
 */
static void loss_words(const struct loss_totals *t, bool all, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
#define ADD(cond, ...)                                                                             \
	do {                                                                                       \
		if ((all || (cond)) && n < len)                                                    \
			n += (size_t)snprintf(buf + n, len - n, "%s", n ? ", " : "");              \
		if ((all || (cond)) && n < len)                                                    \
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);                      \
	} while (0)
	ADD(t->lost, "lost %" PRIu64 " records", t->lost);
	ADD(t->lost_samples, "lost samples %" PRIu64, t->lost_samples);
	ADD(t->throttle, "throttled %" PRIu64 " times", t->throttle);
	all = false; /* AUX counters only when there are some, in both */
	ADD(t->aux_truncated || t->aux_collision, "AUX truncated %" PRIu64 " collisions %" PRIu64,
	    t->aux_truncated, t->aux_collision);
#undef ADD
	if (!n)
		snprintf(buf, len, "nothing lost");
}

static void print_summary(struct record *r, uint64_t file_size)
{
	int ne = hws_session__nr_events(r->sess), ns = hws_session__nr_cpu_slots(r->sess);
	struct loss_totals t;
	char sz[32], loss[256];

	loss_totals(r, &t);
	fprintf(stderr, "[ hwsample: recorded %s ]\n", r->output);
	for (int e = 0; e < ne; e++) {
		uint64_t es = 0;
		fprintf(stderr, "  %-28s", hws_session__event_name(r->sess, e));
		for (int sl = 0; sl < ns; sl++) {
			const struct hws_loss_stats *st = hws_session__stats(r->sess, e, sl);
			if (st)
				es += st->samples;
		}
		fprintf(stderr, " %10" PRIu64 " samples  (", es);
		int first = 1;
		for (int sl = 0; sl < ns; sl++) {
			const struct hws_loss_stats *st = hws_session__stats(r->sess, e, sl);
			if (!st || (!st->samples && !st->lost && !st->lost_samples && !st->throttle))
				continue;
			int cpu = hws_session__slot_cpu(r->sess, sl);
			if (cpu >= 0)
				fprintf(stderr, "%scpu%d %" PRIu64, first ? "" : ", ", cpu, st->samples);
			else
				fprintf(stderr, "%scpu? %" PRIu64, first ? "" : ", ", st->samples);
			/* the words of the total line (loss_words()) */
			if (st->lost)
				fprintf(stderr, " lost %" PRIu64 " records", st->lost);
			if (st->lost_samples)
				fprintf(stderr, " lost samples %" PRIu64, st->lost_samples);
			if (st->throttle)
				fprintf(stderr, " throttled %" PRIu64 " times", st->throttle);
			first = 0;
		}
		fprintf(stderr, "%s)\n", first ? "none" : "");
	}
	human_bytes(file_size, sz, sizeof(sz));
	loss_words(&t, true, loss, sizeof(loss));
	fprintf(stderr, "  total %" PRIu64 " samples, %s; ring max fill %u%%; %s written\n",
		t.samples, loss, hws_session__max_fill_pct(r->sess), sz);
	if (hws_session__has_aux(r->sess)) {
		struct hws_aux_stats as;
		hws_session__aux_stats(r->sess, &as);
		fprintf(stderr,
			"  AUX: %" PRIu64 " bytes in %" PRIu64 " chunks, %" PRIu64 " PERF_RECORD_AUX: "
			"truncated %" PRIu64 ", partial %" PRIu64 ", collision %" PRIu64
			", gaps %" PRIu64 ", overruns %" PRIu64 "%s\n",
			as.bytes, as.chunks, as.aux_records, as.truncated, as.partial, as.collision,
			as.gaps, as.overruns, r->snapshot ? " (snapshot mode)" : "");
		if (as.truncated || as.overruns)
			fprintf(stderr, "  WARNING: AUX data was lost: use more AUX pages (-m ,N) or a "
				"longer sampling interval\n");
	}
	if (hws_session__ring_errors(r->sess))
		fprintf(stderr, "  WARNING: %" PRIu64 " malformed ring records skipped\n",
			hws_session__ring_errors(r->sess));
	if (t.lost)
		fprintf(stderr,
			"  WARNING: %" PRIu64 " records were lost because the ring was full: "
			"use a larger -m (now %u pages) or a lower -F/-c rate\n",
			t.lost, hws_session__mmap_pages(r->sess));
	if (t.throttle)
		fprintf(stderr,
			"  WARNING: the kernel throttled sampling %" PRIu64 " times "
			"(kernel.perf_event_max_sample_rate): lower -F or raise the limit\n",
			t.throttle);
	if (strcmp(r->output, "-"))
		fprintf(stderr, "  next: hwsample report -i %s   (or: perf report -i %s)\n", r->output,
			r->output);
}

/*
 * A write to the output file failed (ENOSPC, EDQUOT, EIO ...): the problem and its fix,
 * what the file holds (every whole record that reached it: its header says so, readers
 * read it) and what could not be written (@st: taken before the writer was closed).
 */
static void write_failed(const struct record *r, int err, const struct hws_perf_writer_stats *st,
			 char *buf, size_t len)
{
	const char *fix = NULL;
	char what[128], held[32], lost[32];

	switch (-err) {
	case ENOSPC:
		fix = "free space on its file system or record to another one (-o FILE), or record "
		      "less (--duration, a lower -F, fewer events)";
		break;
	case EDQUOT:
		fix =
		    "raise the disk quota, free space, or record to another file system (-o FILE)";
		break;
	case EFBIG:
		fix = "the file system or the file size limit (ulimit -f) caps the file: record "
		      "less, or to another file system (-o FILE)";
		break;
	case EIO:
		fix = "the device failed (see dmesg): record to another file system (-o FILE)";
		break;
	}
	snprintf(what, sizeof(what), "%s", strerror(-err));
	what[0] = (char)tolower((unsigned char)what[0]);
	human_bytes(st->data_size, held, sizeof(held));
	human_bytes(st->lost_bytes, lost, sizeof(lost));
	snprintf(buf, len,
		 "%s: %s%s%s\nhwsample: %s holds %" PRIu64 " samples (%" PRIu64
		 " records, %s of data) up to the last whole record that reached it; not written: "
		 "%" PRIu64 " records (%" PRIu64 " samples, %" PRIu64 " bytes, %s); recording "
		 "stopped there%s",
		 what, r->output, fix ? ": " : "", fix ? fix : "", r->output, st->samples,
		 st->records, held, st->lost_records, st->lost_samples, st->lost_bytes, lost,
		 st->err ? ""
			 : "; the header features did not fit: readers call the file unfinished");
}

/*
 * One line on the terminal, rewritten in place about once a second: elapsed time, samples
 * and their rate, loss, bytes written, ring (and AUX) fill. Cut to the terminal width so
 * it never wraps (a wrapped line could not be rewritten with \r).
 */
static void status_line(struct record *r, bool force)
{
	uint64_t samples;
	double t = now_s(), dt = t - r->st_last;
	char line[512], sz[32], loss[256];
	struct loss_totals lt;
	struct winsize ws;
	int n, cols = 80;

	if (!r->status_on || (!force && dt < 1.0))
		return;
	loss_totals(r, &lt);
	samples = lt.samples;
	/* loss first: a narrow terminal cuts the end of the line */
	loss_words(&lt, false, loss, sizeof(loss));
	human_bytes(r->bytes, sz, sizeof(sz));
	n = snprintf(line, sizeof(line),
		     "[ %.0fs ] %" PRIu64 " samples (%.0f/s), %s, %s written, ring max %u%%",
		     t - r->t0, samples, dt > 0 ? (double)(samples - r->st_last_samples) / dt : 0.0,
		     loss, sz, hws_session__max_fill_pct(r->sess));
	if (hws_session__has_aux(r->sess) && n > 0 && (size_t)n < sizeof(line)) {
		struct hws_aux_stats as;
		uint64_t area = (uint64_t)(r->aux_pages ? r->aux_pages : HWS_SESSION_DEFAULT_AUX_PAGES) *
				(uint64_t)sysconf(_SC_PAGESIZE);
		hws_session__aux_stats(r->sess, &as);
		human_bytes(as.bytes, sz, sizeof(sz));
		snprintf(line + n, sizeof(line) - (size_t)n, ", AUX %s, max %" PRIu64 "%%", sz,
			 area ? as.max_fill * 100 / area : 0);
	}
	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 10)
		cols = ws.ws_col;
	if ((int)strlen(line) > cols - 1)
		line[cols - 1] = 0;
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	r->status_shown = true;
	r->st_last = t;
	r->st_last_samples = samples;
}

static void status_clear(struct record *r)
{
	if (r->status_shown)
		fputs("\r\033[K", stderr);
	r->status_shown = false;
}

/* the run whose status line a library message erases first (hws_cli__set_before_message) */
static struct record *status_rec;

static void status_erase(void)
{
	if (status_rec)
		status_clear(status_rec);
}

static int drain(struct record *r)
{
	int64_t n = r->overwrite ? 0 : hws_session__read(r->sess, write_record, r);

	if (n < 0)
		return (int)n;
	return finished_round(r);
}

/* Encode the events of one job: its events (command line > section > [run]), controls
 * (section, overridden by the command line) and rate (command line > section > [run]). */
static int encode_job(struct record *r, struct hws_registry *reg, struct job *jb,
		      struct hws_event_desc *all, const char **owner, int *base_of, int *nall)
{
	const struct hws_config_section *sec = jb->sec;
	struct hws_control ctl[MAX_CONTROLS];
	char *evs[MAX_EVENTS], *evcopy = NULL, err[2048] = "";
	char optkeys[MAX_CONTROLS][48];
	int nev = 0, nctl = 0, ret = 0, nopt = 0;
	uint64_t period = r->period, freq = r->freq;

	if (r->nr_events) {
		for (int i = 0; i < r->nr_events; i++)
			evs[nev++] = r->events[i];
	} else if (r->cfg) {
		const struct hws_config_item *it = sec ? hws_config__get(r->cfg, sec->name, "events")
						       : hws_config__get(r->cfg, "run", "events");
		char *save = NULL;
		if (it) {
			evcopy = strdup(it->value);
			for (char *t = strtok_r(evcopy, ", \t", &save); t && nev < MAX_EVENTS;
			     t = strtok_r(NULL, ", \t", &save))
				evs[nev++] = t;
		}
	}
	for (int i = 0; sec && i < sec->nr_items && nctl < MAX_CONTROLS; i++) {
		const struct hws_config_item *it = &sec->items[i];
		const char *key = it->key;
		bool over = false;
		if (hws_config__is_backend_key(it->key))
			continue;
		if (is_optional(key)) {
			snprintf(optkeys[nopt], sizeof(optkeys[0]), "%.*s", (int)strlen(key) - 1, key);
			key = optkeys[nopt];
			if (!pmu_has_control(jb, key))
				continue; /* "key?": not on this PMU */
			nopt++;
		}
		for (int k = 0; k < r->nr_controls; k++)
			over |= !strcmp(r->controls[k].key, key);
		if (!over)
			ctl[nctl++] = (struct hws_control){ .key = key, .value = it->value };
	}
	for (int k = 0; k < r->nr_controls && nctl < MAX_CONTROLS; k++) {
		bool anyone = false;
		/* with several backends, a command-line control goes to those that know it */
		if (r->nr_jobs > 1) {
			for (int j = 0; j < r->nr_jobs; j++)
				anyone |= pmu_has_control(&r->jobs[j], r->controls[k].key);
			if (anyone && !pmu_has_control(jb, r->controls[k].key))
				continue;
		}
		ctl[nctl++] = r->controls[k];
	}
	if (sec) {
		const struct hws_config_item *p = hws_config__get(r->cfg, sec->name, "period");
		const struct hws_config_item *f = hws_config__get(r->cfg, sec->name, "freq");
		if (p && !hws_config__uint(p, 1, INT64_MAX, &period, err, sizeof(err)))
			freq = 0;
		if (f && !hws_config__uint(f, 1, UINT32_MAX, &freq, err, sizeof(err)))
			period = 0;
	}

	jb->first_event = *nall;
	for (int i = 0; i < (nev ? nev : 1); i++) {
		struct hws_event_desc descs[8] = {0}; /* config3/config4 words stay 0 unless set */
		struct hws_event_request req = {
			.sz = sizeof(req),
			.pmu = jb->pmu,
			.event = nev ? evs[i] : NULL,
			.controls = ctl,
			.nr_controls = (uint32_t)nctl,
			.kernel_version = kernel_version(),
			.period = period,
			.freq = freq,
			.flags = (r->per_thread ? HWS_REQ_PER_THREAD : 0) |
				 (r->system_wide || r->cpu_list ? HWS_REQ_SYSTEM_WIDE : 0) |
				 (r->phys_data ? HWS_REQ_PHYS_ADDR : 0) |
				 (r->c2c ? HWS_REQ_C2C : 0) |
				 (r->dry_run ? HWS_REQ_DRY_RUN : 0),
		};
		struct hws_backend *b = jb->b, *eb = b;
		char alt[256], *bar;
		int n;

		/* "A|B": the first alternative this machine knows (event names differ between
		 * CPU generations); the error of the first one is the one reported */
		if (nev && r->cfg && strchr(evs[i], '|')) {
			char e1[2048] = "";
			const char *rest = evs[i];
			n = -1;
			while (rest && n < 0) {
				bar = strchr(rest, '|');
				snprintf(alt, sizeof(alt), "%.*s", bar ? (int)(bar - rest) : (int)strlen(rest),
					 rest);
				rest = bar ? bar + 1 : NULL;
				req.event = alt;
				memset(descs, 0, sizeof(descs));
				n = b->ops->encode(b->priv, &req, descs, 8, err, sizeof(err));
				if (n < 0 && !*e1)
					snprintf(e1, sizeof(e1), "%s", err);
			}
			if (n < 0)
				snprintf(err, sizeof(err), "none of '%s' is known here; %.1800s", evs[i], e1);
		} else {
			n = b->ops->encode(b->priv, &req, descs, 8, err, sizeof(err));
		}
		if (n < 0 && !r->backend && !r->cfg && r->nr_jobs == 1) {
			/* no -b: try the event on every other backend */
			for (int k = 0; k < hws_registry__count(reg) && n < 0; k++) {
				struct hws_backend *o = hws_registry__at(reg, k);
				char e2[512];
				if (o == b)
					continue;
				memset(descs, 0, sizeof(descs));
				int m = o->ops->encode(o->priv, &req, descs, 8, e2, sizeof(e2));
				if (m > 0) {
					n = m;
					eb = o;
				}
			}
		}
		if (n <= 0) {
			if (sec && sec->line)
				fprintf(stderr, "hwsample: %s:%d: [%s]: %s\n", r->cfg->path, sec->line,
					sec->name,
					*err ? hws_cli__lib_text(err) : "backend produced no event");
			else
				fprintf(stderr, "hwsample: %s\n",
					*err ? hws_cli__lib_text(err) : "backend produced no event");
			ret = n < 0 ? hws_cli__exit_code(n) : HWS_EXIT_ERROR;
			goto out;
		}
		int base = *nall;
		for (int k = 0; k < n; k++) {
			if (*nall == 64) {
				fprintf(stderr, "hwsample: too many events (max 64)\n");
				ret = HWS_EXIT_USAGE;
				goto out;
			}
			if (r->data_addr)
				descs[k].attr.sample_type |= PERF_SAMPLE_ADDR;
			all[*nall] = descs[k];
			owner[*nall] = eb->ops->name;
			base_of[*nall] = base;
			(*nall)++;
		}
	}
	jb->nr_events = *nall - jb->first_event;
out:
	free(evcopy);
	return ret;
}

int cmd_record(struct hws_cli *cli, int argc, char **argv)
{
	struct record rec = { .output = "hwsample.data", .cork_fd = -1, .exec_status_fd = -1,
			      .tty_fd = -1 };
	struct record *r = &rec;
	struct hws_registry *reg;
	struct hws_backend *b;
	const char *pmu = NULL;
	char err[2048] = "";
	int ret, exit_code = HWS_EXIT_ERROR;
	bool runtime_err = false, started = false, moved_old = false;
	char old_path[PATH_MAX] = "";
	pid_t target = 0; /* the workload, when it is what is profiled (no -p/-a/-C) */
	bool profile_workload, reraise = false;

	r->verbose = cli->verbose;
	if (parse_args(r, argc, argv)) {
		exit_code = HWS_EXIT_USAGE;
		goto out;
	}
	reg = hws_cli__registry(cli);
	if (!reg)
		goto out;
	if (r->config_path) {
		ret = load_config(r, reg);
		if (ret) {
			exit_code = hws_cli__exit_code(ret);
			goto out;
		}
	}
	r->pipe_out = !strcmp(r->output, "-");
	if (r->pipe_out && !r->dry_run && check_stdout(cli)) {
		exit_code = HWS_EXIT_USAGE;
		goto out;
	}
	/* which backends (and PMUs, and config sections) to encode with */
	if (r->cfg && (!r->backend || !strcmp(r->backend, "auto"))) {
		ret = select_auto(r, reg);
		if (ret < 0) {
			exit_code = ret == HWS_E_NO_BACKEND ? HWS_EXIT_UNSUPPORTED : HWS_EXIT_USAGE;
			goto out;
		}
	}
	if (!r->nr_jobs && r->backend && strcmp(r->backend, "auto") &&
	    (r->cfg || strchr(r->backend, ','))) {
		ret = select_list(r, reg, r->backend);
		if (ret) {
			exit_code = HWS_EXIT_USAGE;
			goto out;
		}
	}
	if (!r->nr_jobs) {
		b = pick_backend(r, reg, &pmu);
		if (!b || add_job(r, b, pmu, NULL)) {
			exit_code = HWS_EXIT_USAGE;
			goto out;
		}
	}
	if (check_backend_options(r)) {
		exit_code = HWS_EXIT_USAGE;
		goto out;
	}
	if (!r->dry_run) {
		for (int j = 0; j < r->nr_jobs; j++) {
			char why[512] = "";
			b = r->jobs[j].b;
			if (b->ops->detect(b->priv, why, sizeof(why)) <= 0) {
				fprintf(stderr, "hwsample: backend %s is not usable here: %s\n",
					b->ops->name, why);
				exit_code = HWS_EXIT_UNSUPPORTED;
				goto out;
			}
		}
	}

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
	};
	/* encode every event of every job */
	static struct hws_event_desc all[64];
	const char *owner[64];
	int base_of[64], nall = 0;
	for (int j = 0; j < r->nr_jobs; j++) {
		ret = encode_job(r, reg, &r->jobs[j], all, owner, base_of, &nall);
		if (ret) {
			exit_code = ret;
			goto out;
		}
	}
	if (check_phys(r, reg, all, owner, nall)) {
		exit_code = HWS_EXIT_USAGE;
		goto out;
	}

	/* with -p, -a or -C the workload only times the run (perf record -p PID -- sleep 1):
	 * their events are enabled at once; otherwise the workload is profiled from its exec */
	profile_workload = !r->nr_pids && !r->system_wide && !r->cpu_list;
	if (!r->dry_run) {
		install_signals(r);
		if (r->argc) {
			r->tty_fd = controlling_tty();
			ret = start_workload(r, err, sizeof(err));
			if (ret)
				goto fail;
			if (profile_workload)
				target = r->child;
		}
	} else if (profile_workload) {
		target = getpid(); /* stands for the workload: nothing is opened */
	}
	so.pids = target ? &target : r->pids;
	so.nr_pids = target ? 1 : r->nr_pids;
	so.enable_on_exec = r->argc > 0 && profile_workload;
	r->sess = hws_session__new(&so);
	if (!r->sess) {
		ret = -ENOMEM;
		goto fail;
	}
	for (int k = 0; k < nall; k++) {
		ret = hws_session__add_event(r->sess, &all[k], owner[k], base_of[k]);
		if (ret < 0)
			goto fail;
	}
	if (r->dry_run) {
		ret = hws_session__prepare(r->sess, err, sizeof(err));
		if (ret)
			goto fail;
		print_dry_run(r, reg);
		exit_code = HWS_EXIT_OK;
		goto out;
	}
	ret = hws_session__open(r->sess, err, sizeof(err));
	if (ret)
		goto fail;

	/* output file: keep a previous one as .old, as perf does */
	if (strcmp(r->output, "-")) {
		struct stat st;
		snprintf(old_path, sizeof(old_path), "%s.old", r->output);
		if (!stat(r->output, &st) && S_ISREG(st.st_mode))
			moved_old = !rename(r->output, old_path);
	}
	r->w = hws_perf_writer__new(r->output, false);
	if (!r->w) {
		ret = -errno;
		runtime_err = true;
		snprintf(err, sizeof(err), "cannot create %s: %s", r->output, strerror(errno));
		goto fail;
	}
	for (int e = 0; e < hws_session__nr_events(r->sess); e++) {
		size_t nids;
		const uint64_t *ids = hws_session__ids(r->sess, e, &nids);
		ret = hws_perf_writer__add_attr(r->w, hws_session__attr(r->sess, e),
						hws_session__event_name(r->sess, e), ids, nids);
		if (ret < 0) {
			snprintf(err, sizeof(err), "writing the event list: %s", strerror(-ret));
			goto fail;
		}
	}
	/* pipe mode: the tracepoint formats go before the first sample, so that a reader can
	 * decode the samples' raw fields (a file gets them at the end, as perf record does) */
	if (r->pipe_out)
		add_tracing_data(r);

	if (hws_session__has_aux(r->sess)) {
		hws_session__set_aux_writer(r->sess, write_auxtrace, r);
		ret = write_aux_headers(r, reg);
		if (ret < 0) {
			snprintf(err, sizeof(err), "writing the AUX headers: %s", strerror(-ret));
			runtime_err = true;
			goto fail;
		}
	}

	/* side-band for what already exists */
	{
		size_t nids;
		const uint64_t *ids = hws_session__ids(r->sess, 0, &nids);
		uint64_t id0 = nids ? ids[0] : 0;
		const struct hws_perf_event_attr *a0 = hws_session__attr(r->sess, 0);
		hws_synth__kernel_mmap(a0, id0, write_synth, r);
		if (r->system_wide || r->cpu_list)
			hws_synth__threads(a0, id0, -1, r->data_addr, write_synth, r);
		else if (!profile_workload)
			for (int i = 0; i < r->nr_pids; i++)
				hws_synth__threads(a0, id0, r->pids[i], r->data_addr, write_synth, r);
		finished_round(r);
	}

	/* per-task events on a workload start at its exec (enable_on_exec); everything else
	 * is enabled here, before the workload is released */
	if (!so.enable_on_exec)
		hws_session__enable(r->sess);
	if (r->argc && !r->write_err) { /* (-o -: a reader gone already stops the run) */
		ret = go_workload(r, err, sizeof(err));
		if (ret) {
			runtime_err = true;
			goto fail;
		}
	}
	started = true;
	r->t0 = r->st_last = now_s();
	r->status_on = !r->quiet && !r->no_status && isatty(STDERR_FILENO);
	if (r->status_on) {
		status_rec = r;
		hws_cli__set_before_message(status_erase);
	}
	bool timed_out = false;

	/* main loop */
	while (!done_sig && !r->write_err) {
		int wait_ms = 200;
		if (r->duration > 0) {
			double left = r->t0 + r->duration - now_s();
			if (left <= 0) {
				timed_out = true;
				break;
			}
			if (left * 1000 < wait_ms)
				wait_ms = (int)(left * 1000) + 1;
		}
		int p = hws_session__poll(r->sess, wait_ms);
		status_line(r, false);
		if (drain(r) < 0)
			break;
		if (snapshot_req) {
			snapshot_req = 0;
			if (r->overwrite)
				hws_session__read_overwrite(r->sess, write_record, r);
			if (r->snapshot)
				hws_session__aux_snapshot(r->sess);
			finished_round(r);
		}
		if (r->pgid > 0 && child_exited) {
			child_exited = 0;
			reap(r);
			if (r->child_done)
				break;
		}
		/* our group has the terminal again (fg after Ctrl-Z or bg): it goes back to the
		 * workload, which continues if it stopped for it (SIGTTIN) */
		cont_req = 0;
		if (r->pgid > 0 && r->tty_fd >= 0 && tcgetpgrp(r->tty_fd) == getpgrp())
			resume_workload(r);
		if (r->pipe_out && stdout_reader_gone()) {
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
			if (profile_workload)
				wait_leader(r, STOP_GRACE_S);
			break;
		}
	}

	status_clear(r);
	hws_cli__set_before_message(NULL);
	status_rec = NULL;
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
	stop_workload(r);
	if (!r->pipe_out)
		add_tracing_data(r);
	{
		char *argv_copy[256];
		int n = argc < 255 ? argc : 255;
		for (int i = 0; i < n; i++)
			argv_copy[i] = argv[i];
		argv_copy[n] = NULL;
		hws_perf_writer__add_host_features(r->w, n, argv_copy, -1);
	}
	uint64_t fsize = hws_perf_writer__data_size(r->w);
	struct hws_perf_writer_stats wst;
	hws_perf_writer__stats(r->w, &wst); /* complete: the last round flushed */
	ret = hws_perf_writer__close(r->w);
	r->w = NULL;
	if (r->pipe_out && (r->pipe_gone || ret == -EPIPE)) {
		if (!r->pipe_gone)
			fprintf(stderr, "hwsample: the reader of the output pipe went away\n");
		exit_code = HWS_EXIT_ERROR; /* the stream is incomplete */
		goto out;
	}
	if (!r->no_buildid_cache) {
		/* as perf record: the kernel's kallsyms kept by build-id, unless already there */
		int cerr = hws_buildid_cache__add_kernel(hws_cli__buildid_dir());

		/* quietly when there is nothing to copy (no build-id, kptr_restrict) */
		if (cerr && cerr != -ENOENT && cerr != -EPERM && r->verbose)
			fprintf(stderr, "hwsample: kallsyms not copied to the build-id cache (%s); "
				"kernel names of this file need this boot's /proc/kallsyms\n",
				strerror(-cerr));
	}
	if (!wst.pipe && (r->write_err || ret < 0)) {
		write_failed(r, r->write_err ? r->write_err : ret, &wst, err, sizeof(err));
		ret = r->write_err ? r->write_err : ret;
		runtime_err = true;
		goto fail;
	}
	if (ret < 0) {
		snprintf(err, sizeof(err), "finishing %s: %s", r->output, strerror(-ret));
		goto fail;
	}
	if (r->write_err) {
		snprintf(err, sizeof(err), "writing %s failed (%s): the file holds what was written "
			 "before the error", r->output, strerror(-r->write_err));
		ret = r->write_err;
		goto fail;
	}
	{
		struct stat st;
		if (strcmp(r->output, "-") && !stat(r->output, &st))
			fsize = (uint64_t)st.st_size;
	}
	if (!r->quiet)
		print_summary(r, fsize);
	if (done_sig && !r->quiet)
		fprintf(stderr, "  (stopped by signal %d; the file is complete)\n", (int)done_sig);
	else if (timed_out && !r->quiet)
		fprintf(stderr, "  (stopped after %g s (duration); the file is complete)\n",
			r->duration);
	if (r->child_done && !r->quiet)
		print_workload_end(r);
	/* the workload's status, as perf record; --duration ending it is a success, as
	 * perf stat --timeout */
	exit_code = HWS_EXIT_OK;
	if (r->child_done && !(timed_out && r->killed_by_us))
		exit_code = status_code(r->wstatus);
	/* Ctrl-C, which reached only the workload */
	reraise = r->child_done && r->tty_given && !r->killed_by_us && WIFSIGNALED(r->wstatus) &&
		  WTERMSIG(r->wstatus) == SIGINT;
	goto out;

fail:
	fprintf(stderr, "hwsample: %s\n", *err ? hws_cli__lib_text(err) : "recording failed");
	exit_code = runtime_err ? HWS_EXIT_ERROR : hws_cli__exit_code(ret);
	if (r->w) {
		hws_perf_writer__close(r->w);
		r->w = NULL;
		/* nothing was recorded: leave no file, and put back the one we moved */
		if (!started && strcmp(r->output, "-")) {
			unlink(r->output);
			if (moved_old)
				rename(old_path, r->output);
		}
	}
	stop_workload(r);
out:
	hws_session__delete(r->sess);
	hws_config__delete(r->cfg);
	hws_config__delete(r->over);
	for (int i = 0; i < r->nr_events; i++)
		free(r->events[i]);
	for (int i = 0; i < r->nr_controls; i++)
		free((char *)r->controls[i].key);
	restore_signals(r);
	if (reraise)
		kill(0, SIGINT); /* ends us too, unless SIGINT was ignored when we started */
	return exit_code;
}
