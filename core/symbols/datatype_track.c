// SPDX-License-Identifier: MIT
/*
 * Registers' types followed through a function (x86-64), for datatype.c's lookups.
 *
 * When no variable is at a memory operand's register, datatype.c asks hws__dt_by_tracking(),
 * as perf's find_data_type_block() (Linux tools/perf/util/annotate-data.c): the function of
 * the PC is walked once, in code order from its start; registers take their types from the
 * variables DWARF puts in them, from moves and loads through typed pointers (perf's
 * update_insn_state()), lea and the return types of calls; the answer of each memory access
 * goes into the cache (TRACK_TAG), and the walk is remembered (WALK_TAG).
 *
 * Invariants: at most MAX_INSNS instructions a walk, one walk per function of a file. Only
 * with capstone (HWS_HAVE_CAPSTONE); without it this file is empty.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "symbols/datatype_int.h"
#include "util/internal.h"

#ifdef HWS_HAVE_CAPSTONE
/* ---------------------------------------------------------------- following registers */

enum { TR_NONE, TR_TYPE, TR_PTR }; /* a value of the type / the address of it + off */

struct treg {
	uint8_t kind;
	Dwarf_Off type;
	int64_t off;
};

static void treg_set(struct treg *r, int kind, Dwarf_Die *t, int64_t off)
{
	r->kind = (uint8_t)kind;
	r->type = dwarf_dieoffset(t);
	r->off = off;
}

/* the subprogram DIE starting at @target among the children of @die (namespaces and classes
 * followed, @depth levels) */
