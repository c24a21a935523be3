// SPDX-License-Identifier: MIT
/*
 * perf report's sorted view: samples grouped by sort keys (comm, pid, dso, sym, mem, ...)
 * into rows, one section per event, printed as `perf report --stdio --no-children` does
 * (see include/hwsample/report.h, hws_report_opts::sort_keys).
 *
 * Per sample: the symbols of its ip (and data address) are looked up once (the decoder's
 * symbols, current at the sample's time as perf's are), each key becomes up to KV numbers
 * (strings interned to numbers), and the key vector is found or added in the section's hash
 * table. A new row gets its printed columns then, while its symbols are valid; later samples
 * only add to its tallies. When every key is a function of the sample's pid, tid, ip, mode,
 * event (and cpu) and of the symbol tables' state, a sample repeating those while the state
 * holds goes straight to the row of the last one (struct rc_ent).
 *
 * Invariants:
 *  - rows of a section are a dense array in insertion order, indexed by an open-addressing
 *    hash (power-of-two size, at most half full) of row numbers + 1 and their hash bits;
 *    a row's keys and columns live in the hist's arena and never move;
 *  - a cached answer (row cache, comm ids) is used only while hws_symbols__state() is the
 *    one it was made under, so it is the answer the lookups would give;
 *  - interned strings are owned by the hist and never move (each is its own allocation);
 *    string ids are dense from 1 (0 = none);
 *  - two samples share a row exactly when every key compares equal as perf's sort key does
 *    (perf's cmp functions: sym compares dso then symbol start/end, unresolved ips by map
 *    address; symbol_daddr by data address; dcacheline by map-relative line ...);
 *  - sections are in order of first sample; perf prints them in evlist order, which is the
 *    same for files whose events all have samples in attr order (sorted at render by
 *    attr_idx).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/datatype.h>
#include <hwsample/filter.h>
#include <hwsample/fmt.h>
#include <hwsample/report.h>
#include <hwsample/symbols.h>

#include "analysis/report_cg.h"
#include "analysis/report_cgmemo.h"
#include "analysis/report_hist.h"
#include "analysis/report_int.h"
#include "symbols/symbols_core.h"
#include "util/internal.h"

/* perf's sort key names, in perf's order of lookup (a prefix picks the first match) */
static const struct {
	const char *name, *header;
	int id;
} key_defs[] = {
    {"pid", "Pid:Command", K_PID},
    {"comm", "Command", K_COMM},
    {"dso", "Shared Object", K_DSO},
    {"symbol", "Symbol", K_SYM},
    {"cpu", "CPU", K_CPU},
    {"srcline", "Source:Line", K_SRCLINE},
    {"local_weight", "Local Weight", K_LOCAL_WEIGHT},
    {"weight", "Weight", K_WEIGHT_COL},
    {"local_ins_lat", "Local INSTR Latency", K_LOCAL_INS_LAT},
    {"symbol_daddr", "Data Symbol", K_DADDR},
    {"dso_daddr", "Data Object", K_DSO_DADDR},
    {"locked", "Locked", K_LOCKED},
    {"tlb", "TLB access", K_TLB},
    {"mem", "Memory access", K_MEM},
    {"snoop", "Snoop", K_SNOOP},
    {"dcacheline", "Data Cacheline", K_DCACHELINE},
    {"blocked", "Blocked", K_BLOCKED},
    /* not in perf 6.1 */
    {"tid", "Tid:Command", K_TID},
    {"symoff", "Symbol", K_SYMOFF},
    {"event", "Event", K_EVENT},
    {"op", "Operation", K_OP},
    {"data_page", "Data Page", K_DATA_PAGE},
    {"sample", "Samples", K_SAMPLE_COL},
    {"avg_weight", "Average Weight", K_AVG_WEIGHT},
    {"object", "Data Object", K_OBJECT},
    {"offset", "Offset", K_OBJOFF},
    /* perf 6.8's data-type profiling */
    {"type", "Data Type", K_TYPE},
    {"typeoff", "Data Type Offset", K_TYPEOFF},
};

/* perf mem report's default --sort (what x86 shows; p_stage_cyc is Power only) */
const char hist__mem_default[] =
    "local_weight,mem,sym,dso,symbol_daddr,dso_daddr,snoop,tlb,locked,blocked,local_ins_lat";

/*
 * The row a sample went to, by what decides it when every key is a function of the sample's
 * pid, tid, ip, cpumode, event (and cpu) and of the symbol tables' state: a sample that
 * repeats one of those while the state is the same (hws_symbols__state()) goes to the same
 * row without a lookup. Direct-mapped. A sample with a call chain (report -g) takes that way
 * only when its chain is in the memo too (hist__chain_find()): it then costs no lookup at all.
 */
#define RC_BITS 13

struct rc_ent {
	uint64_t ip, state;
	const char *event;
	uint64_t pidtid; /* rc_key's: pid | tid << 32 */
	uint64_t misc;	 /* rc_key's: attr_idx, cpumode, and a set top bit (0: an empty entry) */
	void *file;	 /* the file the lookup used (kept recently used on a hit) */
	uint32_t cpu;
	uint32_t sec, row;
};

/* the sample's side of an entry: what rc_hit() compares, each worked out once */
struct rc_key {
	uint64_t pidtid, misc;
};

static inline struct rc_key rc_key(const struct hws_sample *s)
{
	return (struct rc_key){.pidtid = s->pid | (uint64_t)s->tid << 32,
			       .misc = s->attr_idx | (uint64_t)s->cpumode << 32 | 1ULL << 63};
}

/* ---------------------------------------------------------------- keys */

