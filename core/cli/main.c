// SPDX-License-Identifier: MIT
/*
 * hwsample entry point: global options (-v, --backend-dir, --help, --version), then a
 * subcommand. Anything that is not a subcommand name means "record" (perf's habit of
 * `hwsample -b sw -- prog`).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <hwsample/backend.h>
#include <hwsample/decode.h>
#include <hwsample/host.h>
#include <hwsample/perfdata.h>
#include <hwsample/strbuf.h>

#include "cli.h"

static const char usage_text[] =
    "usage: hwsample [-v] [--backend-dir DIR] [record] [OPTIONS] [-- PROG [ARGS]]\n"
    "       hwsample -c FILE.conf [OPTIONS] [-- PROG [ARGS]]   (config-file driven run)\n"
    "       hwsample dump   -i FILE [--json|--csv] [--raw]\n"
    "       hwsample report -i FILE\n"
    "       hwsample list   [--backend NAME]\n"
    "       hwsample c2c record|report ...\n"
    "       hwsample convert -i FILE --to-pprof OUT\n"
    "       hwsample help [CMD]\n"
    "\n"
    "Commands:\n"
    "  record   sample a program, processes or CPUs into a perf.data file (the default)\n"
    "  dump     one line (or JSON object) per decoded sample\n"
    "  report   hot IPs/symbols, data sources, latency histograms\n"
    "  list     backends, whether they work here (and why not), their controls\n"
    "  c2c      cache-line contention (false sharing) record and report\n"
    "  convert  a perf.data file into another tool's format (pprof)\n"
    "\n"
    "Global options:\n"
    "  -v, -vv          more messages (repeatable)\n"
    "  --backend-dir D  load backend plugins from D first\n"
    "  --version        print the version\n"
    "\n"
    "Examples:\n"
    "  hwsample -b sw -e cpu-clock,page-faults -F 4000 -- ./prog\n"
    "  hwsample -b ibs_op l3missonly=1 -- ./prog\n"
    "  hwsample -b arm_spe load_filter=1 min_latency=64 -a sleep 5\n"
    "  hwsample -b intel_pebs -e MEM_TRANS_RETIRED.LOAD_LATENCY ldlat=30 -- ./prog\n"
    "  hwsample -c cfg/l3-miss.conf -- ./prog        (-c 10000 is still perf's period)\n"
    "  hwsample -c cfg/l3-miss.conf --dry-run        what would be opened, and why\n"
    "  hwsample report -i hwsample.data\n"
    "\n"
    "'hwsample CMD --help' describes each subcommand; man hwsample has the details.\n"
    "Exit codes: 0 ok, 1 runtime error, 2 usage error (bad option, unknown control,\n"
    "bad config file), 3 not supported here (no PMU, kernel too old), 4 permission denied;\n"
    "record with a workload: the workload's status once recording succeeded (its exit code,\n"
    "128+N if signal N killed it), as perf record.\n";

struct hws_registry *hws_cli__registry(struct hws_cli *cli)
{
	char err[1024] = "";
	int n;

	if (cli->reg)
		return cli->reg;
	cli->reg = hws_registry__new();
	if (!cli->reg) {
		fprintf(stderr, "hwsample: out of memory\n");
		return NULL;
	}
#ifdef HWS_STATIC_BACKENDS
	n = hws_registry__add_static(cli->reg, err, sizeof(err));
#else
	const char *dir = cli->backend_dir, *origin = "--backend-dir";

	if (!dir || !*dir) {
		dir = getenv("HWS_BACKEND_DIR");
		origin = "$HWS_BACKEND_DIR";
	}
	n = hws_registry__load_default(cli->reg, dir, err, sizeof(err));
	if (n == -ENOENT && dir && *dir)
		snprintf(err, sizeof(err), "backend directory %s (%s) does not exist", dir, origin);
#endif
	if (n < 0 || hws_registry__count(cli->reg) == 0) {
		fprintf(stderr, "hwsample: %s\n",
			*err ? hws_cli__text_lines(hws_cli__lib_text(err))
			     : "no backends available");
		hws_registry__delete(cli->reg);
		cli->reg = NULL;
	}
	return cli->reg;
}

int hws_cli__check_input(const char *cmd, const char *opt, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int err = fd < 0 ? -errno : 0;
	struct stat st;

	/* a directory opens for reading: say what is wrong before the library reads nothing */
	if (fd >= 0 && !fstat(fd, &st) && S_ISDIR(st.st_mode))
		err = -EISDIR;
	if (fd >= 0)
		close(fd);
	if (err == -EISDIR)
		fprintf(stderr, "hwsample %s: %s %s: is a directory, not a file\n", cmd, opt,
			hws_cli__text(path));
	else if (err)
		fprintf(stderr, "hwsample %s: %s %s: %s\n", cmd, opt, hws_cli__text(path),
			strerror(-err));
	return err;
}

