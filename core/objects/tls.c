// SPDX-License-Identifier: MIT
/*
 * Thread-local variables for the data objects (include/hwsample/objects.h): the STT_TLS
 * symbols of an ELF file, whose st_value is the offset inside the module's TLS segment (its
 * TLS template), looked up by that offset. core/symbols keeps addresses only and leaves
 * STT_TLS symbols out; this is a small cache of the TLS symbols of the files asked about.
 *
 * Invariants:
 *  - At most TLS_FILES files are kept (the least recently used one is dropped); a file that
 *    cannot be read is kept with no symbols, so it is not opened again.
 *  - The answers' strings live until tls_syms__delete(); a dropped file's names are kept
 *    too (a lookup's answer is never freed under its caller).
 *  - Callers may be in several threads: one mutex.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "objects_int.h"
#include "util/internal.h"

#define TLS_FILES    16
#define MAX_TLS_SYMS (1u << 20)

struct tsym {
	uint64_t value, size;
	const char *name;
};

struct tfile {
	char *path;
	struct tsym *syms;
	size_t n;
	uint64_t lru;
};

struct tls_syms {
	pthread_mutex_t lock;
	struct tfile files[TLS_FILES];
	size_t nfiles;
	uint64_t tick;
	char **names; /* every name handed out, freed at the end */
	size_t nnames, anames;
};

struct tls_syms *tls_syms__new(void)
{
	struct tls_syms *t = calloc(1, sizeof(*t));

	if (t)
		pthread_mutex_init(&t->lock, NULL);
	return t;
}

void tls_syms__delete(struct tls_syms *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfiles; i++) {
		free(t->files[i].path);
		free(t->files[i].syms);
	}
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static int cmp_tsym(const void *a, const void *b)
{
	const struct tsym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

static const char *keep_name(struct tls_syms *t, const char *name)
{
	char *c;

	if (t->nnames == t->anames) {
		size_t na = t->anames ? t->anames * 2 : 64;
		char **v = realloc(t->names, na * sizeof(*v));

		if (!v)
			return NULL;
		t->names = v;
		t->anames = na;
	}
	c = strdup(name);
	if (c)
		t->names[t->nnames++] = c;
	return c;
}

/* the STT_TLS symbols of @path's .symtab (else .dynsym) with a size, sorted by offset */
static void read_file(struct tls_syms *t, struct tfile *f)
{
	Elf_Scn *scn = NULL, *use = NULL;
	GElf_Shdr sh, use_sh = {0}; /* = {0}: read only with @use set (gcc -O3 cannot see it) */
	Elf_Data *data;
	size_t n, cap = 0;
	Elf *elf;
	int fd;

	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !use)) {
			use = scn;
			use_sh = sh;
		}
	}
	data = use && use_sh.sh_entsize ? elf_getdata(use, NULL) : NULL;
	n = data ? use_sh.sh_size / use_sh.sh_entsize : 0;
	for (size_t i = 0; i < n && f->n < MAX_TLS_SYMS; i++) {
		GElf_Sym es;
		const char *name;

		if (!gelf_getsym(data, (int)i, &es) || GELF_ST_TYPE(es.st_info) != STT_TLS ||
		    es.st_shndx == SHN_UNDEF || !es.st_size)
			continue;
		name = elf_strptr(elf, use_sh.sh_link, es.st_name);
		if (!name || !*name || !(name = keep_name(t, name)))
			continue;
		if (f->n == cap) {
			struct tsym *v = realloc(f->syms, (cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!v)
				break;
			f->syms = v;
		}
		f->syms[f->n++] = (struct tsym){es.st_value, es.st_size, name};
	}
	hws__qsort(f->syms, f->n, sizeof(*f->syms), cmp_tsym);
	if (elf)
		elf_end(elf);
	close(fd);
}

static struct tfile *get_file(struct tls_syms *t, const char *path)
{
	struct tfile *f = NULL;

	for (size_t i = 0; i < t->nfiles; i++)
		if (!strcmp(t->files[i].path, path))
			return &t->files[i];
	if (t->nfiles < TLS_FILES) {
		f = &t->files[t->nfiles];
	} else {
		f = &t->files[0];
		for (size_t i = 1; i < t->nfiles; i++)
			if (t->files[i].lru < f->lru)
				f = &t->files[i];
		free(f->path);
		free(f->syms);
		t->nfiles--;
	}
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	t->nfiles++;
	read_file(t, f);
	return f;
}

bool tls_syms__find(struct tls_syms *t, const char *path, uint64_t off, const char **name,
		    uint64_t *value, uint64_t *size)
{
	struct tfile *f;
	bool found = false;

	if (!t || !path)
		return false;
	pthread_mutex_lock(&t->lock);
	f = get_file(t, path);
	if (f) {
		size_t lo = 0, hi = f->n;

		f->lru = ++t->tick;
		while (lo < hi) { /* the first symbol past @off */
			size_t mid = lo + (hi - lo) / 2;

			if (f->syms[mid].value <= off)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* the last one starting at or before it that contains it */
		for (size_t i = lo; i-- > 0 && !found;) {
			const struct tsym *s = &f->syms[i];

			if (off - s->value < s->size) {
				*name = s->name;
				*value = s->value;
				*size = s->size;
				found = true;
			}
			if (lo - i > 8)
				break;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return found;
}
