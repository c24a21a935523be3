/* SPDX-License-Identifier: MIT */
/*
 * intel_pebs backend internals, shared by pebs.c (ops table), pebs_encode.c (event name ->
 * perf_event_attr through libpfm4 and sysfs) and pebs_decode.c (kernel sample fields ->
 * struct hws_sample).
 *
 * Invariants:
 *  - Nothing here is vendor-neutral core code: the backend only talks to core through the
 *    struct hws_host it was given at init.
 *  - Config bit positions and PMU types come from sysfs (<root>/bus/event_source/devices/
 *    <pmu>/{type,format,caps,events}); per-model facts live in the const table
 *    pebs_models[] (pebs_tables.c), keyed by the kernel's caps/pmu_name.
 *  - The decoder is pure: it reads only the already parsed struct hws_record_sample.
 */
#ifndef HWS_PEBS_PRIV_H
#define HWS_PEBS_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include <hwsample/backend.h>

#define PEBS_LDLAT_MIN	   3
#define PEBS_LDLAT_MAX	   65535
#define PEBS_LDLAT_DEFAULT 30	/* perf mem's default */
#define PEBS_DEFAULT_FREQ  4000 /* perf record's default -F */

#define PEBS_DS_CACHE_BITS 8
#define PEBS_DS_CACHE	   (1 << PEBS_DS_CACHE_BITS)

/* raw_json's memo of data_src -> JSON text (the kernel builds data_src from small tables,
 * so few distinct values occur). Not shared between instances; not thread-safe, like the
 * instance itself. */
struct pebs_ds_cache {
	uint64_t key;
	uint16_t len; /* 0: empty */
	char text[374];
};

struct pebs_priv {
	const struct hws_host *host;
	struct pebs_ds_cache ds_cache[PEBS_DS_CACHE];
};

/* How precise_ip=3 is granted on a model. */
enum pebs_p3_rule {
	PEBS_P3_ANY,   /* any PEBS event up to caps/max_precise (NHM..SKL/CLX) */
	PEBS_P3_PDIST, /* only Precise-Distribution events (ICL+: INST_RETIRED.PREC_DIST...) */
};

/* Per-microarchitecture facts, keyed by sysfs caps/pmu_name. */
struct pebs_model {
	const char *pmu_name; /* kernel caps/pmu_name ("skylake", "alderlake_hybrid") */
	const char *desc;
	enum pebs_p3_rule p3;
	/* Kernel event aliases (Linux arch/x86/events/intel/core.c), used when sysfs has no
	 * events/<alias> file. For hybrid models: [0] big core (cpu_core), [1] cpu_atom. */
	const char *mem_loads[2];
	const char *mem_stores[2];
	const char *mem_loads_aux[2]; /* NULL: the core does not need the aux leader */
	const char *pfm_pmu[2];	      /* libpfm4 PMU name to qualify events (hybrid), or NULL */
	const char *pdist_events;     /* comma list of events granted precise=3 (P3_PDIST) */
};

extern const struct pebs_model pebs_models[];
const struct pebs_model *pebs_model__find(const char *pmu_name);

/* One named field of perf_mem_data_src. */
struct pebs_ds_field {
	const char *name;
	uint8_t shift, width;
	const char *const *bits; /* names of bits (bitmask field) or NULL */
	const char *const *vals; /* names of values (enumerated field) or NULL */
	uint8_t nr_vals;
};

extern const struct pebs_ds_field pebs_ds_fields[];
extern const size_t pebs_nr_ds_fields;

/* pebs_encode.c */
int pebs_encode(struct pebs_priv *p, const struct hws_event_request *req,
		struct hws_event_desc *out, int max, char *err, size_t errlen);
int pebs_controls(struct pebs_priv *p, const char *pmu, struct hws_control_info *out, int max);
/* Which PMUs exist under the sysfs root: "cpu" or the hybrid pair. Returns how many
 * names were written (0: none). */
int pebs_core_pmus(struct pebs_priv *p, char (*names)[HWS_PMU_NAME_MAX], int max);
/* Why PEBS cannot be used here ("" when it can); 0 usable, negative otherwise. */
int pebs_check_available(struct pebs_priv *p, int check_vendor, char *why, size_t len);
/* Release libpfm4 (fini). */
void pebs_pfm_release(void);

/* pebs_decode.c */
int pebs_decode(struct pebs_priv *p, const struct hws_file_info *fi,
		const struct hws_record_sample *rec, struct hws_sample *out);
int pebs_raw_json(struct pebs_priv *p, const struct hws_file_info *fi, const struct hws_sample *s,
		  struct hws_strbuf *out);
/* Write the decoded perf_mem_data_src fields of @v as a JSON object. */
int pebs_data_src_json(const struct hws_host *host, uint64_t v, struct hws_strbuf *out);

#endif
