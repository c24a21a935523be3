// SPDX-License-Identifier: MIT
/*
 * `hwsample convert`: a perf.data file into another tool's format, as `perf data convert`
 * (which writes CTF and JSON). --to-pprof writes Google's pprof profile (gzipped
 * profile.proto, include/hwsample/convert.h) for `go tool pprof`, pprof, Pyroscope, Parca.
 * The output is written to OUT.tmp and renamed at the end: a failed run leaves no profile
 * that looks complete. A corrupt input still gets the profile of what was decoded before
 * the error, then the error and exit 1 (as report).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/convert.h>
#include <hwsample/datatype.h>
#include <hwsample/objects.h>
#include <hwsample/decode.h>
#include <hwsample/errors.h>
#include <hwsample/perfdata.h>
#include <hwsample/symbols.h>

#include "cli.h"

static const char convert_usage[] =
    "usage: hwsample convert [-i FILE] --to-pprof OUT [--data-frames] [--no-srcline]\n"
    "                        [-e EVENT] [--kallsyms FILE] [--[no-]inline] [FILTERS]\n"
    "\n"
    "Convert a perf.data file into another tool's format (perf data convert).\n"
    "\n"
    "  -i, --input FILE     input file (default hwsample.data; \"-\" reads a pipe on stdin)\n"
    "      --to-pprof OUT   Google's pprof profile (gzipped profile.proto) for go tool pprof,\n"
    "                       pprof, Pyroscope, Parca; \"-\" writes it to stdout. Sample types\n"
    "                       samples/count, event/count (the periods) and latency/cycles\n"
    "                       (when the samples have one); stacks from the call chains (-g),\n"
    "                       else the sample's ip; labels pid, tid, cpu, comm, event, op,\n"
    "                       mem_level, snoop, tlb; with data addresses object (recorded\n"
    "                       with --objects), type and typeoff (as report --sort type,typeoff)\n"
    "      --data-frames    add the data address as the leaf frame (\"[data] SYMBOL\")\n"
    "      --no-srcline     no source file:line lookups (faster; functions only)\n"
    "      --no-inline      no inlined functions (by default a frame found by DWARF\n"
    "                       unwinding has one line per function inlined there, as perf\n"
    "                       shows them); --inline: every user-space frame has them\n"
    "  -e, --event NAME     this event's samples only (names as perf evlist shows them)\n"
    "      --kallsyms FILE  kernel symbols from FILE (a kallsyms of the recording's kernel)\n"
    "  -h, --help           this text\n"
    "%s"
    "\n"
    "Examples:\n"
    "  hwsample convert -i hwsample.data --to-pprof hwsample.pb.gz\n"
    "  go tool pprof -top hwsample.pb.gz; go tool pprof -tagfocus mem_level=l3 -top ...\n"
    "  hwsample convert --to-pprof mem.pb.gz --data-frames --comms memdemo --time 10%%/2\n"
    "\n"
    "Exit codes: 0 ok, 1 unreadable or corrupt input (the profile of what was decoded\n"
    "before the error is still written) or the output cannot be written, 2 usage error.\n";

struct convert_ctx {
	struct hws_pprof *p;
	int err;
};

static int convert_cb(void *ctx, const struct hws_sample *s)
{
	struct convert_ctx *c = ctx;

	c->err = hws_pprof__add(c->p, s);
	return c->err ? 1 : 0;
}

int cmd_convert(struct hws_cli *cli, int argc, char **argv)
{
	static const struct option own[] = {
	    {"input", required_argument, NULL, 'i'},	{"to-pprof", required_argument, NULL, 'P'},
	    {"data-frames", no_argument, NULL, 'D'},	{"no-srcline", no_argument, NULL, 'L'},
	    {"kallsyms", required_argument, NULL, 'K'}, {"event", required_argument, NULL, 'e'},
	    {"help", no_argument, NULL, 'h'},		{"inline", no_argument, NULL, 0x2100},
	    {"no-inline", no_argument, NULL, 0x2101},	{NULL, 0, NULL, 0},
	};
	struct option opts[64];
	HWS_OPTS(hws_filter_opts, fo);
	HWS_OPTS(hws_pprof_opts, po);
	struct hws_objects *objects = NULL;
	struct hws_datatypes *types = NULL;
	struct hws_decoder_opts dopts = {
	    .sz = sizeof(dopts), .srcline = true, .exec_history = true};
	struct hws_filter *filter = NULL;
	const char *path = "hwsample.data", *out = NULL;
	struct hws_perf_reader *r = NULL;
	struct hws_decoder *d = NULL;
	struct hws_pprof *p = NULL;
	char *tmp = NULL, ebuf[256], comment[4200];
	struct convert_ctx cc = {0};
	int o, fd = -1, err = 0, rc, ret = HWS_EXIT_OK;
	bool renamed = false;

	hws_cli__with_filter_options(own, opts, 64);
	optind = 1;
	while ((o = getopt_long(argc, argv, "i:e:hC:", opts, NULL)) != -1) {
		if (hws_cli__filter_opt(o, optarg, &fo))
			continue;
		switch (o) {
		case 'i':
			path = optarg;
			break;
		case 'P':
			out = optarg;
			break;
		case 0x2100:
			po.inline_mode = HWS_INLINE_ALL;
			break;
		case 0x2101:
			po.inline_mode = HWS_INLINE_NONE;
			break;
		case 'D':
			po.data_frames = true;
			break;
		case 'L':
			dopts.srcline = false;
			break;
		case 'K':
			if (hws_cli__check_input("convert", "--kallsyms", optarg))
				return HWS_EXIT_USAGE;
			dopts.kallsyms = optarg;
			break;
		case 'e':
			fo.event = optarg;
			break;
		case 'h':
			printf(convert_usage, hws_cli_filter_usage);
			return HWS_EXIT_OK;
		default:
			fprintf(stderr, convert_usage, hws_cli_filter_usage);
			return HWS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hwsample convert: unexpected argument '%s'\n",
			hws_cli__text(argv[optind]));
		fprintf(stderr, convert_usage, hws_cli_filter_usage);
		return HWS_EXIT_USAGE;
	}
	if (!out || !*out) {
		fprintf(stderr, "hwsample convert: say what to convert to: --to-pprof OUT (the "
				"only format so far)\n");
		return HWS_EXIT_USAGE;
	}
	hws_cli__decoder_env(&dopts);

	r = hws_cli__open_input("convert", path, &err);
	if (!r)
		return err;
	ret = hws_cli__filter_make("convert", r, &fo, &filter);
	if (ret)
		goto out;
	d = hws_decoder__new(r, hws_cli__registry(cli), &dopts);
	if (!d) {
		fprintf(stderr, "hwsample convert: out of memory\n");
		ret = HWS_EXIT_ERROR;
		goto out;
	}
	if (!hws_perf_reader__is_pipe(r) && !hws_cli__event_known("convert", path, d, fo.event)) {
		ret = HWS_EXIT_USAGE;
		goto out;
	}
	/* the output before the work: a path that cannot be written is said at once */
	if (strcmp(out, "-")) {
		size_t n = strlen(out) + 5;

		tmp = malloc(n);
		if (!tmp) {
			fprintf(stderr, "hwsample convert: out of memory\n");
			ret = HWS_EXIT_ERROR;
			goto out;
		}
		snprintf(tmp, n, "%s.tmp", out);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			fprintf(stderr, "hwsample convert: --to-pprof %s: %s\n", hws_cli__text(out),
				strerror(errno));
			ret = errno == EACCES || errno == EPERM ? HWS_EXIT_PERM : HWS_EXIT_ERROR;
			free(tmp);
			tmp = NULL;
			goto out;
		}
	} else if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "hwsample convert: --to-pprof -: not writing a gzipped profile to "
				"a terminal; redirect stdout or give a file name\n");
		ret = HWS_EXIT_USAGE;
		goto out;
	} else {
		fd = STDOUT_FILENO;
	}
	snprintf(comment, sizeof(comment), "hwsample %s convert -i %s", HWS_VERSION, path);
	po.syms = hws_decoder__symbols(d);
	po.filter = filter;
	po.comment = comment;
	/* recorded with --objects: each sample with a data address gets its "object" label */
	objects = hws_cli__objects("hwsample convert", path, r);
	po.objects = objects;
	po.object_labels = objects != NULL;
	/* samples with a data address get "type" and "typeoff" labels where the access's
	 * type is found (built with capstone; cached per instruction) */
	if (hws_datatypes__available())
		types = hws_datatypes__new(); /* NULL: no type labels */
	po.types = types;
	p = hws_pprof__new(&po);
	if (!p) {
		fprintf(stderr, "hwsample convert: out of memory\n");
		ret = HWS_EXIT_ERROR;
		goto out;
	}
	cc.p = p;
	rc = hws_decoder__run(d, convert_cb, &cc);
	if (rc == 0 && !hws_cli__event_known("convert", path, d, fo.event)) {
		ret = HWS_EXIT_USAGE;
		goto out;
	}
	err = rc > 0 ? cc.err : 0;
	if (!err) {
		err = hws_pprof__write(p, fd);
		if (err)
			fprintf(stderr, "hwsample convert: writing %s: %s\n",
				hws_cli__text(strcmp(out, "-") ? out : "stdout"),
				hws_strerror(err, ebuf, sizeof(ebuf)));
	} else {
		fprintf(stderr, "hwsample convert: %s\n", hws_strerror(err, ebuf, sizeof(ebuf)));
	}
	if (!err && fd != STDOUT_FILENO) {
		if (fsync(fd) && errno != EINVAL) {
			err = -errno;
			fprintf(stderr, "hwsample convert: writing %s: %s\n", hws_cli__text(out),
				strerror(-err));
		}
		if (close(fd) && !err) {
			err = -errno;
			fprintf(stderr, "hwsample convert: writing %s: %s\n", hws_cli__text(out),
				strerror(-err));
		}
		fd = -1;
		if (!err && rename(tmp, out)) {
			err = -errno;
			fprintf(stderr, "hwsample convert: --to-pprof %s: %s\n", hws_cli__text(out),
				strerror(-err));
		}
		renamed = !err;
	}
	if (err) {
		ret = HWS_EXIT_ERROR;
	} else if (rc < 0) {
		fprintf(stderr, "hwsample convert: %s: %s\n", hws_cli__text(path),
			hws_cli__text_lines(hws_decoder__errmsg(d)));
		fprintf(stderr, "hwsample convert: the profile covers the records before the "
				"error\n");
		ret = HWS_EXIT_ERROR;
	} else if (hws_cli__unfinished("hwsample convert", path, r, d)) {
		ret = HWS_EXIT_ERROR;
	}
	if (cli->verbose) {
		struct hws_pprof_stats st;

		hws_pprof__stats(p, &st);
		fprintf(stderr,
			"convert: %" PRIu64 " samples (%" PRIu64 " filtered out) -> %" PRIu64
			" pprof samples, %" PRIu64 " locations, %" PRIu64 " functions, %" PRIu64
			" mappings, %" PRIu64 " strings\n",
			st.samples, st.filtered, st.pprof_samples, st.locations, st.functions,
			st.mappings, st.strings);
	}
out:
	if (fd >= 0 && fd != STDOUT_FILENO)
		close(fd);
	if (tmp && !renamed)
		unlink(tmp);
	free(tmp);
	hws_pprof__delete(p);
	hws_datatypes__delete(types);
	hws_objects__delete(objects);
	hws_filter__delete(filter);
	hws_decoder__delete(d);
	hws_perf_reader__close(r);
	return ret;
}
