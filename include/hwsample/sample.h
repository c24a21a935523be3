/* SPDX-License-Identifier: MIT */
/*
 * hwsample: the vendor-neutral sample.
 *
 * Every backend (Intel PEBS, AMD IBS, Arm SPE, software) turns its vendor record into one
 * struct hws_sample. A field is meaningful only when its HWS_SF_* bit is set in @fields;
 * unset fields are zero. Latencies are in core cycles. Addresses are virtual unless named
 * phys_*. The data source is kept twice: normalized (mem_level/snoop/tlb) for reports and
 * as perf's union perf_mem_data_src (data_src) so perf-compatible output and c2c share one
 * encoding.
 *
 * This struct is contract data: it only grows at the end, and @sz says how much of it the
 * producer knew about.
 */
#ifndef HWSAMPLE_SAMPLE_H
#define HWSAMPLE_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Validity bits for struct hws_sample::fields. */
enum hws_sample_field {
	HWS_SF_TIME = 1ULL << 0,
	HWS_SF_CPU = 1ULL << 1,
	HWS_SF_PID = 1ULL << 2, /* pid and tid */
	HWS_SF_PERIOD = 1ULL << 3,
	HWS_SF_ID = 1ULL << 4,
	HWS_SF_IP = 1ULL << 5,
	HWS_SF_ADDR = 1ULL << 6, /* data linear address, hardware said valid */
	HWS_SF_PHYS_ADDR = 1ULL << 7,
	HWS_SF_OP = 1ULL << 8,
	HWS_SF_LAT_TOTAL = 1ULL << 9,
	HWS_SF_LAT_ISSUE = 1ULL << 10,
	HWS_SF_LAT_XLAT = 1ULL << 11,
	HWS_SF_LAT_MISS = 1ULL << 12,
	HWS_SF_LAT_INS = 1ULL << 13,
	HWS_SF_DATA_SRC = 1ULL << 14, /* mem_level, snoop, tlb and data_src */
	HWS_SF_BRANCH = 1ULL << 15,   /* branch_target and branch flags */
	HWS_SF_DATA_PAGE_SIZE = 1ULL << 16,
	HWS_SF_CODE_PAGE_SIZE = 1ULL << 17,
	HWS_SF_WEIGHT = 1ULL << 18,    /* perf's raw weight u64 (WEIGHT or WEIGHT_STRUCT) */
	HWS_SF_RAW = 1ULL << 19,       /* raw/raw_size point at the vendor record */
	HWS_SF_NODE = 1ULL << 20,      /* NUMA node of the data, when the hardware says */
	HWS_SF_CALLCHAIN = 1ULL << 21, /* callchain/nr_callchain: the code path to the sample */
	HWS_SF_SYNTH = 1ULL << 22,     /* synth: the events perf makes of the record */
};

/*
 * struct hws_sample::synth: the events perf synthesizes from an AUX-trace record (Arm SPE:
 * perf's arm_spe_sample(), in the order perf creates them; --itrace letters f, m, t, b, a,
 * M), which perf-style reports show as one section each (hws_report_opts::itrace).
 */
enum hws_synth {
	HWS_SYNTH_L1D_MISS = 1U << 0,	   /* "l1d-miss": the L1D refill event */
	HWS_SYNTH_L1D_ACCESS = 1U << 1,	   /* "l1d-access" */
	HWS_SYNTH_LLC_MISS = 1U << 2,	   /* "llc-miss" */
	HWS_SYNTH_LLC_ACCESS = 1U << 3,	   /* "llc-access" */
	HWS_SYNTH_TLB_MISS = 1U << 4,	   /* "tlb-miss": a translation walk */
	HWS_SYNTH_TLB_ACCESS = 1U << 5,	   /* "tlb-access" */
	HWS_SYNTH_BRANCH_MISS = 1U << 6,   /* "branch-miss": a mispredicted branch */
	HWS_SYNTH_REMOTE_ACCESS = 1U << 7, /* "remote-access" */
	HWS_SYNTH_MEMORY = 1U << 8,	   /* "memory": a load or store (data_src not 0) */
	HWS_SYNTH__NR = 9,
};