bool hws_cli__event_known(const char *cmd, const char *path, const struct hws_decoder *d,
			  const char *event)
{
	int n = hws_decoder__nr_events(d), shown = 0;

	if (!event)
		return true;
	for (int i = 0; i < n; i++) {
		const char *name = hws_decoder__event_name(d, i);
		if (name && !strcmp(name, event))
			return true;
	}
	fprintf(stderr, "hwsample %s: -e %s: no such event in %s; its events: ", cmd,
		hws_cli__text(event),
		strcmp(path, "-") ? hws_cli__text(path) : "the input (stdin)");
	for (int i = 0; i < n; i++) {
		const char *name = hws_decoder__event_name(d, i);
		bool dup = false;

		for (int k = 0; name && k < i; k++) {
			const char *o = hws_decoder__event_name(d, k);
			dup |= o && !strcmp(o, name);
		}
		if (name && !dup)
			fprintf(stderr, "%s%s", shown++ ? ", " : "", hws_cli__text(name));
	}
	fprintf(stderr, "%s\n", shown ? "" : "none");
	return false;
}

/*
 * Library and backend messages name the options that fix a problem in library terms, the
 * struct member or function ("use more AUX pages (hws_session_opts.aux_pages)"); the user
 * sees this program's options instead. tests/tree/lib_messages.py checks that every such
 * name a message of core/ or backends/ uses is in this table, longest first where one is
 * the start of another.
 */
static const struct {
	const char *lib, *cli;
} option_names[] = {
    {"hws_session_opts.system_wide/cpu_list", "-a or -C LIST"},
    {"hws_session_opts.mmap_pages", "-m"},
    {"hws_session_opts.aux_pages", "-m ,N"},
    {"hws_session_opts.per_thread", "--per-thread"},
    {"hws_session_opts.cpu_list", "-C"},
    {"hws_session_opts.pids", "a program to run or -p PID"},
    {"hws_session_opts.overwrite", "--overwrite"},
    {"hws_session_opts.aux_snapshot", "-S"},
    {"hws_session_opts.call_graph/stack_size", "-g/--call-graph"},
    {"hws_session_opts.call_graph", "-g/--call-graph"},
    {"hws_session__aux_snapshot()", "SIGUSR2"},
    {"hws_event_request.period/freq", "-c/-F"},
    {"hws_event_request.period", "-c"},
    {"hws_event_request.freq", "-F"},
    {"hws_event_request.event", "-e"},
    {"hws_event_request.pmu", "-b"},
    {"hws_decoder_opts.kallsyms", "--kallsyms FILE"},
    {"hws_attr__print()", "hwsample --dry-run"},
    {"hws_registry__load_default() @dir", "--backend-dir DIR or $HWS_BACKEND_DIR"},
};

