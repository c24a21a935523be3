// SPDX-License-Identifier: MIT
/*
 * core/symbols: a file's symbols from its ELF symbol table (or from its separate
 * debuginfo, /usr/lib/debug/.build-id/) and its PLT ("name@plt"), its PT_LOAD segments, and
 * file:line from its DWARF through libdw (see symbols_int.h).
 *
 * Invariants:
 *  - a file's symbols, program headers and libelf / libdw handles exist only while it is
 *    DSO_LOADED; at most max_files are loaded, the least recently used one is unloaded
 *    first (a new cache generation: names handed out from it are gone);
 *  - a file that failed to load is not retried (DSO_FAILED);
 *  - names are demangled once, when the file loads (opts.no_demangle: never); PLT entries
 *    are read from the file itself (a separate debuginfo has no PLT contents);
 *  - names come from the recording: a path is opened without blocking (no FIFO waits, no
 *    controlling terminal) and read only if it is a regular file.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "symbols/symbols_core.h"
#include "symbols/symbols_int.h"
#include "util/internal.h"

void dso__unload(struct dso *d)
{
	dso__inl_free(d);
	if (d->dw)
		dwarf_end(d->dw);
	if (d->dbg_elf)
		elf_end(d->dbg_elf);
	if (d->elf)
		elf_end(d->elf);
	if (d->dbg_fd > 0)
		close(d->dbg_fd);
	if (d->fd > 0)
		close(d->fd);
	free(d->syms);
	free(d->names);
	free(d->a2l);
	d->a2l = NULL;
	d->nr_a2l = 0;
	d->a2l_state = 0;
	d->dw = NULL;
	d->dbg_elf = d->elf = d->sym_elf = NULL;
	d->dbg_fd = d->fd = -1;
	d->syms = NULL;
	d->names = NULL;
	d->nr_syms = d->names_len = 0;
	d->last[0] = d->last[1] = NULL;
	d->nr_loads = 0;
	d->dw_state = 0;
	if (d->state == DSO_LOADED)
		d->state = DSO_UNLOADED;
}

void dso__free(struct dso *d)
{
	dso__unload(d);
	free(d->path);
	free(d->bid);
	free(d->bid_copy);
	free(d);
}

static int names_add(struct dso *d, size_t *alloc, const char *name, uint32_t *off)
{
	size_t l = strlen(name) + 1;

	if (d->names_len + l > UINT32_MAX)
		return -E2BIG;
	if (d->names_len + l > *alloc) {
		size_t na = *alloc ? *alloc * 2 : 4096;
		char *p;
		while (na < d->names_len + l)
			na *= 2;
		p = realloc(d->names, na);
		if (!p)
			return -ENOMEM;
		d->names = p;
		*alloc = na;
	}
	memcpy(d->names + d->names_len, name, l);
	*off = (uint32_t)d->names_len;
	d->names_len += l;
	return 0;
}

static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			*out = sh;
			return scn;
		}
		if (sh.sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = sh;
		}
	}
	if (dyn)
		*out = dsh;
	return dyn;
}

static bool has_section(Elf *elf, uint32_t type, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		if (!gelf_getshdr(scn, &sh) || (type && sh.sh_type != type))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || (n && !strcmp(n, name)))
			return true;
	}
	return false;
}

/* NT_GNU_BUILD_ID as hex, or 0. */
static int build_id_hex(Elf *elf, char *out, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (noff = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			size_t n = 0;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz && nh.n_descsz * 2 < len) {
				const unsigned char *b = (const unsigned char *)data->d_buf + doff;
				for (size_t k = 0; k < nh.n_descsz; k++)
					n += (size_t)snprintf(out + n, len - n, "%02x", b[k]);
				return (int)n;
			}
			off = noff;
		}
	}
	return 0;
}

/* hws_symbols__open_input() with more open(2) @flags, and the file's stat in *st */
static int open_regular(const char *path, int flags, long long min_size, struct stat *st)
{
	/* names come from the recording: never block on a FIFO or read a device */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | flags);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_size < min_size) {
		close(fd);
		return -1;
	}
	return fd;
}

int hws_symbols__open_input(const char *path, long long min_size)
{
	struct stat st;

	return open_regular(path, 0, min_size, &st);
}

static Elf *open_elf(const char *path, int *fdp)
{
	int fd = hws_symbols__open_input(path, 64);
	Elf *elf;

	*fdp = -1;
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return elf;
}

