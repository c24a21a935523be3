// SPDX-License-Identifier: MIT
/*
 * hwsample record: the command line (core/cli/record.h). Options are read with
 * getopt_long, as the other commands do (short options group, -p1234 and --output=F
 * work, a long option may be shortened while it is unambiguous, as with perf), and
 * hwsample's own words, not getopt's, say what is wrong. What the command line gave is
 * also noted as config items ("command line"), which override a config file's and show
 * where each value came from in --dry-run.
 *
 * Invariants:
 *  - Nothing is opened and nothing but the usage is printed to stdout here.
 *  - -c ARG is a config file when ARG looks like one (looks_like_config()), else perf's
 *    period; bare KEY=VALUE words before the workload are controls; the first other word
 *    that is not an option starts the workload, and nothing after it is read ("--" ends
 *    the options too).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hwsample/config.h>

#include "record.h"

static const char record_usage[] =
    "usage: hwsample [record] [-c FILE.conf | --config FILE] [-b BACKEND|PMU[,...]]\n"
    "                [-e EVENT[,EVENT...]] [KEY=VALUE ...]\n"
    "                [-F FREQ | -c PERIOD] [-a | -C CPUS | -p PID | --per-thread]\n"
    "                [-m PAGES[,AUXPAGES]] [-o FILE] [--overwrite] [-S] [-d] [--phys-data]\n"
    "                [-g | --call-graph fp|dwarf[,SIZE]] [--objects[=min=N,depth=N]]\n"
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
    "  -g             call chains of every sample, by frame pointers (--call-graph fp)\n"
    "  --call-graph fp|dwarf[,SIZE]  call chains as perf record: fp (the kernel walks\n"
    "                 frame pointers) or dwarf (user registers and SIZE bytes of user stack,\n"
    "                 default 8192, copied per sample, unwound when reading); not for AUX\n"
    "                 trace events (arm_spe): their records carry no call chain\n"
    "  --objects[=min=N,depth=N]  record the allocations (malloc & co., mmap) of the\n"
    "                 program hwsample starts, for report --sort object and dump --json:\n"
    "                 blocks of at least N bytes (default 1024), call chains of depth\n"
    "                 frames (1-5, default 5); sample times use CLOCK_MONOTONIC (perf -k\n"
    "                 mono). Not for -p PID (attach) or pipe output. --no-objects: off\n"
    "  --duration S   stop recording, and the workload, after S seconds (2.5 allowed)\n"
    "  --dry-run      print every perf_event_attr that would be opened (and, with a\n"
    "                 config file, where each value came from); open nothing\n"
    "  -q             no summary, no status line\n"
    "  --no-status    no status line (it is shown only when stderr is a terminal)\n"
    "  -N, --no-buildid-cache  do not copy /proc/kallsyms and the files samples hit\n"
    "                 (the vDSO too) into perf's build-id cache (~/.debug, or\n"
    "                 $PERF_BUILDID_DIR) as perf record does; the copies let hwsample and\n"
    "                 perf name addresses after a reboot, a rebuild, or elsewhere\n"
    "  -B, --no-buildid  no build-ids in the file (HEADER_BUILD_ID left empty), no copies\n"
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

static int parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s)) {
		fprintf(stderr, "hwsample: %s '%s': expected a positive whole number\n", opt,
			hws_cli__text(s ? s : ""));
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "hwsample: %s '%s': expected a positive whole number\n", opt,
			hws_cli__text(s));
		return -1;
	}
	if (v == 0 || v > max) {
		fprintf(stderr, "hwsample: %s %s: out of range, valid 1..%" PRIu64 "\n", opt,
			hws_cli__text(s), max);
		return -1;
	}
	*out = v;
	return 0;
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
			fprintf(stderr,
				"hwsample: rounding -m %s up to %u pages (a power of two, "
				"as the kernel requires)\n",
				hws_cli__text(buf), r->pages);
	}
	if (comma && *comma) {
		if (parse_u64("-m (AUX pages)", comma, 1u << 22, &v))
			return -1;
		r->aux_pages = round_pow2(v);
		if (r->aux_pages != v)
			fprintf(stderr, "hwsample: rounding AUX pages %s up to %u\n",
				hws_cli__text(comma), r->aux_pages);
	}
	return 0;
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
	if (r->call_graph_arg)
		ret |= note(r, "call_graph", r->call_graph_arg);
	if (r->no_inherit)
		ret |= note(r, "inherit", "false");
	if (ret) {
		fprintf(stderr, "hwsample: out of memory\n");
		return -1;
	}
	return 0;
}

/* -e: split on commas outside pmu/.../ terms, so that "cpu/mem-loads,ldlat=30/P,cpu/mem-stores/P"
 * is two events, as in perf */