const char *hws_cli__lib_text(const char *msg)
{
	static _Thread_local char buf[4096];
	const char *p = msg;
	size_t n = 0;

	if (!msg || !strstr(msg, "hws_"))
		return msg;
	while (*p && n + 1 < sizeof(buf)) {
		size_t k, l = 0;

		for (k = 0; k < sizeof(option_names) / sizeof(option_names[0]); k++) {
			l = strlen(option_names[k].lib);
			if (!strncmp(p, option_names[k].lib, l))
				break;
		}
		if (k == sizeof(option_names) / sizeof(option_names[0])) {
			buf[n++] = *p++;
			continue;
		}
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", option_names[k].cli);
		p += l;
	}
	if (n >= sizeof(buf))
		return msg; /* too long to rewrite: as the library said it */
	buf[n] = '\0';
	return buf;
}

static const char *cli_text(const char *s, bool lines)
{
	static _Thread_local struct hws_strbuf slot[8];
	static _Thread_local unsigned int next;
	struct hws_strbuf *b;

	if (!s || (!lines && hws_strbuf__text_plain(s)))
		return s;
	b = &slot[next++ % 8];
	if (!b->cap)
		hws_strbuf__init(b, 1u << 16);
	hws_strbuf__reset(b);
	if ((lines ? hws_strbuf__add_text_lines(b, s) : hws_strbuf__add_text_str(b, s)) || !b->buf)
		return lines && !*s ? s : "(a name that cannot be shown)";
	return b->buf;
}

const char *hws_cli__text(const char *s)
{
	return cli_text(s, false);
}

const char *hws_cli__text_lines(const char *s)
{
	return cli_text(s, true);
}

void hws_cli__write_text(FILE *f, const char *text)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;

	if (!text)
		return;
	if (hws_strbuf__add_text_lines(&sb, text) || !sb.buf) {
		/* no memory for the copy: the line as it is, such bytes as '?' */
		for (const unsigned char *p = (const unsigned char *)text; *p; p++)
			fputc((*p < 0x20 && *p != '\n' && *p != '\t') || *p >= 0x7f ? '?' : *p, f);
	} else {
		fwrite(sb.buf, 1, sb.len, f);
	}
	hws_strbuf__release(&sb);
}

static void (*before_message)(void);

void hws_cli__set_before_message(void (*fn)(void))
{
	before_message = fn;
}

/*
 * The library's messages as the user sees them: warnings and errors are the program's
 * ("hwsample: ..."), on a line of their own (a status line is erased first); info and
 * debug messages (-v, HWS_LOG_LEVEL) keep the subsystem prefix they were written with.
 */
static void print_message(enum hws_log_level level, const char *msg)
{
	if (before_message)
		before_message();
	if (level <= HWS_LOG_WARN && strncmp(msg, "hwsample", 8))
		fputs("hwsample: ", stderr);
	fputs(hws_cli__lib_text(msg), stderr);
}

struct hws_perf_reader *hws_cli__open_input(const char *cmd, const char *path, int *exit_code)
{
	/* HWS_NO_MMAP=1: read() instead of mapping regular files */
	HWS_OPTS(hws_perf_reader_opts, ro, .no_mmap = hws_cli__env_on("HWS_NO_MMAP"));
	struct hws_perf_reader *r = hws_perf_reader__open(path, &ro);
	char ebuf[256];
	int err = -errno;

	if (r)
		return r;
	if (err == -EISDIR)
		fprintf(stderr, "hwsample %s: -i %s: is a directory, not a perf.data file\n", cmd,
			hws_cli__text(path));
	else
		fprintf(stderr, "hwsample %s: %s: %s\n", cmd, hws_cli__text(path),
			hws_strerror(err, ebuf, sizeof(ebuf)));
	*exit_code = err == -EISDIR ? HWS_EXIT_USAGE : HWS_EXIT_ERROR;
	return NULL;
}

