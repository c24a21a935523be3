// SPDX-License-Identifier: MIT
/*
 * Config files: every error path of hws_config__load/validate names FILE:LINE and the valid
 * choices; good files keep each value with its origin; command-line overrides replace the
 * value and the origin. Backend sections are validated against the static backends on
 * the fake sysfs trees (tests/sysfs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwsample/config.h>
#include <hwsample/registry.h>

#include "tests.h"

static char dir[] = "/tmp/hws-test-config.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return path;
}

struct load_case {
	int line;
	const char *text;
	int ret;	  /* expected return */
	const char *want; /* substring of the error ("" = none) */
};

/* load-time errors: syntax, [run] keys, types, ranges */
static const struct load_case load_cases[] = {
    {__LINE__, "[run]\nbackend = auto\nfreq = 1000\n", 0, ""},
    {__LINE__, "# comment\n; comment\n[run]\nperiod = 0x1000 ; inline\n", 0, ""},
    {__LINE__, "[run]\nfreq = 1000\nfrequency = 10\n", HWS_E_BAD_CONFIG,
     "c.conf:3: unknown key 'frequency' in [run]; valid keys: backend, events, period, freq"},
    {__LINE__, "[run]\nfreq = fast\n", HWS_E_BAD_CONFIG,
     "c.conf:2: freq = 'fast': expected a whole number 1..4294967295"},
    {__LINE__, "[run]\nperiod = 0\n", HWS_E_BAD_CONFIG,
     "c.conf:2: period = 0: out of range, valid 1..9223372036854775807"},
    {__LINE__, "[run]\nperiod = -5\n", HWS_E_BAD_CONFIG, "period = '-5': expected a whole"},
    {__LINE__, "[run]\nmmap_pages = 2097152\n", HWS_E_BAD_CONFIG,
     "c.conf:2: mmap_pages = 2097152: out of range, valid 1..1048576"},
    {__LINE__, "[run]\noverwrite = maybe\n", HWS_E_BAD_CONFIG,
     "c.conf:2: overwrite = 'maybe': expected true or false"},
    {__LINE__, "[run]\noverwrite = Yes\nsnapshot = off\n", 0, ""},
    {__LINE__, "[run]\nmode = everything\n", HWS_E_BAD_CONFIG,
     "c.conf:2: mode = 'everything': valid values: default|per-thread|system-wide|cpus"},
    {__LINE__, "[run]\n\n\nmode = cpus\ncpus = 0-x\n", HWS_E_BAD_CONFIG,
     "c.conf:5: cpus = '0-x': not a CPU list"},
    {__LINE__, "[run]\nduration = 0\n", HWS_E_BAD_CONFIG,
     "c.conf:2: duration = '0': expected a number of seconds > 0"},
    {__LINE__, "[run]\nduration = 2.5s\n", HWS_E_BAD_CONFIG, "duration = '2.5s'"},
    {__LINE__, "[run]\nduration = 2.5\n", 0, ""},
    {__LINE__, "[run]\noutput =\n", HWS_E_BAD_CONFIG, "c.conf:2: output has no value"},
    {__LINE__, "freq = 10\n[run]\n", HWS_E_BAD_CONFIG, "c.conf:1: 'freq' is outside any section"},
    {__LINE__, "[run]\nfreq = 10\nfreq = 20\n", HWS_E_BAD_CONFIG,
     "c.conf:3: freq is set twice in [run] (first at "},
    {__LINE__, "[run]\n[ibs_op]\n[run]\n", HWS_E_BAD_CONFIG,
     "c.conf:3: section [run] appears twice (first at line 1)"},
    {__LINE__, "[run]\nfreq 1000\n", HWS_E_BAD_CONFIG, "c.conf:2: not INI syntax"},
    {__LINE__, "[run\nfreq = 1\n", HWS_E_BAD_CONFIG, "c.conf:1: not INI syntax"},
    {__LINE__, "[ibs_op]\nperiod = lots\n", HWS_E_BAD_CONFIG,
     "c.conf:2: period = 'lots': expected a whole number"},
    {__LINE__, "[sw]\nevents =\n", HWS_E_BAD_CONFIG, "c.conf:2: events has no value"},
    {__LINE__, "", HWS_E_BAD_CONFIG, "c.conf: the config file is empty: it needs a [run]"},
    {__LINE__, "# all\n; commented\n\n", HWS_E_BAD_CONFIG,
     "c.conf: the config file has no section (only comments or blank lines)"},
    {__LINE__, "[run]\n", 0, ""},
};

