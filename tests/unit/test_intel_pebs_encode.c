// SPDX-License-Identifier: MIT
/*
 * intel_pebs encoding against libpfm4 and fake sysfs trees (tests/sysfs/intel-*).
 *
 * For each case the machine is faked twice, the way the issue asks: the library's sysfs root
 * (tests_machine()) is a tree with the cpu (or cpu_core/cpu_atom) PMU of that model, and
 * LIBPFM_FORCE_PMU makes libpfm4 believe it runs on that core. The backend's attr must then
 * equal what pfm_get_os_event_encoding() gives when called directly here for the same name
 * (plus the ldlat/precise the backend chose), and the kernel aliases from sysfs must equal
 * the libpfm4 encoding of the event they stand for. Every error path has a case.
 *
 * Invariant: cases are a table with .line = __LINE__; models libpfm4 does not know are
 * skipped with a message, never passed silently.
 */
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib.h>

#include <hwsample/backend.h>
#include <hwsample/registry.h>

#include "tests.h"

/* libpfm4's pfm_perf_encode_arg_t (PFM_PERF_ENCODE_ABI0); see pebs_encode.c */
struct pfm_arg {
	struct hws_perf_event_attr *attr;
	char **fstr;
	size_t size;
	int idx, cpu, flags, pad0;
};

static struct hws_registry *reg;
static struct hws_backend *be;
static char src_dir[1024];

static int pfm_direct(const char *force, const char *name, struct hws_perf_event_attr *attr)
{
	struct pfm_arg a;
	char q[256];

	/* qualified: libpfm4 4.13 keeps earlier forced PMUs active after pfm_terminate() */
	snprintf(q, sizeof(q), "%s::%s", force, name);
	name = q;
	pfm_terminate();
	setenv("LIBPFM_FORCE_PMU", force, 1);
	if (pfm_initialize() != PFM_SUCCESS)
		return -1;
	memset(attr, 0, sizeof(*attr));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.attr = attr;
	return pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &a);
}

static int pfm_knows(const char *force)
{
	pfm_pmu_info_t pi;
	int p;

	pfm_terminate();
	setenv("LIBPFM_FORCE_PMU", force, 1);
	if (pfm_initialize() != PFM_SUCCESS)
		return 0;
	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pi) == PFM_SUCCESS && pi.name &&
		    !strcmp(pi.name, force) && pi.is_present)
			return 1;
	}
	return 0;
}

/* the fake machine tests/sysfs/@tree, with its cpuinfo or tests/sysfs/@cpuinfo */
static void machine_cpu(const char *tree, const char *force, const char *cpuinfo)
{
	char path[1200], cpath[1200];

	snprintf(path, sizeof(path), "%s/tests/sysfs/%s", src_dir, tree);
	snprintf(cpath, sizeof(cpath), "%s/tests/sysfs/%s", src_dir, cpuinfo);
	tests_machine(path, cpuinfo ? cpath : NULL);
	if (force)
		setenv("LIBPFM_FORCE_PMU", force, 1);
	else
		unsetenv("LIBPFM_FORCE_PMU");
}

static void machine(const char *tree, const char *force)
{
	machine_cpu(tree, force, NULL);
}

static int encode(const char *pmu, const char *event, const struct hws_control *ctl, int nctl,
		  uint32_t kv, struct hws_event_desc *out, int max, char *err, size_t errlen)
{
	struct hws_event_request req = {
	    .sz = sizeof(req),
	    .flags = HWS_REQ_DRY_RUN,
	    .pmu = pmu,
	    .event = event,
	    .controls = ctl,
	    .nr_controls = (uint32_t)nctl,
	    .kernel_version = kv,
	};

	return be->ops->encode(be->priv, &req, out, max, err, errlen);
}

/* ------------------------------------------------------------------ libpfm4 equality */

struct pfm_case {
	int line;
	const char *tree, *force;
	const char *event;    /* what the user writes */
	const char *ldlat;    /* control, or NULL */
	const char *precise;  /* control, or NULL */
	const char *pfm_name; /* what libpfm4 gets directly (with the expected ldlat/precise) */
	int want_precise;
	int want_aux_leader;
};

