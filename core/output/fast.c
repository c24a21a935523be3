// SPDX-License-Identifier: MIT
/*
 * The fast JSON and CSV rows of the formatters (output.c holds the general ones):
 *  - the enum-name tables, made once: each name as the whole ',"key":"name"' JSON snippet
 *    and as the ",name" CSV cell, so a row copies fixed 32-byte blocks;
 *  - the memo of a formatter: texts already made for values seen before (time prefix,
 *    pid..backend, period, event/backend, data source), and per line shape (fields, event,
 *    backend) a compiled JSON line, its constant texts with the values between them;
 *  - hws__out_json_fast() and hws__out_csv_fast(), each row with one reservation and
 *    unchecked writers; hws__out_json_line(), a whole JSON line from its plan.
 *
 * Invariants: a fast path writes exactly the bytes of the general path for the same sample,
 * or returns before writing (names that need escaping or quoting, names too long for the
 * tables); a cache entry holds, for its key, exactly the text the columns would produce, so
 * a hit writes the same bytes as a miss (tests/unit/test_output_fast.c). The memo knows
 * strings by address: it lives as long as its formatter, which the caller makes per stream
 * of samples whose strings stay valid.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output_int.h"

/* unchecked writers for the JSON fast path (the caller reserved enough) */
static inline char *w_hexq(char *p, uint64_t v)
{
	*p = '"';
	p = hws_fmt__hex(p + 1, v);
	*p = '"';
	return p + 1;
}

static inline char *w_key(char *p, int c, int first)
{
	memcpy(p, cols[c].key + first, 24);
	return p + cols[c].key_len - (size_t)first;
}

/* length of a short enum name (they are below 32 bytes, plain ASCII) */
static inline size_t name_len(const char *n)
{
	size_t l = 0;

	while (l < 31 && n[l])
		l++;
	return l;
}

/*
 * The enum columns (op, level, snoop, TLB) as whole ',"key":"name"' snippets with their
 * lengths, made once: the JSON fast path copies a fixed 32 bytes and advances by the length.
 */
struct name_ent {
	char s[40]; /* ,"key":"name" zero-padded: copied as 32 bytes from s or s + 1 */
	uint8_t n;  /* its length; 0: too long, use the slow path */
};

static struct name_ent op_tab[HWS_OP_OTHER + 1], lvl_tab[HWS_MEM__MAX], snoop_tab[HWS_SNOOP__MAX],
    tlb_tab[HWS_TLB__MAX];
/* the same names as CSV cells (output_int.h) */
struct csv_names hws__out_csv_names;
/* the op names as JSON values ("load"), for every byte value; n = 0: not plain, slow path */
static struct {
	char s[16];
	uint8_t n;
} op_q[256];
static pthread_once_t name_tab_once = PTHREAD_ONCE_INIT;

static void name_tab_fill(struct name_ent *t, size_t n, int c, const char *(*name)(unsigned int))
{
	for (size_t i = 0; i < n; i++) {
		const char *s = name((unsigned int)i);
		size_t pl;
		int l;

		if (!json_plain(s, &pl))
			continue;
		l = snprintf(t[i].s, sizeof(t[i].s), "%s\"%s\"", cols[c].key, s);
		if (l > 0 && l <= 32)
			t[i].n = (uint8_t)l;
		else
			memset(t[i].s, 0, sizeof(t[i].s));
	}
}

static void csv_name_fill(struct csv_name *t, size_t n, const char *(*name)(unsigned int))
{
	for (size_t i = 0; i < n; i++) {
		const char *s = name((unsigned int)i);
		size_t l = strlen(s);

		if (l < sizeof(t[i].s) - 1 && !strpbrk(s, ",\"\n\r")) {
			t[i].s[0] = ',';
			memcpy(t[i].s + 1, s, l);
			t[i].n = (uint8_t)(l + 1);
		}
	}
}

static void name_tab_init(void)
{
	struct csv_names *cn = &hws__out_csv_names;

	csv_name_fill(cn->op, ARRAY_SIZE(cn->op), hws_op__name);
	csv_name_fill(cn->lvl, ARRAY_SIZE(cn->lvl), hws_mem_level__name);
	csv_name_fill(cn->snoop, ARRAY_SIZE(cn->snoop), hws_snoop__name);
	csv_name_fill(cn->tlb, ARRAY_SIZE(cn->tlb), hws_tlb__name);
	name_tab_fill(op_tab, ARRAY_SIZE(op_tab), C_OP, hws_op__name);
	name_tab_fill(lvl_tab, ARRAY_SIZE(lvl_tab), C_LEVEL, hws_mem_level__name);
	name_tab_fill(snoop_tab, ARRAY_SIZE(snoop_tab), C_SNOOP, hws_snoop__name);
	name_tab_fill(tlb_tab, ARRAY_SIZE(tlb_tab), C_TLB, hws_tlb__name);
	for (unsigned int i = 0; i < ARRAY_SIZE(op_q); i++) {
		const char *n = hws_op__name(i);
		size_t l;

		if (json_plain(n, &l) && l + 2 <= sizeof(op_q[i].s)) {
			op_q[i].s[0] = '"';
			memcpy(op_q[i].s + 1, n, l);
			op_q[i].s[l + 1] = '"';
			op_q[i].n = (uint8_t)(l + 2);
		}
	}
}

/* the tables are filled before the first formatter exists (hws_output__new()) */
void hws__out_names_init(void)
{
	pthread_once(&name_tab_once, name_tab_init);
}