static int find_key(const char *tok, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_defs); i++)
		if (strlen(key_defs[i].name) == len && !strncmp(tok, key_defs[i].name, len))
			return (int)i;
	/* perf matches a prefix of a key name: the first in its order */
	for (size_t i = 0; i < ARRAY_SIZE(key_defs); i++)
		if (!strncmp(tok, key_defs[i].name, len))
			return (int)i;
	return -1;
}

int hws_report__parse_sort(const char *keys, char *bad, size_t len)
{
	const char *p = keys;
	int n = 0;

	if (!keys || !*keys)
		goto inval;
	while (*p) {
		size_t l = strcspn(p, ",");

		if (!l || find_key(p, l) < 0 || ++n > MAX_KEYS) {
			if (bad && len)
				snprintf(bad, len, "%.*s", (int)l, p);
			return -EINVAL;
		}
		p += l;
		if (*p)
			p++;
	}
	return 0;
inval:
	if (bad && len)
		snprintf(bad, len, "%s", keys ? keys : "");
	return -EINVAL;
}

/* ---------------------------------------------------------------- strings */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

uint32_t hist__intern(struct hws_hist *h, const char *s)
{
	uint64_t hv;
	size_t i;

	if (!s)
		s = "";
	s = hws__text(&h->esc, s); /* names from the file are shown as text: no control chars */
	if ((h->nstrs + 1) * 2 > h->ssize) {
		size_t ns = h->ssize ? h->ssize * 2 : 256;
		uint32_t *t = calloc(ns, sizeof(*t));

		if (!t)
			return 0;
		for (size_t j = 0; j < h->ssize; j++) {
			if (!h->stab[j])
				continue;
			for (i = str_hash(h->strs[h->stab[j] - 1]) & (ns - 1); t[i];
			     i = (i + 1) & (ns - 1))
				;
			t[i] = h->stab[j];
		}
		free(h->stab);
		h->stab = t;
		h->ssize = ns;
	}
	hv = str_hash(s);
	for (i = hv & (h->ssize - 1); h->stab[i]; i = (i + 1) & (h->ssize - 1))
		if (!strcmp(h->strs[h->stab[i] - 1], s))
			return h->stab[i];
	if (h->nstrs == h->astrs) {
		size_t na = h->astrs ? h->astrs * 2 : 256;
		char **v = realloc(h->strs, na * sizeof(*v));

		if (!v)
			return 0;
		h->strs = v;
		h->astrs = na;
	}
	h->strs[h->nstrs] = strdup(s);
	if (!h->strs[h->nstrs])
		return 0;
	h->stab[i] = (uint32_t)++h->nstrs;
	return h->stab[i];
}

const char *hist__str(const struct hws_hist *h, uint32_t id)
{
	return id && id <= h->nstrs ? h->strs[id - 1] : "";
}

/* ---------------------------------------------------------------- per sample */

static char level_of(const struct hws_sample *s)
{
	switch (s->cpumode) {
	case 1: /* PERF_RECORD_MISC_KERNEL */
		return 'k';
	case 3: /* HYPERVISOR */
		return 'H';
	case 4: /* GUEST_KERNEL */
		return 'g';
	case 5: /* GUEST_USER */
		return 'u';
	default:
		return '.';
	}
}

/*
 * perf's map-relative address of a lookup (its al->addr: address - map start + the map's
 * file offset): anonymous and kernel maps are identity. The ELF vaddr (dso_addr) is the same
 * for shared objects and PIE executables, not for a non-PIE executable's (mapped at its
 * vaddr: perf says 0x1234 where the vaddr is 0x401234), so the map is asked when there is one.
 */
static uint64_t map_addr(const struct ctx *c, const struct hws_symbol *sym, uint64_t addr)
{
	struct hws_map_info mi;

	if (!sym->dso || sym->dso[0] != '/' || !strncmp(sym->dso, "//", 2))
		return addr;
	if (c->syms && !hws_symbols__map_find(c->syms, c->s->pid, addr, &mi))
		return addr - mi.start + mi.pgoff;
	return sym->dso_addr;
}

static bool anon_dso(const char *dso)
{
	return !dso || dso[0] != '/' || !strncmp(dso, "//", 2);
}

/*
 * perf 6.1's srcline column (Linux tools/perf/util/srcline.c): "FILE:LINE", FILE's last component
 * unless whole paths were asked; without a line, what addr2line gives in an ELF function
 * symbol, "FILE:0" (hws_symbols__a2l_file()); else "SYM+OFFSET" (decimal); without a symbol
 * either, "DSO[ADDR]", ADDR as objdump shows it (the ELF vaddr). In @b; returns the text.
 */
static const char *srcline_text(struct hws_hist *h, const struct ctx *c, char *b, size_t sz)
{
	const struct hws_symbol *sym = &c->code;
	const char *f = sym->srcfile;

	if (!f && c->syms && !anon_dso(sym->dso))
		f = hws_symbols__a2l_file(c->syms, sym->dso, sym->dso_addr);
	if (f) {
		const char *base = strrchr(f, '/');

		snprintf(b, sz, "%s:%u", h->full_src || !base ? f : base + 1, sym->line);
	} else if (sym->name) {
		snprintf(b, sz, "%s+%" PRIu64, sym->name, sym->offset);
	} else {
		snprintf(b, sz, "%s[%" PRIx64 "]", hist__str(h, c->dso_id),
			 anon_dso(sym->dso) ? c->s->ip : sym->dso_addr);
	}
	return b;
}