static const struct pfm_case pfm_cases[] = {
    /* Skylake: P3_ANY, max_precise 3 */
    {__LINE__, "intel-skl", "skl", "MEM_TRANS_RETIRED.LOAD_LATENCY", NULL, NULL,
     "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30:precise=3", 3, 0},
    {__LINE__, "intel-skl", "skl", "MEM_TRANS_RETIRED:LOAD_LATENCY", "64", "2",
     "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=64:precise=2", 2, 0},
    {__LINE__, "intel-skl", "skl", "MEM_INST_RETIRED.ALL_STORES", NULL, NULL,
     "MEM_INST_RETIRED:ALL_STORES:precise=3", 3, 0},
    {__LINE__, "intel-skl", "skl", "MEM_LOAD_RETIRED.L3_MISS", NULL, "1",
     "MEM_LOAD_RETIRED:L3_MISS:precise=1", 1, 0},
    {__LINE__, "intel-skl", "skx", "MEM_LOAD_RETIRED.L3_MISS", NULL, NULL,
     "MEM_LOAD_RETIRED:L3_MISS:precise=3", 3, 0},
    {__LINE__, "intel-skl", "clx", "mem_load_retired.l1_miss", NULL, "0",
     "MEM_LOAD_RETIRED:L1_MISS", 0, 0},
    /* Ice Lake: precise=3 only for PDIST events, :P falls back to 2 */
    {__LINE__, "intel-icl", "icl", "MEM_TRANS_RETIRED.LOAD_LATENCY", "100", NULL,
     "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=100:precise=2", 2, 0},
    {__LINE__, "intel-icl", "icx", "MEM_INST_RETIRED.ALL_STORES", NULL, NULL,
     "MEM_INST_RETIRED:ALL_STORES:precise=2", 2, 0},
    {__LINE__, "intel-icl", "icl", "INST_RETIRED.PREC_DIST", NULL, NULL,
     "INST_RETIRED:PREC_DIST:precise=3", 3, 0},
    {__LINE__, "intel-icl", "icl", "MEM_LOAD_RETIRED.L3_MISS", NULL, NULL,
     "MEM_LOAD_RETIRED:L3_MISS:precise=2", 2, 0},
    /* Sapphire Rapids: load latency needs the mem-loads-aux leader */
    {__LINE__, "intel-spr", "spr", "MEM_TRANS_RETIRED.LOAD_LATENCY", NULL, NULL,
     "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30:precise=2", 2, 1},
    {__LINE__, "intel-spr", "spr", "MEM_INST_RETIRED.ALL_STORES", NULL, "1",
     "MEM_INST_RETIRED:ALL_STORES:precise=1", 1, 0},
    {__LINE__, "intel-spr", "spr", "MEM_TRANS_RETIRED.STORE_SAMPLE", NULL, NULL,
     "MEM_TRANS_RETIRED:STORE_SAMPLE:precise=2", 2, 0},
    /* Haswell / Broadwell: max_precise 2 */
    {__LINE__, "intel-hsw", "hsw", "MEM_UOPS_RETIRED.ALL_STORES", NULL, NULL,
     "MEM_UOPS_RETIRED:ALL_STORES:precise=2", 2, 0},
    {__LINE__, "intel-hsw", "hsw", "MEM_TRANS_RETIRED.LOAD_LATENCY", "3", NULL,
     "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=3:precise=2", 2, 0},
    {__LINE__, "intel-hsw", "bdw", "MEM_LOAD_UOPS_RETIRED.L3_MISS", NULL, NULL,
     "MEM_LOAD_UOPS_RETIRED:L3_MISS:precise=2", 2, 0},
    /* Sandy Bridge: libpfm4 names the load-latency umask LATENCY_ABOVE_THRESHOLD */
    {__LINE__, "intel-hsw", "snb", "MEM_TRANS_RETIRED.LATENCY_ABOVE_THRESHOLD", NULL, NULL,
     "MEM_TRANS_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=30:precise=2", 2, 0},
    {__LINE__, "intel-hsw", "snb", "MEM_TRANS_RETIRED.PRECISE_STORE", NULL, NULL,
     "MEM_TRANS_RETIRED:PRECISE_STORE:precise=2", 2, 0},
};

static void check_common(const char *what, const struct hws_perf_event_attr *a)
{
	uint64_t want = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_CPU | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT |
			PERF_SAMPLE_PERIOD;

	T_EQ_U64(what, a->sample_type, want);
	T_EQ_U64(what, a->freq, 1);
	T_EQ_U64(what, a->sample_freq, 4000);
	T_EQ_U64(what, a->size, sizeof(*a));
}

