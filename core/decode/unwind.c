// SPDX-License-Identifier: MIT
/*
 * DWARF unwinding of user stack copies with libdw (see unwind.h for the interface and its
 * invariants). libdw does the CFI work: this file gives it, per process, the ELF files the
 * process maps (from core/symbols), the sampled registers in DWARF numbering, and reads of
 * the stack copy; it then walks the frames and adds the inlined calls from DWARF scopes.
 *
 * Invariants (beyond unwind.h's):
 *  - a cached process is valid while hws_symbols__maps_gen() of its pid is the one it was
 *    built at; each rebuild gets a new serial, the key of the inline-count cache;
 *  - the callbacks libdw calls see the sample being unwound through u->cur* only during
 *    hws_unwind__user();
 *  - a file that failed to open as ELF is remembered per process (bad[], bounded) and not
 *    retried for that process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <linux/perf_event.h>

#include "decode/unwind.h"
#include "decode/unwind_cfi.h"
#include "symbols/symbols_core.h"

#define DEF_MAX_FRAMES 127
#define DEF_MAX_USEC   50000
#define CHECK_EVERY    8  /* frames between looks at the clock */
#define FIRST_CHECK    16 /* the first look (the budget starts there) */
#define DEF_MAX_PROCS  32
#define MAX_BAD	       16 /* failed files remembered per process */
#define ICACHE_BITS    12
#define ICACHE_SIZE    (1u << ICACHE_BITS)

/* perf's register numbers (arch/<arch>/include/uapi/asm/perf_regs.h) */
#define X86_PERF_SP   7
#define X86_PERF_IP   8
#define ARM64_PERF_SP 31
#define ARM64_PERF_PC 32

/* x86_64 DWARF register n (0..16: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip) is perf's: */
static const unsigned char x86_64_dwarf_to_perf[17] = {0,  3,  2,  1,  4,  5,  6,  7, 16,
						       17, 18, 19, 20, 21, 22, 23, 8};

struct uw_proc {
	uint32_t pid;
	bool used;
	bool attached;	   /* dwfl_attach_state() done */
	bool attach_fail;  /* ... and failed: no unwinding for this process */
	bool eager;	   /* libdw walks here: its files' DWARF CFI loaded when reported */
	uint64_t maps_gen; /* hws_symbols__maps_gen() it was built at */
	uint64_t serial;   /* unique per build */
	uint64_t lru;
	Dwfl *dwfl;
	uint64_t bad[MAX_BAD]; /* start addresses of maps whose file failed */
	unsigned int nbad;
};

struct icache {
	uint64_t pc, serial; /* serial 0: empty */
	uint16_t n;	     /* inlined calls at pc */
};

/* a named frame (hws_unwind__inline()); names are libdw's, valid while the Dwfl lives */
struct ncache {
	uint64_t pc, serial; /* serial 0: empty */
	uint16_t depth;
	bool found;
	struct hws_inline_info info;
};

struct hws_unwinder {
	struct hws_symbols *syms;
	struct hws_unwind_opts o;
	struct hws_unwind_stats st;
	struct uw_proc *procs;
	uint64_t tick, serial;
	char *debuginfo_path; /* NULL: libdw's default (.debug, /usr/lib/debug) */
	Dwfl_Callbacks cb;
	struct icache *icache;
	struct ncache *ncache;
	/* the fast path's rules (unwind_cfi.h) */
	struct ucfi_cache *cfi;
	int vdso_fd; /* memfd holding this process's vDSO image, -1: none (yet) */
	bool vdso_tried;
	char vdso_path[32]; /* /proc/self/fd/N */
	/* the sample being unwound */
	struct uw_proc *cur;
	int machine; /* EM_X86_64 / EM_AARCH64 of the sampled ip's file */
	const uint64_t *regs;
	uint64_t mask;
	unsigned int nr_regs;
	const uint8_t *stack;
	uint64_t stack_size, sp;
	struct hws_frame *out;
	int n, max;
	uint32_t phys;	   /* frames walked (inline ones not counted) */
	uint64_t deadline; /* now_ns() + budget, less slow_ns */
	bool timeout, full, read_fail;
	/* libdw's module list must not change while it walks frames (its lookup tables are
	 * rebuilt by dwfl_report_end()): a file first needed during the walk is noted here,
	 * the walk stopped, the file reported, and the walk done again */
	bool walking;
	uint64_t pending; /* an address whose file is to be reported (0: none) */
	uint64_t slow_ns; /* time spent opening files and loading DWARF: not charged */
	/* hws_unwind__inline() scratch */
	Dwarf_Die cudie;
};

