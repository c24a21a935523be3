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
 *
 * The parts (what they share: datatype_int.h): DWARF types, variables' locations and the
 * per-file indexes in datatype_dwarf.c, registers followed through a function in
 * datatype_track.c; capstone, the instruction's operand, the answers, their cache, the files
 * and the public API here.
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

#include "symbols/datatype_int.h"
#include "symbols/symbols_core.h"
#include "util/internal.h"

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

struct dt_capstone hws__dt_capstone;
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
	*(void **)&hws__dt_capstone.open = dlsym(h, "cs_open");
	*(void **)&hws__dt_capstone.close = dlsym(h, "cs_close");
	*(void **)&hws__dt_capstone.option = dlsym(h, "cs_option");
	*(void **)&hws__dt_capstone.malloc = dlsym(h, "cs_malloc");
	*(void **)&hws__dt_capstone.free = dlsym(h, "cs_free");
	*(void **)&hws__dt_capstone.disasm_iter = dlsym(h, "cs_disasm_iter");
	hws__dt_capstone.ok = hws__dt_capstone.open && hws__dt_capstone.close &&
			      hws__dt_capstone.option && hws__dt_capstone.malloc &&
			      hws__dt_capstone.free && hws__dt_capstone.disasm_iter;
	if (!hws__dt_capstone.ok) {
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
	return hws__dt_capstone.ok;
#else
	return false;
#endif
}

/* ---------------------------------------------------------------- results */

static void res_free(struct res *r)
{
	free(r->name);
	free(r->field);
	free(r->var);
}

/* the type @t at offset @off names: an array's element at the offset in it (@cur, @off,
 * and its @size), or false when the offset lies outside the type or it has no size */
static bool res_type(Dwarf_Die *t, int64_t *poff, Dwarf_Die *pcur, uint64_t *psize)
{
	Dwarf_Die cur = *t, r;
	int64_t off = *poff;
	uint64_t size;

	for (int i = 0; i < MAX_CHAIN; i++) { /* an array: its element */
		Dwarf_Die elem;
		uint64_t esize;

		if (!hws__dt_real_type(&cur, &r) || dwarf_tag(&r) != DW_TAG_array_type)
			break;
		if (!hws__dt_type_of(&r, &elem) || !hws__dt_type_size(&elem, &esize) || !esize ||
		    off < 0)
			break;
		off %= (int64_t)esize;
		cur = elem;
	}
	if (!hws__dt_type_size(&cur, &size) || off < 0 || (uint64_t)off >= size)
		return false;
	*poff = off;
	*pcur = cur;
	*psize = size;
	return true;
}

bool hws__dt_res_valid(Dwarf_Die *t, int64_t off)
{
	Dwarf_Die cur;
	uint64_t size;

	return res_type(t, &off, &cur, &size);
}

/* the answer for type @t at @off (arrays become their element), found through @var; its
 * index + 1, 0 when @off is outside the type, or -ENOMEM */
long hws__dt_res_add(struct hws_datatypes *dt, Dwarf_Die *t, int64_t off, const char *var)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	Dwarf_Die cur;
	struct res *x;
	uint64_t size;

	if (!res_type(t, &off, &cur, &size))
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
	if (hws__dt_type_name(&cur, &sb, 0) == -ENOMEM)
		goto nomem;
	x->name = strdup(sb.len ? sb.buf : "(unknown type)");
	hws_strbuf__reset(&sb);
	if (hws__dt_field_name(&cur, (uint64_t)off, &sb, 0))
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
int64_t hws__dt_wrap(Dwarf_Die *t, int64_t off)
{
	uint64_t size;

	if (off > 0 && hws__dt_type_size(t, &size) && size && (uint64_t)off >= size)
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

struct centry *hws__dt_cache_slot(struct hws_datatypes *dt, uint32_t file, uint64_t pc,
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

int hws__dt_cache_put(struct hws_datatypes *dt, uint32_t file, uint64_t pc, uint64_t daddr,
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
			dt->npend = 0; /* no entry refers to them now */
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
				e = hws__dt_cache_slot(dt, old[i].file, old[i].pc, old[i].daddr,
						       &found);
				*e = old[i];
				dt->cused++;
			}
			free(old);
		}
	}
	e = hws__dt_cache_slot(dt, file, pc, daddr, &found);
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
		hws__dt_capstone.close(&f->cs);
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
	free(f->lcache);
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
		if (hws__dt_capstone.open(CS_ARCH_X86, CS_MODE_64, &f->cs) != CS_ERR_OK)
			return;
	} else if (f->machine == EM_AARCH64) {
		if (hws__dt_capstone.open(CS_ARCH_ARM64, CS_MODE_ARM, &f->cs) != CS_ERR_OK)
			return;
	} else {
		return;
	}
	f->cs_open = true;
	hws__dt_capstone.option(f->cs, CS_OPT_DETAIL, CS_OPT_ON);
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