static void test_pfm_equal(void)
{
	size_t i;

	for (i = 0; i < sizeof(pfm_cases) / sizeof(pfm_cases[0]); i++) {
		const struct pfm_case *c = &pfm_cases[i];
		struct hws_control ctl[2];
		struct hws_event_desc d[8];
		struct hws_perf_event_attr want;
		char err[512] = "", what[256];
		int n, nc = 0, ev;

		if (!pfm_knows(c->force)) {
			printf("skip line %d: libpfm4 %d.%d does not know %s\n", c->line,
			       PFM_MAJ_VERSION(pfm_get_version()),
			       PFM_MIN_VERSION(pfm_get_version()), c->force);
			continue;
		}
		if (c->ldlat)
			ctl[nc++] = (struct hws_control){"ldlat", c->ldlat};
		if (c->precise)
			ctl[nc++] = (struct hws_control){"precise", c->precise};
		machine(c->tree, c->force);
		n = encode(NULL, c->event, ctl, nc, 0, d, 8, err, sizeof(err));
		snprintf(what, sizeof(what), "line %d %s on %s (%s)", c->line, c->event, c->force,
			 err);
		T_EQ_U64(what, n, 1 + c->want_aux_leader);
		if (n != 1 + c->want_aux_leader)
			continue;
		ev = c->want_aux_leader;
		T_EQ_U64(what, pfm_direct(c->force, c->pfm_name, &want), PFM_SUCCESS);
		T_EQ_U64(what, d[ev].attr.type, want.type);
		T_EQ_U64(what, d[ev].attr.config, want.config);
		T_EQ_U64(what, d[ev].attr.config1, want.config1);
		T_EQ_U64(what, d[ev].attr.precise_ip, want.precise_ip);
		T_EQ_U64(what, d[ev].attr.precise_ip, c->want_precise);
		T_EQ_U64(what, d[ev].attr.exclude_kernel, want.exclude_kernel);
		T_EQ_U64(what, d[ev].attr.exclude_user, want.exclude_user);
		T_EQ_U64(what, d[ev].attr.exclude_guest, want.exclude_guest);
		check_common(what, &d[ev].attr);
		T_EQ_STR(what, d[ev].pmu, "cpu");
		if (c->want_aux_leader) {
			T_EQ_U64(what, d[1].group_leader, 0);
			T_EQ_U64(what, d[0].group_leader, -1);
			T_EQ_U64(what, d[0].attr.config, 0x8203);
			T_EQ_U64(what, d[0].attr.precise_ip, c->want_precise);
			T_EQ_STR(what, d[0].name, "cpu/mem-loads-aux/pp");
		} else {
			T_EQ_U64(what, d[0].group_leader, -1);
		}
	}
}

/* ------------------------------------------------------------------ aliases */

struct alias_case {
	int line;
	const char *tree, *force, *pmu;
	const char *event;
	const char *pfm_name; /* libpfm4 name of the same event (NULL: model not in libpfm4) */
	uint64_t config, config1;
	int precise, aux;
	const char *name;
};

static const struct alias_case alias_cases[] = {
    {__LINE__, "intel-skl", "skl", NULL, "mem-loads",
     "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30:precise=3", 0x1cd, 30, 3, 0,
     "cpu/mem-loads,ldlat=30/ppp"},
    {__LINE__, "intel-skl", "skl", "cpu", "mem-stores", "MEM_INST_RETIRED:ALL_STORES:precise=3",
     0x82d0, 0, 3, 0, "cpu/mem-stores/ppp"},
    {__LINE__, "intel-icl", "icl", NULL, "mem-loads",
     "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30:precise=2", 0x1cd, 30, 2, 0,
     "cpu/mem-loads,ldlat=30/pp"},
    {__LINE__, "intel-icl", "icl", NULL, "mem-stores", "MEM_INST_RETIRED:ALL_STORES:precise=2",
     0x82d0, 0, 2, 0, "cpu/mem-stores/pp"},
    {__LINE__, "intel-spr", "spr", NULL, "mem-loads",
     "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30:precise=2", 0x1cd, 30, 2, 1,
     "cpu/mem-loads,ldlat=30/pp"},
    /* SPR mem-stores is 0x2cd (store latency); libpfm4 4.13 names 0x3cd STORE_SAMPLE */
    {__LINE__, "intel-spr", "spr", NULL, "mem-stores", NULL, 0x2cd, 0, 2, 0, "cpu/mem-stores/pp"},
    /* no events/ dir in the hsw tree: the model table gives the kernel's alias */
    {__LINE__, "intel-hsw", "hsw", NULL, "mem-loads",
     "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30:precise=2", 0x1cd, 30, 2, 0,
     "cpu/mem-loads,ldlat=30/pp"},
    {__LINE__, "intel-hsw", "hsw", NULL, "mem-stores", "MEM_UOPS_RETIRED:ALL_STORES:precise=2",
     0x82d0, 0, 2, 0, "cpu/mem-stores/pp"},
    /* Nehalem: its own load-latency event, from the model table */
    {__LINE__, "intel-nhm", "nhm", NULL, "mem-loads",
     "MEM_INST_RETIRED:LATENCY_ABOVE_THRESHOLD:ldlat=30:precise=2", 0x100b, 30, 2, 0,
     "cpu/mem-loads,ldlat=30/pp"},
};