int hist__key_vals(struct hws_hist *h, struct ctx *c, int key, uint64_t *v)
{
	const struct hws_sample *s = c->s;

	v[0] = v[1] = v[2] = 0;
	switch (key) {
	case K_COMM: {
		struct comm_ent *ce = &h->cc[s->pid & (ARRAY_SIZE(h->cc) - 1)];
		uint64_t state = c->syms ? hws_symbols__state(c->syms) : 0;
		const char *comm;
		char b[HWS_COMM_TID_LEN];

		if (c->syms && ce->id && ce->pid == s->pid && ce->tid == s->tid &&
		    ce->state == state) {
			v[0] = ce->id;
			return 0;
		}
		comm = hws_symbols__comm_or_tid(c->syms, s, b);
		if (comm == b) {
			/* perf's ":TID" comm: named later (comm_fixup()) */
			if (s->fields & HWS_SF_PID) {
				v[1] = COMM_PENDING;
				v[2] = s->tid;
			}
		}
		v[0] = hist__intern(h, comm);
		if (!v[1]) /* a pending ":TID" is not cached: its row keys carry the pid */
			*ce = (struct comm_ent){s->pid, s->tid, (uint32_t)v[0], state};
		return v[0] ? 0 : -ENOMEM;
	}
	case K_PID:
	case K_TID:
		/* perf's thread key is the tid alone: the samples of exited threads (tid -1) of
		 * several processes are one row; named at the end by v[0]: the thread's latest
		 * comm, as perf */
		v[0] = s->tid;
		v[2] = !(s->fields & HWS_SF_PID); /* no process to name */
		return 0;
	case K_DSO:
		v[0] = c->dso_id;
		return 0;
	case K_SYM:
	case K_SRCLINE:
	case K_SYMOFF:
		if (key == K_SRCLINE) { /* perf compares the text */
			char b[TEXT_MAX];

			v[0] = hist__intern(h, srcline_text(h, c, b, sizeof(b)));
			return v[0] ? 0 : -ENOMEM;
		}
		if (key == K_SYMOFF) {
			v[0] = c->dso_id;
			v[1] = s->ip;
			return 0;
		}
		if (c->code.name) {
			v[0] = c->dso_id;
			v[1] = c->code.dso_addr - c->code.offset;
			v[2] = c->inl ? 1ULL << 63 | c->inl : c->code.size + 1;
		} else {
			v[1] = map_addr(c, &c->code, s->ip);
		}
		return 0;
	case K_CPU:
		v[0] = (s->fields & HWS_SF_CPU) ? s->cpu : UINT64_MAX;
		return 0;
	case K_EVENT:
		v[0] = s->attr_idx;
		return 0;
	case K_DADDR:
		v[0] = c->have_addr ? s->addr : 0;
		/* an address without a symbol prints the sample's level ("[k] 0x..."): one row
		 * per level, as perf 6.1 shows them (it compares the addresses alone, but as
		 * (int64_t)(r - l), which leaves a user and a kernel sample's 0 apart) */
		v[1] = c->have_addr && c->data.name ? 0 : (uint64_t)(unsigned char)c->level;
		return 0;
	case K_DSO_DADDR:
		v[0] = c->have_addr && c->data.dso
			   ? hist__intern(h, hws_dso__short_name(c->data.dso))
			   : 0;
		return 0;
	case K_MEM: /* perf compares mem_lvl only; the row shows its first sample's text */
		v[0] = DS_LVL(c->ds) + 1;
		return 0;
	case K_SNOOP: /* perf compares mem_snoop only */
		v[0] = DS_SNOOP(c->ds) + 1;
		return 0;
	case K_TLB:
		v[0] = DS_DTLB(c->ds) + 1;
		return 0;
	case K_LOCKED:
		v[0] = DS_LOCK(c->ds) + 1;
		return 0;
	case K_BLOCKED:
		v[0] = DS_BLK(c->ds) + 1;
		return 0;
	case K_OP:
		v[0] = DS_OP(c->ds) + 1;
		return 0;
	case K_DCACHELINE:
		/* perf's sort__dcacheline_cmp(): the sample's cpumode first, then the file, the
		 * process for anonymous user memory (with a map only), then the line */
		v[1] = (uint64_t)s->cpumode << 32;
		if (!c->have_addr)
			return 0;
		v[0] = map_addr(c, &c->data, s->addr) & ~63ULL;
		if (c->data.dso && anon_dso(c->data.dso) && s->cpumode != 1 /* KERNEL */ &&
		    (int64_t)s->addr >= 0)
			v[1] |= s->pid;
		v[2] = c->data.dso ? hist__intern(h, c->data.dso) : 0;
		return 0;
	case K_DATA_PAGE:
		if (!c->have_addr)
			return 0;
		v[0] = s->addr & ~4095ULL;
		v[1] = (int64_t)s->addr >= 0 ? s->pid : 0;
		return 0;
	case K_LOCAL_WEIGHT:
		v[0] = (s->fields & HWS_SF_WEIGHT) ? (uint32_t)s->weight : 0;
		return 0;
	case K_LOCAL_INS_LAT: /* perf's ins_lat: the weight's var2_w (WEIGHT_STRUCT, x86) */
		v[0] = (s->fields & HWS_SF_WEIGHT) ? (s->weight >> 32) & 0xffff : 0;
		return 0;
	case K_OBJECT: /* kind, then its printed name (site and size, symbol, file ...) */
		v[0] = (uint64_t)c->obj.kind;
		v[1] = c->obj_col;
		v[2] = c->obj.kind == HWS_OBJ_STACK ? c->obj.base : 0;
		return 0;
	case K_OBJOFF: /* none where the extent is unknown (a mapping from the side-band) */
		v[0] = c->obj.kind && (c->obj.size || c->obj.kind == HWS_OBJ_MMAP ||
				       c->obj.kind == HWS_OBJ_STATIC)
			   ? c->obj.offset + 1
			   : 0;
		return 0;
	case K_TYPE: /* perf compares the type's name */
		v[0] = c->type_id;
		return 0;
	case K_TYPEOFF:
		v[0] = c->type_id;
		v[1] = c->type_id ? (uint64_t)c->type.offset : 0;
		return 0;
	default: /* columns, not keys */
		return 0;
	}
}

