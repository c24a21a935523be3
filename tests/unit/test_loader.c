// SPDX-License-Identifier: MIT
/*
 * Backend registry: ABI checks (older and newer versions, a short ops table, required
 * callbacks, limits), lookup by backend name / PMU / PMU prefix, match() falling back to the
 * HWS_CAP_SOFTWARE backend whatever its name, init failures, a plugin that needs a host
 * member this core lacks, the real backends given a host table shorter than the members
 * they need (HWS_HOST_HAS), and the static table of the backends built into this binary.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/registry.h>

#include "tests.h"

static int init_ok(void *p, const struct hws_host *h)
{
	__T("host table of this version",
	    h->abi_version == HWS_BACKEND_ABI_VERSION && h->size == sizeof(struct hws_host));
	__T("host has pmu_load", h->pmu_load != NULL);
	__T("host has the version-3 members",
	    HWS_HOST_HAS(h, cpuinfo) && HWS_HOST_HAS(h, cpu_flag) && HWS_HOST_HAS(h, flags));
	*(int *)p = 42;
	return 0;
}
/* a plugin that needs a host member this core lacks, as one built against a newer header
 * would test it (HWS_HOST_HAS): here, 8 bytes past this host table */
static int init_needs_newer_host(void *p, const struct hws_host *h)
{
	if (h->size < sizeof(struct hws_host) + 8)
		return HWS_E_ABI_MISMATCH;
	return 0;
}
static int init_fail(void *p, const struct hws_host *h)
{
	return -ENODEV;
}
static int detect(void *p, char *why, size_t len)
{
	return 1;
}
static int encode(void *p, const struct hws_event_request *r, struct hws_event_desc *d, int max,
		  char *e, size_t l)
{
	return 0;
}
static int match_type7(void *p, const struct hws_perf_event_attr *a, const char *pmu)
{
	return a->type == 7;
}
static int match_none(void *p, const struct hws_perf_event_attr *a, const char *pmu)
{
	return 0;
}
static int decode(void *p, const struct hws_file_info *fi, const struct hws_record_sample *r,
		  struct hws_sample *s)
{
	return 0;
}
static int aux_decode(void *p, void *st, const struct hws_file_info *fi,
		      const struct hws_aux_chunk *c, hws_sample_fn emit, void *ctx)
{
	return 0;
}

static const char *const pmus_a[] = {"ibs_op", "ibs_fetch", NULL};
static const char *const pmus_b[] = {"arm_spe_", NULL};

#define OPS(nm, pm)                                                                                \
	{                                                                                          \
		.abi_version = HWS_BACKEND_ABI_VERSION, .size = sizeof(struct hws_backend_ops),    \
		.name = nm, .pmus = pm, .priv_size = sizeof(int), .init = init_ok,                 \
		.detect = detect, .encode = encode, .match = match_type7, .decode = decode         \
	}

/* The backends linked into this binary (backends/CMakeLists.txt generates the table). */
extern const hws_backend_entry_fn hws_static_backend_table[];

/* Each real backend given a host table cut at @size: the ones named in @must_refuse (they
 * need a member past @size) refuse with HWS_E_ABI_MISMATCH, the others start. Returns how
 * many refused. */
static int init_with_short_host(uint32_t size, const char *const *must_refuse)
{
	struct hws_host h = *hws_host__get();
	int refused = 0;

	h.size = size;
	for (int i = 0; hws_static_backend_table[i]; i++) {
		const struct hws_backend_ops *ops = hws_static_backend_table[i](&h);
		void *priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
		int ret = ops->init(priv, &h), needs = 0;
		char what[128];

		for (int k = 0; must_refuse[k]; k++)
			needs |= !strcmp(must_refuse[k], ops->name);
		snprintf(what, sizeof(what), "%s with a %u-byte host table", ops->name, size);
		T_EQ_U64(what, (uint64_t)(int64_t)ret,
			 (uint64_t)(int64_t)(needs ? HWS_E_ABI_MISMATCH : 0));
		refused += ret == HWS_E_ABI_MISMATCH;
		if (!ret && ops->fini)
			ops->fini(priv);
		free(priv);
	}
	return refused;
}

