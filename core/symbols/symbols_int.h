/* SPDX-License-Identifier: MIT */
/*
 * core/symbols, private to its files: the symbol tables (struct hws_symbols, its processes,
 * maps and files) and what each file gives the others:
 *   symbols.c   the object, the process and map tables, lookups and their cache, formatting
 *   elf.c       loading and unloading a file's ELF symbols, program headers and DWARF lines
 *   demangle.c  C++ / Rust names through libiberty
 *   kallsyms.c  kernel symbols from a kallsyms file (or perf's copy of it), KASLR moves
 *
 * Invariants: see symbols.c (the tables) and elf.c / kallsyms.c (their loaders); only
 * symbols.c looks symbols up, on the hot path of dump --sym, report and c2c: what it calls
 * for every lookup is here as static inline or in symbols.c itself.
 */
#ifndef HWS_SYMBOLS_INT_H
#define HWS_SYMBOLS_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <elfutils/libdw.h>
#include <libelf.h>

#include <hwsample/symbols.h>

#define MAX_LOADS	  16	     /* PT_LOAD segments kept per file */
#define MAX_SYMS	  (8u << 20) /* symbols per file (bounded memory) */
#define MAX_MAPS_PER_PROC 65536u     /* mappings per process */
#define KERNEL_PID	  ((uint32_t)-1)

enum dso_state { DSO_UNLOADED = 0, DSO_LOADED, DSO_FAILED, DSO_SPECIAL };

/* a symbol's ELF binding, as far as choosing among aliases goes */
enum sym_bind { SYM_BIND_GLOBAL, SYM_BIND_LOCAL, SYM_BIND_WEAK };

struct sym {
	uint64_t start;
	uint64_t size;
	uint32_t name;	   /* offset into dso->names */
	uint8_t kind;	   /* enum hws_sym_kind */
	uint8_t bind_rank; /* enum sym_bind */
	uint8_t module;	   /* kallsyms: the line had a [module] tag */
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
	Elf *sym_elf; /* the one of the two the symbols were read from (dbg_elf when it has a
		       * symtab), while loaded */
	Dwarf *dw;
	int dw_state;		   /* 0 not tried, 1 open, -1 none */
	struct inl_cache *inl;	   /* inline.c: inline stacks by address, while loaded */
	const struct sym *last[2]; /* last hit for code / data lookups (reset on unload) */
	/* hws_symbols__build_id(): the recording's build-id of the file and perf's build-id
	 * cache copy of it (NULL if none), read when the file at path is another */
	char *bid, *bid_copy;
	int8_t bid_match; /* the file at path has bid: 0 not checked yet, 1 yes, -1 no */
	/* dso__a2l_file(): the function symbols binutils' addr2line reads, by start (0 not
	 * read yet, 1 read, -1 none: no line tables or no symbols); freed by dso__unload() */
	struct a2l_sym *a2l;
	size_t nr_a2l;
	int8_t a2l_state;
	bool perfmap; /* a JIT's perf map ("/tmp/perf-PID.map"): symbols at the process's
		       * own addresses (hws_symbols__mmap_prot()) */
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
	/* opts.exec_history: the image before the last exec (its maps, comm and earlier
	 * images), newest first, at most MAX_EXEC_IMAGES; not in the hash table */
	struct proc *prev;
	uint64_t maps_gen; /* s->maps_serial when the maps last changed (symbols_core.h) */
	uint64_t pstate;   /* s->state at this process's last change (hws_symbols__pid_state()) */
};

#define MAX_EXEC_IMAGES 8

/* a thread as perf keeps one (struct thread): its comm is its own (COMM records of its tid,
 * inherited at FORK from the thread that created it), not its process's */
