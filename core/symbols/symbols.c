// SPDX-License-Identifier: MIT
/*
 * Process maps and symbol lookup (see include/hwsample/symbols.h): the tables of processes,
 * their maps and the files they map, the lookups and their cache, formatting. Files are
 * loaded by elf.c, kernel symbols by kallsyms.c (core/symbols/symbols_int.h).
 *
 * Invariants:
 *  - each process's maps are sorted by start and never overlap: a new mapping cuts the old
 *    ones it covers (as mmap(MAP_FIXED) does in the kernel); an exec empties them (with
 *    opts.exec_history the old ones become an earlier image, consulted only for addresses
 *    no current map covers, and never widened into a range);
 *  - a file (struct dso) is interned once by path; its symbols, program headers and libelf /
 *    libdw handles exist only while it is "loaded"; at most max_files are loaded, the least
 *    recently used one is unloaded first, so name pointers handed out are only valid until
 *    the next lookup;
 *  - a file that failed to load is not retried (state DSO_FAILED);
 *  - a dso's symbol array is sorted by start address, one entry per address (chosen among
 *    aliases as perf does: sym_better()), sizes of size-0 functions extend to the next symbol.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/fmt.h>
#include <hwsample/sample.h>
#include <hwsample/symbols.h>

#include "symbols/symbols_core.h"
#include "symbols/symbols_int.h"
#include "util/internal.h"

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
	s->ps_at = UINT64_MAX; /* no answer yet */
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

/* free @p and the earlier images it chains */
static void proc_free_images(struct proc *p)
{
	while (p) {
		struct proc *n = p->prev;

		free(p->maps);
		free(p);
		p = n;
	}
}

void hws_symbols__delete(struct hws_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->procs && i < s->proc_buckets; i++) {
		struct proc *p = s->procs[i], *n;
		for (; p; p = n) {
			n = p->hnext;
			proc_free_images(p->prev);
			free(p->maps);
			free(p);
		}
	}
	for (size_t i = 0; s->dsos && i < s->dso_buckets; i++) {
		struct dso *d = s->dsos[i], *n;
		for (; d; d = n) {
			n = d->hnext;
			dso__free(d);
		}
	}
	kallsyms__drop(s);
	free(s->thr);
	free(s->procs);
	free(s->dsos);
	free(s->loaded);
	free(s->cache);
	free(s);
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

/* the slot of @tid in @tab (@size slots, a power of 2): its entry, or the free slot where it
 * goes */
static size_t thr_slot(const struct thr *tab, size_t size, uint32_t tid)
{
	size_t i = hash_u32(tid) & (size - 1);

	while (tab[i].used && tab[i].tid != tid)
		i = (i + 1) & (size - 1);
	return i;
}

static struct thr *thr_find(struct hws_symbols *s, uint32_t tid)
{
	struct thr *t = s->thr ? &s->thr[thr_slot(s->thr, s->thr_size, tid)] : NULL;

	return t && t->used ? t : NULL;
}

/* thread @tid, added (unnamed) if new; NULL: no memory */
static struct thr *thr_get(struct hws_symbols *s, uint32_t tid)
{
	struct thr *t = thr_find(s, tid);

