// SPDX-License-Identifier: MIT
/*
 * Process maps and ELF symbol lookup (see include/hwsample/symbols.h).
 *
 * Invariants:
 *  - each process's maps are sorted by start and never overlap: a new mapping cuts the old
 *    ones it covers (as mmap(MAP_FIXED) does in the kernel);
 *  - a file (struct dso) is interned once by path; its symbols, program headers and libelf /
 *    libdw handles exist only while it is "loaded"; at most max_files are loaded, the least
 *    recently used one is unloaded first, so name pointers handed out are only valid until
 *    the next lookup;
 *  - a file that failed to load is not retried (state DSO_FAILED);
 *  - a dso's symbol array is sorted by start address, one entry per address (global binding
 *    wins over weak over local), sizes of size-0 functions extend to the next symbol.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include <hwsample/errors.h>
#include <hwsample/symbols.h>

#include "util/internal.h"

#define MAX_LOADS	  16	     /* PT_LOAD segments kept per file */
#define MAX_SYMS	  (8u << 20) /* symbols per file (bounded memory) */
#define MAX_MAPS_PER_PROC 65536u     /* mappings per process */
#define KERNEL_PID	  ((uint32_t)-1)

enum dso_state { DSO_UNLOADED = 0, DSO_LOADED, DSO_FAILED, DSO_SPECIAL };

struct sym {
	uint64_t start;
	uint64_t size;
	uint32_t name; /* offset into dso->names */
	uint8_t kind;  /* enum hws_sym_kind */
	uint8_t bind_rank;
	uint8_t module; /* kallsyms: the line had a [module] tag */
};

struct load_seg {
	uint64_t off, vaddr, filesz, memsz;
};

struct dso {
	char *path;
	struct dso *hnext;
	int state;
	uint64_t lru;
	struct sym *syms;
	size_t nr_syms;
	char *names;
	size_t names_len;
	struct load_seg loads[MAX_LOADS];
	int nr_loads;
	int fd, dbg_fd;
	Elf *elf, *dbg_elf;
	Dwarf *dw;
	int dw_state;		   /* 0 not tried, 1 open, -1 none */
	const struct sym *last[2]; /* last hit for code / data lookups (reset on unload) */
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct proc {
	uint32_t pid;
	char comm[32];
	struct proc *hnext;
	struct map *maps;
	size_t nr, alloc;
};

/* Direct-mapped cache of lookups, keyed by (pid, address, data): the dump path resolves
 * every sample and most samples repeat a recent address. An entry is valid while its
 * generation is the table's: any side-band change (mmap, exec, fork) and any file unload
 * (names it points to are freed) starts a new generation. */
#define RCACHE_BITS 12
#define RCACHE_SIZE (1u << RCACHE_BITS)

struct rcache {
	uint64_t addr;
	uint32_t pid;
	uint32_t gen; /* 0: never filled */
	uint8_t data;
	int8_t ret;
	struct dso *touched; /* its LRU tick is refreshed on a hit, as the lookup would */
	struct hws_symbol sym;
};

/* Recent answers that hold over a range (a function, a heap): a lookup inside one is the
 * cached answer moved by the distance. Same validity rule as struct rcache. */
#define NR_RANGES 8

struct rrange {
	uint64_t lo, hi, addr; /* [lo, hi] holds the answer for @addr */
	uint32_t pid, gen;
	uint8_t data;
	int8_t ret;
	struct dso *touched;
	struct hws_symbol sym;
};

struct hws_symbols {
	struct hws_symbols_opts opts;
	struct proc **procs;
	size_t nr_procs, proc_buckets;
	struct dso **dsos;
	size_t nr_dsos, dso_buckets;
	struct dso **loaded; /* max_files entries */
	size_t nr_loaded;
	uint64_t tick;
	struct dso *kallsyms; /* DSO_LOADED when in use, else NULL */
	int ks_fd;	      /* kallsyms file read at the first kernel lookup, or -1 */
	char *ks_buf;	      /* its first bytes, already read */
	size_t ks_len, ks_alloc;
	char *ks_copy;	      /* a copy to read instead of the rest of ks_fd, if it matches */
	char *ks_modules;     /* the module list the copy's module symbols must match */
	size_t ks_probe;      /* bytes of ks_fd the copy was found equal to */
	/* relocation: where the recording saw the kernel's reference symbol (the kernel MMAP
	 * "[kernel.kallsyms]_text", pgoff), and where the kallsyms in use puts it */
	char kref_name[32];
	uint64_t kref_addr;	 /* 0: unknown */
	uint64_t ks_text, ks_stext; /* _text and _stext in the kallsyms, 0 if absent */
	bool ks_relocated;	 /* the kallsyms in use was compared with kref (and moved) */
	struct hws_symbols_stats st;
	struct rcache *cache; /* RCACHE_SIZE lookups, allocated at the first one */
	struct rrange ranges[NR_RANGES];
	unsigned int next_range; /* replaced next (round robin) */
	uint32_t gen;	      /* cache generation: bumped when any answer may change */
	struct dso *touched;  /* file whose LRU tick the current lookup refreshed */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static uint64_t hash_u32(uint32_t v)
{
	uint64_t h = v * 0x9E3779B97F4A7C15ULL;

