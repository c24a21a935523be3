// SPDX-License-Identifier: MIT
/*
 * `hwsample dump`: one line per decoded sample (text, JSON or CSV) from a perf.data file or
 * pipe. Output is built in a capped buffer and written in large chunks. On a corrupt or
 * truncated file everything decoded before the bad record is written first, then the error
 * (with the byte offset and record type) goes to stderr and the exit code is 1. Loss
 * counters are summarized on stderr so they are never silent and never mix with the data.
 *
 * With HWS_DUMP_THREADS=1, no --sym and no --raw (nothing in a line depends on decoder
 * state at that moment) and more than one CPU, formatting runs in another thread: the
 * decoder copies each sample into a batch, the formatter turns whole batches into text and
 * writes them, in order (same output as one thread).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/decode.h>
#include <hwsample/errors.h>
#include <hwsample/datatype.h>
#include <hwsample/objects.h>
#include <hwsample/output.h>
#include <hwsample/perfdata.h>
#include <hwsample/symbols.h>

#include "cli.h"

#define FLUSH_AT (1u << 20)

static const char dump_usage[] =
    "usage: hwsample dump [-i FILE] [--json|--csv] [--raw] [--limit N] [--sym|--no-sym]\n"
    "                     [--srcline] [-e EVENT] [--kallsyms FILE] [-F FIELD,...] [--ns]\n"
    "                     [--no-demangle] [--max-stack N] [--[no-]inline] [FILTERS]\n"
    "\n"
    "Print every decoded sample of a perf.data file (written by hwsample or perf record),\n"
    "in time order within each round (between FINISHED_ROUND records), as perf script.\n"
    "Loss counters (LOST, LOST_SAMPLES, throttling, AUX truncation) go to stderr.\n"
    "\n"
    "  -i, --input FILE   input file (default hwsample.data; \"-\" reads a pipe on stdin)\n"
    "      --json         one JSON object per line: time, cpu, pid, tid, event, backend,\n"
    "                     period, ip, precise, addr, phys_addr, op, lat_total, lat_issue,\n"
    "                     lat_xlat, lat_miss, lat_ins, mem_level, snoop, tlb, data_src,\n"
    "                     branch_target (only the fields the sample has)\n"
    "      --csv          the same columns as CSV, with a header row\n"
    "      --raw          add the decoded vendor fields (IBS registers, SPE packets, ...)\n"
    "      --limit N      stop after N samples\n"
    "      --max-stack N  at most N frames of each call chain (perf script's; default 127)\n"
    "      --sym          add symbols to JSON/CSV (sym, dso, data_sym, data_dso)\n"
    "      --no-sym       no symbols in text output\n"
    "      --kallsyms FILE  kernel symbols from FILE (a kallsyms of the recording's kernel);\n"
    "                     default: /proc/kallsyms on that kernel, else perf's build-id cache\n"
    "      --srcline      add source file:line to symbols (needs debug info)\n"
    "  -e, --event NAME   only the samples of this event (its name as dump and perf evlist\n"
    "                     print it); an event the file does not have is an error\n"
    "  -F, --fields LIST  perf script -F: these fields in perf script's layout, among\n"
    "                     comm,tid,pid,time,cpu,event,ip,sym,dso,addr,symoff,period,\n"
    "                     phys_addr (printed in perf's order)\n"
    "      --ns           -F time in nanoseconds (perf script --ns), else microseconds\n"
    "      --no-demangle  C++ / Rust names as the file has them (perf --no-demangle)\n"
    "      --no-inline    no inlined functions in call chains (perf script's); by default\n"
    "                     frames found by DWARF unwinding show them, as perf 6.1's\n"
    "      --inline       every user-space frame shows them (frame-pointer chains too)\n"
    "  -h, --help         this text\n"
    "  FILTERS (below): only the samples they keep are printed, as perf script's\n"
    "%s"
    "\n"
    "Examples:\n"
    "  hwsample dump -i hwsample.data\n"
    "  hwsample dump --comms prog --dsos libc.so.6 --time 10%%/2\n"
    "  hwsample dump -F comm,pid,tid,time,ip,sym,symoff,dso   # as perf script -F\n"
    "  hwsample dump -i perf.data --json --raw | jq 'select(.lat_total > 100)'\n"
    "  perf record -o - -e cpu-clock -- ./prog | hwsample dump -i - --csv > samples.csv\n"
    "\n"
    "Exit codes: 0 ok, 1 unreadable or corrupt input (samples before the error are\n"
    "printed), 2 usage error (also -e naming no event of the file).\n";

#define BATCH  512 /* samples per batch */
#define NBATCH 16  /* batches in flight */

