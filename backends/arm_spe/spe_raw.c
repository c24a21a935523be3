// SPDX-License-Identifier: MIT
/*
 * Arm SPE raw JSON (`dump --raw`): every packet of a record (type, index, length, payload,
 * the text `perf report -D` prints for it), the events by name, op/source/context fields,
 * MIDR, data-source table and core name.
 *
 * Invariants:
 *  - pkt_desc() is the reference text of one packet (perf 6.1's words); spe_pkt__desc()
 *    exports it. The fast formatter (raw_render()) writes the same text from tables made
 *    once per instance (raw_tabs_build()), mostly from pkt_desc() itself; the unit test
 *    compares the two, and both against golden strings.
 *  - raw_render() parses the record as spe_pkt__get_inline() does (a packet that does not
 *    fit, or a byte that starts none, is one BAD byte; alignment packets depend on the
 *    stream position) and never reads past s->raw + s->raw_size.
 *  - Output goes to sp->json with unchecked writers; before each packet (and before the
 *    record's tail) it is handed to the strbuf if less than the room that part needs is
 *    left, so records of any size render in one pass without allocation.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "spe.h"
#include "spe_pkt_inline.h"
#include "spe_text.h"

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

/* ---------------------------------------------------------------- reference text */

/* A bounded text writer for the reference text and the tables (not the hot path). */
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

/* numbers by <hwsample/fmt.h>'s writers, through a buffer with their slack */
static void wb_hex(struct wb *w, uint64_t v) /* lower-case, no prefix */
{
	char t[HWS_FMT_HEX_MAX];

	wb_add(w, t, (size_t)(hws_fmt__hex_digits(t, v) - t));
}

static void wb_u64(struct wb *w, uint64_t v)
{
	char t[HWS_FMT_U64_MAX];

	wb_add(w, t, (size_t)(hws_fmt__u64(t, v) - t));
}