/* this thread's CPU time: the budget is the unwinder's work, not the time the (shared,
 * loaded) machine took it off the CPU */
static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ------------------------------------------------------------------ processes and files */

static void proc_drop(struct uw_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
}

static struct uw_proc *proc_get(struct hws_unwinder *u, uint32_t pid)
{
	uint64_t gen = hws_symbols__maps_gen(u->syms, pid);
	struct uw_proc *p = NULL, *victim = &u->procs[0];

	for (uint32_t i = 0; i < u->o.max_procs; i++) {
		struct uw_proc *x = &u->procs[i];
		if (x->used && x->pid == pid) {
			p = x;
			break;
		}
		if (!x->used ? victim->used : (victim->used && x->lru < victim->lru))
			victim = x;
	}
	if (p && p->maps_gen != gen)
		proc_drop(p); /* its maps changed: rebuild */
	else if (p) {
		p->lru = ++u->tick;
		return p;
	} else {
		p = victim;
		proc_drop(p);
	}
	p->dwfl = dwfl_begin(&u->cb);
	if (!p->dwfl)
		return NULL;
	p->used = true;
	p->pid = pid;
	p->maps_gen = gen;
	p->serial = ++u->serial;
	p->lru = ++u->tick;
	u->st.dwfl_new++;
	return p;
}

static bool proc_bad(const struct uw_proc *p, uint64_t start)
{
	for (unsigned int i = 0; i < p->nbad; i++)
		if (p->bad[i] == start)
			return true;
	return false;
}

/*
 * Load bias of the file mapped by @mi: where its vaddr 0 lies, from the PT_LOAD whose file
 * range holds the map's offset. false if none does.
 */
static bool map_bias(Elf *elf, const struct hws_map_info *mi, GElf_Addr *bias)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (mi->pgoff < (ph.p_offset & ~0xfffULL) ||
		    mi->pgoff >= ph.p_offset + (ph.p_filesz ? ph.p_filesz : 1))
			continue;
		*bias = mi->start - mi->pgoff + ph.p_offset - ph.p_vaddr;
		return true;
	}
	return false;
}

static Dwfl_Module *report_file(struct hws_unwinder *u, struct uw_proc *p,
				const struct hws_map_info *mi);

/*
 * The vDSO's ELF image, for "[vdso]" maps: the kernel leaves no file of it, so this
 * process's own copy is used, as perf does (right when the recording ran on this kernel).
 * Written once to a memfd; NULL when it cannot be.
 */
static const char *own_vdso(struct hws_unwinder *u)
{
	char line[512];
	FILE *f;

	if (u->vdso_tried)
		return u->vdso_fd >= 0 ? u->vdso_path : NULL;
	u->vdso_tried = true;
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (!strstr(line, "[vdso]") || sscanf(line, "%lx-%lx", &lo, &hi) != 2 || hi <= lo)
			continue;
		u->vdso_fd = memfd_create("hws-vdso", MFD_CLOEXEC);
		if (u->vdso_fd >= 0 &&
		    write(u->vdso_fd, (const void *)lo, hi - lo) != (ssize_t)(hi - lo)) {
			close(u->vdso_fd);
			u->vdso_fd = -1;
		}
		break;
	}
	if (f)
		fclose(f);
	if (u->vdso_fd < 0)
		return NULL;
	snprintf(u->vdso_path, sizeof(u->vdso_path), "/proc/self/fd/%d", u->vdso_fd);
	return u->vdso_path;
}

/* The libdw module of @addr in process @p, reporting its file to libdw at its first use. */
static Dwfl_Module *report_module(struct hws_unwinder *u, struct uw_proc *p, uint64_t addr)
{
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, addr);
	struct hws_map_info mi;

	uint64_t t0;

	if (mod)
		return mod;
	if (hws_symbols__map_find(u->syms, p->pid, addr, &mi) || proc_bad(p, mi.start))
		return NULL;
	if (!mi.file && !strcmp(mi.path, "[vdso]"))
		mi.path = own_vdso(u);
	else if (!mi.file)
		return NULL;
	if (!mi.path)
		return NULL;
	if (u->walking) {
		if (!u->pending)
			u->pending = addr;
		return NULL;
	}
	t0 = now_ns();
	mod = report_file(u, p, &mi);
	u->slow_ns += now_ns() - t0;
	return mod;
}