	if (t)
		return t;
	if ((s->nr_thr + 1) * 2 > s->thr_size) {
		size_t ns = s->thr_size ? s->thr_size * 2 : 256;
		struct thr *n = calloc(ns, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t j = 0; j < s->thr_size; j++)
			if (s->thr[j].used)
				n[thr_slot(n, ns, s->thr[j].tid)] = s->thr[j];
		free(s->thr);
		s->thr = n;
		s->thr_size = ns;
	}
	t = &s->thr[thr_slot(s->thr, s->thr_size, tid)];
	s->nr_thr++;
	*t = (struct thr){.tid = tid, .used = true};
	return t;
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

int hws_symbols__build_id(struct hws_symbols *s, const char *path, const char *bid,
			  const char *copy)
{
	struct dso *d;

	if (!s || !path || !bid || !*bid)
		return -EINVAL;
	d = dso_get(s, path);
	if (!d)
		return -ENOMEM;
	if (d->state == DSO_LOADED || (d->state == DSO_SPECIAL && strcmp(path, "[vdso]")) ||
	    (!copy && d->state == DSO_SPECIAL))
		return 0; /* too late, or nothing to read */
	new_gen(s);	  /* the file read for @path may change */
	free(d->bid);
	free(d->bid_copy);
	d->bid = strdup(bid);
	d->bid_copy = copy ? strdup(copy) : NULL;
	d->bid_match = 0;
	if (!d->bid || (copy && !d->bid_copy))
		return -ENOMEM;
	if (d->state == DSO_SPECIAL && !s->opts.no_elf) /* [vdso]: its image in the cache */
		d->state = DSO_UNLOADED;
	return 0;
}

int hws_symbols__comm(struct hws_symbols *s, uint32_t pid, uint32_t tid, const char *comm,
		      bool exec)
{
	struct proc *p = proc_get(s, pid);
	struct thr *t = thr_get(s, tid);

	if (!p || !t)
		return -ENOMEM;
	p->pstate = ++s->state; /* the comm a pid shows may change */
	t->pid = pid;
	t->set = true;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	if (exec && pid == tid) {
		/* exec replaced the address space: the new MMAP records follow */
		p->maps_gen = ++s->maps_serial;
		new_gen_of(s, p);
		if (s->opts.exec_history && p->nr) {
			struct proc *old = malloc(sizeof(*old)), *q = p;
			unsigned int k = 0;

			if (!old)
				return -ENOMEM;
			*old = *p;
			old->hnext = NULL;
			p->maps = NULL;
			p->alloc = 0;
			p->prev = old;
			/* bounded: the oldest image goes */
			while (q->prev && ++k < MAX_EXEC_IMAGES)
				q = q->prev;
			proc_free_images(q->prev);
			q->prev = NULL;
		}
		p->nr = 0;
	}
	if (pid == tid || !p->comm[0])
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	return 0;
}

int hws_symbols__fork_thread(struct hws_symbols *s, uint32_t pid, uint32_t ppid, uint32_t tid,
			     uint32_t ptid)
{
	struct thr *t = thr_get(s, tid), n = {.tid = tid, .pid = pid, .used = true};
	const struct thr *pt = thr_find(s, ptid); /* after thr_get(), which may move them */
	struct proc *p;

	if (!t)
		return -ENOMEM;
	/* perf (machine__process_fork_event(), thread__fork()): a new thread, whatever had
	 * this tid before, named as the thread that made it if that one has a name */
	s->state++;
	if ((p = proc_find(s, pid))) /* its samples' names may change (hws_symbols__pid_state()) */
		p->pstate = s->state;
	if (pt && pt->set) {
		n.set = true;
		memcpy(n.comm, pt->comm, sizeof(n.comm));
	}
	*t = n;
	return hws_symbols__fork(s, pid, ppid);
}

int hws_symbols__fork(struct hws_symbols *s, uint32_t pid, uint32_t ppid)
{
	struct proc *parent, *child;

	if (pid == ppid)
		return 0; /* a new thread shares the maps */
	parent = proc_find(s, ppid);
	child = proc_get(s, pid);
	if (!child)
		return -ENOMEM;
	new_gen_of(s, child);
	child->nr = 0;
	child->maps_gen = ++s->maps_serial;
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

	if (p && p->comm[0])
		return p->comm;
	/* the idle task: perf names it "swapper" (machine__idle_thread()) unless a COMM says
	 * otherwise; system-wide recordings have no COMM for it */
	return pid ? NULL : "swapper";
}

const char *hws_symbols__tid_comm(struct hws_symbols *s, uint32_t tid)
{
	const struct thr *t = thr_find(s, tid);

	if (t && t->set)
		return t->comm;
	return tid ? NULL : "swapper"; /* as hws_symbols__pid_comm() */
}

const char *hws_symbols__sample_comm(struct hws_symbols *s, const struct hws_sample *smp)
{
	return s && (smp->fields & HWS_SF_PID) ? hws_symbols__tid_comm(s, smp->tid) : NULL;
}

const char *hws_symbols__comm_or_tid(struct hws_symbols *s, const struct hws_sample *smp,
				     char buf[HWS_COMM_TID_LEN])
{
	const char *c = hws_symbols__sample_comm(s, smp);

	if (c)
		return c;
	buf[0] = ':'; /* without printf: dump's text line takes this for every sample of a file
		       * without COMM records */
	*hws_fmt__pid(buf + 1, smp->tid) = 0;
	return buf;
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

/* a mapping of @filename (@perfmap: a JIT's perf map, looked up at the process's addresses) */
static int mmap_add(struct hws_symbols *s, uint32_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *filename, bool perfmap)
{
	struct map nm, left = {0}, right = {0};
	bool has_left = false, has_right = false;
	struct proc *p;
	size_t i, j, add;

	if (!len || start + len < start)
		return 0;
	if (pid == KERNEL_PID && filename && !strncmp(filename, "[kernel.kallsyms]", 17))
		kallsyms__kernel_ref(s, filename + 17, pgoff);
	p = proc_get(s, pid);
	if (!p)
		return -ENOMEM;
	new_gen_of(s, pid == KERNEL_PID ? NULL : p); /* kernel maps: every process's */
	nm.start = start;
	nm.end = start + len;
	nm.pgoff = pgoff;
	nm.dso = dso_get(s, filename && *filename ? filename : "//anon");
	if (!nm.dso)
		return -ENOMEM;
	if (perfmap && nm.dso->state == DSO_UNLOADED)
		nm.dso->perfmap = true;

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
	p->maps_gen = ++s->maps_serial;
	s->st.maps++;
	return 0;
}

/* memory perf gives a JIT's perf map when it is executable (map__new(): is_anon_memory(),
 * is_no_dso_memory()) */
static bool jit_memory(const char *f)
{
	return !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) ||
	       !strncmp(f, "/anon_hugepage", 14) || !strncmp(f, "[stack", 6) ||
	       !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]");
}