bool hws_cli__unfinished(const char *cmd, const char *path, const struct hws_perf_reader *r,
			 const struct hws_decoder *d)
{
	struct hws_decode_counts t;
	struct hws_perf_unfinished u;

	if (!hws_perf_reader__unfinished(r, &u))
		return false;
	if (hws_decoder__counts(d, HWS_DECODE_ALL, HWS_DECODE_ALL, &t))
		memset(&t, 0, sizeof(t));
	if (!u.read_all) {
		fprintf(stderr,
			"%s: %s is unfinished (%s): %" PRIu64 " samples read, not to its end\n",
			cmd, hws_cli__text(path), u.why, t.samples);
		return true;
	}
	fprintf(stderr,
		"%s: %s is unfinished (%s): %" PRIu64 " samples recovered up to byte %" PRIu64, cmd,
		hws_cli__text(path), u.why, t.samples, u.end);
	if (u.cut_bytes)
		fprintf(stderr, " (the %" PRIu64 " bytes after it are no whole record)",
			u.cut_bytes);
	fputc('\n', stderr);
	return true;
}

const char *hws_cli__buildid_dir(void)
{
	static char buf[4096];
	const char *d = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	if (d && *d)
		return d;
	if (home && *home && (size_t)snprintf(buf, sizeof(buf), "%s/.debug", home) < sizeof(buf))
		return buf;
	return NULL; /* the library's default: ~/.debug of the password database's home */
}

void hws_cli__decoder_env(struct hws_decoder_opts *o)
{
	o->buildid_dir = hws_cli__buildid_dir();
	o->read_ahead = hws_cli__env_on("HWS_DECODE_THREADS");
}

uint32_t hws_cli__kernel_version(char *buf, size_t len)
{
	const char *env = getenv("HWS_KERNEL_VERSION");
	struct utsname u;
	unsigned int a = 0, b = 0, c = 0;
	const char *rel = env && *env ? env : !uname(&u) ? u.release : NULL;

	if (buf)
		snprintf(buf, len, env && *env ? "%s ($HWS_KERNEL_VERSION)" : "%s",
			 rel ? rel : "unknown");
	if (rel)
		sscanf(rel, "%u.%u.%u", &a, &b, &c);
	return HWS_KERNEL_VERSION(a, b, c);
}

int hws_cli__sysctl_int(const char *name, int dflt)
{
	char path[128];
	FILE *f;
	int v = dflt;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

bool hws_cli__env_on(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
}

int hws_cli__exit_code(int err)
{
	if (err >= 0)
		return HWS_EXIT_OK;
	switch (err) {
	case -EACCES:
	case -EPERM:
		return HWS_EXIT_PERM;
	case -ENOENT:
	case -ENODEV:
	case -EOPNOTSUPP:
	case HWS_E_NO_PMU:
	case HWS_E_UNSUPPORTED:
		return HWS_EXIT_UNSUPPORTED;
	case -EINVAL:
	case HWS_E_UNKNOWN_CONTROL:
	case HWS_E_CONTROL_RANGE:
	case HWS_E_UNKNOWN_EVENT:
	case HWS_E_BAD_ARG:
	case HWS_E_BAD_CONFIG:
	case HWS_E_NO_BACKEND:
		return HWS_EXIT_USAGE;
	default:
		return HWS_EXIT_ERROR;
	}
}

struct subcmd {
	const char *name;
	int (*fn)(struct hws_cli *, int, char **);
};

/*
 * The reader maps input files (core/perfdata/perfdata_read.c, map_file()). A mapped page that can
 * no longer be read (the file was truncated while we read it, or a disk error) raises SIGBUS: say
 * so instead of dying with "Bus error".
 */
static void on_sigbus(int sig)
{
	static const char msg[] =
	    "hwsample: the input file could not be read through its mapping (it shrank while "
	    "being read, or an I/O error): read a copy that is not being written, or set "
	    "HWS_NO_MMAP=1 to read it with read() and stop with an error at the cut\n";
	ssize_t n;

	(void)sig;
	n = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)n;
	_exit(1);
}

/*
 * A descriptor 0-2 closed at start (`hwsample ... >&-`) is opened on /dev/null, so that no
 * file or event fd opened later takes its number and gets written to as stdout or stderr.
 * Returns which were closed (bit n: fd n), for commands that need one of them (-o -).
 */
