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
#include <hwsample/report.h>
#include <hwsample/symbols.h>

#include "analysis/report_cg.h"
#include "analysis/report_cgmemo.h"
#include "analysis/report_int.h"
#include "symbols/symbols_core.h"
#include "util/internal.h"

#define MAX_KEYS 16
#define KV	 3 /* numbers per key */

enum key_id {
	K_COMM,
	K_PID,
	K_TID,
	K_DSO,
	K_SYM,
	K_SYMOFF,
	K_SRCLINE,
	K_CPU,
	K_EVENT,
	K_DADDR, /* symbol_daddr */
	K_DSO_DADDR,
	K_MEM,
	K_SNOOP,
	K_TLB,
	K_LOCKED,
	K_BLOCKED,
	K_OP,
	K_DCACHELINE,
	K_DATA_PAGE,
	K_LOCAL_WEIGHT,
	K_LOCAL_INS_LAT,
	K_OBJECT,     /* the data object (include/hwsample/objects.h) */
	K_OBJOFF,     /* the offset of the data address in it */
	K_TYPE,	      /* the data type accessed (include/hwsample/datatype.h) */
	K_TYPEOFF,    /* the type, offset and field */
	K_SAMPLE_COL, /* "Samples" column (perf's sample), not a key */
	K_WEIGHT_COL, /* total weight of the row (perf's weight) */
	K_AVG_WEIGHT, /* average weight */
};

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
static const char mem_default[] =
    "local_weight,mem,sym,dso,symbol_daddr,dso_daddr,snoop,tlb,locked,blocked,local_ins_lat";

struct hrow {
	uint64_t *k; /* nkeys * KV key numbers (in hws_hist's arena) */
	uint64_t samples, period, weight;
	uint64_t acc;	  /* --children: period of the samples with the row in their chain */
	uint32_t cg_root; /* its call-graph tree in hws_hist::cg_tree, 0 = none */
	uint32_t *col;	  /* nkeys interned printed columns (in hws_hist's arena) */
};

struct section {
	char *event;
	uint32_t attr_idx;
	uint64_t samples, period, weight;
	struct hrow *rows;
	size_t nr, alloc;
	uint32_t *slot;	 /* row index + 1 */
	uint32_t *shash; /* the low bits of the hash of that row's keys */
	size_t size;
};

/*
 * The row a sample went to, by what decides it when every key is a function of the sample's
 * pid, tid, ip, cpumode, event (and cpu) and of the symbol tables' state: a sample that
 * repeats one of those while the state is the same (hws_symbols__state()) goes to the same
 * row without a lookup. Direct-mapped. A sample with a call chain (report -g) takes that way
 * only when its chain is in the memo too (chain_find()): it then costs no lookup at all.
 */
#define RC_BITS 13
/* a column's text: C++ template names run to thousands of bytes, and perf prints them whole */
#define TEXT_MAX 8192

struct rc_ent {
	uint64_t ip, state;
	const char *event;
	void *file; /* the file the lookup used (kept recently used on a hit) */
	uint32_t pid, tid, cpu, attr_idx;
	uint32_t sec, row;
	uint8_t cpumode, valid;
};

struct hws_hist {
	int keys[MAX_KEYS];
	int nkeys;
	bool mem;
	bool hierarchy; /* perf report --hierarchy's layout */
	bool needs_code, needs_data, needs_srcline, needs_object, needs_type;
	bool rc_noaddr; /* the row cache serves samples without a data address only */
	const struct hws_objects *objects;
	struct hws_datatypes *types; /* --sort type, typeoff: owned */
	char *time_str;		     /* --time, shown in the section headers */
	struct section *secs;
	size_t nsecs;
	size_t last_sec;
	/* call graphs (hws_hist__set_callgraph()) */
	struct cg_params cg;
	int children;	    /* 1 --children, -1 --no-children, 0 perf's default */
	bool any_chain;	    /* a sample had PERF_SAMPLE_CALLCHAIN */
	bool sym_first;	    /* the sort order starts with "sym" */
	bool cg_on;	    /* call chains are kept */
	uint32_t max_stack; /* frames used per chain, 0 = all */
	int inline_mode;    /* enum hws_inline_mode */
	bool full_src;	    /* srcline: the source file's whole path (perf's --full-source-path) */
	struct xframe *xf;  /* the current sample's frames, inlined ones added */
	size_t axf;
	/* a chain cut to max_stack (hws_chain__max_stack()) */
	struct hws_frame *cut;
	size_t acut;
	struct cg_tree *tree; /* the rows' call graphs */
	struct cg_frame *fr;  /* the current sample's frames */
	struct cg_memo *memo; /* chains not in the trees yet (add_chain()) */
	uint64_t *ckey;	      /* the current chain's memo key */
	uint32_t *frow;	      /* their rows (--children) */
	uint32_t *seen;	      /* the rows the sample has counted in (perf's he_cache) */
	size_t afr;
	/* the rows' keys and columns: blocks that never move */
	char **blk;
	size_t nblk, blk_used, blk_size;
	/* the interned comm of a pid (and tid: the name of a pid without one) while the
	 * symbol tables' state holds */
	struct comm_ent {
		uint32_t pid, tid, id;
		uint64_t state;
	} cc[64];
	/* file names to their interned short names, by address */
	struct dso_ent {
		const char *dso;
		uint32_t id;
	} dc[64];
	/* the row cache (struct rc_ent) */
	struct rc_ent *rc;
	bool rc_on;  /* every key is one the cache covers */
	bool rc_cpu; /* the cpu is a key */
	/* interned strings */
	char **strs;
	size_t nstrs, astrs;
	uint32_t *stab;
	size_t ssize;
	struct hws_strbuf esc; /* a name being interned, escaped */
};

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

static uint32_t intern(struct hws_hist *h, const char *s)
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

static const char *str_of(const struct hws_hist *h, uint32_t id)
{
	return id && id <= h->nstrs ? h->strs[id - 1] : "";
}

/* ---------------------------------------------------------------- perf's data-source names */

#define DS_OP(d)     ((d)&0x1f)
#define DS_LVL(d)    (((d) >> 5) & 0x3fff)
#define DS_SNOOP(d)  (((d) >> 19) & 0x1f)
#define DS_LOCK(d)   (((d) >> 24) & 0x3)
#define DS_DTLB(d)   (((d) >> 26) & 0x7f)
#define DS_LVLNUM(d) (((d) >> 33) & 0xf)
#define DS_REMOTE(d) (((d) >> 37) & 0x1)
#define DS_SNOOPX(d) (((d) >> 38) & 0x3)
#define DS_BLK(d)    (((d) >> 40) & 0x7)

static void cat(char *out, size_t sz, const char *s)
{
	size_t l = strlen(out);

	snprintf(out + l, sz - l, "%s", s);
}