/* the memo's sizes */
#define HEAD_BITS  9 /* 512 entries, direct-mapped by pid/tid/event */
#define HEAD_SLOTS (1u << HEAD_BITS)
#define HEAD_TXT   96
#define DSRC_BITS  10 /* 1024 entries, direct-mapped by data source (PEBS: hundreds) */
#define DSRC_SLOTS (1u << DSRC_BITS)
#define PER_SLOTS  8 /* direct-mapped by event */
#define DSRC_TXT   128
#define PLAN_SLOTS 256 /* plans made, at most (SPE files have ~40 shapes); then made anew */
/* the plans' index: open addressing by fields/event, at most a quarter full, so no two
 * shapes a file uses evict each other (a direct-mapped table did, depending on where the
 * event name landed: a plan made again for every sample, 15% of some runs) */
#define PTAG_BITS  10
#define PTAG_SLOTS (1u << PTAG_BITS)
#define PLAN_TXT   512		     /* the long texts of a plan; event + backend must fit in it */
#define PLAN_ROOM  (PLAN_TXT + 1536) /* a line by a plan is shorter than this */

/*
 * The items of a JSON line whose values change from sample to sample, in column order. A
 * plan holds, for each, the constant text that follows its value up to where the next
 * item's value starts (closing quote, the keys and values of constant columns, the next
 * key and opening quote). PI_LEAD is the text before the first value; PI_IP_P the text
 * after ip when precise is true (PI_IP: false).
 */
enum pitem {
	PI_LEAD,
	PI_TIME,
	PI_CPU,
	PI_PID,
	PI_TID,
	PI_PERIOD,
	PI_IP,
	PI_IP_P, /* right after PI_IP: picked as PI_IP + precise */
	PI_ADDR,
	PI_PHYS,
	PI_OP,
	PI_LAT_TOTAL,
	PI_LAT_ISSUE,
	PI_LAT_XLAT,
	PI_LAT_MISS,
	PI_LAT_INS,
	PI_DSRC,
	PI_BRANCH,
	PI__NR,
};

/*
 * A compiled JSON line for one (fields, event, backend, close): the line is then its fixed
 * texts with the numbers between them, no per-column key lookups, quotes or first-column
 * checks. Only the texts after PI_LEAD, PI_TIME, PI_CPU and PI_TID (the ones that can hold
 * the event and backend names) may be longer than 32 bytes; the others are copied as one
 * fixed 32-byte move.
 */
struct json_plan {
	uint32_t first; /* nothing after the '{' (output.c sample_json()'s first) */
	uint32_t per_n;
	uint64_t per_v; /* the last period below 10^8 and its digits (first in the lowest byte) */
	uint64_t per_w;
	uint16_t len[PI__NR];
	char seg[PI__NR][32]; /* each text's first 32 bytes, zero-padded */
	char tail[PLAN_TXT];  /* the rest of the long ones (PI_LEAD, PI_TIME, PI_CPU, PI_TID) */
	uint16_t tail_off[PI__NR];
};

struct out_memo {
	/* ,"event":"...","backend":"..." of the last event/backend pairs, ready to copy */
	struct {
		const char *ev, *be;
		uint32_t n; /* 0: empty */
		char txt[192];
	} evbe[4];
	unsigned int evbe_next;
	/*
	 * Text already made for values seen before, reused while the values repeat (they do:
	 * the same threads, one data source for a whole sw recording). Each entry holds its
	 * key and the exact bytes the columns would produce, so a hit copies what a miss would
	 * have written.
	 */
	struct {
		uint64_t base; /* time - base < 10^8: txt is '{"time":' + base / 10^8 */
		uint32_t n;    /* 0: empty */
		char txt[32];
	} tb;
	struct head_ent { /* ,"pid":..,"tid":..,"event":"..","backend":".." */
		const char *ev, *be;
		uint64_t pt;	 /* pid << 32 | tid (0 without HWS_SF_PID) */
		uint32_t haspid; /* HWS_SF_PID set */
		uint32_t n;	 /* 0: empty */
		char txt[HEAD_TXT];
	} head[HEAD_SLOTS];
	struct per_ent { /* the last period of an event (periods are often fixed per event) */
		const char *ev;
		uint64_t v;
		uint64_t w; /* its digits, first in the lowest byte */
		uint32_t n; /* how many (1..8); 0: empty */
	} per[PER_SLOTS];
	struct dsrc_ent { /* ,"mem_level":"..","snoop":"..","tlb":"..","data_src":.. */
		uint64_t ds;
		uint32_t key; /* dsrc_key(): 1 << 24 | tlb << 16 | snoop << 8 | level; 0: empty */
		uint32_t n;
		char txt[DSRC_TXT];
	} dsrc[DSRC_SLOTS];
	struct plan_tag {
		uint64_t key; /* plan_key(); 0: empty */
		const char *ev, *be;
		struct json_plan *pl; /* in plan[] */
	} ptag[PTAG_SLOTS];
	unsigned int nplans;
	struct json_plan plan[PLAN_SLOTS];
};

struct out_memo *hws__out_memo_new(void)
{
	return calloc(1, sizeof(struct out_memo));
}

