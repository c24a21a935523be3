// SPDX-License-Identifier: MIT
/*
 * Arm SPE backend: the ops table. SPE writes records into the AUX area, so this backend
 * decodes AUX chunks (aux_decode) rather than PERF_RECORD_SAMPLEs. It serves every
 * arm_spe_<n> PMU (prefix rule) and the name "arm_spe".
 *
 * Invariants: priv is struct spe_priv (core-allocated, zeroed); per-stream state is
 * struct spe_stream (aux_stream_size). Only the host table is used to reach core.
 */
#include <errno.h>
#include <string.h>

#include "spe.h"

static int spe_init(void *priv, const struct hws_host *host)
{
	struct spe_priv *sp = priv;

	sp->host = host;
	return 0;
}

static int spe_match(void *priv, const struct hws_perf_event_attr *attr, const char *pmu_name)
{
	struct spe_priv *sp = priv;
	char names[16][HWS_PMU_NAME_MAX];
	struct hws_pmu *pmu;
	int n;

	if (pmu_name)
		return !strncmp(pmu_name, "arm_spe", 7);
	if (!attr || attr->type < PERF_TYPE_MAX)
		return 0;
	/* no PMU_MAPPINGS: compare with this machine's SPE PMUs */
	n = sp->host->pmu_list("arm_spe", names, 16);
	pmu = n > 0 ? __builtin_alloca(sizeof(*pmu)) : NULL;
	for (int i = 0; i < n && i < 16; i++)
		if (!sp->host->pmu_load(names[i], pmu) && pmu->type == attr->type)
			return 1;
	return 0;
}

/* PERF_RECORD_AUXTRACE_INFO: the v1 layout {PMU type, per-cpu-mmaps}, the one every perf
 * reads (6.1 rejects nothing but misreads v2; newer perf reads both). The MIDR then comes
 * from HEADER_CPUID, as perf does for v1. */
static int spe_auxtrace_info(void *priv, const struct hws_perf_event_attr *attr, int per_cpu,
			     uint32_t *type, uint64_t *words, int max)
{
	(void)priv;
	if (max < 2)
		return -ENOSPC;
	*type = 4; /* PERF_AUXTRACE_ARM_SPE */
	words[0] = attr->type;
	words[1] = per_cpu ? 1 : 0;
	return 2;
}

static const char *const spe_pmus[] = {"arm_spe_", NULL};

static const struct hws_backend_ops spe_ops = {
    .abi_version = HWS_BACKEND_ABI_VERSION,
    .size = sizeof(struct hws_backend_ops),
    .name = "arm_spe",
    .description = "Arm Statistical Profiling Extension (arm_spe_<n>, AUX area records)",
    .pmus = spe_pmus,
    .caps = HWS_CAP_AUX | HWS_CAP_PRECISE_IP | HWS_CAP_DATA_ADDR | HWS_CAP_PHYS_ADDR |
	    HWS_CAP_LATENCY | HWS_CAP_DATA_SRC, /* emit_record() sets fields, pid and tid of
						 * every record: see aux_decode in backend.h */
    .priv_size = sizeof(struct spe_priv),
    .aux_stream_size = sizeof(struct spe_stream),
    .init = spe_init,
    .detect = spe_detect,
    .encode = spe_encode,
    .match = spe_match,
    .aux_decode = spe_aux_decode,
    .aux_flush = spe_aux_flush,
    .controls = spe_controls,
    .raw_json = spe_raw_json,
    .auxtrace_info = spe_auxtrace_info,
    .coherence_source = "Arm SPE data source",
};

HWS_BACKEND_DEFINE(spe_ops)
