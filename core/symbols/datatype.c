// SPDX-License-Identifier: MIT
/*
 * Data types of memory accesses (include/hwsample/datatype.h): capstone decodes the
 * instruction at a PC, libdw names the variable behind its memory operand, as perf's
 * data-type profiling does (perf 6.8+, Linux tools/perf/util/annotate-data.c: find_data_type_die()
 * looks for a variable whose location at the PC is the operand's base register (a pointer:
 * the type it points to, at the displacement) or the frame base (a stack variable), a global
 * for PC-relative operands, and otherwise follows the register's type through the function,
 * find_data_type_block()).
 *
 * Invariants:
 *  - every DWARF walk is bounded (type chains, member nesting, instructions followed), so
 *    damaged debug info ends in "unknown", never in a loop or a crash;
 *  - answers are cached per (file, PC, data address used): an answer that did not need the
 *    data address is stored with daddr 0 and serves every sample of that PC;
 *  - a file that cannot be read (no ELF, no DWARF, unknown machine) is remembered as such
 *    and costs a hash lookup afterwards;
 *  - result strings are owned by the struct and never move (each its own allocation).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#ifdef HWS_HAVE_CAPSTONE
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <pthread.h>
#endif

#include <hwsample/datatype.h>

#include "symbols/symbols_core.h"
#include "util/internal.h"

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
/*
 * capstone is opened at the first use of type profiling, not linked: its library carries
 * 77,000 relocations (4.0.2), whose pages every hwsample command would otherwise fault in at
 * start (2 ms on the development VM, for commands that never decode an instruction). The
 * library of the major version built against (its SONAME: libcapstone.so.<CS_API_MAJOR>).
 */
#define CS_STR_(x)  #x
#define CS_STR(x)   CS_STR_(x)
#define CS_LIB_NAME "libcapstone.so." CS_STR(CS_API_MAJOR)

static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*close)(csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*malloc)(csh);
	void (*free)(cs_insn *, size_t);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	bool ok;
} capstone;
static pthread_once_t capstone_once = PTHREAD_ONCE_INIT;

static void capstone_load(void)
{
	void *h = dlopen(CS_LIB_NAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		pr_warn("datatype: %s: %s: type profiling off (install capstone: "
			"apt-get install libcapstone-dev)\n",
			CS_LIB_NAME, dlerror());
		return;
	}
	*(void **)&capstone.open = dlsym(h, "cs_open");
	*(void **)&capstone.close = dlsym(h, "cs_close");
	*(void **)&capstone.option = dlsym(h, "cs_option");
	*(void **)&capstone.malloc = dlsym(h, "cs_malloc");
	*(void **)&capstone.free = dlsym(h, "cs_free");
	*(void **)&capstone.disasm_iter = dlsym(h, "cs_disasm_iter");
	capstone.ok = capstone.open && capstone.close && capstone.option && capstone.malloc &&
		      capstone.free && capstone.disasm_iter;
	if (!capstone.ok) {
		pr_warn("datatype: %s lacks a function hwsample uses: type profiling off\n",
			CS_LIB_NAME);
		dlclose(h);
	}
}
#endif

bool hws_datatypes__available(void)
{
#ifdef HWS_HAVE_CAPSTONE
	pthread_once(&capstone_once, capstone_load);
	return capstone.ok;
#else
	return false;
#endif
}

/* ---------------------------------------------------------------- DWARF types */

/* the type of @die (a variable, member, pointer ...) without qualifiers (perf's
 * __die_get_real_type) */
static Dwarf_Die *type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die cur = *die;

	for (int i = 0; i < MAX_CHAIN; i++) {
		int tag;

		if (!dwarf_attr_integrate(&cur, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
			return NULL;
		tag = dwarf_tag(out);
		if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type &&
		    tag != DW_TAG_shared_type)
			return out;
		cur = *out;
	}
	return NULL;
}

/* @die without typedefs and qualifiers (perf's die_get_real_type) */
static Dwarf_Die *real_type(Dwarf_Die *die, Dwarf_Die *out)
{
	*out = *die;
	for (int i = 0; i < MAX_CHAIN; i++) {
		int tag = dwarf_tag(out);
		Dwarf_Die next;

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type && tag != DW_TAG_shared_type)
			return out;
		if (!type_of(out, &next))
			return NULL;
		*out = next;
	}
	return NULL;
}

static bool type_size(Dwarf_Die *t, uint64_t *size)
{
	Dwarf_Die r;
	Dwarf_Word w;

	if (!real_type(t, &r) || dwarf_aggregate_size(&r, &w) < 0)
		return false;
	*size = w;
	return true;
}

#ifdef HWS_HAVE_CAPSTONE
static bool is_pointer(Dwarf_Die *t)
{
	Dwarf_Die r;
	int tag;

	if (!real_type(t, &r))
		return false;
	tag = dwarf_tag(&r);
	return tag == DW_TAG_pointer_type || tag == DW_TAG_array_type;
}

/* what pointer (or array) type @t points to; NULL for void* */
static Dwarf_Die *pointee(Dwarf_Die *t, Dwarf_Die *out)
{
	Dwarf_Die r;

	if (!real_type(t, &r))
		return NULL;
	return type_of(&r, out);
}

#endif

/* perf's die_get_typename_from_type(): "struct x", "union x", "enum x", a typedef's or base
 * type's name, "T*", "T[]", "(function_type)" */
static int type_name(Dwarf_Die *t, struct hws_strbuf *sb, int depth)
{
	int tag = dwarf_tag(t);
	const char *name = dwarf_diename(t), *suffix;
	Dwarf_Die next;
	int err;

	if (depth > MAX_CHAIN)
		return -ENOENT;
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		suffix = "*";
		break;
	case DW_TAG_array_type:
		suffix = "[]";
		break;
	case DW_TAG_subroutine_type:
		return hws_strbuf__addstr(sb, "(function_type)");
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		return hws_strbuf__addf(sb, "struct %s", name ? name : "");
	case DW_TAG_union_type:
		return hws_strbuf__addf(sb, "union %s", name ? name : "");
	case DW_TAG_enumeration_type:
		return hws_strbuf__addf(sb, "enum %s", name ? name : "");
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		if (!type_of(t, &next))
			return -ENOENT;
		return type_name(&next, sb, depth + 1);
	default:
		return name ? hws_strbuf__addstr(sb, name) : -ENOENT;
	}
	if (!type_of(t, &next))
		return tag == DW_TAG_pointer_type ? hws_strbuf__addstr(sb, "void*") : -ENOENT;
	err = type_name(&next, sb, depth + 1);
	return err ? err : hws_strbuf__addstr(sb, suffix);
}

static bool member_loc(Dwarf_Die *m, uint64_t *loc)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	*loc = 0;
	if (!dwarf_attr_integrate(m, DW_AT_data_member_location, &a))
		return true; /* a union's members */
	if (dwarf_formudata(&a, &w))
		return false; /* a location expression: not a constant offset */
	*loc = w;
	return true;
}

