/* SPDX-License-Identifier: MIT */
/*
 * Inside perf report's sorted view (struct hws_hist): what report_sort.c (keys, rows, samples),
 * report_chain.c (call chains), report_render.c (the --stdio text) and report_memtext.c
 * (data-source names) share. The invariants are in report_sort.c's head comment.
 */
#ifndef HWS_REPORT_HIST_H
#define HWS_REPORT_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwsample/datatype.h>
#include <hwsample/objects.h>
#include <hwsample/perfdata.h>
#include <hwsample/sample.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>

#include "analysis/report_cg.h"

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

/* a column's text: C++ template names run to thousands of bytes, and perf prints them whole */
#define TEXT_MAX 8192

/* K_COMM's v[1] of a sample whose thread had no comm yet (v[2]: its pid) */
#define COMM_PENDING 1

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
	/* perf's group view (set at render): a leader's section holds its members' rows too,
	 * gper[row * nm + m] the period of event m of the group on the row, gtot[m] its total;
	 * a member's section is not shown (gmember) */
	uint32_t nm;
	bool gmember;
	bool leader; /* a group's leader (perf: "of events") */
	uint64_t *gper, *gtot;
	char *gdesc; /* "anon group { a, b }" */
};

struct rc_ent;
struct xframe;

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
	/* perf's event groups (hws_report__set_groups()); names of the events by attr index */
	struct hws_perf_group *groups;
	size_t ngroups;
	char **gnames;
	size_t ngnames;
	bool group_view;
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
	struct cg_memo *memo; /* chains not in the trees yet (hist__add_chain()) */
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

/* what a sample's keys are computed from (report_sort.c) */
struct ctx {
	const struct hws_sample *s;
	struct hws_symbols *syms;
	struct hws_symbol code, data;
	struct hws_object obj;
	uint32_t obj_col; /* the object's printed column, interned */
	struct hws_datatype type;
	uint32_t type_id; /* the type's name, interned (0: unknown) */
	bool code_ok, data_ok, have_addr;
	uint64_t ds; /* the sample's data source, DS_NONE without one */
	uint32_t dso_id;
	uint32_t inl; /* an inlined function's "NAME (inlined)" (interned) at code, else 0 */
	char level;
};

/* the fields of perf_mem_data_src (Linux include/uapi/linux/perf_event.h) */
#define DS_OP(d)     ((d)&0x1f)
#define DS_LVL(d)    (((d) >> 5) & 0x3fff)
#define DS_SNOOP(d)  (((d) >> 19) & 0x1f)
#define DS_LOCK(d)   (((d) >> 24) & 0x3)
#define DS_DTLB(d)   (((d) >> 26) & 0x7f)
#define DS_LVLNUM(d) (((d) >> 33) & 0xf)
#define DS_REMOTE(d) (((d) >> 37) & 0x1)
#define DS_SNOOPX(d) (((d) >> 38) & 0x3)
#define DS_BLK(d)    (((d) >> 40) & 0x7)
#define DS_HOPS(d)   (((d) >> 43) & 0x7)
/* perf's PERF_MEM_DATA_SRC_NONE: op, level, snoop, lock and TLB N/A */
#define DS_NONE 0x5080021ULL

extern const char hist__mem_default[];

/* report_sort.c */
const char *hist__header(int id);
/* @s interned (shown as text); 0 when out of memory */
uint32_t hist__intern(struct hws_hist *h, const char *s);
const char *hist__str(const struct hws_hist *h, uint32_t id);
uint64_t hist__vec_hash(const uint64_t *k, size_t n);
int hist__key_vals(struct hws_hist *h, struct ctx *c, int key, uint64_t *v);
long hist__row_of(struct hws_hist *h, struct section *sec, const uint64_t *k, struct ctx *c);
/* @k's row in @sec (@hv its hash of @nk words), or -1 with *@slot the table's empty slot for it */
static inline long hist__row_find(const struct section *sec, const uint64_t *k, size_t nk,
				  uint32_t hv, size_t *slot)
{
	size_t i;

	for (i = hv & (sec->size - 1); sec->slot[i]; i = (i + 1) & (sec->size - 1)) {
		if (sec->shash[i] == hv &&
		    !memcmp(sec->rows[sec->slot[i] - 1].k, k, nk * sizeof(*k)))
			return (long)sec->slot[i] - 1;
	}
	*slot = i;
	return -1;
}
/* @src's keys' row in @sec: a row of 0 with @src's keys and columns added when there is none
 * (perf's hists__link()). Return: its index, or -ENOMEM */
long hist__row_merge(struct hws_hist *h, struct section *sec, const struct hrow *src);
/* @cpumode: the sample's (its ip is looked up in that mode's maps, as perf), 0 for a chain's
 * frames (looked up by address) */
int hist__code_of(struct hws_hist *h, struct ctx *c, struct hws_symbols *syms, uint32_t pid,
		  uint64_t ip, bool have_ip, uint8_t cpumode);
bool hist__code_key(int key);

/* report_chain.c: a sample's call chain into the memo and the trees */
int hist__add_chain(struct hws_hist *h, struct section *sec, struct ctx *c, const uint64_t *k,
		    long self, uint64_t period);
int hist__chain_flush(struct hws_hist *h);
/*
 * The memo entry of @c's chain counted in row @self of @sec: *id, -1 when there is none yet
 * (then h->ckey holds its key, *nk words, and *chain, *n the frames perf walks). 0 or -ENOMEM.
 */
int hist__chain_find(struct hws_hist *h, struct section *sec, const struct ctx *c, long self,
		     const struct hws_frame **chain, uint32_t *n, uint32_t *nk, long *id);

/* report_memtext.c: perf's names of a data source's fields (DS_NONE: a sample without one) */
void hist__mem_lvl_str(uint64_t ds, char *out, size_t sz);
void hist__snoop_str(uint64_t ds, char *out, size_t sz);
void hist__tlb_str(uint64_t ds, char *out, size_t sz);
const char *hist__lock_str(uint64_t ds);
void hist__blk_str(uint64_t ds, char *out, size_t sz);
const char *hist__op_str(uint64_t ds);

#endif