/* snprintf(out, sz, "%s", s) without printf (a new row formats several columns: with
 * distinct data addresses, as PEBS and IBS samples have, that is every sample) */
static void put_str(char *out, size_t sz, const char *s)
{
	size_t n = strlen(s); /* not strnlen: gcc's -Wstringop-overread on literals */

	if (n > sz - 1)
		n = sz - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

/* perf's unresolved address, "[%c] " and its "%-#.*llx" of 16 digits (0 without the "0x", as
 * printf's '#'), in @out (at least 23 bytes) */
static void put_addr16(char *out, char level, uint64_t addr)
{
	uint64_t hi = hws_fmt__hex8((uint32_t)(addr >> 32)), lo = hws_fmt__hex8((uint32_t)addr);
	size_t p = addr ? 6 : 4;

	memcpy(out, "[?] 0x", 6);
	out[1] = level;
	memcpy(out + p, &hi, 8);
	memcpy(out + p + 8, &lo, 8);
	out[p + 16] = 0;
}

/* @out: TEXT_MAX bytes */
static void fmt_sym(char *out, size_t sz, char level, const struct hws_symbol *sym, uint64_t addr,
		    bool off)
{
	if (sym->name) {
		if (off || sym->kind == HWS_SYM_OBJECT) {
			snprintf(out, sz, "[%c] %s+0x%" PRIx64, level, sym->name, sym->offset);
		} else {
			memcpy(out, "[?] ", 4);
			out[1] = level;
			put_str(out + 4, sz - 4, sym->name);
		}
	} else {
		put_addr16(out, level, addr);
	}
}

/* the printed column of @key for the row's first sample */
static uint32_t key_col(struct hws_hist *h, struct ctx *c, int key, const uint64_t *v)
{
	const struct hws_sample *s = c->s;
	char b[TEXT_MAX];

	b[0] = 0;
	switch (key) {
	case K_COMM:
		return (uint32_t)v[0];
	case K_PID:
	case K_TID: {
		char t[HWS_COMM_TID_LEN];

		/* signed as perf's (pid -1), an unknown comm as perf's ":TID" */
		snprintf(b, sizeof(b), "%7d:%s", (int)s->tid,
			 hws_symbols__comm_or_tid(c->syms, s, t));
		break;
	}
	case K_DSO:
		return c->dso_id;
	case K_SYM:
		fmt_sym(b, sizeof(b), c->level, &c->code, map_addr(c, &c->code, s->ip), false);
		break;
	case K_SYMOFF:
		fmt_sym(b, sizeof(b), c->level, &c->code, map_addr(c, &c->code, s->ip), true);
		break;
	case K_SRCLINE:
		srcline_text(h, c, b, sizeof(b));
		break;
	case K_CPU: /* perf: "%*.*d" of the header's width; no CPU field: -1 */
		snprintf(b, sizeof(b), "%3.3d", (s->fields & HWS_SF_CPU) ? (int)s->cpu : -1);
		break;
	case K_EVENT:
		put_str(b, sizeof(b), s->event ? s->event : "?");
		break;
	case K_DADDR:
		if (c->have_addr)
			fmt_sym(b, sizeof(b), c->level, &c->data, s->addr, false);
		else
			put_addr16(b, c->level, 0);
		break;
	case K_DSO_DADDR:
		put_str(b, sizeof(b), v[0] ? hist__str(h, (uint32_t)v[0]) : "[unknown]");
		break;
	case K_MEM:
		hist__mem_lvl_str(c->ds, b, sizeof(b));
		break;
	case K_SNOOP:
		hist__snoop_str(c->ds, b, sizeof(b));
		break;
	case K_TLB:
		hist__tlb_str(c->ds, b, sizeof(b));
		break;
	case K_LOCKED:
		put_str(b, sizeof(b), hist__lock_str(c->ds));
		break;
	case K_BLOCKED:
		hist__blk_str(c->ds, b, sizeof(b));
		break;
	case K_OP:
		put_str(b, sizeof(b), hist__op_str(c->ds));
		break;
	case K_DCACHELINE:
	case K_DATA_PAGE: {
		char lv = c->level;

		if (!c->have_addr) { /* dcacheline: perf's 'X', no map */
			put_addr16(b, key == K_DCACHELINE ? 'X' : lv, 0);
			break;
		}
		if (!c->data.dso)
			lv = 'X';
		put_addr16(b, lv, v[0]);
		break;
	}
	case K_LOCAL_WEIGHT:
	case K_LOCAL_INS_LAT:
		*hws_fmt__u64(b, v[0]) = 0; /* b has HWS_FMT_SLACK past the digits */
		break;
	case K_OBJECT:
		return c->obj_col;
	case K_TYPE:
	case K_TYPEOFF: {
		struct hws_strbuf sb = HWS_STRBUF_INIT;
		uint32_t id;

		if (hws_datatype__format(&c->type, key == K_TYPEOFF, &sb)) {
			hws_strbuf__release(&sb);
			return 0;
		}
		id = hist__intern(h, sb.buf);
		hws_strbuf__release(&sb);
		return id;
	}
	case K_OBJOFF:
		if (v[0])
			snprintf(b, sizeof(b), "+%" PRIu64, c->obj.offset);
		else
			snprintf(b, sizeof(b), "-");
		break;
	default:
		return 0;
	}
	return hist__intern(h, b);
}

static struct section *section_of(struct hws_hist *h, const struct hws_sample *s)
{
	const char *ev = s->event ? s->event : "?";
	struct section *sec;

	if (h->nsecs) {
		sec = &h->secs[h->last_sec];
		if (sec->attr_idx == s->attr_idx && !strcmp(sec->event, ev))
			return sec;
	}
	for (size_t i = 0; i < h->nsecs; i++) {
		if (h->secs[i].attr_idx == s->attr_idx && !strcmp(h->secs[i].event, ev)) {
			h->last_sec = i;
			return &h->secs[i];
		}
	}
	sec = realloc(h->secs, (h->nsecs + 1) * sizeof(*sec));
	if (!sec)
		return NULL;
	h->secs = sec;
	sec = &h->secs[h->nsecs];
	memset(sec, 0, sizeof(*sec));
	sec->event = strdup(ev);
	if (!sec->event)
		return NULL;
	sec->attr_idx = s->attr_idx;
	h->last_sec = h->nsecs++;
	return sec;
}

uint64_t hist__vec_hash(const uint64_t *k, size_t n)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL;

	for (size_t i = 0; i < n; i++) {
		x ^= k[i] + 0x9E3779B97F4A7C15ULL + (x << 6) + (x >> 2);
		x *= 0xff51afd7ed558ccdULL;
	}
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static int sec_grow(struct section *sec)
{
	size_t ns = sec->size ? sec->size * 2 : 256;
	uint32_t *t = calloc(ns, sizeof(*t)), *th = calloc(ns, sizeof(*th));

	if (!t || !th) {
		free(t);
		free(th);
		return -ENOMEM;
	}
	for (size_t j = 0; j < sec->size; j++) {
		size_t i;

		if (!sec->slot[j])
			continue;
		/* the table holds the hash bits above any size's index bits too */
		for (i = sec->shash[j] & (ns - 1); t[i]; i = (i + 1) & (ns - 1))
			;
		t[i] = sec->slot[j];
		th[i] = sec->shash[j];
	}
	free(sec->slot);
	free(sec->shash);
	sec->slot = t;
	sec->shash = th;
	sec->size = ns;
	return 0;
}

/* the sample's data object and its column: "[heap] site+0x1f (4096 bytes)", "[static]
 * name (8 bytes)", "[stack] tid N", "[mmap] /path", "[anon] site (N bytes)", "[unknown]" */
static int object_col(struct hws_hist *h, struct ctx *c)
{
	struct hws_object *o = &c->obj;
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	int err = 0;

	if (!hws_objects__attribute(h->objects, c->syms, c->s, o)) {
		c->obj_col = hist__intern(h, "[unknown]");
		return c->obj_col ? 0 : -ENOMEM;
	}
	err = hws_object__label(o, c->syms, c->s->pid, true, &sb);
	c->obj_col = err ? 0 : hist__intern(h, sb.buf);
	hws_strbuf__release(&sb);
	return c->obj_col ? 0 : -ENOMEM;
}

/* @len bytes (8-byte aligned) that stay where they are until the hist goes */
static void *arena_alloc(struct hws_hist *h, size_t len)
{
	len = (len + 7) & ~(size_t)7;
	if (!h->nblk || h->blk_used + len > h->blk_size) {
		size_t bs = len > (64u << 10) ? len : (64u << 10);
		char **v = realloc(h->blk, (h->nblk + 1) * sizeof(*v));

		if (!v)
			return NULL;
		h->blk = v;
		v[h->nblk] = malloc(bs);
		if (!v[h->nblk])
			return NULL;
		h->nblk++;
		h->blk_used = 0;
		h->blk_size = bs;
	}
	h->blk_used += len;
	return h->blk[h->nblk - 1] + h->blk_used - len;
}

/* the sample's data type (perf's mem_type): from its IP's instruction and the DWARF of
 * its file */
static int type_of_sample(struct hws_hist *h, struct ctx *c)
{
	int err;

	if (!h->types) {
		h->types = hws_datatypes__new();
		if (!h->types)
			return -ENOMEM;
	}
	err = hws__objects_sample_type_code(h->objects, NULL, h->types, c->syms, c->s,
					    c->code_ok ? &c->code : NULL, &c->type);
	if (err < 0)
		return err;
	c->type_id = c->type.name ? hist__intern(h, c->type.name) : 0;
	return c->type.name && !c->type_id ? -ENOMEM : 0;
}

/* the row of key vector @k in @sec (added with the columns of @c when new): its index, or
 * -ENOMEM */
/* room in @sec's table and rows for one row more */
static int sec_reserve(struct section *sec)
{
	if ((sec->nr + 1) * 2 > sec->size && sec_grow(sec))
		return -ENOMEM;
	if (sec->nr == sec->alloc) {
		size_t na = sec->alloc ? sec->alloc * 2 : 256;
		struct hrow *r = realloc(sec->rows, na * sizeof(*r));

		if (!r)
			return -ENOMEM;
		sec->rows = r;
		sec->alloc = na;
	}
	return 0;
}

long hist__row_of(struct hws_hist *h, struct section *sec, const uint64_t *k, struct ctx *c)
{
	size_t nk = (size_t)h->nkeys * KV, i;
	uint32_t hv = (uint32_t)hist__vec_hash(k, nk);
	struct hrow *row;
	long idx;

	if (sec_reserve(sec))
		return -ENOMEM;
	idx = hist__row_find(sec, k, nk, hv, &i);
	if (idx >= 0)
		return idx;
	row = &sec->rows[sec->nr];
	memset(row, 0, sizeof(*row));
	row->k = arena_alloc(h, nk * sizeof(*k) + (size_t)h->nkeys * sizeof(*row->col));
	if (!row->k)
		return -ENOMEM;
	row->col = (uint32_t *)(row->k + nk);
	memcpy(row->k, k, nk * sizeof(*k));
	for (int j = 0; j < h->nkeys; j++)
		row->col[j] = key_col(h, c, h->keys[j], &k[j * KV]);
	sec->slot[i] = (uint32_t)++sec->nr;
	sec->shash[i] = hv;
	return (long)sec->nr - 1;
}

long hist__row_merge(struct hws_hist *h, struct section *sec, const struct hrow *src)
{
	size_t nk = (size_t)h->nkeys * KV, i;
	uint32_t hv = (uint32_t)hist__vec_hash(src->k, nk);
	struct hrow *row;
	long idx;

	if (sec_reserve(sec))
		return -ENOMEM;
	idx = hist__row_find(sec, src->k, nk, hv, &i);
	if (idx >= 0)
		return idx;
	row = &sec->rows[sec->nr];
	*row = *src; /* its keys and columns stay in the arena */
	row->samples = row->period = row->weight = row->acc = 0;
	row->cg_root = 0;
	sec->slot[i] = (uint32_t)++sec->nr;
	sec->shash[i] = hv;
	return (long)sec->nr - 1;
}

/* the interned short name of the file @dso (a name core/symbols keeps while it lives) */
static uint32_t dso_id_of(struct hws_hist *h, const char *dso)
{
	struct dso_ent *d = &h->dc[((uintptr_t)dso >> 3) & (ARRAY_SIZE(h->dc) - 1)];

	if (!d->id || d->dso != dso) {
		d->dso = dso;
		d->id = hist__intern(h, hws_dso__short_name(dso));
	}
	return d->id;
}

/* the code side of a lookup of @ip (a sample's or a frame's) into @c */
int hist__code_of(struct hws_hist *h, struct ctx *c, struct hws_symbols *syms, uint32_t pid,
		  uint64_t ip, bool have_ip, uint8_t cpumode)
{
	memset(&c->code, 0, sizeof(c->code));
	c->code_ok = false;
	/* perf looks a sample's ip up in the maps of its mode (thread__find_map()): a kernel
	 * sample at a user address (PEBS skid past a syscall) or a user one at a kernel address
	 * is in none */
	if ((cpumode == 1 /* KERNEL */ && (int64_t)ip >= 0) ||
	    (cpumode == 2 /* USER */ && (int64_t)ip < 0))
		have_ip = false;
	if (syms && have_ip)
		c->code_ok = hws_symbols__resolve(syms, pid, ip, false, &c->code) >= 0;
	if (c->code.dso && (int64_t)ip < 0 && !hws_symbols__in_kernel_map(syms, ip)) {
		/* perf: outside its kernel map, no file and no symbol (even with --kallsyms) */
		memset(&c->code, 0, sizeof(c->code));
		c->code_ok = false;
	}
	c->dso_id = dso_id_of(h, c->code.dso);
	return c->dso_id ? 0 : -ENOMEM;
}

bool hist__code_key(int key)
{
	return key == K_DSO || key == K_SYM || key == K_SYMOFF || key == K_SRCLINE;
}

static inline void tally(struct section *sec, struct hrow *row, uint64_t period, uint64_t weight)
{
	row->samples++;
	row->period += period;
	row->acc += period;
	row->weight += weight;
	sec->samples++;
	sec->period += period;
	sec->weight += weight;
}

/* @s's entry of the row cache (h->rc_on) */
/* the row cache is 2-way: the pair of entries a sample may be in (the most recent first);
 * events of one file sampling the same ip (loads and stores) get different pairs */
static struct rc_ent *rc_slot(struct hws_hist *h, const struct hws_sample *s,
			      const struct rc_key *k)
{
	uint64_t x =
	    (s->ip ^ (k->pidtid << 32 | k->pidtid >> 32) ^ k->misc << 52) * 0x9E3779B97F4A7C15ULL;

	return &h->rc[((x ^ (x >> 29)) >> (64 - RC_BITS)) & ~(uint64_t)1];
}

static bool rc_hit(const struct hws_hist *h, const struct rc_ent *e, const struct hws_sample *s,
		   const struct rc_key *k, uint64_t state)
{
	/* one test of all fields (no branch per field: a hit compares them all anyway); an
	 * empty entry's misc is 0, never a key's */
	uint64_t d = (e->ip ^ s->ip) | (e->state ^ state) | (e->pidtid ^ k->pidtid) |
		     (e->misc ^ k->misc) | ((uintptr_t)e->event ^ (uintptr_t)s->event);

	return !d && (!h->rc_cpu || e->cpu == s->cpu);
}

/* a row cache hit with a call chain (h->cg_on): the chain's memo entry, if it has one (1),
 * else 0 (the whole way, hist_add_slow()) */
static __attribute__((noinline)) int
hist_add_chain_hit(struct hws_hist *h, struct hws_symbols *syms, const struct hws_sample *s,
		   const struct rc_ent *e, uint64_t period, uint64_t weight)
{
	struct section *sec = &h->secs[e->sec];
	const struct hws_frame *cf;
	struct ctx c;
	uint32_t n, nk;
	long r = -1;
	int err;

	memset(&c, 0, sizeof(c));
	c.s = s;
	c.syms = syms;
	c.level = level_of(s);
	err = hist__chain_find(h, sec, &c, e->row, &cf, &n, &nk, &r);
	if (err)
		return err;
	if (r < 0)
		return 0;
	*cg_memo__value(h->memo, r) += period;
	hws_symbols__touch(syms, e->file);
	tally(sec, &sec->rows[e->row], period, weight);
	return 1;
}

/* a sample the row cache did not take: its keys, its row (and its cache entry @e, if any) */
static __attribute__((noinline)) int hist_add_slow(struct hws_hist *h, struct hws_symbols *syms,
						   const struct hws_sample *s, bool shown,
						   struct rc_ent *e, const struct rc_key *key,
						   uint64_t period, uint64_t weight)
{
	bool chain = (s->fields & HWS_SF_CALLCHAIN) != 0;
	uint64_t k[MAX_KEYS * KV];
	struct section *sec;
	struct ctx c;
	long r;
	int err;

	sec = section_of(h, s);
	if (!sec)
		return -ENOMEM;
	if (!shown) {
		sec->samples++;
		sec->period += period;
		sec->weight += h->mem ? (weight ? weight : 1) : weight;
		return 0;
	}
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.syms = syms;
	c.level = level_of(s);
	/* a sample without a data source has perf's PERF_MEM_DATA_SRC_NONE (what perf reads for
	 * it; the kernel's PERF_MEM_NA for an IBS op that is no load or store): one N/A row */
	c.ds = (s->fields & HWS_SF_DATA_SRC) ? s->data_src : DS_NONE;
	c.have_addr = (s->fields & HWS_SF_ADDR) != 0;
	if (h->needs_code || chain) {
		err = hist__code_of(h, &c, syms, s->pid, s->ip, (s->fields & HWS_SF_IP) != 0,
				    s->cpumode);
		if (err)
			return err;
	}
	if (h->needs_data && c.have_addr && syms)
		c.data_ok = hws_symbols__resolve(syms, s->pid, s->addr, true, &c.data) >= 0;
	/* perf looks data up in the maps of the sample's mode: a kernel sample sees no user
	 * maps, a user sample no kernel ones; and it names no kernel data object */
	if (h->needs_data && c.have_addr && ((int64_t)s->addr < 0 || c.level == 'k'))
		c.data.dso = NULL;
	if (h->needs_object) {
		err = object_col(h, &c);
		if (err)
			return err;
	}
	if (h->needs_type) {
		err = type_of_sample(h, &c);
		if (err)
			return err;
	}
	for (int j = 0; j < h->nkeys; j++) {
		err = hist__key_vals(h, &c, h->keys[j], &k[j * KV]);
		if (err)
			return err;
	}
	r = hist__row_of(h, sec, k, &c);
	if (r < 0)
		return (int)r;
	tally(sec, &sec->rows[r], period, weight);
	if (e) {
		/* the lookups above may have started a new state */
		*e = (struct rc_ent){.ip = s->ip,
				     .state = hws_symbols__pid_state(syms, s->pid),
				     .event = s->event,
				     .pidtid = key->pidtid,
				     .misc = key->misc,
				     .file = c.code_ok ? hws_symbols__touched(syms) : NULL,
				     .cpu = s->cpu,
				     .sec = (uint32_t)(sec - h->secs),
				     .row = (uint32_t)r};
	}
	if (chain && s->nr_callchain && h->cg_on)
		return hist__add_chain(h, sec, &c, k, r, period);
	return 0;
}

int hws_hist__add(struct hws_hist *h, struct hws_symbols *syms, const struct hws_sample *s,
		  bool shown)
{
	uint64_t period = (s->fields & HWS_SF_PERIOD) ? s->period : 1;
	uint64_t weight = (s->fields & HWS_SF_WEIGHT) ? (uint32_t)s->weight : 0;
	bool chain = (s->fields & HWS_SF_CALLCHAIN) != 0;
	struct rc_ent *e = NULL;
	struct rc_key key = {0};

	/* perf's mem mode: the period of a sample is its weight, 1 when it has none */
	if (h->mem)
		weight = weight ? weight : 1;
	if (chain)
		h->any_chain = true;
	if (h->rc_on && shown && syms && !(h->rc_noaddr && (s->fields & HWS_SF_ADDR))) {
		uint64_t state;
		bool hit;

		if (!h->rc) {
			h->rc = calloc(1u << RC_BITS, sizeof(*h->rc));
			if (!h->rc)
				return -ENOMEM;
		}
		key = rc_key(s);
		e = rc_slot(h, s, &key);
		state = hws_symbols__pid_state(syms, s->pid);
		hit = rc_hit(h, e, s, &key, state);
		if (!hit) {
			struct rc_ent t = e[0];

			hit = rc_hit(h, &e[1], s, &key, state);
			if (hit) /* most recent first */
				e[0] = e[1];
			e[1] = t; /* on a miss, the one below refills e[0] */
		}
		if (hit) {
			/* a call chain: only when the memo has it (else the whole way below) */
			if (chain && s->nr_callchain && h->cg_on) {
				int rc = hist_add_chain_hit(h, syms, s, e, period, weight);

				if (rc)
					return rc < 0 ? rc : 0;
			} else {
				struct section *sec = &h->secs[e->sec];

				hws_symbols__touch(syms, e->file);
				tally(sec, &sec->rows[e->row], period, weight);
				return 0;
			}
		}
	}
	return hist_add_slow(h, syms, s, shown, e, &key, period, weight);
}

void hws_hist__set_inline(struct hws_hist *h, int mode)
{
	h->inline_mode = mode;
}

void hws_hist__set_full_source_path(struct hws_hist *h, bool on)
{
	h->full_src = on;
}

void hws_hist__set_callgraph(struct hws_hist *h, const struct cg_params *p, int children,
			     const char *sort_str, uint32_t max_stack)
{
	h->max_stack = max_stack;
	h->cg = *p;
	h->children = children;
	/* nothing to keep when neither the graph nor the children column is shown */
	h->cg_on = !h->mem && (p->mode != CG_NONE || children >= 0);
	h->sym_first = sort_str && !strncmp(sort_str, "sym", 3);
}

struct hws_hist *hws_hist__new(const char *keys, bool mem, const struct hws_filter *filter)
{
	struct hws_hist *h;
	const char *p;

	bool dflt = !keys || !*keys;
	int elided[MAX_KEYS], nelided = 0;

	if (dflt)
		keys = mem ? hist__mem_default : "comm,dso,sym";
	if (hws_report__parse_sort(keys, NULL, 0))
		return errno = EINVAL, NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->mem = mem;
	if (hws_filter__time_str(filter)) {
		h->time_str = strdup(hws_filter__time_str(filter));
		if (!h->time_str) {
			free(h);
			return NULL;
		}
	}
	if (mem && dflt) /* perf mem report shows the samples of each row */
		h->keys[h->nkeys++] = K_SAMPLE_COL;
	for (p = keys; *p && h->nkeys < MAX_KEYS;) {
		size_t l = strcspn(p, ",");
		int id = key_defs[find_key(p, l)].id;

		p += l;
		if (*p)
			p++;
		/* perf hides the column a one-entry filter list makes constant (all of them
		 * only when some other column is left: below) */
		if ((id == K_COMM && hws_filter__list_len(filter, "comm") == 1) ||
		    (id == K_DSO && hws_filter__list_len(filter, "dso") == 1) ||
		    (id == K_SYM && hws_filter__list_len(filter, "sym") == 1)) {
			elided[nelided++] = id;
			continue;
		}
		h->keys[h->nkeys++] = id;
		if (id == K_DSO || id == K_SYM || id == K_SYMOFF || id == K_SRCLINE)
			h->needs_code = true;
		if (id == K_DADDR || id == K_DSO_DADDR || id == K_DCACHELINE || id == K_DATA_PAGE)
			h->needs_data = true;
		if (id == K_SRCLINE)
			h->needs_srcline = true;
		if (id == K_OBJECT || id == K_OBJOFF)
			h->needs_object = true;
		if (id == K_TYPE || id == K_TYPEOFF) /* from the code address's file */
			h->needs_type = h->needs_code = true;
	}
	h->rc_on = true;
	for (int j = 0; j < h->nkeys; j++) {
		switch (h->keys[j]) {
		case K_CPU:
			h->rc_cpu = true;
			break;
		case K_COMM:
		case K_PID:
		case K_TID:
		case K_DSO:
		case K_SYM:
		case K_SYMOFF:
		case K_SRCLINE:
		case K_EVENT:
		case K_SAMPLE_COL:
		case K_WEIGHT_COL:
		case K_AVG_WEIGHT:
			break;
		case K_TYPE: /* the instruction's type: a function of the code address, as sym; */
		case K_TYPEOFF: /* with a data address, also of it (globals, heap blocks) */
			h->rc_noaddr = true;
			break;
		default:
			h->rc_on = false;
		}
	}
	if (h->nkeys == (mem && dflt)) { /* everything elided: perf shows them all */
		for (int i = 0; i < nelided; i++) {
			h->keys[h->nkeys++] = elided[i];
			h->needs_code |= elided[i] != K_COMM;
		}
	}
	return h;
}

static void free_groups(struct hws_hist *h)
{
	for (size_t i = 0; i < h->ngroups; i++)
		free((char *)h->groups[i].name);
	free(h->groups);
	for (size_t i = 0; i < h->ngnames; i++)
		free(h->gnames[i]);
	free(h->gnames);
	h->groups = NULL;
	h->gnames = NULL;
	h->ngroups = h->ngnames = 0;
}

int hws_hist__set_groups(struct hws_hist *h, const struct hws_perf_group *g, size_t n,
			 const char *const *names, size_t nnames, bool view)
{
	free_groups(h);
	h->group_view = view;
	if (!n)
		return 0;
	h->groups = calloc(n, sizeof(*h->groups));
	h->gnames = calloc(nnames ? nnames : 1, sizeof(*h->gnames));
	if (!h->groups || !h->gnames) {
		free_groups(h);
		return -ENOMEM;
	}
	h->ngroups = n;
	h->ngnames = nnames;
	for (size_t i = 0; i < n; i++) {
		h->groups[i] = g[i];
		h->groups[i].name = g[i].name ? strdup(g[i].name) : NULL;
		if (g[i].name && !h->groups[i].name) {
			free_groups(h);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < nnames; i++) {
		h->gnames[i] = strdup(names && names[i] ? names[i] : "?");
		if (!h->gnames[i]) {
			free_groups(h);
			return -ENOMEM;
		}
	}
	return 0;
}

void hws_hist__delete(struct hws_hist *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nsecs; i++) {
		free(h->secs[i].event);
		free(h->secs[i].rows);
		free(h->secs[i].slot);
		free(h->secs[i].shash);
		free(h->secs[i].gper);
		free(h->secs[i].gtot);
		free(h->secs[i].gdesc);
	}
	free_groups(h);
	free(h->rc);
	for (size_t i = 0; i < h->nblk; i++)
		free(h->blk[i]);
	free(h->blk);
	free(h->secs);
	for (size_t i = 0; i < h->nstrs; i++)
		free(h->strs[i]);
	free(h->strs);
	hws_strbuf__release(&h->esc);
	free(h->stab);
	free(h->time_str);
	hws_datatypes__delete(h->types);
	cg_tree__delete(h->tree);
	cg_memo__delete(h->memo);
	free(h->ckey);
	free(h->fr);
	free(h->xf);
	free(h->cut);
	free(h->frow);
	free(h->seen);
	free(h);
}

bool hws_hist__has_callchains(const struct hws_hist *h)
{
	return h->any_chain;
}

void hws_hist__set_objects(struct hws_hist *h, const struct hws_objects *o)
{
	h->objects = o;
}

bool hws_hist__needs_srcline(const struct hws_hist *h)
{
	return h->needs_srcline;
}

int hws_hist__set_hierarchy(struct hws_hist *h, bool on)
{
	for (int j = 0; on && j < h->nkeys; j++)
		if (h->keys[j] == K_SAMPLE_COL || h->keys[j] == K_WEIGHT_COL ||
		    h->keys[j] == K_AVG_WEIGHT)
			return -EINVAL;
	h->hierarchy = on;
	return 0;
}

const char *hist__header(int id)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_defs); i++)
		if (key_defs[i].id == id)
			return key_defs[i].header;
	return "?";
}
