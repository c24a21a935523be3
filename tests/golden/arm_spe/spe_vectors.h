/* SPDX-License-Identifier: MIT */
/*
 * Arm SPE golden records: public byte vectors (the comment above each names where it was
 * published) transcribed as annotated arrays, little-endian as the hardware
 * writes them. Expected decodes are the text the real perf prints for them (perf report -D).
 */
#ifndef HWS_GOLDEN_ARM_SPE_VECTORS_H
#define HWS_GOLDEN_ARM_SPE_VECTORS_H

#include <stdint.h>

/* clang-format off: hand-aligned tables (one entry or record field per line) */

/* Ampere Altra (Neoverse N1), AmpereComputing/ampere-lts-kernel issue #123: one load record,
 * then the PC packet that opens the next record. */
static const uint8_t spe_altra_ld[] = {
    0x49, 0x00,	      /* OP_TYPE ld/st: LD GP-REG */
    0x52, 0x1e, 0x03, /* EVENTS (2 B): RETIRED L1D-ACCESS L1D-REFILL
		       * TLB-ACCESS LLC-ACCESS LLC-REFILL */
    0x99, 0x51, 0x01, /* COUNTER 1: issue latency 337 */
    0x98, 0xf5, 0x01, /* COUNTER 0: total latency 501 */
    0xb2, 0x50, 0x9e, 0xd7, 0xf1, 0x3e, 0x40, 0xff, 0x00, /* ADDRESS 2: VA */
    0x9a, 0x01, 0x00,					  /* COUNTER 2: translation latency 1 */
    0xb3, 0x50, 0x9e, 0xd7, 0x71, 0x3f, 0x40, 0x00, 0x80, /* ADDRESS 3: PA, NS=1 */
    0x43, 0x0c,						  /* DATA_SOURCE 12 (N1: peer cluster) */
    0x00, 0x00,						  /* PAD PAD */
    0x71, 0xb3, 0x9a, 0xe9, 0xbd, 0x3e, 0x07, 0x00, 0x00, /* TIMESTAMP 7966055570099 */
    0xb0, 0x88, 0xb6, 0xcb, 0x8f, 0x22, 0xd4, 0xff, 0xc0, /* ADDRESS 0: PC of next record */
};
static const char *const spe_altra_ld_desc[] = {
    "LD GP-REG",
    "EV RETIRED L1D-ACCESS L1D-REFILL TLB-ACCESS LLC-ACCESS LLC-REFILL",
    "LAT 337 ISSUE",
    "LAT 501 TOT",
    "VA 0xff403ef1d79e50",
    "LAT 1 XLAT",
    "PA 0x403f71d79e50 ns=1 ch=0 pat=0",
    "DATA-SOURCE 12",
    "PAD",
    "PAD",
    "TS 7966055570099",
    "PC 0xffd4228fcbb688 el2 ns=1",
};

/* google/perf_data_converter arm_spe_decoder_test.cc (BSD-3): a full load record. */
static const uint8_t spe_pdc_ld[] = {
    0xb0, 0xd0, 0xc2, 0xa1, 0xed, 0x66, 0xba, 0xff, 0xc0, /* ADDRESS 0: PC, EL2, NS */
    0x00, 0x00, 0x00, 0x00, 0x00,			  /* PAD x5 */
    0x65, 0x80, 0x5f, 0x00, 0x00,			  /* CONTEXT (CONTEXTIDR_EL2) 0x5f80 */
    0x49, 0x00,						  /* OP_TYPE: LD GP-REG */
    0x52, 0x16, 0x00, /* EVENTS: RETIRED L1D-ACCESS TLB-ACCESS */
    0x99, 0x04, 0x00, /* COUNTER 1: issue 4 */
    0x98, 0x0c, 0x00, /* COUNTER 0: total 12 */
    0xb2, 0x28, 0x6b, 0x09, 0x03, 0x37, 0x0e, 0xff, 0x00, /* ADDRESS 2: VA */
    0x9a, 0x01, 0x00,					  /* COUNTER 2: translation 1 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* PAD x9 */
    0x43, 0x00,						  /* DATA_SOURCE 0 (L1D) */
    0x00, 0x00,						  /* PAD x2 */
    0x71, 0x2e, 0x65, 0x2f, 0x6a, 0x0a, 0x00, 0x00, 0x00, /* TIMESTAMP 44731163950 */
};

/* windowsperf issue #62: a conditional branch record's packets, then store packets. */
static const uint8_t spe_wperf_br_st[] = {
    0x4a, 0x01,						  /* OP_TYPE branch: B COND */
    0xb1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, /* ADDRESS 1: TGT 0 el0 ns=1 */
    0x42, 0x42,						  /* EVENTS (1 B): RETIRED NOT-TAKEN */
    0x01,						  /* END */
    0x49, 0x01,						  /* OP_TYPE: ST GP-REG */
    0xb2, 0x50, 0xbd, 0xba, 0x73, 0x00, 0x80, 0xff, 0xff, /* ADDRESS 2: VA */
    0xb3, 0x50, 0xbd, 0xba, 0xf3, 0x00, 0x00, 0x00, 0x80, /* ADDRESS 3: PA ns=1 */
    0x01,						  /* END */
};
static const char *const spe_wperf_br_st_desc[] = {
    "B COND",	 "TGT 0x0 el0 ns=1",	  "EV RETIRED NOT-TAKEN",	   "END",
    "ST GP-REG", "VA 0xffff800073babd50", "PA 0xf3babd50 ns=1 ch=0 pat=0", "END",
};

/* ARM-software/spe-parser unit tests (Apache-2.0): single packets. */
static const uint8_t spe_parser_pkts[] = {
    0xb0, 0x5c, 0x8b, 0x8c, 0x86, 0xc2, 0xc0, 0xff, 0xc0, /* PC */
    0xb3, 0xe8, 0x09, 0x8a, 0xd8, 0x0b, 0x08, 0x00, 0x80, /* PA */
    0xb2, 0xc0, 0x26, 0xc2, 0x07, 0x20, 0xfc, 0xff, 0x00, /* VA */
    0xb1, 0xe0, 0x89, 0x8c, 0x86, 0xc2, 0xc0, 0xff, 0xc0, /* TGT */
    0x99, 0x07, 0x00,					  /* issue latency */
    0x98, 0x0b, 0x00,					  /* total latency */
    0x9a, 0x01, 0x00,					  /* translation latency */
};
static const char *const spe_parser_desc[] = {
    "PC 0xffc0c2868c8b5c el2 ns=1",
    "PA 0x80bd88a09e8 ns=1 ch=0 pat=0",
    "VA 0xfffc2007c226c0",
    "TGT 0xffc0c2868c89e0 el2 ns=1",
    "LAT 7 ISSUE",
    "LAT 11 TOT",
    "LAT 1 XLAT",
};

/* clang-format on */

#endif
