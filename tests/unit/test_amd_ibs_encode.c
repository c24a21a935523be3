// SPDX-License-Identifier: MIT
/*
 * amd_ibs encode(), detect() and controls() against the fake sysfs trees
 * tests/sysfs/amd-{zen2,zen3,zen4,zen5,vm,ibs-off}: exact attr fields for many control
 * combinations and every user-facing error (unknown control, too wide, missing on this
 * CPU/kernel, IBS absent, per-process before 6.2, bad periods).
 * Trees: zen2 = 5.15-style (cnt_ctl, rand_en), zen3 = 6.1 on Milan (same formats),
 * zen4 = 6.1+ on Genoa (l3missonly, caps/zen4_ibs_extensions), zen5 = 6.15+ on Turin
 * (swfilt config2:0, ldlat config1:0-11, caps ldlat, dtlb_pgsize).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/backend.h>
#include <hwsample/registry.h>

#include "tests.h"

const struct hws_backend_ops *hws_backend_entry_amd_ibs(const struct hws_host *host);

static const struct hws_backend_ops *ops;
static void *priv;
static char src_dir[2048];

static void use_tree(const char *tree)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/sysfs/%s", src_dir, tree);
	tests_machine(path, NULL); /* amd_ibs reads the tree's cpuinfo */
}

#define ST_BASE                                                                                    \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_IDENTIFIER)
#define ST_MEM	(ST_BASE | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT)
#define K(a, b) HWS_KERNEL_VERSION(a, b, 0)
#define SW	HWS_REQ_SYSTEM_WIDE

struct enc_case {
	int line;
	const char *tree;
	const char *pmu;
	const char *ctl; /* "k=v k2=v2" */
	uint32_t kv;
	uint32_t flags;
	uint64_t period, freq;
	int ret; /* 1 = one event, else the error */
	uint32_t type;
	uint64_t config, config1, config2, sample_type;
	uint32_t evflags;
	const char *name;
	const char *msg; /* substrings ("|"-separated) the error must contain */
};