	return h ^ (h >> 29);
}

struct hws_symbols *hws_symbols__new(const struct hws_symbols_opts *opts)
{
	struct hws_symbols *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	err = HWS_OPTS_GET(s->opts, opts, hws_symbols_opts);
	if (err) {
		free(s);
		return errno = -err, NULL;
	}
	s->gen = 1;
	s->ks_fd = -1;
	if (!s->opts.max_files)
		s->opts.max_files = 64;
	s->proc_buckets = 256;
	s->dso_buckets = 256;
	s->procs = calloc(s->proc_buckets, sizeof(*s->procs));
	s->dsos = calloc(s->dso_buckets, sizeof(*s->dsos));
	s->loaded = calloc(s->opts.max_files, sizeof(*s->loaded));
	if (!s->procs || !s->dsos || !s->loaded) {
		hws_symbols__delete(s);
		errno = ENOMEM;
		return NULL;
	}
	elf_version(EV_CURRENT);
	return s;
}

static void dso_unload(struct dso *d)
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

static void dso_free(struct dso *d)
{
	dso_unload(d);
	free(d->path);
	free(d);
}

static void kallsyms_drop(struct hws_symbols *s);
static void kallsyms_finish(struct hws_symbols *s);
static void kernel_ref(struct hws_symbols *s, const char *name, uint64_t addr);

void hws_symbols__delete(struct hws_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->procs && i < s->proc_buckets; i++) {
		struct proc *p = s->procs[i], *n;
		for (; p; p = n) {
			n = p->hnext;
			free(p->maps);
			free(p);
		}
	}
	for (size_t i = 0; s->dsos && i < s->dso_buckets; i++) {
		struct dso *d = s->dsos[i], *n;
		for (; d; d = n) {
			n = d->hnext;
			dso_free(d);
		}
	}
	kallsyms_drop(s);
	free(s->procs);
	free(s->dsos);
	free(s->loaded);
	free(s->cache);
	free(s);
}

/* every cached lookup is stale from now on */
static void new_gen(struct hws_symbols *s)
{
	if (++s->gen == 0) {
		if (s->cache)
			memset(s->cache, 0, RCACHE_SIZE * sizeof(*s->cache));
		memset(s->ranges, 0, sizeof(s->ranges));
		s->gen = 1;
	}
}

/* ------------------------------------------------------------------ tables */

static int rehash_procs(struct hws_symbols *s)
{
	size_t nb = s->proc_buckets * 2;
	struct proc **t = calloc(nb, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < s->proc_buckets; i++) {
		struct proc *p = s->procs[i], *n;
		for (; p; p = n) {
			size_t h = hash_u32(p->pid) & (nb - 1);
			n = p->hnext;
			p->hnext = t[h];
			t[h] = p;
		}
	}
	free(s->procs);
	s->procs = t;
	s->proc_buckets = nb;
	return 0;
}

static struct proc *proc_find(struct hws_symbols *s, uint32_t pid)
{
	struct proc *p = s->procs[hash_u32(pid) & (s->proc_buckets - 1)];

	for (; p; p = p->hnext)
		if (p->pid == pid)
			return p;
	return NULL;
}

static struct proc *proc_get(struct hws_symbols *s, uint32_t pid)
{
	struct proc *p = proc_find(s, pid);
	size_t h;

	if (p)
		return p;
	if (s->nr_procs >= s->proc_buckets * 2 && rehash_procs(s))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	h = hash_u32(pid) & (s->proc_buckets - 1);
	p->hnext = s->procs[h];
	s->procs[h] = p;
	s->nr_procs++;
	s->st.procs++;
	return p;
}

static bool special_path(const char *path)
{
	return path[0] != '/' || !strncmp(path, "//anon", 6) || !strncmp(path, "/dev/", 5) ||
	       !strncmp(path, "/memfd:", 7) || !strncmp(path, "/SYSV", 5) ||
	       strstr(path, " (deleted)");
}

static struct dso *dso_get(struct hws_symbols *s, const char *path)
{
	uint64_t hv = hash_str(path);
	struct dso *d = s->dsos[hv & (s->dso_buckets - 1)];

