// SPDX-License-Identifier: MIT
/*
 * Filter options shared by dump, report and c2c report: perf's spellings (--pid, --tid,
 * --comms, --dsos, --symbols, -C/--cpu, --time) and the short ones (--comm, --dso, --sym),
 * parsed into a struct hws_filter_opts; the filter itself is the library's
 * (include/hwsample/filter.h).
 */
#include <stdio.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/perfdata.h>

#include "cli.h"

const struct option hws_cli_filter_options[] = {
    {"pid", required_argument, NULL, HWS_CLI_OPT_PID},
    {"tid", required_argument, NULL, HWS_CLI_OPT_TID},
    {"comms", required_argument, NULL, HWS_CLI_OPT_COMM},
    {"comm", required_argument, NULL, HWS_CLI_OPT_COMM},
    {"dsos", required_argument, NULL, HWS_CLI_OPT_DSO},
    {"dso", required_argument, NULL, HWS_CLI_OPT_DSO},
    {"symbols", required_argument, NULL, HWS_CLI_OPT_SYM},
    {"sym", required_argument, NULL, HWS_CLI_OPT_SYM},
    {"cpu", required_argument, NULL, 'C'},
    {"time", required_argument, NULL, HWS_CLI_OPT_TIME},
    {NULL, 0, NULL, 0},
};

const char hws_cli_filter_usage[] =
    "Filters (perf's; every one given must match):\n"
    "      --pid PID[,PID]    samples of these processes\n"
    "      --tid TID[,TID]    samples of these threads\n"
    "      --comms COMM[,..]  samples of processes with these names (also --comm)\n"
    "      --dsos DSO[,..]    samples whose ip is in these files (also --dso), as perf\n"
    "                         names them (base name, [kernel.kallsyms]) or full paths\n"
    "      --symbols SYM[,..] samples whose ip is in these functions (also --sym)\n"
    "  -C, --cpu LIST         samples of these CPUs (0-3,7)\n"
    "      --time START,STOP  samples in this time range, in seconds (either may be\n"
    "                         empty); several separated by spaces; or percentages of\n"
    "                         the recording: 10%/2 (second tenth), 0%-10%,30%-40%\n";

size_t hws_cli_filter_nr_options(void)
{
	return sizeof(hws_cli_filter_options) / sizeof(hws_cli_filter_options[0]) - 1;
}

bool hws_cli__filter_opt(int o, const char *arg, struct hws_filter_opts *fo)
{
	switch (o) {
	case HWS_CLI_OPT_PID:
		fo->pid = arg;
		return true;
	case HWS_CLI_OPT_TID:
		fo->tid = arg;
		return true;
	case HWS_CLI_OPT_COMM:
		fo->comm = arg;
		return true;
	case HWS_CLI_OPT_DSO:
		fo->dso = arg;
		return true;
	case HWS_CLI_OPT_SYM:
		fo->sym = arg;
		return true;
	case 'C':
		fo->cpu = arg;
		return true;
	case HWS_CLI_OPT_TIME:
		fo->time = arg;
		return true;
	default:
		return false;
	}
}

int hws_cli__filter_make(const char *cmd, struct hws_perf_reader *r, struct hws_filter_opts *fo,
			 struct hws_filter **out)
{
	const char *bad;
	int err;

	*out = NULL;
	if (!fo->pid && !fo->tid && !fo->comm && !fo->dso && !fo->sym && !fo->cpu && !fo->time &&
	    !fo->event)
		return HWS_EXIT_OK;
	if (fo->time && strchr(fo->time, '%')) {
		size_t sz = 0;
		const uint64_t *t = hws_perf_reader__feature(r, HWS_FEAT_SAMPLE_TIME, &sz);

		if (!t || sz < 16 || !t[0] || t[1] < t[0]) {
			fprintf(
			    stderr,
			    "hwsample %s: --time %s: percentages need the first and last sample "
			    "times (perf's HEADER_SAMPLE_TIME), which this file does not have; "
			    "give times in seconds (START,STOP) instead\n",
			    cmd, hws_cli__text(fo->time));
			return HWS_EXIT_USAGE;
		}
		fo->first_time = t[0];
		fo->last_time = t[1];
	}
	/* perf report -C on a file without CPU numbers: "File does not contain CPU events" */
	if (fo->cpu && hws_perf_reader__nr_attrs(r) > 0) {
		bool cpu = false;

		for (int i = 0; i < hws_perf_reader__nr_attrs(r); i++)
			cpu |=
			    (hws_perf_reader__attr(r, i)->attr.sample_type & PERF_SAMPLE_CPU) != 0;
		if (!cpu) {
			fprintf(stderr,
				"hwsample %s: -C/--cpu %s: the file's samples carry no CPU number "
				"(recorded without PERF_SAMPLE_CPU: record -a, -C or perf record "
				"--sample-cpu adds it); remove -C\n",
				cmd, hws_cli__text(fo->cpu));
			return HWS_EXIT_USAGE;
		}
	}
	bad = hws_filter__check(fo);
	if (bad) {
		const char *val = !strcmp(bad, "pid")	 ? fo->pid
				  : !strcmp(bad, "tid")	 ? fo->tid
				  : !strcmp(bad, "cpu")	 ? fo->cpu
				  : !strcmp(bad, "time") ? fo->time
				  : !strcmp(bad, "comm") ? fo->comm
				  : !strcmp(bad, "dso")	 ? fo->dso
				  : !strcmp(bad, "sym")	 ? fo->sym
							 : "";
		const char *opt = !strcmp(bad, "comm")	? "comms"
				  : !strcmp(bad, "dso") ? "dsos"
				  : !strcmp(bad, "sym") ? "symbols"
							: bad;
		const char *want = !strcmp(bad, "cpu") ? "CPU numbers and ranges (0-3,7)"
				   : !strcmp(bad, "time")
				       ? "START,STOP in seconds (12345.5,12346) or percentages "
					 "(10%/2, 0%-10%)"
				   : opt != bad ? "names separated by commas"
						: "numbers separated by commas";

		fprintf(stderr, "hwsample %s: --%s '%s': expected %s\n", cmd, opt,
			hws_cli__text(val ? val : ""), want);
		return HWS_EXIT_USAGE;
	}
	err = hws_filter__new(fo, out);
	if (err) {
		fprintf(stderr, "hwsample %s: filter: out of memory\n", cmd);
		return HWS_EXIT_ERROR;
	}
	return HWS_EXIT_OK;
}

size_t hws_cli__with_filter_options(const struct option *own, struct option *out, size_t max)
{
	size_t n = 0;

	for (; own[n].name && n + 1 < max; n++)
		out[n] = own[n];
	for (size_t i = 0; hws_cli_filter_options[i].name && n + 1 < max; i++)
		out[n++] = hws_cli_filter_options[i];
	memset(&out[n], 0, sizeof(out[n]));
	return n;
}