static const struct enc_case cases[] = {
    /* ---- attrs ---- */
    {__LINE__, "amd-zen4", "ibs_op", "l3missonly=1", K(6, 8), 0, 0, 0, 1, 9, 1ULL << 16, 0, 0,
     ST_MEM, HWS_EVF_PERIOD_SKEW, "ibs_op/l3missonly=1/", NULL},
    {__LINE__, "amd-zen4", "ibs_op", "l3missonly=1 cnt_ctl=1", K(6, 8), 0, 0x10000, 0, 1, 9,
     (1ULL << 16) | (1ULL << 19), 0, 0, ST_MEM, HWS_EVF_PERIOD_SKEW,
     "ibs_op/l3missonly=1,cnt_ctl=1/", NULL},
    {__LINE__, "amd-zen4", "ibs_fetch", "l3missonly=1 rand_en=1", K(6, 8), 0, 0, 0, 1, 8,
     (1ULL << 59) | (1ULL << 57), 0, 0, ST_BASE, HWS_EVF_PERIOD_SKEW, NULL, NULL},
    {__LINE__, "amd-zen4", "ibs_op", "", K(6, 1), SW, 0, 0, 1, 9, 0, 0, 0, ST_MEM, HWS_EVF_CPU_ONLY,
     "ibs_op//", NULL},
    {__LINE__, "amd-zen4", "ibs_op", "", K(6, 1), SW | HWS_REQ_PHYS_ADDR, 0, 0, 1, 9, 0, 0, 0,
     ST_MEM | PERF_SAMPLE_PHYS_ADDR, HWS_EVF_CPU_ONLY, NULL, NULL},
    {__LINE__, "amd-zen3", "ibs_op", "cnt_ctl=1", K(6, 2), 0, 100000 & ~0xfULL, 0, 1, 9, 1ULL << 19,
     0, 0, ST_MEM, 0, "ibs_op/cnt_ctl=1/", NULL},
    {__LINE__, "amd-zen3", "ibs_fetch", "rand_en=1", K(6, 2), 0, 0, 0, 1, 8, 1ULL << 57, 0, 0,
     ST_BASE, 0, NULL, NULL},
    {__LINE__, "amd-zen2", "ibs_op", "cnt_ctl=0x1", K(5, 15), SW, 0, 0, 1, 9, 1ULL << 19, 0, 0,
     ST_BASE, HWS_EVF_CPU_ONLY, NULL, NULL},
    {__LINE__, "amd-zen5", "ibs_op", "ldlat=256 swfilt=1", K(6, 15), 0, 0, 0, 1, 9, 0, 256, 1,
     ST_MEM, HWS_EVF_PERIOD_SKEW, "ibs_op/ldlat=256,swfilt=1/", NULL},
    {__LINE__, "amd-zen5", "ibs_op", "ldlat=2048 l3missonly=1 cnt_ctl=1", K(6, 15), 0, 0, 0, 1, 9,
     (1ULL << 16) | (1ULL << 19), 2048, 0, ST_MEM, HWS_EVF_PERIOD_SKEW, NULL, NULL},
    {__LINE__, "amd-zen5", "ibs_fetch", "swfilt=1 l3missonly=1", K(6, 15), 0, 0, 0, 1, 8,
     1ULL << 59, 0, 1, ST_BASE, HWS_EVF_PERIOD_SKEW, NULL, NULL},
    {__LINE__, "amd-zen5", "ibs_op", "ldlat=128", K(6, 15), 0, 0, 0, 1, 9, 0, 128, 0, ST_MEM,
     HWS_EVF_PERIOD_SKEW, NULL, NULL},
    {__LINE__, "amd-zen4", NULL, "", 0, 0, 0, 0, 1, 9, 0, 0, 0, ST_MEM, 0, "ibs_op//", NULL},
    {__LINE__, "amd-zen4", "amd_ibs", "", 0, 0, 0, 0, 1, 9, 0, 0, 0, ST_MEM, 0, NULL, NULL},
    /* ---- unknown control: list the valid ones for this PMU and kernel ---- */
    {__LINE__, "amd-zen3", "ibs_op", "bogus=1", K(6, 2), 0, 0, 0, HWS_E_UNKNOWN_CONTROL,
     .msg = "unknown control 'bogus'|valid controls for ibs_op on this machine: cnt_ctl"},
    {__LINE__, "amd-zen5", "ibs_op", "bogus=1", K(6, 15), 0, 0, 0, HWS_E_UNKNOWN_CONTROL,
     .msg = "cnt_ctl|l3missonly|ldlat|swfilt"},
    {__LINE__, "amd-zen4", "ibs_op", "rand_en=1", K(6, 8), 0, 0, 0, HWS_E_UNKNOWN_CONTROL,
     .msg = "it is a ibs_fetch control|cnt_ctl"},
    {__LINE__, "amd-zen4", "ibs_fetch", "cnt_ctl=1", K(6, 8), 0, 0, 0, HWS_E_UNKNOWN_CONTROL,
     .msg = "ibs_op control|rand_en"},
    /* ---- too wide ---- */
    {__LINE__, "amd-zen4", "ibs_op", "l3missonly=2", K(6, 8), 0, 0, 0, HWS_E_CONTROL_RANGE,
     .msg = "l3missonly=2|1-bit|0..1"},
    {__LINE__, "amd-zen5", "ibs_op", "ldlat=4096", K(6, 15), 0, 0, 0, HWS_E_CONTROL_RANGE,
     .msg = "ldlat=4096|128..2048"},
    {__LINE__, "amd-zen5", "ibs_op", "ldlat=64", K(6, 15), 0, 0, 0, HWS_E_CONTROL_RANGE,
     .msg = "128..2048"},
    {__LINE__, "amd-zen4", "ibs_op", "cnt_ctl=abc", K(6, 8), 0, 0, 0, HWS_E_BAD_ARG,
     .msg = "cnt_ctl=abc|number"},
    /* ---- control this CPU or kernel lacks ---- */
    {__LINE__, "amd-zen3", "ibs_op", "l3missonly=1", K(6, 2), 0, 0, 0, HWS_E_UNSUPPORTED,
     .msg = "l3missonly|not available|family 19h model 1h, Zen 3|Zen 4|Linux 5.19|kernel 6.2.0|"
	    "valid controls here: cnt_ctl"},
    {__LINE__, "amd-zen2", "ibs_fetch", "l3missonly=1", K(5, 15), SW, 0, 0, HWS_E_UNSUPPORTED,
     .msg = "family 17h model 31h, Zen 2|Zen 4"},
    {__LINE__, "amd-zen4", "ibs_op", "ldlat=256", K(6, 8), 0, 0, 0, HWS_E_UNSUPPORTED,
     .msg = "ldlat|Zen 5|Linux 6.15|Zen 4"},
    {__LINE__, "amd-zen4", "ibs_op", "swfilt=1", K(6, 8), 0, 0, 0, HWS_E_UNSUPPORTED,
     .msg = "swfilt|Linux 6.14"},
    {__LINE__, "amd-zen5", "ibs_fetch", "fetchlat=256", K(6, 15), 0, 0, 0, HWS_E_UNSUPPORTED,
     .msg = "fetchlat|FETCHLAT|valid controls here: l3missonly, rand_en, swfilt"},
    /* ---- per-process before 6.2 ---- */
    {__LINE__, "amd-zen4", "ibs_op", "", K(6, 1), 0, 0, 0, HWS_E_UNSUPPORTED,
     .msg = "per-process IBS sampling needs Linux 6.2|6.1.0|hws_session_opts.system_wide/cpu_list"},
    {__LINE__, "amd-zen2", "ibs_fetch", "", K(5, 15), HWS_REQ_PER_THREAD, 0, 0, HWS_E_UNSUPPORTED,
     .msg = "5.15.0|record all CPUs"},
    /* ---- periods ---- */
    {__LINE__, "amd-zen4", "ibs_op", "", K(6, 8), 0, 100001, 0, HWS_E_BAD_ARG,
     .msg = "100001|cycles|multiple of 16|(hws_event_request.period) of 100000 or 100016"},
    {__LINE__, "amd-zen4", "ibs_op", "cnt_ctl=1", K(6, 8), 0, 1000, 0, HWS_E_BAD_ARG,
     .msg = "dispatched ops|of 992 or 1008"},
    {__LINE__, "amd-zen4", "ibs_fetch", "", K(6, 8), 0, 0x100000, 0, HWS_E_BAD_ARG,
     .msg = "fetches|16 to 1048560"},
    {__LINE__, "amd-zen4", "ibs_op", "", K(6, 8), 0, 8, 0, HWS_E_BAD_ARG, .msg = "16 to 134217712"},
    {__LINE__, "amd-zen4", "ibs_op", "", K(6, 8), 0, 0x7FFFFF0, 0, 1, 9, 0, 0, 0, ST_MEM, 0, NULL,
     NULL},
    {__LINE__, "amd-zen4", "ibs_op", "", K(6, 8), 0, 1000, 1000, HWS_E_BAD_ARG,
     .msg = "either a period"},
    /* ---- events ---- */
    {__LINE__, "amd-zen4", "ibs_op", "", K(6, 8), 0, 0, 0, HWS_E_NO_PMU, .msg = ""},
};

