// SPDX-License-Identifier: MIT
/*
 * `hwsample c2c record` and `hwsample c2c report`: cache-to-cache contention (false and
 * true sharing) from memory samples of any vendor.
 *
 * record picks the best hardware sampling backend of this machine (like `-b auto`, but only
 * backends with HWS_CAP_DATA_SRC count: c2c needs data addresses and data sources) and runs
 * the record subcommand in-process with --c2c: the backend's encode() chooses its c2c events
 * and controls (HWS_REQ_C2C), and takes --ldlat as the request's load latency threshold
 * (HWS_REQ_LDLAT); nothing here depends on the vendor. record refuses a -b whose backend has
 * no data sources (sw) with exit 2. report
 * decodes a perf.data file (hwsample's, or perf c2c record / perf mem record output) through
 * the decode pipeline into core/analysis/c2c.c and prints text, JSON or a self-contained HTML page.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/c2c.h>
#include <hwsample/decode.h>
#include <hwsample/errors.h>
#include <hwsample/objects.h>
#include <hwsample/perfdata.h>

#include "cli.h"

static const char c2c_usage[] =
    "usage: hwsample c2c record [--ldlat N] [-b BACKEND] [RECORD OPTIONS] -- PROG [ARGS]\n"
    "       hwsample c2c report [-i FILE] [--stdio|--json] [--html FILE] [--line-size N]\n"
    "                           [--show-all] [--top N] [--no-sym] [--no-srcline]\n"
    "                           [--kallsyms FILE] [-e EVENT] [-g TYPE|--no-call-graph]\n"
    "                           [FILTERS]\n"
    "\n"
    "Find cache lines that several threads fight over, and say whether each one is false\n"
    "sharing (threads write different bytes of the line) or true sharing (the same bytes),\n"
    "with the evidence: HITM (Intel PEBS data_src, AMD IBS DataSrc/CacheHitSt), peer snoop\n"
    "(Arm SPE data source), remote cache hits, or address overlap alone, and a confidence.\n"
    "\n"
    "record: loads and stores with data addresses, latency and data source from the best\n"
    "backend here: intel_pebs (mem-loads ldlat=N + mem-stores), amd_ibs (ibs_op, every op),\n"
    "arm_spe (load_filter=1 store_filter=1 min_latency=N pa_enable=1). Other options\n"
    "(-o FILE, -a, -C, -p, -c, -F, -m, -g, --call-graph, --dry-run ...) go to `hwsample record`.\n"
    "  --ldlat N          load latency threshold in cycles (default 30; AMD: not used)\n"
    "  -b NAME            force a backend or PMU (intel_pebs, ibs_op, arm_spe, ...)\n"
    "  --no-objects       no allocation records (on by default for a launched program;\n"
    "                     see hwsample record --objects)\n"
    "\n"
    "report: reads hwsample files and perf c2c record / perf mem record files.\n"
    "  -i, --input FILE   input (default hwsample.data)\n"
    "      --stdio        text report like perf c2c report --stdio (default)\n"
    "      --json         JSON report on stdout\n"
    "      --html FILE    self-contained HTML page (sortable table, offset x thread heat map)\n"
    "      --line-size N  cache line size in bytes (default: the recording host's L1d line\n"
    "                     from the file's CACHE header, else 64; 128 on ppc64, 256 on s390)\n"
    "      --show-all     every line, also private and read-shared ones\n"
    "      --top N        lines with offset tables / heat maps (default 10)\n"
    "      --no-sym       no symbol lookup\n"
    "      --kallsyms FILE  kernel symbols from FILE (a kallsyms of the recording's kernel);\n"
    "                     default: /proc/kallsyms on that kernel, else perf's build-id cache\n"
    "      --no-srcline   no source file:line lookup (faster)\n"
    "  -e, --event NAME   only the samples of this event (e.g. mem-loads; names as perf\n"
    "                     evlist shows them); an event the file does not have is an error\n"
    "  -g, --call-graph TYPE  call paths of each line and row, when the samples have\n"
    "                     call chains (the default; listed folded, caller first, %% of the\n"
    "                     line's period as perf c2c report -g); -g none or --no-call-graph:\n"
    "                     without them\n"
    "  -h, --help         this text\n"
    "  FILTERS (below): only the samples they keep are counted, as if the file held no\n"
    "                     other\n"
    "%s"
    "\n"
    "Examples:\n"
    "  hwsample c2c record -- ./false_sharing\n"
    "  hwsample c2c report -i hwsample.data\n"
    "  hwsample c2c report --comms false_sharing --time 10%%/2\n"
    "  hwsample c2c report -i perf.data --json | jq '.lines[] | {address, class}'\n"
    "  hwsample c2c report -i perf.data --html c2c.html\n"
    "\n"
    "Exit codes: 0 ok, 1 unreadable or corrupt input, 2 usage error (also: record with a\n"
    "backend that gives no data sources, such as sw; report -e naming no event of the\n"
    "file), 3 no sampling PMU with data addresses here (record), 4 permission denied.\n";

/* ------------------------------------------------------------------ record */