/* the member of struct/union @t at @off (nested: "a.b"), as perf's fill_member_name() */
static int field_name(Dwarf_Die *t, uint64_t off, struct hws_strbuf *sb, int depth)
{
	Dwarf_Die r, m;

	if (depth > MAX_NEST || !real_type(t, &r))
		return 0;
	if (dwarf_tag(&r) != DW_TAG_structure_type && dwarf_tag(&r) != DW_TAG_union_type &&
	    dwarf_tag(&r) != DW_TAG_class_type)
		return 0;
	if (dwarf_child(&r, &m))
		return 0;
	do {
		Dwarf_Die mt;
		uint64_t loc, size;
		const char *name;
		int err;

		if (dwarf_tag(&m) != DW_TAG_member || !member_loc(&m, &loc) || !type_of(&m, &mt) ||
		    !type_size(&mt, &size))
			continue;
		if (off < loc || off - loc >= size)
			continue;
		name = dwarf_diename(&m);
		if (name) { /* anonymous structs and unions add no name */
			err = hws_strbuf__addf(sb, "%s%s", sb->len ? "." : "", name);
			if (err)
				return err;
		}
		return field_name(&mt, off - loc, sb, depth + 1);
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

#ifdef HWS_HAVE_CAPSTONE
/* the type of the member of @t containing @off (perf's die_get_member_type()), with the
 * offset left in it; false when @t is no struct/union or nothing covers @off */
static bool member_type(Dwarf_Die *t, int64_t *off, Dwarf_Die *out)
{
	Dwarf_Die r, m;

	if (*off < 0 || !real_type(t, &r))
		return false;
	if (dwarf_tag(&r) != DW_TAG_structure_type && dwarf_tag(&r) != DW_TAG_union_type)
		return false;
	if (dwarf_child(&r, &m))
		return false;
	do {
		Dwarf_Die mt;
		uint64_t loc, size;

		if (dwarf_tag(&m) != DW_TAG_member || !member_loc(&m, &loc) || !type_of(&m, &mt) ||
		    !type_size(&mt, &size))
			continue;
		if ((uint64_t)*off < loc || (uint64_t)*off - loc >= size)
			continue;
		*off -= (int64_t)loc;
		*out = mt;
		return true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

#endif

/* ---------------------------------------------------------------- results */

static void res_free(struct res *r)
{
	free(r->name);
	free(r->field);
	free(r->var);
}

/* the answer for type @t at @off (arrays become their element), found through @var; its
 * index + 1, 0 when @off is outside the type, or -ENOMEM */
static long res_add(struct hws_datatypes *dt, Dwarf_Die *t, int64_t off, const char *var)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	Dwarf_Die cur = *t, r;
	struct res *x;
	uint64_t size;

	for (int i = 0; i < MAX_CHAIN; i++) { /* an array: its element */
		Dwarf_Die elem;
		uint64_t esize;

		if (!real_type(&cur, &r) || dwarf_tag(&r) != DW_TAG_array_type)
			break;
		if (!type_of(&r, &elem) || !type_size(&elem, &esize) || !esize || off < 0)
			break;
		off %= (int64_t)esize;
		cur = elem;
	}
	if (!type_size(&cur, &size) || off < 0 || (uint64_t)off >= size)
		return 0;
	if (dt->nres == dt->ares) {
		size_t na = dt->ares ? dt->ares * 2 : 64;
		struct res *v = realloc(dt->res, na * sizeof(*v));

		if (!v)
			return -ENOMEM;
		dt->res = v;
		dt->ares = na;
	}
	x = &dt->res[dt->nres];
	memset(x, 0, sizeof(*x));
	x->offset = off;
	x->size = size;
	if (type_name(&cur, &sb, 0) == -ENOMEM)
		goto nomem;
	x->name = strdup(sb.len ? sb.buf : "(unknown type)");
	hws_strbuf__reset(&sb);
	if (field_name(&cur, (uint64_t)off, &sb, 0))
		goto nomem;
	x->field = sb.len ? strdup(sb.buf) : NULL;
	x->var = var ? strdup(var) : NULL;
	hws_strbuf__release(&sb);
	if (!x->name || (sb.len && !x->field) || (var && !x->var)) {
		res_free(x);
		return -ENOMEM;
	}
	return (long)++dt->nres;
nomem:
	hws_strbuf__release(&sb);
	return -ENOMEM;
}

#ifdef HWS_HAVE_CAPSTONE
/* a pointer's displacement past the end of the type it points to: an element of an array
 * of it (p[3].x), so the offset in one element (perf takes only displacements inside the
 * type) */
static int64_t wrap(Dwarf_Die *t, int64_t off)
{
	uint64_t size;

	if (off > 0 && type_size(t, &size) && size && (uint64_t)off >= size)
		return off % (int64_t)size;
	return off;
}
#endif

/* ---------------------------------------------------------------- the cache */

static uint64_t ckey(uint32_t file, uint64_t pc, uint64_t daddr)
{
	uint64_t x = pc * 0x9E3779B97F4A7C15ULL ^ daddr * 0xff51afd7ed558ccdULL ^ file;

	return x ^ (x >> 31);
}

static struct centry *cache_slot(struct hws_datatypes *dt, uint32_t file, uint64_t pc,
				 uint64_t daddr, bool *found)
{
	size_t i;

	*found = false;
	if (!dt->csize)
		return NULL;
	for (i = ckey(file, pc, daddr) & (dt->csize - 1); dt->cache[i].file;
	     i = (i + 1) & (dt->csize - 1)) {
		struct centry *e = &dt->cache[i];

		if (e->file == file && e->pc == pc && e->daddr == daddr) {
			*found = true;
			return e;
		}
	}
	return &dt->cache[i];
}

static int cache_put(struct hws_datatypes *dt, uint32_t file, uint64_t pc, uint64_t daddr,
		     uint32_t res)
{
	struct centry *e;
	bool found;

	if ((dt->cused + 1) * 2 > dt->csize) {
		size_t ns = dt->csize ? dt->csize * 2 : 1024;
		struct centry *old = dt->cache;
		size_t os = dt->csize;

		if (ns > MAX_CACHE * 2) { /* bounded: start again */
			memset(dt->cache, 0, dt->csize * sizeof(*dt->cache));
			dt->cused = 0;
		} else {
			dt->cache = calloc(ns, sizeof(*dt->cache));
			if (!dt->cache) {
				dt->cache = old;
				return -ENOMEM;
			}
			dt->csize = ns;
			dt->cused = 0;
			for (size_t i = 0; i < os; i++) {
				if (!old[i].file)
					continue;
				e = cache_slot(dt, old[i].file, old[i].pc, old[i].daddr, &found);
				*e = old[i];
				dt->cused++;
			}
			free(old);
		}
	}
	e = cache_slot(dt, file, pc, daddr, &found);
	if (!found)
		dt->cused++;
	*e = (struct centry){.pc = pc, .daddr = daddr, .file = file, .res = res};
	return 0;
}

/* ---------------------------------------------------------------- files */

static void file_close(struct dfile *f)
{
#ifdef HWS_HAVE_CAPSTONE
	if (f->cs_open)
		capstone.close(&f->cs);
#endif
	if (f->cfi)
		dwarf_cfi_end(f->cfi);
	if (f->dw)
		dwarf_end(f->dw);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->globals);
	free(f->funcs);
	free(f->path);
}

static void file_open(struct dfile *f)
{
	GElf_Ehdr eh;

	f->bad = true;
	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return;
	elf_version(EV_CURRENT);
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh))
		return;
	f->machine = eh.e_machine;
	f->dw = dwarf_begin_elf(f->elf, DWARF_C_READ, NULL);
	if (!f->dw)
		return;
	f->cfi = dwarf_getcfi_elf(f->elf);
#ifdef HWS_HAVE_CAPSTONE
	if (!hws_datatypes__available())
		return;
	if (f->machine == EM_X86_64) {
		if (capstone.open(CS_ARCH_X86, CS_MODE_64, &f->cs) != CS_ERR_OK)
			return;
	} else if (f->machine == EM_AARCH64) {
		if (capstone.open(CS_ARCH_ARM64, CS_MODE_ARM, &f->cs) != CS_ERR_OK)
			return;
	} else {
		return;
	}
	f->cs_open = true;
	capstone.option(f->cs, CS_OPT_DETAIL, CS_OPT_ON);
	f->bad = false;
#endif
}

/* the file @path, opened at its first use; NULL on -ENOMEM */
static struct dfile *file_of(struct hws_datatypes *dt, const char *path, uint32_t *idx)
{
	struct dfile *f;