static unsigned int guard_stdio(void)
{
	unsigned int closed = 0;

	for (int fd = 0; fd < 3; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		closed |= 1u << fd;
		n = open("/dev/null", fd ? O_WRONLY : O_RDONLY); /* the lowest free fd: fd */
		if (n >= 0 && n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
	return closed;
}

int main(int argc, char **argv)
{
	struct hws_cli cli = {0};
	const struct subcmd cmds[] = {
	    {"record", cmd_record}, {"dump", cmd_dump}, {"report", cmd_report},
	    {"list", cmd_list},	    {"c2c", cmd_c2c},	{"convert", cmd_convert},
	};
	int i = 1, ret;

	cli.stdio_closed = guard_stdio();
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			cli.verbose++;
		} else if (!strcmp(argv[i], "-vv")) {
			cli.verbose += 2;
		} else if (!strcmp(argv[i], "--backend-dir") && i + 1 < argc) {
			cli.backend_dir = argv[++i];
		} else if (!strncmp(argv[i], "--backend-dir=", 14)) {
			cli.backend_dir = argv[i] + 14;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("hwsample %s\n", HWS_VERSION);
			return 0;
		} else {
			break;
		}
	}
	/* HWS_LOG_LEVEL=0..3 (errors, warnings, info, debug), then -v adds to it */
	if (getenv("HWS_LOG_LEVEL"))
		hws_set_log_level(atoi(getenv("HWS_LOG_LEVEL")));
	if (cli.verbose)
		hws_set_log_level(HWS_LOG_WARN + cli.verbose);
	signal(SIGBUS, on_sigbus);
	hws_set_print(print_message);
	/* the machine the library describes: a fake one (tests, dry runs for other CPUs) from
	 * HWS_SYSFS_ROOT and HWS_PROC_CPUINFO; HWS_SPE_NO_AVX2: no SIMD paths in backends */
	HWS_OPTS(hws_host_opts, host, .sysfs_root = getenv("HWS_SYSFS_ROOT"),
		 .proc_cpuinfo = getenv("HWS_PROC_CPUINFO"),
		 .no_simd = getenv("HWS_SPE_NO_AVX2") != NULL);
	if (hws_host__configure(&host)) {
		fprintf(stderr, "hwsample: HWS_SYSFS_ROOT or HWS_PROC_CPUINFO: path too long\n");
		return HWS_EXIT_USAGE;
	}

	const struct subcmd *c = NULL;
	if (i < argc) {
		for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
			if (!strcmp(argv[i], cmds[k].name))
				c = &cmds[k];
	}
	if (i < argc && !strcmp(argv[i], "help")) {
		/* hwsample help [CMD]: CMD --help */
		static char help_opt[] = "--help";
		if (i + 1 >= argc) {
			fputs(usage_text, stdout);
			return 0;
		}
		for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
			if (!strcmp(argv[i + 1], cmds[k].name))
				c = &cmds[k];
		if (!c) {
			fprintf(stderr, "hwsample: no command '%s' (see hwsample --help)\n",
				hws_cli__text(argv[i + 1]));
			return HWS_EXIT_USAGE;
		}
		if (!c->fn) {
			fprintf(stderr, "hwsample: '%s' is not built into this hwsample\n",
				c->name);
			return HWS_EXIT_UNSUPPORTED;
		}
		char *hargv[] = {argv[i + 1], help_opt, NULL};
		return c->fn(&cli, 2, hargv);
	}
	if (c) {
		i++;
	} else {
		if (i >= argc) {
			fputs(usage_text, stderr);
			return HWS_EXIT_USAGE;
		}
		c = &cmds[0]; /* record */
	}
	if (!c->fn) {
		fprintf(stderr, "hwsample: '%s' is not built into this hwsample\n", c->name);
		return HWS_EXIT_UNSUPPORTED;
	}
	/* argv[i - 1] becomes the subcommand's argv[0] */
	ret = c->fn(&cli, argc - i + 1, argv + i - 1);
	hws_registry__delete(cli.reg);
	return ret;
}