int hws_symbols__mmap_prot(struct hws_symbols *s, uint32_t pid, uint64_t start, uint64_t len,
			   uint64_t pgoff, uint32_t prot, const char *filename)
{
	char jit[40];

	if (!filename || !*filename)
		filename = "//anon";
	if ((prot & HWS_PROT_EXEC) && pid != KERNEL_PID && jit_memory(filename)) {
		snprintf(jit, sizeof(jit), "/tmp/perf-%d.map", (int)pid);
		return mmap_add(s, pid, start, len, pgoff, jit, true);
	}
	return mmap_add(s, pid, start, len, pgoff, filename, false);
}

int hws_symbols__mmap(struct hws_symbols *s, uint32_t pid, uint64_t start, uint64_t len,
		      uint64_t pgoff, const char *filename)
{
	return mmap_add(s, pid, start, len, pgoff, filename, false);
}

/* whether the file at @d's path is the one recorded (its build-id is @d->bid), checked once
 * per build-id given (as dso__load() chooses between the file and the cache copy) */
static bool dso_is_recorded(struct dso *d)
{
	char hex[48];

	if (!d->bid_match) {
		int n = hws__file_build_id(d->path, hex, sizeof(hex));

		d->bid_match = n > 0 && !strcmp(hex, d->bid) ? 1 : -1;
	}
	return d->bid_match > 0;
}

int hws_symbols__map_find(struct hws_symbols *s, uint32_t pid, uint64_t addr,
			  struct hws_map_info *mi)
{
	const struct proc *p = proc_find(s, pid);
	struct dso *d;
	size_t i;

	if (!p)
		return -ESRCH;
	mi->maps_gen = p->maps_gen;
	i = map_lower(p, addr);
	if (i >= p->nr || p->maps[i].start > addr)
		return -ENOENT;
	d = p->maps[i].dso;
	mi->path = d->path;
	mi->file = d->state != DSO_SPECIAL;
	if (d->bid_copy && !strcmp(mi->path, "[vdso]"))
		mi->path = d->bid_copy; /* the image, where a file is needed */
	else if (mi->file && d->bid && !dso_is_recorded(d) && d->bid_copy)
		mi->path = d->bid_copy; /* rebuilt since: the recording's file, as dso__load() */
	else if (mi->file && d->bid && !dso_is_recorded(d))
		mi->file = false; /* another file now, and no copy of the recorded one */
	mi->start = p->maps[i].start;
	mi->end = p->maps[i].end;
	mi->pgoff = p->maps[i].pgoff;
	return 0;
}

uint64_t hws_symbols__maps_gen(struct hws_symbols *s, uint32_t pid)
{
	const struct proc *p = proc_find(s, pid);

	return p ? p->maps_gen : 0;
}

uint64_t hws_symbols__answers_gen(const struct hws_symbols *s)
{
	return s ? s->answers_gen + 1 : 0;
}

/* ------------------------------------------------------------------ symbol tables */