static void test_load_errors(void)
{
	for (size_t i = 0; i < sizeof(load_cases) / sizeof(load_cases[0]); i++) {
		const struct load_case *c = &load_cases[i];
		const char *path = write_file("c.conf", c->text);
		struct hws_config *cfg = hws_config__new();
		char err[1024] = "", what[1400];
		int ret = hws_config__load(cfg, path, err, sizeof(err));

		snprintf(what, sizeof(what), "case at line %d: return", c->line);
		T_EQ_U64(what, (uint64_t)(int64_t)ret, (uint64_t)(int64_t)c->ret);
		snprintf(what, sizeof(what), "case at line %d: message '%.1000s' has '%.300s'",
			 c->line, err, c->want);
		__T(what, strstr(err, c->want) != NULL);
		if (*c->want)
			__T("error names the file", strstr(err, dir) == err);
		hws_config__delete(cfg);
	}
}

static void test_missing_file(void)
{
	struct hws_config *cfg = hws_config__new();
	char err[512] = "";

	T_EQ_U64("missing file",
		 (uint64_t)(int64_t)hws_config__load(cfg, "/nonexistent/x.conf", err, sizeof(err)),
		 (uint64_t)(int64_t)-ENOENT);
	__T("missing file: message", strstr(err, "cannot read config file /nonexistent/x.conf"));
	hws_config__delete(cfg);
}

static void test_origins_and_overrides(void)
{
	const char *path = write_file("o.conf", "# c\n[run]\nfreq = 1000\nbackend = auto\n\n"
						"[ibs_op]\nl3missonly = 1\n[ibs_fetch]\n");
	struct hws_config *cfg = hws_config__new();
	const struct hws_config_item *it;
	char err[512] = "", want[600];
	bool b;

	T_EQ_U64("load", (uint64_t)hws_config__load(cfg, path, err, sizeof(err)), 0);
	it = hws_config__get(cfg, "run", "freq");
	snprintf(want, sizeof(want), "%s:3", path);
	__T("freq from line 3", it && !strcmp(it->value, "1000") && !strcmp(it->origin, want));
	it = hws_config__get(cfg, "ibs_op", "l3missonly");
	snprintf(want, sizeof(want), "%s:7", path);
	__T("control origin", it && !strcmp(it->origin, want) && it->line == 7);
	__T("empty section kept with its header line",
	    hws_config__section(cfg, "ibs_fetch") &&
		hws_config__section(cfg, "ibs_fetch")->line == 8);
	__T("section header line", hws_config__section(cfg, "ibs_op")->line == 6);

	/* the command line replaces a value and its origin, and may remove one */
	T_EQ_U64("set", (uint64_t)hws_config__set(cfg, "run", "freq", "4000", "command line"), 0);
	it = hws_config__get(cfg, "run", "freq");
	__T("override value", it && !strcmp(it->value, "4000"));
	__T("override origin", it && !strcmp(it->origin, "command line") && it->line == 0);
	T_EQ_U64("set new",
		 (uint64_t)hws_config__set(cfg, "run", "output", "x.data", "command line"), 0);
	__T("new key", hws_config__get(cfg, "run", "output") != NULL);
	hws_config__unset(cfg, "run", "freq");
	__T("unset", !hws_config__get(cfg, "run", "freq"));
	__T("unset keeps the rest",
	    hws_config__get(cfg, "run", "backend") && hws_config__get(cfg, "run", "output"));
	hws_config__unset(cfg, "nosuch", "freq"); /* no-op */

	/* typed readers */
	struct hws_config_item yes = {.key = "x", .value = "on", .origin = "here"};
	__T("bool on", !hws_config__bool(&yes, &b, err, sizeof(err)) && b);
	hws_config__delete(cfg);
	hws_config__delete(NULL);
}

