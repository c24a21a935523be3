/* SPDX-License-Identifier: MIT */
/*
 * amd_ibs backend internals shared by ibs.c, ibs_encode.c and ibs_decode.c.
 *
 * Invariants: the decoder works on a struct ibs_raw that ibs_raw__parse() filled from a
 * PERF_SAMPLE_RAW blob without reading past its size; struct ibs_cpu holds what the file
 * (or the live host) says about the CPU, parsed once and cached in the backend's priv.
 */
#ifndef HWS_IBS_H
#define HWS_IBS_H

#include <stdbool.h>
#include <stdint.h>

#include <hwsample/backend.h>

#include "ibs_regs.h"

enum ibs_kind {
	IBS_KIND_UNKNOWN = 0,
	IBS_KIND_FETCH,
	IBS_KIND_OP,
};

/* What decoding needs to know about the CPU that recorded the samples. */
struct ibs_cpu {
	unsigned int family; /* 0 = unknown */
	unsigned int model;
	bool zen4;	  /* IBS Zen 4 extensions: 5-bit DataSrc, L3MissOnly, TlbRefillLat */
	bool dtlb_pgsize; /* Zen 5: IbsOpData3[5:4] is the page size */
};

/* A parsed RAW blob. */
struct ibs_raw {
	enum ibs_kind kind;
	uint32_t caps;
	uint32_t nr; /* registers present */
	uint64_t reg[IBS_MAX_REGS];
	int8_t br_target; /* index of IbsBrTarget, -1 if absent */
	int8_t op_data4;  /* index of IbsOpData4, -1 if absent */
	int8_t extd_ctl;  /* index of IcIbsExtdCtl, -1 if absent */
};

struct ibs_priv {
	const struct hws_host *host;
	/* decode cache, keyed by the file info it was computed from */
	const struct hws_file_info *fi;
	const char *fi_cpuid;
	struct ibs_cpu cpu;
	/* loaded PMUs, for encode/controls */
	struct hws_pmu pmu;
};

/* Kind of raw blob from the PMU name (may be NULL) and its size. */
enum ibs_kind ibs_kind_of(const char *pmu_name, uint32_t raw_size);
/* 0, or HWS_E_BADREC when the blob is too short for @kind. */
int ibs_raw__parse(const void *raw, uint32_t size, enum ibs_kind kind, struct ibs_raw *out);
/* Parse "AuthenticAMD,25,17,1" and the caps into @cpu. */
void ibs_cpu__from_file(struct ibs_cpu *cpu, const struct hws_file_info *fi);
void ibs_cpu__from_cpuid(struct ibs_cpu *cpu, const char *cpuid);
/* Erratum helpers (family 19h models 00h-0Fh = Zen 3 "Milan" class parts). */
bool ibs_cpu__erratum_1293(const struct ibs_cpu *cpu);
bool ibs_cpu__cache_hit_st_valid(const struct ibs_cpu *cpu);

/* The kernel's IBS op -> perf_mem_data_src mapping (Linux arch/x86/events/amd/ibs.c,
 * perf_ibs_parse_ld_st_data() and the perf_ibs_get_*() it calls). */
uint64_t ibs_op_data_src(const struct ibs_cpu *cpu, uint64_t data2, uint64_t data3);
/* Fill @s from @r. Returns 0 or HWS_DECODE_SKIP (Val/En clear, erratum #1197). */
int ibs_decode_raw(const struct ibs_cpu *cpu, const struct ibs_raw *r, struct hws_sample *s,
		   const struct hws_host *host);
/* Append every register field of @r as one JSON object. */
int ibs_raw__json(const struct ibs_cpu *cpu, const struct ibs_raw *r, const struct hws_host *host,
		  struct hws_strbuf *out);

int ibs_encode(struct ibs_priv *p, const struct hws_event_request *req, struct hws_event_desc *out,
	       int max, char *err, size_t errlen);
int ibs_controls(struct ibs_priv *p, const char *pmu, struct hws_control_info *out, int max);
int ibs_detect(struct ibs_priv *p, char *why, size_t len);

/* The host's cpuinfo facts (host->cpuinfo: /proc/cpuinfo, or a fake machine's). */
struct ibs_host_cpu {
	bool found;
	bool amd;
	bool ibs_flag;
	bool hypervisor;
	unsigned int family, model;
	char vendor[32];
};
void ibs_host_cpu__read(struct ibs_host_cpu *hc, const struct hws_host *host);

#endif