static void mem_lvl_str(uint64_t ds, bool have, char *out, size_t sz)
{
	static const char *const lvl[] = {
	    "N/A",
	    "HIT",
	    "MISS",
	    "L1",
	    "LFB/MAB",
	    "L2",
	    "L3",
	    "Local RAM",
	    "Remote RAM (1 hop)",
	    "Remote RAM (2 hops)",
	    "Remote Cache (1 hop)",
	    "Remote Cache (2 hops)",
	    "I/O",
	    "Uncached",
	};
	uint64_t m = have ? DS_LVL(ds) : 0;
	bool hit, miss;
	int printed = 0;

	out[0] = 0;
	if (!m)
		m = 1; /* PERF_MEM_LVL_NA */
	hit = m & 2;
	miss = m & 4;
	m &= ~6ULL;
	if (have && DS_REMOTE(ds))
		cat(out, sz, "Remote ");
	for (unsigned int i = 0; m && i < ARRAY_SIZE(lvl); i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (printed++)
			cat(out, sz, " or ");
		cat(out, sz, lvl[i]);
	}
	if (have && DS_LVLNUM(ds)) {
		unsigned int n = (unsigned int)DS_LVLNUM(ds);
		char b[16];

		if (printed++)
			cat(out, sz, " or ");
		switch (n) {
		case 0x0b:
			cat(out, sz, "Any cache");
			break;
		case 0x0c:
			cat(out, sz, "LFB/MAB");
			break;
		case 0x0d:
			cat(out, sz, "RAM");
			break;
		case 0x0e:
			cat(out, sz, "PMEM");
			break;
		case 0x0f:
			cat(out, sz, "N/A");
			break;
		default:
			snprintf(b, sizeof(b), "L%u", n);
			cat(out, sz, b);
		}
	}
	if (!out[0])
		cat(out, sz, "N/A");
	if (hit)
		cat(out, sz, " hit");
	if (miss)
		cat(out, sz, " miss");
}

static void snoop_str(uint64_t ds, bool have, char *out, size_t sz)
{
	static const char *const sn[] = {"N/A", "None", "Hit", "Miss", "HitM"};
	static const char *const snx[] = {"Fwd", "Peer"};
	uint64_t m = have ? DS_SNOOP(ds) : 0;

	out[0] = 0;
	for (unsigned int i = 0; m && i < ARRAY_SIZE(sn); i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (out[0])
			cat(out, sz, " or ");
		cat(out, sz, sn[i]);
	}
	m = have ? DS_SNOOPX(ds) : 0;
	for (unsigned int i = 0; m && i < ARRAY_SIZE(snx); i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (out[0])
			cat(out, sz, " or ");
		cat(out, sz, snx[i]);
	}
	if (!out[0])
		cat(out, sz, "N/A");
}

static void tlb_str(uint64_t ds, bool have, char *out, size_t sz)
{
	static const char *const tl[] = {"N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault"};
	uint64_t m = have ? DS_DTLB(ds) : 0;
	bool hit, miss;

	out[0] = 0;
	if (!m)
		m = 1;
	hit = m & 2;
	miss = m & 4;
	m &= ~6ULL;
	for (unsigned int i = 0; m && i < ARRAY_SIZE(tl); i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (out[0])
			cat(out, sz, " or ");
		cat(out, sz, tl[i]);
	}
	if (!out[0])
		cat(out, sz, "N/A");
	if (hit)
		cat(out, sz, " hit");
	if (miss)
		cat(out, sz, " miss");
}

static const char *lock_str(uint64_t ds, bool have)
{
	uint64_t m = have ? DS_LOCK(ds) : 1;

	return (m & 1) ? "N/A" : (m & 2) ? "Yes" : "No";
}

static void blk_str(uint64_t ds, bool have, char *out, size_t sz)
{
	uint64_t m = have ? DS_BLK(ds) : 0;

	out[0] = 0;
	if (!m || (m & 1)) {
		cat(out, sz, "N/A");
		return;
	}
	if (m & 2)
		cat(out, sz, "Data");
	if (m & 4)
		cat(out, sz, out[0] ? " Addr" : "Addr");
}

static const char *op_str(uint64_t ds, bool have)
{
	uint64_t m = have ? DS_OP(ds) : 1;

	if (m & 2)
		return "Load";
	if (m & 4)
		return "Store";
	if (m & 8)
		return "Prefetch";
	if (m & 16)
		return "Exec";
	return "N/A";
}

/* ---------------------------------------------------------------- per sample */

struct ctx {
	const struct hws_sample *s;
	struct hws_symbols *syms;
	struct hws_symbol code, data;
	struct hws_object obj;
	uint32_t obj_col; /* the object's printed column, interned */
	struct hws_datatype type;
	uint32_t type_id; /* the type's name, interned (0: unknown) */
	bool code_ok, data_ok, have_ds, have_addr;
	uint32_t dso_id;
	uint32_t inl; /* an inlined function's "NAME (inlined)" (interned) at code, else 0 */
	char level;
};

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
 * unless whole paths were asked; without a line, "SYM+OFFSET" (decimal); without a symbol either,
 * "DSO[ADDR]", ADDR as objdump shows it (the ELF vaddr). In @b; returns the text.
 */
static const char *srcline_text(struct hws_hist *h, const struct ctx *c, char *b, size_t sz)
{
	const struct hws_symbol *sym = &c->code;

	if (sym->srcfile) {
		const char *f = sym->srcfile, *base = strrchr(f, '/');

		snprintf(b, sz, "%s:%u", h->full_src || !base ? f : base + 1, sym->line);
	} else if (sym->name) {
		snprintf(b, sz, "%s+%" PRIu64, sym->name, sym->offset);
	} else {
		snprintf(b, sz, "%s[%" PRIx64 "]", str_of(h, c->dso_id),
			 anon_dso(sym->dso) ? c->s->ip : sym->dso_addr);
	}
	return b;
}

/* K_COMM's v[1] of a sample whose thread had no comm yet (v[2]: its pid) */
#define COMM_PENDING 1

