// SPDX-License-Identifier: MIT
/*
 * `hwsample report`: decode a perf.data file, aggregate (core/analysis/report.c) and print the
 * report on stdout: samples and loss per event and CPU, top functions / code addresses, top data
 * objects / addresses, data-source and latency histograms as bar charts. A corrupt file
 * still gets the report of what was decoded before the error, then the error and exit 1.
 */
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/c2c.h>
#include <hwsample/datatype.h>
#include <hwsample/decode.h>
#include <hwsample/errors.h>
#include <hwsample/perfdata.h>
#include <hwsample/report.h>
#include <hwsample/symbols.h>

#include "cli.h"

static const char report_usage[] =
    "usage: hwsample report [-i FILE] [--stdio] [--sort samples|period|latency] [--top N]\n"
    "                       [--ascii|--unicode] [--no-sym] [--srcline] [-e EVENT]\n"
    "                       [--kallsyms FILE] [--sort KEY[,KEY...]] [--mem] [FILTERS]\n"
    "                       [FILTERS] [--hierarchy] [--no-demangle]\n"
    "                       [-g [MODE,THRESHOLD,ORDER]] [--children|--no-children]\n"
    "                       [--max-stack N] [--folded[=samples|period|latency]]\n"
    "                       [--[no-]inline] [--itrace[=OPTS]] [--[no-]group]\n"
    "\n"
    "Summarize a perf.data file: samples and loss per event and CPU, top functions and\n"
    "code addresses, top data objects and addresses, data-source (level x snoop, TLB, op)\n"
    "and latency histograms (log2 buckets, in cycles), drawn as bar charts.\n"
    "\n"
    "  -i, --input FILE   input file (default hwsample.data; \"-\" reads a pipe on stdin)\n"
    "      --stdio        text report on stdout (the default)\n"
    "      --html FILE    the report as one self-contained page (SVG plots, no script):\n"
    "                     loss per CPU, top tables, data sources, latency per memory\n"
    "                     level, a data-address x time heat map; with contended cache\n"
    "                     lines, also FILE's c2c page (.c2c.html) and a link to it\n"
    "  -s, --sort KEY     order of the top tables: samples (default), period, latency\n"
    "  -s, --sort KEY[,KEY...]  perf report's view instead: rows grouped by perf's sort\n"
    "                     keys, one section per event, as perf report --stdio\n"
    "                     --no-children: pid (tid:comm), comm, dso, symbol, cpu,\n"
    "                     srcline, symbol_daddr, dso_daddr, mem, snoop, tlb, locked,\n"
    "                     blocked, dcacheline, local_weight, weight, local_ins_lat;\n"
    "                     and tid, symoff, event, op, data_page, sample, avg_weight;\n"
    "                     type, typeoff: the data type and field accessed (perf 6.8)\n"
    "      --mem          perf mem report's view (--mem-mode with --sort: memory keys,\n"
    "                     overhead by weight)\n"
    "      --hierarchy    perf report --hierarchy: the --sort view (default comm,dso,sym)\n"
    "                     as a tree, one level per key\n"
    "  -t, --top N        rows per top table (default 20)\n"
    "      --ascii        '#' bars (default when the locale is not UTF-8)\n"
    "      --unicode      Unicode block bars\n"
    "      --no-sym       addresses only, no symbol lookup\n"
    "      --kallsyms FILE  kernel symbols from FILE (a kallsyms of the recording's kernel);\n"
    "                     default: /proc/kallsyms on that kernel, else perf's build-id cache\n"
    "      --srcline      add source file:line (needs debug info)\n"
    "      --no-demangle  C++ / Rust names as the file has them (perf --no-demangle)\n"
    "  -e, --event NAME   top tables and histograms of this event only (the counts\n"
    "                     table always shows every event); names as perf evlist shows\n"
    "                     them; an event the file does not have is an error\n"
    "  -g, --call-graph[=graph|fractal|flat|folded|none,THRESHOLD,caller|callee]\n"
    "                     perf report's view with call graphs under each row, as perf\n"
    "                     (-g alone: graph,0.5,caller; -g caller, -g callee ...);\n"
    "                     without -g a file with call chains gets graph,0.5 too\n"
    "      --children     Children (samples with the row in their chain) and Self\n"
    "                     columns: perf's default when the file has call chains\n"
    "      --no-children  the Overhead column only (call graphs callee first)\n"
    "      --max-stack N  use N frames of each chain (perf's: outermost in caller order)\n"
    "      --no-inline    no inlined functions in call graphs (perf's --no-inline); by\n"
    "                     default frames found by DWARF unwinding show them, as perf 6.1\n"
    "      --inline       every user-space frame shows them (frame-pointer chains too)\n"
    "      --full-source-path  the srcline key shows source files' whole paths\n"
    "      --group        the events of a group recording side by side in the --sort view\n"
    "                     (an overhead column each; perf's default for such a file)\n"
    "      --no-group     each event of a group its own section\n"
    "      --itrace[=fmtbaM]  Arm SPE records in the --sort view: each a sample of the\n"
    "                     events perf makes of it, a section each: f l1d-miss and\n"
    "                     l1d-access, m llc-miss and llc-access, t tlb-miss and\n"
    "                     tlb-access, b branch-miss, a remote-access, M memory (the\n"
    "                     default: all, as perf)\n"
    "      --folded[=samples|period|latency]  folded stacks instead of a report:\n"
    "                     \"comm;outer;...;inner N\" per stack, as stackcollapse-perf.pl\n"
    "                     (for flamegraph.pl, inferno, speedscope)\n"
    "  -h, --help         this text\n"
    "%s"
    "\n"
    "Examples:\n"
    "  hwsample report --sort comm,dso,sym --comms memdemo --time 10%%/2\n"
    "  hwsample report --hierarchy --sort comm,dso\n"
    "  hwsample report -g caller --no-children\n"
    "  hwsample report --folded | flamegraph.pl > flame.svg\n"
    "  hwsample report -i hwsample.data\n"
    "  hwsample report -i perf.data --sort latency --top 10\n"
    "\n"
    "Exit codes: 0 ok, 1 unreadable or corrupt input (the report of what was decoded\n"
    "before the error is still printed), 2 usage error (also -e naming no event of the\n"
    "file).\n";

