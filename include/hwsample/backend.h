/* SPDX-License-Identifier: MIT */
/*
 * hwsample backend plugin ABI.
 *
 * A backend is a table of ops (struct hws_backend_ops) exported by one symbol,
 * HWS_BACKEND_ENTRY. It is built twice: as a dlopen-able module (hws-<name>.so) and as an
 * object library linked statically into tests and the CLI fallback.
 *
 * Rules:
 *  - The ABI is versioned and append-only. abi_version/size open the ops struct; new
 *    callbacks only go at the end, under a new "version N" comment. The loader refuses a
 *    plugin whose abi_version is newer than the core's, or whose size is smaller than the
 *    version-1 layout, or which lacks a required callback.
 *  - A backend includes only <hwsample/...> headers and calls core only through the
 *    struct hws_host it is given: plugins have no undefined symbols into core.
 *  - Core allocates priv_size zeroed bytes per backend instance (and aux_stream_size per
 *    AUX stream) and passes them in; backends malloc nothing per session.
 *  - decode / aux_decode are pure with respect to their input: they never read past the
 *    given length and never allocate.
 */
#ifndef HWSAMPLE_BACKEND_H
#define HWSAMPLE_BACKEND_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include <hwsample/errors.h>
#include <hwsample/pmu.h>
#include <hwsample/sample.h>
#include <hwsample/strbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: struct hws_event_desc carries config3/config4 right after attr (older plugins refused) */
#define HWS_BACKEND_ABI_VERSION 2
#define HWS_BACKEND_ABI_MIN	2

/* Capability bits (struct hws_backend_ops::caps). Core picks ring or AUX mode from them. */
enum hws_backend_cap {
	HWS_CAP_AUX = 1ULL << 0,       /* samples arrive in an AUX area */
	HWS_CAP_PHYS_ADDR = 1ULL << 1,
	HWS_CAP_LATENCY = 1ULL << 2,
	HWS_CAP_DATA_SRC = 1ULL << 3,
	HWS_CAP_PRECISE_IP = 1ULL << 4,
	HWS_CAP_RAW = 1ULL << 5,       /* vendor record in PERF_SAMPLE_RAW */
	HWS_CAP_SOFTWARE = 1ULL << 6,  /* works without sampling hardware */
	HWS_CAP_DATA_ADDR = 1ULL << 7,
	/* decode() adds nothing to what core fills in for a sample (it only reads): core may
	 * leave it uncalled */
	HWS_CAP_DECODE_GENERIC = 1ULL << 8,
	/* aux_decode() hands @emit samples core may write to: sz, attr_idx, event, backend, and
	 * pid, tid and HWS_SF_PID in fields when it finds the task from context switches. The
	 * backend writes those members (or all of fields, pid and tid) again for every sample.
	 * Without it core copies each sample first (192 bytes just written member by member:
	 * the copy's wide loads wait for the narrow stores, 5% of an SPE dump). */
	HWS_CAP_AUX_SAMPLE_WRITABLE = 1ULL << 9,
};

