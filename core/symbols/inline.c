// SPDX-License-Identifier: MIT
/*
 * core/symbols: the functions inlined at a code address, from the file's DWARF through
 * libdw, as perf's inline stack (its dso__parse_addr_inlines(): addr2line -i -f) gives them:
 * innermost first, each with its source line, then the function they are all inlined into.
 *
 * Invariants:
 *  - answers are cached per (file, file address) while the file is loaded (struct dso's
 *    inl, freed by dso__unload()): resolving an address again costs a hash lookup; an
 *    address without DWARF answers 0 and is cached too;
 *  - names are DWARF's linkage name (DW_AT_linkage_name, as binutils' addr2line prefers it),
 *    else DW_AT_name, through the abstract origin; demangled as the file's ELF names are;
 *  - the strings are copies owned by the cache: valid until the file unloads (the next
 *    hws_symbols__* call may do that);
 *  - at most MAX_INL functions per address, MAX_ENTRIES cached addresses per file (the
 *    cache is emptied when full): bounded memory and time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "symbols/symbols_core.h"
#include "symbols/symbols_int.h"

#define MAX_INL	    64
#define MAX_ENTRIES (1u << 20)

struct inl_ent {
	uint64_t vaddr;
	uint32_t first; /* index into fr */
	uint16_t n;
	uint8_t used;
};

struct inl_cache {
	struct inl_ent *tab;
	size_t size, nr; /* power-of-two table, at most half full */
	struct hws_inline_frame *fr;
	size_t nfr, afr;
	char **strs;
	size_t nstrs, astrs;
};

void dso__inl_free(struct dso *d)
{
	struct inl_cache *c = d->inl;

	if (!c)
		return;
	for (size_t i = 0; i < c->nstrs; i++)
		free(c->strs[i]);
	free(c->strs);
	free(c->fr);
	free(c->tab);
	free(c);
	d->inl = NULL;
}

static Dwarf *dso_dwarf(struct dso *d)
{
	if (!d->dw_state) {
		d->dw = d->dbg_elf ? dwarf_begin_elf(d->dbg_elf, DWARF_C_READ, NULL) : NULL;
		if (!d->dw && d->elf)
			d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
		d->dw_state = d->dw ? 1 : -1;
	}
	return d->dw_state > 0 ? d->dw : NULL;
}

static inline size_t ent_slot(uint64_t vaddr, size_t size)
{
	return (size_t)((vaddr * 0x9E3779B97F4A7C15ULL) >> 20) & (size - 1);
}

static int cache_grow(struct inl_cache *c)
{
	size_t ns = c->size ? c->size * 2 : 1024;
	struct inl_ent *t = calloc(ns, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t j = 0; j < c->size; j++) {
		size_t i;

		if (!c->tab[j].used)
			continue;
		for (i = ent_slot(c->tab[j].vaddr, ns); t[i].used; i = (i + 1) & (ns - 1))
			;
		t[i] = c->tab[j];
	}
	free(c->tab);
	c->tab = t;
	c->size = ns;
	return 0;
}

/* a copy of @s owned by the cache (@owned: a malloc'ed one to keep); NULL for NULL, and on
 * -ENOMEM with *err set */
static const char *keep(struct inl_cache *c, const char *s, char *owned, int *err)
{
	char *p;

	if (!s && !owned)
		return NULL;
	if (c->nstrs == c->astrs) {
		size_t na = c->astrs ? c->astrs * 2 : 64;
		char **v = realloc(c->strs, na * sizeof(*v));

		if (!v) {
			free(owned);
			*err = -ENOMEM;
			return NULL;
		}
		c->strs = v;
		c->astrs = na;
	}
	p = owned ? owned : strdup(s);
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	c->strs[c->nstrs++] = p;
	return p;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)) &&
	    (s = dwarf_formstring(&a)))
		return s;
	if (dwarf_attr_integrate(die, DW_AT_name, &a) && (s = dwarf_formstring(&a)))
		return s;
	return NULL;
}

/* DW_AT_call_file / DW_AT_call_line of inlined call @die */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, const char **file, uint32_t *line)
{
	Dwarf_Attribute a;
	Dwarf_Word f = 0, l = 0;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (!dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &f))
		return;
	if (dwarf_attr(die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &l))
		*line = (uint32_t)l;
	if (!dwarf_getsrcfiles(cu, &files, &nfiles) && f < nfiles)
		*file = dwarf_filesrc(files, f, NULL, NULL);
}