static void test_aliases(void)
{
	size_t i;

	for (i = 0; i < sizeof(alias_cases) / sizeof(alias_cases[0]); i++) {
		const struct alias_case *c = &alias_cases[i];
		struct hws_event_desc d[8];
		struct hws_perf_event_attr want;
		char err[512] = "", what[256];
		int n, ev = c->aux;

		machine(c->tree, c->force);
		n = encode(c->pmu, c->event, NULL, 0, 0, d, 8, err, sizeof(err));
		snprintf(what, sizeof(what), "line %d %s on %s (%s)", c->line, c->event, c->tree,
			 err);
		T_EQ_U64(what, n, 1 + c->aux);
		if (n != 1 + c->aux)
			continue;
		T_EQ_U64(what, d[ev].attr.type, 4);
		T_EQ_U64(what, d[ev].attr.config, c->config);
		T_EQ_U64(what, d[ev].attr.config1, c->config1);
		T_EQ_U64(what, d[ev].attr.precise_ip, c->precise);
		T_EQ_STR(what, d[ev].name, c->name);
		check_common(what, &d[ev].attr);
		if (c->aux) {
			T_EQ_U64(what, d[0].attr.config, 0x8203);
			T_EQ_U64(what, d[1].group_leader, 0);
		}
		if (c->pfm_name && pfm_knows(c->force)) {
			T_EQ_U64(what, pfm_direct(c->force, c->pfm_name, &want), PFM_SUCCESS);
			T_EQ_U64(what, d[ev].attr.config, want.config);
			T_EQ_U64(what, d[ev].attr.config1, want.config1);
			T_EQ_U64(what, d[ev].attr.precise_ip, want.precise_ip);
			T_EQ_U64(what, d[ev].attr.exclude_guest, want.exclude_guest);
		}
	}
}

