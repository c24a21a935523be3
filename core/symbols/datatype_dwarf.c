// SPDX-License-Identifier: MIT
/*
 * DWARF reading for data types (datatype.c): types, member names, locations, per-file indexes.
 *
 * What the lookups of datatype.c and datatype_track.c ask of a file's DWARF: a type without
 * typedefs and qualifiers, its size, its name (perf's die_get_typename_from_type()) and the
 * member at an offset; where a variable or a function's frame base is at a PC (a DWARF 5
 * location list checked before libdw reads it); the variables at fixed addresses and the
 * functions of the file, each indexed once by address (the variable at an address, the
 * scopes at a PC).
 *
 * Invariants: those of datatype.c; every walk is bounded (MAX_CHAIN, MAX_NEST, counted
 * entries), so damaged DWARF answers "not found", never loops or crashes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "symbols/datatype_int.h"
#include "symbols/symbols_core.h"
#include "util/internal.h"

/* ---------------------------------------------------------------- DWARF types */

/* the type of @die (a variable, member, pointer ...) without qualifiers (perf's
 * __die_get_real_type) */
Dwarf_Die *hws__dt_type_of(Dwarf_Die *die, Dwarf_Die *out)
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
Dwarf_Die *hws__dt_real_type(Dwarf_Die *die, Dwarf_Die *out)
{
	*out = *die;
	for (int i = 0; i < MAX_CHAIN; i++) {
		int tag = dwarf_tag(out);
		Dwarf_Die next;

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type && tag != DW_TAG_shared_type)
			return out;
		if (!hws__dt_type_of(out, &next))
			return NULL;
		*out = next;
	}
	return NULL;
}

bool hws__dt_type_size(Dwarf_Die *t, uint64_t *size)
{
	Dwarf_Die r;
	Dwarf_Word w;

	if (!hws__dt_real_type(t, &r) || dwarf_aggregate_size(&r, &w) < 0)
		return false;
	*size = w;
	return true;
}

#ifdef HWS_HAVE_CAPSTONE
bool hws__dt_is_pointer(Dwarf_Die *t)
{
	Dwarf_Die r;
	int tag;

	if (!hws__dt_real_type(t, &r))
		return false;
	tag = dwarf_tag(&r);
	return tag == DW_TAG_pointer_type || tag == DW_TAG_array_type;
}

/* what pointer (or array) type @t points to; NULL for void* */
Dwarf_Die *hws__dt_pointee(Dwarf_Die *t, Dwarf_Die *out)
{
	Dwarf_Die r;

	if (!hws__dt_real_type(t, &r))
		return NULL;
	return hws__dt_type_of(&r, out);
}

#endif

/* perf's die_get_typename_from_type(): "struct x", "union x", "enum x", a typedef's or base
 * type's name, "T*", "T[]", "(function_type)" */