/* the function scopes holding @pc under @parent, outermost first, at most @max into @out */
static void walk_scopes(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int *n, int max,
			int depth)
{
	Dwarf_Die c;

	if (depth > 2 * MAX_INL || dwarf_child(parent, &c))
		return;
	do {
		int tag = dwarf_tag(&c);
		bool func = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine;

		if (tag == DW_TAG_namespace) {
			walk_scopes(&c, pc, out, n, max, depth + 1);
			if (*n)
				return;
			continue;
		}
		if (!func && tag != DW_TAG_lexical_block)
			continue;
		if (dwarf_haspc(&c, pc) != 1)
			continue;
		if (func) {
			/* aliases: GNU as gives each name of an assembler function (__munmap,
			 * __GI_munmap, ...) a subprogram of the same range, one after another;
			 * binutils' addr2line, which perf 6.1 asks, names the last (of equal
			 * ranges, the DIE read last) */
			Dwarf_Die nx = c;

			while (!dwarf_siblingof(&nx, &nx) && dwarf_tag(&nx) == tag &&
			       dwarf_haspc(&nx, pc) == 1)
				c = nx;
		}
		if (func && *n < max)
			out[(*n)++] = c;
		walk_scopes(&c, pc, out, n, max, depth + 1);
		return;
	} while (!dwarf_siblingof(&c, &c));
}

int hws_dwarf__walk_scopes(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int max)
{
	int n = 0;

	walk_scopes(parent, pc, out, &n, max, 0);
	return n;
}

/*
 * The function scopes at @vaddr, innermost first, ending with the subprogram they are in:
 * their count. Walked down the concrete DIE tree from the unit (dwarf_getscopes() follows an
 * inlined call into its abstract definition instead, and libdw 0.188's leaks memory there).
 */
static int func_scopes(Dwarf *dw, uint64_t vaddr, Dwarf_Die *cu, Dwarf_Die *out)
{
	Dwarf_Die tmp[MAX_INL];
	int m = 0;

	if (!dwarf_addrdie(dw, vaddr, cu))
		return 0;
	m = hws_dwarf__walk_scopes(cu, vaddr, tmp, MAX_INL);
	if (!m || dwarf_tag(&tmp[0]) != DW_TAG_subprogram)
		return 0;
	for (int k = 0; k < m; k++)
		out[k] = tmp[m - 1 - k];
	return m;
}

/* fill a new entry for @vaddr: 0 or -ENOMEM */
static int compute(struct hws_symbols *s, struct dso *d, struct inl_cache *c, uint64_t vaddr,
		   const char *sym_name, struct inl_ent *e)
{
	Dwarf *dw = dso_dwarf(d);
	Dwarf_Die cu, sc[MAX_INL];
	int n = dw ? func_scopes(dw, vaddr, &cu, sc) : 0, err = 0;

	e->first = (uint32_t)c->nfr;
	e->n = 0;
	if (n <= 0)
		return 0;
	if (c->nfr + (size_t)n > c->afr) {
		size_t na = c->afr ? c->afr * 2 : 256;
		struct hws_inline_frame *v;

		while (na < c->nfr + (size_t)n)
			na *= 2;
		v = realloc(c->fr, na * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->fr = v;
		c->afr = na;
	}
	for (int i = 0; i < n && !err; i++) {
		struct hws_inline_frame *f = &c->fr[c->nfr + (size_t)i];
		const char *name = die_name(&sc[i]), *file = NULL;
		char *dm = NULL;
		uint32_t line = 0;

		if (i == 0) {
			Dwarf_Line *l = dwarf_getsrc_die(&cu, vaddr);
			int ln = 0;

			if (l && !dwarf_lineno(l, &ln)) {
				file = dwarf_linesrc(l, NULL, NULL);
				line = ln > 0 ? (uint32_t)ln : 0;
			}
		} else {
			call_site(&cu, &sc[i - 1], &file, &line);
		}
		if (name && !s->opts.no_demangle)
			dm = hws__demangle(name, s->opts.demangle_params);
		f->name = keep(c, name ? name : "??", dm, &err);
		f->srcfile = err ? NULL : keep(c, file, NULL, &err);
		f->line = line;
		/* perf: an entry naming the ELF symbol is that symbol, the others are inlined */
		f->inlined = !sym_name || !f->name || strcmp(f->name, sym_name);
	}
	if (err)
		return err;
	c->nfr += (size_t)n;
	e->n = (uint16_t)n;
	return 0;
}

int dso__inlines(struct hws_symbols *s, struct dso *d, uint64_t vaddr, const char *sym_name,
		 const struct hws_inline_frame **out)
{
	struct inl_cache *c = d->inl;
	struct inl_ent *e;
	size_t i;
	int err;

	*out = NULL;
	if (!c) {
		c = d->inl = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
	}
	if (c->nr >= MAX_ENTRIES) { /* bounded: start over */
		struct inl_cache *fresh = calloc(1, sizeof(*fresh));

		if (!fresh)
			return -ENOMEM;
		dso__inl_free(d);
		c = d->inl = fresh;
	}
	if ((c->nr + 1) * 2 > c->size && cache_grow(c))
		return -ENOMEM;
	for (i = ent_slot(vaddr, c->size); c->tab[i].used; i = (i + 1) & (c->size - 1)) {
		if (c->tab[i].vaddr == vaddr) {
			e = &c->tab[i];
			goto found;
		}
	}
	e = &c->tab[i];
	err = compute(s, d, c, vaddr, sym_name, e);
	if (err)
		return err;
	e->vaddr = vaddr;
	e->used = 1;
	c->nr++;
found:
	if (e->n)
		*out = &c->fr[e->first];
	return e->n;
}
