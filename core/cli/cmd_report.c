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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/decode.h>
#include <hwsample/errors.h>
#include <hwsample/perfdata.h>
#include <hwsample/report.h>

#include "cli.h"

static const char report_usage[] =
    "usage: hwsample report [-i FILE] [--stdio] [--sort samples|period|latency] [--top N]\n"
    "                       [--ascii|--unicode] [--no-sym] [--srcline] [-e EVENT]\n"
    "                       [--kallsyms FILE] [--sort KEY[,KEY...]] [--mem] [FILTERS]\n"
    "\n"
    "Summarize a perf.data file: samples and loss per event and CPU, top functions and\n"
    "code addresses, top data objects and addresses, data-source (level x snoop, TLB, op)\n"
    "and latency histograms (log2 buckets, in cycles), drawn as bar charts.\n"
    "\n"
    "  -i, --input FILE   input file (default hwsample.data; \"-\" reads a pipe on stdin)\n"
    "      --stdio        text report on stdout (the default and only mode)\n"
    "  -s, --sort KEY     order of the top tables: samples (default), period, latency\n"
    "  -s, --sort KEY[,KEY...]  perf report's view instead: rows grouped by perf's sort\n"
    "                     keys, one section per event, as perf report --stdio\n"
    "                     --no-children: pid (tid:comm), comm, dso, symbol, cpu,\n"
    "                     srcline, symbol_daddr, dso_daddr, mem, snoop, tlb, locked,\n"
    "                     blocked, dcacheline, local_weight, weight, local_ins_lat;\n"
    "                     and tid, symoff, event, op, data_page, sample, avg_weight\n"
    "      --mem          perf mem report's view (--mem-mode with --sort: memory keys,\n"
    "                     overhead by weight)\n"
    "  -t, --top N        rows per top table (default 20)\n"
    "      --ascii        '#' bars (default when the locale is not UTF-8)\n"
    "      --unicode      Unicode block bars\n"
    "      --no-sym       addresses only, no symbol lookup\n"
    "      --kallsyms FILE  kernel symbols from FILE (a kallsyms of the recording's kernel);\n"
    "                     default: /proc/kallsyms on that kernel, else perf's build-id cache\n"
    "      --srcline      add source file:line (needs debug info)\n"
    "  -e, --event NAME   top tables and histograms of this event only (the counts\n"
    "                     table always shows every event); names as perf evlist shows\n"
    "                     them; an event the file does not have is an error\n"
    "  -h, --help         this text\n"
    "%s"
    "\n"
    "Examples:\n"
    "  hwsample report --sort comm,dso,sym --comms memdemo --time 10%%/2\n"
    "  hwsample report -i hwsample.data\n"
    "  hwsample report -i perf.data --sort latency --top 10\n"
    "\n"
    "Exit codes: 0 ok, 1 unreadable or corrupt input (the report of what was decoded\n"
    "before the error is still printed), 2 usage error (also -e naming no event of the\n"
    "file).\n";

struct report_ctx {
	struct hws_report *rep;
	const char *event; /* --event: only this event's samples */
	struct hws_decoder *d;
	bool hist;
};

static int report_cb(void *ctx, const struct hws_sample *s)
{
	struct report_ctx *c = ctx;

	if (c->event && (!s->event || strcmp(s->event, c->event)))
		return 0;
	if (c->hist)
		return hws_report__add(c->rep, s) ? -ENOMEM : 0;
	return hws_report__sample_fn(c->rep, s);
}

static bool utf8_locale(void)
{
	const char *cs;

	setlocale(LC_CTYPE, "");
	cs = nl_langinfo(CODESET);
	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
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
	int o, err = 0, rc, ret = HWS_EXIT_OK, bars = -1;
	bool nosym = false;
	char ebuf[256];

	hws_cli__with_filter_options(own, opts, 64);
	optind = 1;
	while ((o = getopt_long(argc, argv, "i:s:t:e:hC:", opts, NULL)) != -1) {
		if (hws_cli__filter_opt(o, optarg, &fo))
			continue;
		switch (o) {
		case 'M':
			ropts.mem = true;
			break;
		case 'N':
			break;
		case 'i':
			path = optarg;
			break;
		case 'o':
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
					ebuf);
				return HWS_EXIT_USAGE;
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
					optarg);
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
		fprintf(stderr, "hwsample report: unexpected argument '%s'\n", argv[optind]);
		fprintf(stderr, report_usage, hws_cli_filter_usage);
		return HWS_EXIT_USAGE;
	}
	rc_ctx.hist = ropts.sort_keys || ropts.mem;
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
	if (ropts.sort_keys && (strstr(ropts.sort_keys, "ob") || strstr(ropts.sort_keys, "of")))
		objects = hws_cli__objects("hwsample report", path, r);
	ropts.objects = objects;
	/* symbols as they are at each sample's time: samples in time order */
	if (rc_ctx.hist || filter)
		dopts.unordered = false;
	d = hws_decoder__new(r, hws_cli__registry(cli), &dopts);
	ropts.filter = filter;
	ropts.syms = d && !nosym ? hws_decoder__symbols(d) : NULL;
	rep = hws_report__new(&ropts);
	if (!d || !rep) {
		fprintf(stderr, "hwsample report: out of memory\n");
		ret = HWS_EXIT_ERROR;
		goto out;
	}
	rc_ctx.rep = rep;
	/* a file names its events up front; a pipe once it has been read (before the report) */
	if (!hws_perf_reader__is_pipe(r) &&
	    !hws_cli__event_known("report", path, d, rc_ctx.event)) {
		ret = HWS_EXIT_USAGE;
		goto out;
	}
	rc = hws_decoder__run(d, report_cb, &rc_ctx);
	if (rc == 0 && !hws_cli__event_known("report", path, d, rc_ctx.event)) {
		ret = HWS_EXIT_USAGE;
		goto out;
	}
	err = hws_report__add_decoder_counts(rep, d);
	if (!err)
		err = hws_report__render(rep, nosym ? NULL : hws_decoder__symbols(d), &sb);
	if (sb.len)
		fwrite(sb.buf, 1, sb.len, stdout);
	fflush(stdout);
	if (rc < 0) {
		fprintf(stderr, "hwsample report: %s: %s\n", path, hws_decoder__errmsg(d));
		fprintf(stderr,
			"hwsample report: the report covers the records before the error\n");
		ret = HWS_EXIT_ERROR;
	} else if (rc || err) {
		fprintf(stderr, "hwsample report: %s\n",
			hws_strerror(err ? err : -ENOMEM, ebuf, sizeof(ebuf)));
		ret = HWS_EXIT_ERROR;
	} else if (hws_cli__unfinished("hwsample report", path, r, d)) {
		ret = HWS_EXIT_ERROR;
	}
out:
	hws_strbuf__release(&sb);
	hws_report__delete(rep);
	hws_objects__delete(objects);
	hws_filter__delete(filter);
	hws_decoder__delete(d);
	hws_perf_reader__close(r);
	return ret;
}
