/* SPDX-License-Identifier: MIT */
/*
 * Golden AMD IBS PERF_SAMPLE_RAW blobs, byte by byte (little-endian, as the kernel writes
 * them on x86): u32 caps, then the u64 MSRs in the kernel's read order.
 * Register values: as published in the kernel's perf-amd-ibs documentation (Linux
 * tools/perf/Documentation/perf-amd-ibs.txt) and the perf commit "perf script ibs: Support
 * new IBS bits" (and AMDESE/amd-perf-tools for the older layout, below), with perf's decoding in
 * the comments. LE32/LE64 spell out the byte order explicitly so these arrays are the same bytes on
 * any host.
 */
#ifndef HWS_GOLDEN_IBS_RECORDS_H
#define HWS_GOLDEN_IBS_RECORDS_H

#include <stdint.h>

/* clang-format off: hand-aligned tables (one entry or record field per line) */

#define LE32(v) (uint8_t)(v), (uint8_t)((v) >> 8), (uint8_t)((v) >> 16), (uint8_t)((v) >> 24)
#define LE64(v)                                                                                    \
	(uint8_t)(v), (uint8_t)((v) >> 8), (uint8_t)((v) >> 16), (uint8_t)((v) >> 24),             \
	    (uint8_t)((v) >> 32), (uint8_t)((v) >> 40), (uint8_t)((v) >> 48), (uint8_t)((v) >> 56)

/* Zen 4 load that hit a peer cache in a near CCX (caps: Zen 4 with BrTarget and OpData4). */
static const uint8_t golden_op_zen4_load[] = {
    LE32(0x00000ff7u),		 /* caps: AVAIL..OPDATA4, ZEN4 (bit 11) */
    LE64(0x0000004500070008ULL), /* IbsOpCtl: MaxCnt 128, L3MissOnly 1, En 1, Val 1,
				  * CntCtl 0 (cycles), CurCnt 69 */
    LE64(0x00007f0000401000ULL), /* IbsOpRip (chosen) */
    LE64(0x0000000000710002ULL), /* IbsOpData: CompToRetCtr 2, TagToRetCtr 113 */
    LE64(0x0000000000000002ULL), /* IbsOpData2: CacheHitSt 0 (M), RmtNode 0,
				  * DataSrc 2 = peer cache in a near CCX */
    LE64(0x000000681d1700a1ULL), /* IbsOpData3: LdOp, DcL1TlbHit1G, DcMiss,
				  * DcMissNoMabAlloc, DcLinAddrValid, DcPhyAddrValid,
				  * L2Miss, OpMemWidth 8 B, OpDcMissOpenMemReqs 7,
				  * DcMissLat 104, TlbRefillLat 0 */
    LE64(0x00007f0012345678ULL), /* IbsDcLinAd (chosen) */
    LE64(0x0000000abcdef678ULL), /* IbsDcPhysAd (chosen) */
    LE64(0x0000000000000000ULL), /* IbsBrTarget */
    LE64(0x0000000000000000ULL), /* IbsOpData4 */
};

/* Kernel-mode store to remote DRAM (legacy caps: BrTarget, no OpData4). */
static const uint8_t golden_op_store[] = {
    LE32(0x000003ffu),		 /* caps: AVAIL..FETCHCTLEXTD (no OPDATA4, no ZEN4) */
    LE64(0x000002c30006186aULL), /* IbsOpCtl: MaxCnt 100000, En 1, Val 1, CurCnt 707 */
    LE64(0xffffffff8204aea7ULL), /* IbsOpRip */
    LE64(0x0000010002550001ULL), /* IbsOpData: CompToRetCtr 1, TagToRetCtr 597,
				  * Microcode 1 */
    LE64(0x0000000000000013ULL), /* IbsOpData2: RmtNode 1, DataSrc 3 = DRAM */
    LE64(0x0000000031960092ULL), /* IbsOpData3: StOp, DcL1TlbHit2M, DcMiss,
				  * DcLinAddrValid, DcPhyAddrValid, L2Miss,
				  * OpMemWidth 32 B, OpDcMissOpenMemReqs 12 */
    LE64(0xff110008a5398920ULL), /* IbsDcLinAd */
    LE64(0x00000008a5398920ULL), /* IbsDcPhysAd */
    LE64(0x0000000000000000ULL), /* IbsBrTarget */
};

/* Zen 4 fetch that missed IC, L2 and L3. */
static const uint8_t golden_fetch_zen4[] = {
    LE32(0x00000fffu),		 /* caps: with FETCHCTLEXTD and ZEN4 */
    LE64(0x3c1f00c700080008ULL), /* IbsFetchCtl: MaxCnt 128, Cnt 128, Lat 199,
				  * En/Val/Comp 1, IcMiss 1, PhyAddrValid 1,
				  * L1TlbPgSz 4 KB, L2Miss 1, L3MissOnly 1,
				  * FetchOcMiss 1, FetchL3Miss 1 */
    LE64(0x000055555555a000ULL), /* IbsFetchLinAd (chosen) */
    LE64(0x0000000123456000ULL), /* IbsFetchPhysAd (chosen) */
    LE64(0x0000000000000000ULL), /* IcIbsExtdCtl: IbsItlbRefillLat 0 */
};

/* Older fetch layout (AMDESE/amd-perf-tools README): Val is clear, so not a sample. */
static const uint8_t golden_fetch_not_valid[] = {
    LE32(0x000000ffu),		 /* caps: no FETCHCTLEXTD */
    LE64(0x0221008d039915eeULL), /* IbsFetchCtl: RandEn 1, En 1, Val 0, Lat 141,
				  * Cnt 0x0399, MaxCnt 0x15ee */
    LE64(0x0000000000401000ULL), /* IbsFetchLinAd */
    LE64(0x0000000000000000ULL), /* IbsFetchPhysAd */
};

/* clang-format on */

#endif