int hws__file_build_id(const char *path, char *hex, size_t len)
{
	int fd, n;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = open_elf(path, &fd);
	if (!elf)
		return -ENOENT;
	n = build_id_hex(elf, hex, len);
	elf_end(elf);
	close(fd);
	return n;
}

int hws__mem_build_id(const void *buf, size_t size, char *hex, size_t len)
{
	Elf *elf;
	int n = 0;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)buf, size);
	if (!elf)
		return -EINVAL;
	if (elf_kind(elf) == ELF_K_ELF)
		n = build_id_hex(elf, hex, len);
	elf_end(elf);
	return n;
}

/* one symbol into @d's table (its name copied, or demangled when @demangle) */
static int sym_add(struct dso *d, size_t *cap, size_t *alloc_names, uint64_t start, uint64_t size,
		   uint8_t kind, uint8_t bind_rank, const char *name,
		   const struct hws_symbols_opts *o)
{
	char *dm = o->no_demangle ? NULL : hws__demangle(name, o->demangle_params);
	struct sym *y;
	int err;

	if (d->nr_syms == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		y = realloc(d->syms, nc * sizeof(*y));
		if (!y) {
			free(dm);
			return -ENOMEM;
		}
		d->syms = y;
		*cap = nc;
	}
	y = &d->syms[d->nr_syms];
	y->start = start;
	y->size = size;
	y->kind = kind;
	y->bind_rank = bind_rank;
	y->module = 0;
	err = names_add(d, alloc_names, dm ? dm : name, &y->name);
	free(dm);
	if (err)
		return err;
	d->nr_syms++;
	return 0;
}

Elf_Scn *hws_elf__section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * A GOT slot and the name of the function it is for (from a JUMP_SLOT / GLOB_DAT reloc);
 * an IRELATIVE slot (x86-64 .rela.plt: a call to an IFUNC of the same object, no symbol)
 * has @ifunc, the resolver's address, and gets the name of the IFUNC symbol there, or none
 */
struct got_slot {
	uint64_t addr;
	const char *name;
	uint64_t ifunc;
};

static int got_cmp(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* the JUMP_SLOT (and, with @glob_dat, GLOB_DAT) relocations of section @relname with a
 * named symbol, appended to *@slots */
static int got_slots(Elf *elf, const char *relname, bool glob_dat, bool irelative,
		     struct got_slot **slots, size_t *n, size_t *cap)
{
	Elf_Scn *rel, *dsym;
	GElf_Shdr rsh, dsh;
	Elf_Data *rd, *dd;
	size_t nrel;

	rel = hws_elf__section(elf, relname, &rsh);
	if (!rel || rsh.sh_type != SHT_RELA || !rsh.sh_entsize)
		return 0;
	dsym = elf_getscn(elf, rsh.sh_link);
	if (!dsym || !gelf_getshdr(dsym, &dsh))
		return 0;
	rd = elf_getdata(rel, NULL);
	dd = elf_getdata(dsym, NULL);
	if (!rd || !dd)
		return 0;
	nrel = rsh.sh_size / rsh.sh_entsize;
	if (nrel > MAX_SYMS)
		nrel = MAX_SYMS;
	for (size_t i = 0; i < nrel; i++) {
		GElf_Rela r;
		GElf_Sym es;
		const char *name;
		uint32_t type;

		if (!gelf_getrela(rd, (int)i, &r))
			break;
		type = (uint32_t)GELF_R_TYPE(r.r_info);
		if (irelative && type == R_X86_64_IRELATIVE) {
			name = NULL;
		} else if (type != R_X86_64_JUMP_SLOT && type != R_AARCH64_JUMP_SLOT &&
			   !(glob_dat && type == R_X86_64_GLOB_DAT)) {
			continue;
		} else {
			if (!GELF_R_SYM(r.r_info) ||
			    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &es))
				continue;
			name = elf_strptr(elf, dsh.sh_link, es.st_name);
			if (!name || !*name)
				continue;
		}
		if (*n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct got_slot *t = realloc(*slots, nc * sizeof(*t));
			if (!t)
				return -ENOMEM;
			*slots = t;
			*cap = nc;
		}
		(*slots)[(*n)++] =
		    (struct got_slot){r.r_offset, name, name ? 0 : (uint64_t)r.r_addend};
	}
	return 0;
}

static int ifunc_cmp(const void *a, const void *b)
{
	const struct got_slot *x = *(struct got_slot *const *)a, *y = *(struct got_slot *const *)b;

	return x->ifunc < y->ifunc ? -1 : x->ifunc > y->ifunc;
}

