// SPDX-License-Identifier: MIT
/*
 * AMD IBS PERF_SAMPLE_RAW decoding into struct hws_sample, and the raw-field JSON.
 *
 * Invariants:
 *  - ibs_raw__parse() never reads past the blob's size; the MSR count comes from the size,
 *    the caps word only says which optional registers (BrTarget, OpData4, IcIbsExtdCtl)
 *    are among them (PERF_SAMPLE_RAW: u32 caps, then the MSRs in the order Linux
 *    arch/x86/events/amd/ibs.c perf_ibs_handle_irq() reads them, as ibs_regs.h lists them);
 *  - a sample whose control register has Val or En clear is not decoded (HWS_DECODE_SKIP);
 *  - data addresses are reported only when their valid bit is set AND the op is a load or a
 *    store (IBS leaves stale DC addresses in the MSRs for other ops);
 *  - the perf_mem_data_src value follows the kernel's mapping (perf_ibs_get_mem_lvl & co.,
 *    as described in the facts sheet), so hwsample and a kernel-written DATA_SRC agree;
 *  - Zen 3 errata (#1293, CacheHitSt, #1238, #1347, #1197) are applied from the file's
 *    CPUID family/model, as the kernel and perf do.
 * Nothing here allocates.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/fmt.h>

#include "ibs.h"

/* ---- register tables (names as AMD's PPR / perf print them) ---- */

static const struct ibs_field fetch_ctl_fields[] = {
    IBS_FIELD("FetchMaxCnt", 0, 16),
    IBS_FIELD("FetchCnt", 16, 16),
    IBS_FIELD("FetchLat", 32, 16),
    IBS_FIELD("FetchEn", 48, 1),
    IBS_FIELD("FetchVal", 49, 1),
    IBS_FIELD("FetchComp", 50, 1),
    IBS_FIELD("IcMiss", 51, 1),
    IBS_FIELD("PhyAddrValid", 52, 1),
    IBS_FIELD("L1TlbPgSz", 53, 2),
    IBS_FIELD("L1TlbMiss", 55, 1),
    IBS_FIELD("L2TlbMiss", 56, 1),
    IBS_FIELD("RandEn", 57, 1),
    IBS_FIELD("FetchL2Miss", 58, 1),
    IBS_FIELD("L3MissOnly", 59, 1),
    IBS_FIELD("FetchOcMiss", 60, 1),
    IBS_FIELD("FetchL3Miss", 61, 1),
    IBS_FIELD_END,
};
static const struct ibs_field extd_ctl_fields[] = {
    IBS_FIELD("IbsItlbRefillLat", 0, 16),
    IBS_FIELD_END,
};
static const struct ibs_field op_ctl_fields[] = {
    IBS_FIELD("OpMaxCnt", 0, 16),  IBS_FIELD("L3MissOnly", 16, 1),
    IBS_FIELD("OpEn", 17, 1),	   IBS_FIELD("OpVal", 18, 1),
    IBS_FIELD("CntCtl", 19, 1),	   IBS_FIELD("OpMaxCntExt", 20, 7),
    IBS_FIELD("OpCurCnt", 32, 27), IBS_FIELD("LdLatThrsh", 59, 4),
    IBS_FIELD("LdLatEn", 63, 1),   IBS_FIELD_END,
};
static const struct ibs_field op_data_fields[] = {
    IBS_FIELD("CompToRetCtr", 0, 16), IBS_FIELD("TagToRetCtr", 16, 16),
    IBS_FIELD("OpReturn", 34, 1),     IBS_FIELD("OpBrnTaken", 35, 1),
    IBS_FIELD("OpBrnMisp", 36, 1),    IBS_FIELD("BrnRet", 37, 1),
    IBS_FIELD("RipInvalid", 38, 1),   IBS_FIELD("BrnFuse", 39, 1),
    IBS_FIELD("Microcode", 40, 1),    IBS_FIELD_END,
};
static const struct ibs_field op_data2_fields[] = {
    IBS_FIELD("DataSrcLo", 0, 3),
    IBS_FIELD("RmtNode", 4, 1),
    IBS_FIELD("CacheHitSt", 5, 1),
    IBS_FIELD("DataSrcHi", 6, 2),
    IBS_FIELD("StrmSt", 8, 1),
    IBS_FIELD("RmtSocket", 9, 1),
    IBS_FIELD_END,
};
static const struct ibs_field op_data3_fields[] = {
    IBS_FIELD("LdOp", 0, 1),
    IBS_FIELD("StOp", 1, 1),
    IBS_FIELD("DcL1TlbMiss", 2, 1),
    IBS_FIELD("DcL2TlbMiss", 3, 1),
    IBS_FIELD("DcL1TlbHit2M", 4, 1),
    IBS_FIELD("DcL1TlbHit1G", 5, 1),
    IBS_FIELD("DcL2TlbHit2M", 6, 1),
    IBS_FIELD("DcMiss", 7, 1),
    IBS_FIELD("DcMisAcc", 8, 1),
    IBS_FIELD("DcWcMemAcc", 13, 1),
    IBS_FIELD("DcUcMemAcc", 14, 1),
    IBS_FIELD("DcLockedOp", 15, 1),
    IBS_FIELD("DcMissNoMabAlloc", 16, 1),
    IBS_FIELD("DcLinAddrValid", 17, 1),
    IBS_FIELD("DcPhyAddrValid", 18, 1),
    IBS_FIELD("DcL2TlbHit1G", 19, 1),
    IBS_FIELD("L2Miss", 20, 1),
    IBS_FIELD("SwPf", 21, 1),
    IBS_FIELD("OpMemWidth", 22, 4),
    IBS_FIELD("OpDcMissOpenMemReqs", 26, 6),
    IBS_FIELD("DcMissLat", 32, 16),
    IBS_FIELD("TlbRefillLat", 48, 16),
    IBS_FIELD_END,
};