struct report_ctx {
	struct hws_report *rep;
	struct hws_c2c *c2c; /* --html: the c2c page of the same samples */
	const char *event;   /* --event: only this event's samples */
	struct hws_decoder *d;
	bool hist;
	uint64_t seen; /* samples of the file (before -e and the filters, which report applies) */
};

static int report_cb(void *ctx, const struct hws_sample *s)
{
	struct report_ctx *c = ctx;

	c->seen++;
	if (c->event && (!s->event || strcmp(s->event, c->event)))
		return 0;
	if (c->hist) /* 0 or a negative errno: the decoder stops with it */
		return hws_report__add(c->rep, s);
	if (c->c2c && hws_c2c__add(c->c2c, s))
		return -ENOMEM;
	return hws_report__sample_fn(c->rep, s);
}

static bool utf8_locale(void)
{
	const char *cs;

	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}

static int write_file(const char *file, const struct hws_strbuf *sb, int *ret)
{
	FILE *f = fopen(file, "w");
	bool ok = f && fwrite(sb->buf, 1, sb->len, f) == sb->len;

	if (f && fclose(f))
		ok = false;
	if (!ok) {
		fprintf(stderr, "hwsample report: %s: %s\n", hws_cli__text(file), strerror(errno));
		*ret = HWS_EXIT_ERROR;
	}
	return 0;
}

/* --html FILE: the page, and FILE's c2c page (FILE without .html + .c2c.html) when the samples
 * show contended lines. Errors in the library's return (0 or -errno); file errors in *ret. */
static int write_html(const char *file, const char *path, struct hws_report *rep,
		      struct hws_c2c *c2c, struct hws_symbols *syms, int *ret)
{
	HWS_OPTS(hws_report_html_opts, ho, .title = path);
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	char *c2c_file = NULL;
	int err = hws_c2c__finish(c2c, syms);
	size_t n = strlen(file);