/* Default request (perf mem record: loads + stores) and the hybrid machine. */
static void test_default_and_hybrid(void)
{
	struct hws_event_desc d[16];
	struct hws_control ctl[2] = {{"ldlat", "50"}, {"phys_addr", "1"}};
	char err[512] = "";
	int n;

	machine("intel-skl", "skl");
	n = encode(NULL, NULL, NULL, 0, 0, d, 16, err, sizeof(err));
	T_EQ_U64(err, n, 2);
	T_EQ_STR("default loads", d[0].name, "cpu/mem-loads,ldlat=30/ppp");
	T_EQ_STR("default stores", d[1].name, "cpu/mem-stores/ppp");

	/* Alder Lake: both PMUs, each with its own type and alias; core gets the aux leader;
	 * precise=3 is PDIST-only there, so :P gives 2 */
	machine("intel-adl", NULL);
	n = encode(NULL, NULL, ctl, 2, 0, d, 16, err, sizeof(err));
	T_EQ_U64(err, n, 5);
	if (n == 5) {
		T_EQ_STR("adl 0", d[0].name, "cpu_core/mem-loads-aux/pp");
		T_EQ_STR("adl 0 pmu", d[0].pmu, "cpu_core");
		T_EQ_U64("adl 0 type", d[0].attr.type, 4);
		T_EQ_U64("adl 0 cfg", d[0].attr.config, 0x8203);
		T_EQ_STR("adl 1", d[1].name, "cpu_core/mem-loads,ldlat=50/pp");
		T_EQ_U64("adl 1 leader", d[1].group_leader, 0);
		T_EQ_U64("adl 1 cfg", d[1].attr.config, 0x1cd);
		T_EQ_U64("adl 1 ldlat", d[1].attr.config1, 50);
		T_EQ_U64("adl 1 phys", !!(d[1].attr.sample_type & PERF_SAMPLE_PHYS_ADDR), 1);
		T_EQ_STR("adl 2", d[2].name, "cpu_atom/mem-loads,ldlat=50/pp");
		T_EQ_STR("adl 2 pmu", d[2].pmu, "cpu_atom");
		T_EQ_U64("adl 2 type", d[2].attr.type, 8);
		T_EQ_U64("adl 2 cfg", d[2].attr.config, 0x5d0);
		T_EQ_U64("adl 2 ldlat", d[2].attr.config1, 50);
		T_EQ_U64("adl 2 leader", d[2].group_leader, -1);
		T_EQ_STR("adl 3", d[3].name, "cpu_core/mem-stores/pp");
		T_EQ_U64("adl 3 cfg", d[3].attr.config, 0x2cd);
		T_EQ_STR("adl 4", d[4].name, "cpu_atom/mem-stores/pp");
		T_EQ_U64("adl 4 cfg", d[4].attr.config, 0x6d0);
		T_EQ_U64("adl 4 type", d[4].attr.type, 8);
	}
	/* one hybrid PMU chosen with -b */
	n = encode("cpu_atom", "mem-loads", NULL, 0, 0, d, 16, err, sizeof(err));
	T_EQ_U64(err, n, 1);
	T_EQ_STR("adl atom only", d[0].pmu, "cpu_atom");
	/* named events on hybrid PMUs need a libpfm4 model of the core type */
	n = encode(NULL, "MEM_TRANS_RETIRED.LOAD_LATENCY", NULL, 0, 0, d, 16, err, sizeof(err));
	if (pfm_knows("adl_glc")) {
		machine("intel-adl", "adl_glc");
		n = encode("cpu_core", "MEM_TRANS_RETIRED.LOAD_LATENCY", NULL, 0, 0, d, 16, err,
			   sizeof(err));
		T_EQ_U64(err, n, 2);
	} else {
		T_EQ_U64(err, n, HWS_E_UNSUPPORTED);
		__T("hybrid libpfm message", strstr(err, "adl_glc") && strstr(err, "mem-loads"));
	}

	/* old kernel: plain WEIGHT; page sizes refused before 5.11 */
	machine("intel-skl", "skl");
	n = encode(NULL, "mem-loads", NULL, 0, HWS_KERNEL_VERSION(5, 4, 0), d, 16, err,
		   sizeof(err));
	T_EQ_U64(err, n, 1);
	T_EQ_U64("5.4 weight",
		 d[0].attr.sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT),
		 PERF_SAMPLE_WEIGHT);
	{
		struct hws_control pc[1] = {{"data_page_size", "1"}};

		n = encode(NULL, "mem-loads", pc, 1, HWS_KERNEL_VERSION(5, 4, 0), d, 16, err,
			   sizeof(err));
		T_EQ_U64(err, n, HWS_E_UNSUPPORTED);
		n = encode(NULL, "mem-loads", pc, 1, HWS_KERNEL_VERSION(6, 1, 0), d, 16, err,
			   sizeof(err));
		T_EQ_U64(err, n, 1);
		T_EQ_U64("dpsz", !!(d[0].attr.sample_type & PERF_SAMPLE_DATA_PAGE_SIZE), 1);
	}
}

/* ------------------------------------------------------------------ errors */

struct err_case {
	int line;
	const char *tree, *force, *pmu, *event, *key, *value;
	int want;
	const char *must1, *must2; /* substrings the message must hold */
};