	if (dt->last_file && !strcmp(dt->files[dt->last_file - 1].path, path)) {
		*idx = dt->last_file;
		return &dt->files[dt->last_file - 1];
	}
	for (size_t i = 0; i < dt->nfiles; i++) {
		if (!strcmp(dt->files[i].path, path)) {
			*idx = dt->last_file = (uint32_t)i + 1;
			return &dt->files[i];
		}
	}
	f = realloc(dt->files, (dt->nfiles + 1) * sizeof(*f));
	if (!f)
		return NULL;
	dt->files = f;
	f = &dt->files[dt->nfiles];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	dt->nfiles++;
	dt->st.files++;
	file_open(f);
	*idx = dt->last_file = (uint32_t)dt->nfiles;
	return f;
}

static int global_cmp(const void *a, const void *b)
{
	const struct global *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int globals_add(struct dfile *f, Dwarf_Die *v, size_t *alloc)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Die t;
	uint64_t size;

	if (!dwarf_attr_integrate(v, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &nops) ||
	    nops != 1 || ops[0].atom != DW_OP_addr || !type_of(v, &t) || !type_size(&t, &size) ||
	    !size)
		return 0;
	if (f->nglobals == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 64;
		struct global *g = realloc(f->globals, na * sizeof(*g));

		if (!g)
			return -ENOMEM;
		f->globals = g;
		*alloc = na;
	}
	f->globals[f->nglobals++] =
	    (struct global){.start = ops[0].number, .size = size, .die = dwarf_dieoffset(v)};
	return 0;
}

/* the variables of @die's children with a fixed address (globals, static locals) */
static int globals_walk(struct dfile *f, Dwarf_Die *die, size_t *alloc, int depth)
{
	Dwarf_Die c;
	int err = 0;

	if (depth > MAX_NEST || dwarf_child(die, &c))
		return 0;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_variable:
			err = globals_add(f, &c, alloc);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
			err = globals_walk(f, &c, alloc, depth + 1);
			break;
		default:
			break;
		}
	} while (!err && dwarf_siblingof(&c, &c) == 0);
	return err;
}

static int globals_load(struct dfile *f)
{
	Dwarf_Off off = 0, next;
	size_t hsize, alloc = 0;
	int err = 0;

	f->globals_done = true;
	while (!err && dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(f->dw, off + hsize, &cu))
			err = globals_walk(f, &cu, &alloc, 0);
		off = next;
	}
	hws__qsort(f->globals, f->nglobals, sizeof(*f->globals), global_cmp);
	return err;
}