static int c2c_record(struct hws_cli *cli, int argc, char **argv)
{
	struct hws_registry *reg;
	struct hws_backend *best = NULL;
	const char *force = NULL, *ldlat = "30"; /* perf c2c record's default */
	char **nargv = NULL, why[512];
	int i, n = 0, best_score = 0, ret, dashdash = -1;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf(c2c_usage, hws_cli_filter_usage);
			return HWS_EXIT_OK;
		}
	}
	reg = hws_cli__registry(cli);
	if (!reg)
		return HWS_EXIT_ERROR;
	nargv = calloc((size_t)argc + 16, sizeof(*nargv));
	if (!nargv)
		return HWS_EXIT_ERROR;
	nargv[n++] = "record";
	for (i = 1; i < argc; i++) {
		if (dashdash >= 0 && i >= dashdash)
			break;
		if ((!strcmp(argv[i], "--ldlat") || !strcmp(argv[i], "-b")) && i + 1 < argc &&
		    i + 1 != dashdash) {
			if (!strcmp(argv[i], "-b"))
				force = argv[++i];
			else
				ldlat = argv[++i];
			continue;
		}
		if (!strncmp(argv[i], "--ldlat=", 8)) {
			ldlat = argv[i] + 8;
			continue;
		}
	}
	if (strspn(ldlat, "0123456789") != strlen(ldlat) || !*ldlat ||
	    strtoull(ldlat, NULL, 10) > UINT32_MAX) {
		fprintf(stderr, "hwsample c2c record: --ldlat wants a number of cycles, not '%s'\n",
			hws_cli__text(ldlat));
		free(nargv);
		return HWS_EXIT_USAGE;
	}
	if (force) {
		best = hws_registry__find(reg, force);
		if (!best) {
			fprintf(stderr, "hwsample c2c record: no backend or PMU named '%s'\n",
				hws_cli__text(force));
			free(nargv);
			return HWS_EXIT_USAGE;
		}
	} else {
		for (i = 0; i < hws_registry__count(reg); i++) {
			struct hws_backend *b = hws_registry__at(reg, i);
			int score;

			/* sampling hardware with data sources: software events have none */
			if (!(b->ops->caps & HWS_CAP_DATA_SRC) || (b->ops->caps & HWS_CAP_SOFTWARE))
				continue;
			score = b->ops->detect(b->priv, why, sizeof(why));
			if (score > best_score) {
				best_score = score;
				best = b;
			}
		}
		if (!best) {
			fprintf(
			    stderr,
			    "hwsample c2c record: no memory-sampling PMU here (Intel PEBS "
			    "load latency, AMD IBS op, Arm SPE): c2c needs sampled data addresses "
			    "and data sources, which software events do not give.\n"
			    "  Record on a machine with that hardware (bare metal or a VM with the "
			    "PMU passed through), then run `hwsample c2c report -i FILE` anywhere; "
			    "`hwsample list` says why each backend is unusable here.\n");
			free(nargv);
			return HWS_EXIT_UNSUPPORTED;
		}
	}
	/* the backend's encode() picks the c2c events and controls (HWS_REQ_C2C) */
	nargv[n++] = "-b";
	nargv[n++] = force ? (char *)force : (char *)best->ops->name;
	nargv[n++] = "-d";
	nargv[n++] = "--phys-data";
	nargv[n++] = "--c2c";
	nargv[n++] = "--ldlat";
	nargv[n++] = (char *)ldlat;
	/* the launched program's allocations, for the objects of the lines (--no-objects) */
	nargv[n++] = "--objects=auto";
	for (i = 1; i < argc; i++) {
		if (dashdash < 0 || i < dashdash) {
			if (!strcmp(argv[i], "--ldlat") || !strcmp(argv[i], "-b")) {
				i++;
				continue;
			}
			if (!strncmp(argv[i], "--ldlat=", 8))
				continue;
		}
		nargv[n++] = argv[i];
	}
	nargv[n] = NULL;
	if (cli->verbose) {
		fprintf(stderr, "hwsample c2c record: running: hwsample");
		for (i = 0; i < n; i++)
			fprintf(stderr, " %s", hws_cli__text(nargv[i]));
		fprintf(stderr, "\n");
	}
	if (!cmd_record) {
		fprintf(stderr, "hwsample c2c record: this build has no record subcommand\n");
		free(nargv);
		return HWS_EXIT_UNSUPPORTED;
	}
	ret = cmd_record(cli, n, nargv);
	free(nargv);
	return ret;
}

