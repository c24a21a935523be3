// SPDX-License-Identifier: MIT
/*
 * Arm SPE raw JSON (`dump --raw`): every packet of a record (type, index, length, payload,
 * the text `perf report -D` prints for it), the events by name, op/source/context fields,
 * MIDR, data-source table and core name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spe.h"
#include "spe_pkt_inline.h"

static const char *const ev_names[32] = {
    [0] = "EXCEPTION-GEN",
    [1] = "RETIRED",
    [2] = "L1D-ACCESS",
    [3] = "L1D-REFILL",
    [4] = "TLB-ACCESS",
    [5] = "TLB-REFILL",
    [6] = "NOT-TAKEN",
    [7] = "MISPRED",
    [8] = "LLC-ACCESS",
    [9] = "LLC-REFILL",
    [10] = "REMOTE-ACCESS",
    [11] = "ALIGNMENT",
    [16] = "TXN",
    [17] = "SVE-PARTIAL-PRED",
    [18] = "SVE-EMPTY-PRED",
    [19] = "L2D-ACCESS",
    [20] = "L2D-MISS",
    [21] = "CACHE-DATA-MODIFIED",
    [22] = "RECENTLY-FETCHED",
    [23] = "DATA-SNOOPED",
    [24] = "STREAMING-SVE",
    [25] = "SMCU",
};

/* A bounded text writer (no snprintf in the hot path: dump --raw renders every packet). */
struct wb {
	char *b;
	size_t n, cap; /* n may pass cap: then the text is cut, b stays NUL-terminated */
};

static void wb_add(struct wb *w, const char *s, size_t len)
{
	if (w->n < w->cap) {
		size_t k = len < w->cap - w->n ? len : w->cap - w->n;

		memcpy(w->b + w->n, s, k);
	}
	w->n += len;
}

static void wb_str(struct wb *w, const char *s)
{
	wb_add(w, s, strlen(s));
}

#define wb_lit(w, s) wb_add((w), "" s, sizeof(s) - 1) /* a string literal: no strlen */

static void wb_hex(struct wb *w, uint64_t v) /* lower-case, no prefix */
{
	static const char dig[] = "0123456789abcdef";
	char t[16];
	int i = 16;

	do {
		t[--i] = dig[v & 15];
		v >>= 4;
	} while (v);
	wb_add(w, t + i, (size_t)(16 - i));
}

static void wb_u64(struct wb *w, uint64_t v)
{
	char t[20];
	int i = 20;

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	wb_add(w, t + i, (size_t)(20 - i));
}

static void wb_i64(struct wb *w, int64_t v)
{
	if (v < 0) {
		wb_add(w, "-", 1);
		wb_u64(w, (uint64_t)0 - (uint64_t)v);
	} else {
		wb_u64(w, (uint64_t)v);
	}
}

static void wb_end(struct wb *w)
{
	if (w->cap)
		w->b[w->n < w->cap ? w->n : w->cap - 1] = 0;
}

#define ADDR56(v) ((uint64_t)(v) & (uint64_t)((1ULL << 56) - 1))