static int key_vals(struct hws_hist *h, struct ctx *c, int key, uint64_t *v)
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
		v[0] = intern(h, comm);
		if (!v[1]) /* a pending ":TID" is not cached: its row keys carry the pid */
			*ce = (struct comm_ent){s->pid, s->tid, (uint32_t)v[0], state};
		return v[0] ? 0 : -ENOMEM;
	}
	case K_PID:
	case K_TID:
		v[0] = s->tid;
		v[1] = s->pid; /* named at the end by v[0]: the thread's latest comm, as perf */
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

			v[0] = intern(h, srcline_text(h, c, b, sizeof(b)));
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
		return 0;
	case K_DSO_DADDR:
		v[0] =
		    c->have_addr && c->data.dso ? intern(h, hws_dso__short_name(c->data.dso)) : 0;
		return 0;
	case K_MEM: /* perf compares mem_lvl only; the row shows its first sample's text */
		v[0] = c->have_ds ? DS_LVL(s->data_src) + 1 : 0;
		return 0;
	case K_SNOOP: /* perf compares mem_snoop only */
		v[0] = c->have_ds ? DS_SNOOP(s->data_src) + 1 : 0;
		return 0;
	case K_TLB:
		v[0] = c->have_ds ? DS_DTLB(s->data_src) + 1 : 0;
		return 0;
	case K_LOCKED:
		v[0] = c->have_ds ? DS_LOCK(s->data_src) + 1 : 0;
		return 0;
	case K_BLOCKED:
		v[0] = c->have_ds ? DS_BLK(s->data_src) + 1 : 0;
		return 0;
	case K_OP:
		v[0] = c->have_ds ? DS_OP(s->data_src) + 1 : 0;
		return 0;
	case K_DCACHELINE:
		if (!c->have_addr)
			return 0;
		v[0] = map_addr(c, &c->data, s->addr) & ~63ULL;
		/* anonymous memory of different processes differs */
		v[1] = anon_dso(c->data.dso) && (int64_t)s->addr >= 0 ? s->pid : 0;
		v[2] = c->data.dso ? intern(h, c->data.dso) : 0;
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
	case K_LOCAL_INS_LAT:
		v[0] = (s->fields & HWS_SF_LAT_INS) ? s->lat_ins : 0;
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

static void fmt_sym(char *out, size_t sz, char level, const struct hws_symbol *sym, uint64_t addr,
		    bool off)
{
	if (sym->name) {
		if (off || sym->kind == HWS_SYM_OBJECT)
			snprintf(out, sz, "[%c] %s+0x%" PRIx64, level, sym->name, sym->offset);
		else
			snprintf(out, sz, "[%c] %s", level, sym->name);
	} else {
		snprintf(out, sz, "[%c] 0x%016" PRIx64, level, addr);
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
		snprintf(b, sizeof(b), "%s", s->event ? s->event : "?");
		break;
	case K_DADDR:
		if (c->have_addr)
			fmt_sym(b, sizeof(b), c->level, &c->data, s->addr, false);
		else
			snprintf(b, sizeof(b), "[%c] 0x%016" PRIx64, c->level, (uint64_t)0);
		break;
	case K_DSO_DADDR:
		snprintf(b, sizeof(b), "%s", v[0] ? str_of(h, (uint32_t)v[0]) : "[unknown]");
		break;
	case K_MEM:
		mem_lvl_str(s->data_src, c->have_ds, b, sizeof(b));
		break;
	case K_SNOOP:
		snoop_str(s->data_src, c->have_ds, b, sizeof(b));
		break;
	case K_TLB:
		tlb_str(s->data_src, c->have_ds, b, sizeof(b));
		break;
	case K_LOCKED:
		snprintf(b, sizeof(b), "%s", lock_str(s->data_src, c->have_ds));
		break;
	case K_BLOCKED:
		blk_str(s->data_src, c->have_ds, b, sizeof(b));
		break;
	case K_OP:
		snprintf(b, sizeof(b), "%s", op_str(s->data_src, c->have_ds));
		break;
	case K_DCACHELINE:
	case K_DATA_PAGE: {
		char lv = c->level;

		if (!c->have_addr) {
			snprintf(b, sizeof(b), "[%c] 0x%016" PRIx64, lv, (uint64_t)0);
			break;
		}
		if (!c->data.dso)
			lv = 'X';
		snprintf(b, sizeof(b), "[%c] 0x%016" PRIx64, lv, v[0]);
		break;
	}
	case K_LOCAL_WEIGHT:
	case K_LOCAL_INS_LAT:
		snprintf(b, sizeof(b), "%" PRIu64, v[0]);
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
		id = intern(h, sb.buf);
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
	return intern(h, b);
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

static uint64_t vec_hash(const uint64_t *k, size_t n)
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
		c->obj_col = intern(h, "[unknown]");
		return c->obj_col ? 0 : -ENOMEM;
	}
	err = hws_object__label(o, c->syms, c->s->pid, true, &sb);
	c->obj_col = err ? 0 : intern(h, sb.buf);
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
	c->type_id = c->type.name ? intern(h, c->type.name) : 0;
	return c->type.name && !c->type_id ? -ENOMEM : 0;
}

/* the row of key vector @k in @sec (added with the columns of @c when new): its index, or
 * -ENOMEM */
