/* SPDX-License-Identifier: MIT */
/*
 * hwsample backend plugin ABI.
 *
 * A backend is a table of ops (struct hws_backend_ops) exported by one symbol,
 * HWS_BACKEND_ENTRY. It is built twice: as a dlopen-able module (hws-<name>.so) and as an
 * object library linked statically into tests and the CLI fallback. Third-party backends
 * build against the installed headers alone (tests/install/ builds one).
 *
 * Rules:
 *  - The ABI is versioned and append-only. abi_version/size open the ops and the host
 *    table; new members only go at the end, under a "version N starts here" comment, and
 *    the side that reads a member appended after version 1 checks the other side's size
 *    first: core with HWS_OPS_HAS(), a backend with HWS_HOST_HAS(). The loader refuses a
 *    plugin whose abi_version is outside HWS_BACKEND_ABI_MIN..HWS_BACKEND_ABI_VERSION,
 *    whose ops table is shorter than version 1's, or which lacks a required callback.
 *  - Every struct crossing the boundary has a fixed layout: no type of the build host's
 *    kernel headers (struct hws_perf_event_attr of <hwsample/abi.h> instead of the uapi
 *    struct), and <hwsample/backend_abi.h> pins sizes and offsets with _Static_assert, so
 *    a plugin built with another compiler or other flags fails to build, not to load.
 *  - Speed-only details are not ABI: core's shortcuts follow from the rules stated here
 *    (e.g. a NULL decode, the samples lent to aux_decode's @emit), not from flags a
 *    backend must know to set.
 *  - A backend includes only <hwsample/...> headers and calls core only through the
 *    struct hws_host it is given: plugins have no undefined symbols into core. What it
 *    knows of the machine (sysfs root, cpuinfo, options) comes from the host table: a
 *    backend reads no hwsample environment variable.
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

#include <hwsample/abi.h>
#include <hwsample/errors.h>
#include <hwsample/pmu.h>
#include <hwsample/sample.h>
#include <hwsample/strbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * 2: struct hws_event_desc carried config3/config4 after a host-sized attr.
 * 3: struct hws_perf_event_attr in every struct (no uapi type); layouts pinned
 *    (<hwsample/backend_abi.h>); host table version 3 (cpuinfo, cpu_flag, flags); the
 *    sysfs root and cpuinfo are the library's settings, not the environment;
 *    HWS_CAP_AUX_SAMPLE_WRITABLE and HWS_CAP_DECODE_GENERIC gone (see aux_decode, decode).
 * Plugins of an older version are refused: version 2 was never installed.
 */
#define HWS_BACKEND_ABI_VERSION 3
#define HWS_BACKEND_ABI_MIN	3

/* Capability bits (struct hws_backend_ops::caps): what the backend's samples carry and how
 * they arrive. Core picks ring or AUX mode from HWS_CAP_AUX. */
enum hws_backend_cap {
	HWS_CAP_AUX = 1ULL << 0, /* samples arrive in an AUX area */
	HWS_CAP_PHYS_ADDR = 1ULL << 1,
	HWS_CAP_LATENCY = 1ULL << 2,
	HWS_CAP_DATA_SRC = 1ULL << 3,
	HWS_CAP_PRECISE_IP = 1ULL << 4,
	HWS_CAP_RAW = 1ULL << 5, /* vendor record in PERF_SAMPLE_RAW */
	/* works without sampling hardware, and decodes any event no other backend claims
	 * (hws_registry__match() falls back to it without asking its match()) */
	HWS_CAP_SOFTWARE = 1ULL << 6,
	HWS_CAP_DATA_ADDR = 1ULL << 7,
	/* bits 8 and 9 were speed hints of ABI 2 (DECODE_GENERIC, AUX_SAMPLE_WRITABLE) */
};