	for (; d; d = d->hnext)
		if (!strcmp(d->path, path))
			return d;
	if (s->nr_dsos >= s->dso_buckets * 2) {
		size_t nb = s->dso_buckets * 2;
		struct dso **t = calloc(nb, sizeof(*t));
		if (!t)
			return NULL;
		for (size_t i = 0; i < s->dso_buckets; i++) {
			struct dso *x = s->dsos[i], *n;
			for (; x; x = n) {
				n = x->hnext;
				x->hnext = t[hash_str(x->path) & (nb - 1)];
				t[hash_str(x->path) & (nb - 1)] = x;
			}
		}
		free(s->dsos);
		s->dsos = t;
		s->dso_buckets = nb;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	d->fd = d->dbg_fd = -1;
	d->state = (s->opts.no_elf || special_path(path)) ? DSO_SPECIAL : DSO_UNLOADED;
	d->hnext = s->dsos[hv & (s->dso_buckets - 1)];
	s->dsos[hv & (s->dso_buckets - 1)] = d;
	s->nr_dsos++;
	return d;
}

int hws_symbols__comm(struct hws_symbols *s, uint32_t pid, uint32_t tid, const char *comm,
		      bool exec)
{
	struct proc *p = proc_get(s, pid);

	if (!p)
		return -ENOMEM;
	if (exec && pid == tid) {
		/* exec replaced the address space: the new MMAP records follow */
		p->nr = 0;
		new_gen(s);
	}
	if (pid == tid || !p->comm[0])
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	return 0;
}

int hws_symbols__fork(struct hws_symbols *s, uint32_t pid, uint32_t ppid)
{
	struct proc *parent, *child;

	if (pid == ppid)
		return 0; /* a new thread shares the maps */
	new_gen(s);
	parent = proc_find(s, ppid);
	child = proc_get(s, pid);
	if (!child)
		return -ENOMEM;
	child->nr = 0;
	if (!parent || !parent->nr)
		return 0;
	if (child->alloc < parent->nr) {
		struct map *m = realloc(child->maps, parent->nr * sizeof(*m));
		if (!m)
			return -ENOMEM;
		child->maps = m;
		child->alloc = parent->nr;
	}
	memcpy(child->maps, parent->maps, parent->nr * sizeof(*child->maps));
	child->nr = parent->nr;
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	return 0;
}

const char *hws_symbols__pid_comm(struct hws_symbols *s, uint32_t pid)
{
	struct proc *p = proc_find(s, pid);

	return p && p->comm[0] ? p->comm : NULL;
}

/* First map whose end is above @addr. */
static size_t map_lower(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int hws_symbols__mmap(struct hws_symbols *s, uint32_t pid, uint64_t start, uint64_t len,
		      uint64_t pgoff, const char *filename)
{
	struct map nm, left = {0}, right = {0};
	bool has_left = false, has_right = false;
	struct proc *p;
	size_t i, j, add;

	if (!len || start + len < start)
		return 0;
	if (pid == KERNEL_PID && filename && !strncmp(filename, "[kernel.kallsyms]", 17))
		kernel_ref(s, filename + 17, pgoff);
	p = proc_get(s, pid);
	if (!p)
		return -ENOMEM;
	new_gen(s);
	nm.start = start;
	nm.end = start + len;
	nm.pgoff = pgoff;
	nm.dso = dso_get(s, filename && *filename ? filename : "//anon");
	if (!nm.dso)
		return -ENOMEM;

	i = map_lower(p, nm.start);
	for (j = i; j < p->nr && p->maps[j].start < nm.end; j++) {
		const struct map *m = &p->maps[j];
		if (m->start < nm.start) {
			left = *m;
			left.end = nm.start;
			has_left = true;
		}
		if (m->end > nm.end) {
			right = *m;
			right.pgoff += nm.end - m->start;
			right.start = nm.end;
			has_right = true;
		}
	}
	add = 1 + has_left + has_right;
	if (p->nr - (j - i) + add > MAX_MAPS_PER_PROC)
		return 0; /* drop: bounded memory */
	if (p->nr - (j - i) + add > p->alloc) {
		size_t na = p->alloc ? p->alloc * 2 : 16;
		struct map *m;
		while (na < p->nr - (j - i) + add)
			na *= 2;
		m = realloc(p->maps, na * sizeof(*m));
		if (!m)
			return -ENOMEM;
		p->maps = m;
		p->alloc = na;
	}
	memmove(&p->maps[i + add], &p->maps[j], (p->nr - j) * sizeof(*p->maps));
	p->nr = p->nr - (j - i) + add;
	if (has_left)
		p->maps[i++] = left;
	p->maps[i++] = nm;
	if (has_right)
		p->maps[i] = right;
	s->st.maps++;
	return 0;
}

/* ------------------------------------------------------------------ ELF loading */

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->bind_rank != y->bind_rank)
		return x->bind_rank - y->bind_rank;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return 0;
}

/* Sort, drop duplicates, give size-0 functions (and with @all, every size-0 symbol: kallsyms
 * has no sizes) the room up to the next symbol. */
static void syms_finish(struct dso *d, uint64_t last_size, bool all)
{
	size_t n = 0;
	bool sorted = true;

	if (!d->nr_syms)
		return;
	/* kallsyms is in address order, with aliases of mixed binding at one address: sorting
	 * by address alone is enough when the best of each address is kept below */
	for (size_t i = 1; i < d->nr_syms && sorted; i++)
		sorted = d->syms[i - 1].start <= d->syms[i].start;
	if (!sorted)
		qsort(d->syms, d->nr_syms, sizeof(*d->syms), sym_cmp);
	for (size_t i = 0; i < d->nr_syms; i++) {
		if (n && d->syms[n - 1].start == d->syms[i].start) {
			/* the first of sym_cmp()'s order at this address (ties: the earlier) */
			if (sym_cmp(&d->syms[i], &d->syms[n - 1]) < 0)
				d->syms[n - 1] = d->syms[i];
			continue;
		}
		d->syms[n++] = d->syms[i];
	}
	d->nr_syms = n;
	for (size_t i = 0; i < n; i++) {
		struct sym *y = &d->syms[i];
		if (y->size || (!all && y->kind != HWS_SYM_FUNC))
			continue;
		if (i + 1 < n)
			y->size = d->syms[i + 1].start - y->start;
		else
			y->size = last_size;
	}
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
	syms_finish(d, 0, false);
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
	dso_unload(s->loaded[victim]);
	new_gen(s); /* cached names of that file are gone */
	s->st.files_unloaded++;
	s->loaded[victim] = s->loaded[--s->nr_loaded];
}

static int dso_load(struct hws_symbols *s, struct dso *d)
{
	char bid[128], dbg[512];
	GElf_Ehdr eh;
	size_t nph;

	d->lru = ++s->tick;
	s->touched = d;
	if (d->state != DSO_UNLOADED)
		return d->state == DSO_LOADED ? 0 : -ENOENT;
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
	dso_unload(d);
	d->state = DSO_FAILED;
	s->st.files_failed++;
	pr_debug("symbols: cannot load %s\n", d->path);
	return -ENOENT;
}

/* Symbol containing @addr, or NULL. */
static const struct sym *sym_find(const struct dso *d, uint64_t addr, bool data)
{
	size_t lo = 0, hi = d->nr_syms;
	const struct sym *best = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo = first symbol above addr; look back a few for an enclosing one */
	for (size_t k = 0; k < 8 && lo > k; k++) {
		const struct sym *y = &d->syms[lo - 1 - k];
		if (addr - y->start < y->size || (addr == y->start)) {
			if (!best ||
			    (data && y->kind == HWS_SYM_OBJECT && best->kind != HWS_SYM_OBJECT))
				best = y;
			if (!data || y->kind == HWS_SYM_OBJECT)
				break;
		}
	}
	return best;
}

/* Symbol of @vaddr in @d into @out. [*vlo, *vhi] (file addresses, set to [vaddr, vaddr] or
 * wider) is where the answer is the same symbol: @y is then the last symbol starting at or
 * below every address of it and contains them all, so sym_find() and the last-hit cache
 * both give @y there. */
static void fill_sym(struct hws_symbols *s, struct dso *d, uint64_t vaddr, bool data,
		     struct hws_symbol *out, uint64_t *vlo, uint64_t *vhi)
{
	const struct sym *y = d->last[data], *end = d->syms + d->nr_syms;