static long row_of(struct hws_hist *h, struct section *sec, const uint64_t *k, struct ctx *c)
{
	size_t nk = (size_t)h->nkeys * KV, i;
	uint32_t hv = (uint32_t)vec_hash(k, nk);
	struct hrow *row;

	if ((sec->nr + 1) * 2 > sec->size && sec_grow(sec))
		return -ENOMEM;
	for (i = hv & (sec->size - 1); sec->slot[i]; i = (i + 1) & (sec->size - 1)) {
		if (sec->shash[i] != hv)
			continue;
		row = &sec->rows[sec->slot[i] - 1];
		if (!memcmp(row->k, k, nk * sizeof(*k)))
			return (long)sec->slot[i] - 1;
	}
	if (sec->nr == sec->alloc) {
		size_t na = sec->alloc ? sec->alloc * 2 : 256;
		struct hrow *r = realloc(sec->rows, na * sizeof(*r));

		if (!r)
			return -ENOMEM;
		sec->rows = r;
		sec->alloc = na;
	}
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

/* the interned short name of the file @dso (a name core/symbols keeps while it lives) */
static uint32_t dso_id_of(struct hws_hist *h, const char *dso)
{
	struct dso_ent *d = &h->dc[((uintptr_t)dso >> 3) & (ARRAY_SIZE(h->dc) - 1)];

	if (!d->id || d->dso != dso) {
		d->dso = dso;
		d->id = intern(h, hws_dso__short_name(dso));
	}
	return d->id;
}

/* the code side of a lookup of @ip (a sample's or a frame's) into @c */
static int code_of(struct hws_hist *h, struct ctx *c, struct hws_symbols *syms, uint32_t pid,
		   uint64_t ip, bool have_ip)
{
	memset(&c->code, 0, sizeof(c->code));
	c->code_ok = false;
	if (syms && have_ip)
		c->code_ok = hws_symbols__resolve(syms, pid, ip, false, &c->code) >= 0;
	if (c->code.dso && (int64_t)ip < 0 && !hws_symbols__in_kernel_map(syms, ip))
		c->code.dso = NULL; /* perf: outside its kernel map */
	c->dso_id = dso_id_of(h, c->code.dso);
	return c->dso_id ? 0 : -ENOMEM;
}

static bool code_key(int key)
{
	return key == K_DSO || key == K_SYM || key == K_SYMOFF || key == K_SRCLINE;
}

static char level_of_ctx(uint8_t ctx, char dflt)
{
	switch (ctx) {
	case HWS_CTX_KERNEL:
		return 'k';
	case HWS_CTX_USER:
		return '.';
	case HWS_CTX_HV:
		return 'H';
	case HWS_CTX_GUEST_KERNEL:
		return 'g';
	case HWS_CTX_GUEST_USER:
		return 'u';
	default:
		return dflt;
	}
}

static const char *name_of(const void *ctx, uint32_t id)
{
	return str_of(ctx, id);
}

/* a frame of the chain perf walks: a call-chain frame, or a function inlined at it */
struct xframe {
	const struct hws_frame *fr;
	uint32_t inl; /* "NAME (inlined)" interned; 0: the frame itself */
};

/*
 * The @n frames of @chain into h->xf, each one that shows its inline stack (h->inline_mode)
 * replaced by that stack as perf's append_inlines() adds it: the inlined functions
 * innermost first, then the frame itself when DWARF names its ELF symbol. *n: the count.
 */
static int expand_inlines(struct hws_hist *h, struct hws_symbols *syms, uint32_t pid,
			  const struct hws_frame *chain, uint32_t *n)
{
	size_t k = 0;

	for (uint32_t i = 0; i < *n; i++) {
		const struct hws_inline_frame *in = NULL;
		int m = 0;

		if (syms && h->inline_mode != HWS_INLINE_NONE &&
		    hws_inline__wanted(h->inline_mode, chain[i].flags, chain[i].ctx)) {
			m = hws_symbols__inlines(syms, pid, chain[i].ip, &in);
			if (m < 0)
				return m;
		}
		if (k + (size_t)(m ? m : 1) > h->axf) {
			size_t na = h->axf ? h->axf * 2 : 256;
			struct xframe *v;

			while (na < k + (size_t)(m ? m : 1))
				na *= 2;
			if (na > UINT32_MAX)
				return -ENOMEM;
			v = realloc(h->xf, na * sizeof(*v));
			if (!v)
				return -ENOMEM;
			h->xf = v;
			h->axf = na;
		}
		if (!m)
			h->xf[k++] = (struct xframe){&chain[i], 0};
		for (int j = 0; j < m; j++) {
			uint32_t inl = 0;

			if (in[j].inlined) {
				char b[TEXT_MAX];

				snprintf(b, sizeof(b), "%s (inlined)", in[j].name);
				inl = intern(h, b);
				if (!inl)
					return -ENOMEM;
			}
			h->xf[k++] = (struct xframe){&chain[i], inl};
		}
	}
	*n = (uint32_t)k;
	return 0;
}

/*
 * The call chain of a sample: its frames (perf's function key and name), added to the row's
 * tree and, with --children, to the tree of every other row its frames fall in (once per
 * row: perf's he_cache), as perf's hist_entry_iter for cumulative entries.
 *
 * A chain met before (same section, row, process, ips and contexts, while the symbols give
 * the same answers) only adds its period to its memo entry (report_cgmemo.h); the trees get
 * each entry once, at chain_flush(), in the order the chains were first met.
 */

/* a memo entry's payload: the head, n frames, then n + 1 rows (row 0 unused) */
struct chain_head {
	uint32_t sec, self, n, pad;
};

#define CHAIN_MEMO_MAX (64u << 20) /* bytes of memo before it is flushed */

/* add a resolved chain (@fr, @frow as add_chain() leaves h->fr, h->frow) to the trees */
static int chain_commit(struct hws_hist *h, struct section *sec, uint32_t self,
			const struct cg_frame *fr, const uint32_t *frow, uint32_t n,
			uint64_t period)
{
	bool caller, children = h->children >= 0 && !h->mem;
	uint32_t nseen = 0;
	int err;

	caller = h->cg.order_set ? h->cg.caller : children;
	if (!h->tree) {
		h->tree = cg_tree__new();
		if (!h->tree)
			return -ENOMEM;
	}
	if (children)
		h->seen[nseen++] = self;
	if (!sec->rows[self].cg_root) {
		sec->rows[self].cg_root = cg_tree__root(h->tree);
		if (!sec->rows[self].cg_root)
			return -ENOMEM;
	}
	err = cg_tree__add(h->tree, sec->rows[self].cg_root, caller ? &fr[n - 1] : fr, n,
			   caller ? -1 : 1, period);
	if (err || !children)
		return err;
	/* the frames in the order of the chain perf walks (its cursor's) */
	for (uint32_t j = 0; j < n; j++) {
		uint32_t i = caller ? n - 1 - j : j, r = frow[i + 1];
		struct hrow *row = &sec->rows[r];
		bool dup = false;

		for (uint32_t q = 0; q < nseen && !dup; q++)
			dup = h->seen[q] == r;
		if (dup)
			continue;
		h->seen[nseen++] = r;
		row->acc += period;
		if (!row->cg_root) {
			row->cg_root = cg_tree__root(h->tree);
			if (!row->cg_root)
				return -ENOMEM;
		}
		err = cg_tree__add(h->tree, row->cg_root, &fr[i], caller ? i + 1 : n - i,
				   caller ? -1 : 1, period);
		if (err)
			return err;
	}
	return 0;
}

/* every chain of the memo into the trees, in the order they were first met */
static int chain_flush(struct hws_hist *h)
{
	size_t nr = cg_memo__nr(h->memo);
	int err = 0;

	for (size_t id = 0; !err && id < nr; id++) {
		const struct chain_head *hd = cg_memo__payload(h->memo, (long)id);
		const struct cg_frame *fr = (const void *)(hd + 1);

		err =
		    chain_commit(h, &h->secs[hd->sec], hd->self, fr, (const uint32_t *)(fr + hd->n),
				 hd->n, *cg_memo__value(h->memo, (long)id));
	}
	cg_memo__clear(h->memo);
	return err;
}

/* the memo key of a chain: where it is counted, what resolves it, its ips and contexts */
static uint32_t chain_key(struct hws_hist *h, struct section *sec, const struct ctx *c, long self,
			  const struct hws_frame *chain, uint32_t n)
{
	uint64_t *k = h->ckey;
	uint32_t w = 0;

	k[w++] = (uint64_t)(sec - h->secs) << 32 | (uint32_t)self;
	k[w++] = (uint64_t)c->s->pid << 8 | (uint8_t)c->level;
	k[w++] = hws_symbols__answers_gen(c->syms);
	for (uint32_t i = 0; i < n; i++)
		k[w++] = chain[i].ip;
	for (uint32_t i = 0; i < n; i += 8) {
		uint64_t x = 0;

		for (uint32_t j = i; j < n && j < i + 8; j++)
			x |= (uint64_t)chain[j].ctx << (8 * (j - i));
		k[w++] = x;
	}
	return w;
}

/* room for @n frames of a chain in the per-sample scratch arrays */
static int grow_frames(struct hws_hist *h, uint32_t n)
{
	struct cg_frame *f;
	uint32_t *r;
	uint64_t *ck;

	if (n <= h->afr)
		return 0;
	f = realloc(h->fr, n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	h->fr = f;
	r = realloc(h->frow, (n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	h->frow = r;
	r = realloc(h->seen, (n + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	h->seen = r;
	ck = realloc(h->ckey, (3 + n + n / 8 + 1) * sizeof(*ck));
	if (!ck)
		return -ENOMEM;
	h->ckey = ck;
	h->afr = n;
	return 0;
}

int hws_chain__max_stack(const struct hws_frame *chain, uint32_t n, uint32_t max, bool caller,
			 struct hws_frame **buf, size_t *abuf, const struct hws_frame **out)
{
	uint32_t k = 0, kk, ku, ks;

	*out = chain;
	while (k < n && !(chain[k].flags & HWS_FRAME_UNWOUND))
		k++;
	kk = k < max ? k : max;
	ku = n - k < max ? n - k : max;
	if (!max || (kk == k && ku == n - k))
		return (int)n;
	ks = caller ? k - kk : 0;
	*out = chain + ks;
	if (ks + kk == k)
		return (int)(kk + ku); /* the kept frames are one run */
	if (*abuf < (size_t)kk + ku) {
		struct hws_frame *v = realloc(*buf, ((size_t)kk + ku) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		*buf = v;
		*abuf = (size_t)kk + ku;
	}
	memcpy(*buf, chain + ks, kk * sizeof(**buf));
	memcpy(*buf + kk, chain + k, ku * sizeof(**buf));
	*out = *buf;
	return (int)(kk + ku);
}

/*
 * The memo entry of @c's chain counted in row @self of @sec: *id, -1 when there is none yet
 * (then h->ckey holds its key, *nk words, and *chain, *n the frames perf walks). 0 or -ENOMEM.
 */
static int chain_find(struct hws_hist *h, struct section *sec, const struct ctx *c, long self,
		      const struct hws_frame **chain, uint32_t *n, uint32_t *nk, long *id)
{
	bool caller, children = h->children >= 0 && !h->mem;
	int err;

	*chain = c->s->callchain;
	*n = c->s->nr_callchain;
	caller = h->cg.order_set ? h->cg.caller : children;
	/* perf's --max-stack takes the frames in the order it walks them */
	if (h->max_stack) {
		int m = hws_chain__max_stack(*chain, *n, h->max_stack, caller, &h->cut, &h->acut,
					     chain);

		if (m < 0)
			return m;
		*n = (uint32_t)m;
	}
	if (!h->memo) {
		h->memo = cg_memo__new();
		if (!h->memo)
			return -ENOMEM;
	}
	/* the memo is keyed by the chain as recorded: its inlined entries follow from it */
	err = grow_frames(h, *n);
	if (err)
		return err;
	*nk = chain_key(h, sec, c, self, *chain, *n);
	*id = cg_memo__find(h->memo, h->ckey, *nk);
	return 0;
}

static int add_chain(struct hws_hist *h, struct section *sec, struct ctx *c, const uint64_t *k,
		     long self, uint64_t period)
{
	const struct hws_sample *s = c->s;
	const struct hws_frame *chain;
	const struct xframe *xf;
	uint32_t n, nk;
	bool children = h->children >= 0 && !h->mem;
	struct chain_head *hd;
	void *pl;
	long id;
	int err;

	err = chain_find(h, sec, c, self, &chain, &n, &nk, &id);
	if (err)
		return err;
	if (id >= 0) {
		*cg_memo__value(h->memo, id) += period;
		return 0;
	}
	err = expand_inlines(h, c->syms, s->pid, chain, &n);
	if (!err)
		err = grow_frames(h, n);
	if (err)
		return err;
	xf = h->xf;
	for (uint32_t i = 0; i < n; i++) {
		const struct hws_frame *fr = xf[i].fr;
		struct ctx fc = *c;
		struct hws_sample fs = *s;
		struct cg_frame *f = &h->fr[i];
		uint64_t fk[MAX_KEYS * KV];
		char b[32];
		long r;

		fs.ip = fr->ip;
		fc.s = &fs;
		fc.level = level_of_ctx(fr->ctx, c->level);
		err = code_of(h, &fc, c->syms, s->pid, fr->ip, true);
		if (err)
			return err;
		fc.inl = xf[i].inl;
		if (fc.inl) { /* perf merges inlined entries by name */
			fc.code.name = str_of(h, fc.inl);
			f->k0 = 1ULL << 62;
			f->k1 = fc.inl;
			f->name = fc.inl;
		} else if (fc.code.name) {
			f->k0 = fc.dso_id;
			f->k1 = fc.code.dso_addr - fc.code.offset;
			f->name = intern(h, fc.code.name);
		} else {
			f->k0 = fc.dso_id | 1ULL << 63;
			f->k1 = fr->ip;
			snprintf(b, sizeof(b), "%#" PRIx64, fr->ip);
			f->name = intern(h, b);
		}
		if (!f->name)
			return -ENOMEM;
		if (!children)
			continue;
		memcpy(fk, k, (size_t)h->nkeys * KV * sizeof(*k));
		for (int j = 0; j < h->nkeys; j++) {
			if (!code_key(h->keys[j]))
				continue;
			err = key_vals(h, &fc, h->keys[j], &fk[j * KV]);
			if (err)
				return err;
		}
		r = row_of(h, sec, fk, &fc);
		if (r < 0)
			return (int)r;
		h->frow[i + 1] = (uint32_t)r;
	}
	id = cg_memo__add(h->memo, h->ckey, nk,
			  sizeof(*hd) + n * sizeof(*h->fr) + (n + 1) * sizeof(*h->frow), &pl);
	if (id < 0)
		return (int)id;
	hd = pl;
	h->frow[0] = (uint32_t)self;
	*hd = (struct chain_head){(uint32_t)(sec - h->secs), (uint32_t)self, n, 0};
	memcpy(hd + 1, h->fr, n * sizeof(*h->fr));
	memcpy((struct cg_frame *)(hd + 1) + n, h->frow, (n + 1) * sizeof(*h->frow));
	*cg_memo__value(h->memo, id) = period;
	if (cg_memo__bytes(h->memo) > CHAIN_MEMO_MAX)
		return chain_flush(h);
	return 0;
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
static struct rc_ent *rc_slot(struct hws_hist *h, const struct hws_sample *s)
{
	uint64_t x = (s->ip ^ ((uint64_t)s->tid << 32) ^ s->pid ^ (uint64_t)s->attr_idx << 52) *
		     0x9E3779B97F4A7C15ULL;

	return &h->rc[((x ^ (x >> 29)) >> (64 - RC_BITS)) & ~(uint64_t)1];
}

static bool rc_hit(const struct hws_hist *h, const struct rc_ent *e, const struct hws_sample *s,
		   uint64_t state)
{
	/* one test of all fields (no branch per field: a hit compares them all anyway) */
	uint64_t d =
	    (e->ip ^ s->ip) | (e->state ^ state) |
	    ((uint64_t)(e->pid ^ s->pid) << 32 | (e->tid ^ s->tid)) |
	    ((uint64_t)(e->attr_idx ^ s->attr_idx) << 32 | (uint32_t)(e->cpumode ^ s->cpumode)) |
	    ((uintptr_t)e->event ^ (uintptr_t)s->event) |
	    (h->rc_cpu ? (uint64_t)(e->cpu ^ s->cpu) : 0);

	return e->valid && !d;
}

int hws_hist__add(struct hws_hist *h, struct hws_symbols *syms, const struct hws_sample *s,
		  bool shown)
{
	struct ctx c;
	uint64_t k[MAX_KEYS * KV];
	uint64_t period = (s->fields & HWS_SF_PERIOD) ? s->period : 1;
	uint64_t weight = (s->fields & HWS_SF_WEIGHT) ? (uint32_t)s->weight : 0;
	bool chain = (s->fields & HWS_SF_CALLCHAIN) != 0;

	/* perf's mem mode: the period of a sample is its weight, 1 when it has none */
	if (h->mem)
		weight = weight ? weight : 1;
	struct section *sec;
	long r;
	int err;

	struct rc_ent *e = NULL;
	uint64_t state = 0;

	if (chain)
		h->any_chain = true;
	if (h->rc_on && shown && syms && !(h->rc_noaddr && (s->fields & HWS_SF_ADDR))) {
		if (!h->rc) {
			h->rc = calloc(1u << RC_BITS, sizeof(*h->rc));
			if (!h->rc)
				return -ENOMEM;
		}
		e = rc_slot(h, s);
		state = hws_symbols__pid_state(syms, s->pid);
		bool hit = rc_hit(h, e, s, state);

		if (!hit) {
			struct rc_ent t = e[0];

			hit = rc_hit(h, &e[1], s, state);
			if (hit) /* most recent first */
				e[0] = e[1];
			e[1] = t; /* on a miss, the one below refills e[0] */
		}
		if (hit) {
			bool cg = chain && s->nr_callchain && h->cg_on;

			sec = &h->secs[e->sec];
			r = -1;
			/* a call chain: only when the memo has it (else the whole way below) */
			if (cg) {
				const struct hws_frame *cf;
				uint32_t n, nk;

				memset(&c, 0, sizeof(c));
				c.s = s;
				c.syms = syms;
				c.level = level_of(s);
				err = chain_find(h, sec, &c, e->row, &cf, &n, &nk, &r);
				if (err)
					return err;
				if (r >= 0)
					*cg_memo__value(h->memo, r) += period;
			}
			if (!cg || r >= 0) {
				hws_symbols__touch(syms, e->file);
				tally(sec, &sec->rows[e->row], period, weight);
				return 0;
			}
		}
	}
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
	c.have_ds = s->fields & HWS_SF_DATA_SRC;
	c.have_addr = (s->fields & HWS_SF_ADDR) != 0;
	if (h->needs_code || chain) {
		err = code_of(h, &c, syms, s->pid, s->ip, (s->fields & HWS_SF_IP) != 0);
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
		err = key_vals(h, &c, h->keys[j], &k[j * KV]);
		if (err)
			return err;
	}
	r = row_of(h, sec, k, &c);
	if (r < 0)
		return (int)r;
	tally(sec, &sec->rows[r], period, weight);
	if (e) {
		/* the lookups above may have started a new state */
		*e = (struct rc_ent){.ip = s->ip,
				     .state = hws_symbols__pid_state(syms, s->pid),
				     .event = s->event,
				     .file = c.code_ok ? hws_symbols__touched(syms) : NULL,
				     .pid = s->pid,
				     .tid = s->tid,
				     .cpu = s->cpu,
				     .attr_idx = s->attr_idx,
				     .sec = (uint32_t)(sec - h->secs),
				     .row = (uint32_t)r,
				     .cpumode = s->cpumode,
				     .valid = 1};
	}
	if (chain && s->nr_callchain && h->cg_on)
		return add_chain(h, sec, &c, k, r, period);
	return 0;
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
		keys = mem ? mem_default : "comm,dso,sym";
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

void hws_hist__delete(struct hws_hist *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nsecs; i++) {
		free(h->secs[i].event);
		free(h->secs[i].rows);
		free(h->secs[i].slot);
		free(h->secs[i].shash);
	}
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

/* ---------------------------------------------------------------- render */

static const char *header_of(int id)
{
	for (size_t i = 0; i < ARRAY_SIZE(key_defs); i++)
		if (key_defs[i].id == id)
			return key_defs[i].header;
	return "?";
}

static const struct hws_hist *g_sort_hist; /* qsort has no context argument */
static bool g_by_weight, g_by_acc;

static const struct section *g_sort_sec;

/* row indices of g_sort_sec by perf's order: overhead, then the printed columns; ties in
 * insertion order (as a stable sort of the rows would leave them) */
static int row_cmp(const void *a, const void *b)
{
	uint32_t ix = *(const uint32_t *)a, iy = *(const uint32_t *)b;
	const struct hrow *x = &g_sort_sec->rows[ix], *y = &g_sort_sec->rows[iy];
	uint64_t vx = g_by_weight ? x->weight : x->period, vy = g_by_weight ? y->weight : y->period;

	if (g_by_acc && x->acc != y->acc)
		return x->acc > y->acc ? -1 : 1;
	if (vx != vy)
		return vx > vy ? -1 : 1;
	for (int j = 0; j < g_sort_hist->nkeys; j++) {
		int c;

		if (x->col[j] == y->col[j])
			continue;
		c = strcmp(str_of(g_sort_hist, x->col[j]), str_of(g_sort_hist, y->col[j]));
		if (c)
			return c;
	}
	return ix < iy ? -1 : ix > iy;
}

static int sec_cmp(const void *a, const void *b)
{
	const struct section *x = a, *y = b;

	return x->attr_idx < y->attr_idx ? -1 : x->attr_idx > y->attr_idx;
}

static int cell(const struct hws_hist *h, struct hws_symbols *syms, const struct hrow *r, int j,
		char *b, size_t sz)
{
	switch (h->keys[j]) {
	case K_PID:
	case K_TID: {
		const char *comm = syms && !r->k[j * KV + 2]
				       ? hws_symbols__tid_comm(syms, (uint32_t)r->k[j * KV])
				       : NULL;

		if (comm) {
			struct hws_strbuf esc = HWS_STRBUF_INIT;
			int n = snprintf(b, sz, "%7d:%s", (int)(uint32_t)r->k[j * KV],
					 hws__text(&esc, comm));

			hws_strbuf__release(&esc);
			return n;
		}
		return snprintf(b, sz, "%s", str_of(h, r->col[j]));
	}
	case K_SAMPLE_COL:
		return snprintf(b, sz, "%" PRIu64, r->samples);
	case K_WEIGHT_COL:
		return snprintf(b, sz, "%" PRIu64, r->weight);
	case K_AVG_WEIGHT:
		return snprintf(b, sz, "%.1f",
				r->samples ? (double)r->weight / (double)r->samples : 0.0);
	default:
		return snprintf(b, sz, "%s", str_of(h, r->col[j]));
	}
}

static bool right_aligned(int id)
{
	return id == K_SAMPLE_COL || id == K_WEIGHT_COL || id == K_AVG_WEIGHT;
}

/* a column printed as its interned string (cell()'s default case) */
static bool str_cell(int id)
{
	return id != K_PID && id != K_TID && !right_aligned(id);
}

/* "  " and @s (@len bytes) in a column of width @w, as "  %-*s" / "  %*s" print it */
static int add_cell(struct hws_strbuf *sb, const char *s, size_t len, int w, bool right)
{
	static const char sp[] = "                                                                ";
	size_t pad = (size_t)w > len ? (size_t)w - len : 0;
	int err = hws_strbuf__add(sb, sp, 2);

	if (!err && !right)
		err = hws_strbuf__add(sb, s, len);
	for (size_t n; !err && pad; pad -= n) {
		n = pad < sizeof(sp) - 1 ? pad : sizeof(sp) - 1;
		err = hws_strbuf__add(sb, sp, n);
	}
	if (!err && right)
		err = hws_strbuf__add(sb, s, len);
	return err;
}

/* ---------------------------------------------------------------- --hierarchy */

/*
 * perf report --hierarchy: the rows of level d are the groups of the rows of their parent
 * that agree on key d, by overhead (then name); each is named by its first sample's row (the
 * one added first) and its line is "INDENT  PCT%" with 3 columns of indent per level, then
 * the indent of the deepest level after it and the name, left-aligned in its column
 * (perf's hist_entry__hierarchy_fprintf).
 */
#define HIER_INDENT 3

struct hier_ctx {
	struct hws_hist *h;
	struct hws_symbols *syms;
	const struct section *sec;
	const int *w;
	uint64_t total;
	struct hws_strbuf *sb;
};

struct hgroup {
	uint32_t first; /* row index of its first row (insertion order) */
	size_t start, n;
	uint64_t val;
	char *name;
};

static const struct section *g_hsec;
static int g_hdepth;

/* row indices by key g_hdepth, then by index (so insertion order within a group) */
static int hidx_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const uint64_t *kx = &g_hsec->rows[x].k[g_hdepth * KV],
		       *ky = &g_hsec->rows[y].k[g_hdepth * KV];

	for (int i = 0; i < KV; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int hgroup_cmp(const void *a, const void *b)
{
	const struct hgroup *x = a, *y = b;

	if (x->val != y->val)
		return x->val > y->val ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int hier_level(struct hier_ctx *hc, uint32_t *idx, size_t n, int d)
{
	struct hws_hist *h = hc->h;
	struct hgroup *g;
	size_t ng = 0;
	char b[TEXT_MAX];
	int err = 0;

	g_hsec = hc->sec;
	g_hdepth = d;
	hws__qsort(idx, n, sizeof(*idx), hidx_cmp);
	g = calloc(n, sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct hrow *r = &hc->sec->rows[idx[i]];

		if (!ng || memcmp(hc->sec->rows[g[ng - 1].first].k + d * KV, r->k + d * KV,
				  KV * sizeof(*r->k))) {
			g[ng].first = idx[i];
			g[ng].start = i;
			ng++;
		}
		g[ng - 1].n++;
		g[ng - 1].val += h->mem ? r->weight : r->period;
	}
	for (size_t i = 0; i < ng && !err; i++) {
		cell(h, hc->syms, &hc->sec->rows[g[i].first], d, b, sizeof(b));
		/* perf left-aligns every level: leading spaces ("%7u:comm") dropped */
		g[i].name = strdup(b + strspn(b, " "));
		if (!g[i].name)
			err = -ENOMEM;
	}
	if (!err)
		hws__qsort(g, ng, sizeof(*g), hgroup_cmp);
	for (size_t i = 0; i < ng && !err; i++) {
		err =
		    hws_strbuf__addf(hc->sb, "%*s  %7.2f%%%*s  %-*s\n", d * HIER_INDENT, "",
				     hc->total ? 100.0 * (double)g[i].val / (double)hc->total : 0.0,
				     (h->nkeys - 1) * HIER_INDENT, "", hc->w[d], g[i].name);
		if (!err && d + 1 < h->nkeys)
			err = hier_level(hc, idx + g[i].start, g[i].n, d + 1);
	}
	for (size_t i = 0; i < ng; i++)
		free(g[i].name);
	free(g);
	return err;
}

/* the column headers and the rows of one section in perf's --hierarchy layout */
static int render_hierarchy(struct hws_hist *h, struct hws_symbols *syms, struct section *sec,
			    const int *w, uint64_t total, struct hws_strbuf *sb)
{
	struct hier_ctx hc = {h, syms, sec, w, total, sb};
	int gap = (h->nkeys - 1) * HIER_INDENT, hw = 0, err;
	uint32_t *idx;

	err = hws_strbuf__addf(sb, "#\n# %*sOverhead  ", gap, "");
	for (int j = 0; !err && j < h->nkeys; j++) {
		const char *name = header_of(h->keys[j]);

		err = hws_strbuf__addf(sb, "%s%s", j ? " / " : "", name);
		hw += (int)strlen(name) + (j ? 3 : 0);
	}
	for (int j = 0; j < h->nkeys; j++)
		if (j * HIER_INDENT + w[j] > hw)
			hw = j * HIER_INDENT + w[j];
	if (!err)
		err = hws_strbuf__addstr(sb, "\n# ");
	for (int d = 0; !err && d < gap + 8; d++)
		err = hws_strbuf__addstr(sb, ".");
	if (!err)
		err = hws_strbuf__addstr(sb, "  ");
	for (int d = 0; !err && d < hw; d++)
		err = hws_strbuf__addstr(sb, ".");
	if (!err)
		err = hws_strbuf__addstr(sb, "\n#\n");
	if (err || !sec->nr)
		return err;
	idx = malloc(sec->nr * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < sec->nr; i++)
		idx[i] = (uint32_t)i;
	err = hier_level(&hc, idx, sec->nr, 0);
	free(idx);
	return err;
}

/*
 * perf names a thread's samples taken before its first COMM by the comm that COMM sets: the
 * thread's default ":TID" comm is overwritten in place (comm__override()), and the hist
 * collapse then merges those rows, call graphs included, with the rows of that name. Same
 * here: rows keyed by a pending ":TID" take the comm their thread has now and merge.
 */
static int comm_fixup(struct hws_hist *h, struct hws_symbols *syms, struct section *sec)
{
	size_t nk = (size_t)h->nkeys * KV, nr = 0;
	bool renamed = false;

	for (size_t i = 0; i < sec->nr; i++) {
		struct hrow *r = &sec->rows[i];

		for (int j = 0; j < h->nkeys; j++) {
			uint64_t *v = &r->k[j * KV];
			const char *comm;

			if (h->keys[j] != K_COMM || v[1] != COMM_PENDING)
				continue;
			comm = hws_symbols__tid_comm(syms, (uint32_t)v[2]);
			if (!comm)
				continue;
			v[0] = intern(h, comm);
			if (!v[0])
				return -ENOMEM;
			v[1] = v[2] = 0;
			r->col[j] = (uint32_t)v[0];
			renamed = true;
		}
	}
	if (!renamed)
		return 0;
	memset(sec->slot, 0, sec->size * sizeof(*sec->slot));
	for (size_t i = 0; i < sec->nr; i++) {
		struct hrow *r = &sec->rows[i], *d;
		size_t x;

		uint32_t hv = (uint32_t)vec_hash(r->k, nk);

		for (x = hv & (sec->size - 1); sec->slot[x]; x = (x + 1) & (sec->size - 1)) {
			if (sec->shash[x] == hv &&
			    !memcmp(sec->rows[sec->slot[x] - 1].k, r->k, nk * sizeof(*r->k)))
				break;
		}
		if (!sec->slot[x]) {
			if (nr != i)
				sec->rows[nr] = *r;
			sec->slot[x] = (uint32_t)++nr;
			sec->shash[x] = hv;
			continue;
		}
		d = &sec->rows[sec->slot[x] - 1];
		d->samples += r->samples;
		d->period += r->period;
		d->acc += r->acc;
		d->weight += r->weight;
		if (r->cg_root && !d->cg_root) {
			d->cg_root = r->cg_root;
		} else if (r->cg_root) {
			int err = cg_tree__merge(h->tree, d->cg_root, r->cg_root);

			if (err)
				return err;
		}
	}
	sec->nr = nr;
	return 0;
}

int hws_hist__render(struct hws_hist *h, struct hws_symbols *syms, const char *sort_str,
		     struct hws_strbuf *sb)
{
	int err = 0;
	bool children = !h->mem && (h->children > 0 || (!h->children && h->any_chain));
	bool graph = h->cg_on && h->any_chain && h->cg.mode != CG_NONE;
	uint32_t *ord = NULL;

	err = chain_flush(h);
	if (err)
		return err;
	free(h->rc); /* rows and sections move below */
	h->rc = NULL;
	g_sort_hist = h;
	g_by_weight = h->mem;
	g_by_acc = children;
	hws__qsort(h->secs, h->nsecs, sizeof(*h->secs), sec_cmp);
	for (size_t si = 0; !err && si < h->nsecs; si++) {
		struct section *sec = &h->secs[si];
		int w[MAX_KEYS];
		uint64_t n = sec->samples, total = h->mem ? sec->weight : sec->period;
		char unit = ' ', b[TEXT_MAX];

		if (syms)
			err = comm_fixup(h, syms, sec);
		if (err)
			break;
		/* --hierarchy names its groups by their first rows: insertion order kept;
		 * rows is NULL without any */
		free(ord);
		ord = malloc((sec->nr ? sec->nr : 1) * sizeof(*ord));
		if (!ord) {
			err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < sec->nr; i++)
			ord[i] = (uint32_t)i;
		g_sort_sec = sec;
		if (!h->hierarchy)
			hws__qsort(ord, sec->nr, sizeof(*ord), row_cmp);
		for (int j = 0; j < h->nkeys; j++) {
			w[j] = (int)strlen(header_of(h->keys[j]));
			for (size_t i = 0; i < sec->nr; i++) {
				int l = str_cell(h->keys[j])
					    ? (int)strlen(str_of(h, sec->rows[i].col[j]))
					    : cell(h, syms, &sec->rows[i], j, b, sizeof(b));

				if (l > w[j])
					w[j] = l;
			}
		}
		if (n > 1000) {
			n /= 1000;
			unit = 'K';
		}
		if (n > 1000) {
			n /= 1000;
			unit = 'M';
		}
		if (n > 1000) {
			n /= 1000;
			unit = 'G';
		}
		err = hws_strbuf__addf(sb, "%s#\n# Samples: %" PRIu64 "%c of event '%s'",
				       si ? "\n\n" : "", n, unit, hws__text(&h->esc, sec->event));
		if (!err && h->time_str)
			err = hws_strbuf__addf(sb, " (time slices: %s)", h->time_str);
		if (!err)
			err = hws_strbuf__addstr(sb, "\n");
		if (!err && h->mem)
			err = hws_strbuf__addf(
			    sb, "# Total weight : %" PRIu64 "\n# Sort order   : %s\n", sec->weight,
			    sort_str ? sort_str : mem_default);
		else if (!err)
			err = hws_strbuf__addf(sb, "# Event count (approx.): %" PRIu64 "\n",
					       sec->period);
		if (h->hierarchy) {
			if (!err)
				err = render_hierarchy(h, syms, sec, w, total, sb);
			continue;
		}
		if (!err)
			err = hws_strbuf__addstr(sb, children ? "#\n# Children      Self"
							      : "#\n# Overhead");
		for (int j = 0; !err && j < h->nkeys; j++)
			err = hws_strbuf__addf(sb, right_aligned(h->keys[j]) ? "  %*s" : "  %-*s",
					       w[j], header_of(h->keys[j]));
		if (!err)
			err = hws_strbuf__addstr(sb, children ? "\n# ........  ........"
							      : "\n# ........");
		for (int j = 0; !err && j < h->nkeys; j++) {
			err = hws_strbuf__addstr(sb, "  ");
			for (int d = 0; !err && d < w[j]; d++)
				err = hws_strbuf__addstr(sb, ".");
		}
		if (!err)
			err = hws_strbuf__addstr(sb, "\n#\n");
		for (size_t i = 0; !err && i < sec->nr; i++) {
			const struct hrow *r = &sec->rows[ord[i]];
			uint64_t v = h->mem ? r->weight : r->period;

			if (children)
				err = hws_strbuf__addf(
				    sb, "  %7.2f%%",
				    total ? 100.0 * (double)r->acc / (double)total : 0.0);
			if (!err)
				err = hws_strbuf__addf(sb, "  %7.2f%%",
						       total ? 100.0 * (double)v / (double)total
							     : 0.0);
			for (int j = 0; !err && j < h->nkeys; j++) {
				const char *str = b;
				size_t len;

				if (str_cell(h->keys[j])) {
					/* cell() would cut it to its buffer */
					str = str_of(h, r->col[j]);
					len = strnlen(str, sizeof(b) - 1);
				} else {
					cell(h, syms, r, j, b, sizeof(b));
					len = strlen(b);
				}
				err = add_cell(sb, str, len, w[j], right_aligned(h->keys[j]));
			}
			if (!err)
				err = hws_strbuf__addstr(sb, "\n");
			if (!err && graph && r->cg_root)
				err = cg_tree__render(h->tree, r->cg_root, &h->cg, sec->period,
						      children ? r->acc : r->period, h->sym_first,
						      name_of, h, sb);
		}
	}
	free(ord);
	if (!err)
		err = hws_strbuf__addstr(sb, "\n\n");
	return err;
}