/* the memo's snippet for @ev/@be (both plain JSON), made on first use; NULL: none fits */
static const char *evbe_snippet(struct out_memo *m, const char *ev, size_t evl, const char *be,
				size_t bel, uint32_t *n)
{
	unsigned int i = m->evbe_next;
	int l;

	if (evl + bel + 32 > sizeof(m->evbe[0].txt) - 32)
		return NULL; /* room for the 32-byte over-copy too */
	l = snprintf(m->evbe[i].txt, sizeof(m->evbe[i].txt), "%s\"%s\"%s\"%s\"", cols[C_EVENT].key,
		     ev, cols[C_BACKEND].key, be);
	if (l <= 0 || (size_t)l >= sizeof(m->evbe[i].txt) - 32)
		return NULL;
	memset(m->evbe[i].txt + l, 0, sizeof(m->evbe[i].txt) - (size_t)l);
	m->evbe[i].ev = ev;
	m->evbe[i].be = be;
	m->evbe[i].n = (uint32_t)l;
	m->evbe_next = (i + 1) % 4;
	*n = (uint32_t)l;
	return m->evbe[i].txt;
}

/* @n bytes (n <= @cap, a multiple of 32) of a memo entry, copied in 32-byte moves */
static inline __attribute__((always_inline)) char *copy_txt(char *p, const char *txt, uint32_t n)
{
	for (uint32_t k = 0; k < n; k += 32)
		memcpy(p + k, txt + k, 32);
	return p + n;
}

/* '{"time":' and @t, the digits above the last eight from the memo while they stay the same */
static inline __attribute__((always_inline)) char *json_time(char *p, struct out_memo *m,
							     uint64_t t)
{
	uint64_t d = t - m->tb.base, w;

	if (__builtin_expect(d >= 100000000 || !m->tb.n, 0)) {
		uint64_t hi = t / 100000000;

		/* below 10^8 no prefix; in the last 10^8 below 2^64, t - base would wrap */
		if (!hi || hi > (UINT64_MAX - 100000000) / 100000000) {
			memcpy(p, "{\"time\":", 8);
			return hws_fmt__u64(p + 8, t);
		}
		memset(m->tb.txt, 0, sizeof(m->tb.txt));
		memcpy(m->tb.txt, "{\"time\":", 8);
		m->tb.n = (uint32_t)(hws_fmt__u64(m->tb.txt + 8, hi) - m->tb.txt);
		m->tb.base = hi * 100000000;
		d = t - m->tb.base;
	}
	memcpy(p, m->tb.txt, 32);
	p += m->tb.n;
	w = hws_fmt__swar8((uint32_t)d);
	memcpy(p, &w, 8);
	return p + 8;
}

static inline unsigned int head_slot(uint64_t pt, const char *ev)
{
	return (unsigned int)(((pt ^ (uintptr_t)ev << 24) * 0x9e3779b97f4a7c15ULL) >>
			      (64 - HEAD_BITS));
}

/* mem_level, snoop and tlb (adjacent bytes) in one load, 1 << 24 set: never 0 */
static inline uint32_t dsrc_key(const struct hws_sample *s)
{
	uint32_t k;

	_Static_assert(
	    offsetof(struct hws_sample, snoop) == offsetof(struct hws_sample, mem_level) + 1 &&
		offsetof(struct hws_sample, tlb) == offsetof(struct hws_sample, mem_level) + 2,
	    "mem_level, snoop, tlb adjacent");
	memcpy(&k, &s->mem_level, 4);
	return (k & 0xffffff) | 1u << 24;
}

static inline unsigned int dsrc_slot(uint64_t ds, uint32_t key)
{
	return (unsigned int)(((ds ^ (uint64_t)key << 40) * 0x9e3779b97f4a7c15ULL) >>
			      (64 - DSRC_BITS));
}

/* the fields a JSON line shows */
#define JSON_FIELDS                                                                                \
	(HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PID | HWS_SF_PERIOD | HWS_SF_IP | HWS_SF_ADDR |         \
	 HWS_SF_PHYS_ADDR | HWS_SF_OP | HWS_SF_LAT_TOTAL | HWS_SF_LAT_ISSUE | HWS_SF_LAT_XLAT |    \
	 HWS_SF_LAT_MISS | HWS_SF_LAT_INS | HWS_SF_DATA_SRC | HWS_SF_BRANCH)

/* s->fields & JSON_FIELDS (bits 0..15), @close in bit 62, bit 63 set: never 0 */
static inline uint64_t plan_key(uint64_t f, bool close)
{
	return f | (uint64_t)close << 62 | 1ULL << 63;
}

/* a plan being made: the text after the last item so far, for precise false [0] and true [1] */
struct plan_build {
	struct json_plan *pl;
	size_t used;
	char cur[2][PLAN_TXT];
	size_t n[2];
	bool fail;
};

static void pb_add2(struct plan_build *b, const char *s0, const char *s1)
{
	size_t l0 = strlen(s0), l1 = strlen(s1);

	if (b->n[0] + l0 > PLAN_TXT || b->n[1] + l1 > PLAN_TXT) {
		b->fail = true;
		return;
	}
	memcpy(b->cur[0] + b->n[0], s0, l0);
	memcpy(b->cur[1] + b->n[1], s1, l1);
	b->n[0] += l0;
	b->n[1] += l1;
}

