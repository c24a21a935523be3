// SPDX-License-Identifier: MIT
/*
 * Backend registry: ABI checks (version, size, required callbacks, limits), lookup by
 * backend name / PMU / PMU prefix, match() fallback to "sw", init failures, and the static
 * table holding the backends built into this binary.
 */
#include <errno.h>
#include <string.h>

#include <hwsample/registry.h>

#include "tests.h"

static int init_ok(void *p, const struct hws_host *h)
{
	__T("host table has version 1", h->abi_version == HWS_BACKEND_ABI_VERSION && h->size >= 8);
	__T("host has pmu_load", h->pmu_load != NULL);
	*(int *)p = 42;
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
static int match_type7(void *p, const struct perf_event_attr *a, const char *pmu)
{
	return a->type == 7;
}
static int match_none(void *p, const struct perf_event_attr *a, const char *pmu)
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

static const char *const pmus_a[] = { "ibs_op", "ibs_fetch", NULL };
static const char *const pmus_b[] = { "arm_spe_", NULL };

#define OPS(nm, pm)                                                                          \
	{ .abi_version = HWS_BACKEND_ABI_VERSION, .size = sizeof(struct hws_backend_ops),    \
	  .name = nm, .pmus = pm, .priv_size = sizeof(int), .init = init_ok, .detect = detect, \
	  .encode = encode, .match = match_type7, .decode = decode }

int main(void)
{
	struct hws_registry *reg = hws_registry__new();
	char err[512];
	int ret;

	struct hws_backend_ops a = OPS("amd_ibs", pmus_a);
	struct hws_backend_ops b = OPS("arm_spe", pmus_b);
	struct hws_backend_ops sw = OPS("sw", NULL);

	/* ABI checks, each with a message naming the plugin and the problem */
	struct hws_backend_ops bad = a;
	bad.abi_version = HWS_BACKEND_ABI_VERSION + 1;
	ret = hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err));
	__T("newer ABI refused", ret == HWS_E_ABI_MISMATCH);
	__T("message names the versions",
	    strstr(err, "x.so: backend plugin ABI version 3") != NULL);
	bad = a;
	bad.abi_version = 1; /* before hws_event_desc carried config3/config4 */
	__T("ABI 1 refused",
	    hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err)) == HWS_E_ABI_MISMATCH);
	__T("ABI 1 message", strstr(err, "supports 2..2") != NULL);
	bad = a;
	bad.abi_version = 0;
	__T("ABI 0 refused", hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err)) ==
				    HWS_E_ABI_MISMATCH);
	bad = a;
	bad.size = 16;
	__T("short ops table refused", hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err)) ==
					       HWS_E_ABI_MISMATCH);
	bad = a;
	bad.encode = NULL;
	ret = hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err));
	__T("missing encode refused", ret == HWS_E_BAD_PLUGIN && strstr(err, "'encode'"));
	bad = a;
	bad.decode = NULL;
	ret = hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err));
	__T("missing decode refused without CAP_AUX", ret == HWS_E_BAD_PLUGIN && strstr(err, "decode"));
	bad.caps = HWS_CAP_AUX;
	ret = hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err));
	__T("CAP_AUX needs aux_decode", ret == HWS_E_BAD_PLUGIN && strstr(err, "aux_decode"));
	static struct hws_backend_ops auxok; /* the registry keeps this pointer */
	auxok = bad;
	auxok.aux_decode = aux_decode;
	auxok.name = "auxok";
	auxok.pmus = NULL;
	auxok.match = match_none;
	__T("CAP_AUX with aux_decode accepted", hws_registry__add(reg, &auxok, "x.so", NULL, err,
								 sizeof(err)) == 1);
	bad = a;
	bad.priv_size = (size_t)1 << 40;
	__T("absurd priv_size refused", hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err)) ==
						HWS_E_BAD_PLUGIN);
	bad = a;
	bad.init = init_fail;
	bad.name = "failing";
	ret = hws_registry__add(reg, &bad, "x.so", NULL, err, sizeof(err));
	__T("init failure reported", ret == -ENODEV && strstr(err, "failed to initialise"));
	__T("failed backend not registered", hws_registry__find(reg, "failing") == NULL);

	__T("add amd_ibs", hws_registry__add(reg, &a, "(static)", NULL, err, sizeof(err)) == 1);
	__T("add arm_spe", hws_registry__add(reg, &b, "(static)", NULL, err, sizeof(err)) == 1);
	__T("add sw", hws_registry__add(reg, &sw, "(static)", NULL, err, sizeof(err)) == 1);
	__T("duplicate name ignored", hws_registry__add(reg, &a, "(static)", NULL, err, sizeof(err)) == 0);
	T_EQ_U64("count", hws_registry__count(reg), 4); /* auxok, amd_ibs, arm_spe, sw */
	__T("priv initialised by init()", *(int *)hws_registry__find(reg, "amd_ibs")->priv == 42);

	__T("find by name", hws_registry__find(reg, "amd_ibs")->ops == &a);
	__T("find by PMU", hws_registry__find(reg, "ibs_fetch")->ops == &a);
	__T("find by PMU prefix arm_spe_3", hws_registry__find(reg, "arm_spe_3")->ops == &b);
	__T("prefix without index (arm_spe)", hws_registry__find(reg, "arm_spe")->ops == &b);
	__T("no partial PMU match", hws_registry__find(reg, "ibs") == NULL);
	__T("unknown -> NULL", hws_registry__find(reg, "nosuch") == NULL);

	struct perf_event_attr at = { .type = 7 }, other = { .type = 1 };
	__T("match picks the backend that claims the event",
	    hws_registry__match(reg, &at, NULL)->ops == &a);
	__T("unclaimed events fall back to sw", hws_registry__match(reg, &other, NULL)->ops == &sw);
	hws_registry__delete(reg);

	/* the backends linked into this test binary */
	reg = hws_registry__new();
	ret = hws_registry__add_static(reg, err, sizeof(err));
	__T("static backends load", ret >= 1);
	__T("sw is built in", hws_registry__find(reg, "sw") != NULL);
	__T("software PMU served by sw", hws_registry__find(reg, "software") != NULL);
	hws_registry__delete(reg);
	hws_registry__delete(NULL);
	TEST_END();
}
