/* SPDX-License-Identifier: MIT */
/*
 * Unchecked text writers for the raw JSON formatter (spe_raw.c): literals here, numbers by
 * <hwsample/fmt.h> (hws_fmt__hex_digits, hws_fmt__u64, hws_fmt__i64). Each writes at @p and
 * returns the end of its text; it may store up to SPE_TEXT_SLACK bytes past that end
 * (whole 8- or 16-byte stores), so the caller keeps that much room.
 * Little-endian hosts only (arm64, x86-64: the tool's targets).
 */
#ifndef HWS_ARM_SPE_TEXT_H
#define HWS_ARM_SPE_TEXT_H

#include <string.h>

#include <hwsample/fmt.h> /* header-only number writers shared with core */

#define SPE_TEXT_SLACK 16
_Static_assert(SPE_TEXT_SLACK >= HWS_FMT_SLACK, "number writes stay in the slack");

/* a string literal, without its NUL */
#define SPE_PUT_LIT(p, s)                                                                          \
	do {                                                                                       \
		memcpy((p), "" s, sizeof(s) - 1);                                                  \
		(p) += sizeof(s) - 1;                                                              \
	} while (0)

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "arm_spe/spe_text.h assumes a little-endian host"
#endif

#endif