	if (!err && hws_c2c__nr_lines(c2c)) {
		const char *base = strrchr(file, '/');

		if (n > 5 && !strcmp(file + n - 5, ".html"))
			n -= 5;
		if (asprintf(&c2c_file, "%.*s.c2c.html", (int)n, file) < 0) {
			c2c_file = NULL;
			err = -ENOMEM;
		} else {
			err = hws_c2c__render_html(c2c, path, &sb);
			if (err == HWS_E_TOO_BIG) { /* the report page is still worth having */
				fprintf(stderr,
					"hwsample report: %s not written: the c2c page would pass "
					"64 MiB (%u lines): use hwsample c2c report --html FILE "
					"--top N\n",
					hws_cli__text(c2c_file), hws_c2c__nr_lines(c2c));
				err = 0;
			} else if (!err) {
				write_file(c2c_file, &sb, ret);
				/* the link is relative: the two pages sit side by side */
				ho.c2c_href = base ? c2c_file + (base - file) + 1 : c2c_file;
				ho.c2c_lines = hws_c2c__nr_lines(c2c);
			}
		}
	}
	hws_strbuf__reset(&sb);
	if (!err)
		err = hws_report__render_html(rep, syms, &ho, &sb);
	if (!err)
		write_file(file, &sb, ret);
	hws_strbuf__release(&sb);
	free(c2c_file);
	return err;
}

/* the file's event groups side by side (perf's default for a group recording), or not */
static int set_groups(struct hws_report *rep, const struct hws_perf_reader *r, bool view)
{
	const struct hws_perf_group *g;
	size_t n = hws_perf_reader__groups(r, &g);
	int na = hws_perf_reader__nr_attrs(r);
	const char **names = calloc(na > 0 ? (size_t)na : 1, sizeof(*names));
	int err;

	if (!names)
		return -ENOMEM;
	for (int i = 0; i < na; i++)
		names[i] = hws_perf_reader__attr(r, i)->name;
	err = hws_report__set_groups(rep, g, n, names, (size_t)(na > 0 ? na : 0), view);
	free(names);
	return err;
}