static void pb_put(struct plan_build *b, int item, const char *t, size_t n)
{
	/* only the texts that can hold the event/backend names are copied with a loop */
	bool may_be_long = item == PI_LEAD || item == PI_TIME || item == PI_CPU || item == PI_TID;
	size_t head = n < 32 ? n : 32;

	if ((n > 32 && !may_be_long) || b->used + (n - head) + 32 > PLAN_TXT) {
		b->fail = true;
		return;
	}
	memset(b->pl->seg[item], 0, 32);
	memcpy(b->pl->seg[item], t, head);
	memcpy(b->pl->tail + b->used, t + head, n - head);
	b->pl->tail_off[item] = (uint16_t)b->used;
	b->pl->len[item] = (uint16_t)n;
	b->used += n - head;
}

/* the pending text becomes the text after @item */
static void pb_emit(struct plan_build *b, int item)
{
	pb_put(b, item, b->cur[0], b->n[0]);
	if (item == PI_IP)
		pb_put(b, PI_IP_P, b->cur[1], b->n[1]);
	else if (b->n[0] != b->n[1] || memcmp(b->cur[0], b->cur[1], b->n[0]))
		b->fail = true; /* precise comes right after ip: cannot happen */
	b->n[0] = b->n[1] = 0;
}

/*
 * Make the plan of @s's line shape in @pl, the same bytes hws__out_json_fast() writes
 * column by column. false: no plan for this shape (names not plain or too long, data source first).
 */
static bool plan_make(struct json_plan *pl, const struct hws_sample *s, uint64_t f, bool close)
{
	struct plan_build b;
	int last = PI_LEAD, first = 1;
	bool ok;

	memset(&b, 0, sizeof(b));
	memset(pl, 0, sizeof(*pl));
	b.pl = pl;
	pb_add2(&b, "{", "{");
	for (int c = 0; c < C__NR && !b.fail; c++) {
		const char *str = NULL, *open = "", *shut = "";
		size_t sl;
		int item;

		if (c == C_EVENT     ? !s->event
		    : c == C_BACKEND ? !s->backend
				     : (f & cols[c].need) != cols[c].need)
			continue;
		switch (c) {
		case C_SNOOP:
		case C_TLB:
		case C_DATA_SRC:
			continue; /* in the data-source text of C_LEVEL */
		case C_LEVEL:
			/* the data-source memo's text brings its keys, with the leading comma */
			if (first)
				b.fail = true;
			pb_emit(&b, last);
			last = PI_DSRC;
			continue;
		default:
			break;
		}
		pb_add2(&b, cols[c].key + first, cols[c].key + first);
		first = 0;
		switch (c) {
		case C_EVENT:
		case C_BACKEND:
			str = c == C_EVENT ? s->event : s->backend;
			if (!json_plain(str, &sl) || sl > PLAN_TXT) {
				b.fail = true;
				continue;
			}
			pb_add2(&b, "\"", "\"");
			pb_add2(&b, str, str);
			pb_add2(&b, "\"", "\"");
			continue;
		case C_PRECISE:
			pb_add2(&b, "false", "true");
			continue;
		case C_TIME:
			item = PI_TIME;
			break;
		case C_CPU:
			item = PI_CPU;
			break;
		case C_PID:
			item = PI_PID;
			break;
		case C_TID:
			item = PI_TID;
			break;
		case C_PERIOD:
			item = PI_PERIOD;
			break;
		case C_IP:
			item = PI_IP;
			break;
		case C_ADDR:
			item = PI_ADDR;
			break;
		case C_PHYS:
			item = PI_PHYS;
			break;
		case C_OP:
			item = PI_OP; /* its value brings its quotes */
			break;
		case C_LAT_TOTAL:
		case C_LAT_ISSUE:
		case C_LAT_XLAT:
		case C_LAT_MISS:
		case C_LAT_INS:
			item = PI_LAT_TOTAL + (c - C_LAT_TOTAL);
			break;
		case C_BRANCH:
			item = PI_BRANCH;
			break;
		default:
			b.fail = true;
			continue;
		}
		if (c == C_IP || c == C_ADDR || c == C_PHYS || c == C_BRANCH) {
			open = "\"0x";
			shut = "\"";
		}
		pb_add2(&b, open, open);
		pb_emit(&b, last);
		pb_add2(&b, shut, shut);
		last = item;
	}
	if (close)
		pb_add2(&b, "}\n", "}\n");
	pb_emit(&b, last);
	ok = !b.fail;
	if (ok) {
		memset(pl->tail + b.used, 0, sizeof(pl->tail) - b.used);
		pl->first = (uint32_t)first;
		pl->per_v = UINT64_MAX;
		pl->per_n = 0;
	}
	return ok;
}

static inline unsigned int plan_slot(uint64_t f, const char *ev, bool close)
{
	return (unsigned int)((((uintptr_t)ev ^ f << 1 ^ close) * 0x9e3779b97f4a7c15ULL) >>
			      (64 - PTAG_BITS));
}

/* @t is the index entry of @s's line shape (@key: plan_key()) */
static inline bool ptag_is(const struct plan_tag *t, uint64_t key, const struct hws_sample *s)
{
	return t->key == key && t->ev == s->event && t->be == s->backend;
}

/* The plan of @s's shape, made at the first empty slot of its probe sequence when there is
 * none; NULL: no plan for this shape (plan_make()). */