int hws__dt_type_name(Dwarf_Die *t, struct hws_strbuf *sb, int depth)
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
		if (!hws__dt_type_of(t, &next))
			return -ENOENT;
		return hws__dt_type_name(&next, sb, depth + 1);
	default:
		return name ? hws_strbuf__addstr(sb, name) : -ENOENT;
	}
	if (!hws__dt_type_of(t, &next))
		return tag == DW_TAG_pointer_type ? hws_strbuf__addstr(sb, "void*") : -ENOENT;
	err = hws__dt_type_name(&next, sb, depth + 1);
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
int hws__dt_field_name(Dwarf_Die *t, uint64_t off, struct hws_strbuf *sb, int depth)
{
	Dwarf_Die r, m;

	if (depth > MAX_NEST || !hws__dt_real_type(t, &r))
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

		if (dwarf_tag(&m) != DW_TAG_member || !member_loc(&m, &loc) ||
		    !hws__dt_type_of(&m, &mt) || !hws__dt_type_size(&mt, &size))
			continue;
		if (off < loc || off - loc >= size)
			continue;
		name = dwarf_diename(&m);
		if (name) { /* anonymous structs and unions add no name */
			err = hws_strbuf__addf(sb, "%s%s", sb->len ? "." : "", name);
			if (err)
				return err;
		}
		return hws__dt_field_name(&mt, off - loc, sb, depth + 1);
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

#ifdef HWS_HAVE_CAPSTONE
/* the type of the member of @t containing @off (perf's die_get_member_type()), with the
 * offset left in it; false when @t is no struct/union or nothing covers @off */
bool hws__dt_member_type(Dwarf_Die *t, int64_t *off, Dwarf_Die *out)
{
	Dwarf_Die r, m;

	if (*off < 0 || !hws__dt_real_type(t, &r))
		return false;
	if (dwarf_tag(&r) != DW_TAG_structure_type && dwarf_tag(&r) != DW_TAG_union_type)
		return false;
	if (dwarf_child(&r, &m))
		return false;
	do {
		Dwarf_Die mt;
		uint64_t loc, size;

		if (dwarf_tag(&m) != DW_TAG_member || !member_loc(&m, &loc) ||
		    !hws__dt_type_of(&m, &mt) || !hws__dt_type_size(&mt, &size))
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

/* ---------------------------------------------------------------- per-file indexes */

static int global_cmp(const void *a, const void *b)
{
	const struct global *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* @g appended to the index @v (@n entries, room for @alloc) */
static int global_push(struct global **v, size_t *n, size_t *alloc, struct global g)
{
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 64;
		struct global *x = realloc(*v, na * sizeof(*x));

		if (!x)
			return -ENOMEM;
		*v = x;
		*alloc = na;
	}
	(*v)[(*n)++] = g;
	return 0;
}

static int globals_add(struct dfile *f, Dwarf_Die *v, size_t *alloc)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Die t;
	uint64_t size;

	if (!dwarf_attr_integrate(v, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &nops) ||
	    nops != 1 || ops[0].atom != DW_OP_addr || !hws__dt_type_of(v, &t) ||
	    !hws__dt_type_size(&t, &size) || !size)
		return 0;
	return global_push(
	    &f->globals, &f->nglobals, alloc,
	    (struct global){.start = ops[0].number, .size = size, .die = dwarf_dieoffset(v)});
}

#ifdef HWS_HAVE_CAPSTONE
static int funcs_add(struct dfile *f, Dwarf_Die *fn, size_t *alloc)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int k = 0;

	while (k++ < 64 && (off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0) {
		int err;

		if (hi <= lo)
			continue;
		err = global_push(
		    &f->funcs, &f->nfuncs, alloc,
		    (struct global){.start = lo, .size = hi - lo, .die = dwarf_dieoffset(fn)});
		if (err)
			return err;
	}
	return 0;
}

#endif

/* the variables of @die's children with a fixed address (globals, static locals); with
 * @falloc (a unit's children), its functions' ranges too (C++ namespaces are not indexed:
 * libdw's walk finds those) */
static int globals_walk(struct dfile *f, Dwarf_Die *die, size_t *alloc, size_t *falloc, int depth)
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
#ifdef HWS_HAVE_CAPSTONE
			if (falloc)
				err = funcs_add(f, &c, falloc);
#endif
			if (!err)
				err = globals_walk(f, &c, alloc, NULL, depth + 1);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
			err = globals_walk(f, &c, alloc, NULL, depth + 1);
			break;
		default:
			break;
		}
	} while (!err && dwarf_siblingof(&c, &c) == 0);
	return err;
}

/* the file's indexes, in one walk of its units: the variables with a fixed address and the
 * functions' ranges (the second walk of the same DIEs cost report --sort typeoff 5%) */
static int index_load(struct dfile *f)
{
	Dwarf_Off off = 0, next;
	size_t hsize, alloc = 0, falloc = 0;
	int err = 0;

	f->globals_done = f->funcs_done = true;
	while (!err && dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(f->dw, off + hsize, &cu))
			err = globals_walk(f, &cu, &alloc, &falloc, 0);
		off = next;
	}
	hws__qsort(f->globals, f->nglobals, sizeof(*f->globals), global_cmp);
	hws__qsort(f->funcs, f->nfuncs, sizeof(*f->funcs), global_cmp);
	return err;
}