static int add_events(struct record *r, const char *val)
{
	const char *st = val;
	int depth = 0;

	for (const char *c = val;; c++) {
		if (*c == '/')
			depth = !depth;
		if (*c && (*c != ',' || depth))
			continue;
		if (c == st) { /* perf: "event syntax error" */
			fprintf(stderr,
				"hwsample: -e '%s': an empty event name (events are separated by "
				"commas; `hwsample list` names them)\n",
				hws_cli__text(val));
			return -1;
		}
		if (r->nr_events == MAX_EVENTS) {
			fprintf(stderr, "hwsample: too many events (max %d)\n", MAX_EVENTS);
			return -1;
		}
		r->events[r->nr_events] = strndup(st, (size_t)(c - st));
		if (!r->events[r->nr_events++]) {
			fprintf(stderr, "hwsample: out of memory\n");
			return -1;
		}
		if (!*c)
			return 0;
		st = c + 1;
	}
}

/* -F: within the kernel's limit */
static int parse_freq(struct record *r, const char *val)
{
	uint64_t max = (uint64_t)hws_cli__sysctl_int("perf_event_max_sample_rate", 100000);

	if (parse_u64("-F", val, UINT32_MAX, &r->freq))
		return -1;
	if (r->freq > max) {
		fprintf(stderr,
			"hwsample: -F %s exceeds the kernel's limit of %" PRIu64
			" samples/s (kernel.perf_event_max_sample_rate); lower -F or "
			"raise it: sysctl kernel.perf_event_max_sample_rate=%s\n",
			hws_cli__text(val), max, hws_cli__text(val));
		return -1;
	}
	return 0;
}

static int parse_duration(struct record *r, const char *val)
{
	char *end;

	errno = 0;
	r->duration = strtod(val, &end);
	if (errno || end == val || *end || !(r->duration > 0) || r->duration > 31536000) {
		fprintf(stderr,
			"hwsample: --duration '%s': expected a number of seconds > 0 (e.g. 10 or "
			"2.5)\n",
			hws_cli__text(val));
		return -1;
	}
	return 0;
}

static int parse_pids(struct record *r, const char *val)
{
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
	return 0;
}

/* KEY=VALUE: a backend control; not a path (./a=b, /x=y) or a word starting with '=' */
static bool is_control(const char *a)
{
	return strchr(a, '=') && a[0] != '=' && a[0] != '.' && a[0] != '/';
}

static int add_control(struct record *r, const char *a)
{
	char *k, *eq;

	if (r->nr_controls == MAX_CONTROLS) {
		fprintf(stderr, "hwsample: too many controls (max %d)\n", MAX_CONTROLS);
		return -1;
	}
	k = strdup(a);
	eq = strchr(k, '=');
	*eq = 0;
	r->controls[r->nr_controls].key = k;
	r->controls[r->nr_controls].value = eq + 1;
	r->nr_controls++;
	return 0;
}

/* options without a short name */
enum {
	OPT_CONFIG = 256,
	OPT_COUNT,
	OPT_DURATION,
	OPT_NO_STATUS,
	OPT_PER_THREAD,
	OPT_NO_INHERIT,
	OPT_OVERWRITE,
	OPT_PHYS_DATA,
	OPT_DRY_RUN,
	OPT_CALL_GRAPH,
	OPT_OBJECTS,
	OPT_NO_OBJECTS,
	OPT_C2C, /* hidden ones last: never named in messages */
	OPT_LDLAT,
};