static Dwfl_Module *report_file(struct hws_unwinder *u, struct uw_proc *p,
				const struct hws_map_info *mi)
{
	Dwfl_Module *mod;
	GElf_Addr bias = 0;
	const char *base;
	bool ok;
	Elf *elf;
	int fd;

	fd = hws_symbols__open_input(mi->path, 64); /* a regular file, never a FIFO */
	if (fd < 0)
		goto bad;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = elf && elf_kind(elf) == ELF_K_ELF && map_bias(elf, mi, &bias);
	elf_end(elf);
	if (!ok)
		goto bad_fd;
	base = strrchr(mi->path, '/');
	base = mi->path == u->vdso_path ? "[vdso]" : base ? base + 1 : mi->path;
	dwfl_report_begin_add(p->dwfl);
	mod = dwfl_report_elf(p->dwfl, base, mi->path, fd, bias, false); /* takes fd */
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!mod)
		goto bad_fd;
	/* load the CFI now (and, once libdw walks this process, find the debuginfo, which may
	 * have .debug_frame), so that the time it takes is not charged to the sample's
	 * unwinding budget; the fast path reads .eh_frame only */
	dwfl_module_eh_cfi(mod, &bias);
	if (p->eager)
		dwfl_module_dwarf_cfi(mod, &bias);
	u->st.modules++;
	return mod;
bad_fd:
	close(fd);
bad:
	u->st.bad_files++;
	if (p->nbad < MAX_BAD)
		p->bad[p->nbad++] = mi->start;
	return NULL;
}

/* ------------------------------------------------------------------ libdw callbacks */

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct hws_unwinder *u = arg;

	if (*thread_argp || !u->cur)
		return 0;
	*thread_argp = arg;
	return dwfl_pid(dwfl);
}

/* a value of the file mapped at @addr (read-only data: PLT, .got of a non-writable copy) */
static bool read_file_word(struct hws_unwinder *u, uint64_t addr, Dwarf_Word *res)
{
	Dwfl_Module *mod = report_module(u, u->cur, addr);
	GElf_Addr bias;
	size_t n, len;
	Elf *elf;
	char *raw;

	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)) || elf_getphdrnum(elf, &n))
		return false;
	raw = elf_rawfile(elf, &len);
	if (!raw)
		return false;
	addr -= bias;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t off;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr < ph.p_vaddr || ph.p_filesz < 8 || addr - ph.p_vaddr > ph.p_filesz - 8)
			continue;
		off = ph.p_offset + (addr - ph.p_vaddr);
		if (off > len || len - off < 8)
			return false;
		memcpy(res, raw + off, 8);
		return true;
	}
	return false;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *res, void *arg)
{
	struct hws_unwinder *u = arg;

	(void)dwfl;
	if (!u->cur)
		return false;
	if (addr >= u->sp && u->stack_size >= 8 && addr - u->sp <= u->stack_size - 8) {
		memcpy(res, u->stack + (addr - u->sp), 8);
		return true;
	}
	if (read_file_word(u, addr, res))
		return true;
	/* libdw ends the chain quietly (the caller's pc "undefined"): remember a read past
	 * the copy or of garbage, the chain may end early. Reads just below sp are not: in an
	 * epilogue the CFI still says where registers already popped were saved. */
	if (addr >= u->sp || u->sp - addr > 4096)
		u->read_fail = true;
	return false;
}

/* perf register @r of the sample, false if not sampled */
static bool perf_reg(const struct hws_unwinder *u, unsigned int r, uint64_t *v)
{
	unsigned int idx;

	if (r >= 64 || !(u->mask & (1ULL << r)))
		return false;
	idx = (unsigned int)__builtin_popcountll(u->mask & ((1ULL << r) - 1));
	if (idx >= u->nr_regs)
		return false;
	*v = u->regs[idx];
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct hws_unwinder *u = arg;
	Dwarf_Word v;

	if (u->machine == EM_X86_64) {
		for (unsigned int d = 0; d < 17; d++)
			if (perf_reg(u, x86_64_dwarf_to_perf[d], &v) &&
			    !dwfl_thread_state_registers(thread, (int)d, 1, &v))
				return false;
		if (!perf_reg(u, X86_PERF_IP, &v))
			return false;
		dwfl_thread_state_register_pc(thread, v);
		return true;
	}
	if (u->machine == EM_AARCH64) {
		for (unsigned int d = 0; d < 32; d++)
			if (perf_reg(u, d, &v) &&
			    !dwfl_thread_state_registers(thread, (int)d, 1, &v))
				return false;
		if (!perf_reg(u, ARM64_PERF_PC, &v))
			return false;
		dwfl_thread_state_register_pc(thread, v);
		return true;
	}
	return false;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
    .next_thread = cb_next_thread,
    .get_thread = cb_get_thread,
    .memory_read = cb_memory_read,
    .set_initial_registers = cb_set_initial_registers,
};