static __attribute__((noinline)) struct json_plan *
plan_find(struct out_memo *m, const struct hws_sample *s, uint64_t f, bool close)
{
	uint64_t key = plan_key(f, close);
	unsigned int h = plan_slot(f, s->event, close);
	struct plan_tag *t;
	struct json_plan *pl;

	for (;; h = (h + 1) & (PTAG_SLOTS - 1)) {
		t = &m->ptag[h];
		if (ptag_is(t, key, s))
			return t->pl;
		if (!t->key)
			break;
	}
	if (m->nplans == PLAN_SLOTS) { /* all used (that many shapes): start again */
		memset(m->ptag, 0, sizeof(m->ptag));
		m->nplans = 0;
		t = &m->ptag[plan_slot(f, s->event, close)];
	}
	pl = &m->plan[m->nplans];
	if (!plan_make(pl, s, f, close))
		return NULL;
	t->key = key;
	t->ev = s->event;
	t->be = s->backend;
	t->pl = pl;
	m->nplans++;
	return pl;
}

/* the plan's text after @i: one 32-byte move (the plan's short texts) */
static inline __attribute__((always_inline)) char *seg(char *p, const struct json_plan *pl, int i)
{
	memcpy(p, pl->seg[i], 32);
	return p + pl->len[i];
}

/* the same for the texts that may hold the event and backend names */
static inline __attribute__((always_inline)) char *seg_long(char *p, const struct json_plan *pl,
							    int i)
{
	uint32_t n = pl->len[i];

	memcpy(p, pl->seg[i], 32);
	if (__builtin_expect(n > 32, 0)) {
		const char *t = pl->tail + pl->tail_off[i];

		memcpy(p + 32, t, 32);
		for (uint32_t k = 32; k < n - 32; k += 32)
			memcpy(p + 32 + k, t + k, 32);
	}
	return p + n;
}

/* a memo text of @n bytes (n <= 128): 96 or 128 bytes in 16-byte moves (one 64-byte memcpy
 * becomes rep movs, which runs an instruction per 4 bytes) */
static inline __attribute__((always_inline)) char *copy_txt128(char *p, const char *txt, uint32_t n)
{
	for (int k = 0; k < 96; k += 16)
		memcpy(p + k, txt + k, 16);
	if (n > 96) {
		memcpy(p + 96, txt + 96, 16);
		memcpy(p + 112, txt + 112, 16);
	}
	return p + n;
}

/* ,"mem_level":"..","snoop":"..","tlb":"..","data_src":N as hws__out_json_fast() writes it
 * (no leading comma when @first) */
static char *dsrc_text(char *p, const struct hws_sample *s, int first)
{
#define ENUM1(c, tab, v, namefn)                                                                   \
	do {                                                                                       \
		if ((v) < ARRAY_SIZE(tab) && tab[v].n) {                                           \
			memcpy(p, tab[v].s + first, 32);                                           \
			p += tab[v].n - first;                                                     \
		} else {                                                                           \
			const char *n_ = namefn(v);                                                \
			size_t nl_ = name_len(n_);                                                 \
			p = w_key(p, c, first);                                                    \
			*p++ = '"';                                                                \
			copy_small(p, n_, nl_);                                                    \
			p += nl_;                                                                  \
			*p++ = '"';                                                                \
		}                                                                                  \
		first = 0;                                                                         \
	} while (0)
	ENUM1(C_LEVEL, lvl_tab, s->mem_level, hws_mem_level__name);
	ENUM1(C_SNOOP, snoop_tab, s->snoop, hws_snoop__name);
	ENUM1(C_TLB, tlb_tab, s->tlb, hws_tlb__name);
#undef ENUM1
	p = w_key(p, C_DATA_SRC, 0);
	return hws_fmt__u64(p, s->data_src);
}

/* the same (after another column) from the memo's texts, each made once per value: PEBS
 * files carry a few hundred data-source values, SPE files a few dozen */
static inline __attribute__((always_inline)) char *dsrc_memo(char *p, struct out_memo *m,
							     const struct hws_sample *s)
{
	uint32_t key = dsrc_key(s);
	struct dsrc_ent *de = &m->dsrc[dsrc_slot(s->data_src, key)];
	char *d0 = p;

	if (de->key == key && de->ds == s->data_src)
		return copy_txt128(p, de->txt, de->n);
	p = dsrc_text(p, s, 0);
	if ((size_t)(p - d0) <= DSRC_TXT) {
		memcpy(de->txt, d0, (size_t)(p - d0));
		de->n = (uint32_t)(p - d0);
		de->ds = s->data_src;
		de->key = key;
	}
	return p;
}

/*
 * The line by the memo's plan for its shape, texts and values in turn, at @p (PLAN_ROOM
 * bytes free); the end of it. NULL: no plan for this sample (nothing written);
 * hws__out_json_fast() does it column by column.
 */