/* ------------------------------------------------------------------ report */

/* L1 data line size from HEADER_CACHE: u32 version, u32 nr, then per cache u32 level,
 * line_size, sets, ways and the strings type, size, map ({u32 len; char[len]}). */
static uint32_t file_line_size(struct hws_perf_reader *r)
{
	const uint8_t *p;
	size_t len = 0, off = 8;
	uint32_t nr, i, v[4];

	p = hws_perf_reader__feature(r, HWS_FEAT_CACHE, &len);
	if (!p || len < 8)
		return 0;
	memcpy(&nr, p + 4, 4);
	for (i = 0; i < nr && i < 64; i++) {
		char type[32] = "";
		int s;

		if (off + 16 > len)
			return 0;
		memcpy(v, p + off, 16);
		off += 16;
		for (s = 0; s < 3; s++) {
			uint32_t sl;

			if (off + 4 > len)
				return 0;
			memcpy(&sl, p + off, 4);
			off += 4;
			if (sl > len - off)
				return 0;
			if (s == 0)
				snprintf(type, sizeof(type), "%.*s", (int)(sl < 31 ? sl : 31),
					 (const char *)p + off);
			off += sl;
		}
		if (v[0] == 1 && (!strcmp(type, "Data") || !strcmp(type, "Unified")) && v[1] &&
		    !(v[1] & (v[1] - 1)) && v[1] >= 16 && v[1] <= 4096)
			return v[1];
	}
	return 0;
}

static int cpu_node_cb(void *ctx, int cpu)
{
	return hws_perf_reader__cpu_node(ctx, cpu);
}

#define HTML_MAX (1024u << 20) /* the page is one self-contained file, made in memory */

/* hws_c2c__set_output(): the report's pieces to stdout; the first error is kept */
static int out_stdout(void *ctx, const char *buf, size_t len)
{
	int *err = ctx;

	if (*err)
		return *err;
	if (fwrite(buf, 1, len, stdout) != len)
		*err = errno ? -errno : -EIO;
	return *err;
}

