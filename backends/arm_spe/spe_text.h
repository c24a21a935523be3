/* SPDX-License-Identifier: MIT */
/*
 * Unchecked text writers for the raw JSON formatter (spe_raw.c). Each writes at @p and
 * returns the end of its text; it may store up to SPE_TEXT_SLACK bytes past that end
 * (whole 8- or 16-byte stores), so the caller keeps that much room.
 *
 * The numbers are <hwsample/fmt.h>'s writers (hex and decimal), whose slack fits in this one.
 * Little-endian hosts only (arm64, x86-64: the tool's targets).
 */
#ifndef HWS_ARM_SPE_TEXT_H
#define HWS_ARM_SPE_TEXT_H

#include <stdint.h>
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

/* @v in lower-case hex without leading zeros or prefix: core's writer (all 16 digits from
 * one vector step, the leading zeros shifted out first; two 8-digit words elsewhere) */
#define spe_put_hex hws_fmt__hex_digits

/* @v in decimal: core's writer (eight digits a word, the count from the bit length) */
#define spe_put_u64 hws_fmt__u64

static inline char *spe_put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return spe_put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return spe_put_u64(p, (uint64_t)v);
}

#endif
