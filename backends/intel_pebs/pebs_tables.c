// SPDX-License-Identifier: MIT
/*
 * intel_pebs const tables: per-microarchitecture facts and the perf_mem_data_src field
 * names. Pure data, no code besides the lookup.
 *
 * Sources (facts only): Linux 6.1 arch/x86/events/intel/core.c (caps/pmu_name strings,
 * the mem-loads / mem-stores / mem-loads-aux event aliases, which cores grant precise_ip=3
 * to which events) and Linux include/uapi/linux/perf_event.h (PERF_MEM_* values).
 *
 * Invariant: the alias strings are only a fallback. When sysfs has
 * <pmu>/events/<alias>, that file wins (it is what the running kernel says).
 */
#include <string.h>

#include "pebs_priv.h"

/* clang-format off: hand-aligned tables (one entry or record field per line) */

#define LD_SNB "event=0xcd,umask=0x1,ldlat=3"
#define ST_SNB "event=0xcd,umask=0x2"
#define ST_HSW "event=0xd0,umask=0x82"
#define LD_GRT "event=0xd0,umask=0x5,ldlat=3"
#define ST_GRT "event=0xd0,umask=0x6"
#define LD_AUX "event=0x03,umask=0x82"

const struct pebs_model pebs_models[] = {
    {.pmu_name = "nehalem",
     .desc = "Nehalem",
     .p3 = PEBS_P3_ANY,
     .mem_loads = {"event=0x0b,umask=0x10,ldlat=3"}},
    {.pmu_name = "westmere",
     .desc = "Westmere",
     .p3 = PEBS_P3_ANY,
     .mem_loads = {"event=0x0b,umask=0x10,ldlat=3"}},
    {.pmu_name = "sandybridge",
     .desc = "Sandy Bridge",
     .p3 = PEBS_P3_ANY,
     .mem_loads = {LD_SNB},
     .mem_stores = {ST_SNB}},
    {.pmu_name = "ivybridge",
     .desc = "Ivy Bridge",
     .p3 = PEBS_P3_ANY,
     .mem_loads = {LD_SNB},
     .mem_stores = {ST_SNB}},
    {.pmu_name = "haswell",
     .desc = "Haswell",
     .p3 = PEBS_P3_ANY,
     .mem_loads = {LD_SNB},
     .mem_stores = {ST_HSW}},
    {.pmu_name = "broadwell",
     .desc = "Broadwell",
     .p3 = PEBS_P3_ANY,
     .mem_loads = {LD_SNB},
     .mem_stores = {ST_HSW}},
    {.pmu_name = "skylake",
     .desc = "Skylake / Cascade Lake",
     .p3 = PEBS_P3_ANY,
     .mem_loads = {LD_SNB},
     .mem_stores = {ST_HSW}},
    {.pmu_name = "icelake",
     .desc = "Ice Lake / Tiger Lake",
     .p3 = PEBS_P3_PDIST,
     .mem_loads = {LD_SNB},
     .mem_stores = {ST_HSW},
     .pdist_events = "INST_RETIRED.PREC_DIST,INST_RETIRED.ANY"},
    {.pmu_name = "sapphire_rapids",
     .desc = "Sapphire Rapids (Golden Cove)",
     .p3 = PEBS_P3_PDIST,
     .mem_loads = {LD_SNB},
     .mem_stores = {ST_SNB},
     .mem_loads_aux = {LD_AUX},
     .pdist_events = "INST_RETIRED.PREC_DIST,INST_RETIRED.ANY"},
    {.pmu_name = "gracemont",
     .desc = "Gracemont (E-core only)",
     .p3 = PEBS_P3_PDIST,
     .mem_loads = {LD_GRT},
     .mem_stores = {ST_GRT},
     .pdist_events = "INST_RETIRED.ANY"},
    /* hybrid: [0] = cpu_core (Golden Cove / Raptor Cove), [1] = cpu_atom (Gracemont) */
    {.pmu_name = "alderlake_hybrid",
     .desc = "Alder Lake / Raptor Lake hybrid",
     .p3 = PEBS_P3_PDIST,
     .mem_loads = {LD_SNB, LD_GRT},
     .mem_stores = {ST_SNB, ST_GRT},
     .mem_loads_aux = {LD_AUX, NULL},
     .pfm_pmu = {"adl_glc", "adl_grt"},
     .pdist_events = "INST_RETIRED.PREC_DIST,INST_RETIRED.ANY"},
    {.pmu_name = NULL},
};

const struct pebs_model *pebs_model__find(const char *pmu_name)
{
	const struct pebs_model *m;

	if (!pmu_name)
		return NULL;
	for (m = pebs_models; m->pmu_name; m++)
		if (!strcmp(m->pmu_name, pmu_name))
			return m;
	return NULL;
}

/* perf_mem_data_src, uapi PERF_MEM_* (bitmask fields name each bit, enumerated fields
 * name each value). */
static const char *const op_bits[] = {"NA", "LOAD", "STORE", "PFETCH", "EXEC", NULL};
static const char *const lvl_bits[] = {"NA",	   "HIT",      "MISS",	  "L1",	      "LFB",
				       "L2",	   "L3",       "LOC_RAM", "REM_RAM1", "REM_RAM2",
				       "REM_CCE1", "REM_CCE2", "IO",	  "UNC",      NULL};
static const char *const snoop_bits[] = {"NA", "NONE", "HIT", "MISS", "HITM", NULL};
static const char *const lock_bits[] = {"NA", "LOCKED", NULL};
static const char *const tlb_bits[] = {"NA", "HIT", "MISS", "L1", "L2", "WK", "OS", NULL};
static const char *const lvlnum_vals[16] = {
    [0] = "0",	  [1] = "L1",	[2] = "L2",    [3] = "L3",  [4] = "L4",	 [5] = "L2_MHB",
    [6] = "MSC",  [7] = "L0",	[8] = "UNC",   [9] = "CXL", [10] = "IO", [11] = "ANY_CACHE",
    [12] = "LFB", [13] = "RAM", [14] = "PMEM", [15] = "NA",
};
static const char *const remote_bits[] = {"REMOTE", NULL};
static const char *const snoopx_bits[] = {"FWD", "PEER", NULL};
static const char *const blk_bits[] = {"NA", "DATA", "ADDR", NULL};
static const char *const hops_vals[8] = {"0",	   "HOPS_0", "HOPS_1", "HOPS_2",
					 "HOPS_3", "5",	     "6",      "7"};

const struct pebs_ds_field pebs_ds_fields[] = {
    {"mem_op", 0, 5, op_bits, NULL, 0},		 {"mem_lvl", 5, 14, lvl_bits, NULL, 0},
    {"mem_snoop", 19, 5, snoop_bits, NULL, 0},	 {"mem_lock", 24, 2, lock_bits, NULL, 0},
    {"mem_dtlb", 26, 7, tlb_bits, NULL, 0},	 {"mem_lvl_num", 33, 4, NULL, lvlnum_vals, 16},
    {"mem_remote", 37, 1, remote_bits, NULL, 0}, {"mem_snoopx", 38, 2, snoopx_bits, NULL, 0},
    {"mem_blk", 40, 3, blk_bits, NULL, 0},	 {"mem_hops", 43, 3, NULL, hops_vals, 8},
};

const size_t pebs_nr_ds_fields = sizeof(pebs_ds_fields) / sizeof(pebs_ds_fields[0]);

/* clang-format on */