#ifdef HWS_HAVE_CAPSTONE
/* ---------------------------------------------------------------- instructions */

int hws__dt_x86_dwarf_reg(unsigned int r)
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
const uint8_t *hws__dt_code_at(struct dfile *f, uint64_t pc, size_t *len)
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
bool hws__dt_mem_operand(struct dfile *f, const cs_insn *in, struct operand *op)
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
			op->base = hws__dt_x86_dwarf_reg(x->operands[i].mem.base);
			op->index = hws__dt_x86_dwarf_reg(x->operands[i].mem.index);
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

static long by_global(struct query *q, uint64_t addr, uint64_t *hits)
{
	Dwarf_Die v, t;
	int64_t off;
	long r;

	if (!hws__dt_global_at(q->f, addr, &v, &off) || !hws__dt_type_of(&v, &t))
		return 0;
	r = hws__dt_res_add(q->dt, &t, off, dwarf_diename(&v));
	if (r > 0)
		(*hits)++;
	return r;
}

/* a result as the public struct (the answer of every lookup, capstone or not) */
static void fill(const struct hws_datatypes *dt, uint32_t res, struct hws_datatype *out);

#ifdef HWS_HAVE_CAPSTONE
/* ---------------------------------------------------------------- variables at a PC */

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

			if (!hws__dt_is_var(&v))
				continue;
			k = hws__dt_var_loc(q->f, &v, q->pc, &vreg, &voff);
			if (!k || !hws__dt_type_of(&v, &t))
				continue;
			if ((k == 1 && vreg == reg) || (k == 3 && vreg == reg)) {
				/* a pointer in the register: what it points to */
				if (!hws__dt_is_pointer(&t) || !hws__dt_pointee(&t, &pt))
					continue;
				in = disp - (k == 3 ? voff : 0);
				r = hws__dt_res_add(q->dt, &pt, hws__dt_wrap(&pt, in),
						    dwarf_diename(&v));
			} else if ((k == 2 && vreg == reg) ||
				   (k == 4 && q->have_fb && reg == q->fb_reg)) {
				/* the variable itself, in memory at a register or the frame base */
				in = k == 2 ? disp - voff : disp - q->fb_off - voff;
				if (!hws__dt_type_size(&t, &size) || in < 0 || (uint64_t)in >= size)
					continue;
				r = hws__dt_res_add(q->dt, &t, in, dwarf_diename(&v));
			} else {
				continue;
			}
			if (r)
				return r;
		} while (dwarf_siblingof(&v, &v) == 0);
	}
	return 0;
}

/* ---------------------------------------------------------------- the answer at a PC */

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
	q->nscopes = hws__dt_scopes_at(q->f, q->pc, &q->scopes);
	if (q->nscopes <= 0) {
		free(q->scopes);
		q->scopes = NULL;
		return q->nscopes < 0 ? -ENOMEM : 0;
	}
	for (int i = 0; i < q->nscopes; i++) {
		if (dwarf_tag(&q->scopes[i]) == DW_TAG_subprogram) {
			q->have_fb =
			    hws__dt_frame_base(q->f, &q->scopes[i], q->pc, &q->fb_reg, &q->fb_off);
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

	code = hws__dt_code_at(f, pc, &len);
	if (!code)
		return 0;
	in = hws__dt_capstone.malloc(f->cs);
	if (!in)
		return -ENOMEM;
	mem = hws__dt_capstone.disasm_iter(f->cs, &code, &len, &a, in);
	if (mem && stack_op(f, in)) {
		hws__dt_capstone.free(in, 1);
		return stackop_res(dt);
	}
	mem = mem && hws__dt_mem_operand(f, in, &q.op);
	hws__dt_capstone.free(in, 1);
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
		r = hws__dt_by_tracking(&q);
		if (r > 0)
			dt->st.by_tracking++;
	}
	free(q.scopes);
	return r;
}