struct val_case {
	int line;
	const char *tree;
	const char *text;
	int ret;
	const char *want;
};

static const struct val_case val_cases[] = {
    {__LINE__, "amd-zen4", "[run]\n[ibs_op]\nl3missonly = 1\n[ibs_fetch]\nrand_en = 1\n", 0, ""},
    {__LINE__, "amd-zen4", "[run]\n[ibs_op]\nl3missonly = 2\n", HWS_E_CONTROL_RANGE,
     "v.conf:3: l3missonly = 2: out of range, valid 0..1"},
    {__LINE__, "amd-zen4", "[ibs_op]\nl3misonly = 1\n", HWS_E_UNKNOWN_CONTROL,
     "v.conf:2: amd_ibs (PMU ibs_op) has no control 'l3misonly'; valid: cnt_ctl, l3missonly"},
    {__LINE__, "amd-zen4", "[ibs_op]\nl3missonly = yes\n", HWS_E_CONTROL_RANGE,
     "v.conf:2: l3missonly = 'yes': expected a whole number 0..1"},
    /* Zen 3 has no l3missonly: an error, unless the key is optional */
    {__LINE__, "amd-zen3", "[ibs_op]\nl3missonly = 1\n", HWS_E_UNKNOWN_CONTROL,
     "has no control 'l3missonly'; valid: cnt_ctl"},
    {__LINE__, "amd-zen3", "[ibs_op]\nl3missonly? = 1\n", 0, ""},
    {__LINE__, "amd-zen4", "[ibs_op]\nl3missonly? = 3\n", HWS_E_CONTROL_RANGE,
     "out of range, valid 0..1"},
    {__LINE__, "amd-zen4", "[run]\n\n[ibs_opp]\n", HWS_E_BAD_CONFIG,
     "v.conf:3: unknown section [ibs_opp]; valid sections: run, amd_ibs, ibs_op, ibs_fetch"},
    {__LINE__, "amd-zen4", "[amd_ibs]\npmu = ibs_fetch\nrand_en = 1\n", 0, ""},
    {__LINE__, "amd-zen4", "[amd_ibs]\npmu = arm_spe_0\n", HWS_E_BAD_CONFIG,
     "v.conf:2: pmu = arm_spe_0 is not a PMU of amd_ibs; valid: ibs_op, ibs_fetch"},
    {__LINE__, "amd-zen4", "[ibs_op]\npmu = ibs_fetch\n", HWS_E_BAD_CONFIG,
     "pmu = ibs_fetch contradicts the section name [ibs_op]"},
    /* a section for hardware this machine lacks: its controls are not known here */
    {__LINE__, "amd-zen4", "[arm_spe]\nload_filter = 1\nno_such = 1\n", 0, ""},
    {__LINE__, "arm-n1-6.1", "[arm_spe]\nload_filter = 1\nmin_latency = 4096\n",
     HWS_E_CONTROL_RANGE, "v.conf:3: min_latency = 4096: out of range, valid 0..4095"},
    {__LINE__, "arm-n1-6.1", "[arm_spe]\nload_filtre = 1\n", HWS_E_UNKNOWN_CONTROL,
     "arm_spe (PMU default) has no control 'load_filtre'; valid: branch_filter"},
    {__LINE__, "arm-n1-6.1", "[sw]\nfoo = 1\n", HWS_E_UNKNOWN_CONTROL,
     "v.conf:2: sw (PMU default) has no control 'foo'; valid: none"},
    {__LINE__, "arm-n1-6.1", "[sw]\nevents = cpu-clock\nfreq = 100\n", 0, ""},
};

/* the source tree: $HWS_SOURCE_DIR under ctest, else from this file's path */
static const char *source_dir(void)
{
	static char buf[1024];
	const char *sd = getenv("HWS_SOURCE_DIR");
	const char *cut;

	if (sd && *sd)
		return sd;
	snprintf(buf, sizeof(buf), "%s", __FILE__);
	cut = strstr(buf, "/tests/unit/");
	if (cut)
		buf[cut - buf] = 0;
	return buf;
}

