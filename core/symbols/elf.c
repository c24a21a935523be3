// SPDX-License-Identifier: MIT
/*
 * core/symbols: a file's symbols from its ELF symbol table (or from its separate
 * debuginfo, /usr/lib/debug/.build-id/), its PT_LOAD segments, and file:line from its DWARF
 * through libdw (see symbols_int.h).
 *
 * Invariants:
 *  - a file's symbols, program headers and libelf / libdw handles exist only while it is
 *    DSO_LOADED; at most max_files are loaded, the least recently used one is unloaded
 *    first (a new cache generation: names handed out from it are gone);
 *  - a file that failed to load is not retried (DSO_FAILED);
 *  - names come from the recording: a path is opened without blocking (no FIFO waits, no
 *    controlling terminal) and read only if it is a regular file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "symbols/symbols_int.h"
#include "util/internal.h"

void dso__unload(struct dso *d)
{
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
	d->dw = NULL;
	d->dbg_elf = d->elf = NULL;
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

static Elf *open_elf(const char *path, int *fdp)
{
	/* names come from the recording: never block on a FIFO or read a device */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	Elf *elf;

	*fdp = -1;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 64) {
		close(fd);
		return NULL;
	}
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

static int read_syms(struct dso *d, Elf *elf)
{
	size_t alloc_names = 0, n, cap = 0;
	Elf_Data *data;
	Elf_Scn *scn;
	GElf_Shdr sh;

	scn = find_symtab(elf, &sh);
	if (!scn || !sh.sh_entsize)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data)
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	if (n > MAX_SYMS)
		n = MAX_SYMS;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym es;
		const char *name;
		int type;
		struct sym *y;

		if (!gelf_getsym(data, (int)i, &es))
			break;
		type = GELF_ST_TYPE(es.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
			continue;
		if (es.st_shndx == SHN_UNDEF || !es.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, es.st_name);
		if (!name || !*name)
			continue;
		if (d->nr_syms == cap) {
			size_t nc = cap ? cap * 2 : 256;
			y = realloc(d->syms, nc * sizeof(*y));
			if (!y)
				return -ENOMEM;
			d->syms = y;
			cap = nc;
		}
		y = &d->syms[d->nr_syms];
		y->start = es.st_value;
		y->size = es.st_size;
		y->kind = type == STT_OBJECT ? HWS_SYM_OBJECT : HWS_SYM_FUNC;
		y->bind_rank = GELF_ST_BIND(es.st_info) == STB_GLOBAL ? 0
			       : GELF_ST_BIND(es.st_info) == STB_WEAK ? 1
								      : 2;
		if (names_add(d, &alloc_names, name, &y->name))
			return -ENOMEM;
		d->nr_syms++;
	}
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

int dso__load(struct hws_symbols *s, struct dso *d)
{
	char bid[128], dbg[512];
	GElf_Ehdr eh;
	size_t nph;

	make_room(s);
	d->elf = open_elf(d->path, &d->fd);
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
	if (read_syms(d, d->dbg_elf && has_section(d->dbg_elf, SHT_SYMTAB, NULL) ? d->dbg_elf
										 : d->elf))
		goto fail;
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
