/* SPDX-License-Identifier: MIT */
/*
 * What the files of core/output share (not installed): the line builder that writes a line
 * straight into the caller's strbuf, the column table, the formatter object and the caches
 * that every format reads, and the functions each file offers the others:
 *   output.c  public entry points; the general column-by-column JSON and CSV writers,
 *             symbols and raw fields;
 *   fast.c    the fast JSON and CSV rows (per-shape JSON line plans and the memo of texts
 *             already made), the enum-name tables;
 *   text.c    the text line (perf-script-like);
 *   script.c  the dump -F line (perf script -F's layout).
 *
 * Invariants: the fast writers write exactly the bytes of the general ones (a fast path
 * that cannot, returns before writing and the general one runs); a cache entry holds, for
 * its key, exactly the text a miss would write. Helpers called per sample from more than
 * one file are static inline here.
 */
#ifndef HWS_OUTPUT_INT_H
#define HWS_OUTPUT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwsample/fmt.h>
#include <hwsample/output.h>

#include "util/internal.h"

/*
 * Line builder writing straight into the strbuf's memory: reserve room (the strbuf grows by
 * doubling, so this is rare), write through a cursor, commit the length at the end. A sample
 * is all or nothing: on error the strbuf goes back to its length before the sample.
 */
struct lb {
	struct hws_strbuf *sb;
	char *p, *end;
	size_t start;
	int err;
};

/* make room for @n more bytes (the strbuf grows); false: error recorded in @l (output.c) */
bool hws__out_lb_grow(struct lb *l, size_t n);

static inline bool lb_reserve(struct lb *l, size_t n)
{
	if (l->p && (size_t)(l->end - l->p) >= n)
		return true;
	return hws__out_lb_grow(l, n);
}

/* short copies inline: a libc call per field would cost more than the field */
static inline __attribute__((always_inline)) void copy_small(char *d, const char *s, size_t n)
{
	if (n > 32) {
		memcpy(d, s, n);
		return;
	}
	/* fixed-size moves only: the compiler inlines them (a byte loop becomes a call) */
	for (; n >= 8; n -= 8, d += 8, s += 8)
		memcpy(d, s, 8);
	if (n & 4) {
		memcpy(d, s, 4);
		d += 4;
		s += 4;
	}
	if (n & 2) {
		memcpy(d, s, 2);
		d += 2;
		s += 2;
	}
	if (n & 1)
		*d = *s;
}

static inline __attribute__((always_inline)) void lb_add(struct lb *l, const char *s, size_t len)
{
	if (!lb_reserve(l, len))
		return;
	copy_small(l->p, s, len);
	l->p += len;
}

static inline void lb_init(struct lb *l, struct hws_strbuf *sb)
{
	l->sb = sb;
	l->start = sb->len;
	l->err = 0;
	l->p = l->end = NULL;
	if (sb->buf && sb->alloc > sb->len) {
		l->p = sb->buf + sb->len;
		l->end = sb->buf + sb->alloc - 1;
	}
}

#define lb_lit(l, s) lb_add((l), (s), sizeof(s) - 1)

static inline void lb_str(struct lb *l, const char *s)
{
	lb_add(l, s, strlen(s));
}

/* 1 for the bytes JSON strings carry as they are (printable ASCII but '"' and '\\') */
static const uint8_t json_plain_tbl[256] = {
    [0x20 ... 0x21] = 1, /* 0x22 '"' */
    [0x23 ... 0x5b] = 1, /* 0x5c '\\' */
    [0x5d ... 0x7e] = 1,
};

static inline bool json_plain(const char *s, size_t *len)
{
	const uint8_t *p = (const uint8_t *)s;

	while (json_plain_tbl[*p])
		p++;
	if (*p)
		return false;
	*len = (size_t)((const char *)p - s);
	return true;
}

/* the sample fields shared by every format, in column order */
enum col {
	C_TIME,
	C_CPU,
	C_PID,
	C_TID,
	C_EVENT,
	C_BACKEND,
	C_PERIOD,
	C_IP,
	C_PRECISE,
	C_ADDR,
	C_PHYS,
	C_OP,
	C_LAT_TOTAL,
	C_LAT_ISSUE,
	C_LAT_XLAT,
	C_LAT_MISS,
	C_LAT_INS,
	C_LEVEL,
	C_SNOOP,
	C_TLB,
	C_DATA_SRC,
	C_BRANCH,
	C__NR,
};

#define COL(id, n, f) [id] = {n, ",\"" n "\":", sizeof(",\"" n "\":") - 1, f}

/* key is zero-padded to 32 bytes so it can be copied with fixed-size moves */
static const struct {
	const char *name;
	const char key[32]; /* ,"name": */
	size_t key_len;
	uint64_t need;
} cols[C__NR] = {
    COL(C_TIME, "time", HWS_SF_TIME),
    COL(C_CPU, "cpu", HWS_SF_CPU),
    COL(C_PID, "pid", HWS_SF_PID),
    COL(C_TID, "tid", HWS_SF_PID),
    COL(C_EVENT, "event", 0),
    COL(C_BACKEND, "backend", 0),
    COL(C_PERIOD, "period", HWS_SF_PERIOD),
    COL(C_IP, "ip", HWS_SF_IP),
    COL(C_PRECISE, "precise", HWS_SF_IP),
    COL(C_ADDR, "addr", HWS_SF_ADDR),
    COL(C_PHYS, "phys_addr", HWS_SF_PHYS_ADDR),
    COL(C_OP, "op", HWS_SF_OP),
    COL(C_LAT_TOTAL, "lat_total", HWS_SF_LAT_TOTAL),
    COL(C_LAT_ISSUE, "lat_issue", HWS_SF_LAT_ISSUE),
    COL(C_LAT_XLAT, "lat_xlat", HWS_SF_LAT_XLAT),
    COL(C_LAT_MISS, "lat_miss", HWS_SF_LAT_MISS),
    COL(C_LAT_INS, "lat_ins", HWS_SF_LAT_INS),
    COL(C_LEVEL, "mem_level", HWS_SF_DATA_SRC),
    COL(C_SNOOP, "snoop", HWS_SF_DATA_SRC),
    COL(C_TLB, "tlb", HWS_SF_DATA_SRC),
    COL(C_DATA_SRC, "data_src", HWS_SF_DATA_SRC),
    COL(C_BRANCH, "branch_target", HWS_SF_BRANCH),
};