struct thr {
	uint32_t tid, pid;
	bool used, set; /* set: a COMM (or the parent's comm at FORK) named it */
	char comm[32];
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
	struct thr *thr; /* open addressing by tid, thr_size slots (a power of 2) */
	size_t nr_thr, thr_size;
	struct dso **dsos;
	size_t nr_dsos, dso_buckets;
	struct dso **loaded; /* max_files entries */
	size_t nr_loaded;
	uint64_t tick;
	struct dso *kallsyms; /* DSO_LOADED when in use, else NULL */
	int ks_fd;	      /* kallsyms file read at the first kernel lookup, or -1 */
	char *ks_buf;	      /* its first bytes, already read */
	size_t ks_len, ks_alloc;
	char *ks_copy;	  /* a copy to read instead of the rest of ks_fd, if it matches */
	char *ks_modules; /* the module list the copy's module symbols must match */
	size_t ks_probe;  /* bytes of ks_fd the copy was found equal to */
	/* relocation: where the recording saw the kernel's reference symbol (the kernel MMAP
	 * "[kernel.kallsyms]_text", pgoff), and where the kallsyms in use puts it */
	char kref_name[32];
	uint64_t kref_addr;	    /* 0: unknown */
	uint64_t ks_text, ks_stext; /* _text and _stext in the kallsyms, 0 if absent */
	bool ks_relocated;	    /* the kallsyms in use was compared with kref (and moved) */
	struct hws_symbols_stats st;
	struct rcache *cache; /* RCACHE_SIZE lookups, allocated at the first one */
	struct rrange ranges[NR_RANGES];
	unsigned int next_range; /* replaced next (round robin) */
	uint32_t gen;		 /* cache generation: bumped when any answer may change */
	struct dso *touched;	 /* file whose LRU tick the current lookup refreshed */
	uint64_t maps_serial;	 /* bumped by every change of a process's maps */
	uint64_t answers_gen;	 /* bumped with gen, never wraps (hws_symbols__answers_gen()) */
	uint64_t state;		 /* hws_symbols__state(): bumped with gen and by every comm */
	uint64_t gstate;	 /* s->state at the last change not of one process's own */
	/* the last hws_symbols__pid_state() answer: for ps_pid while s->state is ps_at */
	uint64_t ps_at, ps_val;
	uint32_t ps_pid;
};

/* every cached lookup is stale from now on (@p: the one process whose maps changed, whose
 * answers alone may differ; NULL: any answer may) */
static inline void new_gen_of(struct hws_symbols *s, struct proc *p)
{
	s->answers_gen++;
	s->state++;
	if (p)
		p->pstate = s->state;
	else
		s->gstate = s->state;
	if (++s->gen == 0) {
		if (s->cache)
			memset(s->cache, 0, RCACHE_SIZE * sizeof(*s->cache));
		memset(s->ranges, 0, sizeof(s->ranges));
		s->gen = 1;
	}
}

static inline void new_gen(struct hws_symbols *s)
{
	new_gen_of(s, NULL);
}

/* ---- symbols.c ---- */

/* Sort @d's symbols, drop duplicates, give size-0 functions (and with @all, every size-0
 * symbol: kallsyms has no sizes) the room up to the next symbol (@last_size for the last). */
void dso__finish_syms(struct dso *d, uint64_t last_size, bool all);

/* ---- elf.c ---- */

/* Load @d (DSO_UNLOADED) from its ELF file, unloading the least recently used file when
 * max_files are loaded: 0 (DSO_LOADED), or -ENOENT (DSO_FAILED, not tried again). */
int dso__load(struct hws_symbols *s, struct dso *d);
/* drop what loading gave @d (DSO_LOADED becomes DSO_UNLOADED) */
void dso__unload(struct dso *d);
/* unload and free @d */
void dso__free(struct dso *d);
/* file:line of @vaddr in loaded @d into @out (srcfile, line), if its DWARF has it */
void dso__srcline(struct dso *d, uint64_t vaddr, struct hws_symbol *out);
/* binutils' addr2line's file for @vaddr of loaded @d where no line covers it (see
 * hws_symbols__a2l_file()): the file name, "??", or NULL when it finds nothing */
const char *dso__a2l_file(struct dso *d, uint64_t vaddr);

/* ---- inline.c ---- */

/* perf's inline stack at @vaddr of loaded @d (see hws_symbols__inlines()); @sym_name: the
 * ELF symbol there. Return: the entries' count (0: none), or -ENOMEM. */
int dso__inlines(struct hws_symbols *s, struct dso *d, uint64_t vaddr, const char *sym_name,
		 const struct hws_inline_frame **out);
/* free @d's inline cache */
void dso__inl_free(struct dso *d);

/* ---- demangle.c ---- */

/* @name demangled (perf's style; with @params its parameter list too), malloc'ed, or NULL
 * when it is not a mangled name the demangler knows */
char *hws__demangle(const char *name, bool params);

/* ---- kallsyms.c ---- */

/* read the rest of the deferred kallsyms file (s->ks_fd >= 0) and parse it */
void kallsyms__finish(struct hws_symbols *s);
/* forget the kallsyms file and its symbols */
void kallsyms__drop(struct hws_symbols *s);
/* the kernel MMAP "[kernel.kallsyms]@name" at @addr: the reference for KASLR moves */
void kallsyms__kernel_ref(struct hws_symbols *s, const char *name, uint64_t addr);

#endif