/* host->flags(): options the program using the library set (struct hws_host_opts) */
enum hws_host_flag {
	HWS_HOST_NO_SIMD = 1ULL << 0, /* take the portable code paths, no SIMD (to compare them) */
};

/* What core offers a backend. Every member up to the host's size is non-NULL. */
struct hws_host {
	uint32_t abi_version; /* HWS_BACKEND_ABI_VERSION of core */
	uint32_t size;	      /* sizeof(struct hws_host) as core knows it */

	/* ---- version 1 starts here ---- */
	const char *version; /* hwsample version string */
	void (*log)(enum hws_log_level level, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
	/* root of the sysfs tree in use: "/sys", or a fake machine's tree (hws_host_opts) */
	const char *(*sysfs_root)(void);
	int (*pmu_load)(const char *name, struct hws_pmu *pmu);
	int (*pmu_set)(const struct hws_pmu *pmu, const char *name, uint64_t value,
		       struct hws_perf_event_attr *attr, char *err, size_t errlen);
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

	/* ---- version 3 starts here (test with HWS_HOST_HAS) ---- */
	/* The value of "@key : value" in the machine's cpuinfo (/proc/cpuinfo, or a fake
	 * machine's: hws_host_opts), first match: the first CPU's for per-CPU keys
	 * ("vendor_id", "cpu family", "model", "stepping", "model name", "CPU implementer").
	 * Returns its length (truncated to @len - 1 when longer), or -ENOENT (no such key, or
	 * a fake machine without a cpuinfo), or another negative errno. */
	int (*cpuinfo)(const char *key, char *buf, size_t len);
	/* 1 if the first CPU's feature list ("flags" on x86, "Features" on Arm) has the word
	 * @flag, 0 if not or unknown */
	int (*cpu_flag)(const char *flag);
	uint64_t (*flags)(void); /* HWS_HOST_* */
};

/* True if @host (as core built it) has member @m: a backend checks members appended after
 * version 1 with this before calling them (a host of an older version, or one that is not
 * libhwsample's, such as a test harness, may lack them). */
#define HWS_HOST_HAS(host, m)                                                                      \
	((host)->size >= offsetof(struct hws_host, m) + sizeof((host)->m) && (host)->m)
/* Bytes of each version's host table */
#define HWS_HOST_SIZE_V1 (offsetof(struct hws_host, tracefs_dir) + sizeof(void *))
#define HWS_HOST_SIZE_V3 (offsetof(struct hws_host, flags) + sizeof(void *))

/* key=value control as the user wrote it. */
struct hws_control {
	const char *key;
	const char *value; /* never NULL; "1" when the user wrote a bare key */
};

/* struct hws_event_request::flags */
enum hws_request_flag {
	HWS_REQ_PER_THREAD = 1U << 0,  /* per-thread rings (perf's --per-thread) */
	HWS_REQ_SYSTEM_WIDE = 1U << 1, /* per-CPU, no pid (perf's -a or -C) */
	HWS_REQ_PHYS_ADDR = 1U << 2,   /* user wants physical addresses */
	HWS_REQ_DRY_RUN = 1U << 3,     /* encode only; fake sysfs allowed */
	HWS_REQ_C2C = 1U << 4,	       /* c2c record: loads + stores with what c2c needs */
	HWS_REQ_LDLAT = 1U << 5,       /* ldlat is set (appended in version 3) */
};

/* One event the user asked for, handed to ops->encode. */
struct hws_event_request {
	uint32_t sz; /* sizeof(struct hws_event_request) as core knows it */
	/* ---- version 1 starts here ---- */
	uint32_t flags;	   /* HWS_REQ_* */
	const char *pmu;   /* PMU asked for (e.g. "ibs_op"), or NULL: backend default */
	const char *event; /* one event name, or NULL: backend default */
	const struct hws_control *controls;
	uint32_t nr_controls;
	uint32_t kernel_version; /* KERNEL_VERSION(a,b,c) of the (possibly faked) kernel */
	uint64_t period;	 /* sample period, 0 = not given */
	uint64_t freq;		 /* sampling frequency (Hz), 0 = not given */
	/* ---- appended in version 3: read with hws_event_request__ldlat() ---- */
	/* with HWS_REQ_LDLAT: the load latency threshold in cycles of a c2c request, for
	 * backends whose c2c events filter loads by latency */
	uint32_t ldlat;
};
/* True if @req (as core built it) has member @m (members appended after version 1) */
#define HWS_REQ_HAS(req, m) ((req)->sz >= offsetof(struct hws_event_request, m) + sizeof((req)->m))

/* @req's load latency threshold if it carries one (HWS_REQ_LDLAT), else @def */
static inline uint64_t hws_event_request__ldlat(const struct hws_event_request *req, uint64_t def)
{
	if (!(req->flags & HWS_REQ_LDLAT) || !HWS_REQ_HAS(req, ldlat))
		return def;
	return req->ldlat;
}

#define HWS_KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))

/* struct hws_event_desc::flags */
enum hws_event_flag {
	HWS_EVF_AUX = 1U << 0,	    /* map an AUX area for this event */
	HWS_EVF_CPU_ONLY = 1U << 1, /* cannot be opened per task: needs per-CPU recording */
	HWS_EVF_NO_INHERIT = 1U << 2,
	HWS_EVF_PERIOD_SKEW = 1U << 3, /* effective period unreliable (e.g. IBS l3missonly) */
};

/* One event to open, produced by ops->encode. Core adds the mode bits (inherit,
 * disabled/enable_on_exec, sample_id_all, mmap/comm tracking, IDENTIFIER...). */
struct hws_event_desc {
	struct hws_perf_event_attr attr; /* config3/config4 included: core passes attr.size
					  * 136/144 to the kernel only when they are non-zero */
	char name[128];			 /* display name, e.g. "ibs_op/l3missonly=1/" */
	char pmu[HWS_PMU_NAME_MAX];	 /* PMU it is opened on ("software", "ibs_op", ...) */
	int32_t group_leader; /* index (in this encode's output) of its leader, -1 none */
	uint32_t flags;	      /* HWS_EVF_* */
};

/* config word @n (3 or 4) of @d */
static inline uint64_t *hws_event_desc__config(struct hws_event_desc *d, unsigned int n)
{
	return (uint64_t *)(n == 4 ? &d->attr.config4 : &d->attr.config3);
}

/* attr.size to pass to the kernel: the smallest that carries every non-zero word */
static inline uint32_t hws_event_desc__attr_size(const struct hws_event_desc *d)
{
	if (d->attr.config4)
		return HWS_PERF_ATTR_SIZE_VER9;
	if (d->attr.config3)
		return HWS_PERF_ATTR_SIZE_VER8;
	return HWS_PERF_ATTR_SIZE_VER7;
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

/* A PERF_RECORD_SAMPLE split by sample_type (core/perfdata/sample_parse.c). Pointers point into the
 * record and are valid for the duration of the decode call. */
struct hws_record_sample {
	const struct hws_perf_event_attr *attr;
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
	uint32_t gap; /* 1: data before this chunk was lost (TRUNCATED, snapshot, ...) */
	const struct hws_perf_event_attr *attr;
};

struct hws_backend_ops {
	uint32_t abi_version; /* HWS_BACKEND_ABI_VERSION the plugin was built against */
	uint32_t size;	      /* sizeof(struct hws_backend_ops) as the plugin knows it */

	/* ---- version 1 starts here ---- */
	const char *name; /* "amd_ibs" */
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
	int (*match)(void *priv, const struct hws_perf_event_attr *attr, const char *pmu_name);
	/* optional: decode one sample. Core has already filled the generic fields of @out
	 * (time, cpu, pid, tid, period, id, ip, addr, ...); NULL when they are the whole
	 * sample. Returns 0, HWS_DECODE_SKIP, or HWS_E_BADREC. */
	int (*decode)(void *priv, const struct hws_file_info *fi,
		      const struct hws_record_sample *rec, struct hws_sample *out);
	/* optional (required with HWS_CAP_AUX): decode an AUX chunk of stream @stream
	 * (aux_stream_size bytes, zeroed at stream start), calling @emit per sample.
	 * Returns 0, the non-zero value @emit returned, or a negative error.
	 * The sample handed to @emit (here and in aux_flush) is lent to core for the call:
	 * core may overwrite the members that are its own, sz, attr_idx, event and backend,
	 * and, when HWS_SF_PID is clear, give the sample its task (pid, tid and HWS_SF_PID in
	 * fields, from context switches); nothing else. A backend that reuses one sample
	 * across calls therefore sets fields in full and writes pid and tid whenever it sets
	 * HWS_SF_PID. */
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
	/* ---- version 1 ends here (HWS_OPS_SIZE_V1): every plugin has the members above;
	 * the ones below were appended, and core tests them with HWS_OPS_HAS ---- */
	/* optional (AUX backends): perf's
	 * PERF_RECORD_AUXTRACE_INFO for an event this backend encoded: *type (perf's auxtrace
	 * type, e.g. 4 = ARM_SPE) and the private u64 words. @per_cpu: per-CPU mmaps.
	 * Returns the number of words written (<= max) or negative. */
	int (*auxtrace_info)(void *priv, const struct hws_perf_event_attr *attr, int per_cpu,
			     uint32_t *type, uint64_t *words, int max);
	/* ---- appended in version 3 (check with HWS_OPS_HAS) ---- */
	/* optional: what reports name the source of the coherence facts (HITM, peer snoop) in
	 * this backend's samples, e.g. "Arm SPE data source"; NULL: perf's data_src as such */
	const char *coherence_source;
};

/* True if @ops (as the plugin built it) has member @m: callbacks appended after the
 * minimum version-1 layout must be checked with this before use. */
#define HWS_OPS_HAS(ops, m)                                                                        \
	((ops)->size >= offsetof(struct hws_backend_ops, m) + sizeof((ops)->m) && (ops)->m)
/* Bytes of the version-1 ops table: the least the loader takes */
#define HWS_OPS_SIZE_V1 (offsetof(struct hws_backend_ops, raw_json) + sizeof(void *))

/*
 * The one exported symbol. In a module build it is hws_backend_entry; in a static build
 * (HWS_STATIC_BACKEND=<name>) it is hws_backend_entry_<name>, so several backends link
 * into one binary.
 */
#define HWS__CAT2(a, b) a##b
#define HWS__CAT(a, b)	HWS__CAT2(a, b)
#define HWS__STR2(x)	#x
#define HWS__STR(x)	HWS__STR2(x)
#ifdef HWS_STATIC_BACKEND
#define HWS_BACKEND_ENTRY HWS__CAT(hws_backend_entry_, HWS_STATIC_BACKEND)
#else
#define HWS_BACKEND_ENTRY hws_backend_entry
#endif
#define HWS_BACKEND_ENTRY_NAME "hws_backend_entry"

typedef const struct hws_backend_ops *(*hws_backend_entry_fn)(const struct hws_host *host);

#define HWS_BACKEND_DEFINE(ops)                                                                    \
	__attribute__((visibility("default"))) const struct hws_backend_ops *HWS_BACKEND_ENTRY(    \
	    const struct hws_host *host);                                                          \
	__attribute__((visibility("default"))) const struct hws_backend_ops *HWS_BACKEND_ENTRY(    \
	    const struct hws_host *host)                                                           \
	{                                                                                          \
		(void)host;                                                                        \
		return &(ops);                                                                     \
	}

#ifdef __cplusplus
}
#endif

#include <hwsample/backend_abi.h> /* the layouts above, pinned */
#endif