static const struct err_case err_cases[] = {
    {__LINE__, "intel-skl", "skl", NULL, "L2_RQSTS.MISS", NULL, NULL, HWS_E_UNSUPPORTED,
     "not a precise", "MEM_TRANS_RETIRED.LOAD_LATENCY"},
    {__LINE__, "intel-skl", "skl", NULL, "MEM_TRANS_RETIRED.LOAD_LATENCY", "ldlat", "2",
     HWS_E_CONTROL_RANGE, "3..65535", NULL},
    {__LINE__, "intel-skl", "skl", NULL, "mem-loads", "ldlat", "65536", HWS_E_CONTROL_RANGE,
     "3..65535", NULL},
    {__LINE__, "intel-hsw", "snb", NULL, "MEM_TRANS_RETIRED.LOAD_LATENCY", NULL, NULL,
     HWS_E_UNKNOWN_EVENT, "closest", "MEM_TRANS_RETIRED.LATENCY_ABOVE_THRESHOLD"},
    {__LINE__, "intel-skl", "skl", NULL, "mem-stores,MEM_INST_RETIRED.ALL_STORES", "ldlat", "40",
     HWS_E_UNKNOWN_CONTROL, "load-latency", "mem-stores"},
    {__LINE__, "intel-skl", "skl", NULL, "mem-loads", "ldlat", "abc", HWS_E_BAD_ARG, "not a number",
     NULL},
    {__LINE__, "intel-skl", "skl", NULL, "mem-stores", "ldlat", "30", HWS_E_UNKNOWN_CONTROL,
     "load-latency", NULL},
    {__LINE__, "intel-skl", "skl", NULL, "MEM_LOAD_RETIRED.L3_MISS", "ldlat", "30",
     HWS_E_UNKNOWN_CONTROL, "load-latency", NULL},
    {__LINE__, "intel-skl", "skl", NULL, "mem-loads", "precise", "4", HWS_E_CONTROL_RANGE, "0..3",
     NULL},
    {__LINE__, "intel-skl", "skl", NULL, "mem-loads", "frobnicate", "1", HWS_E_UNKNOWN_CONTROL,
     "ldlat", "precise"},
    {__LINE__, "intel-hsw", "hsw", NULL, "mem-loads", "precise", "3", HWS_E_UNSUPPORTED,
     "max_precise=2", NULL},
    {__LINE__, "intel-icl", "icl", NULL, "MEM_TRANS_RETIRED.LOAD_LATENCY", "precise", "3",
     HWS_E_UNSUPPORTED, "PREC_DIST", "precise=2"},
    {__LINE__, "intel-skl", "skl", NULL, "MEM_LOAD_RETIRED.L3_MIS", NULL, NULL, HWS_E_UNKNOWN_EVENT,
     "unknown on this core", "MEM_LOAD_RETIRED.L3_MISS"},
    {__LINE__, "intel-skl", "skl", NULL, "MEM_LOADS_RETIRED.L1_HIT", NULL, NULL,
     HWS_E_UNKNOWN_EVENT, "closest", "MEM_LOAD_RETIRED.L1_HIT"},
    {__LINE__, "intel-icl", "icl", NULL, "MEM_UOPS_RETIRED.ALL_STORES", NULL, NULL,
     HWS_E_UNKNOWN_EVENT, "closest", "MEM_INST_RETIRED.ALL_STORES"},
    {__LINE__, "intel-skl", "skl", "cpu_atom", "mem-loads", NULL, NULL, HWS_E_NO_PMU, "cpu_atom",
     "cpu"},
    {__LINE__, "intel-skl", "skl", NULL, "mem-loads-aux", NULL, NULL, HWS_E_BAD_ARG, "group leader",
     NULL},
    /* PEBS unavailable */
    {__LINE__, "intel-vm-nopebs", "skl", NULL, "mem-loads", NULL, NULL, HWS_E_UNSUPPORTED,
     "max_precise is 0", "virtual machine"},
    {__LINE__, "amd", NULL, NULL, "mem-loads", NULL, NULL, HWS_E_NO_PMU, "not an Intel", "amd_ibs"},
    {__LINE__, "none", NULL, NULL, "mem-loads", NULL, NULL, HWS_E_NO_PMU, "no 'cpu' PMU",
     "virtual"},
    {__LINE__, "intel-generic", NULL, NULL, "mem-loads", NULL, NULL, HWS_E_UNSUPPORTED,
     "generic_arch_v4+", "hypervisor"},
    /* Nehalem has no store alias */
    {__LINE__, "intel-nhm", NULL, NULL, "mem-stores", NULL, NULL, HWS_E_UNKNOWN_EVENT,
     "no 'mem-stores' event", "Nehalem"},
};

static void test_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		struct hws_control ctl = {c->key, c->value};
		struct hws_event_desc d[8];
		char err[512] = "", what[700];
		int n;

		if (c->force && !pfm_knows(c->force))
			continue;
		if (!strcmp(c->tree, "amd")) {
			/* an Intel-looking sysfs but an AMD cpuinfo */
			machine_cpu("intel-skl", NULL, "intel-none/cpuinfo-amd");
		} else if (!strcmp(c->tree, "none")) {
			/* a machine with only software PMUs */
			machine("intel-none", NULL);
		} else {
			machine(c->tree, c->force);
		}
		n = encode(c->pmu, c->event, c->key ? &ctl : NULL, c->key ? 1 : 0, 0, d, 8, err,
			   sizeof(err));
		snprintf(what, sizeof(what), "line %d: %s", c->line, err);
		T_EQ_U64(what, n, c->want);
		if (c->must1)
			__T(what, strstr(err, c->must1) != NULL);
		if (c->must2)
			__T(what, strstr(err, c->must2) != NULL);
	}
}

/* perf syntax ("cpu/mem-loads,ldlat=50/P", ":pp") and libpfm4 terms (":ldlat=", ":precise="). */
struct syntax_case {
	int line;
	const char *tree, *force, *event;
	int n;	 /* events expected */
	int idx; /* the one checked */
	const char *pmu;
	uint64_t config, config1;
	int precise;
	const char *name;
};

