// SPDX-License-Identifier: MIT
/*
 * amd_ibs backend: the ops table. AMD Instruction-Based Sampling through the ibs_op and
 * ibs_fetch PMUs; samples arrive in the normal ring with the IBS MSRs in PERF_SAMPLE_RAW.
 *
 * Invariants: priv is a zeroed struct ibs_priv owned by core; the backend talks to core only
 * through the struct hws_host given to init(); decode() never allocates and never reads past
 * the RAW size.
 */
#include <string.h>

#include "ibs.h"

static const char *const ibs_pmus[] = {"ibs_op", "ibs_fetch", NULL};

static int ibs_init(void *priv, const struct hws_host *host)
{
	struct ibs_priv *p = priv;

	if (!HWS_HOST_HAS(host, cpuinfo) || !HWS_HOST_HAS(host, cpu_flag))
		return HWS_E_ABI_MISMATCH; /* a host older than the version-3 table */
	p->host = host;
	return 0;
}

static int ibs_detect_op(void *priv, char *why, size_t len)
{
	return ibs_detect(priv, why, len);
}

static int ibs_encode_op(void *priv, const struct hws_event_request *req,
			 struct hws_event_desc *out, int max, char *err, size_t errlen)
{
	return ibs_encode(priv, req, out, max, err, errlen);
}

static int ibs_match(void *priv, const struct hws_perf_event_attr *attr, const char *pmu_name)
{
	(void)priv;
	(void)attr;
	return pmu_name && (!strncmp(pmu_name, "ibs_op", 6) || !strncmp(pmu_name, "ibs_fetch", 9));
}

static const struct ibs_cpu *cpu_of(struct ibs_priv *p, const struct hws_file_info *fi)
{
	if (!fi) {
		memset(&p->cpu, 0, sizeof(p->cpu));
		p->fi = NULL;
		return &p->cpu;
	}
	if (p->fi != fi || p->fi_cpuid != fi->cpuid) {
		ibs_cpu__from_file(&p->cpu, fi);
		p->fi = fi;
		p->fi_cpuid = fi->cpuid;
	}
	return &p->cpu;
}

static int ibs_decode_op(void *priv, const struct hws_file_info *fi,
			 const struct hws_record_sample *rec, struct hws_sample *out)
{
	struct ibs_priv *p = priv;
	struct ibs_raw r;
	enum ibs_kind kind;
	int ret;

	out->backend = "amd_ibs";
	if (!rec->raw) {
		/* Recorded without PERF_SAMPLE_RAW (perf record -e ibs_op// without -R): keep
		 * what the kernel decoded itself (IP, ADDR, DATA_SRC, WEIGHT, PHYS_ADDR). */
		out->ip_precise = (rec->misc & PERF_RECORD_MISC_EXACT_IP) != 0;
		if (rec->sample_type & PERF_SAMPLE_DATA_SRC)
			p->host->data_src_normalize(rec->data_src, out);
		return 0;
	}
	kind = ibs_kind_of(rec->pmu_name, rec->raw_size);
	ret = ibs_raw__parse(rec->raw, rec->raw_size, kind, &r);
	if (ret)
		return ret;
	out->raw = rec->raw;
	out->raw_size = rec->raw_size;
	out->fields |= HWS_SF_RAW;
	return ibs_decode_raw(cpu_of(p, fi), &r, out, p->host);
}

static int ibs_raw_json(void *priv, const struct hws_file_info *fi, const struct hws_sample *s,
			struct hws_strbuf *sb)
{
	struct ibs_priv *p = priv;
	struct ibs_raw r;
	int ret;

	if (!s->raw)
		return HWS_E_BADREC;
	ret = ibs_raw__parse(s->raw, s->raw_size,
			     ibs_kind_of(s->event && strstr(s->event, "ibs_fetch") ? "ibs_fetch"
					 : s->event && strstr(s->event, "ibs_op")  ? "ibs_op"
										   : NULL,
					 s->raw_size),
			     &r);
	if (ret)
		return ret;
	return ibs_raw__json(cpu_of(p, fi), &r, p->host, sb);
}

static int ibs_controls_op(void *priv, const char *pmu, struct hws_control_info *out, int max)
{
	return ibs_controls(priv, pmu, out, max);
}

static const struct hws_backend_ops ibs_ops = {
    .abi_version = HWS_BACKEND_ABI_VERSION,
    .size = sizeof(struct hws_backend_ops),
    .name = "amd_ibs",
    .description = "AMD Instruction-Based Sampling (ibs_op: executed ops with data address, "
		   "latency and data source; ibs_fetch: instruction fetches)",
    .pmus = ibs_pmus,
    .caps = HWS_CAP_RAW | HWS_CAP_PRECISE_IP | HWS_CAP_DATA_ADDR | HWS_CAP_PHYS_ADDR |
	    HWS_CAP_LATENCY | HWS_CAP_DATA_SRC,
    .priv_size = sizeof(struct ibs_priv),
    .init = ibs_init,
    .detect = ibs_detect_op,
    .encode = ibs_encode_op,
    .match = ibs_match,
    .decode = ibs_decode_op,
    .controls = ibs_controls_op,
    .raw_json = ibs_raw_json,
    .coherence_source = "AMD IBS DataSrc/CacheHitSt",
};

HWS_BACKEND_DEFINE(ibs_ops)