/*
 * Names for the IRELATIVE slots among @slots: the IFUNC symbol of .dynsym (or .symtab, in a
 * static executable) at the slot's resolver address, global before weak, as newer perf's
 * get_ifunc_name() does (perf 6.1 names such entries by their position in .rela.plt, wrongly
 * where IRELATIVE relocations are not in PLT order, as in glibc's libc.so.6)
 */
static int ifunc_names(Elf *elf, struct got_slot *slots, size_t n)
{
	static const uint32_t types[] = {SHT_DYNSYM, SHT_SYMTAB};
	struct got_slot **v;
	size_t nv = 0;

	for (size_t i = 0; i < n; i++)
		nv += !slots[i].name;
	if (!nv)
		return 0;
	v = malloc(nv * sizeof(*v));
	if (!v)
		return -ENOMEM;
	nv = 0;
	for (size_t i = 0; i < n; i++)
		if (!slots[i].name)
			v[nv++] = &slots[i];
	hws__qsort(v, nv, sizeof(*v), ifunc_cmp);
	for (size_t t = 0; t < ARRAY_SIZE(types); t++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			size_t ns;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != types[t] || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			if (!d)
				continue;
			ns = sh.sh_size / sh.sh_entsize;
			if (ns > MAX_SYMS)
				ns = MAX_SYMS;
			for (size_t k = 1; k < ns; k++) {
				GElf_Sym es;
				const char *name;
				size_t lo = 0, hi = nv;

				if (!gelf_getsym(d, (int)k, &es) ||
				    GELF_ST_TYPE(es.st_info) != STT_GNU_IFUNC)
					continue;
				while (lo < hi) {
					size_t mid = lo + (hi - lo) / 2;
					if (v[mid]->ifunc < es.st_value)
						lo = mid + 1;
					else
						hi = mid;
				}
				name = elf_strptr(elf, sh.sh_link, es.st_name);
				for (; name && *name && lo < nv && v[lo]->ifunc == es.st_value;
				     lo++)
					if (!v[lo]->name || GELF_ST_BIND(es.st_info) == STB_GLOBAL)
						v[lo]->name = name;
			}
		}
	}
	free(v);
	return 0;
}