int main(void)
{
	struct hws_registry *reg = hws_registry__new();
	char err[512];
	int ret;

	struct hws_backend_ops a = OPS("amd_ibs", pmus_a);
	struct hws_backend_ops b = OPS("arm_spe", pmus_b);
	struct hws_backend_ops soft = OPS("soft", NULL); /* any name: the cap decides */
	struct hws_backend_ops named_sw = OPS("sw", NULL);

	soft.caps = HWS_CAP_SOFTWARE;
	soft.match = match_none;
	named_sw.match = match_none;
	named_sw.pmus = NULL;

	/* ABI checks, each with a message naming the plugin and the problem */
	struct hws_backend_ops bad = a;
	bad.abi_version = HWS_BACKEND_ABI_VERSION + 1;
	ret = hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err));
	__T("newer ABI refused", ret == HWS_E_ABI_MISMATCH);
	__T("message names the versions",
	    strstr(err, "x.so: backend plugin ABI version 4, this hwsample supports 3..3: "
			"rebuild") != NULL);
	bad = a;
	bad.abi_version = 2; /* host-sized attr, HWS_CAP_AUX_SAMPLE_WRITABLE: never installed */
	__T("older ABI 2 refused",
	    hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err)) == HWS_E_ABI_MISMATCH);
	__T("ABI 2 message", strstr(err, "ABI version 2, this hwsample supports 3..3") != NULL);
	bad = a;
	bad.abi_version = 0;
	__T("ABI 0 refused",
	    hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err)) == HWS_E_ABI_MISMATCH);
	bad = a;
	bad.size = 16;
	__T("short ops table refused",
	    hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err)) == HWS_E_ABI_MISMATCH);
	__T("short ops message", strstr(err, "ops table is 16 bytes, version 1 needs at least"));
	bad.size = HWS_OPS_SIZE_V1 - 8; /* raw_json cut off */
	__T("ops table one member short refused",
	    hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err)) == HWS_E_ABI_MISMATCH);
	{
		/* exactly version 1: accepted, and the appended auxtrace_info is not there */
		static struct hws_backend_ops v1; /* the registry keeps this pointer */

		v1 = a;
		v1.name = "v1";
		v1.pmus = NULL;
		v1.match = match_none;
		v1.size = HWS_OPS_SIZE_V1;
		v1.auxtrace_info = (void *)1; /* past the plugin's table: never read */
		__T("version-1 ops table accepted",
		    hws_registry__add(reg, &v1, "x.so", NULL, err, sizeof(err)) == 1);
		__T("HWS_OPS_HAS: not past the table", !HWS_OPS_HAS(&v1, auxtrace_info));
		__T("HWS_OPS_HAS: in the table", HWS_OPS_HAS(&v1, raw_json) == !!v1.raw_json);
	}
	bad = a;
	bad.encode = NULL;
	ret = hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err));
	__T("missing encode refused", ret == HWS_E_BAD_PLUGIN && strstr(err, "'encode'"));
	bad = a;
	bad.decode = NULL;
	bad.caps = HWS_CAP_AUX;
	ret = hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err));
	__T("CAP_AUX needs aux_decode", ret == HWS_E_BAD_PLUGIN && strstr(err, "aux_decode"));
	static struct hws_backend_ops auxok, nodecode; /* the registry keeps these pointers */
	auxok = bad;
	auxok.aux_decode = aux_decode;
	auxok.name = "auxok";
	auxok.pmus = NULL;
	auxok.match = match_none;
	__T("CAP_AUX with aux_decode accepted",
	    hws_registry__add(reg, &auxok, "x.so", NULL, err, sizeof(err)) == 1);
	nodecode = a;
	nodecode.name = "nodecode";
	nodecode.pmus = NULL;
	nodecode.match = match_none;
	nodecode.decode = NULL;
	__T("no decode: core's generic fields are the sample",
	    hws_registry__add(reg, &nodecode, "x.so", NULL, err, sizeof(err)) == 1);
	bad = a;
	bad.priv_size = (size_t)1 << 40;
	__T("absurd priv_size refused",
	    hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err)) == HWS_E_BAD_PLUGIN);
	bad = a;
	bad.init = init_fail;
	bad.name = "failing";
	ret = hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err));
	__T("init failure reported", ret == -ENODEV && strstr(err, "failed to initialise"));
	__T("failed backend not registered", hws_registry__find(reg, "failing") == NULL);
	bad = a;
	bad.init = init_needs_newer_host;
	bad.name = "newer";
	ret = hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err));
	__T("plugin needing a newer host refused", ret == HWS_E_ABI_MISMATCH);
	__T("newer host message", strstr(err, "x.so: backend 'newer' needs host functions this "
					      "hwsample") &&
				      strstr(err, "host table version 3"));
	__T("it is not registered", hws_registry__find(reg, "newer") == NULL);

	__T("add amd_ibs", hws_registry__add(reg, &a, "(static)", NULL, err, sizeof(err)) == 1);
	__T("add arm_spe", hws_registry__add(reg, &b, "(static)", NULL, err, sizeof(err)) == 1);
	__T("add sw (no cap)",
	    hws_registry__add(reg, &named_sw, "(static)", NULL, err, sizeof(err)) == 1);
	__T("add soft", hws_registry__add(reg, &soft, "(static)", NULL, err, sizeof(err)) == 1);
	__T("duplicate name ignored",
	    hws_registry__add(reg, &a, "(static)", NULL, err, sizeof(err)) == 0);
	/* v1, auxok, nodecode, amd_ibs, arm_spe, sw, soft */
	T_EQ_U64("count", hws_registry__count(reg), 7);
	__T("priv initialised by init()", *(int *)hws_registry__find(reg, "amd_ibs")->priv == 42);

	__T("find by name", hws_registry__find(reg, "amd_ibs")->ops == &a);
	__T("find by PMU", hws_registry__find(reg, "ibs_fetch")->ops == &a);
	__T("find by PMU prefix arm_spe_3", hws_registry__find(reg, "arm_spe_3")->ops == &b);
	__T("prefix without index (arm_spe)", hws_registry__find(reg, "arm_spe")->ops == &b);
	__T("no partial PMU match", hws_registry__find(reg, "ibs") == NULL);
	__T("unknown -> NULL", hws_registry__find(reg, "nosuch") == NULL);

	struct hws_perf_event_attr at = {.type = 7}, other = {.type = 1};
	__T("match picks the backend that claims the event",
	    hws_registry__match(reg, &at, NULL)->ops == &a);
	__T("unclaimed events fall back to the HWS_CAP_SOFTWARE backend, not to the name 'sw'",
	    hws_registry__match(reg, &other, NULL)->ops == &soft);
	hws_registry__delete(reg);

	/* the backends linked into this test binary */
	reg = hws_registry__new();
	ret = hws_registry__add_static(reg, err, sizeof(err));
	__T("static backends load", ret >= 1);
	__T("sw is built in", hws_registry__find(reg, "sw") != NULL);
	__T("software PMU served by sw", hws_registry__find(reg, "software") != NULL);
	__T("sw is the fallback",
	    hws_registry__match(reg, &other, NULL) == hws_registry__find(reg, "sw"));
	hws_registry__delete(reg);
	hws_registry__delete(NULL);

	/* the real backends and a host table cut short: those that use the version-3 members
	 * (cpuinfo, cpu_flag) refuse to start rather than call past its end; with the whole
	 * table every one starts */
	static const char *const v3_users[] = {"amd_ibs", "intel_pebs", NULL}, *none[] = {NULL};

	T_EQ_U64("backends refusing a version-1 host table",
		 init_with_short_host(HWS_HOST_SIZE_V1, v3_users), 2);
	T_EQ_U64("none refusing the whole table",
		 init_with_short_host(sizeof(struct hws_host), none), 0);
	TEST_END();
}