int cmd_report(struct hws_cli *cli, int argc, char **argv)
{
	static const struct option own[] = {
	    {"input", required_argument, NULL, 'i'},
	    {"stdio", no_argument, NULL, 'o'},
	    {"sort", required_argument, NULL, 's'},
	    {"top", required_argument, NULL, 't'},
	    {"ascii", no_argument, NULL, 'a'},
	    {"unicode", no_argument, NULL, 'u'},
	    {"no-sym", no_argument, NULL, 'S'},
	    {"srcline", no_argument, NULL, 'L'},
	    {"kallsyms", required_argument, NULL, 'K'},
	    {"event", required_argument, NULL, 'e'},
	    {"help", no_argument, NULL, 'h'},
	    {"mem", no_argument, NULL, 'M'},
	    {"mem-mode", no_argument, NULL, 'M'},
	    {"no-children", no_argument, NULL, 'N'},
	    {"no-demangle", no_argument, NULL, 'D'},
	    {"hierarchy", no_argument, NULL, 'H'},
	    {"children", no_argument, NULL, 'c'},
	    {"call-graph", optional_argument, NULL, 'g'},
	    {"max-stack", required_argument, NULL, 'X'},
	    {"folded", optional_argument, NULL, 'F'},
	    {"html", required_argument, NULL, 'W'}, /* core/analysis/report_html.c */
	    {"inline", no_argument, NULL, 0x2100},
	    {"no-inline", no_argument, NULL, 0x2101},
	    {"full-source-path", no_argument, NULL, 0x2102},
	    {"itrace", optional_argument, NULL, 0x2103},
	    {"group", no_argument, NULL, 0x2104},
	    {"no-group", no_argument, NULL, 0x2105},
	    {NULL, 0, NULL, 0},
	};
	struct option opts[64];
	HWS_OPTS(hws_filter_opts, fo);
	struct hws_filter *filter = NULL;
	struct report_ctx rc_ctx = {0};
	struct hws_decoder_opts dopts = {.sz = sizeof(dopts),
					 .unordered = !hws_cli__env_on("HWS_DECODE_ORDERED"),
					 .exec_history = true};
	struct hws_report_opts ropts = {.sz = sizeof(ropts)};
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	const char *path = "hwsample.data";
	struct hws_perf_reader *r = NULL;
	struct hws_objects *objects = NULL;
	struct hws_decoder *d = NULL;
	struct hws_report *rep = NULL;
	int o, err = 0, rc, ret = HWS_EXIT_OK, bars = -1, group = -1;
	bool nosym = false, cg_given = false, stdio_out = false;
	const char *html = NULL;
	char ebuf[256];

	/* the text report holds every row, as perf prints every row: no cap but memory (the
	 * rows it is made of are in memory already); a 1 M-sample report --mem is ~200 MB */
	hws_strbuf__init(&sb, SIZE_MAX);
	hws_cli__with_filter_options(own, opts, 64);
	optind = 1;
	while ((o = getopt_long(argc, argv, "i:s:t:e:hC:g::", opts, NULL)) != -1) {
		if (hws_cli__filter_opt(o, optarg, &fo))
			continue;
		switch (o) {
		case 'M':
			ropts.mem = true;
			break;
		case 'N':
			ropts.children = -1;
			break;
		case 'c':
			ropts.children = 1;
			break;
		case 'g':
			/* perf's -g takes its argument as the next word too (-g caller); report
			 * has no other words, so a bad one is -g's error */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			/* perf's default of -g: graph,0.5,caller,function,percent */
			ropts.callgraph = optarg ? optarg : "graph,0.5,caller";
			if (hws_report__parse_callgraph(ropts.callgraph, ebuf, sizeof(ebuf))) {
				fprintf(stderr,
					"hwsample report: -g: bad '%s': use "
					"graph|fractal|flat|folded|none, a threshold in percent, "
					"caller|callee (e.g. -g graph,0.5,caller)\n",
					hws_cli__text(ebuf));
				return HWS_EXIT_USAGE;
			}
			cg_given = true;
			break;
		case 0x2100:
			ropts.inline_mode = HWS_INLINE_ALL;
			break;
		case 0x2101:
			ropts.inline_mode = HWS_INLINE_NONE;
			break;
		case 0x2102:
			ropts.full_source_path = true;
			break;
		case 0x2104:
		case 0x2105:
			group = o == 0x2104;
			break;
		case 0x2103:
			rc = hws_report__parse_itrace(optarg, NULL, ebuf, sizeof(ebuf));
			if (rc) {
				fprintf(
				    stderr,
				    rc == -ENOTSUP
					? "hwsample report: --itrace: instruction samples ('%s') "
					  "are not made here; the SPE events: f (l1d), m (llc), "
					  "t (tlb), b (branch-miss), a (remote-access), M "
					  "(memory)\n"
					: "hwsample report: --itrace: bad '%s': perf's letters, "
					  "e.g. "
					  "--itrace=fmtbaM (SPE events; the default: all)\n",
				    hws_cli__text(ebuf));
				return HWS_EXIT_USAGE;
			}
			ropts.itrace = optarg;
			break;
		case 'X': {
			char *end;
			unsigned long v;
			errno = 0;
			v = strtoul(optarg, &end, 0);
			if (errno || *end || v > 65535 || optarg[0] == '-') {
				fprintf(stderr,
					"hwsample report: --max-stack wants 0..65535, not '%s'\n",
					hws_cli__text(optarg));
				return HWS_EXIT_USAGE;
			}
			ropts.max_stack = (uint32_t)v;
			break;
		}
		case 'F':
			if (!optarg || !strcmp(optarg, "samples"))
				ropts.folded = HWS_REPORT_FOLDED_SAMPLES;
			else if (!strcmp(optarg, "period"))
				ropts.folded = HWS_REPORT_FOLDED_PERIOD;
			else if (!strcmp(optarg, "latency"))
				ropts.folded = HWS_REPORT_FOLDED_LATENCY;
			else {
				fprintf(stderr,
					"hwsample report: --folded=%s: use samples, period or "
					"latency\n",
					hws_cli__text(optarg));
				return HWS_EXIT_USAGE;
			}
			break;
		case 'D':
			dopts.no_demangle = true;
			break;
		case 'H':
			ropts.hierarchy = true;
			break;
		case 'i':
			path = optarg;
			break;
		case 'o':
			stdio_out = true;
			break;
		case 'W':
			html = optarg;
			break;
		case 'a':
			bars = 0;
			break;
		case 'u':
			bars = 1;
			break;
		case 'S':
			nosym = true;
			break;
		case 'L':
			dopts.srcline = true;
			break;
		case 'K':
			if (hws_cli__check_input("report", "--kallsyms", optarg))
				return HWS_EXIT_USAGE;
			dopts.kallsyms = optarg;
			break;
		case 'e':
			rc_ctx.event = optarg;
			break;
		case 's':
			if (!strcmp(optarg, "samples"))
				ropts.sort = HWS_REPORT_SORT_SAMPLES;
			else if (!strcmp(optarg, "period"))
				ropts.sort = HWS_REPORT_SORT_PERIOD;
			else if (!strcmp(optarg, "latency") || !strcmp(optarg, "lat"))
				ropts.sort = HWS_REPORT_SORT_LATENCY;
			else if (hws_report__parse_sort(optarg, ebuf, sizeof(ebuf))) {
				fprintf(stderr,
					"hwsample report: --sort: unknown key '%s': use samples, "
					"period or latency, or perf's sort keys (see --help)\n",
					hws_cli__text(ebuf));
				return HWS_EXIT_USAGE;
			} else if (strstr(optarg, "ty") && !hws_datatypes__available()) {
				fprintf(stderr,
					"hwsample report: --sort %s: type profiling needs "
					"capstone: install libcapstone-dev (scripts/deps.sh); a "
					"hwsample built without it must be rebuilt\n",
					optarg);
				return HWS_EXIT_UNSUPPORTED;
			} else {
				ropts.sort_keys = optarg;
			}
			break;
		case 't': {
			char *end;
			unsigned long v;
			errno = 0;
			v = strtoul(optarg, &end, 0);
			if (errno || *end || !v || v > 100000 || optarg[0] == '-') {
				fprintf(stderr,
					"hwsample report: --top wants 1..100000, not '%s'\n",
					hws_cli__text(optarg));
				return HWS_EXIT_USAGE;
			}
			ropts.top = (uint32_t)v;
			break;
		}
		case 'h':
			printf(report_usage, hws_cli_filter_usage);
			return HWS_EXIT_OK;
		default:
			fprintf(stderr, report_usage, hws_cli_filter_usage);
			return HWS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hwsample report: unexpected argument '%s'\n",
			hws_cli__text(argv[optind]));
		fprintf(stderr, report_usage, hws_cli_filter_usage);
		return HWS_EXIT_USAGE;
	}
	rc_ctx.hist = ropts.sort_keys || ropts.mem || ropts.hierarchy || ropts.callgraph ||
		      ropts.children || ropts.folded;
	if (html && rc_ctx.hist) {
		fprintf(stderr,
			"hwsample report: --html draws the default report: drop --sort "
			"KEY,... / --mem / --hierarchy / -g / --children / --folded (or run "
			"report twice)\n");
		return HWS_EXIT_USAGE;
	}
	ropts.html = html != NULL;
	if (ropts.sort_keys && strstr(ropts.sort_keys, "srcline"))
		dopts.srcline = true;
	ropts.ascii = bars < 0 ? !utf8_locale() : !bars;
	dopts.no_sideband = nosym;
	hws_cli__decoder_env(&dopts);

	r = hws_cli__open_input("report", path, &err);
	if (!r)
		return err;
	ret = hws_cli__filter_make("report", r, &fo, &filter);
	if (ret)
		goto out;
	/* objects, and types (heap blocks typed by their allocation site) */
	if (ropts.sort_keys && (strstr(ropts.sort_keys, "ob") || strstr(ropts.sort_keys, "of") ||
				strstr(ropts.sort_keys, "ty")))
		objects = hws_cli__objects("hwsample report", path, r);
	ropts.objects = objects;
	d = hws_decoder__new(r, hws_cli__registry(cli), &dopts);
	ropts.filter = filter;
	ropts.syms = d && !nosym ? hws_decoder__symbols(d) : NULL;
	rep = hws_report__new(&ropts);
	if (!rep && errno == EINVAL && ropts.hierarchy) {
		fprintf(stderr,
			"hwsample report: --hierarchy: sample, weight and avg_weight (and "
			"--mem's default view, which has a Samples column) are columns, not "
			"levels: give the levels with --sort KEY,...\n");
		ret = HWS_EXIT_USAGE;
		goto out;
	}
	if (!d || !rep) {
		fprintf(stderr, "hwsample report: out of memory\n");
		ret = HWS_EXIT_ERROR;
		goto out;
	}
	rc_ctx.rep = rep;
	if (html) {
		HWS_OPTS(hws_c2c_opts, copts, .line_size_source = "default (report --html)",
			 .backends = hws_cli__registry(cli));
		rc_ctx.c2c = hws_c2c__new(&copts);
		if (!rc_ctx.c2c) {
			fprintf(stderr, "hwsample report: out of memory\n");
			ret = HWS_EXIT_ERROR;
			goto out;
		}
	}
	/* a file names its events up front; a pipe once it has been read (before the report) */
	if (!hws_perf_reader__is_pipe(r) &&
	    !hws_cli__event_known("report", path, d, rc_ctx.event)) {
		ret = HWS_EXIT_USAGE;
		goto out;
	}
	if (rc_ctx.hist && !rc_ctx.event) {
		/* the table of every event: the library's adapter is the callback (a call less a
		 * sample), and the samples seen are the decoder's count of them */
		struct hws_decode_counts all;

		rc = hws_decoder__run(d, hws_report__sample_fn, rep);
		if (!hws_decoder__counts(d, HWS_DECODE_ALL, HWS_DECODE_ALL, &all))
			rc_ctx.seen = all.samples;
	} else {
		rc = hws_decoder__run(d, report_cb, &rc_ctx);
	}
	if (rc == 0 && !hws_cli__event_known("report", path, d, rc_ctx.event)) {
		ret = HWS_EXIT_USAGE;
		goto out;
	}
	err = hws_report__add_decoder_counts(rep, d);
	if (!err && rc_ctx.hist && hws_perf_reader__groups(r, NULL))
		err = set_groups(rep, r, group != 0);
	if (!err && html)
		err = write_html(html, path, rep, rc_ctx.c2c,
				 nosym ? NULL : hws_decoder__symbols(d), &ret);
	if (!err && (!html || stdio_out))
		err = hws_report__render(rep, nosym ? NULL : hws_decoder__symbols(d), &sb);
	if (sb.len)
		fwrite(sb.buf, 1, sb.len, stdout);
	fflush(stdout);
	if (rc < 0) {
		fprintf(stderr, "hwsample report: %s: %s\n", hws_cli__text(path),
			hws_cli__text_lines(hws_decoder__errmsg(d)));
		fprintf(stderr,
			"hwsample report: the report covers the records before the error\n");
		ret = HWS_EXIT_ERROR;
	} else if (rc || err) {
		fprintf(stderr, "hwsample report: %s\n",
			hws_strerror(err ? err : -ENOMEM, ebuf, sizeof(ebuf)));
		ret = HWS_EXIT_ERROR;
	} else if (hws_cli__unfinished("hwsample report", path, r, d)) {
		ret = HWS_EXIT_ERROR;
	} else if (cg_given && !hws_report__has_callchains(rep)) {
		fprintf(stderr,
			"hwsample report: -g: %s has no call chains: record with -g (frame "
			"pointers) or --call-graph dwarf\n",
			hws_cli__text(path));
		ret = HWS_EXIT_ERROR;
	} else if (!rc_ctx.seen) { /* perf report: "The FILE data has no samples!" */
		fprintf(stderr, "hwsample report: %s has no samples\n", hws_cli__text(path));
	}
out:
	hws_strbuf__release(&sb);
	hws_report__delete(rep);
	hws_c2c__delete(rc_ctx.c2c);
	hws_objects__delete(objects);
	hws_filter__delete(filter);
	hws_decoder__delete(d);
	hws_perf_reader__close(r);
	return ret;
}