const struct ibs_reg_desc ibs_fetch_ctl_desc = IBS_REG("IbsFetchCtl", 0xc0011030, fetch_ctl_fields);
const struct ibs_reg_desc ibs_fetch_linad_desc = IBS_REG("IbsFetchLinAd", 0xc0011031, NULL);
const struct ibs_reg_desc ibs_fetch_physad_desc = IBS_REG("IbsFetchPhysAd", 0xc0011032, NULL);
const struct ibs_reg_desc ibs_fetch_extd_desc =
    IBS_REG("IcIbsExtdCtl", 0xc001103c, extd_ctl_fields);
const struct ibs_reg_desc ibs_op_ctl_desc = IBS_REG("IbsOpCtl", 0xc0011033, op_ctl_fields);
const struct ibs_reg_desc ibs_op_rip_desc = IBS_REG("IbsOpRip", 0xc0011034, NULL);
const struct ibs_reg_desc ibs_op_data_desc = IBS_REG("IbsOpData", 0xc0011035, op_data_fields);
const struct ibs_reg_desc ibs_op_data2_desc = IBS_REG("IbsOpData2", 0xc0011036, op_data2_fields);
const struct ibs_reg_desc ibs_op_data3_desc = IBS_REG("IbsOpData3", 0xc0011037, op_data3_fields);
const struct ibs_reg_desc ibs_dc_linad_desc = IBS_REG("IbsDcLinAd", 0xc0011038, NULL);
const struct ibs_reg_desc ibs_dc_physad_desc = IBS_REG("IbsDcPhysAd", 0xc0011039, NULL);
const struct ibs_reg_desc ibs_br_target_desc = IBS_REG("IbsBrTarget", 0xc001103b, NULL);
const struct ibs_reg_desc ibs_op_data4_desc = IBS_REG("IbsOpData4", 0xc001103d, NULL);

/* ---- perf_mem_data_src pieces (values of Linux include/uapi/linux/perf_event.h) ---- */
#define DS_OP_NA       0x1ULL
#define DS_OP_LOAD     0x2ULL
#define DS_OP_STORE    0x4ULL
#define DS_OP_EXEC     0x10ULL
#define DS_LVL(x)      ((uint64_t)(x) << 5)
#define LVL_NA	       0x1
#define LVL_HIT	       0x2
#define LVL_L1	       0x8
#define LVL_LFB	       0x10
#define LVL_L2	       0x20
#define LVL_L3	       0x40
#define LVL_LOC_RAM    0x80
#define LVL_REM_RAM1   0x100
#define LVL_REM_CCE1   0x400
#define LVL_REM_CCE2   0x800
#define LVL_IO	       0x1000
#define LVL_UNC	       0x2000
#define DS_SNOOP(x)    ((uint64_t)(x) << 19)
#define SNOOP_NA       0x1
#define SNOOP_HITM     0x10
#define DS_LOCK(x)     ((uint64_t)(x) << 24)
#define LOCK_NA	       0x1
#define LOCK_LOCKED    0x2
#define DS_TLB(x)      ((uint64_t)(x) << 26)
#define TLB_NA	       0x1
#define TLB_HIT	       0x2
#define TLB_MISS       0x4
#define TLB_L1	       0x8
#define TLB_L2	       0x10
#define DS_LVLNUM(x)   ((uint64_t)(x) << 33)
#define LN_L1	       1
#define LN_L2	       2
#define LN_L3	       3
#define LN_UNC	       8
#define LN_CXL	       9
#define LN_IO	       0xa
#define LN_ANY_CACHE   0xb
#define LN_LFB	       0xc
#define LN_RAM	       0xd
#define LN_PMEM	       0xe
#define LN_NA	       0xf
#define DS_REMOTE      (1ULL << 37)
#define DS_HOPS(x)     ((uint64_t)(x) << 43)
#define HOPS_0	       1
#define HOPS_1	       2
#define DS_MASK_LVL    (0x3fffULL << 5)
#define DS_MASK_LVLNUM (0xfULL << 33)

#define PERF_MEM_NA_VAL                                                                            \
	(DS_OP_NA | DS_LVL(LVL_NA) | DS_SNOOP(SNOOP_NA) | DS_LOCK(LOCK_NA) | DS_TLB(TLB_NA))

