/* SPDX-License-Identifier: MIT */
/*
 * AMD IBS register layout (the AMD PPRs' fields as Linux arch/x86/include/asm/amd-ibs.h,
 * arch/x86/include/asm/perf_event.h and arch/x86/events/amd/ibs.c define and use them).
 *
 * Invariants:
 *  - every field is described once, in the tables below ({name, lo bit, width}); decode,
 *    raw JSON and tests use the same tables, so a bit position lives in one place;
 *  - names are the AMD/perf register field names (those `perf report -D` prints);
 *  - PERF_SAMPLE_RAW of an IBS event is: u32 caps (CPUID 8000_001B EAX), then u64 MSR values
 *    in the kernel's read order, the count depending on caps (BRNTRGT, OPDATA4, FETCHCTLEXTD).
 */
#ifndef HWS_IBS_REGS_H
#define HWS_IBS_REGS_H

#include <stdint.h>

/* CPUID 8000_001B EAX (the caps word at the head of RAW) */
#define IBS_CAPS_AVAIL	       (1U << 0)
#define IBS_CAPS_FETCHSAM      (1U << 1)
#define IBS_CAPS_OPSAM	       (1U << 2)
#define IBS_CAPS_RDWROPCNT     (1U << 3)
#define IBS_CAPS_OPCNT	       (1U << 4)
#define IBS_CAPS_BRNTRGT       (1U << 5)
#define IBS_CAPS_OPCNTEXT      (1U << 6)
#define IBS_CAPS_RIPINVALIDCHK (1U << 7)
#define IBS_CAPS_OPBRNFUSE     (1U << 8)
#define IBS_CAPS_FETCHCTLEXTD  (1U << 9)
#define IBS_CAPS_OPDATA4       (1U << 10)
#define IBS_CAPS_ZEN4	       (1U << 11)
#define IBS_CAPS_OPLDLAT       (1U << 12)
#define IBS_CAPS_OPDTLBPGSIZE  (1U << 19)

/* Register indexes in the RAW MSR array. */
enum ibs_op_reg {
	IBS_OP_CTL = 0, /* MSR C001_1033 */
	IBS_OP_RIP,	/* C001_1034 */
	IBS_OP_DATA,	/* C001_1035 */
	IBS_OP_DATA2,	/* C001_1036 */
	IBS_OP_DATA3,	/* C001_1037 */
	IBS_DC_LINAD,	/* C001_1038 */
	IBS_DC_PHYSAD,	/* C001_1039 */
	IBS_OP_NR_BASE, /* 7 always-read registers */
	/* then IbsBrTarget (C001_103B) if caps BRNTRGT, then IbsOpData4 (C001_103D) if OPDATA4 */
};

enum ibs_fetch_reg {
	IBS_FETCH_CTL = 0, /* C001_1030 */
	IBS_FETCH_LINAD,   /* C001_1031 */
	IBS_FETCH_PHYSAD,  /* C001_1032 */
	IBS_FETCH_NR_BASE,
	/* then IcIbsExtdCtl (C001_103C) if caps FETCHCTLEXTD */
};

#define IBS_MAX_REGS 9

/* Extract @width bits at @lo. */
static inline uint64_t ibs_bits(uint64_t v, unsigned int lo, unsigned int width)
{
	return (v >> lo) & (width >= 64 ? ~0ULL : ((1ULL << width) - 1));
}

/* ---- IbsFetchCtl ---- */
#define FETCH_MAXCNT(v)	      ibs_bits(v, 0, 16)
#define FETCH_CNT(v)	      ibs_bits(v, 16, 16)
#define FETCH_LAT(v)	      ibs_bits(v, 32, 16)
#define FETCH_EN(v)	      ibs_bits(v, 48, 1)
#define FETCH_VAL(v)	      ibs_bits(v, 49, 1)
#define FETCH_COMP(v)	      ibs_bits(v, 50, 1)
#define FETCH_IC_MISS(v)      ibs_bits(v, 51, 1)
#define FETCH_PHY_VALID(v)    ibs_bits(v, 52, 1)
#define FETCH_L1TLB_PGSZ(v)   ibs_bits(v, 53, 2)
#define FETCH_L1TLB_MISS(v)   ibs_bits(v, 55, 1)
#define FETCH_L2TLB_MISS(v)   ibs_bits(v, 56, 1)
#define FETCH_RAND_EN(v)      ibs_bits(v, 57, 1)
#define FETCH_L2_MISS(v)      ibs_bits(v, 58, 1)
#define FETCH_L3_MISS_ONLY(v) ibs_bits(v, 59, 1)
#define FETCH_OC_MISS(v)      ibs_bits(v, 60, 1)
#define FETCH_L3_MISS(v)      ibs_bits(v, 61, 1)
/* ---- IcIbsExtdCtl ---- */
#define FETCH_ITLB_REFILL_LAT(v) ibs_bits(v, 0, 16)

