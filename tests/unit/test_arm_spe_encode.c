// SPDX-License-Identifier: MIT
/*
 * Arm SPE encoding against fake sysfs trees (tests/sysfs/arm-*): the exact attr for
 * control combinations on three kernel generations, perf's defaults, the minimum interval,
 * and one test per error (unknown control with the valid list, too wide, -F, absent PMU,
 * control of a newer kernel, config4, bad number, unknown preset, missing arm_spe_N).
 */
#include <hwsample/backend.h>
#include <hwsample/registry.h>

#include "tests.h"

const struct hws_backend_ops *hws_backend_entry_arm_spe(const struct hws_host *host);

static const struct hws_backend_ops *ops;
static void *priv;

struct ecase {
	int line;
	const char *tree;
	const char *pmu;
	const char *event;
	const char *ctl; /* "k=v k=v" */
	uint32_t flags;
	uint64_t period, freq;
	int ret; /* 1 or expected error */
	uint32_t type;
	uint64_t config, config1, config2, config3, sample_period, sample_type;
	const char *name;   /* expected desc name (or NULL) */
	const char *errsub; /* expected substring of the message */
};

#define ST_BASE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_DATA_SRC)
#define ST_CPU	(ST_BASE | PERF_SAMPLE_CPU)

static const struct ecase cases[] = {
    /* defaults: ts_enable in per-CPU mode, period = caps/min_interval */
    {__LINE__, "arm-n1-6.1", NULL, NULL, "", 0, 0, 0, 1, 9, 0x1, 0, 0, 0, 1024, ST_CPU,
     "arm_spe_0/ts_enable/", NULL},
    {__LINE__, "arm-n1-6.1", "arm_spe", NULL, "", HWS_REQ_PER_THREAD, 0, 0, 1, 9, 0, 0, 0, 0, 1024,
     ST_BASE, "arm_spe_0//", NULL},
    {__LINE__, "arm-n1-6.1", "arm_spe_0", NULL,
     "load_filter=1 min_latency=64 jitter=1 event_filter=0x2", 0, 0, 0, 1, 9, 0x200010001ULL, 0x2,
     64, 0, 1024, ST_CPU,
     "arm_spe_0/event_filter=0x2,jitter,load_filter,min_latency=0x40,ts_enable/", NULL},
    /* user's ts_enable=0 wins; pa_enable adds PHYS_ADDR */
    {__LINE__, "arm-n1-6.1", NULL, NULL, "ts_enable=0 pa_enable=1 pct_enable=1", 0, 0, 0, 1, 9, 0x6,
     0, 0, 0, 1024, ST_CPU | PERF_SAMPLE_PHYS_ADDR, NULL, NULL},
    /* physical addresses asked for (--phys-data) */
    {__LINE__, "arm-n1-6.1", NULL, NULL, "", HWS_REQ_PHYS_ADDR, 0, 0, 1, 9, 0x3, 0, 0, 0, 1024,
     ST_CPU | PERF_SAMPLE_PHYS_ADDR, NULL, NULL},
    /* c2c: loads + stores + PA */
    {__LINE__, "arm-n1-6.1", NULL, NULL, "", HWS_REQ_C2C, 0, 0, 1, 9, 0x600000003ULL, 0, 0, 0, 1024,
     ST_CPU | PERF_SAMPLE_PHYS_ADDR, NULL, NULL},
    /* presets */
    {__LINE__, "arm-n1-6.1", NULL, "ldst", "", 0, 0, 0, 1, 9, 0x600000001ULL, 0, 0, 0, 1024, ST_CPU,
     NULL, NULL},
    {__LINE__, "arm-n1-6.1", NULL, "branch", "", 0, 0, 0, 1, 9, 0x100000001ULL, 0, 0, 0, 1024,
     ST_CPU, NULL, NULL},
    /* periods: -c, period=, and clamping to min_interval */
    {__LINE__, "arm-n1-6.1", NULL, NULL, "", 0, 8192, 0, 1, 9, 0x1, 0, 0, 0, 8192, ST_CPU, NULL,
     NULL},
    {__LINE__, "arm-n1-6.1", NULL, NULL, "", 0, 100, 0, 1, 9, 0x1, 0, 0, 0, 1024, ST_CPU, NULL,
     NULL},
    {__LINE__, "arm-n1-6.1", NULL, NULL, "period=5000", 0, 0, 0, 1, 9, 0x1, 0, 0, 0, 5000, ST_CPU,
     NULL, NULL},
    /* 6.12 tree: discard and inv_event_filter (config3), min_interval 256 */
    {__LINE__, "arm-v2-6.12", NULL, NULL, "discard=1 store_filter=1", 0, 0, 0, 1, 10,
     0xc00000001ULL, 0, 0, 0, 256, ST_CPU, NULL, NULL},
    /* config3: encoded into the word right after the 128-byte 6.1 attr (core sends size 136) */
    {__LINE__, "arm-v2-6.12", NULL, NULL, "discard=1 inv_event_filter=0x80 store_filter=1", 0, 0, 0,
     1, 10, 0xc00000001ULL, 0, 0, 0x80, 256, ST_CPU,
     "arm_spe_0/discard,inv_event_filter=0x80,store_filter,ts_enable/", NULL},
    /* zero in config3 / config4: what the kernel assumes for a shorter attr, accepted */
    {__LINE__, "arm-v2-6.12", NULL, NULL, "inv_event_filter=0 store_filter=1", 0, 0, 0, 1, 10,
     0x400000001ULL, 0, 0, 0, 256, ST_CPU, "arm_spe_0/store_filter,ts_enable/", NULL},
    {__LINE__, "arm-newer", NULL, NULL, "data_src_filter=0", 0, 0, 0, 1, 11, 0x1, 0, 0, 0, 512,
     ST_CPU, "arm_spe_0/ts_enable/", NULL},
    /* config4 (checked below: the word after config3) */
    {__LINE__, "arm-newer", NULL, NULL, "inv_event_filter=0 data_src_filter=0x30 load_filter=1", 0,
     0, 0, 1, 11, 0x200000001ULL, 0, 0, 0, 512, ST_CPU,
     "arm_spe_0/data_src_filter=0x30,load_filter,ts_enable/", NULL},
    {__LINE__, "arm-newer", NULL, NULL, "data_src_filter=1 foo=1", 0, 0, 0, HWS_E_UNKNOWN_CONTROL,
     0, 0, 0, 0, 0, 0, 0, NULL, "unknown control 'foo'"},
    /* newer: EFT filters, two PMUs: default is arm_spe_0, arm_spe_1 by name */
    {__LINE__, "arm-newer", NULL, NULL, "simd_filter=1 simd_filter_mask=1 float_filter=1", 0, 0, 0,
     1, 11, (1ULL << 39) | (1ULL << 40) | (1ULL << 41) | 1, 0, 0, 0, 512, ST_CPU, NULL, NULL},
    {__LINE__, "arm-newer", "arm_spe_1", NULL, "branch_filter_mask=1", 0, 0, 0, 1, 12,
     (1ULL << 36) | 1, 0, 0, 0, 2048, ST_CPU, NULL, NULL},

    /* errors */
    {__LINE__, "arm-n1-6.1", NULL, NULL, "foo=1", 0, 0, 0, HWS_E_UNKNOWN_CONTROL, 0, 0, 0, 0, 0, 0,
     0, NULL,
     "unknown control 'foo'; valid controls: branch_filter event_filter jitter load_filter "
     "min_latency pa_enable pct_enable store_filter ts_enable"},
    {__LINE__, "arm-n1-6.1", NULL, NULL, "min_latency=4096", 0, 0, 0, HWS_E_CONTROL_RANGE, 0, 0, 0,
     0, 0, 0, 0, NULL, "min_latency=4096 is too wide for its 12-bit field; valid range 0..4095"},
    {__LINE__, "arm-n1-6.1", NULL, NULL, "load_filter=2", 0, 0, 0, HWS_E_CONTROL_RANGE, 0, 0, 0, 0,
     0, 0, 0, NULL, "valid range 0..1"},
    {__LINE__, "arm-n1-6.1", NULL, NULL, "", 0, 0, 4000, HWS_E_BAD_ARG, 0, 0, 0, 0, 0, 0, 0, NULL,
     "a frequency (hws_event_request.freq) is not supported"},
    {__LINE__, "arm-n1-6.1", NULL, NULL, "discard=1", 0, 0, 0, HWS_E_UNKNOWN_CONTROL, 0, 0, 0, 0, 0,
     0, 0, NULL, "'discard' needs Linux 6.14+"},
    {__LINE__, "arm-n1-6.1", NULL, NULL, "inv_event_filter=1", 0, 0, 0, HWS_E_UNKNOWN_CONTROL, 0, 0,
     0, 0, 0, 0, 0, NULL, "'inv_event_filter' needs Linux 6.12+"},
    {__LINE__, "arm-newer", NULL, NULL, "data_src_filter=0x1ffffffffffffffff", 0, 0, 0,
     HWS_E_BAD_ARG, 0, 0, 0, 0, 0, 0, 0, NULL, "not a number"},
    {__LINE__, "arm-n1-6.1", NULL, NULL, "load_filter=yes", 0, 0, 0, HWS_E_BAD_ARG, 0, 0, 0, 0, 0,
     0, 0, NULL, "load_filter=yes is not a number"},
    {__LINE__, "arm-n1-6.1", NULL, NULL, "period=0", 0, 0, 0, HWS_E_BAD_ARG, 0, 0, 0, 0, 0, 0, 0,
     NULL, "period=0 is not a positive number"},
    {__LINE__, "arm-n1-6.1", NULL, "cycles", "", 0, 0, 0, HWS_E_UNKNOWN_EVENT, 0, 0, 0, 0, 0, 0, 0,
     NULL, "valid event presets: load store ldst branch all"},
    {__LINE__, "arm-n1-6.1", "arm_spe_3", NULL, "", 0, 0, 0, HWS_E_NO_PMU, 0, 0, 0, 0, 0, 0, 0,
     NULL, "arm_spe_3: no such PMU; this machine has arm_spe_0"},
    {__LINE__, "intel-skl", NULL, NULL, "", 0, 0, 0, HWS_E_NO_PMU, 0, 0, 0, 0, 0, 0, 0, NULL,
     "no arm_spe_<n> PMU"},
};