/* Where a call-chain frame's address runs (perf's PERF_CONTEXT_* markers, without them). */
enum hws_frame_ctx {
	HWS_CTX_UNKNOWN = 0,
	HWS_CTX_KERNEL,
	HWS_CTX_USER,
	HWS_CTX_HV,
	HWS_CTX_GUEST_KERNEL,
	HWS_CTX_GUEST_USER,
};

/* struct hws_frame::flags */
enum {
	HWS_FRAME_UNWOUND =
	    1U << 0, /* found by unwinding the user stack copy (--call-graph dwarf) */
	HWS_FRAME_INLINED = 1U << 1, /* a function inlined at @ip; @inline_depth says which */
};

/*
 * One frame of a call chain. Frames of one chain are innermost first: frame 0 is where the
 * sample was taken (normally the sample's ip), each next one a return address (the caller).
 * Inlined calls (from debug info, dwarf unwinding) repeat the ip of the frame they were
 * inlined into, outermost-inlined last: @inline_depth 1 is the function inlined deepest
 * (innermost), counting outwards; the frame that is not inlined has depth 0 and follows them.
 */
struct hws_frame {
	uint64_t ip;
	uint8_t ctx;   /* enum hws_frame_ctx */
	uint8_t flags; /* HWS_FRAME_* */
	uint16_t inline_depth;
	uint32_t reserved;
};

/* struct hws_sample::callchain_flags */
enum {
	HWS_CC_TRUNCATED = 1U << 0, /* deeper than the reader's limit: the outer frames are cut */
	HWS_CC_UNWIND_ERROR = 1U << 1, /* dwarf unwinding stopped early (corrupt or short stack) */
};

/* Operation class of the sampled instruction. */
enum hws_op {
	HWS_OP_UNKNOWN = 0,
	HWS_OP_LOAD,
	HWS_OP_STORE,
	HWS_OP_BRANCH,
	HWS_OP_OTHER,
};

/* struct hws_sample::op_flags */
enum hws_op_flag {
	HWS_OPF_LOCK = 1U << 0, /* locked / atomic read-modify-write */
	HWS_OPF_ATOMIC = 1U << 1,
	HWS_OPF_SVE = 1U << 2, /* SVE / vector memory op */
	HWS_OPF_SIMD = 1U << 3,
	HWS_OPF_EXCL = 1U << 4, /* load/store exclusive */
	HWS_OPF_PREFETCH = 1U << 5,
	HWS_OPF_UNCACHED = 1U << 6,
	HWS_OPF_WC = 1U << 7, /* write-combining memory */
	HWS_OPF_BR_COND = 1U << 8,
	HWS_OPF_BR_IND = 1U << 9,
	HWS_OPF_BR_CALL = 1U << 10,
	HWS_OPF_BR_RET = 1U << 11,
	HWS_OPF_BR_TAKEN = 1U << 12,
	HWS_OPF_BR_MISPRED = 1U << 13,
	HWS_OPF_BR_NOT_TAKEN = 1U << 14,
	HWS_OPF_BLK_DATA = 1U << 15, /* load blocked on data (store forward) */
	HWS_OPF_BLK_ADDR = 1U << 16, /* load blocked on address alias */
	HWS_OPF_REMOTE = 1U << 17,   /* access went to another node/socket */
};

/* Normalized data-source level (where the data came from). */
enum hws_mem_level {
	HWS_MEM_UNKNOWN = 0,
	HWS_MEM_L1,
	HWS_MEM_LFB, /* fill buffer / miss handling buffer hit */
	HWS_MEM_L2,
	HWS_MEM_L3,
	HWS_MEM_PEER_CACHE,   /* another core's cache in the same cluster / CCX / socket */
	HWS_MEM_REMOTE_CACHE, /* a cache on another node or socket */
	HWS_MEM_LOCAL_DRAM,
	HWS_MEM_REMOTE_DRAM,
	HWS_MEM_CXL, /* CXL / PMEM / extension memory */
	HWS_MEM_IO,
	HWS_MEM_UNCACHED,
	HWS_MEM__MAX,
};