/* ---- IbsOpCtl ---- */
#define OP_MAXCNT(v)	   ibs_bits(v, 0, 16)
#define OP_L3_MISS_ONLY(v) ibs_bits(v, 16, 1)
#define OP_EN(v)	   ibs_bits(v, 17, 1)
#define OP_VAL(v)	   ibs_bits(v, 18, 1)
#define OP_CNT_CTL(v)	   ibs_bits(v, 19, 1)
#define OP_MAXCNT_EXT(v)   ibs_bits(v, 20, 7)
#define OP_CURCNT(v)	   ibs_bits(v, 32, 27)
#define OP_LDLAT_THRSH(v)  ibs_bits(v, 59, 4)
#define OP_LDLAT_EN(v)	   ibs_bits(v, 63, 1)
/* ---- IbsOpData ---- */
#define OP_COMP_TO_RET(v) ibs_bits(v, 0, 16)
#define OP_TAG_TO_RET(v)  ibs_bits(v, 16, 16)
#define OP_RETURN(v)	  ibs_bits(v, 34, 1)
#define OP_BRN_TAKEN(v)	  ibs_bits(v, 35, 1)
#define OP_BRN_MISP(v)	  ibs_bits(v, 36, 1)
#define OP_BRN_RET(v)	  ibs_bits(v, 37, 1)
#define OP_RIP_INVALID(v) ibs_bits(v, 38, 1)
#define OP_BRN_FUSE(v)	  ibs_bits(v, 39, 1)
#define OP_MICROCODE(v)	  ibs_bits(v, 40, 1)
/* ---- IbsOpData2 (loads only) ---- */
#define OP2_DATA_SRC_LO(v)  ibs_bits(v, 0, 3)
#define OP2_RMT_NODE(v)	    ibs_bits(v, 4, 1)
#define OP2_CACHE_HIT_ST(v) ibs_bits(v, 5, 1)
#define OP2_DATA_SRC_HI(v)  ibs_bits(v, 6, 2)
#define OP2_STRM_ST(v)	    ibs_bits(v, 8, 1)
#define OP2_RMT_SOCKET(v)   ibs_bits(v, 9, 1)
/* ---- IbsOpData3 ---- */
#define OP3_LD_OP(v)	       ibs_bits(v, 0, 1)
#define OP3_ST_OP(v)	       ibs_bits(v, 1, 1)
#define OP3_DC_L1TLB_MISS(v)   ibs_bits(v, 2, 1)
#define OP3_DC_L2TLB_MISS(v)   ibs_bits(v, 3, 1)
#define OP3_DC_L1TLB_HIT_2M(v) ibs_bits(v, 4, 1)
#define OP3_DC_L1TLB_HIT_1G(v) ibs_bits(v, 5, 1)
#define OP3_DC_PAGE_SIZE(v)    ibs_bits(v, 4, 2) /* Zen 5 (caps OPDTLBPGSIZE) */
#define OP3_DC_L2TLB_HIT_2M(v) ibs_bits(v, 6, 1)
#define OP3_DC_MISS(v)	       ibs_bits(v, 7, 1)
#define OP3_DC_MIS_ACC(v)      ibs_bits(v, 8, 1)
#define OP3_DC_WC_MEM_ACC(v)   ibs_bits(v, 13, 1)
#define OP3_DC_UC_MEM_ACC(v)   ibs_bits(v, 14, 1)
#define OP3_DC_LOCKED_OP(v)    ibs_bits(v, 15, 1)
#define OP3_DC_MISS_NO_MAB(v)  ibs_bits(v, 16, 1)
#define OP3_DC_LIN_VALID(v)    ibs_bits(v, 17, 1)
#define OP3_DC_PHY_VALID(v)    ibs_bits(v, 18, 1)
#define OP3_DC_L2TLB_HIT_1G(v) ibs_bits(v, 19, 1)
#define OP3_L2_MISS(v)	       ibs_bits(v, 20, 1)
#define OP3_SW_PF(v)	       ibs_bits(v, 21, 1)
#define OP3_MEM_WIDTH(v)       ibs_bits(v, 22, 4)
#define OP3_OPEN_MEM_REQS(v)   ibs_bits(v, 26, 6)
#define OP3_DC_MISS_LAT(v)     ibs_bits(v, 32, 16)
#define OP3_TLB_REFILL_LAT(v)  ibs_bits(v, 48, 16)

/* Legacy (pre-Zen 4) 3-bit DataSrc */
#define IBS_DS_LOC_CACHE 2
#define IBS_DS_DRAM	 3
#define IBS_DS_REM_CACHE 4
#define IBS_DS_IO	 7
/* Zen 4 5-bit DataSrc */
#define IBS_DS4_LOC_CACHE  1
#define IBS_DS4_NEAR_CCX   2
#define IBS_DS4_DRAM	   3
#define IBS_DS4_FAR_CCX	   5
#define IBS_DS4_PMEM	   6
#define IBS_DS4_IO	   7
#define IBS_DS4_EXT_MEM	   8
#define IBS_DS4_PEER_AGENT 12

/* One register field, for tables (raw JSON, tests). */
struct ibs_field {
	const char *name;
	char key[32]; /* ,"name": for JSON; fixed size so it is copied in one move */
	uint8_t keylen;
	uint8_t lo;
	uint8_t width;
};

#define IBS_FIELD(n, l, w)                                                                         \
	{                                                                                          \
		n, ",\"" n "\":", sizeof(",\"" n "\":") - 1, l, w                                  \
	}
#define IBS_FIELD_END                                                                              \
	{                                                                                          \
		NULL, "", 0, 0, 0                                                                  \
	}
#define IBS_REG(n, msr, fields)                                                                    \
	{                                                                                          \
		n, ",\"" n "\":", msr, fields                                                      \
	}

/* One register: its AMD name, MSR and fields (NULL-name terminated). */
struct ibs_reg_desc {
	const char *name;
	const char *key; /* ,"name": */
	uint32_t msr;
	const struct ibs_field *fields;
};

extern const struct ibs_reg_desc ibs_fetch_ctl_desc, ibs_fetch_linad_desc, ibs_fetch_physad_desc,
    ibs_fetch_extd_desc;
extern const struct ibs_reg_desc ibs_op_ctl_desc, ibs_op_rip_desc, ibs_op_data_desc,
    ibs_op_data2_desc, ibs_op_data3_desc, ibs_dc_linad_desc, ibs_dc_physad_desc, ibs_br_target_desc,
    ibs_op_data4_desc;

#endif