/*
 * '-': every word that is not an option comes back in order as option 1 (KEY=VALUE, or the
 * workload, where parsing stops), and argv is never permuted (the file's cmdline feature
 * is argv as given). ':' (and opterr = 0): hwsample's own messages, and a missing argument
 * told from an unknown option.
 */
static const char record_optstring[] = "-:hb:e:F:c:NBvaC:p:m:o:Sdqg";

static const struct option record_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"backend", required_argument, NULL, 'b'},
    {"event", required_argument, NULL, 'e'},
    {"freq", required_argument, NULL, 'F'},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"count", required_argument, NULL, OPT_COUNT},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"no-status", no_argument, NULL, OPT_NO_STATUS},
    {"no-buildid-cache", no_argument, NULL, 'N'},
    {"no-buildid", no_argument, NULL, 'B'},
    {"verbose", no_argument, NULL, 'v'},
    {"all-cpus", no_argument, NULL, 'a'},
    {"cpu", required_argument, NULL, 'C'},
    {"pid", required_argument, NULL, 'p'},
    {"per-thread", no_argument, NULL, OPT_PER_THREAD},
    {"no-inherit", no_argument, NULL, OPT_NO_INHERIT},
    {"mmap-pages", required_argument, NULL, 'm'},
    {"output", required_argument, NULL, 'o'},
    {"overwrite", no_argument, NULL, OPT_OVERWRITE},
    {"snapshot", no_argument, NULL, 'S'},
    {"data", no_argument, NULL, 'd'},
    {"c2c", no_argument, NULL, OPT_C2C},	   /* hidden: from `hwsample c2c record` */
    {"ldlat", required_argument, NULL, OPT_LDLAT}, /* hidden: from `hwsample c2c record` */
    {"phys-data", no_argument, NULL, OPT_PHYS_DATA},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"call-graph", required_argument, NULL, OPT_CALL_GRAPH},
    {"objects", optional_argument, NULL, OPT_OBJECTS},
    {"no-objects", no_argument, NULL, OPT_NO_OBJECTS},
    {"quiet", no_argument, NULL, 'q'},
    {NULL, 0, NULL, 0},
};

/* --PREFIX that getopt_long refused because it starts several long options: say which */
static bool ambiguous(const char *word)
{
	size_t len = strcspn(word + 2, "=");
	int n = 0;

	if (word[0] != '-' || word[1] != '-' || !len)
		return false;
	for (const struct option *o = record_options; o->name; o++)
		n += o->val < OPT_C2C && !strncmp(o->name, word + 2, len);
	if (n < 2)
		return false;
	fprintf(stderr, "hwsample: option '%.*s' is ambiguous:", (int)len + 2, word);
	n = 0;
	for (const struct option *o = record_options; o->name; o++)
		if (o->val < OPT_C2C && !strncmp(o->name, word + 2, len))
			fprintf(stderr, "%s --%s", n++ ? "," : "", o->name);
	fprintf(stderr, " (see hwsample record --help)\n");
	return true;
}

/* getopt_long refused @word: @c is the option in it (grouped, -qx), or 0 for all of it */
static void bad_option(const char *word, int c)
{
	if (c)
		fprintf(stderr, "hwsample: unknown option '-%c' (see hwsample record --help)\n", c);
	else if (!ambiguous(word))
		fprintf(stderr, "hwsample: unknown option '%s' (see hwsample record --help)\n",
			hws_cli__text(word));
}