/* ------------------------------------------------------------------ inline frames */

#define MAX_INLINE 64 /* inlined calls followed at one address */

/* the first function scope (inlined call or subprogram) of @sc[from..n) */
static int first_func(Dwarf_Die *sc, int from, int n)
{
	for (int i = from; i < n; i++) {
		int tag = dwarf_tag(&sc[i]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			return i;
	}
	return -1;
}

/*
 * The functions at @pc of @mod, innermost first: the inlined calls (chain[0..k-1]) then the
 * function they are inlined into (chain[k], when found). Each next one is the function
 * scope around the previous one in the concrete DIE tree (dwarf_getscopes() follows an
 * inlined call into its abstract definition instead). Returns k; *has_sub: chain[k] is set.
 */
static int inline_chain(struct hws_unwinder *u, Dwfl_Module *mod, uint64_t pc, Dwarf_Die *chain,
			bool *has_sub)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), *sc = NULL;
	int n, i, k = 0;

	*has_sub = false;
	if (!cu)
		return 0;
	u->cudie = *cu;
	n = dwarf_getscopes(cu, pc - bias, &sc);
	i = n > 0 ? first_func(sc, 0, n) : -1;
	while (i >= 0) {
		Dwarf_Die d = sc[i];
		if (dwarf_tag(&d) == DW_TAG_subprogram) {
			chain[k] = d;
			*has_sub = true;
			break;
		}
		if (k == MAX_INLINE)
			break;
		chain[k++] = d;
		free(sc);
		sc = NULL;
		n = dwarf_getscopes_die(&d, &sc); /* sc[0] is d, then its parents */
		i = n > 1 ? first_func(sc, 1, n) : -1;
	}
	free(sc);
	if (!*has_sub) {
		Dwarf_Die walk[MAX_INLINE + 1];
		/* the function scopes for CUs where dwarf_getscopes() finds nothing, such as
		 * LTO's "<artificial>" unit (concrete functions referring to abstract ones in
		 * other units) */
		int m = hws_dwarf__walk_scopes(cu, pc - bias, walk, MAX_INLINE + 1);

		if (m && dwarf_tag(&walk[0]) == DW_TAG_subprogram) {
			for (k = 0; k < m; k++)
				chain[k] = walk[m - 1 - k];
			*has_sub = true;
			return m - 1;
		}
	}
	return k;
}

/* inlined calls at @pc */
static unsigned int inline_count(struct hws_unwinder *u, struct uw_proc *p, uint64_t pc)
{
	struct icache *c = &u->icache[((pc >> 1) ^ (p->serial * 0x9E3779B1u)) & (ICACHE_SIZE - 1)];
	Dwarf_Die chain[MAX_INLINE + 1];
	Dwfl_Module *mod;
	bool has_sub;
	uint64_t t0;
	int k;

	if (c->serial == p->serial && c->pc == pc)
		return c->n;
	t0 = now_ns();
	mod = dwfl_addrmodule(p->dwfl, pc);
	k = mod ? inline_chain(u, mod, pc, chain, &has_sub) : 0;
	c->pc = pc;
	c->serial = p->serial;
	c->n = (uint16_t)k;
	u->slow_ns += now_ns() - t0;
	return (unsigned int)k;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s;

	if (dwarf_attr_integrate(die, DW_AT_name, &a) && (s = dwarf_formstring(&a)))
		return s;
	return NULL;
}