/* perf 6.1 `perf report -D` text of one packet (its own words, so dumps can be diffed). */
static void pkt_desc(struct wb *w, const struct spe_pkt *p)
{
	uint64_t v = p->payload;
	size_t start = w->n;
	int err = 0;

	switch (p->type) {
	case SPE_PKT_PAD:
	case SPE_PKT_ALIGN:
		wb_lit(w, "PAD");
		break;
	case SPE_PKT_END:
		wb_lit(w, "END");
		break;
	case SPE_PKT_TIMESTAMP:
		wb_lit(w, "TS ");
		wb_i64(w, (int64_t)v);
		break;
	case SPE_PKT_DATA_SOURCE:
		wb_lit(w, "DATA-SOURCE ");
		wb_i64(w, (int64_t)v);
		break;
	case SPE_PKT_EVENTS: {
		static const int shown[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 17, 18};

		wb_lit(w, "EV");
		for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
			if (v & (1ULL << shown[i])) {
				wb_add(w, " ", 1);
				wb_str(w, ev_names[shown[i]]);
			}
		break;
	}
	case SPE_PKT_OP_TYPE:
		switch (p->index) {
		case SPE_OP_OTHER:
			if ((v & 0x89) == 0x08) {
				wb_lit(w, "SVE-OTHER EVLEN ");
				wb_u64(w, 32ULL << ((v >> 4) & 7));
				if (v & 2)
					wb_lit(w, " FP");
				if (v & 4)
					wb_lit(w, " PRED");
			} else {
				wb_str(w, (v & 1) ? "OTHER COND-SELECT" : "OTHER INSN-OTHER");
			}
			break;
		case SPE_OP_LDST:
			wb_str(w, (v & 1) ? "ST" : "LD");
			if ((v & 0xe2) == 0x02) {
				if (v & 0x04)
					wb_lit(w, " AT");
				if (v & 0x08)
					wb_lit(w, " EXCL");
				if (v & 0x10)
					wb_lit(w, " AR");
			}
			switch (v & 0xfe) {
			case 0x04:
				wb_lit(w, " SIMD-FP");
				break;
			case 0x00:
				wb_lit(w, " GP-REG");
				break;
			case 0x10:
				wb_lit(w, " UNSPEC-REG");
				break;
			case 0x30:
				wb_lit(w, " NV-SYSREG");
				break;
			default:
				break;
			}
			if ((v & 0x0a) == 0x08) {
				wb_lit(w, " EVLEN ");
				wb_u64(w, 32ULL << ((v >> 4) & 7));
				if (v & 4)
					wb_lit(w, " PRED");
				if (v & 0x80)
					wb_lit(w, " SG");
			}
			break;
		case SPE_OP_BRANCH:
			wb_lit(w, "B");
			if (v & 1)
				wb_lit(w, " COND");
			if ((v & 0xfe) == 0x02)
				wb_lit(w, " IND");
			break;
		default:
			err = 1;
			break;
		}
		break;
	case SPE_PKT_ADDRESS:
		switch (p->index) {
		case SPE_ADDR_PC:
		case SPE_ADDR_TGT:
			wb_str(w, p->index == SPE_ADDR_TGT ? "TGT 0x" : "PC 0x");
			wb_hex(w, ADDR56(v));
			wb_lit(w, " el");
			wb_u64(w, (v >> 61) & 3);
			wb_str(w, (v >> 63) ? " ns=1" : " ns=0");
			break;
		case SPE_ADDR_VA:
			wb_lit(w, "VA 0x");
			wb_hex(w, v);
			break;
		case SPE_ADDR_PA:
			wb_lit(w, "PA 0x");
			wb_hex(w, ADDR56(v));
			wb_str(w, (v >> 63) ? " ns=1" : " ns=0");
			wb_str(w, ((v >> 62) & 1) ? " ch=1 pat=" : " ch=0 pat=");
			wb_hex(w, (v >> 56) & 0xf);
			break;
		default:
			err = 1;
			break;
		}
		break;
	case SPE_PKT_CONTEXT:
		wb_lit(w, "CONTEXT 0x");
		wb_hex(w, v);
		wb_lit(w, " el");
		wb_u64(w, (uint64_t)p->index + 1);
		break;
	case SPE_PKT_COUNTER:
		wb_lit(w, "LAT ");
		wb_u64(w, (uint16_t)v);
		wb_add(w, " ", 1);
		if (p->index == SPE_CNT_TOTAL)
			wb_lit(w, "TOT");
		else if (p->index == SPE_CNT_ISSUE)
			wb_lit(w, "ISSUE");
		else if (p->index == SPE_CNT_XLAT)
			wb_lit(w, "XLAT");
		break;
	default:
		err = 1;
		break;
	}
	if (err) { /* perf's raw fallback */
		w->n = start;
		wb_str(w, spe_pkt__name(p->type));
		wb_lit(w, " 0x");
		wb_hex(w, v);
		wb_lit(w, " (");
		wb_u64(w, p->index);
		wb_lit(w, ")");
	}
}

void spe_pkt__desc(const struct spe_pkt *p, char *buf, size_t len)
{
	struct wb w = {buf, 0, len};

	if (!len)
		return;
	pkt_desc(&w, p);
	wb_end(&w);
}

static uint64_t addr_ip(uint64_t v)
{
	uint64_t ns = v >> 63, el = (v >> 61) & 3, a = v & (uint64_t)((1ULL << 56) - 1);

	if (ns && (el == 1 || el == 2))
		a |= 0xffULL << 56;
	return a;
}