static inline __attribute__((always_inline)) char *
json_planned(char *p, struct out_memo *m, const struct hws_sample *s, bool close, bool *first_out)
{
	uint64_t f = s->fields & JSON_FIELDS;
	const struct plan_tag *t = &m->ptag[plan_slot(f, s->event, close)];
	struct json_plan *pl;

	if (__builtin_expect(ptag_is(t, plan_key(f, close), s), 1))
		pl = t->pl; /* the first probe: nearly always */
	else if (!(pl = plan_find(m, s, f, close)))
		return NULL;
	/* the plan's address in one register: otherwise GCC 12 rebuilds it (slot * size) for
	 * the length of every text it copies */
	__asm__("" : "+r"(pl));

	if ((f & HWS_SF_OP) && !op_q[s->op].n)
		return NULL;
	if (f & HWS_SF_TIME)
		p = seg_long(json_time(p, m, s->time), pl, PI_TIME);
	else
		p = seg_long(p, pl, PI_LEAD);
	if (f & HWS_SF_CPU)
		p = seg_long(hws_fmt__u32(p, s->cpu), pl, PI_CPU);
	if (f & HWS_SF_PID) {
		p = seg(hws_fmt__pid(p, s->pid), pl, PI_PID);
		p = seg_long(hws_fmt__pid(p, s->tid), pl, PI_TID);
	}
	if (f & HWS_SF_PERIOD) {
		/* periods are mostly fixed per event: the digits of the last one */
		if (s->period == pl->per_v) {
			memcpy(p, &pl->per_w, 8);
			p += pl->per_n;
		} else if (s->period < 100000000) {
			unsigned int n;
			uint64_t w = hws_fmt__word8((uint32_t)s->period, &n);

			memcpy(p, &w, 8);
			p += n;
			pl->per_w = w;
			pl->per_n = n;
			pl->per_v = s->period;
		} else {
			p = hws_fmt__u64(p, s->period);
		}
		p = seg(p, pl, PI_PERIOD);
	}
	if (f & HWS_SF_IP)
		p = seg(hws_fmt__hex_digits(p, s->ip), pl, PI_IP + (s->ip_precise != 0));
	if (f & HWS_SF_ADDR)
		p = seg(hws_fmt__hex_digits(p, s->addr), pl, PI_ADDR);
	if (f & (HWS_SF_PHYS_ADDR | HWS_SF_OP | HWS_SF_LAT_TOTAL | HWS_SF_LAT_ISSUE |
		 HWS_SF_LAT_XLAT | HWS_SF_LAT_MISS | HWS_SF_LAT_INS)) {
		if (f & HWS_SF_PHYS_ADDR)
			p = seg(hws_fmt__hex_digits(p, s->phys_addr), pl, PI_PHYS);
		if (f & HWS_SF_OP) {
			memcpy(p, op_q[s->op].s, 16);
			p = seg(p + op_q[s->op].n, pl, PI_OP);
		}
		if (f & HWS_SF_LAT_TOTAL)
			p = seg(hws_fmt__u32(p, s->lat_total), pl, PI_LAT_TOTAL);
		if (f & HWS_SF_LAT_ISSUE)
			p = seg(hws_fmt__u32(p, s->lat_issue), pl, PI_LAT_ISSUE);
		if (f & HWS_SF_LAT_XLAT)
			p = seg(hws_fmt__u32(p, s->lat_xlat), pl, PI_LAT_XLAT);
		if (f & HWS_SF_LAT_MISS)
			p = seg(hws_fmt__u32(p, s->lat_miss), pl, PI_LAT_MISS);
		if (f & HWS_SF_LAT_INS)
			p = seg(hws_fmt__u32(p, s->lat_ins), pl, PI_LAT_INS);
	}
	if (f & HWS_SF_DATA_SRC)
		p = seg(dsrc_memo(p, m, s), pl, PI_DSRC);
	if (f & HWS_SF_BRANCH)
		p = seg(hws_fmt__hex_digits(p, s->branch_target), pl, PI_BRANCH);
	*first_out = pl->first;
	return p;
}

/*
 * The common dump --json line (no symbols, no raw) straight from its plan: no line builder,
 * scratch or per-column work. Anything else, or a shape without a plan, goes the general
 * way (same bytes).
 */
bool hws__out_json_line(struct hws_output *out, const struct hws_sample *s, struct hws_strbuf *sb)
{
	bool first;
	char *p;

	if (!sb->buf || sb->alloc - sb->len <= PLAN_ROOM)
		return false;
	p = json_planned(sb->buf + sb->len, out->memo, s, true, &first);
	if (!p)
		return false;
	sb->len = (size_t)(p - sb->buf);
	*p = 0;
	return true;
}

/*
 * The fixed columns, written with one reservation; with @close also the closing "}\n".
 * false: use the general path. *first: nothing written after the '{'.
 */