static void run_case(const struct ecase *c)
{
	char root[4096], err[1024] = "", what[64];
	struct hws_control ctl[8];
	char buf[512], *save = NULL, *tok;
	struct hws_event_request req = {.sz = sizeof(req)};
	struct hws_event_desc out[2];
	uint32_t n = 0;
	int ret;

	snprintf(what, sizeof(what), "case at line %d", c->line);
	snprintf(root, sizeof(root), "%s/tests/sysfs/%s", getenv("HWS_SOURCE_DIR"), c->tree);
	tests_machine(root, NULL);
	snprintf(buf, sizeof(buf), "%s", c->ctl);
	for (tok = strtok_r(buf, " ", &save); tok && n < 8; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		*eq = 0;
		ctl[n].key = tok;
		ctl[n].value = eq + 1;
		n++;
	}
	req.flags = c->flags | HWS_REQ_DRY_RUN;
	req.pmu = c->pmu;
	req.event = c->event;
	req.controls = ctl;
	req.nr_controls = n;
	req.period = c->period;
	req.freq = c->freq;
	memset(out, 0, sizeof(out));
	ret = ops->encode(priv, &req, out, 2, err, sizeof(err));
	if (ret != c->ret)
		fprintf(stderr, "%s: ret %d err '%s'\n", what, ret, err);
	T_EQ_U64(what, ret, c->ret);
	if (c->ret == 1 && ret == 1) {
		T_EQ_U64(what, out[0].attr.type, c->type);
		T_EQ_U64(what, out[0].attr.config, c->config);
		T_EQ_U64(what, out[0].attr.config1, c->config1);
		T_EQ_U64(what, out[0].attr.config2, c->config2);
		T_EQ_U64(what, *hws_event_desc__config(&out[0], 3), c->config3);
		if (strstr(c->ctl, "data_src_filter=0x30"))
			T_EQ_U64(what, *hws_event_desc__config(&out[0], 4), 0x30);
		else
			T_EQ_U64(what, *hws_event_desc__config(&out[0], 4), 0);
		T_EQ_U64(what, out[0].attr.sample_period, c->sample_period);
		T_EQ_U64(what, out[0].attr.sample_type, c->sample_type);
		T_EQ_U64(what, out[0].attr.freq, 0);
		T_EQ_U64(what, out[0].attr.exclude_idle, 0);
		T_EQ_U64(what, out[0].flags & HWS_EVF_AUX, HWS_EVF_AUX);
		T_EQ_U64(what, out[0].attr.size, sizeof(struct hws_perf_event_attr));
		if (c->name)
			T_EQ_STR(what, out[0].name, c->name);
	}
	if (c->errsub && !strstr(err, c->errsub)) {
		fprintf(stderr, "%s: message '%s' lacks '%s'\n", what, err, c->errsub);
		__T(what, 0);
	}
}