	*vlo = *vhi = vaddr;
	/* consecutive samples mostly hit the symbol of the previous one */
	if (!y || vaddr - y->start >= y->size || (y + 1 < end && y[1].start <= vaddr)) {
		y = d->nr_syms ? sym_find(d, vaddr, data) : NULL;
		if (y && y->size && (!data || y->kind == HWS_SYM_OBJECT))
			d->last[data] = y;
	}

	if (y) {
		out->name = d->names + y->name;
		out->offset = vaddr - y->start;
		out->size = y->size;
		out->kind = y->kind;
		if (y->size && (!data || y->kind == HWS_SYM_OBJECT) &&
		    (y + 1 == end || y[1].start > vaddr)) {
			uint64_t last = y->start + y->size - 1;

			if (last < y->start)
				last = UINT64_MAX;
			if (y + 1 < end && y[1].start - 1 < last)
				last = y[1].start - 1;
			*vlo = y->start;
			*vhi = last;
		}
	}
	if (!s->opts.srcline || d->state != DSO_LOADED || d->dw_state < 0)
		return;
	*vlo = *vhi = vaddr; /* file:line changes within a symbol */
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

/* ELF vaddr of @addr inside map @m, computed through the PT_LOAD that maps the map's first
 * file byte (so .bss beyond the file end works too). false if no segment fits. */
static bool map_to_vaddr_first(const struct dso *d, const struct map *m, uint64_t addr,
			       uint64_t *vaddr, bool *first)
{
	*first = true;
	for (int i = 0; i < d->nr_loads; i++) {
		const struct load_seg *g = &d->loads[i];
		uint64_t seg_page = g->off & ~0xfffULL;
		uint64_t bias, v;

		if (m->pgoff < seg_page || m->pgoff >= g->off + (g->filesz ? g->filesz : 1))
			continue;
		/* memory address of file offset X in this map: m->start + X - m->pgoff */
		bias = m->start - m->pgoff + g->off - g->vaddr;
		v = addr - bias;
		for (int k = 0; k < d->nr_loads; k++) {
			const struct load_seg *h = &d->loads[k];
			if (v >= (h->vaddr & ~0xfffULL) && v < h->vaddr + h->memsz) {
				*vaddr = v;
				return true;
			}
		}
		*first = false; /* a later segment's bias, if any, answers */
	}
	return false;
}

static bool map_to_vaddr(const struct dso *d, const struct map *m, uint64_t addr, uint64_t *vaddr)
{
	bool first;

	return map_to_vaddr_first(d, m, addr, vaddr, &first);
}

/* Narrow [*lo, *hi] (around @addr, for which map_to_vaddr(d, m, .) fails) to the addresses
 * for which it fails too: the gap between the images of @d's segments through every
 * candidate bias. Any doubt leaves [addr, addr]. */
static void vaddr_gap(const struct dso *d, const struct map *m, uint64_t addr, uint64_t *lo,
		      uint64_t *hi)
{
	for (int i = 0; i < d->nr_loads; i++) {
		const struct load_seg *g = &d->loads[i];
		uint64_t seg_page = g->off & ~0xfffULL, bias;

		if (m->pgoff < seg_page || m->pgoff >= g->off + (g->filesz ? g->filesz : 1))
			continue;
		bias = m->start - m->pgoff + g->off - g->vaddr;
		for (int k = 0; k < d->nr_loads; k++) {
			const struct load_seg *h = &d->loads[k];
			uint64_t a = (h->vaddr & ~0xfffULL) + bias, b = h->vaddr + h->memsz + bias;

			/* map_to_vaddr() accepts addr - bias in [page(vaddr), vaddr + memsz):
			 * addr in [a, b) modulo 2^64, exactly that interval when a <= b */
			if (h->vaddr + h->memsz < h->vaddr || a > b) {
				*lo = *hi = addr; /* wraps: do not guess */
				return;
			}
			if (b <= addr && b > *lo)
				*lo = b; /* image [a, b) below */
			else if (a > addr && a - 1 < *hi)
				*hi = a - 1; /* image above */
			else if (a <= addr && addr < b) {
				*lo = *hi = addr; /* cannot be: it maps */
				return;
			}
		}
	}
}

/* The PT_LOAD segment (page-rounded start, as map_to_vaddr() checks) holding all of
 * [vlo, vhi], so map_to_vaddr() accepts every address of it with the same bias. */
static bool one_segment(const struct dso *d, uint64_t vlo, uint64_t vhi)
{
	for (int k = 0; k < d->nr_loads; k++) {
		const struct load_seg *h = &d->loads[k];
		if (vlo >= (h->vaddr & ~0xfffULL) && vhi < h->vaddr + h->memsz)
			return true;
	}
	return false;
}

static int kernel_resolve(struct hws_symbols *s, uint64_t addr, struct hws_symbol *out,
			  uint64_t *lo, uint64_t *hi)
{
	out->dso = "[kernel]";
	out->dso_addr = addr;
	if (s->ks_fd >= 0)
		kallsyms_finish(s);
	if (!s->kallsyms) {
		*lo = 1ULL << 63; /* all of it is "[kernel]" */
		*hi = UINT64_MAX;
		return 0;
	}
	fill_sym(s, s->kallsyms, addr, false, out, lo, hi);
	if (*lo < (1ULL << 63))
		*lo = 1ULL << 63; /* user addresses never resolve through kallsyms */
	return out->name != NULL;
}

/* hws_symbols__resolve() without the cache; [*lo, *hi] as hws_symbols__resolve_range() */
static int resolve(struct hws_symbols *s, uint32_t pid, uint64_t addr, bool data,
		   struct hws_symbol *out, uint64_t *lo, uint64_t *hi)
{
	struct proc *p;
	const struct map *m = NULL;
	uint64_t vlo, vhi;
	bool first;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->dso_addr = addr;
	*lo = *hi = addr;
	if ((int64_t)addr < 0)
		return kernel_resolve(s, addr, out, lo, hi);
	p = proc_find(s, pid);
	if (!p || !p->nr) {
		*lo = 0; /* no map: every user address is unknown */
		*hi = INT64_MAX;
		return 0;
	}
	i = map_lower(p, addr);
	if (i < p->nr && p->maps[i].start <= addr)
		m = &p->maps[i];
	if (m) {
		out->dso = m->dso->path;
		out->dso_addr = addr - m->start + m->pgoff;
	}
	if (!m || m->dso->state == DSO_SPECIAL) {
		/* the same answer over the whole map, or the whole hole between maps, unless
		 * data looks back for a file's .bss below */
		if (!data || i == 0 || (m && p->maps[i - 1].dso->state == DSO_SPECIAL)) {
			*lo = m ? m->start : i ? p->maps[i - 1].end : 0;
			*hi = m ? m->end - 1 : i < p->nr ? p->maps[i].start - 1 : INT64_MAX;
		}
		/* anonymous memory right after a file's mappings may be its .bss */
		if (!data)
			return 0;
		while (i > 0) {
			const struct map *pm = &p->maps[--i];
			uint64_t v;
			if (pm->dso->state == DSO_SPECIAL) {
				if (m || addr - pm->end > (1ULL << 30))
					return 0;
				continue;
			}
			if (dso_load(s, pm->dso)) {
				if (m) { /* m's name, whatever the address */
					*lo = m->start;
					*hi = m->end - 1;
				}
				return 0;
			}
			if (!map_to_vaddr(pm->dso, pm, addr, &v)) {
				if (m) { /* m's name where pm's segments do not reach */
					*lo = m->start;
					*hi = m->end - 1;
					vaddr_gap(pm->dso, pm, addr, lo, hi);
				}
				return 0;
			}
			fill_sym(s, pm->dso, v, true, out, &vlo, &vhi);
			if (out->name) {
				out->dso = pm->dso->path;
				out->dso_addr = v;
			}
			return out->name != NULL;
		}
		return 0;
	}
	if (dso_load(s, m->dso)) {
		*lo = m->start; /* never loads: the map's name for all of it */
		*hi = m->end - 1;
		return 0;
	}
	if (!map_to_vaddr_first(m->dso, m, addr, &out->dso_addr, &first))
		return 0;
	fill_sym(s, m->dso, out->dso_addr, data, out, &vlo, &vhi);
	/* widen only when the first candidate segment's bias answered: it answers the same
	 * way for every address whose file address stays inside one segment */
	if (vlo != vhi && first && one_segment(m->dso, vlo, vhi)) {
		uint64_t delta = addr - out->dso_addr; /* memory address = file address + delta */

		*lo = vlo + delta < m->start ? m->start : vlo + delta;
		*hi = vhi + delta > m->end - 1 ? m->end - 1 : vhi + delta;
		if (*lo > addr || *hi < addr || vlo + delta > vhi + delta)
			*lo = *hi = addr; /* wrapped: keep the exact answer only */
	}
	return out->name != NULL;
}

int hws_symbols__resolve_range(struct hws_symbols *s, uint32_t pid, uint64_t addr, bool data,
			       struct hws_symbol *out, uint64_t *lo, uint64_t *hi)
{
	uint64_t l, h;
	int ret;