/* Option @o (from getopt_long, with optarg) into @r: 0, or -1 after the message. */
static int record_option(struct record *r, int o)
{
	switch (o) {
	case 'h':
		fputs(record_usage, stdout);
		print_config_keys();
		exit(0);
	case 'b':
		r->backend = optarg;
		return 0;
	case 'e':
		return add_events(r, optarg);
	case 'F':
		return parse_freq(r, optarg);
	case OPT_CONFIG:
		r->config_path = optarg;
		return 0;
	case 'c':
		if (!looks_like_config(optarg)) /* perf's period */
			return parse_u64("-c", optarg, (uint64_t)INT64_MAX, &r->period);
		if (r->config_path) {
			fprintf(stderr, "hwsample: only one config file (-c %s and %s)\n",
				hws_cli__text(optarg), hws_cli__text(r->config_path));
			return -1;
		}
		r->config_path = optarg;
		return 0;
	case OPT_COUNT:
		return parse_u64("-c", optarg, (uint64_t)INT64_MAX, &r->period);
	case OPT_DURATION:
		return parse_duration(r, optarg);
	case OPT_NO_STATUS:
		r->no_status = true;
		return 0;
	case 'N':
		r->no_buildid_cache = true;
		return 0;
	case 'B':
		r->no_buildid = true;
		return 0;
	case 'v':
		r->verbose++;
		hws_set_log_level(HWS_LOG_WARN + r->verbose);
		return 0;
	case 'a':
		r->system_wide = true;
		return 0;
	case 'C':
		r->cpu_list = optarg;
		return 0;
	case 'p':
		return parse_pids(r, optarg);
	case OPT_PER_THREAD:
		r->per_thread = true;
		return 0;
	case OPT_NO_INHERIT:
		r->no_inherit = true;
		return 0;
	case 'm':
		return parse_pages(r, optarg);
	case 'o':
		r->output = optarg;
		r->output_given = true;
		return 0;
	case OPT_OVERWRITE:
		r->overwrite = true;
		return 0;
	case 'S':
		r->snapshot = true;
		return 0;
	case 'd':
		r->data_addr = true;
		return 0;
	case 'g':
		r->call_graph = HWS_CALL_GRAPH_FP;
		r->cg_stack_size = 0;
		r->call_graph_arg = "fp";
		return 0;
	case OPT_CALL_GRAPH: {
		char err[512];
		int ret = hws_call_graph__parse(optarg, &r->call_graph, &r->cg_stack_size, err,
						sizeof(err));

		if (ret) {
			fprintf(stderr, "hwsample: --call-graph: %s\n", hws_cli__text(err));
			return ret;
		}
		r->call_graph_arg = optarg;
		return 0;
	}
	case OPT_C2C:
		r->c2c = true;
		return 0;
	case OPT_LDLAT: {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(optarg, &end, 10);
		if (errno || end == optarg || *end || *optarg == '-' || v > UINT32_MAX) {
			fprintf(stderr, "hwsample: --ldlat '%s': expected 0..%u cycles\n",
				hws_cli__text(optarg), UINT32_MAX);
			return -1;
		}
		r->ldlat = (uint32_t)v;
		r->ldlat_set = true;
		return 0;
	}
	case OPT_PHYS_DATA:
		r->phys_data = true;
		return 0;
	case OPT_DRY_RUN:
		r->dry_run = true;
		return 0;
	case OPT_OBJECTS:
		return record__objects_arg(r, optarg);
	case OPT_NO_OBJECTS:
		r->objects = 0;
		return 0;
	case 'q':
		r->quiet = true;
		return 0;
	}
	return -1;
}

int record__parse_args(struct record *r, int argc, char **argv)
{
	bool in_word = false; /* the next option comes from a word already begun (-qd) */
	int i = argc, o, word;

	optind = 0; /* a new scan, whatever getopt read before */
	opterr = 0;
	for (;;) {
		word = optind ? optind : 1; /* argv[word] holds the next option */
		o = getopt_long(argc, argv, record_optstring, record_options, NULL);
		if (o == -1) { /* the end, or "--" */
			i = optind;
			break;
		}
		if (o == 1) { /* a word that is not an option: a control, or the workload */
			if (!is_control(optarg)) {
				i = optind - 1;
				break;
			}
			if (add_control(r, optarg))
				return -1;
		} else if (o == ':') {
			if (argv[word][1] == '-')
				fprintf(stderr, "hwsample: option %s needs an argument\n",
					hws_cli__text(argv[word]));
			else
				fprintf(stderr, "hwsample: option -%c needs an argument\n", optopt);
			return -1;
		} else if (o == '?') {
			bad_option(argv[word], in_word ? optopt : 0);
			return -1;
		} else if (record_option(r, o)) {
			return -1;
		}
		in_word = optind == word;
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
