/* SPDX-License-Identifier: MIT */
/*
 * Data types of accesses, private to core/symbols: what datatype.c and its parts share.
 *   datatype.c        capstone, the instruction's memory operand, the answers and their cache,
 *                     the files, the lookups by global, variable and allocation site, the API;
 *   datatype_dwarf.c  DWARF types, variables' locations, the indexes of globals and functions;
 *   datatype_track.c  registers' types followed through a function (x86-64).
 * Not installed. Invariants: see datatype.c.
 */
#ifndef HWS_DATATYPE_INT_H
#define HWS_DATATYPE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <libelf.h>

#ifdef HWS_HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

#include <hwsample/datatype.h>

#define MAX_CHAIN 64	/* typedef / qualifier links followed */
#define MAX_NEST  16	/* member nesting named */
#define MAX_INSNS 65536 /* instructions followed from a function's start */
#define MAX_CACHE (1u << 20)
#define NREGS	  32
#define TRACK_TAG (1ULL << 62) /* cache key: a followed register's answer at a PC */
#define WALK_TAG  (1ULL << 61) /* cache key: the function starting there was followed */
#define REG_NONE  (-1)
#define REG_PC	  (-2)
#define ALLOC_TAG (1ULL << 60) /* cache key: a heap block's type at an offset (daddr) */
#define LCACHE	  4096	       /* location lists' checks kept per file */
#define PEND_BIT  (1u << 31)   /* centry.res: an index into hws_datatypes.pend */

struct res {
	char *name, *field, *var;
	int64_t offset;
	uint64_t size;
	bool pseudo; /* perf's pseudo types ("(stack operation)"): the name alone */
};

struct global {
	uint64_t start, size;
	Dwarf_Off die;
};

struct dfile {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi;
	int machine;
	bool bad;
	struct global *globals;
	size_t nglobals;
	bool globals_done;
	/* location lists checked (hws__dt_loclist_ok()), by their start: LCACHE, direct-mapped */
	struct lcent {
		const unsigned char *p;
		bool ok;
	} * lcache;
	struct global *funcs; /* functions' address ranges, sorted: scopes without a CU walk */
	size_t nfuncs;
	bool funcs_done;
#ifdef HWS_HAVE_CAPSTONE
	csh cs;
	bool cs_open;
#endif
};

struct centry {
	uint64_t pc, daddr;
	uint32_t file; /* index + 1; 0 = empty slot */
	uint32_t res;  /* index + 1 into results; 0 = unknown */
};

struct hws_datatypes {
	struct dfile *files;
	size_t nfiles;
	struct centry *cache;
	size_t csize, cused;
	struct res *res;
	size_t nres, ares;
	/* answers of a walk's memory accesses not asked for yet (datatype_track.c): the cache
	 * entry's res is PEND_BIT | index here; named (hws__dt_res_add()) when asked for */
	struct pend {
		Dwarf_Off die;
		int64_t off;
	} * pend;
	size_t npend, apend;
	uint32_t last_file; /* index + 1 of the last file looked up by path */
	uint32_t stackop;   /* the "(stack operation)" answer, index + 1 */
	struct hws_datatypes_stats st;
};

/* an operand: base + index * scale + disp, registers in DWARF numbering */
struct operand {
	int base, index;
	int64_t disp;
	uint64_t next_pc; /* of the instruction after */
};

#ifdef HWS_HAVE_CAPSTONE
/* capstone's functions, opened by hws_datatypes__available() (datatype.c); ok: all found */
struct dt_capstone {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*close)(csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*malloc)(csh);
	void (*free)(cs_insn *, size_t);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	bool ok;
};
extern struct dt_capstone hws__dt_capstone;
#endif

struct query {
	struct hws_datatypes *dt;
	struct dfile *f;
	uint32_t fidx; /* the file's index + 1 (cache keys) */
	uint64_t pc;
	struct operand op;
	Dwarf_Die *scopes; /* innermost first, the CU last */
	int nscopes;
	int fb_reg;
	int64_t fb_off;
	bool have_fb;
};

/* datatype.c: answers, the cache, instructions */
long hws__dt_res_add(struct hws_datatypes *dt, Dwarf_Die *t, int64_t off, const char *var);
/* whether hws__dt_res_add() would give an answer (not 0) for @t at @off */
bool hws__dt_res_valid(Dwarf_Die *t, int64_t off);
struct centry *hws__dt_cache_slot(struct hws_datatypes *dt, uint32_t file, uint64_t pc,
				  uint64_t daddr, bool *found);
int hws__dt_cache_put(struct hws_datatypes *dt, uint32_t file, uint64_t pc, uint64_t daddr,
		      uint32_t res);
#ifdef HWS_HAVE_CAPSTONE
int64_t hws__dt_wrap(Dwarf_Die *t, int64_t off);
int hws__dt_x86_dwarf_reg(unsigned int r);
const uint8_t *hws__dt_code_at(struct dfile *f, uint64_t pc, size_t *len);
bool hws__dt_mem_operand(struct dfile *f, const cs_insn *in, struct operand *op);
#endif

/* datatype_dwarf.c: types */
Dwarf_Die *hws__dt_type_of(Dwarf_Die *die, Dwarf_Die *out);
Dwarf_Die *hws__dt_real_type(Dwarf_Die *die, Dwarf_Die *out);
bool hws__dt_type_size(Dwarf_Die *t, uint64_t *size);
int hws__dt_type_name(Dwarf_Die *t, struct hws_strbuf *sb, int depth);
int hws__dt_field_name(Dwarf_Die *t, uint64_t off, struct hws_strbuf *sb, int depth);
#ifdef HWS_HAVE_CAPSTONE
bool hws__dt_is_pointer(Dwarf_Die *t);
Dwarf_Die *hws__dt_pointee(Dwarf_Die *t, Dwarf_Die *out);
bool hws__dt_member_type(Dwarf_Die *t, int64_t *off, Dwarf_Die *out);
#endif
/* datatype_dwarf.c: per-file indexes */
bool hws__dt_global_at(struct dfile *f, uint64_t addr, Dwarf_Die *var, int64_t *off);
#ifdef HWS_HAVE_CAPSTONE
int hws__dt_scopes_at(struct dfile *f, uint64_t pc, Dwarf_Die **out);
bool hws__dt_func_starting(struct dfile *f, uint64_t pc, Dwarf_Die *out);
/* datatype_dwarf.c: locations */
bool hws__dt_is_var(Dwarf_Die *d);
bool hws__dt_loclist_ok(struct dfile *f, Dwarf_Attribute *a);
bool hws__dt_frame_base(struct dfile *f, Dwarf_Die *fn, uint64_t pc, int *reg, int64_t *off);
int hws__dt_var_loc(struct dfile *f, Dwarf_Die *v, uint64_t pc, int *reg, int64_t *off);

/* datatype_track.c */
long hws__dt_by_tracking(struct query *q);
#endif

#endif