static void test_validate(void)
{
	char src[1024];
	const char *sd = source_dir();

	for (size_t i = 0; i < sizeof(val_cases) / sizeof(val_cases[0]); i++) {
		const struct val_case *c = &val_cases[i];
		struct hws_registry *reg;
		struct hws_config *cfg = hws_config__new();
		char err[1024] = "", what[1200];
		const char *path = write_file("v.conf", c->text);
		int ret;

		snprintf(src, sizeof(src), "%.900s/tests/sysfs/%.64s", sd, c->tree);
		tests_machine(src, NULL); /* and the tree's cpuinfo */
		reg = hws_registry__new();
		hws_registry__add_static(reg, err, sizeof(err));
		ret = hws_config__load(cfg, path, err, sizeof(err));
		snprintf(what, sizeof(what), "case at line %d loads: %s", c->line, err);
		__T(what, ret == 0);
		ret = hws_config__validate(cfg, reg, err, sizeof(err));
		snprintf(what, sizeof(what), "case at line %d: return %d", c->line, ret);
		__T(what, ret == c->ret);
		snprintf(what, sizeof(what), "case at line %d: message '%.1000s' has '%.300s'",
			 c->line, err, c->want);
		__T(what, !*c->want || strstr(err, c->want));
		hws_config__delete(cfg);
		hws_registry__delete(reg);
	}
	tests_machine(NULL, NULL);
}

/* the documented [run] keys are the ones the parser accepts */
static void test_key_table(void)
{
	int n = 0;

	for (const struct hws_config_key *k = hws_config_run_keys; k->name; k++, n++) {
		char text[256], err[512] = "", what[600];
		struct hws_config *cfg = hws_config__new();
		const char *v = k->type == HWS_CFG_BOOL	     ? "true"
				: k->type == HWS_CFG_ENUM    ? "default"
				: k->type == HWS_CFG_CPUS    ? "0"
				: k->type == HWS_CFG_UINT    ? "1"
				: k->type == HWS_CFG_SECONDS ? "1.5"
							     : "x";
		snprintf(text, sizeof(text), "[run]\n%s = %s\n", k->name, v);
		int ret = hws_config__load(cfg, write_file("k.conf", text), err, sizeof(err));
		snprintf(what, sizeof(what), "run key %.64s accepted: %.1000s", k->name, err);
		__T(what, ret == 0);
		__T("has help", k->help && *k->help && k->cli);
		hws_config__delete(cfg);
	}
	__T("run keys", n == 16);
	__T("backend keys",
	    hws_config__is_backend_key("events") && !hws_config__is_backend_key("ldlat"));
}

/* not a regular file: refused before reading (a FIFO without a writer must not block) */
static void test_not_regular(void)
{
	static const struct {
		const char *path, *want;
	} cases[] = {
	    {"/dev/null", "/dev/null: a character device, not a config file"},
	    {NULL, ": a directory, not a config file"}, /* dir */
	    {"fifo", ": a FIFO, not a config file"},
	};
	char fifo[512];

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	__T("mkfifo", !mkfifo(fifo, 0600));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = !cases[i].path ? dir : i == 2 ? fifo : cases[i].path;
		struct hws_config *cfg = hws_config__new();
		char err[512] = "", what[700];

		snprintf(what, sizeof(what), "%s: HWS_E_BAD_CONFIG", path);
		T_EQ_U64(what, (uint64_t)(int64_t)hws_config__load(cfg, path, err, sizeof(err)),
			 (uint64_t)(int64_t)HWS_E_BAD_CONFIG);
		snprintf(what, sizeof(what), "%s: message '%s' has '%s' after the path", path, err,
			 cases[i].want);
		__T(what, strstr(err, path) == err && strstr(err, cases[i].want));
		hws_config__delete(cfg);
	}
	unlink(fifo);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_load_errors();
	test_missing_file();
	test_not_regular();
	test_origins_and_overrides();
	test_validate();
	test_key_table();
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	printf("%d checks, %d failed\n", tests_run, tests_failed);
	return tests_failed ? 1 : 0;
}