static const struct syntax_case syntax_cases[] = {
    {__LINE__, "intel-skl", "skl", "cpu/mem-loads,ldlat=50/P", 1, 0, "cpu", 0x1cd, 50, 3,
     "cpu/mem-loads,ldlat=50/ppp"},
    {__LINE__, "intel-skl", "skl", "cpu/mem-stores/p", 1, 0, "cpu", 0x82d0, 0, 1,
     "cpu/mem-stores/p"},
    {__LINE__, "intel-skl", "skl", "mem-loads:pp", 1, 0, "cpu", 0x1cd, 30, 2,
     "cpu/mem-loads,ldlat=30/pp"},
    {__LINE__, "intel-skl", "skl", "cpu/mem-loads,ldlat=40/pp,cpu/mem-stores/", 2, 1, "cpu", 0x82d0,
     0, 3, "cpu/mem-stores/ppp"},
    {__LINE__, "intel-skl", "skl", "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=64:precise=2", 1, 0, "cpu",
     0x1cd, 64, 2, "cpu/MEM_TRANS_RETIRED.LOAD_LATENCY,ldlat=64/pp"},
    {__LINE__, "intel-skl", "skl", "skl::MEM_TRANS_RETIRED:ldlat=99:LOAD_LATENCY", 1, 0, "cpu",
     0x1cd, 99, 3, "cpu/MEM_TRANS_RETIRED.LOAD_LATENCY,ldlat=99/ppp"},
    {__LINE__, "intel-skl", "skl", "MEM_LOAD_RETIRED.L3_MISS:p", 1, 0, "cpu", 0x20d1, 0, 1,
     "cpu/MEM_LOAD_RETIRED.L3_MISS/p"},
    {__LINE__, "intel-adl", NULL, "cpu_atom/mem-loads,ldlat=100/,cpu_core/mem-stores/pp", 2, 0,
     "cpu_atom", 0x5d0, 100, 2, "cpu_atom/mem-loads,ldlat=100/pp"},
    {__LINE__, "intel-adl", NULL, "cpu_atom/mem-loads,ldlat=100/,cpu_core/mem-stores/pp", 2, 1,
     "cpu_core", 0x2cd, 0, 2, "cpu_core/mem-stores/pp"},
};

static const struct err_case syntax_errors[] = {
    {__LINE__, "intel-skl", "skl", NULL, "ibs_op/foo/", NULL, NULL, HWS_E_NO_PMU,
     "not an Intel core PMU", "(hws_event_request.pmu)"},
    {__LINE__, "intel-skl", "skl", NULL, "cpu/mem-loads", NULL, NULL, HWS_E_BAD_ARG, "closing '/'",
     NULL},
    {__LINE__, "intel-skl", "skl", NULL, "cpu/mem-loads,foo=1/", NULL, NULL, HWS_E_UNKNOWN_CONTROL,
     "unknown term 'foo=1'", "ldlat"},
    {__LINE__, "intel-skl", "skl", NULL, "cpu/mem-loads,ldlat=1/", NULL, NULL, HWS_E_CONTROL_RANGE,
     "3..65535", NULL},
    {__LINE__, "intel-skl", "skl", NULL, "cpu/mem-loads/x", NULL, NULL, HWS_E_BAD_ARG,
     "unknown modifier 'x'", NULL},
    {__LINE__, "intel-skl", "skl", NULL, "cpu_atom/mem-loads/", NULL, NULL, HWS_E_NO_PMU,
     "no PMU 'cpu_atom'", NULL},
    {__LINE__, "intel-skl", "skl", NULL, "cpu/mem-stores,ldlat=40/", NULL, NULL,
     HWS_E_UNKNOWN_CONTROL, "load-latency", "mem-stores"},
    {__LINE__, "intel-skl", "skl", NULL, "MEM_LOAD_RETIRED.L3_MISS:precise=9", NULL, NULL,
     HWS_E_CONTROL_RANGE, "0..3", NULL},
    {__LINE__, "intel-skl", "skl", NULL, "MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=0", NULL, NULL,
     HWS_E_CONTROL_RANGE, "3..65535", NULL},
};