/* ---------------------------------------------------------------- allocation sites */

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

			if (!hws__dt_is_var(&v))
				continue;
			k = hws__dt_var_loc(q->f, &v, pc, &vreg, &voff);
			if (!k || !hws__dt_type_of(&v, &t) || !hws__dt_is_pointer(&t))
				continue;
			if ((!mem && k == 1 && vreg == reg) ||
			    (mem && k == 2 && vreg == reg && voff == disp) ||
			    (mem && k == 4 && q->have_fb && reg == q->fb_reg &&
			     disp - q->fb_off == voff)) {
				if (!hws__dt_pointee(&t, out))
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
	code = hws__dt_code_at(f, q->pc, &len);
	in = code ? hws__dt_capstone.malloc(f->cs) : NULL;
	if (!in)
		return false;
	if (!hws__dt_capstone.disasm_iter(f->cs, &code, &len, &a, in))
		goto out;
	if (f->machine == EM_X86_64) {
		const cs_x86 *x = &in->detail->x86;

		/* mov %rax, dst (Intel operand order: destination first) */
		if (in->id != X86_INS_MOV || x->op_count != 2 ||
		    x->operands[1].type != X86_OP_REG ||
		    hws__dt_x86_dwarf_reg(x->operands[1].reg) != 0)
			goto out;
		if (x->operands[0].type == X86_OP_REG)
			ok = alloc_var(q, a, hws__dt_x86_dwarf_reg(x->operands[0].reg), false, 0,
				       out, var);
		else if (x->operands[0].type == X86_OP_MEM &&
			 x->operands[0].mem.index == X86_REG_INVALID &&
			 x->operands[0].mem.segment == X86_REG_INVALID)
			ok = alloc_var(q, a, hws__dt_x86_dwarf_reg(x->operands[0].mem.base), true,
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
	hws__dt_capstone.free(in, 1);
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
		r = hws__dt_res_add(dt, &t, hws__dt_wrap(&t, (int64_t)offset), var);
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
	e = hws__dt_cache_slot(dt, idx, ret_pc, offset | ALLOC_TAG, &found);
	if (found) {
		r = e->res;
	} else {
#ifdef HWS_HAVE_CAPSTONE
		r = find_alloc(dt, f, ret_pc, offset);
#endif
		if (r < 0)
			return (int)r;
		err = hws__dt_cache_put(dt, idx, ret_pc, offset | ALLOC_TAG, (uint32_t)r);
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
	e = hws__dt_cache_slot(dt, idx, pc, 0, &found);
	if (found) {
		dt->st.cached++;
		r = e->res;
	} else {
#ifdef HWS_HAVE_CAPSTONE
		r = find_insn(dt, f, idx, pc);
#endif
		if (r < 0)
			return (int)r;
		err = hws__dt_cache_put(dt, idx, pc, 0, (uint32_t)r);
		if (err)
			return err;
	}
	if (!r && daddr) {
		e = hws__dt_cache_slot(dt, idx, pc, daddr | 1ULL << 63, &found);
		if (found) {
			r = e->res;
		} else {
			struct query q = {.dt = dt, .f = f, .pc = pc};

			r = by_global(&q, daddr, &dt->st.by_daddr);
			if (r < 0)
				return (int)r;
			err = hws__dt_cache_put(dt, idx, pc, daddr | 1ULL << 63, (uint32_t)r);
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
	free(dt->pend);
	free(dt->cache);
	free(dt);
}

void hws_datatypes__stats(const struct hws_datatypes *dt, struct hws_datatypes_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (dt)
		*st = dt->st;
}