static const struct got_slot *got_find(const struct got_slot *slots, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (slots[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && slots[lo].addr == addr ? &slots[lo] : NULL;
}

/* "name@plt" at @start, @size bytes */
static int plt_add(struct dso *d, size_t *cap, size_t *alloc_names, uint64_t start, uint64_t size,
		   const char *name, const struct hws_symbols_opts *o)
{
	char *dm = o->no_demangle ? NULL : hws__demangle(name, o->demangle_params);
	char buf[1024];
	int err;

	snprintf(buf, sizeof(buf), "%s@plt", dm ? dm : name);
	free(dm);
	/* already a name: not demangled again */
	err = sym_add(d, cap, alloc_names, start, size, HWS_SYM_FUNC, 0, buf,
		      &(struct hws_symbols_opts){.no_demangle = true});
	return err;
}

/*
 * Symbols for the PLT entries of @elf, "name@plt" as perf names them. x86-64: each entry of
 * .plt, .plt.sec and .plt.got jumps through a GOT slot ("jmp *disp(%rip)", ff 25, after an
 * endbr64 / bnd prefix with IBT), named by the JUMP_SLOT / GLOB_DAT relocation of that slot.
 * AArch64: the n-th 16-byte entry after .plt's 32-byte header is the n-th JUMP_SLOT of
 * .rela.plt. Other machines: none.
 */
static int plt_syms(struct dso *d, Elf *elf, size_t *cap, size_t *alloc_names,
		    const struct hws_symbols_opts *o)
{
	static const char *const secs[] = {".plt", ".plt.sec", ".plt.got"};
	struct got_slot *slots = NULL;
	size_t n = 0, scap = 0;
	GElf_Ehdr eh;
	int err;

	if (!gelf_getehdr(elf, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64))
		return 0;
	err = got_slots(elf, ".rela.plt", false, eh.e_machine == EM_X86_64, &slots, &n, &scap);
	if (!err && eh.e_machine == EM_X86_64)
		err = got_slots(elf, ".rela.dyn", true, false, &slots, &n, &scap);
	if (!err)
		err = ifunc_names(elf, slots, n);
	if (err || !n)
		goto out;
	if (eh.e_machine == EM_AARCH64) {
		GElf_Shdr sh;
		size_t k = 0;

		if (hws_elf__section(elf, ".plt", &sh) && sh.sh_type == SHT_PROGBITS)
			for (uint64_t a = sh.sh_addr + 32;
			     !err && k < n && a + 16 <= sh.sh_addr + sh.sh_size; a += 16, k++)
				err = plt_add(d, cap, alloc_names, a, 16, slots[k].name, o);
		goto out;
	}
	hws__qsort(slots, n, sizeof(*slots), got_cmp);
	for (size_t i = 0; !err && i < ARRAY_SIZE(secs); i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = hws_elf__section(elf, secs[i], &sh);
		Elf_Data *data;
		uint64_t es;

		if (!scn || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size < sh.sh_size)
			continue;
		/* no entry size: 8-byte entries if 8-aligned (a static executable's IFUNC .plt) */
		es = sh.sh_entsize >= 8 && sh.sh_entsize <= 32 ? sh.sh_entsize
		     : sh.sh_addralign == 8		       ? 8
							       : 16;
		for (uint64_t off = 0; !err && off + es <= sh.sh_size; off += es) {
			const unsigned char *p = (const unsigned char *)data->d_buf + off;

			/* the first "jmp *disp32(%rip)" of the entry */
			for (uint64_t j = 0; j + 6 <= es; j++) {
				int32_t disp;
				const struct got_slot *g;
				char oname[40];

				if (p[j] != 0xff || p[j + 1] != 0x25)
					continue;
				memcpy(&disp, p + j + 2, 4); /* x86-64 is little-endian */
				g = got_find(slots, n, sh.sh_addr + off + j + 6 + (int64_t)disp);
				if (g &&
				    !g->name) /* an IFUNC without a symbol: newer perf's name */
					snprintf(oname, sizeof(oname), "offset_%#" PRIx64,
						 sh.sh_offset + off);
				if (g)
					err = plt_add(d, cap, alloc_names, sh.sh_addr + off, es,
						      g->name ? g->name : oname, o);
				break;
			}
		}
	}
out:
	free(slots);
	return err;
}

/*
 * An untyped symbol perf takes as a function (its elf_sym__is_label() and text-section
 * filter): a label in a section whose name contains "text", not hidden or internal, not
 * absolute or common, not an Arm mapping symbol ($a, $d, $t, $x): ld.so's _dl_start_user and
 * _start, assembler entry points.
 */
static bool text_label(Elf *elf, const GElf_Sym *es, const char *name)
{
	int vis = GELF_ST_VISIBILITY(es->st_other);
	Elf_Scn *scn;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *sname;

	if (es->st_shndx == SHN_ABS || es->st_shndx == SHN_COMMON ||
	    es->st_shndx >= SHN_LORESERVE || vis == STV_HIDDEN || vis == STV_INTERNAL)
		return false;
	if (name[0] == '$' && name[1] && strchr("adtx", name[1]) &&
	    (name[2] == '\0' || name[2] == '.'))
		return false;
	scn = elf_getscn(elf, es->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	sname = elf_strptr(elf, shstrndx, sh.sh_name);
	return sname && strstr(sname, "text");
}

/* the symbols of @d: those of @elf's symbol table, and the PLT entries of @d's own file */
static int read_syms(struct hws_symbols *s, struct dso *d, Elf *elf)
{
	size_t alloc_names = 0, n, cap = 0;
	Elf_Data *data;
	Elf_Scn *scn;
	GElf_Shdr sh;
	int err;

	scn = find_symtab(elf, &sh);
	data = scn && sh.sh_entsize ? elf_getdata(scn, NULL) : NULL;
	n = data ? sh.sh_size / sh.sh_entsize : 0;
	if (n > MAX_SYMS)
		n = MAX_SYMS;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym es;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &es))
			break;
		type = GELF_ST_TYPE(es.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT &&
		    type != STT_NOTYPE)
			continue;
		if (es.st_shndx == SHN_UNDEF || !es.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, es.st_name);
		if (!name || !*name)
			continue;
		if (type == STT_NOTYPE) {
			if (!text_label(elf, &es, name))
				continue;
			type = STT_FUNC;
		}
		err = sym_add(d, &cap, &alloc_names, es.st_value, es.st_size,
			      type == STT_OBJECT ? HWS_SYM_OBJECT : HWS_SYM_FUNC,
			      GELF_ST_BIND(es.st_info) == STB_GLOBAL ? SYM_BIND_GLOBAL
			      : GELF_ST_BIND(es.st_info) == STB_WEAK ? SYM_BIND_WEAK
								     : SYM_BIND_LOCAL,
			      name, &s->opts);
		if (err)
			return err;
	}
	if (d->elf && plt_syms(d, d->elf, &cap, &alloc_names, &s->opts))
		return -ENOMEM;
	dso__finish_syms(d, 0, false);
	return 0;
}