bool hws__out_json_fast(struct lb *l, struct hws_output *out, const struct hws_sample *s,
			bool close, bool *first_out)
{
	struct out_memo *memo = out->memo;
	const char *ev = s->event ? s->event : "", *be = s->backend ? s->backend : "";
	size_t evl = 0, bel = 0;
	uint64_t f = s->fields;
	char *p;

	const char *evbe = NULL; /* the event/backend snippet, when the memo has it */
	uint32_t evbe_n = 0;
	struct head_ent *he = NULL; /* the memo's pid..backend entry for this sample */
	bool head_hit = false;
	uint32_t haspid = !!(f & HWS_SF_PID);
	uint64_t pt = haspid ? (uint64_t)s->pid << 32 | s->tid : 0;

	if (!lb_reserve(l, PLAN_ROOM))
		return true; /* error recorded */
	p = json_planned(l->p, memo, s, close, first_out);
	if (p) {
		l->p = p;
		return true;
	}
	if (s->event && s->backend && (f & HWS_SF_TIME)) {
		he = &memo->head[head_slot(pt, s->event)];
		head_hit = ((he->pt ^ pt) | (he->haspid ^ haspid) |
			    ((uintptr_t)he->ev ^ (uintptr_t)s->event) |
			    ((uintptr_t)he->be ^ (uintptr_t)s->backend)) == 0 &&
			   he->n;
	}
	if (!head_hit && s->event && s->backend) {
		for (unsigned int i = 0; i < 4; i++) {
			if (memo->evbe[i].n && memo->evbe[i].ev == ev && memo->evbe[i].be == be) {
				evbe = memo->evbe[i].txt;
				evbe_n = memo->evbe[i].n;
				break;
			}
		}
	}
	if (!head_hit && !evbe) {
		/* an entry is valid until the next str_info() */
		const struct str_ent *e = str_info(&out->strs, ev);
		bool plain = e->plain;

		evl = e->len;
		e = str_info(&out->strs, be);
		bel = e->len;
		if (!plain || !e->plain || evl > 4096 || bel > 4096)
			return false;
		if (s->event && s->backend)
			evbe = evbe_snippet(memo, ev, evl, be, bel, &evbe_n);
	}
	if (!lb_reserve(l, 1024 + HEAD_TXT + evl + bel))
		return true; /* error recorded */
	p = l->p;
	int first = 1;
#define NUM(c, v)                                                                                  \
	do {                                                                                       \
		p = w_key(p, c, first);                                                            \
		first = 0;                                                                         \
		p = hws_fmt__u64(p, v);                                                            \
	} while (0)
#define NUM32(c, v)                                                                                \
	do {                                                                                       \
		p = w_key(p, c, first);                                                            \
		first = 0;                                                                         \
		p = hws_fmt__u32(p, v);                                                            \
	} while (0)
#define PID32(c, v) /* signed, as perf prints a pid_t */                                           \
	do {                                                                                       \
		p = w_key(p, c, first);                                                            \
		first = 0;                                                                         \
		p = hws_fmt__pid(p, v);                                                            \
	} while (0)
#define HEX(c, v)                                                                                  \
	do {                                                                                       \
		p = w_key(p, c, first);                                                            \
		first = 0;                                                                         \
		p = w_hexq(p, v);                                                                  \
	} while (0)
#define ENUM(c, tab, v, namefn)                                                                    \
	do {                                                                                       \
		if ((v) < ARRAY_SIZE(tab) && tab[v].n) {                                           \
			memcpy(p, tab[v].s + first, 32);                                           \
			p += tab[v].n - first;                                                     \
			first = 0;                                                                 \
		} else {                                                                           \
			const char *n_ = namefn(v);                                                \
			size_t nl_ = name_len(n_);                                                 \
			STR(c, n_, nl_);                                                           \
		}                                                                                  \
	} while (0)
#define STR(c, str, n)                                                                             \
	do {                                                                                       \
		p = w_key(p, c, first);                                                            \
		first = 0;                                                                         \
		*p++ = '"';                                                                        \
		copy_small(p, str, n);                                                             \
		p += n;                                                                            \
		*p++ = '"';                                                                        \
	} while (0)
	if (f & HWS_SF_TIME) {
		p = json_time(p, memo, s->time);
		first = 0;
	} else {
		*p++ = '{';
	}
	if (f & HWS_SF_CPU)
		NUM(C_CPU, s->cpu);
	if (head_hit) {
		p = copy_txt(p, he->txt, he->n);
	} else {
		char *h0 = p;

		if (f & HWS_SF_PID) {
			PID32(C_PID, s->pid);
			PID32(C_TID, s->tid);
		}
		if (evbe) {
			/* copied in 32-byte steps: the snippet is zero-padded to a multiple */
			for (uint32_t k = first; k < evbe_n; k += 32)
				memcpy(p + (k - first), evbe + k, 32);
			p += evbe_n - first;
			first = 0;
		} else {
			if (s->event)
				STR(C_EVENT, ev, evl);
			if (s->backend)
				STR(C_BACKEND, be, bel);
		}
		if (he && (size_t)(p - h0) <= HEAD_TXT) {
			/* he is only set with time present: the text starts with its comma */
			he->n = 0;
			memcpy(he->txt, h0, (size_t)(p - h0));
			he->ev = s->event;
			he->be = s->backend;
			he->pt = pt;
			he->haspid = haspid;
			he->n = (uint32_t)(p - h0);
		}
	}
	if (f & HWS_SF_PERIOD) {
		struct per_ent *pe = &memo->per[((uintptr_t)s->event >> 4) % PER_SLOTS];

		if (pe->v == s->period && pe->ev == s->event && pe->n) {
			p = w_key(p, C_PERIOD, first);
			first = 0;
			memcpy(p, &pe->w, 8);
			p += pe->n;
		} else if (s->period < 100000000) {
			unsigned int n;
			uint64_t w = hws_fmt__word8((uint32_t)s->period, &n);

			p = w_key(p, C_PERIOD, first);
			first = 0;
			memcpy(p, &w, 8);
			p += n;
			pe->w = w;
			pe->v = s->period;
			pe->ev = s->event;
			pe->n = n;
		} else if (s->period <= UINT32_MAX) {
			NUM32(C_PERIOD, (uint32_t)s->period);
		} else {
			NUM(C_PERIOD, s->period);
		}
	}
	if (f & HWS_SF_IP) {
		HEX(C_IP, s->ip);
		p = w_key(p, C_PRECISE, first);
		if (s->ip_precise) {
			memcpy(p, "true", 4);
			p += 4;
		} else {
			memcpy(p, "false", 5);
			p += 5;
		}
	}
	if (f & HWS_SF_ADDR)
		HEX(C_ADDR, s->addr);
	if (f & HWS_SF_PHYS_ADDR)
		HEX(C_PHYS, s->phys_addr);
	if (f & HWS_SF_OP)
		ENUM(C_OP, op_tab, s->op, hws_op__name);
	if (f & HWS_SF_LAT_TOTAL)
		NUM32(C_LAT_TOTAL, s->lat_total);
	if (f & HWS_SF_LAT_ISSUE)
		NUM32(C_LAT_ISSUE, s->lat_issue);
	if (f & HWS_SF_LAT_XLAT)
		NUM32(C_LAT_XLAT, s->lat_xlat);
	if (f & HWS_SF_LAT_MISS)
		NUM32(C_LAT_MISS, s->lat_miss);
	if (f & HWS_SF_LAT_INS)
		NUM32(C_LAT_INS, s->lat_ins);
	if (f & HWS_SF_DATA_SRC) {
		p = !first ? dsrc_memo(p, memo, s) : dsrc_text(p, s, first);
		first = 0;
	}
	if (f & HWS_SF_BRANCH)
		HEX(C_BRANCH, s->branch_target);
#undef NUM
#undef NUM32
#undef PID32
#undef HEX
#undef STR
#undef ENUM
	if (close) {
		memcpy(p, "}\n", 2);
		p += 2;
	}
	*first_out = first;
	l->p = p;
	return true;
}