	s->st.lookups++;
	ret = resolve(s, pid, addr, data, out, &l, &h);
	if (lo)
		*lo = l;
	if (hi)
		*hi = h;
	return ret;
}

static inline size_t rcache_slot(uint32_t pid, uint64_t addr, bool data)
{
	uint64_t h = (addr ^ ((uint64_t)pid << 32) ^ data) * 0x9E3779B97F4A7C15ULL;

	return (size_t)(h >> (64 - RCACHE_BITS));
}

int hws_symbols__resolve(struct hws_symbols *s, uint32_t pid, uint64_t addr, bool data,
			 struct hws_symbol *out)
{
	const struct proc *p;
	struct rcache *c;
	uint64_t lo, hi;
	int ret;

	s->st.lookups++;
	/* answers without any search (no kernel symbols, a process without maps) are cheaper
	 * than the cache: every sample a new address would only fill it */
	if ((int64_t)addr < 0 ? !s->kallsyms && s->ks_fd < 0
			      : !(p = proc_find(s, pid)) || !p->nr)
		return resolve(s, pid, addr, data, out, &lo, &hi);
	if (!s->cache) {
		s->cache = calloc(RCACHE_SIZE, sizeof(*s->cache));
		if (!s->cache)
			return resolve(s, pid, addr, data, out, &lo, &hi);
	}
	c = &s->cache[rcache_slot(pid, addr, data)];
	if (c->gen == s->gen && c->addr == addr && c->pid == pid && c->data == data) {
		if (c->touched)
			c->touched->lru = ++s->tick; /* as dso_load() in the lookup would */
		*out = c->sym;
		return c->ret;
	}
	for (unsigned int i = 0; i < NR_RANGES; i++) {
		const struct rrange *r = &s->ranges[i];
		uint64_t d;

		if (r->gen != s->gen || r->pid != pid || r->data != data || addr < r->lo ||
		    addr > r->hi)
			continue;
		d = addr - r->addr;
		if (r->touched)
			r->touched->lru = ++s->tick;
		*out = r->sym;
		if (out->name)
			out->offset += d;
		out->dso_addr += d;
		ret = r->ret;
		s->touched = r->touched;
		goto store;
	}
	s->touched = NULL;
	ret = resolve(s, pid, addr, data, out, &lo, &hi);
	if (hi > lo) {
		struct rrange *r = &s->ranges[s->next_range++ % NR_RANGES];

		*r = (struct rrange){lo, hi, addr, pid, s->gen, data, (int8_t)ret, s->touched,
				     *out};
	}
store:
	/* a lookup that unloaded a file started a new generation: cache under that one */
	c->gen = s->gen;
	c->addr = addr;
	c->pid = pid;
	c->data = data;
	c->ret = (int8_t)ret;
	c->touched = s->touched;
	c->sym = *out;
	return ret;
}

int hws_symbols__resolve_file(struct hws_symbols *s, const char *path, uint64_t vaddr, bool data,
			      struct hws_symbol *out)
{
	uint64_t lo, hi;
	struct dso *d;