static void make_room(struct hws_symbols *s)
{
	size_t victim = 0;

	if (s->nr_loaded < s->opts.max_files)
		return;
	for (size_t i = 1; i < s->nr_loaded; i++)
		if (s->loaded[i]->lru < s->loaded[victim]->lru)
			victim = i;
	dso__unload(s->loaded[victim]);
	new_gen(s); /* cached names of that file are gone */
	s->st.files_unloaded++;
	s->loaded[victim] = s->loaded[--s->nr_loaded];
}

#define PERFMAP_MAX ((off_t)1 << 30) /* bytes of a JIT's map file read at most */

/*
 * A JIT's symbols from its perf map (d->path, "/tmp/perf-PID.map"), as perf reads them
 * (dso__load_perf_map()): lines "START SIZE NAME", START and SIZE hex (strtoull), one
 * separator after each, NAME the rest of the line; a line whose name would be under three
 * bytes is skipped, and so is a symbol of size 0 (perf's lookup never finds one). Addresses
 * are the process's own. Whoever owns it (perf 6.1 reads a map of a process of another
 * user, as when root profiles a service), but only a regular file, never through a symlink,
 * and at most PERFMAP_MAX bytes. 0, or -ENOENT.
 */
static int perfmap_load(struct dso *d)
{
	const struct hws_symbols_opts raw = {.sz = sizeof(raw), .no_demangle = true};
	size_t cap = 0, alloc_names = 0;
	char *buf = NULL, *p, *end;
	struct stat st;
	ssize_t got = 0;
	int fd = open_regular(d->path, O_NOFOLLOW, 0, &st);

	if (fd < 0)
		return -ENOENT;
	if (st.st_size > PERFMAP_MAX) {
		close(fd);
		return -ENOENT;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && got < st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)(st.st_size - got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (!buf)
		return -ENOENT;
	buf[got] = 0;
	for (p = buf; p < buf + got; p = end + 1) {
		unsigned long long start, size;
		char *q, *name;

		end = memchr(p, '\n', (size_t)(buf + got - p));
		if (!end)
			end = buf + got;
		*end = 0;
		start = strtoull(p, &q, 16);
		if (q + 3 >= end) /* the separator, then a name of three bytes or more */
			continue;
		size = strtoull(q + 1, &name, 16);
		if (name + 3 >= end || !size || start + size < start)
			continue;
		if (d->nr_syms >= MAX_SYMS ||
		    sym_add(d, &cap, &alloc_names, start, size, HWS_SYM_FUNC, SYM_BIND_GLOBAL,
			    name + 1, &raw)) {
			free(buf);
			return -ENOENT;
		}
	}
	free(buf);
	dso__finish_syms(d, 0, false);
	return 0;
}

int dso__load(struct hws_symbols *s, struct dso *d)
{
	char bid[128], dbg[512];
	GElf_Ehdr eh;
	size_t nph;

	make_room(s);
	if (d->perfmap) {
		if (perfmap_load(d))
			goto fail;
		goto loaded;
	}
	d->elf = open_elf(d->path, &d->fd);
	/* the file recorded, as perf finds it: the one at its path when its build-id is the
	 * recorded one, else perf's build-id cache copy; never another file of that name */
	if (d->bid &&
	    (!d->elf || build_id_hex(d->elf, bid, sizeof(bid)) <= 0 || strcmp(bid, d->bid))) {
		if (d->elf) {
			elf_end(d->elf);
			close(d->fd);
			d->elf = NULL;
			d->fd = -1;
		}
		if (d->bid_copy)
			d->elf = open_elf(d->bid_copy, &d->fd);
	}
	if (!d->elf || !gelf_getehdr(d->elf, &eh))
		goto fail;
	if (!elf_getphdrnum(d->elf, &nph)) {
		for (size_t i = 0; i < nph && d->nr_loads < MAX_LOADS; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(d->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			d->loads[d->nr_loads++] =
			    (struct load_seg){ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz};
		}
	}
	/* Separate debuginfo (Debian -dbgsym) when the file has no full symtab or no DWARF. */
	if ((!has_section(d->elf, SHT_SYMTAB, NULL) ||
	     (s->opts.srcline && !has_section(d->elf, 0, ".debug_info"))) &&
	    build_id_hex(d->elf, bid, sizeof(bid)) > 2) {
		snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", bid, bid + 2);
		d->dbg_elf = open_elf(dbg, &d->dbg_fd);
	}
	d->sym_elf = d->dbg_elf && has_section(d->dbg_elf, SHT_SYMTAB, NULL) ? d->dbg_elf : d->elf;
	if (read_syms(s, d, d->sym_elf))
		goto fail;
loaded:
	d->state = DSO_LOADED;
	s->loaded[s->nr_loaded++] = d;
	s->st.files_loaded++;
	return 0;
fail:
	dso__unload(d);
	d->state = DSO_FAILED;
	s->st.files_failed++;
	pr_debug("symbols: cannot load %s\n", d->path);
	return -ENOENT;
}

void dso__srcline(struct dso *d, uint64_t vaddr, struct hws_symbol *out)
{
	if (!d->dw_state) {
		d->dw = d->dbg_elf ? dwarf_begin_elf(d->dbg_elf, DWARF_C_READ, NULL) : NULL;
		if (!d->dw)
			d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
		d->dw_state = d->dw ? 1 : -1;
		if (!d->dw)
			return;
	}
	Dwarf_Die cu;
	if (dwarf_addrdie(d->dw, vaddr, &cu)) {
		Dwarf_Line *l = dwarf_getsrc_die(&cu, vaddr);
		int line = 0;
		if (l && !dwarf_lineno(l, &line)) {
			out->srcfile = dwarf_linesrc(l, NULL, NULL);
			out->line = line > 0 ? (uint32_t)line : 0;
		}
	}
}

/* a function symbol as binutils' addr2line sees it (dso__a2l_file()) */
struct a2l_sym {
	uint64_t start, size;
	const char *file; /* the STT_FILE before a local symbol; NULL for others */
	size_t shndx, idx;
};

static int a2l_cmp(const void *a, const void *b)
{
	const struct a2l_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int a2l_read(struct dso *d)
{
	Elf *e = d->sym_elf;
	const char *file = NULL;
	size_t n, cap = 0;
	Elf_Data *data;
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (!e || !has_section(e, 0, ".debug_line") || !(scn = find_symtab(e, &sh)) ||
	    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return -1;
	n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n && i < MAX_SYMS; i++) {
		GElf_Sym es;
		int type;

		if (!gelf_getsym(data, (int)i, &es))
			break;
		type = GELF_ST_TYPE(es.st_info);
		if (type == STT_FILE) {
			file = elf_strptr(e, sh.sh_link, es.st_name);
			continue;
		}
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || es.st_shndx == SHN_UNDEF ||
		    es.st_shndx >= SHN_LORESERVE)
			continue;
		if (d->nr_a2l == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct a2l_sym *t = realloc(d->a2l, nc * sizeof(*t));

			if (!t)
				return -1;
			d->a2l = t;
			cap = nc;
		}
		d->a2l[d->nr_a2l++] = (struct a2l_sym){
		    es.st_value, es.st_size, GELF_ST_BIND(es.st_info) == STB_LOCAL ? file : NULL,
		    es.st_shndx, i};
	}
	if (!d->nr_a2l)
		return -1;
	qsort(d->a2l, d->nr_a2l, sizeof(*d->a2l), a2l_cmp);
	return 1;
}

const char *dso__a2l_file(struct dso *d, uint64_t vaddr)
{
	Elf *e = d->sym_elf;
	Elf_Scn *scn = NULL;
	const struct a2l_sym *best = NULL;
	size_t lo = 0, hi;
	GElf_Shdr sh;

	if (!d->a2l_state)
		d->a2l_state = a2l_read(d);
	if (d->a2l_state < 0)
		return NULL;
	/* the first allocated section holding it, as addr2line looks through them */
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    vaddr - sh.sh_addr < sh.sh_size)
			break;
	if (!scn)
		return NULL;
	hi = d->nr_a2l;
	while (lo < hi) { /* lo: the first symbol starting above vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (d->a2l[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the nearest of that section at or below vaddr, whatever its size (of equal starts,
	 * the first of the largest size) */
	for (size_t k = lo; k-- > 0 && d->a2l[k].start >= sh.sh_addr;) {
		const struct a2l_sym *y = &d->a2l[k];

		if (y->shndx != elf_ndxscn(scn))
			continue;
		if (best && y->start != best->start)
			break;
		if (!best || y->size >= best->size)
			best = y;
	}
	if (!best)
		return NULL;
	return best->file ? best->file : "??";
}