/* DW_AT_call_file / DW_AT_call_line of inlined call @die */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, struct hws_inline_info *out)
{
	Dwarf_Attribute a;
	Dwarf_Word file = 0, line = 0;
	Dwarf_Files *files;
	size_t nfiles;

	out->file = NULL;
	out->line = 0;
	if (!dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &file))
		return;
	if (dwarf_attr(die, DW_AT_call_line, &a) && !dwarf_formudata(&a, &line))
		out->line = (uint32_t)line;
	if (!dwarf_getsrcfiles(cu, &files, &nfiles) && file < nfiles)
		out->file = dwarf_filesrc(files, file, NULL, NULL);
}

static struct ncache *ncache_slot(struct hws_unwinder *u, uint64_t serial, uint64_t pc,
				  unsigned int depth)
{
	uint64_t h = (pc ^ (serial << 20) ^ ((uint64_t)depth << 7)) * 0x9E3779B97F4A7C15ULL;

	return &u->ncache[h >> (64 - ICACHE_BITS)];
}

/* name @depth at @ip from its chain (k inlined calls; chain[k] the function if has_sub) */
static bool chain_info(struct hws_unwinder *u, Dwfl_Module *mod, uint64_t ip, Dwarf_Die *chain,
		       int k, bool has_sub, unsigned int depth, struct hws_inline_info *out)
{
	unsigned int idx;

	memset(out, 0, sizeof(*out));
	if (depth > (unsigned int)k || (depth == 0 && !has_sub))
		return false;
	/* depth d >= 1 is chain[d - 1]; depth 0 the function all of it is inlined into */
	idx = depth ? depth - 1 : (unsigned int)k;
	out->name = die_name(&chain[idx]);
	if (idx > 0) {
		call_site(&u->cudie, &chain[idx - 1], out);
	} else {
		Dwfl_Line *l = dwfl_module_getsrc(mod, ip);
		int line = 0;
		if (l)
			out->file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
		out->line = line > 0 ? (uint32_t)line : 0;
	}
	return out->name != NULL;
}

int hws_unwind__inline(struct hws_unwinder *u, uint32_t pid, uint64_t ip, unsigned int inline_depth,
		       struct hws_inline_info *out)
{
	Dwarf_Die chain[MAX_INLINE + 1];
	struct uw_proc *p;
	struct ncache *c;
	Dwfl_Module *mod;
	bool has_sub;
	int k;

