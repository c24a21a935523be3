// SPDX-License-Identifier: MIT
/*
 * intel_pebs backend: the ops table.
 *
 * PEBS samples arrive in the normal ring: the kernel turns each PEBS record into sample
 * fields, so this backend has no AUX stream. It encodes memory-sampling events for the
 * running microarchitecture (pebs_encode.c) and gives the kernel's fields their meaning
 * in struct hws_sample (pebs_decode.c).
 *
 * Invariants: the private state is only the host table; libpfm4 state is process-global
 * and released in fini.
 */
#include <string.h>

#include "pebs_priv.h"

static int pebs_init(void *priv, const struct hws_host *host)
{
	struct pebs_priv *p = priv;

	if (!HWS_HOST_HAS(host, cpuinfo) || !HWS_HOST_HAS(host, cpu_flag))
		return HWS_E_ABI_MISMATCH; /* a host older than the version-3 table */
	p->host = host;
	return 0;
}

static void pebs_fini(void *priv)
{
	pebs_pfm_release();
}

static int pebs_detect(void *priv, char *why, size_t len)
{
	int ret = pebs_check_available(priv, 1, why, len);

	return ret ? ret : 100;
}

static int pebs_encode_op(void *priv, const struct hws_event_request *req,
			  struct hws_event_desc *out, int max, char *err, size_t errlen)
{
	return pebs_encode(priv, req, out, max, err, errlen);
}

static int pebs_match(void *priv, const struct hws_perf_event_attr *attr, const char *pmu_name)
{
	if (pmu_name && (!strcmp(pmu_name, "cpu") || !strcmp(pmu_name, "cpu_core") ||
			 !strcmp(pmu_name, "cpu_atom")))
		return 1;
	if (attr->type == PERF_TYPE_RAW)
		return 1;
	if (attr->type == PERF_TYPE_HARDWARE && attr->precise_ip &&
	    (attr->sample_type &
	     (PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)))
		return 1;
	return 0;
}

static int pebs_decode_op(void *priv, const struct hws_file_info *fi,
			  const struct hws_record_sample *rec, struct hws_sample *out)
{
	return pebs_decode(priv, fi, rec, out);
}

static int pebs_controls_op(void *priv, const char *pmu, struct hws_control_info *out, int max)
{
	return pebs_controls(priv, pmu, out, max);
}

static int pebs_raw_json_op(void *priv, const struct hws_file_info *fi, const struct hws_sample *s,
			    struct hws_strbuf *out)
{
	return pebs_raw_json(priv, fi, s, out);
}

static const char *const pebs_pmus[] = {"cpu", "cpu_core", "cpu_atom", "intel_pebs", NULL};

static const struct hws_backend_ops pebs_ops = {
    .abi_version = HWS_BACKEND_ABI_VERSION,
    .size = sizeof(struct hws_backend_ops),
    .name = "intel_pebs",
    .description = "Intel PEBS: precise IP, data address, load latency, data source "
		   "(libpfm4 event names, mem-loads/mem-stores)",
    .pmus = pebs_pmus,
    .caps = HWS_CAP_PRECISE_IP | HWS_CAP_DATA_ADDR | HWS_CAP_PHYS_ADDR | HWS_CAP_LATENCY |
	    HWS_CAP_DATA_SRC,
    .priv_size = sizeof(struct pebs_priv),
    .init = pebs_init,
    .fini = pebs_fini,
    .detect = pebs_detect,
    .encode = pebs_encode_op,
    .match = pebs_match,
    .decode = pebs_decode_op,
    .controls = pebs_controls_op,
    .raw_json = pebs_raw_json_op,
    .coherence_source = "Intel PEBS data_src",
};

HWS_BACKEND_DEFINE(pebs_ops)