struct c2c_filter {
	struct hws_c2c *c;
	const char *event; /* -e: only this event's samples */
};

static int c2c_filter_cb(void *ctx, const struct hws_sample *s)
{
	struct c2c_filter *f = ctx;

	if (s->event && !strcmp(s->event, f->event))
		return hws_c2c__sample_fn(f->c, s);
	return 0;
}

static int c2c_report(struct hws_cli *cli, int argc, char **argv)
{
	static const struct option own[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"stdio", no_argument, NULL, 'o'},
	    {"json", no_argument, NULL, 'j'},
	    {"html", required_argument, NULL, 'H'},
	    {"line-size", required_argument, NULL, 'l'},
	    {"show-all", no_argument, NULL, 'a'},
	    {"top", required_argument, NULL, 't'},
	    {"no-sym", no_argument, NULL, 'S'},
	    {"kallsyms", required_argument, NULL, 'K'},
	    {"no-srcline", no_argument, NULL, 'L'},
	    {"event", required_argument, NULL, 'e'},
	    {"call-graph", required_argument, NULL, 'g'},
	    {"no-call-graph", no_argument, NULL, 'G'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct option opts[64];
	HWS_OPTS(hws_filter_opts, fo);
	struct hws_filter *sfilter = NULL;
	struct c2c_filter filter = {0};
	struct hws_decoder_opts dopts = {.sz = sizeof(dopts),
					 .srcline = true,
					 .unordered = !hws_cli__env_on("HWS_DECODE_ORDERED"),
					 .exec_history = true};
	struct hws_c2c_opts copts = {.sz = sizeof(copts), .callchain = true};
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	const char *path = "hwsample.data", *html = NULL, *arch;
	struct hws_perf_reader *r = NULL;
	struct hws_registry *reg;
	struct hws_decoder *d = NULL;
	struct hws_c2c *c = NULL;
	struct hws_objects *objs = NULL;
	int o, err = 0, rc, ret = HWS_EXIT_OK;
	bool json = false, stdio_out = false, nosym = false, read_ok = false;
	unsigned long v;
	char ebuf[256], *end;
	int out_err = 0;

	hws_cli__with_filter_options(own, opts, 64);
	optind = 1;
	while ((o = getopt_long(argc, argv, "i:e:g:hC:", opts, NULL)) != -1) {
		if (hws_cli__filter_opt(o, optarg, &fo))
			continue;
		switch (o) {
		case 'i':
			path = optarg;
			break;
		case 'e':
			filter.event = optarg;
			break;
		case 'o':
			stdio_out = true;
			break;
		case 'j':
			json = true;
			break;
		case 'H':
			html = optarg;
			break;
		case 'a':
			copts.show_all = true;
			break;
		case 'K':
			if (hws_cli__check_input("c2c report", "--kallsyms", optarg))
				return HWS_EXIT_USAGE;
			dopts.kallsyms = optarg;
			break;
		case 'S':
			nosym = true;
			break;
		case 'L':
			dopts.srcline = false;
			break;
		case 'l':
			errno = 0;
			v = strtoul(optarg, &end, 0);
			if (errno || *end || v < 16 || v > 4096 || (v & (v - 1))) {
				fprintf(stderr,
					"hwsample c2c report: --line-size wants a power of two "
					"16..4096, not '%s'\n",
					hws_cli__text(optarg));
				return HWS_EXIT_USAGE;
			}
			copts.line_size = (uint32_t)v;
			copts.line_size_source = "--line-size";
			break;
		case 't':
			errno = 0;
			v = strtoul(optarg, &end, 0);
			if (errno || *end || !v || v > 100000) {
				fprintf(stderr,
					"hwsample c2c report: --top wants 1..100000, not '%s'\n",
					hws_cli__text(optarg));
				return HWS_EXIT_USAGE;
			}
			copts.top = (uint32_t)v;
			break;
		case 'g': /* perf's print_type[,...]: the paths are listed folded whatever it is */
			if (!strcmp(optarg, "none")) {
				copts.callchain = false;
				break;
			}
			if (strncmp(optarg, "graph", 5) && strncmp(optarg, "flat", 4) &&
			    strncmp(optarg, "fractal", 7) && strncmp(optarg, "folded", 6) &&
			    strncmp(optarg, "caller", 6) && strncmp(optarg, "callee", 6)) {
				fprintf(stderr,
					"hwsample c2c report: -g wants perf's call graph type "
					"(graph, flat, fractal, folded or none), not '%s'\n",
					hws_cli__text(optarg));
				return HWS_EXIT_USAGE;
			}
			copts.callchain = true;
			break;
		case 'G':
			copts.callchain = false;
			break;
		case 'h':
			printf(c2c_usage, hws_cli_filter_usage);
			return HWS_EXIT_OK;
		default:
			fprintf(stderr, c2c_usage, hws_cli_filter_usage);
			return HWS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hwsample c2c report: unexpected argument '%s'\n",
			hws_cli__text(argv[optind]));
		fprintf(stderr, c2c_usage, hws_cli_filter_usage);
		return HWS_EXIT_USAGE;
	}
	if (json && stdio_out) {
		fprintf(stderr, "hwsample c2c report: --json and --stdio exclude each other\n");
		return HWS_EXIT_USAGE;
	}
	dopts.no_sideband = nosym;
	hws_cli__decoder_env(&dopts);

	r = hws_cli__open_input("c2c report", path, &err);
	if (!r)
		return err;
	ret = hws_cli__filter_make("c2c report", r, &fo, &sfilter);
	if (ret) {
		hws_perf_reader__close(r);
		return ret;
	}
	/* names at each sample's time: side-band kept; else c2c names its lines, objects and
	 * call paths after the run */
	if (sfilter && hws_filter__needs_symbols(sfilter))
		dopts.no_sideband = false;
	else
		dopts.lookup_after_run = true;
	if (!copts.line_size) {
		copts.line_size = file_line_size(r);
		copts.line_size_source = "file host L1d (CACHE header)";
		if (!copts.line_size) {
			arch = hws_perf_reader__string(r, HWS_FEAT_ARCH);
			copts.line_size = 64;
			copts.line_size_source = "default for the file's arch";
			if (arch && !strncmp(arch, "ppc64", 5))
				copts.line_size = 128;
			else if (arch && !strncmp(arch, "s390", 4))
				copts.line_size = 256;
			else if (!arch)
				copts.line_size_source = "default (no ARCH or CACHE header)";
		}
	}
	copts.cpu_node = cpu_node_cb;
	copts.cpu_node_ctx = r;
	reg = hws_cli__registry(cli);
	copts.backends = reg; /* they name the coherence evidence */
	d = hws_decoder__new(r, reg, &dopts);
	copts.filter = sfilter;
	copts.syms = d ? hws_decoder__symbols(d) : NULL;
	/* the objects and fields of the lines (allocation records, DWARF) */
	copts.names = !nosym;
	objs = nosym ? NULL : hws_cli__objects("hwsample c2c report", path, r);
	copts.objects = objs;
	c = hws_c2c__new(&copts);
	if (!d || !c) {
		fprintf(stderr, "hwsample c2c report: out of memory\n");
		ret = HWS_EXIT_ERROR;
		goto out;
	}
	/* a file names its events up front; a pipe once it has been read (before the report) */
	if (!hws_perf_reader__is_pipe(r) &&
	    !hws_cli__event_known("c2c report", path, d, filter.event)) {
		ret = HWS_EXIT_USAGE;
		goto out;
	}
	filter.c = c;
	rc = filter.event ? hws_decoder__run(d, c2c_filter_cb, &filter)
			  : hws_decoder__run(d, hws_c2c__sample_fn, c);
	read_ok = rc == 0;
	if (rc == 0 && !hws_cli__event_known("c2c report", path, d, filter.event)) {
		ret = HWS_EXIT_USAGE;
		goto out;
	}
	if (rc < 0) {
		fprintf(stderr, "hwsample c2c report: %s: %s\n", hws_cli__text(path),
			hws_cli__text_lines(hws_decoder__errmsg(d)));
		fprintf(stderr, "hwsample c2c report: the report covers the records before the "
				"error\n");
		ret = HWS_EXIT_ERROR;
	} else if (rc) {
		fprintf(stderr, "hwsample c2c report: out of memory\n");
		ret = HWS_EXIT_ERROR;
		goto out;
	}
	err = hws_c2c__finish(c, nosym ? NULL : hws_decoder__symbols(d));
	if (err) {
		fprintf(stderr, "hwsample c2c report: %s\n", hws_strerror(err, ebuf, sizeof(ebuf)));
		ret = HWS_EXIT_ERROR;
		goto out;
	}
	if (html) {
		FILE *f;

		hws_strbuf__init(&sb, HTML_MAX);
		err = hws_c2c__render_html(c, path, &sb);
		if (err == HWS_E_TOO_BIG) {
			fprintf(stderr,
				"hwsample c2c report: %s: the page would pass %u MiB: "
				"show fewer lines (--top N, without --show-all) or use "
				"--json\n",
				hws_cli__text(html), HTML_MAX >> 20);
			ret = HWS_EXIT_ERROR;
			goto out;
		}
		f = err ? NULL : fopen(html, "w");
		if (!f || fwrite(sb.buf, 1, sb.len, f) != sb.len) {
			fprintf(stderr, "hwsample c2c report: %s: %s\n", hws_cli__text(html),
				err ? hws_strerror(err, ebuf, sizeof(ebuf)) : strerror(errno));
			ret = HWS_EXIT_ERROR;
		}
		if (f && fclose(f) && ret == HWS_EXIT_OK) {
			fprintf(stderr, "hwsample c2c report: %s: %s\n", hws_cli__text(html),
				strerror(errno));
			ret = HWS_EXIT_ERROR;
		}
		hws_strbuf__reset(&sb);
		if (!json && !stdio_out)
			goto out;
	}
	/* text and JSON go out in pieces as they are made: no bound on their size */
	hws_c2c__set_output(c, out_stdout, &out_err);
	err = json ? hws_c2c__render_json(c, &sb) : hws_c2c__render_stdio(c, &sb);
	if (fflush(stdout) && !out_err)
		out_err = -errno;
	if (out_err) {
		fprintf(stderr, "hwsample c2c report: writing the report: %s\n",
			strerror(-out_err));
		ret = HWS_EXIT_ERROR;
	} else if (err) {
		fprintf(stderr, "hwsample c2c report: %s\n", hws_strerror(err, ebuf, sizeof(ebuf)));
		ret = HWS_EXIT_ERROR;
	}
out:
	if (read_ok && hws_cli__unfinished("hwsample c2c report", path, r, d))
		ret = HWS_EXIT_ERROR;
	hws_strbuf__release(&sb);
	hws_c2c__delete(c);
	hws_objects__delete(objs);
	hws_filter__delete(sfilter);
	hws_decoder__delete(d);
	hws_perf_reader__close(r);
	return ret;
}

int cmd_c2c(struct hws_cli *cli, int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout, c2c_usage, hws_cli_filter_usage);
		return argc < 2 ? HWS_EXIT_USAGE : HWS_EXIT_OK;
	}
	if (!strcmp(argv[1], "record"))
		return c2c_record(cli, argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return c2c_report(cli, argc - 1, argv + 1);
	fprintf(stderr, "hwsample c2c: unknown command '%s' (record or report)\n",
		hws_cli__text(argv[1]));
	fprintf(stderr, c2c_usage, hws_cli_filter_usage);
	return HWS_EXIT_USAGE;
}