static void test_syntax(void)
{
	size_t i;

	for (i = 0; i < sizeof(syntax_cases) / sizeof(syntax_cases[0]); i++) {
		const struct syntax_case *c = &syntax_cases[i];
		struct hws_event_desc d[8];
		char err[512] = "", what[700];
		int n;

		if (c->force && !pfm_knows(c->force))
			continue;
		machine(c->tree, c->force);
		n = encode(NULL, c->event, NULL, 0, 0, d, 8, err, sizeof(err));
		snprintf(what, sizeof(what), "line %d %s (%s)", c->line, c->event, err);
		T_EQ_U64(what, n, c->n);
		if (n != c->n)
			continue;
		T_EQ_STR(what, d[c->idx].pmu, c->pmu);
		T_EQ_U64(what, d[c->idx].attr.config, c->config);
		T_EQ_U64(what, d[c->idx].attr.config1, c->config1);
		T_EQ_U64(what, d[c->idx].attr.precise_ip, c->precise);
		T_EQ_STR(what, d[c->idx].name, c->name);
	}
	for (i = 0; i < sizeof(syntax_errors) / sizeof(syntax_errors[0]); i++) {
		const struct err_case *c = &syntax_errors[i];
		struct hws_event_desc d[8];
		char err[512] = "", what[700];
		int n;

		if (c->force && !pfm_knows(c->force))
			continue;
		machine(c->tree, c->force);
		n = encode(NULL, c->event, NULL, 0, 0, d, 8, err, sizeof(err));
		snprintf(what, sizeof(what), "line %d: %s", c->line, err);
		T_EQ_U64(what, n, c->want);
		if (c->must1)
			__T(what, strstr(err, c->must1) != NULL);
		if (c->must2)
			__T(what, strstr(err, c->must2) != NULL);
	}
}

/* Errors that need a kernel version or a short output array. */
static void test_more_errors(void)
{
	struct hws_control phys = {"phys_addr", "1"};
	struct hws_event_desc d[2];
	char err[512] = "";
	int n;

	machine("intel-skl", "skl");
	n = encode(NULL, "mem-loads", &phys, 1, HWS_KERNEL_VERSION(4, 9, 0), d, 2, err,
		   sizeof(err));
	T_EQ_U64(err, n, HWS_E_UNSUPPORTED);
	__T(err, strstr(err, "4.14") != NULL);
	n = encode(NULL, "mem-loads", &phys, 1, HWS_KERNEL_VERSION(4, 14, 0), d, 2, err,
		   sizeof(err));
	T_EQ_U64(err, n, 1);
	/* SPR needs two descs (aux leader + load) */
	machine("intel-spr", "spr");
	n = encode(NULL, "mem-loads", NULL, 0, 0, d, 1, err, sizeof(err));
	T_EQ_U64(err, n, HWS_E_TOO_BIG);
	n = encode(NULL, "mem-loads", NULL, 0, 0, d, 2, err, sizeof(err));
	T_EQ_U64(err, n, 2);
}

static void test_detect(void)
{
	char why[512];
	int r;

	machine("intel-skl", NULL);
	r = be->ops->detect(be->priv, why, sizeof(why));
	__T(why, r > 0);
	machine("intel-adl", NULL);
	r = be->ops->detect(be->priv, why, sizeof(why));
	__T(why, r > 0);
	machine("intel-vm-nopebs", NULL);
	r = be->ops->detect(be->priv, why, sizeof(why));
	__T("vm detect", r <= 0 && strstr(why, "max_precise"));
	machine_cpu("intel-skl", NULL, "intel-none/cpuinfo-amd");
	r = be->ops->detect(be->priv, why, sizeof(why));
	__T("amd detect", r <= 0 && strstr(why, "AuthenticAMD"));
}

static void test_match(void)
{
	struct hws_perf_event_attr a = {.type = PERF_TYPE_RAW, .config = 0x1cd};

	__T("raw", be->ops->match(be->priv, &a, NULL));
	a.type = 8;
	__T("cpu_atom by name", be->ops->match(be->priv, &a, "cpu_atom"));
	__T("type 8 without name", !be->ops->match(be->priv, &a, NULL));
	a.type = PERF_TYPE_HARDWARE;
	__T("hw no precise", !be->ops->match(be->priv, &a, NULL));
	a.precise_ip = 2;
	a.sample_type = PERF_SAMPLE_DATA_SRC;
	__T("hw precise + data_src", be->ops->match(be->priv, &a, NULL));
	a.type = PERF_TYPE_SOFTWARE;
	__T("sw", !be->ops->match(be->priv, &a, "software"));
}

int main(void)
{
	char err[256];
	const char *s = getenv("HWS_SOURCE_DIR");

	snprintf(src_dir, sizeof(src_dir), "%s", s ? s : ".");
	reg = hws_registry__new();
	if (!reg || hws_registry__add_static(reg, err, sizeof(err)) < 0)
		TEST_SKIP("no static backends");
	be = hws_registry__find(reg, "intel_pebs");
	if (!be)
		TEST_SKIP("intel_pebs backend not linked");

	test_pfm_equal();
	test_aliases();
	test_default_and_hybrid();
	test_errors();
	test_more_errors();
	test_syntax();
	test_detect();
	test_match();
	hws_registry__delete(reg);
	pfm_terminate();
	TEST_END();
}