int main(void)
{
	char root[4096], why[1024];
	struct hws_control_info ci[64];
	int n;

	if (!getenv("HWS_SOURCE_DIR"))
		TEST_SKIP("HWS_SOURCE_DIR not set (run through ctest)");
	ops = hws_backend_entry_arm_spe(hws_host__get());
	priv = calloc(1, ops->priv_size);
	__T("init", ops->init(priv, hws_host__get()) == 0);
	__T("pmus prefix", !strcmp(ops->pmus[0], "arm_spe_") && !ops->pmus[1]);
	__T("caps", (ops->caps & (HWS_CAP_AUX | HWS_CAP_PRECISE_IP | HWS_CAP_DATA_ADDR |
				  HWS_CAP_PHYS_ADDR | HWS_CAP_LATENCY | HWS_CAP_DATA_SRC)) ==
			(HWS_CAP_AUX | HWS_CAP_PRECISE_IP | HWS_CAP_DATA_ADDR | HWS_CAP_PHYS_ADDR |
			 HWS_CAP_LATENCY | HWS_CAP_DATA_SRC));

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);

	/* detect and controls per tree */
	snprintf(root, sizeof(root), "%s/tests/sysfs/arm-newer", getenv("HWS_SOURCE_DIR"));
	tests_machine(root, NULL);
	__T("detect newer", ops->detect(priv, why, sizeof(why)) > 0);
	__T("detect names two PMUs", strstr(why, "2 SPE PMUs") != NULL);
	n = ops->controls(priv, NULL, ci, 64);
	__T("newer controls: 19 formats + period", n == 20);
	for (int i = 0; i < n && i < 64; i++)
		if (!strcmp(ci[i].name, "min_latency"))
			T_EQ_U64("min_latency max", ci[i].max, 4095);
		else if (!strcmp(ci[i].name, "period"))
			T_EQ_U64("period min = min_interval", ci[i].min, 512);
	snprintf(root, sizeof(root), "%s/tests/sysfs/intel-skl", getenv("HWS_SOURCE_DIR"));
	tests_machine(root, NULL);
	__T("detect absent", ops->detect(priv, why, sizeof(why)) <= 0);
	__T("absent explains", strstr(why, "no arm_spe_<n> PMU") && strstr(why, "Arm"));
	{
		/* what `hwsample record` writes as AUXTRACE_INFO: v1, which perf 6.1 reads */
		uint32_t type = 0;
		uint64_t w[4] = {0};
		struct hws_perf_event_attr a = {.type = 9};

		__T("has auxtrace_info", HWS_OPS_HAS(ops, auxtrace_info));
		T_EQ_U64("auxtrace_info words", ops->auxtrace_info(priv, &a, 1, &type, w, 4), 2);
		T_EQ_U64("auxtrace type ARM_SPE", type, 4);
		T_EQ_U64("auxtrace PMU type", w[0], 9);
		T_EQ_U64("auxtrace per-cpu mmaps", w[1], 1);
		__T("auxtrace_info needs room", ops->auxtrace_info(priv, &a, 0, &type, w, 1) < 0);
	}
	__T("match by PMU_MAPPINGS name", ops->match(priv, NULL, "arm_spe_0"));
	{
		/* no PMU_MAPPINGS: the attr type against this machine's arm_spe PMUs */
		struct hws_perf_event_attr a = {.type = 9};

		snprintf(root, sizeof(root), "%s/tests/sysfs/arm-n1-6.1", getenv("HWS_SOURCE_DIR"));
		tests_machine(root, NULL);
		__T("match by live type", ops->match(priv, &a, NULL));
		a.type = 10;
		__T("no match for another dynamic type", !ops->match(priv, &a, NULL));
		a.type = PERF_TYPE_RAW;
		__T("no match for raw", !ops->match(priv, &a, NULL));
	}
	__T("no match for cpu", !ops->match(priv, NULL, "cpu"));
	TEST_END();
}