/* ---- CPU facts ---- */

void ibs_cpu__from_cpuid(struct ibs_cpu *cpu, const char *cpuid)
{
	const char *p;
	char *end;

	cpu->family = cpu->model = 0;
	if (!cpuid || strncmp(cpuid, "AuthenticAMD", 12))
		return;
	p = strchr(cpuid, ',');
	if (!p)
		return;
	cpu->family = (unsigned int)strtoul(p + 1, &end, 10);
	if (*end != ',') {
		cpu->family = 0;
		return;
	}
	cpu->model = (unsigned int)strtoul(end + 1, NULL, 10);
}

static bool cap_is_set(const struct hws_file_info *fi, const char *pmu, const char *cap)
{
	const char *v;

	if (!fi || fi->sz < offsetof(struct hws_file_info, pmu_cap_ctx) || !fi->pmu_cap)
		return false;
	v = fi->pmu_cap(fi, pmu, cap);
	return v && *v && strcmp(v, "0");
}

void ibs_cpu__from_file(struct ibs_cpu *cpu, const struct hws_file_info *fi)
{
	memset(cpu, 0, sizeof(*cpu));
	if (!fi)
		return;
	ibs_cpu__from_cpuid(cpu, fi->cpuid);
	cpu->zen4 = cap_is_set(fi, "ibs_op", "zen4_ibs_extensions") ||
		    cap_is_set(fi, "ibs_fetch", "zen4_ibs_extensions");
	cpu->dtlb_pgsize = cap_is_set(fi, "ibs_op", "dtlb_pgsize");
}

bool ibs_cpu__erratum_1293(const struct ibs_cpu *cpu)
{
	return cpu->family == 0x19 && cpu->model <= 0x0f;
}

bool ibs_cpu__cache_hit_st_valid(const struct ibs_cpu *cpu)
{
	if (cpu->family != 0x19)
		return true;
	return !(cpu->model <= 0x0f || (cpu->model >= 0x20 && cpu->model <= 0x5f));
}

/* ---- RAW parsing ---- */

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

enum ibs_kind ibs_kind_of(const char *pmu_name, uint32_t raw_size)
{
	if (pmu_name) {
		if (!strncmp(pmu_name, "ibs_op", 6))
			return IBS_KIND_OP;
		if (!strncmp(pmu_name, "ibs_fetch", 9))
			return IBS_KIND_FETCH;
	}
	/* fetch: 3 or 4 registers; op: 7 to 9 */
	if (raw_size >= 4 + 8 * IBS_OP_NR_BASE)
		return IBS_KIND_OP;
	if (raw_size >= 4 + 8 * IBS_FETCH_NR_BASE)
		return IBS_KIND_FETCH;
	return IBS_KIND_UNKNOWN;
}

