// SPDX-License-Identifier: MIT
/*
 * Arm SPE packet decoder (pure): one packet at a time from a byte buffer, little-endian
 * payloads read byte by byte, never past @len. Header rules (the Arm ARM, chapter D10; Linux
 * tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.c decodes them the same):
 *   0x00 PAD, 0x01 END, 0x71 TIMESTAMP (8 B),
 *   (h & 0xcf) == 0x42 EVENTS, == 0x43 DATA_SOURCE (payload size 1 << h[5:4]),
 *   (h & 0xfc) == 0x64 CONTEXT (4 B), == 0x48 OP_TYPE (1 B),
 *   (h & 0xfc) == 0x20 extended header: second byte 0x00 = alignment, else its low 3 bits
 *   extend the ADDRESS/COUNTER index by h0[1:0] << 3,
 *   (h & 0xf8) == 0xb0 ADDRESS (8 B), == 0x98 COUNTER (2 B).
 * Anything else is a bad packet; the caller counts it and resyncs.
 */
#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "spe.h"
#include "spe_pkt_inline.h"

static const char *const pkt_names[] = {
    [SPE_PKT_BAD] = "BAD",	   [SPE_PKT_PAD] = "PAD",
    [SPE_PKT_END] = "END",	   [SPE_PKT_TIMESTAMP] = "TS",
    [SPE_PKT_ADDRESS] = "ADDR",	   [SPE_PKT_COUNTER] = "LAT",
    [SPE_PKT_CONTEXT] = "CONTEXT", [SPE_PKT_OP_TYPE] = "OP-TYPE",
    [SPE_PKT_EVENTS] = "EVENTS",   [SPE_PKT_DATA_SOURCE] = "DATA-SOURCE",
    [SPE_PKT_ALIGN] = "ALIGN",
};

const char *spe_pkt__name(unsigned int type)
{
	return type < sizeof(pkt_names) / sizeof(pkt_names[0]) ? pkt_names[type] : "?";
}

int spe_pkt__get(const uint8_t *buf, size_t len, uint64_t pos, struct spe_pkt *p)
{
	return spe_pkt__get_inline(buf, len, pos, p);
}

int spe_record__add(struct spe_record *r, const struct spe_pkt *p)
{
	return spe_record__add_inline(r, p);
}