/* the variable with a fixed address covering @addr: its DIE and @addr's offset in it */
static bool global_at(struct dfile *f, uint64_t addr, Dwarf_Die *var, int64_t *off)
{
	size_t lo = 0, hi;

	if (!f->globals_done && globals_load(f))
		return false;
	hi = f->nglobals;
	while (lo < hi) { /* the last start <= addr */
		size_t mid = lo + (hi - lo) / 2;

		if (f->globals[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* variables may nest (a static local inside nothing else, aliases): look back a few */
	for (size_t i = lo, n = 0; i-- > 0 && n < 8; n++) {
		const struct global *g = &f->globals[i];

		if (addr - g->start < g->size) {
			*off = (int64_t)(addr - g->start);
			return dwarf_offdie(f->dw, g->die, var) != NULL;
		}
	}
	return false;
}

#ifdef HWS_HAVE_CAPSTONE
static int funcs_add(struct dfile *f, Dwarf_Die *fn, size_t *alloc, int depth)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int k = 0;

	while (k++ < 64 && (off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (f->nfuncs == *alloc) {
			size_t na = *alloc ? *alloc * 2 : 256;
			struct global *g = realloc(f->funcs, na * sizeof(*g));

			if (!g)
				return -ENOMEM;
			f->funcs = g;
			*alloc = na;
		}
		f->funcs[f->nfuncs++] =
		    (struct global){.start = lo, .size = hi - lo, .die = dwarf_dieoffset(fn)};
	}
	(void)depth;
	return 0;
}

static int funcs_load(struct dfile *f)
{
	Dwarf_Off off = 0, next;
	size_t hsize, alloc = 0;
	int err = 0;

	f->funcs_done = true;
	while (!err && dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;

		if (dwarf_offdie(f->dw, off + hsize, &cu) && !dwarf_child(&cu, &c)) {
			do {
				/* C++ namespaces are not indexed: libdw's walk finds those */
				if (dwarf_tag(&c) == DW_TAG_subprogram)
					err = funcs_add(f, &c, &alloc, 0);
			} while (!err && dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
	hws__qsort(f->funcs, f->nfuncs, sizeof(*f->funcs), global_cmp);
	return err;
}

/* the scopes of @pc, innermost first, the CU last (dwarf_getscopes() without walking the
 * whole CU: the function from the index, then its blocks); count or <= 0 */
static int scopes_at(struct dfile *f, uint64_t pc, Dwarf_Die **out)
{
	Dwarf_Die fn, cu, cur, *v;
	size_t lo = 0, hi, n = 0;
	bool found = false;

	*out = NULL;
	if (!f->funcs_done && funcs_load(f))
		return -ENOMEM;
	hi = f->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->funcs[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && pc - f->funcs[lo - 1].start < f->funcs[lo - 1].size)
		found = dwarf_offdie(f->dw, f->funcs[lo - 1].die, &fn) != NULL;
	/* not indexed (C++ namespaces, odd DWARF): no scopes; libdw 0.188's dwarf_getscopes()
	 * leaks on damaged DWARF (fuzz_datatype) */
	if (!found)
		return 0;
	if (!dwarf_diecu(&fn, &cu, NULL, NULL))
		return 0;
	v = malloc((MAX_NEST + 2) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[n++] = fn;
	cur = fn;
	while (n < MAX_NEST) { /* the innermost block containing pc */
		Dwarf_Die c;
		bool deeper = false;

		if (dwarf_child(&cur, &c))
			break;
		do {
			int tag = dwarf_tag(&c);

			if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
			    dwarf_haspc(&c, pc) == 1) {
				v[n++] = c;
				cur = c;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
		if (!deeper)
			break;
	}
	for (size_t i = 0; i < n / 2; i++) { /* innermost first */
		Dwarf_Die t = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
	v[n++] = cu;
	*out = v;
	return (int)n;
}

/* ---------------------------------------------------------------- instructions */

static int x86_dwarf_reg(unsigned int r)
{
	switch (r) {
	case X86_REG_RAX:
	case X86_REG_EAX:
		return 0;
	case X86_REG_RDX:
	case X86_REG_EDX:
		return 1;
	case X86_REG_RCX:
	case X86_REG_ECX:
		return 2;
	case X86_REG_RBX:
	case X86_REG_EBX:
		return 3;
	case X86_REG_RSI:
	case X86_REG_ESI:
		return 4;
	case X86_REG_RDI:
	case X86_REG_EDI:
		return 5;
	case X86_REG_RBP:
	case X86_REG_EBP:
		return 6;
	case X86_REG_RSP:
	case X86_REG_ESP:
		return 7;
	case X86_REG_R8:
	case X86_REG_R8D:
		return 8;
	case X86_REG_R9:
	case X86_REG_R9D:
		return 9;
	case X86_REG_R10:
	case X86_REG_R10D:
		return 10;
	case X86_REG_R11:
	case X86_REG_R11D:
		return 11;
	case X86_REG_R12:
	case X86_REG_R12D:
		return 12;
	case X86_REG_R13:
	case X86_REG_R13D:
		return 13;
	case X86_REG_R14:
	case X86_REG_R14D:
		return 14;
	case X86_REG_R15:
	case X86_REG_R15D:
		return 15;
	case X86_REG_RIP:
		return REG_PC;
	default:
		return REG_NONE;
	}
}

static int arm64_dwarf_reg(unsigned int r)
{
	if (r >= ARM64_REG_X0 && r <= ARM64_REG_X28)
		return (int)(r - ARM64_REG_X0);
	if (r >= ARM64_REG_W0 && r <= ARM64_REG_W30)
		return (int)(r - ARM64_REG_W0);
	switch (r) {
	case ARM64_REG_X29:
		return 29;
	case ARM64_REG_X30:
		return 30;
	case ARM64_REG_SP:
		return 31;
	default:
		return REG_NONE;
	}
}

/* the bytes of the code at @pc: a pointer into the file's section, NULL if none */
static const uint8_t *code_at(struct dfile *f, uint64_t pc, size_t *len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || pc < sh.sh_addr ||
		    pc - sh.sh_addr >= sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || pc - sh.sh_addr >= d->d_size)
			return NULL;
		*len = d->d_size - (pc - sh.sh_addr);
		return (const uint8_t *)d->d_buf + (pc - sh.sh_addr);
	}
	return NULL;
}

/* the memory operand of the instruction @in, if it has one */
static bool mem_operand(struct dfile *f, const cs_insn *in, struct operand *op)
{
	op->next_pc = in->address + in->size;
	if (f->machine == EM_X86_64) {
		const cs_x86 *x = &in->detail->x86;

		for (int i = 0; i < x->op_count; i++) {
			if (x->operands[i].type != X86_OP_MEM)
				continue;
			/* fs/gs: thread-local or per-CPU data: not followed */
			if (x->operands[i].mem.segment != X86_REG_INVALID)
				return false;
			op->base = x86_dwarf_reg(x->operands[i].mem.base);
			op->index = x86_dwarf_reg(x->operands[i].mem.index);
			op->disp = x->operands[i].mem.disp;
			/* lea computes an address: no access */
			return in->id != X86_INS_LEA && in->id != X86_INS_NOP;
		}
		return false;
	}
	const cs_arm64 *a = &in->detail->arm64;

	for (int i = 0; i < a->op_count; i++) {
		if (a->operands[i].type != ARM64_OP_MEM)
			continue;
		op->base = arm64_dwarf_reg(a->operands[i].mem.base);
		op->index = arm64_dwarf_reg(a->operands[i].mem.index);
		op->disp = a->operands[i].mem.disp;
		/* post-indexed (ldr x0, [x1], #8): the access is at the base itself */
		if (a->writeback && a->op_count > i + 1 && a->operands[i + 1].type == ARM64_OP_IMM)
			op->disp = 0;
		return true;
	}
	return false;
}

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

static long by_global(struct query *q, uint64_t addr, uint64_t *hits)
{
	Dwarf_Die v, t;
	int64_t off;
	long r;

	if (!global_at(q->f, addr, &v, &off) || !type_of(&v, &t))
		return 0;
	r = res_add(q->dt, &t, off, dwarf_diename(&v));
	if (r > 0)
		(*hits)++;
	return r;
}

#ifdef HWS_HAVE_CAPSTONE
/* ---------------------------------------------------------------- variables at a PC */

static bool is_var(Dwarf_Die *d)
{
	return dwarf_tag(d) == DW_TAG_variable || dwarf_tag(d) == DW_TAG_formal_parameter;
}

/* ULEB128 at *@p (below @end) into *@v; false if it runs past @end or has > 10 bytes */
static bool uleb(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t r = 0;

	for (int sh = 0; sh < 70 && *p < end; sh += 7) {
		unsigned char b = *(*p)++;

		r |= sh < 64 ? (uint64_t)(b & 0x7f) << sh : 0;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

/* the data of section @name of the ELF file of @dw, NULL if none */
static Elf_Data *dw_section(Dwarf *dw, const char *name)
{
	Elf *elf = dw ? dwarf_getelf(dw) : NULL;
	GElf_Shdr sh;
	Elf_Scn *scn = elf ? hws_elf__section(elf, name, &sh) : NULL;

	return scn && sh.sh_type != SHT_NOBITS ? elf_getdata(scn, NULL) : NULL;
}

/*
 * Whether the location list of attribute @a can be handed to libdw. libdw 0.188 reads a
 * DWARF 5 list's entries checking each expression's ULEB128 length as a signed value: a huge
 * length wraps its read pointer below the section end, and the next read faults (found by
 * fuzz_datatype; input in its corpus). So a list in .debug_loclists is walked here first,
 * every read bounds-checked and at most 65536 entries; anything malformed means "no
 * location". Expressions and DWARF 2-4 lists (.debug_loc: 2-byte lengths) need no check.
 */
static bool loclist_ok(Dwarf_Attribute *a)
{
	Dwarf_Die cu;
	Dwarf_Half version;
	uint8_t asize, osize;
	Dwarf_Word off;
	Elf_Data *d;
	const unsigned char *p, *end;

	if (a->form != DW_FORM_sec_offset && a->form != DW_FORM_loclistx)
		return true;
	if (!dwarf_cu_die(a->cu, &cu, &version, NULL, &asize, &osize, NULL, NULL))
		return false;
	if (version < 5)
		return true;
	d = dw_section(dwarf_cu_getdwarf(a->cu), ".debug_loclists");
	if (!d || !d->d_buf || (asize != 4 && asize != 8) || (osize != 4 && osize != 8))
		return false;
	if (a->form == DW_FORM_loclistx) {
		Dwarf_Attribute ba;
		Dwarf_Word base = osize == 8 ? 20 : 12, idx, at;
		const unsigned char *q = a->valp;
		uint64_t v = 0;

		if (dwarf_attr(&cu, DW_AT_loclists_base, &ba) && dwarf_formudata(&ba, &base))
			return false;
		/* the index: a ULEB128 in the DIE (libdw checked the DIE's bounds) */
		if (!uleb(&q, q + 10, &idx) || idx > d->d_size / osize || base > d->d_size ||
		    (at = base + idx * osize) > d->d_size - osize)
			return false;
		memcpy(&v, (const unsigned char *)d->d_buf + at, osize); /* host = file order */
		if (v > d->d_size - base)
			return false;
		off = base + v;
	} else if (dwarf_formudata(a, &off)) {
		return false;
	}
	if (off >= d->d_size)
		return false;
	p = (const unsigned char *)d->d_buf + off;
	end = (const unsigned char *)d->d_buf + d->d_size;
	for (int n = 0; n < 65536; n++) {
		uint64_t x, len;
		unsigned int addrs = 0, ulebs = 0;
		bool expr = true;

		if (p >= end)
			return false;
		switch (*p++) {
		case DW_LLE_end_of_list:
			return true;
		case DW_LLE_base_addressx:
			ulebs = 1, expr = false;
			break;
		case DW_LLE_startx_endx:
		case DW_LLE_startx_length:
		case DW_LLE_offset_pair:
			ulebs = 2;
			break;
		case DW_LLE_default_location:
			break;
		case DW_LLE_base_address:
			addrs = 1, expr = false;
			break;
		case DW_LLE_start_end:
			addrs = 2;
			break;
		case DW_LLE_start_length:
			addrs = 1, ulebs = 1;
			break;
		case DW_LLE_GNU_view_pair:
			ulebs = 2, expr = false;
			break;
		default:
			return false;
		}
		if ((size_t)(end - p) < (size_t)addrs * asize)
			return false;
		p += addrs * asize;
		for (unsigned int i = 0; i < ulebs; i++)
			if (!uleb(&p, end, &x))
				return false;
		if (expr && (!uleb(&p, end, &len) || len > (uint64_t)(end - p)))
			return false;
		if (expr)
			p += len;
	}
	return false;
}

/* the frame base of function @fn at @pc as (register, offset) */
static bool frame_base(struct dfile *f, Dwarf_Die *fn, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &a) || !loclist_ok(&a) ||
	    dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) != 1 || nops != 1)
		return false;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		*reg = ops[0].atom - DW_OP_reg0;
		*off = 0;
		return true;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = ops[0].atom - DW_OP_breg0;
		*off = (int64_t)ops[0].number;
		return true;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa && f->cfi) {
		Dwarf_Frame *fr = NULL;
		Dwarf_Op *c;
		size_t nc;
		bool ok = false;

		if (dwarf_cfi_addrframe(f->cfi, pc, &fr) || !fr)
			return false;
		if (!dwarf_frame_cfa(fr, &c, &nc) && nc == 1) {
			if (c[0].atom == DW_OP_bregx) {
				*reg = (int)c[0].number;
				*off = (int64_t)c[0].number2;
				ok = true;
			} else if (c[0].atom >= DW_OP_breg0 && c[0].atom <= DW_OP_breg31) {
				*reg = c[0].atom - DW_OP_breg0;
				*off = (int64_t)c[0].number;
				ok = true;
			}
		}
		free(fr);
		return ok;
	}
	return false;
}

/* where variable @v is at @pc: kind 1 = in register @reg, 2 = in memory at @reg + @off,
 * 3 = its value is @reg + @off, 4 = at frame base + @off; 0 = none of these */
static int var_loc(Dwarf_Die *v, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	unsigned int at;

	if (!dwarf_attr_integrate(v, DW_AT_location, &a) || !loclist_ok(&a) ||
	    dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) != 1 || !nops)
		return 0;
	at = ops[0].atom;
	*off = 0;
	if (nops == 1 && at >= DW_OP_reg0 && at <= DW_OP_reg31) {
		*reg = (int)(at - DW_OP_reg0);
		return 1;
	}
	if (nops == 1 && at == DW_OP_regx) {
		*reg = (int)ops[0].number;
		return 1;
	}
	if (at == DW_OP_fbreg && nops == 1) {
		*off = (int64_t)ops[0].number;
		return 4;
	}
	if ((at >= DW_OP_breg0 && at <= DW_OP_breg31) || at == DW_OP_bregx) {
		*reg = at == DW_OP_bregx ? (int)ops[0].number : (int)(at - DW_OP_breg0);
		*off = (int64_t)(at == DW_OP_bregx ? ops[0].number2 : ops[0].number);
		if (nops == 1)
			return 2;
		if (nops == 2 && ops[1].atom == DW_OP_stack_value)
			return 3;
	}
	return 0;
}

/* a variable of the scopes that @reg + @disp accesses at the PC (perf's
 * die_find_variable_by_reg() + check_variable()): its answer, 0 none, -ENOMEM */
static long by_variable(struct query *q, int reg, int64_t disp)
{
	for (int i = 0; i < q->nscopes - 1; i++) {
		Dwarf_Die v;

		if (dwarf_child(&q->scopes[i], &v))
			continue;
		do {
			Dwarf_Die t, pt;
			int vreg = REG_NONE, k;
			int64_t voff, in;
			uint64_t size;
			long r;

			if (!is_var(&v))
				continue;
			k = var_loc(&v, q->pc, &vreg, &voff);
			if (!k || !type_of(&v, &t))
				continue;
			if ((k == 1 && vreg == reg) || (k == 3 && vreg == reg)) {
				/* a pointer in the register: what it points to */
				if (!is_pointer(&t) || !pointee(&t, &pt))
					continue;
				in = disp - (k == 3 ? voff : 0);
				r = res_add(q->dt, &pt, wrap(&pt, in), dwarf_diename(&v));
			} else if ((k == 2 && vreg == reg) ||
				   (k == 4 && q->have_fb && reg == q->fb_reg)) {
				/* the variable itself, in memory at a register or the frame base */
				in = k == 2 ? disp - voff : disp - q->fb_off - voff;
				if (!type_size(&t, &size) || in < 0 || (uint64_t)in >= size)
					continue;
				r = res_add(q->dt, &t, in, dwarf_diename(&v));
			} else {
				continue;
			}
			if (r)
				return r;
		} while (dwarf_siblingof(&v, &v) == 0);
	}
	return 0;
}

/* ---------------------------------------------------------------- following registers */

enum { TR_NONE, TR_TYPE, TR_PTR }; /* a value of the type / the address of it + off */

struct treg {
	uint8_t kind;
	Dwarf_Off type;
	int64_t off;
};

static void treg_set(struct treg *r, int kind, Dwarf_Die *t, int64_t off)
{
	r->kind = (uint8_t)kind;
	r->type = dwarf_dieoffset(t);
	r->off = off;
}

/* the subprogram DIE starting at @target among the children of @die (namespaces and classes
 * followed, @depth levels) */
static bool sub_at(Dwarf_Die *die, uint64_t target, int depth, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (depth <= 0 || dwarf_child(die, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Addr lo;

		if (tag == DW_TAG_subprogram && !dwarf_lowpc(&c, &lo) && lo == target) {
			*out = c;
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type) &&
		    sub_at(&c, target, depth - 1, out))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/*
 * the return type of the function starting at @target: its subprogram found by walking the
 * unit's DIEs (libdw 0.188's dwarf_getscopes() leaks on damaged DWARF: fuzz_datatype)
 */
static bool ret_type(struct dfile *f, uint64_t target, Dwarf_Die *out)
{
	Dwarf_Die cu, sub;

	if (!dwarf_addrdie(f->dw, target, &cu))
		return false;
	return sub_at(&cu, target, 8, &sub) && type_of(&sub, out) != NULL;
}

/* where a variable of the scopes is held in a register: [lo, hi) */
struct vreg {
	uint64_t lo, hi;
	int reg;
	Dwarf_Off type;
};

static int vreg_add(struct vreg **v, size_t *n, size_t *alloc, uint64_t lo, uint64_t hi,
		    const Dwarf_Op *ops, size_t nops, Dwarf_Die *t)
{
	int reg;

	if (nops != 1)
		return 0;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		reg = ops[0].atom - DW_OP_reg0;
	else if (ops[0].atom == DW_OP_regx && ops[0].number < NREGS)
		reg = (int)ops[0].number;
	else
		return 0;
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 32;
		struct vreg *x = realloc(*v, na * sizeof(*x));

		if (!x)
			return -ENOMEM;
		*v = x;
		*alloc = na;
	}
	(*v)[(*n)++] = (struct vreg){.lo = lo, .hi = hi, .reg = reg, .type = dwarf_dieoffset(t)};
	return 0;
}

/* the register locations of the variables of @die and its blocks (inlined ones too), read
 * once per walk (looking each variable up at every instruction costs more than the walk) */
static int vregs_of(Dwarf_Die *die, struct vreg **v, size_t *n, size_t *alloc, int depth)
{
	Dwarf_Die d;
	int err = 0;

	if (depth > MAX_NEST || dwarf_child(die, &d))
		return 0;
	do {
		Dwarf_Addr base, lo, hi;
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t nops;
		Dwarf_Die t;
		ptrdiff_t off = 0;
		int k = 0;

		if (dwarf_tag(&d) == DW_TAG_lexical_block ||
		    dwarf_tag(&d) == DW_TAG_inlined_subroutine) {
			err = vregs_of(&d, v, n, alloc, depth + 1);
			continue;
		}
		if (!is_var(&d) || !dwarf_attr_integrate(&d, DW_AT_location, &a) ||
		    !loclist_ok(&a) || !type_of(&d, &t))
			continue;
		if (!dwarf_getlocation(&a, &ops, &nops)) { /* one for the whole scope */
			err = vreg_add(v, n, alloc, 0, UINT64_MAX, ops, nops, &t);
			continue;
		}
		while (!err && k++ < 4096 &&
		       (off = dwarf_getlocations(&a, off, &base, &lo, &hi, &ops, &nops)) > 0)
			err = vreg_add(v, n, alloc, lo, hi, ops, nops, &t);
	} while (!err && dwarf_siblingof(&d, &d) == 0);
	return err;
}

/* the variables held in registers at @pc set their registers' types */
static void vars_at(struct query *q, const struct vreg *v, size_t n, uint64_t pc, struct treg *regs)
{
	for (size_t i = 0; i < n; i++) {
		if (pc >= v[i].lo && pc < v[i].hi && v[i].reg < NREGS) {
			regs[v[i].reg].kind = TR_TYPE;
			regs[v[i].reg].type = v[i].type;
			regs[v[i].reg].off = 0;
		}
	}
}

/* the type a load from @op gives, as perf's update_insn_state() for x86 mov */
static bool load_type(struct query *q, struct treg *regs, const struct operand *op, Dwarf_Die *out)
{
	Dwarf_Die t, v;
	int64_t off = op->disp;

	if (op->base == REG_PC) {
		if (!global_at(q->f, op->next_pc + (uint64_t)op->disp, &v, &off) ||
		    !type_of(&v, &t))
			return false;
	} else if (op->base >= 0 && op->base < NREGS && regs[op->base].kind == TR_TYPE) {
		Dwarf_Die pt;

		if (!dwarf_offdie(q->f->dw, regs[op->base].type, &pt) || !is_pointer(&pt) ||
		    !pointee(&pt, &t))
			return false;
	} else {
		return false;
	}
	/* the member holding the loaded value, down to the innermost */
	for (int i = 0; i < MAX_NEST; i++) {
		Dwarf_Die m;

		if (!member_type(&t, &off, &m))
			break;
		t = m;
	}
	if (off)
		return false;
	*out = t;
	return true;
}

/* the answer at instruction @in from the registers' types */
static long track_answer(struct query *q, struct treg *regs, const cs_insn *in)
{
	struct operand op;
	Dwarf_Die t;
	long r = 0;

	if (!mem_operand(q->f, in, &op))
		return 0;
	for (int pass = 0; pass < 2 && !r; pass++) {
		int reg = pass ? op.index : op.base;
		struct treg *tr;

		if (reg < 0 || reg >= NREGS)
			continue;
		tr = &regs[reg];
		if (!tr->kind || !dwarf_offdie(q->f->dw, tr->type, &t))
			continue;
		if (tr->kind == TR_PTR)
			r = res_add(q->dt, &t, tr->off + op.disp, NULL);
		else if (is_pointer(&t) && pointee(&t, &t))
			r = res_add(q->dt, &t, wrap(&t, op.disp), NULL);
	}
	return r;
}

/* the registers' types followed from the function's start through [start, end), once per
 * function: the answer of each memory access goes into the cache (key TRACK_TAG) */
static int walk(struct query *q, Dwarf_Die *fn, uint64_t start, uint64_t end)
{
	struct treg regs[NREGS] = {{0}};
	const uint8_t *code;
	struct vreg *vr = NULL;
	uint64_t addr;
	size_t len, nvr = 0, alloc = 0;
	cs_insn *in;
	Dwarf_Die t;
	int err = 0;

	code = code_at(q->f, start, &len);
	if (!code)
		return 0;
	if (vregs_of(fn, &vr, &nvr, &alloc, 0)) {
		free(vr);
		return -ENOMEM;
	}
	in = capstone.malloc(q->f->cs);
	if (!in) {
		free(vr);
		return -ENOMEM;
	}
	addr = start;
	for (int n = 0; n < MAX_INSNS && addr < end && !err; n++) {
		const cs_x86 *x;
		struct operand op;
		long r;
		int dst;

		vars_at(q, vr, nvr, addr, regs);
		if (!capstone.disasm_iter(q->f->cs, &code, &len, &addr, in))
			break;
		r = track_answer(q, regs, in);
		if (r > 0)
			err = cache_put(q->dt, q->fidx, in->address, TRACK_TAG, (uint32_t)r);
		else if (r < 0)
			err = (int)r;
		x = &in->detail->x86;
		if (in->id == X86_INS_CALL) {
			static const int clobbered[] = {0, 1, 2, 4, 5, 8, 9, 10, 11};

			for (size_t i = 0; i < ARRAY_SIZE(clobbered); i++)
				regs[clobbered[i]].kind = TR_NONE;
			if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM &&
			    ret_type(q->f, (uint64_t)x->operands[0].imm, &t))
				treg_set(&regs[0], TR_TYPE, &t, 0);
			continue;
		}
		if (x->op_count != 2 || x->operands[0].type != X86_OP_REG)
			continue;
		dst = x86_dwarf_reg(x->operands[0].reg);
		if (dst < 0 || dst >= NREGS)
			continue;
		switch (in->id) {
		case X86_INS_MOV:
		case X86_INS_MOVZX:
		case X86_INS_MOVSX:
		case X86_INS_MOVSXD:
			if (x->operands[1].type == X86_OP_REG) {
				int src = x86_dwarf_reg(x->operands[1].reg);

				regs[dst] = src >= 0 && src < NREGS ? regs[src] : (struct treg){0};
			} else if (x->operands[1].type == X86_OP_MEM &&
				   x->operands[1].mem.segment == X86_REG_INVALID) {
				op.base = x86_dwarf_reg(x->operands[1].mem.base);
				op.index = x86_dwarf_reg(x->operands[1].mem.index);
				op.disp = x->operands[1].mem.disp;
				op.next_pc = addr;
				regs[dst].kind = TR_NONE;
				if (op.index == REG_NONE && load_type(q, regs, &op, &t))
					treg_set(&regs[dst], TR_TYPE, &t, 0);
			} else {
				regs[dst].kind = TR_NONE;
			}
			break;
		case X86_INS_LEA: {
			int b = x86_dwarf_reg(x->operands[1].mem.base);
			int ix = x86_dwarf_reg(x->operands[1].mem.index);
			int64_t d = x->operands[1].mem.disp, off;
			Dwarf_Die v;

			if (b == REG_PC && ix == REG_NONE &&
			    global_at(q->f, addr + (uint64_t)d, &v, &off) && type_of(&v, &t)) {
				treg_set(&regs[dst], TR_PTR, &t, off);
			} else if (b >= 0 && b < NREGS && regs[b].kind == TR_TYPE &&
				   ix == REG_NONE && dwarf_offdie(q->f->dw, regs[b].type, &t) &&
				   is_pointer(&t) && pointee(&t, &t)) {
				treg_set(&regs[dst], TR_PTR, &t, d);
			} else if (b >= 0 && b < NREGS && ix != REG_NONE && regs[b].kind) {
				regs[dst] = regs[b]; /* an element of the same array */
			} else {
				regs[dst].kind = TR_NONE;
			}
			break;
		}
		case X86_INS_XOR:
			if (x->operands[1].type == X86_OP_REG &&
			    x86_dwarf_reg(x->operands[1].reg) == dst)
				regs[dst].kind = TR_NONE;
			break;
		default: /* arithmetic keeps a pointer's type, as perf */
			break;
		}
	}
	capstone.free(in, 1);
	free(vr);
	return err;
}

/* the registers' types followed through the function (x86-64), as perf's
 * find_data_type_block(); here in code order from the function's start, once per function */
static long by_tracking(struct query *q)
{
	Dwarf_Addr base, start = 0, end = 0;
	Dwarf_Die *fn = NULL;
	struct centry *e;
	bool found;
	int err;

	if (q->f->machine != EM_X86_64)
		return 0;
	for (int i = q->nscopes - 2; i >= 0 && !fn; i--)
		if (dwarf_tag(&q->scopes[i]) == DW_TAG_subprogram)
			fn = &q->scopes[i];
	if (!fn)
		return 0;
	for (ptrdiff_t o = 0; (o = dwarf_ranges(fn, o, &base, &start, &end)) > 0;)
		if (q->pc >= start && q->pc < end)
			break;
	if (q->pc < start || q->pc >= end)
		return 0;
	cache_slot(q->dt, q->fidx, start, WALK_TAG, &found);
	if (!found) {
		err = walk(q, fn, start, end);
		if (!err)
			err = cache_put(q->dt, q->fidx, start, WALK_TAG, 0);
		if (err)
			return err;
	}
	e = cache_slot(q->dt, q->fidx, q->pc, TRACK_TAG, &found);
	return found ? e->res : 0;
}

/* push, pop, call, ret: perf's is_stack_operation() (x86), typed "(stack operation)" */
static bool stack_op(struct dfile *f, const cs_insn *in)
{
	if (f->machine != EM_X86_64)
		return false;
	switch (in->id) {
	case X86_INS_PUSH:
	case X86_INS_POP:
	case X86_INS_CALL:
	case X86_INS_RET:
		return true;
	default:
		return false;
	}
}

static long stackop_res(struct hws_datatypes *dt)
{
	struct res *x;

	if (dt->stackop)
		return dt->stackop;
	if (dt->nres == dt->ares) {
		size_t na = dt->ares ? dt->ares * 2 : 64;
		struct res *v = realloc(dt->res, na * sizeof(*v));

		if (!v)
			return -ENOMEM;
		dt->res = v;
		dt->ares = na;
	}
	x = &dt->res[dt->nres];
	memset(x, 0, sizeof(*x));
	x->name = strdup("(stack operation)");
	if (!x->name)
		return -ENOMEM;
	x->pseudo = true;
	dt->stackop = (uint32_t)++dt->nres;
	return dt->stackop;
}

/* the scopes at @q's PC and its function's frame base: 1, 0 if there are none, -ENOMEM */
static long query_scopes(struct query *q)
{
	q->nscopes = scopes_at(q->f, q->pc, &q->scopes);
	if (q->nscopes <= 0) {
		free(q->scopes);
		q->scopes = NULL;
		return q->nscopes < 0 ? -ENOMEM : 0;
	}
	for (int i = 0; i < q->nscopes; i++) {
		if (dwarf_tag(&q->scopes[i]) == DW_TAG_subprogram) {
			q->have_fb = frame_base(q->f, &q->scopes[i], q->pc, &q->fb_reg, &q->fb_off);
			break;
		}
	}
	return 1;
}

/* the answer for (file, pc): index + 1, 0 unknown, or -ENOMEM */
static long find_insn(struct hws_datatypes *dt, struct dfile *f, uint32_t fidx, uint64_t pc)
{
	struct query q = {.dt = dt, .f = f, .fidx = fidx, .pc = pc};
	const uint8_t *code;
	size_t len;
	uint64_t a = pc;
	cs_insn *in;
	bool mem;
	long r = 0;

	code = code_at(f, pc, &len);
	if (!code)
		return 0;
	in = capstone.malloc(f->cs);
	if (!in)
		return -ENOMEM;
	mem = capstone.disasm_iter(f->cs, &code, &len, &a, in);
	if (mem && stack_op(f, in)) {
		capstone.free(in, 1);
		return stackop_res(dt);
	}
	mem = mem && mem_operand(f, in, &q.op);
	capstone.free(in, 1);
	if (!mem)
		return 0;
	/* a global at a PC-relative or absolute address */
	if (q.op.base == REG_PC)
		return by_global(&q, q.op.next_pc + (uint64_t)q.op.disp, &dt->st.by_global);
	if (q.op.base == REG_NONE && q.op.disp > 0) {
		r = by_global(&q, (uint64_t)q.op.disp, &dt->st.by_global);
		if (r)
			return r;
	}
	r = query_scopes(&q);
	if (r <= 0)
		return r;
	r = 0;
	if (q.op.base >= 0)
		r = by_variable(&q, q.op.base, q.op.disp);
	if (!r && q.op.index >= 0 && q.op.index != q.op.base)
		r = by_variable(&q, q.op.index, q.op.disp);
	if (r > 0)
		dt->st.by_var++;
	if (!r) {
		r = by_tracking(&q);
		if (r > 0)
			dt->st.by_tracking++;
	}
	free(q.scopes);
	return r;
}

/* ---------------------------------------------------------------- allocation sites */

static void fill(const struct hws_datatypes *dt, uint32_t res, struct hws_datatype *out);

/* a variable of @scopes (innermost first, the CU left out) that holds a pointer at @pc in
 * register @reg (@mem false) or in memory at @reg + @disp (@mem true; frame base: @q): the
 * type it points to in @out */
static bool alloc_var(struct query *q, uint64_t pc, int reg, bool mem, int64_t disp, Dwarf_Die *out,
		      const char **var)
{
	for (int i = 0; i < q->nscopes - 1; i++) {
		Dwarf_Die v;

		if (dwarf_child(&q->scopes[i], &v))
			continue;
		do {
			Dwarf_Die t;
			int vreg = REG_NONE, k;
			int64_t voff;

			if (!is_var(&v))
				continue;
			k = var_loc(&v, pc, &vreg, &voff);
			if (!k || !type_of(&v, &t) || !is_pointer(&t))
				continue;
			if ((!mem && k == 1 && vreg == reg) ||
			    (mem && k == 2 && vreg == reg && voff == disp) ||
			    (mem && k == 4 && q->have_fb && reg == q->fb_reg &&
			     disp - q->fb_off == voff)) {
				if (!pointee(&t, out))
					return false; /* void *: nothing to say */
				*var = dwarf_diename(&v);
				return true;
			}
		} while (dwarf_siblingof(&v, &v) == 0);
	}
	return false;
}

/*
 * The type a call's result is given at its return address @pc: a pointer variable that is
 * the result register there (x86-64 rax, arm64 x0), or that the instruction at @pc copies
 * it to (a register the variable lives in from the next instruction, or its stack slot).
 */
static bool alloc_pointee(struct query *q, Dwarf_Die *out, const char **var)
{
	struct dfile *f = q->f;
	const uint8_t *code;
	size_t len;
	uint64_t a = q->pc;
	cs_insn *in;
	bool ok = false;

	if (alloc_var(q, q->pc, 0, false, 0, out, var))
		return true;
	code = code_at(f, q->pc, &len);
	in = code ? capstone.malloc(f->cs) : NULL;
	if (!in)
		return false;
	if (!capstone.disasm_iter(f->cs, &code, &len, &a, in))
		goto out;
	if (f->machine == EM_X86_64) {
		const cs_x86 *x = &in->detail->x86;

		/* mov %rax, dst (Intel operand order: destination first) */
		if (in->id != X86_INS_MOV || x->op_count != 2 ||
		    x->operands[1].type != X86_OP_REG || x86_dwarf_reg(x->operands[1].reg) != 0)
			goto out;
		if (x->operands[0].type == X86_OP_REG)
			ok = alloc_var(q, a, x86_dwarf_reg(x->operands[0].reg), false, 0, out, var);
		else if (x->operands[0].type == X86_OP_MEM &&
			 x->operands[0].mem.index == X86_REG_INVALID &&
			 x->operands[0].mem.segment == X86_REG_INVALID)
			ok = alloc_var(q, a, x86_dwarf_reg(x->operands[0].mem.base), true,
				       x->operands[0].mem.disp, out, var);
	} else {
		const cs_arm64 *r = &in->detail->arm64;

		/* mov xN, x0 / str x0, [base, #disp] */
		if (r->op_count != 2 || r->operands[1].type == ARM64_OP_INVALID)
			goto out;
		if (in->id == ARM64_INS_MOV && r->operands[1].type == ARM64_OP_REG &&
		    arm64_dwarf_reg(r->operands[1].reg) == 0 && r->operands[0].type == ARM64_OP_REG)
			ok = alloc_var(q, a, arm64_dwarf_reg(r->operands[0].reg), false, 0, out,
				       var);
		else if (in->id == ARM64_INS_STR && r->operands[0].type == ARM64_OP_REG &&
			 arm64_dwarf_reg(r->operands[0].reg) == 0 &&
			 r->operands[1].type == ARM64_OP_MEM && !r->writeback)
			ok = alloc_var(q, a, arm64_dwarf_reg(r->operands[1].mem.base), true,
				       r->operands[1].mem.disp, out, var);
	}
out:
	capstone.free(in, 1);
	return ok;
}

static long find_alloc(struct hws_datatypes *dt, struct dfile *f, uint64_t pc, uint64_t offset)
{
	struct query q = {.dt = dt, .f = f, .pc = pc};
	const char *var = NULL;
	Dwarf_Die t;
	long r = query_scopes(&q);

	if (r <= 0)
		return r;
	r = 0;
	/* a block of N elements: the offset in one (wrap), as for p[i].x */
	if (alloc_pointee(&q, &t, &var) && offset <= INT64_MAX)
		r = res_add(dt, &t, wrap(&t, (int64_t)offset), var);
	free(q.scopes);
	return r;
}
#endif

int hws_datatypes__alloc(struct hws_datatypes *dt, const char *path, uint64_t ret_pc,
			 uint64_t offset, struct hws_datatype *out)
{
	struct dfile *f;
	struct centry *e;
	uint32_t idx;
	bool found;
	long r = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!dt || !path || offset >= ALLOC_TAG)
		return 0;
	f = file_of(dt, path, &idx);
	if (!f)
		return -ENOMEM;
	if (f->bad)
		return 0;
	e = cache_slot(dt, idx, ret_pc, offset | ALLOC_TAG, &found);
	if (found) {
		r = e->res;
	} else {
#ifdef HWS_HAVE_CAPSTONE
		r = find_alloc(dt, f, ret_pc, offset);
#endif
		if (r < 0)
			return (int)r;
		err = cache_put(dt, idx, ret_pc, offset | ALLOC_TAG, (uint32_t)r);
		if (err)
			return err;
	}
	fill(dt, (uint32_t)r, out);
	return r ? 1 : 0;
}

static void fill(const struct hws_datatypes *dt, uint32_t res, struct hws_datatype *out)
{
	memset(out, 0, sizeof(*out));
	if (!res)
		return;
	out->name = dt->res[res - 1].name;
	out->field = dt->res[res - 1].field;
	out->var = dt->res[res - 1].var;
	out->offset = dt->res[res - 1].offset;
	out->size = dt->res[res - 1].size;
	out->pseudo = dt->res[res - 1].pseudo;
}

int hws_datatypes__find(struct hws_datatypes *dt, const char *path, uint64_t pc, uint64_t daddr,
			struct hws_datatype *out)
{
	struct dfile *f;
	struct centry *e;
	uint32_t idx;
	bool found;
	long r = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!dt || !path)
		return 0;
	dt->st.lookups++;
	f = file_of(dt, path, &idx);
	if (!f)
		return -ENOMEM;
	if (f->bad)
		return 0;
	/* the instruction's answer, then (when it has none) the data address's */
	e = cache_slot(dt, idx, pc, 0, &found);
	if (found) {
		dt->st.cached++;
		r = e->res;
	} else {
#ifdef HWS_HAVE_CAPSTONE
		r = find_insn(dt, f, idx, pc);
#endif
		if (r < 0)
			return (int)r;
		err = cache_put(dt, idx, pc, 0, (uint32_t)r);
		if (err)
			return err;
	}
	if (!r && daddr) {
		e = cache_slot(dt, idx, pc, daddr | 1ULL << 63, &found);
		if (found) {
			r = e->res;
		} else {
			struct query q = {.dt = dt, .f = f, .pc = pc};

			r = by_global(&q, daddr, &dt->st.by_daddr);
			if (r < 0)
				return (int)r;
			err = cache_put(dt, idx, pc, daddr | 1ULL << 63, (uint32_t)r);
			if (err)
				return err;
		}
	}
	fill(dt, (uint32_t)r, out);
	if (r)
		dt->st.found++;
	return r ? 1 : 0;
}

int hws__datatypes_resolve_code(struct hws_datatypes *dt, struct hws_symbols *syms,
				const struct hws_sample *s, const struct hws_symbol *code,
				struct hws_datatype *out)
{
	struct hws_symbol own, data;
	char path[4096];
	uint64_t pc, daddr = 0;

	memset(out, 0, sizeof(*out));
	if (!dt || !syms || !(s->fields & HWS_SF_IP))
		return 0;
	if (!code) {
		if (hws_symbols__resolve(syms, s->pid, s->ip, false, &own) < 0)
			return 0;
		code = &own;
	}
	if (!code->dso || code->dso[0] != '/' || strlen(code->dso) >= sizeof(path))
		return 0;
	pc = code->dso_addr;
	if (!(s->fields & HWS_SF_ADDR)) /* the path is not needed past the next lookup */
		return hws_datatypes__find(dt, code->dso, pc, 0, out);
	memcpy(path, code->dso, strlen(code->dso) + 1);
	if ((s->fields & HWS_SF_ADDR) &&
	    hws_symbols__resolve(syms, s->pid, s->addr, true, &data) >= 0 && data.dso &&
	    !strcmp(data.dso, path))
		daddr = data.dso_addr;
	return hws_datatypes__find(dt, path, pc, daddr, out);
}

int hws_datatypes__resolve(struct hws_datatypes *dt, struct hws_symbols *syms,
			   const struct hws_sample *s, struct hws_datatype *out)
{
	return hws__datatypes_resolve_code(dt, syms, s, NULL, out);
}

/* ---------------------------------------------------------------- output */

int hws_datatype__format(const struct hws_datatype *t, bool with_offset, struct hws_strbuf *sb)
{
	/* perf 6.8 (Linux tools/perf/util/sort.c): "Data Type" is the name, "Data Type
	 * Offset" is "%s %+d (%s)" with "no field" when none; its unknown type is
	 * "(unknown)" (later perf prints it, and "(stack operation)", alone) */
	if (!t->name)
		return hws_strbuf__addstr(sb, "(unknown)");
	if (!with_offset || t->pseudo)
		return hws_strbuf__addstr(sb, t->name);
	return hws_strbuf__addf(sb, "%s %+" PRId64 " (%s)", t->name, t->offset,
				t->field ? t->field : "no field");
}

int hws_datatype__json(const struct hws_datatype *t, struct hws_strbuf *sb)
{
	int err;

	if (!t->name)
		return 0;
	err = hws_strbuf__addstr(sb, ",\"type\":{\"name\":");
	if (!err)
		err = hws_strbuf__add_json_str(sb, t->name);
	if (!err && t->pseudo)
		return hws_strbuf__addstr(sb, "}");
	if (!err)
		err = hws_strbuf__addf(sb, ",\"offset\":%" PRId64 ",\"size\":%" PRIu64, t->offset,
				       t->size);
	if (!err && t->field) {
		err = hws_strbuf__addstr(sb, ",\"field\":");
		if (!err)
			err = hws_strbuf__add_json_str(sb, t->field);
	}
	if (!err && t->var) {
		err = hws_strbuf__addstr(sb, ",\"var\":");
		if (!err)
			err = hws_strbuf__add_json_str(sb, t->var);
	}
	if (!err)
		err = hws_strbuf__addstr(sb, "}");
	return err;
}

/* ---------------------------------------------------------------- lifetime */

struct hws_datatypes *hws_datatypes__new(void)
{
	return calloc(1, sizeof(struct hws_datatypes));
}

void hws_datatypes__delete(struct hws_datatypes *dt)
{
	if (!dt)
		return;
	for (size_t i = 0; i < dt->nfiles; i++)
		file_close(&dt->files[i]);
	free(dt->files);
	for (size_t i = 0; i < dt->nres; i++)
		res_free(&dt->res[i]);
	free(dt->res);
	free(dt->cache);
	free(dt);
}

void hws_datatypes__stats(const struct hws_datatypes *dt, struct hws_datatypes_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (dt)
		*st = dt->st;
}