int ibs_raw__parse(const void *raw, uint32_t size, enum ibs_kind kind, struct ibs_raw *out)
{
	const uint8_t *p = raw;
	uint32_t nr, base, i;

	if (!raw || size < 4)
		return HWS_E_BADREC;
	nr = (size - 4) / 8;
	if (nr > IBS_MAX_REGS)
		nr = IBS_MAX_REGS;
	base = kind == IBS_KIND_OP ? IBS_OP_NR_BASE : IBS_FETCH_NR_BASE;
	if (kind == IBS_KIND_UNKNOWN || nr < base)
		return HWS_E_BADREC;
	out->kind = kind;
	out->caps =
	    (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	out->nr = nr;
	for (i = 0; i < nr; i++)
		out->reg[i] = get_le64(p + 4 + 8 * i);
	for (; i < IBS_MAX_REGS; i++)
		out->reg[i] = 0;
	out->br_target = out->op_data4 = out->extd_ctl = -1;
	i = base;
	if (kind == IBS_KIND_OP) {
		if ((out->caps & IBS_CAPS_BRNTRGT) && i < nr)
			out->br_target = (int8_t)i++;
		if ((out->caps & IBS_CAPS_OPDATA4) && i < nr)
			out->op_data4 = (int8_t)i++;
	} else if ((out->caps & IBS_CAPS_FETCHCTLEXTD) && i < nr) {
		out->extd_ctl = (int8_t)i++;
	}
	return 0;
}

/* ---- op decoding ---- */

/* IbsOpData2 as the kernel uses it: zero under erratum #1293. */
static uint64_t op_data2_eff(const struct ibs_cpu *cpu, uint64_t data2, uint64_t data3)
{
	if (ibs_cpu__erratum_1293(cpu) && (OP3_SW_PF(data3) || OP3_DC_MISS_NO_MAB(data3)))
		return 0;
	return data2;
}

static unsigned int data_src_code(const struct ibs_cpu *cpu, uint64_t data2)
{
	if (cpu->zen4)
		return (unsigned int)(OP2_DATA_SRC_HI(data2) << 3 | OP2_DATA_SRC_LO(data2));
	return (unsigned int)OP2_DATA_SRC_LO(data2);
}

#define L(x)  (DS_LVL(LVL_##x | LVL_HIT))
#define LN(x) DS_LVLNUM(LN_##x)

static uint64_t mem_lvl(const struct ibs_cpu *cpu, bool load, uint64_t d2, uint64_t d3)
{
	unsigned int src = data_src_code(cpu, d2);
	bool rmt = OP2_RMT_NODE(d2);
	uint64_t v = 0;

	if (OP3_DC_UC_MEM_ACC(d3) && src != IBS_DS_IO)
		return L(UNC) | LN(UNC);
	if (!OP3_DC_MISS(d3))
		return L(L1) | LN(L1);
	if (!OP3_L2_MISS(d3) &&
	    !(ibs_cpu__erratum_1293(cpu) && (OP3_SW_PF(d3) || OP3_DC_MISS_NO_MAB(d3))))
		return L(L2) | LN(L2);
	if (load && cpu->zen4) {
		switch (src) {
		case IBS_DS4_LOC_CACHE:
			return L(L3) | LN(L3);
		case IBS_DS4_NEAR_CCX:
			return DS_LVL(LVL_REM_CCE1 | LVL_HIT) | LN(ANY_CACHE) | DS_REMOTE |
			       DS_HOPS(HOPS_0);
		case IBS_DS4_FAR_CCX:
			return DS_LVL(LVL_REM_CCE2 | LVL_HIT) | LN(ANY_CACHE) | DS_REMOTE |
			       DS_HOPS(HOPS_1);
		case IBS_DS4_DRAM:
			if (rmt)
				return L(REM_RAM1) | LN(RAM) | DS_REMOTE | DS_HOPS(HOPS_1);
			return L(LOC_RAM) | LN(RAM);
		case IBS_DS4_PMEM:
			v = LN(PMEM);
			break;
		case IBS_DS4_EXT_MEM:
			v = LN(CXL);
			break;
		case IBS_DS4_IO:
			return L(IO) | LN(IO);
		default:
			break;
		}
		if (v) {
			if (rmt)
				v |= DS_REMOTE | DS_HOPS(HOPS_1);
			return v;
		}
	} else if (load) {
		switch (src) {
		case IBS_DS_LOC_CACHE:
			return DS_LVL(LVL_L3 | LVL_REM_CCE1 | LVL_HIT) | LN(ANY_CACHE) |
			       DS_HOPS(HOPS_0);
		case IBS_DS_REM_CACHE:
			return DS_LVL(LVL_REM_CCE2 | LVL_HIT) | LN(ANY_CACHE) | DS_REMOTE |
			       DS_HOPS(HOPS_1);
		case IBS_DS_DRAM:
			if (rmt)
				return L(REM_RAM1) | LN(RAM) | DS_REMOTE | DS_HOPS(HOPS_1);
			return L(LOC_RAM) | LN(RAM);
		case IBS_DS_IO:
			return L(IO) | LN(IO);
		default:
			break;
		}
	}
	if (OP3_DC_MISS_NO_MAB(d3))
		return L(LFB) | LN(LFB);
	return DS_LVL(LVL_NA) | LN(NA);
}

uint64_t ibs_op_data_src(const struct ibs_cpu *cpu, uint64_t data2, uint64_t d3)
{
	uint64_t v = PERF_MEM_NA_VAL, lvl, d2;
	bool load = OP3_LD_OP(d3), tlb_valid;
	unsigned int src;

	if (!load && !OP3_ST_OP(d3))
		return v;
	v = (v & ~0x1fULL) | (load ? DS_OP_LOAD : DS_OP_STORE);
	d2 = op_data2_eff(cpu, data2, d3);

	lvl = mem_lvl(cpu, load, d2, d3);
	v = (v & ~DS_MASK_LVL) | lvl;

	/* snoop: HITM for loads served beyond L2 by a cache line in M state */
	src = data_src_code(cpu, d2);
	if (ibs_cpu__cache_hit_st_valid(cpu) && load && !(lvl & DS_LVL(LVL_L1 | LVL_L2)) &&
	    !OP2_CACHE_HIT_ST(d2)) {
		bool hitm = cpu->zen4 ? (src == IBS_DS4_LOC_CACHE || src == IBS_DS4_NEAR_CCX ||
					 src == IBS_DS4_FAR_CCX)
				      : src == IBS_DS_LOC_CACHE;
		if (hitm)
			v = (v & ~DS_SNOOP(0x1f)) | DS_SNOOP(SNOOP_HITM);
	}

	/* dTLB (Zen 5: the TLB bits are valid only with a valid physical address) */
	tlb_valid = OP3_DC_LIN_VALID(d3) && (!cpu->dtlb_pgsize || OP3_DC_PHY_VALID(d3));
	if (tlb_valid) {
		uint64_t t;

		if (!OP3_DC_L1TLB_MISS(d3))
			t = TLB_L1 | TLB_HIT;
		else if (!OP3_DC_L2TLB_MISS(d3))
			t = TLB_L2 | TLB_HIT;
		else
			t = TLB_L2 | TLB_MISS;
		v = (v & ~DS_TLB(0x7f)) | DS_TLB(t);
	}
	if (OP3_DC_LOCKED_OP(d3))
		v = (v & ~DS_LOCK(0x3)) | DS_LOCK(LOCK_LOCKED);
	return v;
}

/* Normalized level straight from the IBS bits (finer than going through data_src). */
static unsigned int op_level(const struct ibs_cpu *cpu, bool load, uint64_t d2, uint64_t d3)
{
	unsigned int src = data_src_code(cpu, d2);
	bool rmt = OP2_RMT_NODE(d2);

	if (OP3_DC_UC_MEM_ACC(d3) && src != IBS_DS_IO)
		return HWS_MEM_UNCACHED;
	if (!OP3_DC_MISS(d3))
		return HWS_MEM_L1;
	if (!OP3_L2_MISS(d3) &&
	    !(ibs_cpu__erratum_1293(cpu) && (OP3_SW_PF(d3) || OP3_DC_MISS_NO_MAB(d3))))
		return HWS_MEM_L2;
	if (load && cpu->zen4) {
		switch (src) {
		case IBS_DS4_LOC_CACHE:
			return HWS_MEM_L3;
		case IBS_DS4_NEAR_CCX:
			return HWS_MEM_PEER_CACHE;
		case IBS_DS4_FAR_CCX:
			return HWS_MEM_REMOTE_CACHE;
		case IBS_DS4_DRAM:
			return rmt ? HWS_MEM_REMOTE_DRAM : HWS_MEM_LOCAL_DRAM;
		case IBS_DS4_PMEM:
		case IBS_DS4_EXT_MEM:
			return HWS_MEM_CXL;
		case IBS_DS4_IO:
			return HWS_MEM_IO;
		default:
			break;
		}
	} else if (load) {
		switch (src) {
		case IBS_DS_LOC_CACHE: /* L3 or another CCX of this node */
			return HWS_MEM_L3;
		case IBS_DS_REM_CACHE:
			return HWS_MEM_REMOTE_CACHE;
		case IBS_DS_DRAM:
			return rmt ? HWS_MEM_REMOTE_DRAM : HWS_MEM_LOCAL_DRAM;
		case IBS_DS_IO:
			return HWS_MEM_IO;
		default:
			break;
		}
	}
	if (OP3_DC_MISS_NO_MAB(d3))
		return HWS_MEM_LFB;
	return HWS_MEM_UNKNOWN;
}

static uint64_t op_page_size(const struct ibs_cpu *cpu, uint64_t d3)
{
	static const uint64_t sz[4] = {4096, 2ULL << 20, 1ULL << 30, 0};

	if (cpu->dtlb_pgsize)
		return OP3_DC_PHY_VALID(d3) ? sz[OP3_DC_PAGE_SIZE(d3)] : 0;
	if (!OP3_DC_LIN_VALID(d3))
		return 0;
	if (!OP3_DC_L1TLB_MISS(d3))
		return OP3_DC_L1TLB_HIT_1G(d3) ? sz[2] : OP3_DC_L1TLB_HIT_2M(d3) ? sz[1] : sz[0];
	if (!OP3_DC_L2TLB_MISS(d3))
		return OP3_DC_L2TLB_HIT_1G(d3) ? sz[2] : OP3_DC_L2TLB_HIT_2M(d3) ? sz[1] : sz[0];
	return 0;
}

static void set_ds(struct hws_sample *s, uint64_t ds, const struct hws_host *host)
{
	host->data_src_normalize(ds, s);
}

static int decode_op(const struct ibs_cpu *cpu, const struct ibs_raw *r, struct hws_sample *s,
		     const struct hws_host *host)
{
	uint64_t ctl = r->reg[IBS_OP_CTL], data = r->reg[IBS_OP_DATA];
	uint64_t d3 = r->reg[IBS_OP_DATA3], d2;
	bool load = OP3_LD_OP(d3), store = OP3_ST_OP(d3);
	unsigned int w;

	if (!OP_EN(ctl) || !OP_VAL(ctl))
		return HWS_DECODE_SKIP;
	/* Never trust what the record carried for these: IBS decides. */
	s->fields &= ~(uint64_t)(HWS_SF_ADDR | HWS_SF_PHYS_ADDR | HWS_SF_DATA_SRC | HWS_SF_OP |
				 HWS_SF_BRANCH | HWS_SF_DATA_PAGE_SIZE);
	s->addr = s->phys_addr = 0;
	s->op_flags = 0;
	s->op = HWS_OP_UNKNOWN;

	if (!OP_RIP_INVALID(data)) {
		s->ip = r->reg[IBS_OP_RIP];
		s->ip_precise = 1;
		s->fields |= HWS_SF_IP;
	} else {
		s->ip_precise = 0;
	}

	s->lat_total = (uint32_t)OP_TAG_TO_RET(data);
	s->lat_ins = (uint32_t)OP_COMP_TO_RET(data);
	s->fields |= HWS_SF_LAT_TOTAL | HWS_SF_LAT_INS;

	if (load || store) {
		uint64_t ps;

		d2 = op_data2_eff(cpu, r->reg[IBS_OP_DATA2], d3);
		set_ds(s, ibs_op_data_src(cpu, r->reg[IBS_OP_DATA2], d3), host);
		s->mem_level = (uint8_t)op_level(cpu, load, d2, d3);
		if (s->mem_level == HWS_MEM_REMOTE_DRAM || s->mem_level == HWS_MEM_REMOTE_CACHE)
			s->op_flags |= HWS_OPF_REMOTE;
		s->op = load ? HWS_OP_LOAD : HWS_OP_STORE;
		if (OP3_DC_LIN_VALID(d3)) {
			s->addr = r->reg[IBS_DC_LINAD];
			s->fields |= HWS_SF_ADDR;
		}
		if (OP3_DC_PHY_VALID(d3)) {
			s->phys_addr = r->reg[IBS_DC_PHYSAD];
			s->fields |= HWS_SF_PHYS_ADDR;
		}
		w = (unsigned int)OP3_MEM_WIDTH(d3);
		s->op_width = w >= 1 && w <= 8 ? (uint8_t)(1U << (w - 1)) : 0;
		if (OP3_DC_LOCKED_OP(d3))
			s->op_flags |= HWS_OPF_LOCK;
		if (OP3_DC_UC_MEM_ACC(d3))
			s->op_flags |= HWS_OPF_UNCACHED;
		if (OP3_DC_WC_MEM_ACC(d3))
			s->op_flags |= HWS_OPF_WC;
		if (OP3_SW_PF(d3))
			s->op_flags |= HWS_OPF_PREFETCH;
		if (load && OP3_DC_MISS(d3)) {
			s->lat_miss = (uint32_t)OP3_DC_MISS_LAT(d3);
			s->fields |= HWS_SF_LAT_MISS;
			if (!(s->fields & HWS_SF_WEIGHT)) {
				s->weight = OP3_DC_MISS_LAT(d3) | OP_TAG_TO_RET(data) << 32;
				s->fields |= HWS_SF_WEIGHT;
			}
		}
		if (cpu->zen4 && OP3_DC_LIN_VALID(d3) && OP3_DC_L1TLB_MISS(d3)) {
			s->lat_xlat = (uint32_t)OP3_TLB_REFILL_LAT(d3);
			s->fields |= HWS_SF_LAT_XLAT;
		}
		ps = op_page_size(cpu, d3);
		if (ps) {
			s->data_page_size = ps;
			s->fields |= HWS_SF_DATA_PAGE_SIZE;
		}
	} else {
		s->op = OP_BRN_RET(data) ? HWS_OP_BRANCH : HWS_OP_OTHER;
	}
	s->fields |= HWS_SF_OP;

	if (OP_BRN_RET(data)) {
		s->op_flags |= OP_BRN_TAKEN(data) ? HWS_OPF_BR_TAKEN : HWS_OPF_BR_NOT_TAKEN;
		if (OP_BRN_MISP(data))
			s->op_flags |= HWS_OPF_BR_MISPRED;
		if (OP_RETURN(data))
			s->op_flags |= HWS_OPF_BR_RET;
		/* HWS_SF_BRANCH says the target is known: IbsBrTarget present and non-zero
		 * (perf's rule too); taken/mispredicted/return are in op_flags regardless. */
		if (r->br_target >= 0 && r->reg[r->br_target]) {
			s->branch_target = r->reg[r->br_target];
			s->fields |= HWS_SF_BRANCH;
		}
	}
	return 0;
}

/* ---- fetch decoding ---- */

static int decode_fetch(const struct ibs_cpu *cpu, const struct ibs_raw *r, struct hws_sample *s)
{
	static const uint64_t pgsz[4] = {4096, 2ULL << 20, 1ULL << 30, 0};
	/* erratum #1347 (family 19h models 00h-0Fh): another L1TlbPgSz table */
	static const uint64_t pgsz_1347[4] = {4096, 16384, 2ULL << 20, 1ULL << 30};
	uint64_t ctl = r->reg[IBS_FETCH_CTL], ds, lvl, tlb;
	bool zen3 = ibs_cpu__erratum_1293(cpu); /* same model range as #1238/#1347 */
	unsigned int level = HWS_MEM_UNKNOWN;

	if (!FETCH_EN(ctl) || !FETCH_VAL(ctl))
		return HWS_DECODE_SKIP;
	if (!r->reg[IBS_FETCH_LINAD]) /* erratum #1197: fetch sample with a zero address */
		return HWS_DECODE_SKIP;
	s->fields &= ~(uint64_t)(HWS_SF_ADDR | HWS_SF_PHYS_ADDR | HWS_SF_DATA_SRC | HWS_SF_OP |
				 HWS_SF_BRANCH | HWS_SF_CODE_PAGE_SIZE);
	s->addr = s->phys_addr = 0;
	s->op_flags = 0;

	s->ip = r->reg[IBS_FETCH_LINAD];
	s->ip_precise = 1;
	s->fields |= HWS_SF_IP;
	if (FETCH_PHY_VALID(ctl)) {
		s->phys_addr = r->reg[IBS_FETCH_PHYSAD];
		s->fields |= HWS_SF_PHYS_ADDR;
		if (!FETCH_L1TLB_MISS(ctl)) {
			uint64_t ps = (zen3 ? pgsz_1347 : pgsz)[FETCH_L1TLB_PGSZ(ctl)];

			if (ps) {
				s->code_page_size = ps;
				s->fields |= HWS_SF_CODE_PAGE_SIZE;
			}
		}
	}
	s->lat_total = (uint32_t)FETCH_LAT(ctl);
	s->fields |= HWS_SF_LAT_TOTAL;
	if (r->extd_ctl >= 0 && FETCH_L1TLB_MISS(ctl)) {
		s->lat_xlat = (uint32_t)FETCH_ITLB_REFILL_LAT(r->reg[r->extd_ctl]);
		s->fields |= HWS_SF_LAT_XLAT;
	}
	s->op = HWS_OP_OTHER;
	s->fields |= HWS_SF_OP;

	/* Where the instruction bytes came from: needs a completed fetch; IcMiss is
	 * unreliable on family 19h models 00h-0Fh (erratum #1238). */
	lvl = DS_LVL(LVL_NA) | LN(NA);
	if (FETCH_COMP(ctl) && !zen3) {
		if (!FETCH_IC_MISS(ctl)) {
			level = HWS_MEM_L1;
			lvl = L(L1) | LN(L1);
		} else if (!FETCH_L2_MISS(ctl)) {
			level = HWS_MEM_L2;
			lvl = L(L2) | LN(L2);
		} else if (cpu->zen4 && !FETCH_L3_MISS(ctl)) {
			level = HWS_MEM_L3;
			lvl = L(L3) | LN(L3);
		}
	}
	if (!FETCH_L1TLB_MISS(ctl))
		tlb = TLB_L1 | TLB_HIT;
	else if (!FETCH_L2TLB_MISS(ctl))
		tlb = TLB_L2 | TLB_HIT;
	else
		tlb = TLB_L2 | TLB_MISS;
	ds = DS_OP_EXEC | lvl | DS_SNOOP(SNOOP_NA) | DS_LOCK(LOCK_NA) | DS_TLB(tlb);
	s->data_src = ds;
	s->mem_level = (uint8_t)level;
	s->snoop = HWS_SNOOP_UNKNOWN;
	s->tlb = (uint8_t)(!FETCH_L1TLB_MISS(ctl)   ? HWS_TLB_L1_HIT
			   : !FETCH_L2TLB_MISS(ctl) ? HWS_TLB_L2_HIT
						    : HWS_TLB_MISS);
	s->fields |= HWS_SF_DATA_SRC;
	return 0;
}

int ibs_decode_raw(const struct ibs_cpu *cpu, const struct ibs_raw *r, struct hws_sample *s,
		   const struct hws_host *host)
{
	if (r->kind == IBS_KIND_OP)
		return decode_op(cpu, r, s, host);
	if (r->kind == IBS_KIND_FETCH)
		return decode_fetch(cpu, r, s);
	return HWS_E_BADREC;
}

/* ---- raw JSON ---- */

/* One sample's JSON is built here first (bounded, no printf on the hot path), then appended
 * in one go. */
struct jbuf {
	char b[4096];
	size_t n;
	int overflow;
};

static void jput(struct jbuf *j, const char *s, size_t n)
{
	if (j->overflow || n >= sizeof(j->b) - j->n) {
		j->overflow = 1;
		return;
	}
	memcpy(j->b + j->n, s, n);
	j->n += n;
	j->b[j->n] = 0;
}

static void jstr(struct jbuf *j, const char *s)
{
	size_t n = strlen(s);

	if (j->overflow || n >= sizeof(j->b) - j->n) {
		j->overflow = 1;
		return;
	}
	memcpy(j->b + j->n, s, n + 1);
	j->n += n;
}

/* numbers by <hwsample/fmt.h>'s writers, through a buffer with their slack */
static void ju64(struct jbuf *j, uint64_t v)
{
	char t[HWS_FMT_U64_MAX];

	jput(j, t, (size_t)(hws_fmt__u64(t, v) - t));
}

/* "0x..." */
static void jhex(struct jbuf *j, uint64_t v)
{
	char t[HWS_FMT_HEX_MAX + 2];
	char *e;

	t[0] = '"';
	e = hws_fmt__hex(t + 1, v);
	*e++ = '"';
	jput(j, t, (size_t)(e - t));
}

/* ,"name": */
static void jkey(struct jbuf *j, const char *name)
{
	jstr(j, ",\"");
	jstr(j, name);
	jstr(j, "\":");
}

static void json_reg(struct jbuf *j, const struct ibs_reg_desc *d, uint64_t v)
{
	const struct ibs_field *f;
	size_t need = 64;
	char *p;

	jstr(j, d->key);
	if (!d->fields) {
		jhex(j, v);
		return;
	}
	jstr(j, "{\"value\":");
	jhex(j, v);
	for (f = d->fields; f->name; f++)
		need += 64;
	/* a field: the 32-byte key move, then at most 20 digits and HWS_FMT_SLACK bytes past
	 * them; it moves on by at most 31 + 20 bytes and stores at most 67 past its start, so
	 * 64 per field and 64 more cover every store ('}' and NUL too) */
	if (j->overflow || need >= sizeof(j->b) - j->n) {
		j->overflow = 1;
		return;
	}
	p = j->b + j->n;
	for (f = d->fields; f->name; f++) {
		uint64_t x = ibs_bits(v, f->lo, f->width);

		memcpy(p, f->key, sizeof(f->key));
		p = hws_fmt__u64(p + f->keylen, x);
	}
	*p++ = '}';
	*p = 0;
	j->n = (size_t)(p - j->b);
}

/* Append @j to @sb: straight into its buffer when it has room (struct hws_strbuf is
 * contract data), else through the host in pieces short enough for its one-pass printf. */
static int jflush(const struct hws_host *host, struct hws_strbuf *sb, const struct jbuf *j)
{
	size_t off = 0;

	while (off < j->n) {
		size_t n = j->n - off;

		if (sb->buf && sb->len + n + 1 <= sb->alloc &&
		    (!sb->cap || sb->len + n <= sb->cap)) {
			memcpy(sb->buf + sb->len, j->b + off, n);
			sb->len += n;
			sb->buf[sb->len] = 0;
			return 0;
		}
		n = n > 200 ? 200 : n;
		if (host->strbuf_addf(sb, "%.*s", (int)n, j->b + off))
			return sb->toobig ? HWS_E_TOO_BIG : -ENOMEM;
		off += n;
	}
	return 0;
}

int ibs_raw__json(const struct ibs_cpu *cpu, const struct ibs_raw *r, const struct hws_host *host,
		  struct hws_strbuf *sb)
{
	struct jbuf j;

	j.n = 0;
	j.overflow = 0;
	j.b[0] = 0;
	jstr(&j, r->kind == IBS_KIND_OP ? "{\"pmu\":\"ibs_op\",\"caps\":"
					: "{\"pmu\":\"ibs_fetch\",\"caps\":");
	ju64(&j, r->caps);
	if (r->kind == IBS_KIND_FETCH) {
		uint64_t ctl = r->reg[IBS_FETCH_CTL];

		json_reg(&j, &ibs_fetch_ctl_desc, ctl);
		json_reg(&j, &ibs_fetch_linad_desc, r->reg[IBS_FETCH_LINAD]);
		json_reg(&j, &ibs_fetch_physad_desc, r->reg[IBS_FETCH_PHYSAD]);
		if (r->extd_ctl >= 0)
			json_reg(&j, &ibs_fetch_extd_desc, r->reg[r->extd_ctl]);
		/* derived: counts in fetches, and whether errata #1238/#1347 apply */
		jkey(&j, "MaxCnt");
		ju64(&j, FETCH_MAXCNT(ctl) << 4);
		jkey(&j, "Cnt");
		ju64(&j, FETCH_CNT(ctl) << 4);
		jkey(&j, "erratum_1238_1347");
		ju64(&j, ibs_cpu__erratum_1293(cpu));
	} else {
		uint64_t ctl = r->reg[IBS_OP_CTL], d3 = r->reg[IBS_OP_DATA3];
		uint64_t d2 = r->reg[IBS_OP_DATA2];

		json_reg(&j, &ibs_op_ctl_desc, ctl);
		json_reg(&j, &ibs_op_rip_desc, r->reg[IBS_OP_RIP]);
		json_reg(&j, &ibs_op_data_desc, r->reg[IBS_OP_DATA]);
		json_reg(&j, &ibs_op_data2_desc, d2);
		json_reg(&j, &ibs_op_data3_desc, d3);
		json_reg(&j, &ibs_dc_linad_desc, r->reg[IBS_DC_LINAD]);
		json_reg(&j, &ibs_dc_physad_desc, r->reg[IBS_DC_PHYSAD]);
		if (r->br_target >= 0)
			json_reg(&j, &ibs_br_target_desc, r->reg[r->br_target]);
		if (r->op_data4 >= 0)
			json_reg(&j, &ibs_op_data4_desc, r->reg[r->op_data4]);
		/* derived: period in ops/cycles, the DataSrc code as this CPU defines it */
		jkey(&j, "MaxCnt");
		ju64(&j, (OP_MAXCNT_EXT(ctl) << 16 | OP_MAXCNT(ctl)) << 4);
		jkey(&j, "DataSrc");
		ju64(&j, data_src_code(cpu, op_data2_eff(cpu, d2, d3)));
		if (cpu->dtlb_pgsize) {
			jkey(&j, "DcPageSize");
			ju64(&j, OP3_DC_PAGE_SIZE(d3));
		}
		jkey(&j, "erratum_1293");
		ju64(&j, ibs_cpu__erratum_1293(cpu) && (OP3_SW_PF(d3) || OP3_DC_MISS_NO_MAB(d3)));
	}
	jstr(&j, "}");
	if (j.overflow)
		return HWS_E_TOO_BIG;
	return jflush(host, sb, &j);
}