static int split_controls(const char *s, char *buf, size_t len, struct hws_control *c, int max)
{
	int n = 0;
	char *save, *tok;

	snprintf(buf, len, "%s", s ? s : "");
	for (tok = strtok_r(buf, " ", &save); tok && n < max; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		c[n].key = tok;
		c[n].value = "1";
		if (eq) {
			*eq = 0;
			c[n].value = eq + 1;
		}
		n++;
	}
	return n;
}

static void run_case(const struct enc_case *tc, int idx)
{
	struct hws_control ctl[8];
	char buf[256], err[1024] = "", what[64];
	struct hws_event_desc d[2];
	struct hws_event_request req = {.sz = sizeof(req)};
	int ret;

	use_tree(tc->tree);
	req.pmu = tc->pmu;
	req.controls = ctl;
	req.nr_controls = (uint32_t)split_controls(tc->ctl, buf, sizeof(buf), ctl, 8);
	req.kernel_version = tc->kv;
	req.flags = tc->flags;
	req.period = tc->period;
	req.freq = tc->freq;
	if (idx == (int)(sizeof(cases) / sizeof(cases[0])) - 1)
		req.pmu = "ibs_opx"; /* last case: not an IBS PMU */
	ret = ops->encode(priv, &req, d, 2, err, sizeof(err));
	snprintf(what, sizeof(what), "line %d ret (%s)", tc->line, err);
	T_EQ_U64(what, (uint64_t)(int64_t)ret, (uint64_t)(int64_t)tc->ret);
	if (ret != tc->ret)
		return;
	if (ret == 1) {
		snprintf(what, sizeof(what), "line %d type", tc->line);
		T_EQ_U64(what, d[0].attr.type, tc->type);
		snprintf(what, sizeof(what), "line %d config", tc->line);
		T_EQ_U64(what, d[0].attr.config, tc->config);
		snprintf(what, sizeof(what), "line %d config1", tc->line);
		T_EQ_U64(what, d[0].attr.config1, tc->config1);
		snprintf(what, sizeof(what), "line %d config2", tc->line);
		T_EQ_U64(what, d[0].attr.config2, tc->config2);
		snprintf(what, sizeof(what), "line %d sample_type", tc->line);
		T_EQ_U64(what, d[0].attr.sample_type, tc->sample_type);
		snprintf(what, sizeof(what), "line %d flags", tc->line);
		T_EQ_U64(what, d[0].flags, tc->evflags);
		snprintf(what, sizeof(what), "line %d size", tc->line);
		T_EQ_U64(what, d[0].attr.size, sizeof(struct hws_perf_event_attr));
		snprintf(what, sizeof(what), "line %d period/freq", tc->line);
		if (tc->period) {
			T_EQ_U64(what, d[0].attr.sample_period, tc->period);
			T_EQ_U64(what, d[0].attr.freq, 0);
		} else {
			T_EQ_U64(what, d[0].attr.freq, 1);
			T_EQ_U64(what, d[0].attr.sample_freq, tc->freq ? tc->freq : 4000);
		}
		snprintf(what, sizeof(what), "line %d precise/exclude", tc->line);
		T_EQ_U64(what, d[0].attr.precise_ip | d[0].attr.exclude_kernel, 0);
		if (tc->name) {
			snprintf(what, sizeof(what), "line %d name", tc->line);
			T_EQ_STR(what, d[0].name, tc->name);
		}
		T_EQ_STR("pmu", d[0].pmu,
			 tc->pmu && strcmp(tc->pmu, "amd_ibs") ? tc->pmu : "ibs_op");
		return;
	}
	if (tc->msg) {
		char m[512], *save, *tok;

		snprintf(m, sizeof(m), "%s", tc->msg);
		for (tok = strtok_r(m, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
			snprintf(what, sizeof(what), "line %d message has '%.30s'", tc->line, tok);
			__T(what, strstr(err, tok) != NULL);
			if (!strstr(err, tok))
				fprintf(stderr, "  message: %s\n", err);
		}
	}
}

static void test_absent(void)
{
	struct hws_event_request req = {.sz = sizeof(req), .pmu = "ibs_op", .flags = SW};
	struct hws_event_desc d;
	char err[1024], why[1024], path[4096], path2[4096];
	int ret;

	use_tree("amd-vm");
	ret = ops->encode(priv, &req, &d, 1, err, sizeof(err));
	T_EQ_U64("vm: no pmu", (uint64_t)(int64_t)ret, (uint64_t)(int64_t)HWS_E_NO_PMU);
	__T("vm: says virtualised", strstr(err, "virtualised") && strstr(err, "bare metal"));
	T_EQ_U64("vm: detect", (uint64_t)ops->detect(priv, why, sizeof(why)), 0);
	__T("vm: detect why", strstr(why, "virtualised") != NULL);

	use_tree("amd-ibs-off");
	T_EQ_U64("fw: detect", (uint64_t)ops->detect(priv, why, sizeof(why)), 0);
	__T("fw: says firmware", strstr(why, "disabled in firmware") && strstr(why, "BIOS"));

	snprintf(path, sizeof(path), "%s/tests/sysfs/amd-vm", src_dir);
	snprintf(path2, sizeof(path2), "%s/tests/sysfs/amd-vm/cpuinfo-intel", src_dir);
	tests_machine(path, path2);
	ret = ops->encode(priv, &req, &d, 1, err, sizeof(err));
	T_EQ_U64("intel: no pmu", (uint64_t)(int64_t)ret, (uint64_t)(int64_t)HWS_E_NO_PMU);
	__T("intel: says AMD-only", strstr(err, "AMD feature") && strstr(err, "GenuineIntel"));

	use_tree("amd-zen4");
	ret = ops->detect(priv, why, sizeof(why));
	__T("zen4: detect usable", ret > 0);
	T_EQ_STR("zen4: detect why", why, "ibs_op (type 9) and ibs_fetch (type 8)");
}

static char logged[1024];

static void capture(enum hws_log_level level, const char *msg)
{
	if (level <= HWS_LOG_WARN)
		snprintf(logged, sizeof(logged), "%s", msg);
}

/* c2c on a Zen 3 part: CacheHitSt is unreliable, say that c2c will see no HITM */
static void test_c2c_zen3(void)
{
	struct hws_event_request req = {.sz = sizeof(req),
					.pmu = "ibs_op",
					.flags = SW | HWS_REQ_C2C,
					.kernel_version = K(6, 8)};
	struct hws_event_desc d;
	char err[256];
	hws_print_fn old = hws_set_print(capture);

	use_tree("amd-zen3");
	logged[0] = 0;
	T_EQ_U64("c2c zen3 ok", (uint64_t)ops->encode(priv, &req, &d, 1, err, sizeof(err)), 1);
	__T("c2c zen3 warns about HITM", strstr(logged, "no HITM") != NULL);
	__T("c2c wants phys addr", d.attr.sample_type & PERF_SAMPLE_PHYS_ADDR);
	use_tree("amd-zen4");
	logged[0] = 0;
	ops->encode(priv, &req, &d, 1, err, sizeof(err));
	__T("c2c zen4 does not warn", logged[0] == 0);
	hws_set_print(old);
}

static void test_controls(void)
{
	struct hws_control_info ci[16];
	int n;

	use_tree("amd-zen5");
	n = ops->controls(priv, "ibs_op", ci, 16);
	T_EQ_U64("zen5 op controls", n, 4);
	for (int i = 0; i < n && i < 16; i++) {
		if (!strcmp(ci[i].name, "ldlat")) {
			T_EQ_U64("ldlat min", ci[i].min, 128);
			T_EQ_U64("ldlat max", ci[i].max, 2048);
			__T("ldlat help has its sysfs spec",
			    strstr(ci[i].help, "(config1:0-11)") != NULL);
		} else if (!strcmp(ci[i].name, "l3missonly")) {
			T_EQ_U64("l3missonly max", ci[i].max, 1);
			__T("l3missonly help",
			    strstr(ci[i].help, "L3") && strstr(ci[i].help, "(config:16)"));
		}
	}
	n = ops->controls(priv, "ibs_fetch", ci, 16);
	T_EQ_U64("zen5 fetch controls", n, 3);
	use_tree("amd-zen2");
	T_EQ_U64("zen2 op controls", ops->controls(priv, NULL, ci, 16), 1);
	T_EQ_STR("zen2 op control", ci[0].name, "cnt_ctl");
	use_tree("amd-vm");
	T_EQ_U64("vm controls", ops->controls(priv, "ibs_op", ci, 16), 0);
}

int main(void)
{
	const char *s = getenv("HWS_SOURCE_DIR");

	if (s)
		snprintf(src_dir, sizeof(src_dir), "%s", s);
	else /* __FILE__ is <src>/tests/unit/test_amd_ibs_encode.c */
		snprintf(src_dir, sizeof(src_dir), "%.*s",
			 (int)(strstr(__FILE__, "/tests/unit/") - __FILE__), __FILE__);
	ops = hws_backend_entry_amd_ibs(hws_host__get());
	priv = calloc(1, ops->priv_size);
	if (!priv || ops->init(priv, hws_host__get()))
		return 1;
	T_EQ_STR("name", ops->name, "amd_ibs");
	__T("caps", ops->caps == (HWS_CAP_RAW | HWS_CAP_PRECISE_IP | HWS_CAP_DATA_ADDR |
				  HWS_CAP_PHYS_ADDR | HWS_CAP_LATENCY | HWS_CAP_DATA_SRC));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i], (int)i);
	test_absent();
	test_controls();
	test_c2c_zen3();
	free(priv);
	TEST_END();
}