static void wb_i64(struct wb *w, int64_t v)
{
	char t[HWS_FMT_I64_MAX];

	wb_add(w, t, (size_t)(hws_fmt__i64(t, v) - t));
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

/* ---------------------------------------------------------------- tables */

/* @s (NUL-terminated, shorter than @size) into a table cell whose last byte is the length */
static void cell_set(char *cell, size_t size, const char *s)
{
	size_t n = strlen(s);

	if (n > size - 1) /* cannot happen with the texts above; keep the cell valid anyway */
		n = size - 1;
	memset(cell, 0, size);
	memcpy(cell, s, n);
	cell[size - 1] = (char)n;
}

/* the desc of a packet of @type/@index/@payload, after its first @skip characters */
static void desc_cell(char *cell, size_t size, uint8_t type, uint8_t index, uint64_t payload,
		      size_t skip)
{
	struct spe_pkt p = {.type = type, .index = index, .payload = payload};
	char t[256];

	spe_pkt__desc(&p, t, sizeof(t));
	cell_set(cell, size, t + skip);
}

/* text of @w into @dst (at most @max bytes), its length into *@n */
static void put_text(char *dst, size_t max, uint8_t *n, const struct wb *w)
{
	size_t k = w->n < max ? w->n : max;

	memcpy(dst, w->b, k);
	*n = (uint8_t)k;
}

/* The entry of the packet @p (as spe_pkt__get_inline decoded it from a header). */
static void ent_build(struct spe_raw_ent *e, const struct spe_pkt *p)
{
	char pre[64], mid[32], tail[16];
	struct wb wp = {pre, 0, sizeof(pre)}, wm = {mid, 0, sizeof(mid)},
		  wt = {tail, 0, sizeof(tail)};
	unsigned int idx = p->index;

	memset(e, 0, sizeof(*e));
	e->hlen = p->hdr_len;
	e->need = (uint8_t)p->len;
	e->pmask = p->payload_len >= 8 ? ~0ULL : (1ULL << (8 * p->payload_len)) - 1;
	e->hexon = p->payload_len ? 0xff : 0;
	e->slot = SPE_SLOT_SINK;
	e->kind = SPE_RK_HEX;

	wb_lit(&wp, "{\"type\":\"");
	wb_str(&wp, spe_pkt__name(p->type));
	wb_lit(&wp, "\",\"index\":");
	wb_u64(&wp, idx);
	wb_lit(&wp, ",\"len\":");
	wb_u64(&wp, p->len);
	if (p->payload_len) {
		wb_lit(&wp, ",\"payload\":\"0x");
		wb_lit(&wm, "\"");
	}
	wb_lit(&wm, ",\"desc\":\"");

	switch (p->type) {
	case SPE_PKT_PAD:
		e->kind = SPE_RK_NONE;
		wb_lit(&wm, "PAD");
		break;
	case SPE_PKT_END:
		e->kind = SPE_RK_NONE;
		wb_lit(&wm, "END");
		break;
	case SPE_PKT_TIMESTAMP:
		e->kind = SPE_RK_DEC;
		e->slot = SPE_SLOT_TS;
		e->have = SPE_HAVE_TS;
		wb_lit(&wm, "TS ");
		break;
	case SPE_PKT_DATA_SOURCE:
		e->kind = SPE_RK_DEC;
		e->slot = SPE_SLOT_SOURCE;
		e->have = SPE_HAVE_SOURCE;
		wb_lit(&wm, "DATA-SOURCE ");
		break;
	case SPE_PKT_EVENTS:
		e->kind = SPE_RK_EV;
		e->slot = SPE_SLOT_EVENTS;
		e->have = SPE_HAVE_EVENTS;
		e->evm = 1;
		wb_lit(&wm, "EV");
		break;
	case SPE_PKT_OP_TYPE:
		e->slot = SPE_SLOT_OP;
		e->have = SPE_HAVE_OP;
		if (idx < 3) {
			e->kind = SPE_RK_OP;
		} else { /* perf's raw fallback */
			wb_lit(&wm, "OP-TYPE 0x");
			wb_lit(&wt, " (");
			wb_u64(&wt, idx);
			wb_lit(&wt, ")");
		}
		break;
	case SPE_PKT_CONTEXT:
		e->slot = SPE_SLOT_CONTEXT;
		e->have = SPE_HAVE_CONTEXT;
		wb_lit(&wm, "CONTEXT 0x");
		wb_lit(&wt, " el");
		wb_u64(&wt, idx + 1);
		break;
	case SPE_PKT_COUNTER:
		e->kind = SPE_RK_DEC;
		if (idx <= SPE_CNT_XLAT) {
			e->slot = (uint8_t)(SPE_SLOT_LAT + idx);
			e->have = SPE_HAVE_LAT_TOTAL << idx;
		}
		wb_lit(&wm, "LAT ");
		wb_str(&wt, idx == SPE_CNT_TOTAL   ? " TOT"
			    : idx == SPE_CNT_ISSUE ? " ISSUE"
			    : idx == SPE_CNT_XLAT  ? " XLAT"
						   : " ");
		break;
	case SPE_PKT_ADDRESS:
		if (idx <= SPE_ADDR_PBT) {
			e->slot = (uint8_t)(SPE_SLOT_ADDR + idx);
			e->have = SPE_HAVE_PC << idx;
		}
		switch (idx) {
		case SPE_ADDR_PC:
		case SPE_ADDR_TGT:
			wb_str(&wm, idx == SPE_ADDR_TGT ? "TGT 0x" : "PC 0x");
			e->dshift = 8;
			e->sbase = 1;
			e->sshift = 61;
			e->smask = 7;
			break;
		case SPE_ADDR_VA:
			wb_lit(&wm, "VA 0x");
			break;
		case SPE_ADDR_PA:
			wb_lit(&wm, "PA 0x");
			e->dshift = 8;
			e->sbase = 9;
			e->sshift = 56;
			e->smask = 0xff;
			break;
		default: /* perf's raw fallback */
			wb_lit(&wm, "ADDR 0x");
			wb_lit(&wt, " (");
			wb_u64(&wt, idx);
			wb_lit(&wt, ")");
			break;
		}
		break;
	default:
		break;
	}
	wb_lit(&wt, "\"}");
	put_text(e->text + SPE_RAW_PRE, SPE_RAW_MID - SPE_RAW_PRE, &e->pre_n, &wp);
	put_text(e->text + SPE_RAW_MID, SPE_RAW_TAIL - SPE_RAW_MID, &e->mid_n, &wm);
	put_text(e->text + SPE_RAW_TAIL, sizeof(e->text) - SPE_RAW_TAIL, &e->tail_n, &wt);
}

static void raw_tabs_build(struct spe_raw_tabs *t)
{
	unsigned int n = 1;
	uint8_t b[16] = {0};
	struct spe_pkt p;
	char s[64];

	memset(t->map, 0, sizeof(t->map));
	memset(t->xmap, 0, sizeof(t->xmap));
	memset(&t->ent[0], 0, sizeof(t->ent[0]));
	for (unsigned int h = 0; h < 256; h++) {
		b[0] = (uint8_t)h;
		if ((h & 0xfc) == 0x20 || spe_pkt__get_inline(b, sizeof(b), 0, &p) <= 0)
			continue;
		ent_build(&t->ent[n], &p);
		t->map[h] = (uint8_t)n++;
	}
	for (unsigned int k = 0; k < 64; k++) {
		b[0] = (uint8_t)(0x20 | ((k >> 3) & 3));
		b[1] = (uint8_t)(((k & 32) ? 0xb0 : 0x98) | (k & 7));
		if (spe_pkt__get_inline(b, sizeof(b), 0, &p) <= 0)
			continue;
		ent_build(&t->ent[n], &p);
		t->xmap[k] = (uint8_t)n++;
	}
	/* suffixes: the desc of a PC / PA packet with the address 0, after "PC 0x0" */
	memset(t->sfx[0], 0, sizeof(t->sfx[0]));
	t->sfx_n[0] = 0;
	for (unsigned int k = 0; k < SPE_RAW_SFX - 1; k++) {
		int pa = k >= 8;
		uint64_t top = pa ? k - 8 : k << 5; /* the top byte */

		desc_cell(s, 32, SPE_PKT_ADDRESS, pa ? SPE_ADDR_PA : SPE_ADDR_PC, top << 56, 6);
		memcpy(t->sfx[k + 1], s, 16);
		t->sfx_n[k + 1] = (uint8_t)s[31];
	}
	for (unsigned int c = 0; c < 3; c++)
		for (unsigned int v = 0; v < 256; v++)
			desc_cell(t->op[c][v], sizeof(t->op[c][v]), SPE_PKT_OP_TYPE, (uint8_t)c, v,
				  0);
	for (unsigned int v = 0; v < 256; v++) /* after "EV" */
		desc_cell(t->evlo[v], sizeof(t->evlo[v]), SPE_PKT_EVENTS, 1, v, 2);
	for (unsigned int k = 0; k < 64; k++) {
		uint64_t v = (uint64_t)(k & 15) << 8 | (uint64_t)(k >> 4) << 17;

		desc_cell(t->evhi[k], sizeof(t->evhi[k]), SPE_PKT_EVENTS, 4, v, 2);
	}
	for (unsigned int bit = 0; bit < 64; bit++) {
		struct wb w = {s, 0, sizeof(s)};

		wb_lit(&w, ",\"");
		if (bit < 32 && ev_names[bit]) {
			wb_str(&w, ev_names[bit]);
		} else {
			wb_lit(&w, "EV");
			wb_u64(&w, bit);
		}
		wb_lit(&w, "\"");
		wb_end(&w);
		cell_set(t->evname[bit], sizeof(t->evname[bit]), s);
	}
}

/* ---------------------------------------------------------------- rendering */

/*
 * Room: the packets of RAW_SEG bytes of a record (and the packet that crosses its end) write
 * at most 80 bytes per input byte (a 2-byte EVENTS packet with all 8 shown bits: 149 bytes)
 * plus the overrun of the fixed-size copies; sp->json is handed on before a segment when
 * less than RAW_SEG_ROOM is left, and before the record's tail (64 event names, the fields,
 * the MIDR text) when less than RAW_TAIL_ROOM is.
 */
#define RAW_SEG	      128
#define RAW_SEG_ROOM  (80 * (RAW_SEG + 16) + 512)
#define RAW_TAIL_ROOM 2560

static uint64_t addr_ip(uint64_t v)
{
	uint64_t ns = v >> 63, el = (v >> 61) & 3, a = v & (uint64_t)((1ULL << 56) - 1);

	if (ns && (el == 1 || el == 2))
		a |= 0xffULL << 56;
	return a;
}

/* the MIDR text of @cpu (the MIDR of the last CPU asked for is cached: HEADER_CPUID is a
 * string to parse); the file info does not change under a reader, so its pointers identify it */
static void raw_midr(struct spe_priv *sp, const struct hws_file_info *fi, uint32_t cpu)
{
	struct wb w = {sp->raw_midr_txt, 0, sizeof(sp->raw_midr_txt)};
	const char *nm, *tab;
	uint64_t midr;

	if (sp->raw_midr_valid && sp->raw_midr_cpu == cpu && sp->raw_midr_fi == fi && fi &&
	    sp->raw_midr_cpuid == fi->cpuid && sp->raw_midr_priv == fi->auxtrace_priv)
		return;
	midr = spe_file_midr(fi, cpu);
	sp->raw_midr = midr;
	sp->raw_midr_cpu = cpu;
	sp->raw_midr_fi = fi;
	sp->raw_midr_cpuid = fi ? fi->cpuid : NULL;
	sp->raw_midr_priv = fi ? fi->auxtrace_priv : NULL;
	sp->raw_midr_valid = 1;
	if (midr) {
		nm = spe_midr_info(midr, &tab);
		wb_lit(&w, ",\"midr\":\"0x");
		wb_hex(&w, midr);
		wb_lit(&w, "\",\"ds_table\":\"");
		wb_str(&w, tab);
		wb_lit(&w, "\"");
		if (nm) {
			wb_lit(&w, ",\"cpu_model\":\"");
			wb_str(&w, nm);
			wb_lit(&w, "\"");
		}
	}
	wb_lit(&w, "}");
	sp->raw_midr_n = (uint32_t)(w.n < w.cap ? w.n : w.cap);
}

/*
 * A packet that is not a short-header one that fits: an extended ADDRESS/COUNTER header
 * that fits (returns its entry), else an alignment packet or a BAD byte, written here with
 * *@ip advanced past it (returns NULL).
 */
static const struct spe_raw_ent *raw_slow(const struct spe_raw_tabs *t, const uint8_t *b,
					  size_t rem, uint64_t pos, char **pp, size_t *ip)
{
	char *p = *pp;
	uint8_t h = b[0];

	if ((h & 0xfc) == 0x20 && rem >= 2) {
		uint8_t h1 = b[1];

		if ((h1 & 0xf8) == 0xb0 || (h1 & 0xf8) == 0x98) {
			const struct spe_raw_ent *e =
			    &t->ent[t->xmap[((h1 & 0xf8) == 0xb0) << 5 | (h & 3) << 3 | (h1 & 7)]];

			if (rem >= e->need)
				return e;
		} else if (h1 == 0) { /* alignment: pad to the next 2^(n+1) boundary */
			uint64_t align = 1ULL << ((h & 3) + 1), n = align - (pos & (align - 1));

			if (rem >= n) {
				SPE_PUT_LIT(p, "{\"type\":\"ALIGN\",\"index\":");
				p = hws_fmt__u64(p, align);
				SPE_PUT_LIT(p, ",\"len\":");
				p = hws_fmt__u64(p, n);
				SPE_PUT_LIT(p, ",\"desc\":\"PAD\"}");
				*pp = p;
				*ip += n;
				return NULL;
			}
		}
	}
	SPE_PUT_LIT(p, "{\"type\":\"BAD\",\"byte\":");
	p = hws_fmt__u64(p, h);
	*p++ = '}';
	*pp = p;
	*ip += 1;
	return NULL;
}

static int raw_render(struct spe_priv *sp, const struct hws_file_info *fi,
		      const struct hws_sample *s, struct hws_strbuf *out)
{
	const struct spe_raw_tabs *t = &sp->rawtab;
	const uint8_t *b = s->raw;
	size_t size = b ? s->raw_size : 0, i = 0;
	uint64_t pos = (s->raw == sp->last_raw) ? sp->last_raw_pos : 0;
	char *buf = sp->json, *p = buf, *q;
	uint64_t v[SPE_SLOT_NR], events = 0;
	uint8_t hd[SPE_SLOT_NR];
	uint32_t present = 0, cpu = (s->fields & HWS_SF_CPU) ? s->cpu : UINT32_MAX;
	char sep = '[';
	int err;

	SPE_PUT_LIT(p, "{\"packets\":");
	while (i < size) {
		size_t seg = size - i > RAW_SEG ? i + RAW_SEG : size;

		if (__builtin_expect(p > buf + sizeof(sp->json) - RAW_SEG_ROOM, 0)) {
			err = sp->host->strbuf_add(out, buf, (size_t)(p - buf));
			if (err)
				return err;
			p = buf;
		}
		do {
			uint8_t h = b[i], k = t->map[h];
			const struct spe_raw_ent *e = &t->ent[k];
			size_t rem = size - i, need = e->need, hlen = e->hlen;
			unsigned int kind, slot, nd;
			uint64_t pl;

			*p++ = sep;
			sep = ',';
			if (__builtin_expect(!k || rem < need, 0)) {
				e = raw_slow(t, b + i, rem, pos + i, &p, &i);
				if (!e)
					continue;
				need = e->need;
				hlen = e->hlen;
			}
			kind = e->kind;
			slot = e->slot;
			if (__builtin_expect(rem >= hlen + 8, 1)) {
				memcpy(&pl, b + i + hlen, 8);
			} else {
				uint8_t tmp[8] = {0};

				memcpy(tmp, b + i + hlen, rem - hlen);
				memcpy(&pl, tmp, 8);
			}
			pl = le64toh(pl) & e->pmask;
			v[slot] = pl;
			hd[slot] = h;
			present |= e->have;
			events |= pl & (0 - (uint64_t)e->evm);

			memcpy(p, e->text + SPE_RAW_PRE, 64);
			p += e->pre_n;
			nd = (unsigned int)(hws_fmt__hex_digits(p, pl) - p);
			p += nd & e->hexon;
			memcpy(p, e->text + SPE_RAW_MID, 32);
			p += e->mid_n;
			switch (kind) {
			case SPE_RK_DEC:
				p = hws_fmt__i64(p, (int64_t)pl);
				break;
			case SPE_RK_HEX: {
				unsigned int sx =
				    e->sbase + ((unsigned int)(pl >> e->sshift) & e->smask);

				p = hws_fmt__hex_digits(p, pl & (~0ULL >> e->dshift));
				memcpy(p, t->sfx[sx], 16);
				p += t->sfx_n[sx];
				break;
			}
			case SPE_RK_EV: {
				const char *lo = t->evlo[pl & 0xff],
					   *hi = t->evhi[((pl >> 8) & 15) | ((pl >> 13) & 0x30)];

				memcpy(p, lo, 96);
				p += (uint8_t)lo[95];
				memcpy(p, hi, 96);
				p += (uint8_t)hi[95];
				break;
			}
			case SPE_RK_OP: {
				const char *o = t->op[h & 3][pl & 0xff];

				memcpy(p, o, 32);
				p += (uint8_t)o[31];
				break;
			}
			default:
				break;
			}
			memcpy(p, e->text + SPE_RAW_TAIL, 8);
			p += e->tail_n;
			i += need;
		} while (i < seg);
	}
	if (sep == '[')
		*p++ = '[';
	*p++ = ']';

	if (__builtin_expect(p > buf + sizeof(sp->json) - RAW_TAIL_ROOM, 0)) {
		err = sp->host->strbuf_add(out, buf, (size_t)(p - buf));
		if (err)
			return err;
		p = buf;
	}
	SPE_PUT_LIT(p, ",\"events\":");
	q = p;
	for (uint64_t ev = events; ev; ev &= ev - 1) {
		const char *nm = t->evname[__builtin_ctzll(ev)];

		memcpy(p, nm, 32);
		p += (uint8_t)nm[31];
	}
	if (p == q)
		*p++ = '[';
	else
		*q = '[';
	*p++ = ']';
	if (present & SPE_HAVE_EVENTS) {
		SPE_PUT_LIT(p, ",\"events_raw\":\"0x");
		p = hws_fmt__hex_digits(p, events);
		*p++ = '"';
	}
	if (present & SPE_HAVE_OP) {
		SPE_PUT_LIT(p, ",\"op_class\":");
		*p++ = (char)('0' + (hd[SPE_SLOT_OP] & 3));
		SPE_PUT_LIT(p, ",\"op_raw\":\"0x");
		p = hws_fmt__hex_digits(p, (uint8_t)v[SPE_SLOT_OP]);
		*p++ = '"';
	}
	if (present & SPE_HAVE_SOURCE) {
		SPE_PUT_LIT(p, ",\"source\":");
		p = hws_fmt__u64(p, v[SPE_SLOT_SOURCE]);
	}
	if (present & SPE_HAVE_CONTEXT) {
		SPE_PUT_LIT(p, ",\"context\":");
		p = hws_fmt__u64(p, v[SPE_SLOT_CONTEXT]);
		SPE_PUT_LIT(p, ",\"context_el\":");
		*p++ = (char)('1' + (hd[SPE_SLOT_CONTEXT] & 3));
	}
	if (present & SPE_HAVE_TS) {
		SPE_PUT_LIT(p, ",\"ts\":");
		p = hws_fmt__u64(p, v[SPE_SLOT_TS]);
	}
	if (present & SPE_HAVE_PC) {
		SPE_PUT_LIT(p, ",\"pc_el\":");
		*p++ = (char)('0' + ((v[SPE_SLOT_ADDR + SPE_ADDR_PC] >> 61) & 3));
		SPE_PUT_LIT(p, ",\"pc_ns\":");
		*p++ = (char)('0' + (v[SPE_SLOT_ADDR + SPE_ADDR_PC] >> 63));
	}
	if (present & SPE_HAVE_PBT) {
		SPE_PUT_LIT(p, ",\"prev_branch_target\":\"0x");
		p = hws_fmt__hex_digits(p, addr_ip(v[SPE_SLOT_ADDR + SPE_ADDR_PBT]));
		*p++ = '"';
	}
	raw_midr(sp, fi, cpu);
	memcpy(p, sp->raw_midr_txt, sizeof(sp->raw_midr_txt));
	p += sp->raw_midr_n;
	return sp->host->strbuf_add(out, buf, (size_t)(p - buf));
}

int spe_raw_json(void *priv, const struct hws_file_info *fi, const struct hws_sample *s,
		 struct hws_strbuf *out)
{
	struct spe_priv *sp = priv;

	if (!sp->raw_ready) {
		raw_tabs_build(&sp->rawtab);
		sp->raw_ready = 1;
	}
	return raw_render(sp, fi, s, out);
}