/* address order; at one address the table's own order (names are stored in that order) */
static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static size_t lead_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Of two symbols at one address, is @y (@ysized) a better name than @x (@xsized, kept until
 * now)? perf's choose_best_symbol(), so both tools name an address alike: a sized one over a
 * size-0 one, not weak over weak, global over local, fewer leading underscores, the longer
 * name, not a "SyS"/"compat_SyS" syscall alias; on a full tie the first one stays. "Sized" as
 * perf sees it after its symbols__fixup_end(), which runs first: a size-0 symbol that is the
 * last of its address (and not of the table) reaches the next address, the others stay 0
 * (so of kallsyms' aliases, all of size 0, the last one listed wins).
 */
static bool sym_better(const struct dso *d, const struct sym *x, bool xsized, const struct sym *y,
		       bool ysized)
{
	const char *xn = d->names + x->name, *yn = d->names + y->name;
	size_t a, b;

	if (xsized != ysized)
		return ysized;
	if ((x->bind_rank == SYM_BIND_WEAK) != (y->bind_rank == SYM_BIND_WEAK))
		return x->bind_rank == SYM_BIND_WEAK;
	if ((x->bind_rank == SYM_BIND_GLOBAL) != (y->bind_rank == SYM_BIND_GLOBAL))
		return y->bind_rank == SYM_BIND_GLOBAL;
	a = lead_underscores(xn);
	b = lead_underscores(yn);
	if (a != b)
		return b < a;
	a = strlen(xn);
	b = strlen(yn);
	if (a != b)
		return b > a;
	return !strncmp(xn, "SyS", 3) || !strncmp(xn, "compat_SyS", 10);
}

void dso__finish_syms(struct dso *d, uint64_t last_size, bool all)
{
	size_t n = 0;
	bool sorted = true;

	if (!d->nr_syms)
		return;
	/* kallsyms is in address order, with aliases at one address: sorting by address alone
	 * is enough when the best of each address is kept below */
	for (size_t i = 1; i < d->nr_syms && sorted; i++)
		sorted = d->syms[i - 1].start <= d->syms[i].start;
	if (!sorted)
		hws__qsort(d->syms, d->nr_syms, sizeof(*d->syms), sym_cmp);
	for (size_t i = 0, end; i < d->nr_syms; i = end) {
		size_t best = i;

		for (end = i + 1; end < d->nr_syms && d->syms[end].start == d->syms[i].start; end++)
			;
		for (size_t j = i + 1; j < end; j++) {
			bool bsized = d->syms[best].size || (best == end - 1 && end < d->nr_syms);
			bool jsized = d->syms[j].size || (j == end - 1 && end < d->nr_syms);

			if (sym_better(d, &d->syms[best], bsized, &d->syms[j], jsized))
				best = j;
		}
		d->syms[n++] = d->syms[best];
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

/* ------------------------------------------------------------------ lookups */

/* @d loaded (its LRU tick refreshed, and noted as the file this lookup touched): 0, or
 * -ENOENT if it cannot be */
static inline int dso_load(struct hws_symbols *s, struct dso *d)
{
	d->lru = ++s->tick;
	s->touched = d;
	if (d->state != DSO_UNLOADED)
		return d->state == DSO_LOADED ? 0 : -ENOENT;
	return dso__load(s, d);
}

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
	/* no symbols (an empty perf map): no table, and NULL + 0 is undefined */
	const struct sym *y = d->last[data], *end = d->syms ? d->syms + d->nr_syms : NULL;

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
	dso__srcline(d, vaddr, out);
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
		kallsyms__finish(s);
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

static int resolve_in(struct hws_symbols *s, const struct proc *p, uint64_t addr, bool data,
		      struct hws_symbol *out, uint64_t *lo, uint64_t *hi);

/* hws_symbols__resolve() without the cache; [*lo, *hi] as hws_symbols__resolve_range() */
static int resolve(struct hws_symbols *s, uint32_t pid, uint64_t addr, bool data,
		   struct hws_symbol *out, uint64_t *lo, uint64_t *hi)
{
	struct proc *p;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->dso_addr = addr;
	*lo = *hi = addr;
	if ((int64_t)addr < 0)
		return kernel_resolve(s, addr, out, lo, hi);
	p = proc_find(s, pid);
	if (p && p->prev) {
		/* an earlier image (exec_history) answers where no current map does */
		const struct proc *q = p;

		i = p->nr ? map_lower(p, addr) : 0;
		if (i >= p->nr || p->maps[i].start > addr) {
			for (q = p->prev; q; q = q->prev) {
				i = q->nr ? map_lower(q, addr) : 0;
				if (i < q->nr && q->maps[i].start <= addr)
					break;
			}
		}
		if (q != p) {
			int ret = resolve_in(s, q ? q : p, addr, data, out, lo, hi);

			*lo = *hi = addr; /* other images may cover the neighbours */
			return ret;
		}
	}
	return resolve_in(s, p, addr, data, out, lo, hi);
}

/* resolve() in process image @p (NULL: none) */
static int resolve_in(struct hws_symbols *s, const struct proc *p, uint64_t addr, bool data,
		      struct hws_symbol *out, uint64_t *lo, uint64_t *hi)
{
	const struct map *m = NULL;
	uint64_t vlo, vhi;
	bool first;
	size_t i;

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
			/* a hole ends below the kernel's half, whatever map comes next ([vsyscall]
			 * is up there): a cached range must not answer kernel addresses (a garbage
			 * user frame left a process's kernel samples unnamed) */
			if (*hi > (uint64_t)INT64_MAX)
				*hi = INT64_MAX;
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
		if (m->dso->perfmap)
			out->dso_addr = addr; /* perf: identity__map_ip() */
		return 0;
	}
	if (m->dso->perfmap) { /* a JIT's map: its symbols are at the process's addresses */
		out->dso_addr = addr;
		fill_sym(s, m->dso, addr, data, out, &vlo, &vhi);
		return out->name != NULL;
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
	s->touched = NULL;
	/* answers without any search (no kernel symbols, a process without maps) are cheaper
	 * than the cache: every sample a new address would only fill it */
	if ((int64_t)addr < 0 ? !s->kallsyms && s->ks_fd < 0 : !(p = proc_find(s, pid)) || !p->nr)
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
		s->touched = c->touched;
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

		*r =
		    (struct rrange){lo, hi, addr, pid, s->gen, data, (int8_t)ret, s->touched, *out};
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

const char *hws_symbols__a2l_file(struct hws_symbols *s, const char *path, uint64_t vaddr)
{
	struct dso *d;

	if (special_path(path) || !(d = dso_get(s, path)) || dso_load(s, d))
		return NULL;
	return dso__a2l_file(d, vaddr);
}

int hws_symbols__inlines(struct hws_symbols *s, uint32_t pid, uint64_t addr,
			 const struct hws_inline_frame **frames)
{
	const struct proc *p;
	const struct map *m;
	const struct sym *y;
	uint64_t vaddr;
	size_t i;

	*frames = NULL;
	if ((int64_t)addr < 0 || !(p = proc_find(s, pid)) || !p->nr)
		return 0;
	i = map_lower(p, addr);
	if (i >= p->nr || p->maps[i].start > addr)
		return 0;
	m = &p->maps[i];
	if (m->dso->state == DSO_SPECIAL || dso_load(s, m->dso) ||
	    !map_to_vaddr(m->dso, m, addr, &vaddr))
		return 0;
	/* as perf: only addresses with an ELF symbol get an inline stack */
	y = m->dso->nr_syms ? sym_find(m->dso, vaddr, false) : NULL;
	if (!y)
		return 0;
	return dso__inlines(s, m->dso, vaddr, m->dso->names + y->name, frames);
}

bool hws_inline__wanted(int mode, uint8_t flags, uint8_t ctx)
{
	if (mode == HWS_INLINE_NONE)
		return false;
	if (mode == HWS_INLINE_ALL)
		return ctx != HWS_CTX_KERNEL && ctx != HWS_CTX_GUEST_KERNEL && ctx != HWS_CTX_HV;
	return (flags & HWS_FRAME_UNWOUND) != 0;
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

uint64_t hws_symbols__state(const struct hws_symbols *s)
{
	return s->state;
}

uint64_t hws_symbols__pid_state(struct hws_symbols *s, uint32_t pid)
{
	const struct proc *p;

	/* every change of either bumps s->state (a new process starts with no state of its
	 * own): the last answer holds for its pid until then */
	if (pid == s->ps_pid && s->state == s->ps_at)
		return s->ps_val;
	p = proc_find(s, pid);
	s->ps_pid = pid;
	s->ps_at = s->state;
	/* both are values s->state took: the larger changes with either, and never repeats */
	s->ps_val = p && p->pstate > s->gstate ? p->pstate : s->gstate;
	return s->ps_val;
}

void *hws_symbols__touched(const struct hws_symbols *s)
{
	return s->touched;
}

void hws_symbols__touch(struct hws_symbols *s, void *file)
{
	struct dso *d = file;

	s->st.lookups++;
	if (d)
		d->lru = ++s->tick;
}

bool hws_symbols__in_kernel_map(struct hws_symbols *s, uint64_t addr)
{
	struct proc *p = proc_find(s, KERNEL_PID);

	if ((int64_t)addr >= 0)
		return false;
	/* perf's kernel map runs from the kernel MMAP's start to the top; a file without one
	 * gives perf no kernel map (it makes it when it reads that MMAP) */
	return p && p->nr && addr >= p->maps[0].start;
}