/*
 * Decoder -> formatter hand-off: batches are used in ring order; the decoder fills
 * b[prod % NBATCH] and publishes it (prod++), waiting while NBATCH are unconsumed; the
 * formatter takes b[cons % NBATCH] once prod > cons. prod, cons and done change under mu.
 */
struct dump_pipe {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct hws_sample *b[NBATCH];
	size_t n[NBATCH];
	uint64_t prod, cons;
	bool done;
};

struct dump_ctx {
	struct hws_output *out; /* used by one thread: the formatter thread when there is one */
	struct hws_strbuf sb;
	struct hws_decoder *dec;
	uint64_t limit, n;
	const char *event; /* --event: only this event */
	int werr;	   /* set by the thread that writes; read with __atomic_load */
	struct dump_pipe *pipe;
};

static int flush_out(struct dump_ctx *c)
{
	if (c->sb.len && fwrite(c->sb.buf, 1, c->sb.len, stdout) != c->sb.len)
		__atomic_store_n(&c->werr, errno ? -errno : -EIO, __ATOMIC_RELAXED);
	hws_strbuf__reset(&c->sb);
	return c->werr;
}

static int raw_cb(void *ctx, const struct hws_sample *s, struct hws_strbuf *sb)
{
	return hws_decoder__raw_json(ctx, s, sb);
}

/* one sample into c->sb, flushed when big: 0, 1 (the filter dropped it) or 2 (write error /
 * no memory) */
static int format_one(struct dump_ctx *c, const struct hws_sample *s)
{
	int err = hws_output__sample(c->out, s, &c->sb);

	if (err == HWS_OUTPUT_FILTERED)
		return 1;
	if (err == HWS_E_TOO_BIG) {
		if (flush_out(c))
			return 2;
		err = hws_output__sample(c->out, s, &c->sb);
	}
	if (err) {
		if (!c->werr)
			__atomic_store_n(&c->werr, -ENOMEM, __ATOMIC_RELAXED);
		return 2;
	}
	if (c->sb.len >= FLUSH_AT && flush_out(c))
		return 2;
	return 0;
}

static bool keep(struct dump_ctx *c, const struct hws_sample *s)
{
	return !c->event || (s->event && !strcmp(s->event, c->event));
}

static int dump_cb(void *ctx, const struct hws_sample *s)
{
	struct dump_ctx *c = ctx;

	if (c->limit && c->n >= c->limit)
		return 1;
	if (!keep(c, s))
		return 0;
	switch (format_one(c, s)) {
	case 0:
		c->n++;
		return 0;
	case 1:
		return 0;
	default:
		return 2;
	}
}