	if (!u || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	p = proc_get(u, pid);
	if (!p)
		return -ENOMEM;
	c = ncache_slot(u, p->serial, ip, inline_depth);
	if (c->serial == p->serial && c->pc == ip && c->depth == inline_depth) {
		*out = c->info;
		return c->found ? 0 : -ENOENT;
	}
	mod = report_module(u, p, ip);
	k = mod ? inline_chain(u, mod, ip, chain, &has_sub) : 0;
	if (!mod)
		has_sub = false;
	/* every depth of this address at once: callers name the whole group */
	for (unsigned int d = 0; d <= (unsigned int)k; d++) {
		struct ncache *e = ncache_slot(u, p->serial, ip, d);
		e->found = chain_info(u, mod, ip, chain, k, has_sub, d, &e->info);
		e->pc = ip;
		e->serial = p->serial;
		e->depth = (uint16_t)d;
	}
	if (inline_depth > (unsigned int)k)
		return -ENOENT;
	c = ncache_slot(u, p->serial, ip, inline_depth);
	*out = c->info;
	return c->found ? 0 : -ENOENT;
}

/* ------------------------------------------------------------------ unwinding */

/* the budget starts at the first look at the clock (at FIRST_CHECK frames: short chains,
 * most of them, never read it) */
static bool past_deadline(struct hws_unwinder *u)
{
	uint64_t t = now_ns() - u->slow_ns;

	if (!u->deadline) {
		u->deadline = t + (uint64_t)u->o.max_usec * 1000;
		return false;
	}
	return t > u->deadline;
}

static void push(struct hws_unwinder *u, uint64_t ip, uint8_t flags, uint16_t depth)
{
	struct hws_frame *f = &u->out[u->n++];

	f->ip = ip;
	f->ctx = HWS_CTX_USER;
	f->flags = HWS_FRAME_UNWOUND | flags;
	f->inline_depth = depth;
	f->reserved = 0;
	if (flags & HWS_FRAME_INLINED)
		u->st.inlined++;
}

/* one frame (and its inlined calls); false when out of room */
static bool add_frame(struct hws_unwinder *u, uint64_t pc)
{
	unsigned int k = u->o.no_inline ? 0 : inline_count(u, u->cur, pc);

	if (u->n + (int)k + 1 > u->max) {
		u->full = true;
		return false;
	}
	for (unsigned int d = 1; d <= k; d++)
		push(u, pc, HWS_FRAME_INLINED, (uint16_t)d);
	push(u, pc, 0, 0);
	return true;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct hws_unwinder *u = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	report_module(u, u->cur, pc); /* before asking "activation": that needs the CFI */
	if (u->pending)
		return DWARF_CB_ABORT; /* its file is reported, then the walk starts again */
	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	if (!act)
		pc--;
	if (!add_frame(u, pc))
		return DWARF_CB_ABORT;
	if (++u->phys >= u->o.max_frames) {
		u->full = true;
		return DWARF_CB_ABORT;
	}
	if (u->phys >= FIRST_CHECK && u->phys % CHECK_EVERY == 0 && past_deadline(u)) {
		u->timeout = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* ------------------------------------------------------------------ fast path */

static int load_dwarf_cfi(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
			  void *arg)
{
	Dwarf_Addr bias;

	(void)userdata, (void)name, (void)start, (void)arg;
	dwfl_module_dwarf_cfi(mod, &bias);
	return DWARF_CB_OK;
}

/* libdw is to walk @p: the DWARF CFI of its files loaded first, as report_file() does from
 * then on (not charged to the budget) */
static void proc_eager(struct hws_unwinder *u, struct uw_proc *p)
{
	uint64_t t0;

	if (p->eager)
		return;
	p->eager = true;
	t0 = now_ns();
	dwfl_getmodules(p->dwfl, load_dwarf_cfi, NULL, 0);
	u->slow_ns += now_ns() - t0;
}

#define FAST_BAIL (-1000) /* fast_walk(): libdw is needed */

static bool fast_read(void *arg, uint64_t addr, uint64_t *val)
{
	return cb_memory_read(NULL, addr, val, arg);
}

/*
 * The walk libdw's dwfl_getthread_frames() with frame_cb() does, from the rules of
 * unwind_cfi.c (x86_64): the same frames, flags and reads. Returns what
 * dwfl_getthread_frames() would (0 at the chain's end, -1 on an error, 1 when frame_cb()
 * stopped it), or FAST_BAIL (nothing kept) where unwind_cfi.c cannot do it.
 */
static int fast_walk(struct hws_unwinder *u, struct uw_proc *p, uint64_t ip)
{
	struct ucfi_regs st, nx;
	uint64_t pc = ip, v, inlined = u->st.inlined;
	bool initial = true;

	if (!u->cfi)
		return FAST_BAIL;
	st.set = 0;
	for (unsigned int d = 0; d < UCFI_NREGS; d++)
		if (perf_reg(u, x86_64_dwarf_to_perf[d], &v)) {
			st.r[d] = v;
			st.set |= 1u << d;
		}
	u->n = 0;
	u->phys = 0;
	u->timeout = u->full = u->read_fail = false;
	for (;;) {
		int r;

		report_module(u, p, pc);
		r = ucfi_step(u->cfi, p->serial, p->dwfl, initial ? pc : pc - 1, &st, &nx,
			      fast_read, u);
		if (r == UCFI_BAIL) {
			u->st.inlined = inlined;
			return FAST_BAIL;
		}
		/* libdw's "activation": the first frame, or a signal frame's (bailed out) */
		if (!add_frame(u, initial ? pc : pc - 1))
			return 1;
		if (++u->phys >= u->o.max_frames) {
			u->full = true;
			return 1;
		}
		if (u->phys >= FIRST_CHECK && u->phys % CHECK_EVERY == 0 && past_deadline(u)) {
			u->timeout = true;
			return 1;
		}
		if (r != UCFI_SET)
			return r == UCFI_UNDEFINED ? 0 : -1;
		st = nx;
		pc = nx.r[UCFI_NREGS - 1];
		initial = false;
	}
}

static int machine_of(Dwfl_Module *mod)
{
	GElf_Addr bias;
	GElf_Ehdr eh;
	Elf *elf = dwfl_module_getelf(mod, &bias);

	return elf && gelf_getehdr(elf, &eh) ? eh.e_machine : EM_NONE;
}

int hws_unwind__user(struct hws_unwinder *u, uint32_t pid, uint64_t regs_abi, uint64_t regs_mask,
		     const uint64_t *regs, unsigned int nr_regs, const void *stack,
		     uint64_t stack_size, struct hws_frame *out, int max, uint32_t *cc_flags)
{
	uint32_t flags = 0;
	struct uw_proc *p;
	Dwfl_Module *mod;
	uint64_t ip = 0, sp = 0, inlined;
	int machine = EM_NONE, ret;

	if (!u || !out || max < 0 || (nr_regs && !regs) || (stack_size && !stack))
		return -EINVAL;
	u->st.samples++;
	u->regs = regs;
	u->mask = regs_mask;
	u->nr_regs = nr_regs;
	if (regs_abi != PERF_SAMPLE_REGS_ABI_64 || !max) {
		u->st.no_regs += regs_abi != PERF_SAMPLE_REGS_ABI_64;
		return regs_abi != PERF_SAMPLE_REGS_ABI_64 ? -EOPNOTSUPP : 0;
	}
	p = proc_get(u, pid);
	if (!p)
		return -ENOMEM;
	/* the sampled ip's file says the machine, hence which registers are sp and ip */
	if (perf_reg(u, X86_PERF_IP, &ip) && (mod = report_module(u, p, ip)))
		machine = machine_of(mod);
	if (machine != EM_X86_64) {
		machine = EM_NONE;
		if (perf_reg(u, ARM64_PERF_PC, &ip) && (mod = report_module(u, p, ip)))
			machine = machine_of(mod);
		if (machine != EM_AARCH64)
			machine = EM_NONE;
	}
	if (machine == EM_NONE ||
	    !perf_reg(u, machine == EM_X86_64 ? X86_PERF_SP : ARM64_PERF_SP, &sp)) {
		/* the ip is in no ELF file we know (JIT, anonymous code): the ip alone */
		if (!perf_reg(u, X86_PERF_IP, &ip) && !perf_reg(u, ARM64_PERF_PC, &ip)) {
			u->st.no_regs++;
			return -EOPNOTSUPP;
		}
		out[0] =
		    (struct hws_frame){.ip = ip, .ctx = HWS_CTX_USER, .flags = HWS_FRAME_UNWOUND};
		u->st.frames++;
		u->st.errors++;
		if (cc_flags)
			*cc_flags |= HWS_CC_UNWIND_ERROR;
		return 1;
	}
	if (!p->attached && !p->attach_fail) {
		p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)pid, &thread_cbs, u);
		p->attach_fail = !p->attached;
	}
	u->cur = p;
	u->machine = machine;
	u->stack = stack;
	u->stack_size = stack_size;
	u->sp = sp;
	u->out = out;
	u->max = max;
	u->slow_ns = 0;
	u->deadline = 0;
	ret =
	    machine == EM_X86_64 && p->attached && !u->o.no_fast ? fast_walk(u, p, ip) : FAST_BAIL;
	if (ret == FAST_BAIL)
		proc_eager(u, p);
	inlined = u->st.inlined;
	for (int tries = 0; ret == FAST_BAIL || tries; tries++) {
		/* a walk stopped for a file to report is walked again: its frames, and their
		 * inlined ones, count once (fast_walk() does the same when it bails) */
		u->n = 0;
		u->st.inlined = inlined;
		u->phys = 0;
		u->timeout = u->full = u->read_fail = false;
		u->pending = 0;
		u->walking = true;
		ret = p->attached ? dwfl_getthread_frames(p->dwfl, (pid_t)pid, frame_cb, u) : -1;
		u->walking = false;
		if (!u->pending || tries >= 16)
			break;
		/* outside the walk: report the file (or mark it bad), then walk again */
		report_module(u, p, u->pending); /* a bad file is marked: not pending again */
	}
	u->pending = 0;
	u->cur = NULL;
	if (u->full)
		flags |= HWS_CC_TRUNCATED;
	else if (ret || u->timeout || u->read_fail)
		flags |= HWS_CC_UNWIND_ERROR;
	if (!u->n && !u->full) {
		add_frame(u, ip); /* not even the first frame: keep the ip */
		flags |= HWS_CC_UNWIND_ERROR;
	}
	u->st.timeouts += u->timeout;
	u->st.errors += !!(flags & HWS_CC_UNWIND_ERROR);
	u->st.frames += (uint64_t)u->n;
	if (cc_flags)
		*cc_flags |= flags;
	return u->n;
}

/* ------------------------------------------------------------------ object */

/*
 * Separate debug info by build-id only (/usr/lib/debug/.build-id/..., the debuginfo_path):
 * dwfl_standard_find_debuginfo() ends in libdebuginfod when that finds nothing, and the
 * client's first use initializes curl and OpenSSL (seconds on a loaded machine: a 10 s fuzz
 * timeout here) and, with DEBUGINFOD_URLS set, goes to the network, which perf avoids by
 * default too. Unwinding needs only the CFI, which the ELF file itself has (.eh_frame).
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

/*
 * Unwinding only (opts.unwind_only): the debug file serves libdw's .debug_frame alone, and
 * opening it as DWARF inflates each of its compressed .debug_* sections (libc's: tens of
 * ms, again for each Dwfl). The file libdw would take (by build-id, in /usr/lib/debug: the
 * default debuginfo_path) is looked at first: without a .debug_frame it is not given to
 * libdw, which then finds no DWARF CFI for the module, as it would have in it. A file this
 * cannot read is left to libdw. (dwfl_build_id_find_debuginfo() keeps the file it opens in
 * the module: it cannot be asked first and refused after.)
 */
static bool no_debug_frame(Dwfl_Module *mod)
{
	static const char dir[] = "/usr/lib/debug/.build-id/";
	char path[sizeof(dir) + 2 * 64 + sizeof("/.debug")], *w = path;
	const unsigned char *id;
	GElf_Addr vaddr;
	bool found = true;
	int n = dwfl_module_build_id(mod, &id, &vaddr), fd;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (n < 3 || n > 64)
		return false;
	w += sprintf(w, "%s%02x/", dir, id[0]);
	for (int i = 1; i < n; i++)
		w += sprintf(w, "%02x", id[i]);
	strcpy(w, ".debug");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getshdrstrndx(elf, &shstrndx)) {
		found = false;
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh) ||
			    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
				found = true;
			else
				found =
				    !strcmp(name, ".debug_frame") || !strcmp(name, ".zdebug_frame");
		}
	}
	elf_end(elf);
	close(fd);
	return !found;
}