static void raw_object(struct wb *w, struct spe_priv *sp, const struct hws_file_info *fi,
		       const struct hws_sample *s)
{
	const uint8_t *b = s->raw;
	uint64_t pos = (s->raw == sp->last_raw) ? sp->last_raw_pos : 0;
	struct spe_record rec;
	size_t i = 0;
	int first = 1;
	uint64_t midr, ev;
	uint32_t cpu = (s->fields & HWS_SF_CPU) ? s->cpu : UINT32_MAX;

	rec.present = 0;
	rec.events = 0;
	wb_lit(w, "{\"packets\":[");
	while (b && i < s->raw_size) {
		struct spe_pkt p;
		int r = spe_pkt__get_inline(b + i, s->raw_size - i, pos + i, &p);

		if (!first)
			wb_add(w, ",", 1);
		first = 0;
		if (r <= 0) {
			wb_lit(w, "{\"type\":\"BAD\",\"byte\":");
			wb_u64(w, b[i]);
			wb_add(w, "}", 1);
			i++;
			continue;
		}
		spe_record__add_inline(&rec, &p);
		wb_lit(w, "{\"type\":\"");
		wb_str(w, spe_pkt__name(p.type));
		wb_lit(w, "\",\"index\":");
		wb_u64(w, p.index);
		wb_lit(w, ",\"len\":");
		wb_u64(w, (uint64_t)r);
		if (p.payload_len) {
			wb_lit(w, ",\"payload\":\"0x");
			wb_hex(w, p.payload);
			wb_add(w, "\"", 1);
		}
		wb_lit(w, ",\"desc\":\""); /* desc text never needs JSON escapes */
		pkt_desc(w, &p);
		wb_lit(w, "\"}");
		i += (size_t)r;
	}
	wb_lit(w, "],\"events\":[");
	first = 1;
	for (ev = rec.events; ev; ev &= ev - 1) {
		int bit = __builtin_ctzll(ev);
		wb_str(w, first ? "\"" : ",\"");
		if (bit < 32 && ev_names[bit]) {
			wb_str(w, ev_names[bit]);
		} else {
			wb_lit(w, "EV");
			wb_u64(w, (uint64_t)bit);
		}
		wb_add(w, "\"", 1);
		first = 0;
	}
	wb_add(w, "]", 1);
	if (rec.present & SPE_HAVE_EVENTS) {
		wb_lit(w, ",\"events_raw\":\"0x");
		wb_hex(w, rec.events);
		wb_add(w, "\"", 1);
	}
	if (rec.present & SPE_HAVE_OP) {
		wb_lit(w, ",\"op_class\":");
		wb_u64(w, rec.op_class);
		wb_lit(w, ",\"op_raw\":\"0x");
		wb_hex(w, rec.op_payload);
		wb_add(w, "\"", 1);
	}
	if (rec.present & SPE_HAVE_SOURCE) {
		wb_lit(w, ",\"source\":");
		wb_u64(w, rec.source);
	}
	if (rec.present & SPE_HAVE_CONTEXT) {
		wb_lit(w, ",\"context\":");
		wb_u64(w, rec.context);
		wb_lit(w, ",\"context_el\":");
		wb_u64(w, (uint64_t)rec.ctx_index + 1);
	}
	if (rec.present & SPE_HAVE_TS) {
		wb_lit(w, ",\"ts\":");
		wb_u64(w, rec.ts);
	}
	if (rec.present & SPE_HAVE_PC) {
		wb_lit(w, ",\"pc_el\":");
		wb_u64(w, (rec.addr[SPE_ADDR_PC] >> 61) & 3);
		wb_lit(w, ",\"pc_ns\":");
		wb_u64(w, rec.addr[SPE_ADDR_PC] >> 63);
	}
	if (rec.present & SPE_HAVE_PBT) {
		wb_lit(w, ",\"prev_branch_target\":\"0x");
		wb_hex(w, addr_ip(rec.addr[SPE_ADDR_PBT]));
		wb_add(w, "\"", 1);
	}
	/* the MIDR of the last CPU asked for, cached (HEADER_CPUID is a string to parse); the
	 * file info does not change under a reader, so its pointers identify it */
	if (!sp->raw_midr_valid || sp->raw_midr_cpu != cpu || sp->raw_midr_fi != fi ||
	    !fi || sp->raw_midr_cpuid != fi->cpuid || sp->raw_midr_priv != fi->auxtrace_priv) {
		sp->raw_midr = spe_file_midr(fi, cpu);
		sp->raw_midr_cpu = cpu;
		sp->raw_midr_fi = fi;
		sp->raw_midr_cpuid = fi ? fi->cpuid : NULL;
		sp->raw_midr_priv = fi ? fi->auxtrace_priv : NULL;
		sp->raw_midr_valid = 1;
	}
	midr = sp->raw_midr;
	if (midr) {
		const char *tab, *nm = spe_midr_info(midr, &tab);

		wb_lit(w, ",\"midr\":\"0x");
		wb_hex(w, midr);
		wb_lit(w, "\",\"ds_table\":\"");
		wb_str(w, tab);
		wb_lit(w, "\"");
		if (nm) {
			wb_lit(w, ",\"cpu_model\":\"");
			wb_str(w, nm);
			wb_add(w, "\"", 1);
		}
	}
	wb_add(w, "}", 1);
}

int spe_raw_json(void *priv, const struct hws_file_info *fi, const struct hws_sample *s,
		 struct hws_strbuf *out)
{
	struct spe_priv *sp = priv;
	struct wb w = {sp->json, 0, sizeof(sp->json)};
	char *big;
	int ret;

	raw_object(&w, sp, fi, s);
	if (w.n < w.cap)
		return sp->host->strbuf_add(out, w.b, w.n);
	/* a record with very many packets: size it, then render into a heap buffer */
	big = malloc(w.n + 1);
	if (!big)
		return -ENOMEM;
	w = (struct wb){big, 0, w.n + 1};
	raw_object(&w, sp, fi, s);
	ret = sp->host->strbuf_add(out, w.b, w.n);
	free(big);
	return ret;
}