static inline bool col_valid(const struct hws_sample *s, int c)
{
	if (c == C_EVENT)
		return s->event != NULL;
	if (c == C_BACKEND)
		return s->backend != NULL;
	return (s->fields & cols[c].need) == cols[c].need;
}

/*
 * How @s goes into a CSV cell (as lb_csv_str() writes it): 0 as it is, 1 between quotes
 * (',', CR or LF but no '"' inside), 2 with doubled quotes (slow path).
 */
static inline int csv_kind_of(const char *s)
{
	if (!strpbrk(s, ",\"\n\r"))
		return 0;
	return strchr(s, '"') ? 2 : 1;
}

/*
 * The strings a formatter meets again and again (event and backend names), known by
 * address: the last STR_SLOTS seen with their length and how they go into JSON and CSV.
 */
#define STR_SLOTS 8

struct str_ent {
	const char *p;
	size_t len;
	bool plain;  /* json_plain() */
	bool tplain; /* hws_strbuf__text_plain(): goes into text lines as it is */
	int kind;    /* csv_kind_of() */
};

struct out_strs {
	struct str_ent e[STR_SLOTS];
	unsigned int next;
};

/* what the cache knows of @s (made now if it does not): valid until the next call */
static inline const struct str_ent *str_info(struct out_strs *m, const char *s)
{
	struct str_ent *e;

	for (unsigned int i = 0; i < STR_SLOTS; i++) {
		if (m->e[i].p == s)
			return &m->e[i];
	}
	e = &m->e[m->next];
	m->next = (m->next + 1) % STR_SLOTS;
	e->p = s;
	e->plain = json_plain(s, &e->len);
	if (!e->plain)
		e->len = strlen(s);
	e->tplain = e->plain || hws_strbuf__text_plain(s);
	e->kind = csv_kind_of(s);
	return e;
}

/* how @s goes into a CSV cell (csv_kind_of()), from the cache; *len: strlen(s) */
static inline int csv_kind(struct out_strs *m, const char *s, size_t *len)
{
	const struct str_ent *e = str_info(m, s);

	*len = e->len;
	return e->kind;
}

/*
 * The enum names (op, level, snoop, TLB) as CSV cells: ",name" zero-padded, copied as 32
 * bytes; n = 0: the name needs quoting or is too long (general path). Made once by
 * hws__out_names_init() (fast.c), with the JSON ones.
 */
struct csv_name {
	char s[32];
	uint8_t n;
};

struct csv_names {
	struct csv_name op[HWS_OP_OTHER + 1], lvl[HWS_MEM__MAX], snoop[HWS_SNOOP__MAX],
	    tlb[HWS_TLB__MAX];
};

extern struct csv_names hws__out_csv_names;

/* fill the enum-name tables, once per process (fast.c) */
void hws__out_names_init(void);

/* the JSON caches of a formatter (fast.c); freed with free() */
struct out_memo;
struct out_memo *hws__out_memo_new(void);

/* a formatter: its options, read once, and its caches */
struct hws_output {
	struct hws_output_opts o;
	bool syms;    /* o.symbols && o.syms */
	bool planned; /* JSON without symbols or raw: whole lines from the memo's plans */
	struct hws_strbuf scratch; /* vendor fields, symbols */
	struct out_strs strs;
	struct out_memo *memo;
};

/* fast.c: @s's whole JSON line (no symbols, no raw) from its plan into @sb; false: no
 * plan for it or no room (nothing written) */
bool hws__out_json_line(struct hws_output *out, const struct hws_sample *s, struct hws_strbuf *sb);
/* fast.c: the fixed JSON columns (with "}\n" when @close) with one reservation; false: use
 * the general path (nothing written). *first: nothing written after the '{' */
bool hws__out_json_fast(struct lb *l, struct hws_output *out, const struct hws_sample *s,
			bool close, bool *first);
/* fast.c: the 22 CSV columns with one reservation; false: use the general path */
/* @s in a text line, control characters escaped (hws_strbuf__add_text_str()) */
void hws__out_text_str(struct lb *l, const char *s);
bool hws__out_csv_fast(struct lb *l, struct hws_output *out, const struct hws_sample *s);
/* text.c: the text line */
void hws__out_text(struct lb *l, struct hws_output *out, const struct hws_sample *s);
/* script.c: the perf script -F line */
void hws__out_script(struct lb *l, struct hws_output *out, const struct hws_sample *s);
/* output.c: the vendor fields (raw_json) as the format has them */
void hws__out_raw(struct lb *l, struct hws_output *out, const struct hws_sample *s);

#endif