/* the 22 columns with one reservation; false: use the general path (nothing written) */
bool hws__out_csv_fast(struct lb *l, struct hws_output *out, const struct hws_sample *s)
{
	const struct csv_names *cn = &hws__out_csv_names;
	uint64_t f = s->fields;
	size_t evl = 0, bel = 0;
	int evk = 0, bek = 0;
	char *p;

	if (s->event)
		evk = csv_kind(&out->strs, s->event, &evl);
	if (s->backend)
		bek = csv_kind(&out->strs, s->backend, &bel);
	if (evk > 1 || bek > 1 || evl > 4096 || bel > 4096)
		return false;
	if ((f & HWS_SF_OP) && (s->op >= ARRAY_SIZE(cn->op) || !cn->op[s->op].n))
		return false;
	if ((f & HWS_SF_DATA_SRC) &&
	    (s->mem_level >= ARRAY_SIZE(cn->lvl) || !cn->lvl[s->mem_level].n ||
	     s->snoop >= ARRAY_SIZE(cn->snoop) || !cn->snoop[s->snoop].n ||
	     s->tlb >= ARRAY_SIZE(cn->tlb) || !cn->tlb[s->tlb].n))
		return false;
	if (!lb_reserve(l, 1024 + evl + bel))
		return true; /* error recorded */
	p = l->p;
	if (f & HWS_SF_TIME)
		p = hws_fmt__u64(p, s->time);
	*p++ = ',';
	if (f & HWS_SF_CPU)
		p = hws_fmt__u64(p, s->cpu);
	*p++ = ',';
	if (f & HWS_SF_PID) {
		p = hws_fmt__pid(p, s->pid);
		*p++ = ',';
		p = hws_fmt__pid(p, s->tid);
	} else {
		*p++ = ',';
	}
	*p++ = ',';
	if (s->event) {
		*p = '"';
		p += evk;
		copy_small(p, s->event, evl);
		p += evl;
		*p = '"';
		p += evk;
	}
	*p++ = ',';
	if (s->backend) {
		*p = '"';
		p += bek;
		copy_small(p, s->backend, bel);
		p += bel;
		*p = '"';
		p += bek;
	}
	*p++ = ',';
	if (f & HWS_SF_PERIOD)
		p = hws_fmt__u64(p, s->period);
	*p++ = ',';
	if (f & HWS_SF_IP) {
		p = hws_fmt__hex(p, s->ip);
		*p++ = ',';
		p = hws_fmt__u64(p, s->ip_precise);
	} else {
		*p++ = ',';
	}
	*p++ = ',';
	if (f & HWS_SF_ADDR)
		p = hws_fmt__hex(p, s->addr);
	*p++ = ',';
	if (f & HWS_SF_PHYS_ADDR)
		p = hws_fmt__hex(p, s->phys_addr);
	if (f & HWS_SF_OP) {
		memcpy(p, cn->op[s->op].s, 32);
		p += cn->op[s->op].n;
	} else {
		*p++ = ',';
	}
	*p++ = ',';
	if (f & HWS_SF_LAT_TOTAL)
		p = hws_fmt__u32(p, s->lat_total);
	*p++ = ',';
	if (f & HWS_SF_LAT_ISSUE)
		p = hws_fmt__u32(p, s->lat_issue);
	*p++ = ',';
	if (f & HWS_SF_LAT_XLAT)
		p = hws_fmt__u32(p, s->lat_xlat);
	*p++ = ',';
	if (f & HWS_SF_LAT_MISS)
		p = hws_fmt__u32(p, s->lat_miss);
	*p++ = ',';
	if (f & HWS_SF_LAT_INS)
		p = hws_fmt__u32(p, s->lat_ins);
	if (f & HWS_SF_DATA_SRC) {
		memcpy(p, cn->lvl[s->mem_level].s, 32);
		p += cn->lvl[s->mem_level].n;
		memcpy(p, cn->snoop[s->snoop].s, 32);
		p += cn->snoop[s->snoop].n;
		memcpy(p, cn->tlb[s->tlb].s, 32);
		p += cn->tlb[s->tlb].n;
		*p++ = ',';
		p = hws_fmt__u64(p, s->data_src);
	} else {
		memcpy(p, ",,,,", 4); /* level, snoop, tlb, data_src */
		p += 4;
	}
	*p++ = ',';
	if (f & HWS_SF_BRANCH)
		p = hws_fmt__hex(p, s->branch_target);
	l->p = p;
	return true;
}