enum hws_snoop {
	HWS_SNOOP_UNKNOWN = 0,
	HWS_SNOOP_NONE,
	HWS_SNOOP_HIT,
	HWS_SNOOP_HITM, /* hit modified in another cache */
	HWS_SNOOP_PEER, /* served by a peer cache (SNOOPX_PEER) */
	HWS_SNOOP_MISS,
	HWS_SNOOP__MAX,
};

enum hws_tlb {
	HWS_TLB_UNKNOWN = 0,
	HWS_TLB_L1_HIT,
	HWS_TLB_L2_HIT,
	HWS_TLB_MISS, /* missed all TLB levels: page walk */
	HWS_TLB_HIT,  /* hit, level not known */
	HWS_TLB__MAX,
};

/* The shared sample. See the file comment for the rules. */
struct hws_sample {
	uint32_t sz;	   /* sizeof(struct hws_sample) as known by the producer */
	uint32_t attr_idx; /* index of the event (attr) in the file/session */
	uint64_t fields;   /* HWS_SF_* */

	uint64_t time;
	uint32_t cpu;
	uint32_t pid;
	uint32_t tid;
	uint32_t node; /* HWS_SF_NODE */
	uint64_t period;
	uint64_t id;
	const char *event;   /* event name, owned by the session/reader */
	const char *backend; /* backend name, static string */

	uint64_t ip;
	uint8_t ip_precise; /* 1: ip is the sampled instruction itself (no skid) */
	uint8_t op;	    /* enum hws_op */
	uint8_t op_width;   /* access width in bytes, 0 if unknown */
	uint8_t mem_level;  /* enum hws_mem_level */
	uint8_t snoop;	    /* enum hws_snoop */
	uint8_t tlb;	    /* enum hws_tlb */
	uint8_t cpumode;    /* PERF_RECORD_MISC_CPUMODE_MASK bits of the record */
	uint8_t reserved0;
	uint32_t op_flags; /* HWS_OPF_* */

	uint64_t addr;
	uint64_t phys_addr;

	uint32_t lat_total;
	uint32_t lat_issue;
	uint32_t lat_xlat;
	uint32_t lat_miss;
	uint32_t lat_ins;
	uint32_t reserved1;

	uint64_t data_src; /* union perf_mem_data_src value */
	uint64_t weight;   /* perf's raw WEIGHT / WEIGHT_STRUCT u64 */
	uint64_t branch_target;
	uint64_t data_page_size;
	uint64_t code_page_size;

	/* Vendor record the sample was decoded from (IBS RAW, SPE packets, ...).
	 * Valid until the next sample is delivered. */
	const void *raw;
	uint32_t raw_size;
	uint32_t reserved2;

	/* ---- appended in version 3 (test @sz: offsetof + sizeof) ---- */
	/* HWS_SF_CALLCHAIN: the call chain, innermost first (see struct hws_frame); owned by the
	 * reader or decoder, valid until the next sample is delivered, as @raw */
	const struct hws_frame *callchain;
	uint32_t nr_callchain;
	uint32_t callchain_flags; /* HWS_CC_* */

	/* ---- appended in version 4 (test @sz: offsetof + sizeof) ---- */
	uint32_t synth; /* HWS_SF_SYNTH: enum hws_synth bits */
	uint32_t reserved3;
};

/* Callback used by readers and decoders to hand out samples. Return 0 to go on,
 * non-zero to stop (the value is passed back to the caller). */
typedef int (*hws_sample_fn)(void *ctx, const struct hws_sample *s);

/* Names used in dumps and JSON ("l1", "lfb", ..., "hitm", ...). Never NULL. */
HWS_API const char *hws_mem_level__name(unsigned int level);
HWS_API const char *hws_snoop__name(unsigned int snoop);
HWS_API const char *hws_tlb__name(unsigned int tlb);
HWS_API const char *hws_op__name(unsigned int op);

/*
 * hws_data_src__normalize() - fill mem_level/snoop/tlb/op/op_flags of @s from a
 * perf_mem_data_src value (Intel PEBS, and files written by perf for any vendor).
 * Sets HWS_SF_DATA_SRC, stores @data_src in s->data_src.
 */
HWS_API void hws_data_src__normalize(uint64_t data_src, struct hws_sample *s);

#ifdef __cplusplus
}
#endif
#endif