/* formatter thread: format and write whole batches until the decoder is done */
static void *pipe_main(void *arg)
{
	struct dump_ctx *c = arg;
	struct dump_pipe *p = c->pipe;
	bool failed = false;

	for (;;) {
		size_t k;

		pthread_mutex_lock(&p->mu);
		while (p->cons == p->prod && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->cons == p->prod) {
			pthread_mutex_unlock(&p->mu);
			break;
		}
		pthread_mutex_unlock(&p->mu);
		k = p->cons % NBATCH;
		/* after a write error keep draining, so the decoder never waits forever */
		for (size_t i = 0; i < p->n[k] && !failed; i++)
			failed = format_one(c, &p->b[k][i]) == 2;
		p->n[k] = 0;
		pthread_mutex_lock(&p->mu);
		p->cons++;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	if (!failed)
		flush_out(c);
	return NULL;
}

/* hand the decoder's current batch to the formatter; wait for a free one */
static void pipe_publish(struct dump_pipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->prod++;
	pthread_cond_broadcast(&p->cv);
	while (p->prod - p->cons >= NBATCH)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

static int dump_cb_pipe(void *ctx, const struct hws_sample *s)
{
	struct dump_ctx *c = ctx;
	struct dump_pipe *p = c->pipe;
	size_t k = p->prod % NBATCH;

	if (c->limit && c->n >= c->limit)
		return 1;
	if (!keep(c, s))
		return 0;
	p->b[k][p->n[k]++] = *s;
	c->n++;
	if (p->n[k] == BATCH)
		pipe_publish(p);
	return __atomic_load_n(&c->werr, __ATOMIC_RELAXED) ? 2 : 0;
}

/* start the formatter thread; false: stay single-threaded (no memory, one CPU, asked) */
static bool pipe_start(struct dump_ctx *c)
{
	const char *env = getenv("HWS_DUMP_THREADS");
	struct dump_pipe *p;

	/* opt-in, like the decoder's read-ahead: on the 2-vCPU development VM the gain was
	 * small and unsteady (see core/decode/order.c readahead_start()) */
	if (!env || strcmp(env, "1") || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return false;
	p = calloc(1, sizeof(*p));
	if (!p)
		return false;
	for (int i = 0; i < NBATCH; i++) {
		p->b[i] = malloc(BATCH * sizeof(*p->b[i]));
		if (!p->b[i])
			goto err_out;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	c->pipe = p;
	if (pthread_create(&p->th, NULL, pipe_main, c)) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		c->pipe = NULL;
		goto err_out;
	}
	return true;
err_out:
	for (int i = 0; i < NBATCH; i++)
		free(p->b[i]);
	free(p);
	return false;
}

/* publish the last partial batch, let the formatter finish, free everything */
static void pipe_stop(struct dump_ctx *c)
{
	struct dump_pipe *p = c->pipe;

	pthread_mutex_lock(&p->mu);
	if (p->n[p->prod % NBATCH])
		p->prod++;
	p->done = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	for (int i = 0; i < NBATCH; i++)
		free(p->b[i]);
	free(p);
	c->pipe = NULL;
}

static void loss_summary(struct hws_decoder *d)
{
	struct hws_decode_counts t;

	hws_decoder__counts(d, HWS_DECODE_ALL, HWS_DECODE_ALL, &t);
	if (t.lost || t.lost_samples || t.throttle || t.aux_truncated || t.aux_partial ||
	    t.aux_collision || t.errors)
		fprintf(stderr,
			"hwsample dump: loss: %" PRIu64 " records lost, %" PRIu64
			" samples dropped by the PMU, %" PRIu64 " throttles, AUX %" PRIu64
			" truncated / %" PRIu64 " partial / %" PRIu64 " collisions, %" PRIu64
			" undecodable records (hwsample report shows them per event and CPU)\n",
			t.lost, t.lost_samples, t.throttle, t.aux_truncated, t.aux_partial,
			t.aux_collision, t.errors);
	if (t.skipped)
		fprintf(stderr,
			"hwsample dump: %" PRIu64 " records skipped by the backend "
			"(no valid sample)\n",
			t.skipped);
}

int cmd_dump(struct hws_cli *cli, int argc, char **argv)
{
	static const struct option own[] = {
	    {"input", required_argument, NULL, 'i'},  {"json", no_argument, NULL, 'j'},
	    {"csv", no_argument, NULL, 'c'},	      {"raw", no_argument, NULL, 'r'},
	    {"limit", required_argument, NULL, 'l'},  {"sym", no_argument, NULL, 's'},
	    {"no-sym", no_argument, NULL, 'S'},	      {"kallsyms", required_argument, NULL, 'K'},
	    {"srcline", no_argument, NULL, 'L'},      {"event", required_argument, NULL, 'e'},
	    {"fields", required_argument, NULL, 'F'}, {"ns", no_argument, NULL, 'n'},
	    {"no-demangle", no_argument, NULL, 'D'},  {"max-stack", required_argument, NULL, 'M'},
	    {"help", no_argument, NULL, 'h'},	      {"inline", no_argument, NULL, 0x2100},
	    {"no-inline", no_argument, NULL, 0x2101}, {NULL, 0, NULL, 0},
	};
	struct option opts[64];
	HWS_OPTS(hws_filter_opts, fo);
	struct hws_filter *filter = NULL;
	struct hws_decoder_opts dopts = {.sz = sizeof(dopts)};
	struct hws_output_opts oo = {.sz = sizeof(oo)};
	struct dump_ctx c = {0};
	const char *path = "hwsample.data";
	struct hws_perf_reader *r = NULL;
	int sym = -1, o, err = 0, rc, ret = HWS_EXIT_OK;
	struct hws_cli_objects objs = {0};
	char ebuf[256];

	hws_cli__with_filter_options(own, opts, 64);
	optind = 1;
	while ((o = getopt_long(argc, argv, "i:e:F:hC:", opts, NULL)) != -1) {
		if (hws_cli__filter_opt(o, optarg, &fo))
			continue;
		switch (o) {
		case 'F': {
			char bad[64];
			int e = hws_output__script_fields(optarg, &oo.fields, bad, sizeof(bad));

			if (e) {
				fprintf(stderr, "hwsample dump: -F: %s%s%s; the fields are: %s\n",
					e == -EOPNOTSUPP ? "perf script's field '"
							 : "unknown field '",
					hws_cli__text(bad),
					e == -EOPNOTSUPP ? "' is not printed by hwsample" : "'",
					hws_output__script_field_names());
				return HWS_EXIT_USAGE;
			}
			oo.format = HWS_OUT_SCRIPT;
			break;
		}
		case 'n':
			oo.ns = true;
			break;
		case 0x2100:
			oo.inline_mode = HWS_INLINE_ALL;
			break;
		case 0x2101:
			oo.inline_mode = HWS_INLINE_NONE;
			break;
		case 'D':
			dopts.no_demangle = true;
			break;
		case 'i':
			path = optarg;
			break;
		case 'j':
			oo.format = HWS_OUT_JSON;
			break;
		case 'c':
			oo.format = HWS_OUT_CSV;
			break;
		case 'r':
			oo.raw = true;
			break;
		case 's':
			sym = 1;
			break;
		case 'K':
			if (hws_cli__check_input("dump", "--kallsyms", optarg))
				return HWS_EXIT_USAGE;
			dopts.kallsyms = optarg;
			break;
		case 'S':
			sym = 0;
			break;
		case 'L':
			dopts.srcline = true;
			break;
		case 'e':
			c.event = optarg;
			break;
		case 'l': {
			char *end;
			errno = 0;
			c.limit = strtoull(optarg, &end, 0);
			if (errno || *end || optarg[0] == '-') {
				fprintf(stderr, "hwsample dump: --limit wants a number, not '%s'\n",
					hws_cli__text(optarg));
				return HWS_EXIT_USAGE;
			}
			break;
		}
		case 'M': {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 0);
			if (errno || *end || end == optarg || optarg[0] == '-' || !v || v > 65535) {
				fprintf(
				    stderr,
				    "hwsample dump: --max-stack wants a number of frames from 1 to "
				    "65535, not '%s'\n",
				    hws_cli__text(optarg));
				return HWS_EXIT_USAGE;
			}
			dopts.max_stack = (uint32_t)v;
			break;
		}
		case 'h':
			printf(dump_usage, hws_cli_filter_usage);
			return HWS_EXIT_OK;
		default:
			fprintf(stderr, dump_usage, hws_cli_filter_usage);
			return HWS_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hwsample dump: unexpected argument '%s'\n",
			hws_cli__text(argv[optind]));
		fprintf(stderr, dump_usage, hws_cli_filter_usage);
		return HWS_EXIT_USAGE;
	}
	if (oo.format == HWS_OUT_SCRIPT &&
	    (oo.fields & (1ULL << HWS_OUTF_IP | 1ULL << HWS_OUTF_ADDR)) == 0 &&
	    (oo.fields & (1ULL << HWS_OUTF_SYM | 1ULL << HWS_OUTF_SYMOFF | 1ULL << HWS_OUTF_DSO))) {
		fprintf(stderr, "hwsample dump: -F: sym, symoff and dso name the ip or the addr: "
				"add ip or addr to the list (as perf script wants)\n");
		return HWS_EXIT_USAGE;
	}
	if (oo.format == HWS_OUT_SCRIPT && sym == 0 && (oo.fields & 1ULL << HWS_OUTF_COMM))
		sym = 1; /* comm comes from the side-band records */
	if (sym < 0)
		sym = oo.format == HWS_OUT_TEXT || oo.format == HWS_OUT_SCRIPT;
	dopts.no_sideband = !sym;
	hws_cli__decoder_env(&dopts);

	r = hws_cli__open_input("dump", path, &err);
	if (!r)
		return err;
	ret = hws_cli__filter_make("dump", r, &fo, &filter);
	if (ret) {
		hws_perf_reader__close(r);
		return ret;
	}
	if (filter && hws_filter__needs_symbols(filter))
		dopts.no_sideband = false; /* comm, dso and sym filters name the samples */
	/* data objects in JSON: they need the side-band (maps) to name sites and variables */
	if (oo.format == HWS_OUT_JSON)
		objs.objects = hws_cli__objects("hwsample dump", path, r);
	if (objs.objects)
		dopts.no_sideband = false;
	c.dec = hws_decoder__new(r, hws_cli__registry(cli), &dopts);
	if (!c.dec) {
		fprintf(stderr, "hwsample dump: out of memory\n");
		hws_filter__delete(filter);
		hws_objects__delete(objs.objects);
		hws_perf_reader__close(r);
		return HWS_EXIT_ERROR;
	}
	/* a file names its events up front; a pipe is checked once it has been read */
	if (!hws_perf_reader__is_pipe(r) && !hws_cli__event_known("dump", path, c.dec, c.event)) {
		hws_objects__delete(objs.objects);
		hws_decoder__delete(c.dec);
		hws_filter__delete(filter);
		hws_perf_reader__close(r);
		return HWS_EXIT_USAGE;
	}
	hws_strbuf__init(&c.sb, 16u << 20);
	oo.symbols = sym;
	oo.syms = sym || !dopts.no_sideband ? hws_decoder__symbols(c.dec) : NULL;
	oo.filter = filter;
	/* perf script aligns the event names of a file to the longest (known up front for
	 * files; a pipe's events come as it is read) */
	for (int i = 0; i < hws_decoder__nr_events(c.dec); i++) {
		const char *en = hws_decoder__event_name(c.dec, i);

		if (en && strlen(en) > oo.event_width)
			oo.event_width = (uint32_t)strlen(en);
	}
	oo.raw_json = raw_cb;
	oo.raw_ctx = c.dec;
	/* data types in JSON (--sym or allocation records: the side-band is read anyway) */
	if (oo.format == HWS_OUT_JSON && (sym > 0 || objs.objects) && hws_datatypes__available())
		objs.types = hws_datatypes__new(); /* NULL: none, as without capstone */
	if (objs.objects || objs.types) {
		objs.syms = hws_decoder__symbols(c.dec);
		oo.extra_json = hws_cli__object_json;
		oo.extra_ctx = &objs;
	}
	c.out = hws_output__new(&oo);
	if (!c.out) {
		fprintf(stderr, "hwsample dump: out of memory\n");
		hws_objects__delete(objs.objects);
		hws_datatypes__delete(objs.types);
		hws_decoder__delete(c.dec);
		hws_filter__delete(filter);
		hws_perf_reader__close(r);
		return HWS_EXIT_ERROR;
	}
	hws_output__header(c.out, &c.sb);

	/* the filter and the objects name samples at their time: in the decoder's thread */
	if (!oo.raw && !oo.symbols && !filter && !objs.objects && !objs.types && pipe_start(&c)) {
		rc = hws_decoder__run(c.dec, dump_cb_pipe, &c);
		pipe_stop(&c);
	} else {
		rc = hws_decoder__run(c.dec, dump_cb, &c);
	}
	if (!c.werr)
		flush_out(&c);
	fflush(stdout);
	if (rc < 0) {
		fprintf(stderr, "hwsample dump: %s: %s\n", hws_cli__text(path),
			hws_cli__text_lines(hws_decoder__errmsg(c.dec)));
		fprintf(stderr, "hwsample dump: %" PRIu64 " samples decoded before the error\n",
			c.n);
		ret = HWS_EXIT_ERROR;
	} else if (rc == 2 || c.werr) {
		if (c.werr != -EPIPE)
			fprintf(stderr, "hwsample dump: write error: %s\n",
				hws_strerror(c.werr ? c.werr : -ENOMEM, ebuf, sizeof(ebuf)));
		ret = HWS_EXIT_ERROR;
	}
	if (rc >= 0 && rc != 1)
		loss_summary(c.dec);
	else if (rc < 0)
		loss_summary(c.dec);
	if (rc == 0 && ret == HWS_EXIT_OK && hws_perf_reader__is_pipe(r) &&
	    !hws_cli__event_known("dump", path, c.dec, c.event))
		ret = HWS_EXIT_USAGE;
	if (rc >= 0 && hws_cli__unfinished("hwsample dump", path, r, c.dec))
		ret = HWS_EXIT_ERROR;
	hws_strbuf__release(&c.sb);
	hws_output__delete(c.out);
	hws_filter__delete(filter);
	hws_decoder__delete(c.dec);
	hws_objects__delete(objs.objects);
	hws_datatypes__delete(objs.types);
	hws_perf_reader__close(r);
	return ret;
}