/* the entries of index @v (@n, sorted by start) that start at or before @addr: their count */
static size_t global_upto(const struct global *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the variable with a fixed address covering @addr: its DIE and @addr's offset in it */
bool hws__dt_global_at(struct dfile *f, uint64_t addr, Dwarf_Die *var, int64_t *off)
{
	size_t lo;

	if (!f->globals_done && index_load(f))
		return false;
	lo = global_upto(f->globals, f->nglobals, addr);
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
/* the function that starts at @pc, from the index: of the indexed subprograms whose low PC
 * it is, the first in DIE order (as a walk of the unit's DIEs meets them) */
bool hws__dt_func_starting(struct dfile *f, uint64_t pc, Dwarf_Die *out)
{
	size_t i, best = SIZE_MAX;
	Dwarf_Addr low;

	if (!f->funcs_done && index_load(f))
		return false;
	for (i = global_upto(f->funcs, f->nfuncs, pc); i > 0 && f->funcs[i - 1].start == pc; i--)
		if (best == SIZE_MAX || f->funcs[i - 1].die < f->funcs[best].die)
			best = i - 1;
	return best != SIZE_MAX && dwarf_offdie(f->dw, f->funcs[best].die, out) &&
	       !dwarf_lowpc(out, &low) && low == pc;
}

/* the scopes of @pc, innermost first, the CU last (dwarf_getscopes() without walking the
 * whole CU: the function from the index, then its blocks); count or <= 0 */
int hws__dt_scopes_at(struct dfile *f, uint64_t pc, Dwarf_Die **out)
{
	Dwarf_Die fn, cu, cur, *v;
	size_t lo, n = 0;
	bool found = false;

	*out = NULL;
	if (!f->funcs_done && index_load(f))
		return -ENOMEM;
	lo = global_upto(f->funcs, f->nfuncs, pc);
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
#endif

#ifdef HWS_HAVE_CAPSTONE
/* ---------------------------------------------------------------- variables at a PC */

bool hws__dt_is_var(Dwarf_Die *d)
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

/* the DWARF 5 location list at @p (section end @end, addresses of @asize bytes): whether
 * every entry up to its end reads within the section (hws__dt_loclist_ok()) */
static bool loclist_walk(const unsigned char *p, const unsigned char *end, uint8_t asize)
{
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

/*
 * Whether the location list of attribute @a can be handed to libdw. libdw 0.188 reads a
 * DWARF 5 list's entries checking each expression's ULEB128 length as a signed value: a huge
 * length wraps its read pointer below the section end, and the next read faults (found by
 * fuzz_datatype; input in its corpus). So a list in .debug_loclists is walked here first,
 * every read bounds-checked and at most 65536 entries; anything malformed means "no
 * location". Expressions and DWARF 2-4 lists (.debug_loc: 2-byte lengths) need no check.
 */
bool hws__dt_loclist_ok(struct dfile *f, Dwarf_Attribute *a)
{
	Dwarf_Die cu;
	Dwarf_Half version;
	uint8_t asize, osize;
	Dwarf_Word off;
	Elf_Data *d;
	const unsigned char *p, *end;
	struct lcent *e;

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
	/* a list is walked once: variables' lists are asked for at every sampled PC */
	if (!f->lcache)
		f->lcache = calloc(LCACHE, sizeof(*f->lcache));
	if (!f->lcache)
		return loclist_walk(p, end, asize);
	e = &f->lcache[(((uintptr_t)p * 0x9E3779B97F4A7C15ULL) >> 40) & (LCACHE - 1)];
	if (e->p != p) {
		e->p = p;
		e->ok = loclist_walk(p, end, asize);
	}
	return e->ok;
}

/* the frame base of function @fn at @pc as (register, offset) */
bool hws__dt_frame_base(struct dfile *f, Dwarf_Die *fn, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &a) || !hws__dt_loclist_ok(f, &a) ||
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
int hws__dt_var_loc(struct dfile *f, Dwarf_Die *v, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	unsigned int at;

	if (!dwarf_attr_integrate(v, DW_AT_location, &a) || !hws__dt_loclist_ok(f, &a) ||
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
#endif