	memset(out, 0, sizeof(*out));
	out->dso_addr = vaddr;
	s->st.lookups++;
	d = dso_get(s, path);
	if (!d)
		return -ENOMEM;
	out->dso = d->path;
	if (dso_load(s, d))
		return 0;
	fill_sym(s, d, vaddr, data, out, &lo, &hi);
	return out->name != NULL;
}

/* ------------------------------------------------------------------ kallsyms */

#define KALLSYMS_MAX   (256u << 20) /* bytes read at most (/proc/kallsyms is ~6 MB) */
#define KALLSYMS_PROBE (64u << 10)  /* read at once to check the addresses */

/* Read @fd into *buf (NUL-terminated, grown as needed) until EOF or @limit bytes, in large
 * chunks: /proc/kallsyms reports a 1 KiB block size, and stdio would read it 1 KiB per
 * system call. *eof tells whether the end was reached. */
static int read_more(int fd, char **buf, size_t *len, size_t *alloc, size_t limit, bool *eof)
{
	char *nb;
	ssize_t n;

	*eof = false;
	while (*len < limit) {
		if (*alloc - *len < (64u << 10) + 1) {
			size_t na = *alloc ? *alloc * 2 : KALLSYMS_PROBE * 2;

			if (*alloc >= KALLSYMS_MAX) {
				*eof = true; /* bounded: the rest is not read */
				break;
			}
			nb = realloc(*buf, na);
			if (!nb)
				return -ENOMEM;
			*buf = nb;
			*alloc = na;
		}
		n = read(fd, *buf + *len, *alloc - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n) {
			*eof = true;
			break;
		}
		*len += (size_t)n;
	}
	(*buf)[*len] = 0;
	return 0;
}

#include "symbols/ksyms_line.h"

/* any kept symbol with a non-zero address in the complete lines of @buf */
static bool kallsyms_nonzero(char *buf, size_t len)
{
	char *end = memrchr(buf, '\n', len), *name, *ne, type;
	uint64_t a;

	for (char *p = buf; end && p < end; p++) {
		if (ksyms_line(p, end, &a, &type, &name, &ne) && a)
			return true;
		p = memchr(p, '\n', (size_t)(end - p) + 1);
		if (!p)
			break;
	}
	return false;
}

/*
 * Move the kernel's symbols to where the recording saw the kernel: a kallsyms taken in
 * another boot (KASLR) or perf's cached copy lists the kernel at another base. The
 * difference is that of the reference symbol named by the file's kernel MMAP (perf and
 * hwsample write "[kernel.kallsyms]_text" with _text's address as pgoff). Modules load at
 * addresses of their own in each boot: with a difference, their symbols are dropped (their
 * addresses stay "[kernel]") rather than named wrongly. Done once per kallsyms, when both
 * the kallsyms and the reference are known, whichever comes last.
 */
static void ks_relocate(struct hws_symbols *s)
{
	struct dso *d = s->kallsyms;
	uint64_t ref = 0, delta;
	size_t n = 0;

	if (!d || s->ks_relocated || !s->kref_addr)
		return;
	s->ks_relocated = true;
	if (!strcmp(s->kref_name, "_text"))
		ref = s->ks_text;
	else if (!strcmp(s->kref_name, "_stext"))
		ref = s->ks_stext;
	if (!ref) {
		pr_debug("symbols: kallsyms has no %s: kernel symbols not checked for KASLR\n",
			 s->kref_name);
		return;
	}
	delta = s->kref_addr - ref;
	if (!delta)
		return;
	pr_info("symbols: the recording's kernel lies %s0x%" PRIx64 " bytes from this kallsyms "
		"(another boot, KASLR): kernel symbols moved by that, module symbols dropped\n",
		(int64_t)delta < 0 ? "-" : "+", (int64_t)delta < 0 ? -delta : delta);
	for (size_t i = 0; i < d->nr_syms; i++) {
		struct sym y = d->syms[i];

		if (y.module)
			continue;
		y.start += delta;
		y.size = 0; /* sizes are the distances to the next symbol: worked out again */
		d->syms[n++] = y;
	}
	d->nr_syms = n;
	d->last[0] = d->last[1] = NULL;
	syms_finish(d, 4096, true); /* sorts again if the move wrapped around */
	new_gen(s);
}

static void kernel_ref(struct hws_symbols *s, const char *name, uint64_t addr)
{
	size_t n = strlen(name);

	if (!n || !addr || s->kref_addr || n >= sizeof(s->kref_name))
		return;
	memcpy(s->kref_name, name, n + 1);
	s->kref_addr = addr;
	ks_relocate(s);
}

/* The symbol table of the text in @buf (taken over: names point into it, cut with NULs). */
static int kallsyms_parse(struct hws_symbols *s, char *buf, size_t len)
{
	bool nonzero = false;
	size_t cap = 0;
	struct dso *d;
	int err;

	d = calloc(1, sizeof(*d));
	if (!d) {
		free(buf);
		return -ENOMEM;
	}
	d->fd = d->dbg_fd = -1;
	d->path = strdup("[kernel.kallsyms]");
	d->names = buf;
	d->names_len = len;
	err = d->path ? 0 : -ENOMEM;
	for (char *p = buf, *end = buf + len; !err && p < end; p++) {
		char *name, *ne, type;
		struct sym *y;
		uint64_t a;
		bool nl, module;

		if (!ksyms_line(p, end, &a, &type, &name, &ne)) {
			p = memchr(p, '\n', (size_t)(end - p));
			if (!p)
				break;
			continue;
		}
		nl = ne < end && *ne == '\n';
		module = ne + 1 < end && *ne == '\t' && ne[1] == '[';
		*ne = 0; /* buf[len] is already 0 */
		if (a)
			nonzero = true;
		if (!module && (type == 'T' || type == 't') && ne - name <= 6 && name[0] == '_') {
			if (ne - name == 5 && !memcmp(name, "_text", 5))
				s->ks_text = a;
			else if (ne - name == 6 && !memcmp(name, "_stext", 6))
				s->ks_stext = a;
		}
		if (d->nr_syms >= MAX_SYMS)
			break;
		if (d->nr_syms == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			y = realloc(d->syms, nc * sizeof(*y));
			if (!y) {
				err = -ENOMEM;
				break;
			}
			d->syms = y;
			cap = nc;
		}
		y = &d->syms[d->nr_syms++];
		y->start = a;
		y->size = 0;
		y->kind = (type | 0x20) == 't' || (type | 0x20) == 'w' ? HWS_SYM_FUNC : HWS_SYM_OBJECT;
		y->bind_rank = isupper((unsigned char)type) ? 0 : 2;
		y->module = module;
		y->name = (uint32_t)(name - buf);
		p = nl ? ne : memchr(ne, '\n', (size_t)(end - ne));
		if (!p)
			break;
	}
	if (!err && !nonzero)
		err = -EPERM; /* kptr_restrict: all addresses are 0 */
	if (err) {
		dso_free(d);
		return err;
	}
	syms_finish(d, 4096, true);
	d->state = DSO_SPECIAL; /* never unloaded by the LRU */
	s->kallsyms = d;
	ks_relocate(s);
	return 0;
}

static void kallsyms_drop(struct hws_symbols *s)
{
	if (s->kallsyms)
		dso_free(s->kallsyms);
	s->kallsyms = NULL;
	if (s->ks_fd >= 0)
		close(s->ks_fd);
	s->ks_fd = -1;
	free(s->ks_buf);
	s->ks_buf = NULL;
	s->ks_len = s->ks_alloc = 0;
	free(s->ks_copy);
	free(s->ks_modules);
	s->ks_copy = s->ks_modules = NULL;
	s->ks_probe = 0;
	s->ks_text = s->ks_stext = 0;
	s->ks_relocated = false;
}

#define MAX_MODULES 8192

struct kmod {
	char name[64];
	uint64_t base, size;
	bool seen;
};

/* /proc/modules lines "name size refs deps state 0xaddr ...": modules and where they are.
 * Returns the count, or -1 if it cannot tell (unreadable, hidden addresses, too many). A
 * missing file (a kernel without modules) is an empty list. */
static int read_modules(const char *path, struct kmod **out)
{
	struct kmod *m = NULL;
	char line[1024];
	int n = 0, cap = 0;
	FILE *f;

	*out = NULL;
	if (!path)
		return 0;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -1;
	while (fgets(line, sizeof(line), f)) {
		char name[64], state[32];
		unsigned long long size, base;

		if (sscanf(line, "%63s %llu %*s %*s %31s %llx", name, &size, state, &base) != 4 ||
		    !base || n >= MAX_MODULES) {
			n = -1; /* kptr_restrict shows 0x0000000000000000 */
			break;
		}
		if (n == cap) {
			struct kmod *nm = realloc(m, (size_t)(cap ? cap * 2 : 64) * sizeof(*m));

			if (!nm) {
				n = -1;
				break;
			}
			m = nm;
			cap = cap ? cap * 2 : 64;
		}
		snprintf(m[n].name, sizeof(m[n].name), "%s", name);
		m[n].base = base;
		m[n].size = size;
		m[n].seen = false;
		n++;
	}
	fclose(f);
	if (n < 0)
		free(m);
	else
		*out = m;
	return n;
}

/*
 * Whether the module symbols of the kallsyms text @buf are exactly those of the modules
 * @modules lists, each inside its module: a kernel's own symbols never move while it runs,
 * module symbols come and go with the modules. BPF programs ("[bpf]") are not listed
 * anywhere cheaper than kallsyms itself, so a copy that has any cannot be proven current.
 * The kernel's generated trampolines ("[__builtin__ftrace]", "[__builtin__kprobes]": one
 * name for every page, kernels without /proc/modules have them too) are accepted when they
 * lie outside every listed module: they cannot shadow a module's symbols, and the copy,
 * made when the file was recorded, lists the trampolines its samples ran in.
 */
#define BUILTIN_TAG     "__builtin__"
#define BUILTIN_TAG_LEN (sizeof(BUILTIN_TAG) - 1)

static bool in_module(const struct kmod *m, int n, uint64_t a)
{
	for (int k = 0; k < n; k++)
		if (a >= m[k].base && a - m[k].base < m[k].size)
			return true;
	return false;
}

static bool modules_match(const char *buf, size_t len, const char *modules)
{
	const char *end = buf + len, *p = buf;
	struct kmod *m;
	int n = read_modules(modules, &m), last = 0;
	bool ok = n >= 0;

	while (ok && (p = memchr(p, '\t', (size_t)(end - p)))) {
		const char *ls = p, *tag = p + 1, *te;
		char *name, *ne, type;
		uint64_t a;
		int k;

		while (ls > buf && ls[-1] != '\n')
			ls--;
		te = tag < end && *tag == '[' ? memchr(tag, ']', (size_t)(end - tag)) : NULL;
		if (!te || !ksyms_line((char *)ls, (char *)end, &a, &type, &name, &ne)) {
			p++; /* not a symbol of a kept type: its address does not matter */
			continue;
		}
		tag++;
		if ((size_t)(te - tag) > BUILTIN_TAG_LEN && !memcmp(tag, BUILTIN_TAG, BUILTIN_TAG_LEN)) {
			ok = !in_module(m, n, a);
			p = te;
			continue;
		}
		for (k = 0; k < n; k++) { /* a module's lines come together: start at the last */
			const struct kmod *x = &m[(last + k) % n];

			if (strlen(x->name) == (size_t)(te - tag) && !memcmp(x->name, tag, (size_t)(te - tag)))
				break;
		}
		if (k == n) {
			ok = false; /* a tag /proc/modules does not list */
			break;
		}
		last = (last + k) % n;
		if (a < m[last].base || a - m[last].base >= m[last].size)
			ok = false;
		m[last].seen = true;
		p = te;
	}
	for (int k = 0; ok && k < n; k++)
		ok = m[k].seen;
	free(m);
	return ok;
}

/* Read the copy whole; keep it (and close the live file) if it still starts with the
 * bytes the live file showed and its modules match. */
static bool kallsyms_take_copy(struct hws_symbols *s)
{
	char *buf = NULL;
	size_t len = 0, alloc = 0;
	bool eof, ok = false;
	int fd = open(s->ks_copy, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd >= 0 && !read_more(fd, &buf, &len, &alloc, KALLSYMS_MAX, &eof) && eof &&
	    len >= s->ks_probe && !memcmp(buf, s->ks_buf, s->ks_probe))
		ok = modules_match(buf, len, s->ks_modules);
	if (fd >= 0)
		close(fd);
	pr_debug("symbols: kernel names from %s: %s\n", ok ? s->ks_copy : "the running kernel",
		 ok ? "the same addresses as the running kernel"
		    : "the copy does not match the running kernel's modules or text");
	if (!ok) {
		free(buf);
		return false;
	}
	free(s->ks_buf);
	s->ks_buf = buf;
	s->ks_len = len;
	s->ks_alloc = alloc;
	close(s->ks_fd);
	s->ks_fd = -1;
	return true;
}

/* the rest of a deferred kallsyms file, at the first kernel lookup; names stay off if it
 * cannot be read */
static void kallsyms_finish(struct hws_symbols *s)
{
	bool eof;
	int err = 0;

	if (!s->ks_copy || !kallsyms_take_copy(s)) {
		err = read_more(s->ks_fd, &s->ks_buf, &s->ks_len, &s->ks_alloc, SIZE_MAX, &eof);
		close(s->ks_fd);
		s->ks_fd = -1;
	}
	if (!err) {
		err = kallsyms_parse(s, s->ks_buf, s->ks_len); /* takes the buffer */
		s->ks_buf = NULL;
	}
	if (err) {
		pr_debug("symbols: kallsyms: %s, kernel names off\n", strerror(-err));
		kallsyms_drop(s);
	}
	s->ks_len = s->ks_alloc = 0;
}

int hws_symbols__use_kallsyms(struct hws_symbols *s, const char *path)
{
	return hws_symbols__use_kallsyms_copy(s, path, NULL, NULL);
}

/* whether the file at @path starts with the @len bytes at @want */
static bool same_start(const char *path, const char *want, size_t len)
{
	char *buf = malloc(len ? len : 1);
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	bool same = false;

	while (buf && fd >= 0 && got < len) {
		ssize_t n = read(fd, buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	same = buf && got == len && !memcmp(buf, want, len);
	if (fd >= 0)
		close(fd);
	free(buf);
	return same;
}

int hws_symbols__use_kallsyms_copy(struct hws_symbols *s, const char *path, const char *copy,
				   const char *modules)
{
	bool eof;
	int err;

	new_gen(s);
	kallsyms_drop(s);
	if (!path)
		return 0;
	s->ks_fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (s->ks_fd < 0)
		return -errno;
	/* the first lines tell whether addresses show (kptr_restrict zeroes them all); the
	 * rest (~6 MB of kernel formatting) is read at the first kernel lookup, if any */
	err = read_more(s->ks_fd, &s->ks_buf, &s->ks_len, &s->ks_alloc, KALLSYMS_PROBE, &eof);
	if (!err && (eof || !kallsyms_nonzero(s->ks_buf, s->ks_len))) {
		if (!eof) /* not proven yet: read it all now, for an exact answer */
			err = read_more(s->ks_fd, &s->ks_buf, &s->ks_len, &s->ks_alloc, SIZE_MAX,
					&eof);
		if (!err) {
			err = kallsyms_parse(s, s->ks_buf, s->ks_len);
			s->ks_buf = NULL;
		}
		close(s->ks_fd);
		s->ks_fd = -1;
	}
	/* a copy that starts as the live file does is read instead of the rest, if its modules
	 * still match at the first kernel lookup (the probe covers the kernel's own text) */
	if (!err && s->ks_fd >= 0 && copy && s->ks_len &&
	    same_start(copy, s->ks_buf, s->ks_len)) {
		s->ks_copy = strdup(copy);
		s->ks_modules = modules ? strdup(modules) : NULL;
		s->ks_probe = s->ks_len;
		if (!s->ks_copy || (modules && !s->ks_modules))
			err = -ENOMEM;
	} else if (!err && copy && s->ks_fd >= 0) {
		pr_debug("symbols: %s does not start as %s does: not used\n", copy, path);
	}
	if (err)
		kallsyms_drop(s);
	return err;
}

/* ------------------------------------------------------------------ formatting */

int hws_symbol__format(const struct hws_symbol *sym, bool with_dso, struct hws_strbuf *sb)
{
	const char *base = NULL;
	int err;

	if (sym->dso) {
		base = strrchr(sym->dso, '/');
		base = base ? base + 1 : sym->dso;
	}
	if (sym->name)
		err = sym->offset ? hws_strbuf__addf(sb, "%s+0x%" PRIx64, sym->name, sym->offset)
				  : hws_strbuf__addstr(sb, sym->name);
	else if (base && base[0] == '[')
		err = hws_strbuf__addstr(sb, base); /* [kernel], [vdso], [heap], [stack] */
	else if (base)
		err = hws_strbuf__addf(sb, "[%s]+0x%" PRIx64, base, sym->dso_addr);
	else
		err = hws_strbuf__addstr(sb, "[unknown]");
	if (!err && sym->srcfile)
		err = hws_strbuf__addf(sb, " (%s:%u)", sym->srcfile, sym->line);
	if (!err && with_dso && base && sym->name)
		err = hws_strbuf__addf(sb, base[0] == '[' ? " %s" : " [%s]", base);
	return err;
}

void hws_symbols__stats(const struct hws_symbols *s, struct hws_symbols_stats *st)
{
	*st = s->st;
}