static bool sub_at(Dwarf_Die *die, uint64_t target, int depth, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (depth <= 0 || dwarf_child(die, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Addr lo;

		if (tag == DW_TAG_subprogram && !dwarf_lowpc(&c, &lo) && lo == target) {
			*out = c;
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type) &&
		    sub_at(&c, target, depth - 1, out))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/*
 * the return type of the function starting at @target: its subprogram from the file's index
 * of functions, else (a function inside a namespace or class) found by walking the unit's
 * DIEs (libdw 0.188's dwarf_getscopes() leaks on damaged DWARF: fuzz_datatype). The walk for
 * every call made report --sort typeoff spend a third of its time in dwarf_siblingof().
 */
static bool ret_type(struct dfile *f, uint64_t target, Dwarf_Die *out)
{
	Dwarf_Die cu, sub;

	if (hws__dt_func_starting(f, target, &sub))
		return hws__dt_type_of(&sub, out) != NULL;
	if (!dwarf_addrdie(f->dw, target, &cu))
		return false;
	return sub_at(&cu, target, 8, &sub) && hws__dt_type_of(&sub, out) != NULL;
}

/* where a variable of the scopes is held in a register: [lo, hi) */
struct vreg {
	uint64_t lo, hi;
	int reg;
	Dwarf_Off type;
};

static int vreg_add(struct vreg **v, size_t *n, size_t *alloc, uint64_t lo, uint64_t hi,
		    const Dwarf_Op *ops, size_t nops, Dwarf_Die *t)
{
	int reg;

	if (nops != 1)
		return 0;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		reg = ops[0].atom - DW_OP_reg0;
	else if (ops[0].atom == DW_OP_regx && ops[0].number < NREGS)
		reg = (int)ops[0].number;
	else
		return 0;
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 32;
		struct vreg *x = realloc(*v, na * sizeof(*x));

		if (!x)
			return -ENOMEM;
		*v = x;
		*alloc = na;
	}
	(*v)[(*n)++] = (struct vreg){.lo = lo, .hi = hi, .reg = reg, .type = dwarf_dieoffset(t)};
	return 0;
}

/* the register locations of the variables of @die and its blocks (inlined ones too), read
 * once per walk (looking each variable up at every instruction costs more than the walk) */
static int vregs_of(struct dfile *f, Dwarf_Die *die, struct vreg **v, size_t *n, size_t *alloc,
		    int depth)
{
	Dwarf_Die d;
	int err = 0;

	if (depth > MAX_NEST || dwarf_child(die, &d))
		return 0;
	do {
		Dwarf_Addr base, lo, hi;
		Dwarf_Attribute a;
		Dwarf_Op *ops;
		size_t nops;
		Dwarf_Die t;
		ptrdiff_t off = 0;
		int k = 0;

		if (dwarf_tag(&d) == DW_TAG_lexical_block ||
		    dwarf_tag(&d) == DW_TAG_inlined_subroutine) {
			err = vregs_of(f, &d, v, n, alloc, depth + 1);
			continue;
		}
		if (!hws__dt_is_var(&d) || !dwarf_attr_integrate(&d, DW_AT_location, &a) ||
		    !hws__dt_loclist_ok(f, &a) || !hws__dt_type_of(&d, &t))
			continue;
		if (!dwarf_getlocation(&a, &ops, &nops)) { /* one for the whole scope */
			err = vreg_add(v, n, alloc, 0, UINT64_MAX, ops, nops, &t);
			continue;
		}
		while (!err && k++ < 4096 &&
		       (off = dwarf_getlocations(&a, off, &base, &lo, &hi, &ops, &nops)) > 0)
			err = vreg_add(v, n, alloc, lo, hi, ops, nops, &t);
	} while (!err && dwarf_siblingof(&d, &d) == 0);
	return err;
}

/*
 * The variables held in registers at each PC of a walk, its PCs rising: @order the locations
 * by start, @next the first not yet begun, @live those begun and not ended, in the order
 * vregs_of() found them (a later one of a register wins, as it did when every instruction
 * looked at every location: that cost report --sort typeoff a sixth of its time).
 */
struct vsweep {
	const struct vreg *v;
	struct vstart {
		uint64_t lo;
		uint32_t i;
	} * order;
	uint32_t *live;
	size_t n, next, nlive;
};

static int vstart_cmp(const void *a, const void *b)
{
	const struct vstart *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int vsweep_init(struct vsweep *w, const struct vreg *v, size_t n)
{
	*w = (struct vsweep){.v = v, .n = n};
	if (!n)
		return 0;
	w->order = malloc(n * sizeof(*w->order));
	w->live = malloc(n * sizeof(*w->live));
	if (!w->order || !w->live) {
		free(w->order);
		free(w->live);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		w->order[i] = (struct vstart){.lo = v[i].lo, .i = (uint32_t)i};
	hws__qsort(w->order, n, sizeof(*w->order), vstart_cmp);
	return 0;
}

static void vsweep_free(struct vsweep *w)
{
	free(w->order);
	free(w->live);
}

/* the variables held in registers at @pc (rising from call to call) set their types */
static void vars_at(struct vsweep *w, uint64_t pc, struct treg *regs)
{
	const struct vreg *v = w->v;
	size_t k = 0;

	for (; w->next < w->n && w->order[w->next].lo <= pc; w->next++) {
		uint32_t i = w->order[w->next].i;
		size_t j = w->nlive++;

		for (; j && w->live[j - 1] > i; j--) /* kept in the order found */
			w->live[j] = w->live[j - 1];
		w->live[j] = i;
	}
	for (size_t j = 0; j < w->nlive; j++) {
		const struct vreg *x = &v[w->live[j]];

		if (pc >= x->hi)
			continue; /* ended: dropped */
		w->live[k++] = w->live[j];
		if (x->reg < NREGS) {
			regs[x->reg].kind = TR_TYPE;
			regs[x->reg].type = x->type;
			regs[x->reg].off = 0;
		}
	}
	w->nlive = k;
}

/* the type a load from @op gives, as perf's update_insn_state() for x86 mov */
static bool load_type(struct query *q, struct treg *regs, const struct operand *op, Dwarf_Die *out)
{
	Dwarf_Die t, v;
	int64_t off = op->disp;

	if (op->base == REG_PC) {
		if (!hws__dt_global_at(q->f, op->next_pc + (uint64_t)op->disp, &v, &off) ||
		    !hws__dt_type_of(&v, &t))
			return false;
	} else if (op->base >= 0 && op->base < NREGS && regs[op->base].kind == TR_TYPE) {
		Dwarf_Die pt;

		if (!dwarf_offdie(q->f->dw, regs[op->base].type, &pt) || !hws__dt_is_pointer(&pt) ||
		    !hws__dt_pointee(&pt, &t))
			return false;
	} else {
		return false;
	}
	/* the member holding the loaded value, down to the innermost */
	for (int i = 0; i < MAX_NEST; i++) {
		Dwarf_Die m;

		if (!hws__dt_member_type(&t, &off, &m))
			break;
		t = m;
	}
	if (off)
		return false;
	*out = t;
	return true;
}

/* the answer at instruction @in from the registers' types: the type and offset to name (in
 * @out), if they name one */
static bool track_answer(struct query *q, struct treg *regs, const cs_insn *in, struct pend *out)
{
	struct operand op;
	Dwarf_Die t;

	if (!hws__dt_mem_operand(q->f, in, &op))
		return false;
	for (int pass = 0; pass < 2; pass++) {
		int reg = pass ? op.index : op.base;
		struct treg *tr;
		int64_t off;

		if (reg < 0 || reg >= NREGS)
			continue;
		tr = &regs[reg];
		if (!tr->kind || !dwarf_offdie(q->f->dw, tr->type, &t))
			continue;
		if (tr->kind == TR_PTR)
			off = tr->off + op.disp;
		else if (hws__dt_is_pointer(&t) && hws__dt_pointee(&t, &t))
			off = hws__dt_wrap(&t, op.disp);
		else
			continue;
		if (hws__dt_res_valid(&t, off)) {
			*out = (struct pend){.die = dwarf_dieoffset(&t), .off = off};
			return true;
		}
	}
	return false;
}

/* the answer of the memory access at @pc, named only when a sample asks for it (naming every
 * access of every function walked took a quarter of a walk): a pending entry of the cache */
static int pend_put(struct query *q, uint64_t pc, const struct pend *p)
{
	struct hws_datatypes *dt = q->dt;
	struct centry *e;
	bool found;
	int err;

	/* the entry first: the cache, when full, starts again, pending answers too */
	err = hws__dt_cache_put(dt, q->fidx, pc, TRACK_TAG, 0);
	if (err)
		return err;
	if (dt->npend == dt->apend) {
		size_t na = dt->apend ? dt->apend * 2 : 256;
		struct pend *v;

		if (na >= PEND_BIT)
			return 0; /* left unknown */
		v = realloc(dt->pend, na * sizeof(*v));
		if (!v)
			return -ENOMEM;
		dt->pend = v;
		dt->apend = na;
	}
	e = hws__dt_cache_slot(dt, q->fidx, pc, TRACK_TAG, &found);
	if (found) {
		dt->pend[dt->npend] = *p;
		e->res = PEND_BIT | (uint32_t)dt->npend++;
	}
	return 0;
}

/* the registers' types followed from the function's start through [start, end), once per
 * function: the answer of each memory access goes into the cache (key TRACK_TAG) */
static int walk(struct query *q, Dwarf_Die *fn, uint64_t start, uint64_t end)
{
	struct treg regs[NREGS] = {{0}};
	const uint8_t *code;
	struct vsweep sw;
	struct vreg *vr = NULL;
	uint64_t addr;
	size_t len, nvr = 0, alloc = 0;
	cs_insn *in;
	Dwarf_Die t;
	int err = 0;

	code = hws__dt_code_at(q->f, start, &len);
	if (!code)
		return 0;
	if (vregs_of(q->f, fn, &vr, &nvr, &alloc, 0) || vsweep_init(&sw, vr, nvr)) {
		free(vr);
		return -ENOMEM;
	}
	in = hws__dt_capstone.malloc(q->f->cs);
	if (!in) {
		vsweep_free(&sw);
		free(vr);
		return -ENOMEM;
	}
	addr = start;
	for (int n = 0; n < MAX_INSNS && addr < end && !err; n++) {
		const cs_x86 *x;
		struct operand op;
		struct pend pd;
		int dst;

		vars_at(&sw, addr, regs);
		if (!hws__dt_capstone.disasm_iter(q->f->cs, &code, &len, &addr, in))
			break;
		if (track_answer(q, regs, in, &pd))
			err = pend_put(q, in->address, &pd);
		x = &in->detail->x86;
		if (in->id == X86_INS_CALL) {
			static const int clobbered[] = {0, 1, 2, 4, 5, 8, 9, 10, 11};

			for (size_t i = 0; i < ARRAY_SIZE(clobbered); i++)
				regs[clobbered[i]].kind = TR_NONE;
			if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM &&
			    ret_type(q->f, (uint64_t)x->operands[0].imm, &t))
				treg_set(&regs[0], TR_TYPE, &t, 0);
			continue;
		}
		if (x->op_count != 2 || x->operands[0].type != X86_OP_REG)
			continue;
		dst = hws__dt_x86_dwarf_reg(x->operands[0].reg);
		if (dst < 0 || dst >= NREGS)
			continue;
		switch (in->id) {
		case X86_INS_MOV:
		case X86_INS_MOVZX:
		case X86_INS_MOVSX:
		case X86_INS_MOVSXD:
			if (x->operands[1].type == X86_OP_REG) {
				int src = hws__dt_x86_dwarf_reg(x->operands[1].reg);

				regs[dst] = src >= 0 && src < NREGS ? regs[src] : (struct treg){0};
			} else if (x->operands[1].type == X86_OP_MEM &&
				   x->operands[1].mem.segment == X86_REG_INVALID) {
				op.base = hws__dt_x86_dwarf_reg(x->operands[1].mem.base);
				op.index = hws__dt_x86_dwarf_reg(x->operands[1].mem.index);
				op.disp = x->operands[1].mem.disp;
				op.next_pc = addr;
				regs[dst].kind = TR_NONE;
				if (op.index == REG_NONE && load_type(q, regs, &op, &t))
					treg_set(&regs[dst], TR_TYPE, &t, 0);
			} else {
				regs[dst].kind = TR_NONE;
			}
			break;
		case X86_INS_LEA: {
			int b = hws__dt_x86_dwarf_reg(x->operands[1].mem.base);
			int ix = hws__dt_x86_dwarf_reg(x->operands[1].mem.index);
			int64_t d = x->operands[1].mem.disp, off;
			Dwarf_Die v;

			if (b == REG_PC && ix == REG_NONE &&
			    hws__dt_global_at(q->f, addr + (uint64_t)d, &v, &off) &&
			    hws__dt_type_of(&v, &t)) {
				treg_set(&regs[dst], TR_PTR, &t, off);
			} else if (b >= 0 && b < NREGS && regs[b].kind == TR_TYPE &&
				   ix == REG_NONE && dwarf_offdie(q->f->dw, regs[b].type, &t) &&
				   hws__dt_is_pointer(&t) && hws__dt_pointee(&t, &t)) {
				treg_set(&regs[dst], TR_PTR, &t, d);
			} else if (b >= 0 && b < NREGS && ix != REG_NONE && regs[b].kind) {
				regs[dst] = regs[b]; /* an element of the same array */
			} else {
				regs[dst].kind = TR_NONE;
			}
			break;
		}
		case X86_INS_XOR:
			if (x->operands[1].type == X86_OP_REG &&
			    hws__dt_x86_dwarf_reg(x->operands[1].reg) == dst)
				regs[dst].kind = TR_NONE;
			break;
		default: /* arithmetic keeps a pointer's type, as perf */
			break;
		}
	}
	hws__dt_capstone.free(in, 1);
	vsweep_free(&sw);
	free(vr);
	return err;
}

/* the registers' types followed through the function (x86-64), as perf's
 * find_data_type_block(); here in code order from the function's start, once per function */
long hws__dt_by_tracking(struct query *q)
{
	Dwarf_Addr base, start = 0, end = 0;
	Dwarf_Die *fn = NULL;
	struct centry *e;
	bool found;
	int err;

	if (q->f->machine != EM_X86_64)
		return 0;
	for (int i = q->nscopes - 2; i >= 0 && !fn; i--)
		if (dwarf_tag(&q->scopes[i]) == DW_TAG_subprogram)
			fn = &q->scopes[i];
	if (!fn)
		return 0;
	for (ptrdiff_t o = 0; (o = dwarf_ranges(fn, o, &base, &start, &end)) > 0;)
		if (q->pc >= start && q->pc < end)
			break;
	if (q->pc < start || q->pc >= end)
		return 0;
	hws__dt_cache_slot(q->dt, q->fidx, start, WALK_TAG, &found);
	if (!found) {
		err = walk(q, fn, start, end);
		if (!err)
			err = hws__dt_cache_put(q->dt, q->fidx, start, WALK_TAG, 0);
		if (err)
			return err;
	}
	e = hws__dt_cache_slot(q->dt, q->fidx, q->pc, TRACK_TAG, &found);
	if (!found)
		return 0;
	if (e->res & PEND_BIT) { /* named now, once */
		struct pend p = q->dt->pend[e->res & ~PEND_BIT];
		Dwarf_Die t;
		long r = 0;

		if (dwarf_offdie(q->f->dw, p.die, &t))
			r = hws__dt_res_add(q->dt, &t, p.off, NULL);
		if (r < 0)
			return r;
		e = hws__dt_cache_slot(q->dt, q->fidx, q->pc, TRACK_TAG, &found);
		if (found)
			e->res = (uint32_t)r;
		return r;
	}
	return e->res;
}
#endif