/* What core offers a backend. All members present in version 1 are non-NULL. */
struct hws_host {
	uint32_t abi_version;
	uint32_t size;
	const char *version; /* hwsample version string */
	void (*log)(enum hws_log_level level, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
	const char *(*sysfs_root)(void);
	int (*pmu_load)(const char *name, struct hws_pmu *pmu);
	int (*pmu_set)(const struct hws_pmu *pmu, const char *name, uint64_t value,
		       struct perf_event_attr *attr, char *err, size_t errlen);
	const struct hws_pmu_format *(*pmu_format)(const struct hws_pmu *pmu, const char *name);
	const char *(*pmu_cap)(const struct hws_pmu *pmu, const char *name);
	int (*pmu_list)(const char *prefix, char (*names)[HWS_PMU_NAME_MAX], int max);
	void (*data_src_normalize)(uint64_t data_src, struct hws_sample *s);
	int (*strbuf_addf)(struct hws_strbuf *sb, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
	int (*strbuf_add_json_str)(struct hws_strbuf *sb, const char *s);
	/* append @len raw bytes (fast path for formatters that render into a local buffer) */
	int (*strbuf_add)(struct hws_strbuf *sb, const void *data, size_t len);
	/* tracefs mount point, mounting tracefs (and saying so) if missing; NULL if none, with
	 * errno EACCES (mounted, not readable by this user), EPERM (not mounted, mounting it
	 * needs root) or another errno (absent: the mount failed with it) */
	const char *(*tracefs_dir)(void);
	/* version 1 ends here */
};

/* key=value control as the user wrote it. */
struct hws_control {
	const char *key;
	const char *value; /* never NULL; "1" when the user wrote a bare key */
};

/* struct hws_event_request::flags */
enum hws_request_flag {
	HWS_REQ_PER_THREAD = 1U << 0,  /* --per-thread */
	HWS_REQ_SYSTEM_WIDE = 1U << 1, /* -a or -C: per-CPU, no pid */
	HWS_REQ_PHYS_ADDR = 1U << 2,   /* user wants physical addresses */
	HWS_REQ_DRY_RUN = 1U << 3,     /* encode only; fake sysfs allowed */
	HWS_REQ_C2C = 1U << 4,         /* c2c record: loads + stores with what c2c needs */
	HWS_REQ_LDLAT = 1U << 5,       /* ldlat is set (appended after version 2) */
};

/* One event the user asked for, handed to ops->encode. */
struct hws_event_request {
	uint32_t sz;
	uint32_t flags;		 /* HWS_REQ_* */
	const char *pmu;	 /* PMU chosen with -b (e.g. "ibs_op"), or NULL: backend default */
	const char *event;	 /* one -e name, or NULL: backend default */
	const struct hws_control *controls;
	uint32_t nr_controls;
	uint32_t kernel_version; /* KERNEL_VERSION(a,b,c) of the (possibly faked) kernel */
	uint64_t period;	 /* -c, 0 = not given */
	uint64_t freq;		 /* -F, 0 = not given */
	/* ---- appended after version 2: read with hws_event_request__ldlat() ---- */
	/* with HWS_REQ_LDLAT: the load latency threshold in cycles of a c2c request (c2c record
	 * --ldlat), for backends whose c2c events filter loads by latency */
	uint32_t ldlat;
};

/* @req's load latency threshold if it carries one (HWS_REQ_LDLAT), else @def */
static inline uint64_t hws_event_request__ldlat(const struct hws_event_request *req, uint64_t def)
{
	if (!(req->flags & HWS_REQ_LDLAT) ||
	    req->sz < offsetof(struct hws_event_request, ldlat) + sizeof(req->ldlat))
		return def;
	return req->ldlat;
}

#define HWS_KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))

/* struct hws_event_desc::flags */
enum hws_event_flag {
	HWS_EVF_AUX = 1U << 0,		/* map an AUX area for this event */
	HWS_EVF_CPU_ONLY = 1U << 1,	/* cannot be opened per task: needs -a / -C */
	HWS_EVF_NO_INHERIT = 1U << 2,
	HWS_EVF_PERIOD_SKEW = 1U << 3,	/* effective period unreliable (e.g. IBS l3missonly) */
};

/* One event to open, produced by ops->encode. Core adds the mode bits (inherit,
 * disabled/enable_on_exec, sample_id_all, mmap/comm tracking, IDENTIFIER...). */
struct hws_event_desc {
	struct perf_event_attr attr;
	/*
	 * perf_event_attr words newer than this build's uapi header, where the kernel looks
	 * for them: directly after the struct (config3: attr bytes 128..135, Linux 6.3+;
	 * config4: 136..143). hws_event_desc__config() finds them whichever header is used;
	 * core passes attr.size 136/144 to the kernel only when they are non-zero.
	 */
#ifndef PERF_ATTR_SIZE_VER8
	uint64_t attr_config3;
#endif
#ifndef PERF_ATTR_SIZE_VER9
	uint64_t attr_config4;
#endif
	char name[128];		    /* display name, e.g. "ibs_op/l3missonly=1/" */
	char pmu[HWS_PMU_NAME_MAX]; /* PMU it is opened on ("software", "ibs_op", ...) */
	int32_t group_leader;	    /* index (in this encode's output) of its leader, -1 none */
	uint32_t flags;		    /* HWS_EVF_* */
};

/* config word @n (3 or 4) of @d: inside attr on newer uapi headers, after it otherwise */
static inline uint64_t *hws_event_desc__config(struct hws_event_desc *d, unsigned int n)
{
	return (uint64_t *)(void *)((char *)&d->attr + 128 + 8 * (n - 3));
}

/* attr.size to pass to the kernel: the smallest that carries every non-zero word */
static inline uint32_t hws_event_desc__attr_size(struct hws_event_desc *d)
{
	if (*hws_event_desc__config(d, 4))
		return 144;
	if (*hws_event_desc__config(d, 3))
		return 136;
	return sizeof(struct perf_event_attr) < 136 ? sizeof(struct perf_event_attr) : 136;
}

/* A control a backend accepts, for `hwsample list`, errors and completion. */
struct hws_control_info {
	char name[48];
	char help[128];
	uint64_t min;
	uint64_t max;
	uint64_t def;
};

/* SPE/IBS-style time conversion (PERF_RECORD_TIME_CONV or the mmap page). */
struct hws_time_conv {
	uint64_t time_shift;
	uint64_t time_mult;
	uint64_t time_zero;
	uint64_t time_cycles;
	uint64_t time_mask;
	uint8_t cap_user_time_zero;
	uint8_t cap_user_time_short;
};

/* What is known about the machine a recording came from (file headers, or the live host). */
struct hws_file_info {
	uint32_t sz;
	uint32_t nr_cpus;
	const char *arch;    /* HEADER_ARCH, e.g. "x86_64", "aarch64"; may be NULL */
	const char *cpuid;   /* HEADER_CPUID, e.g. "AuthenticAMD,25,17,1"; may be NULL */
	const char *cpudesc; /* HEADER_CPUDESC; may be NULL */
	/* HEADER_PMU_CAPS / sysfs caps lookup: value of <pmu>/caps/<cap>, or NULL. */
	const char *(*pmu_cap)(const struct hws_file_info *fi, const char *pmu, const char *cap);
	const void *pmu_cap_ctx;
	/* PERF_RECORD_AUXTRACE_INFO, when the file has one. */
	uint32_t auxtrace_type;
	uint32_t nr_auxtrace_priv;
	const uint64_t *auxtrace_priv;
	const struct hws_time_conv *time_conv; /* NULL if none */
	/* HEADER_TRACING_DATA blob (tracepoint formats), NULL if none. */
	const void *tracing_data;
	uint64_t tracing_data_size;
	/* CPUID as the file's MIDR for one CPU (Arm), 0 if unknown. */
	uint64_t (*cpu_midr)(const struct hws_file_info *fi, int cpu);
};

/* A PERF_RECORD_SAMPLE split by sample_type (core/sample.c). Pointers point into the
 * record and are valid for the duration of the decode call. */
struct hws_record_sample {
	const struct perf_event_attr *attr;
	const char *pmu_name; /* from PMU_MAPPINGS / the session; may be NULL */
	uint64_t sample_type;
	uint16_t misc;
	uint32_t pid, tid, cpu;
	uint64_t ip, time, addr, id, stream_id, period;
	uint64_t weight; /* WEIGHT or WEIGHT_STRUCT */
	uint64_t data_src, transaction, phys_addr, cgroup, data_page_size, code_page_size;
	const void *raw;
	uint32_t raw_size;
	uint64_t nr_callchain;
	const uint64_t *callchain;
	uint64_t nr_branches;
	const void *branches; /* {from, to, flags} x nr */
	uint64_t aux_size;
	const void *aux;
	const void *read; /* read_format block */
	uint32_t read_size;
};

/* ops->decode may return this to say "valid record, but no sample" (e.g. IBS Val clear);
 * core counts it per event as skipped. */
#define HWS_DECODE_SKIP 1

/* One chunk of AUX data, as carried by PERF_RECORD_AUXTRACE. */
struct hws_aux_chunk {
	const void *data;
	uint64_t size;
	uint64_t offset;    /* position in the AUX stream */
	uint64_t reference; /* PMU-specific (timestamp) */
	uint32_t idx;	    /* mmap index (stream) */
	uint32_t cpu;	    /* (u32)-1 in per-thread mode */
	uint32_t tid;
	uint32_t gap;	    /* 1: data before this chunk was lost (TRUNCATED, snapshot, ...) */
	const struct perf_event_attr *attr;
};

struct hws_backend_ops {
	uint32_t abi_version; /* HWS_BACKEND_ABI_VERSION the plugin was built against */
	uint32_t size;	      /* sizeof(struct hws_backend_ops) as the plugin knows it */

	/* ---- version 1 ---- */
	const char *name;	 /* "amd_ibs" */
	const char *description;
	const char *const *pmus; /* NULL-terminated PMU names it serves ("ibs_op", "ibs_fetch");
				  * a name ending in '_' matches by prefix ("arm_spe_") */
	uint64_t caps;		 /* HWS_CAP_* */
	size_t priv_size;	 /* bytes core allocates for each instance */
	size_t aux_stream_size;	 /* bytes core allocates per AUX stream (HWS_CAP_AUX) */

	/* required: called once after the instance is allocated. */
	int (*init)(void *priv, const struct hws_host *host);
	/* optional */
	void (*fini)(void *priv);
	/* required: > 0 usable here (higher = better for -b auto), 0 or < 0 not usable,
	 * with the reason (what hardware/kernel/permission is missing) in @why. */
	int (*detect)(void *priv, char *why, size_t len);
	/* required: turn a request into events. Returns how many descs were written
	 * (<= max) or a negative error with an actionable message in @err. */
	int (*encode)(void *priv, const struct hws_event_request *req, struct hws_event_desc *out,
		      int max, char *err, size_t errlen);
	/* required: non-zero if this backend decodes samples of this event in a file.
	 * @pmu_name comes from HEADER_PMU_MAPPINGS and may be NULL. */
	int (*match)(void *priv, const struct perf_event_attr *attr, const char *pmu_name);
	/* optional (required without HWS_CAP_AUX): decode one sample. Core has already filled
	 * the generic fields of @out (time, cpu, pid, tid, period, id, ip, addr, ...).
	 * Returns 0, HWS_DECODE_SKIP, or HWS_E_BADREC. */
	int (*decode)(void *priv, const struct hws_file_info *fi, const struct hws_record_sample *rec,
		      struct hws_sample *out);
	/* optional (required with HWS_CAP_AUX): decode an AUX chunk of stream @stream
	 * (aux_stream_size bytes, zeroed at stream start), calling @emit per sample.
	 * Returns 0, the non-zero value @emit returned, or a negative error. */
	int (*aux_decode)(void *priv, void *stream, const struct hws_file_info *fi,
			  const struct hws_aux_chunk *chunk, hws_sample_fn emit, void *ctx);
	/* optional: end of stream, flush a partial record. */
	int (*aux_flush)(void *priv, void *stream, const struct hws_file_info *fi,
			 hws_sample_fn emit, void *ctx);
	/* optional: controls of @pmu (NULL: the default PMU). Returns count (may exceed max). */
	int (*controls)(void *priv, const char *pmu, struct hws_control_info *out, int max);
	/* optional: append the decoded vendor fields of @s as one JSON object ("{...}"). */
	int (*raw_json)(void *priv, const struct hws_file_info *fi, const struct hws_sample *s,
			struct hws_strbuf *out);
	/* optional (AUX backends), present when size covers it (HWS_OPS_HAS): perf's
	 * PERF_RECORD_AUXTRACE_INFO for an event this backend encoded: *type (perf's auxtrace
	 * type, e.g. 4 = ARM_SPE) and the private u64 words. @per_cpu: per-CPU mmaps.
	 * Returns the number of words written (<= max) or negative. */
	int (*auxtrace_info)(void *priv, const struct perf_event_attr *attr, int per_cpu,
			     uint32_t *type, uint64_t *words, int max);
	/* ---- appended after version 2 (check with HWS_OPS_HAS) ---- */
	/* optional: what reports name the source of the coherence facts (HITM, peer snoop) in
	 * this backend's samples, e.g. "Arm SPE data source"; NULL: perf's data_src as such */
	const char *coherence_source;
};

/* True if @ops (as the plugin built it) has member @m: callbacks appended after the
 * minimum version-1 layout must be checked with this before use. */
#define HWS_OPS_HAS(ops, m)                                                              \
	((ops)->size >= offsetof(struct hws_backend_ops, m) + sizeof((ops)->m) && (ops)->m)

/*
 * The one exported symbol. In a module build it is hws_backend_entry; in a static build
 * (HWS_STATIC_BACKEND=<name>) it is hws_backend_entry_<name>, so several backends link
 * into one binary.
 */
#define HWS__CAT2(a, b) a##b
#define HWS__CAT(a, b) HWS__CAT2(a, b)
#define HWS__STR2(x) #x
#define HWS__STR(x) HWS__STR2(x)
#ifdef HWS_STATIC_BACKEND
#define HWS_BACKEND_ENTRY HWS__CAT(hws_backend_entry_, HWS_STATIC_BACKEND)
#else
#define HWS_BACKEND_ENTRY hws_backend_entry
#endif
#define HWS_BACKEND_ENTRY_NAME "hws_backend_entry"

typedef const struct hws_backend_ops *(*hws_backend_entry_fn)(const struct hws_host *host);

#define HWS_BACKEND_DEFINE(ops)                                                          \
	__attribute__((visibility("default"))) const struct hws_backend_ops *               \
	HWS_BACKEND_ENTRY(const struct hws_host *host);                                     \
	__attribute__((visibility("default"))) const struct hws_backend_ops *               \
	HWS_BACKEND_ENTRY(const struct hws_host *host)                                      \
	{                                                                                   \
		(void)host;                                                                 \
		return &(ops);                                                              \
	}

#ifdef __cplusplus
}
#endif
#endif