static int find_debuginfo_cfi(Dwfl_Module *mod, void **userdata, const char *modname,
			      Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			      GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	if (no_debug_frame(mod))
		return -1;
	return find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
			      debuglink_crc, debuginfo_file_name);
}

struct hws_unwinder *hws_unwinder__new(struct hws_symbols *syms, const struct hws_unwind_opts *o)
{
	struct hws_unwinder *u;

	if (!syms) {
		errno = EINVAL;
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->syms = syms;
	u->vdso_fd = -1;
	if (o)
		u->o = *o;
	if (!u->o.max_frames)
		u->o.max_frames = DEF_MAX_FRAMES;
	if (!u->o.max_usec)
		u->o.max_usec = DEF_MAX_USEC;
	if (!u->o.max_procs)
		u->o.max_procs = DEF_MAX_PROCS;
	u->procs = calloc(u->o.max_procs, sizeof(*u->procs));
	u->icache = calloc(ICACHE_SIZE, sizeof(*u->icache));
	u->ncache = calloc(ICACHE_SIZE, sizeof(*u->ncache));
	u->cfi = ucfi_cache__new();
	if (!u->procs || !u->icache || !u->ncache || !u->cfi) {
		hws_unwinder__delete(u);
		errno = ENOMEM;
		return NULL;
	}
	u->cb.find_elf = dwfl_build_id_find_elf;
	u->cb.find_debuginfo = u->o.unwind_only ? find_debuginfo_cfi : find_debuginfo;
	u->cb.section_address = dwfl_offline_section_address;
	u->cb.debuginfo_path = &u->debuginfo_path;
	elf_version(EV_CURRENT);
	return u;
}

void hws_unwinder__delete(struct hws_unwinder *u)
{
	if (!u)
		return;
	for (uint32_t i = 0; u->procs && i < u->o.max_procs; i++)
		proc_drop(&u->procs[i]);
	free(u->procs);
	free(u->icache);
	free(u->ncache);
	ucfi_cache__delete(u->cfi);
	if (u->vdso_fd >= 0)
		close(u->vdso_fd);
	free(u);
}

void hws_unwinder__stats(const struct hws_unwinder *u, struct hws_unwind_stats *st)
{
	if (u && st)
		*st = u->st;
}
