// SPDX-License-Identifier: MIT
/*
 * x86_64 unwinding steps from cached CFI rules (see unwind_cfi.h for the interface and its
 * invariants).
 *
 * Invariants (beyond unwind_cfi.h's):
 *  - the cache is direct-mapped by (serial, pc); an entry is a compact copy of one
 *    Dwarf_Frame: the CFA expression and, per register, undefined / same value / an
 *    expression, all operations in one array; a bail entry says libdw is needed there;
 *  - an expression is evaluated as libdwfl's expr_eval(): DW_OP_call_frame_cfa makes the
 *    result a location (read through @rd) until DW_OP_stack_value; the CFA expression itself
 *    may not use DW_OP_call_frame_cfa; a register not known fails the expression.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "decode/unwind_cfi.h"

#define CACHE_BITS 12
#define MAX_OPS	   32 /* operations of one entry, all expressions */

enum { R_UNSET, R_UNDEF, R_SAME, R_EXPR };

struct uop {
	uint8_t atom;
	uint64_t n1, n2;
};

struct rule {
	uint8_t kind, first, nops;
};

struct centry {
	uint64_t serial, pc;
	bool bail;
	bool cfa_ok;
	uint8_t cfa_first, cfa_nops, nops;
	struct rule reg[UCFI_NREGS];
	struct uop op[MAX_OPS];
};

struct ucfi_cache {
	struct centry *e[1u << CACHE_BITS];
};

struct ucfi_cache *ucfi_cache__new(void)
{
	return calloc(1, sizeof(struct ucfi_cache));
}

void ucfi_cache__delete(struct ucfi_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < (1u << CACHE_BITS); i++)
		free(c->e[i]);
	free(c);
}

/* the operations this evaluator knows (the rest: libdw walks the sample) */
static bool op_known(uint8_t a)
{
	return (a >= DW_OP_lit0 && a <= DW_OP_lit31) || (a >= DW_OP_breg0 && a <= DW_OP_breg31) ||
	       (a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx || a == DW_OP_bregx ||
	       a == DW_OP_const1u || a == DW_OP_const1s || a == DW_OP_const2u ||
	       a == DW_OP_const2s || a == DW_OP_const4u || a == DW_OP_const4s ||
	       a == DW_OP_const8u || a == DW_OP_const8s || a == DW_OP_constu || a == DW_OP_consts ||
	       a == DW_OP_dup || a == DW_OP_drop || a == DW_OP_plus_uconst || a == DW_OP_plus ||
	       a == DW_OP_minus || a == DW_OP_deref || a == DW_OP_call_frame_cfa ||
	       a == DW_OP_stack_value || a == DW_OP_nop;
}

/* copy @n operations into @e: false when they do not fit or one is unknown */
static bool copy_ops(struct centry *e, const Dwarf_Op *ops, size_t n, uint8_t *first, uint8_t *nops)
{
	if (n > (size_t)(MAX_OPS - e->nops))
		return false;
	*first = e->nops;
	*nops = (uint8_t)n;
	for (size_t i = 0; i < n; i++) {
		if (!op_known(ops[i].atom))
			return false;
		e->op[e->nops++] = (struct uop){ops[i].atom, ops[i].number, ops[i].number2};
	}
	return true;
}

/* the rules of @pc, from libdw: false when libdw is needed there */
static bool fill(struct centry *e, Dwfl_Module *mod, uint64_t pc)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Frame *frame;
	Dwarf_Op *ops, mem[3];
	size_t nops;
	bool signal = false, ok = true;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame))
		return false;
	if (dwarf_frame_info(frame, NULL, NULL, &signal) != UCFI_NREGS - 1 || signal) {
		free(frame);
		return false;
	}
	e->cfa_ok = !dwarf_frame_cfa(frame, &ops, &nops) && nops;
	if (e->cfa_ok)
		ok = copy_ops(e, ops, nops, &e->cfa_first, &e->cfa_nops);
	for (int r = 0; ok && r < UCFI_NREGS; r++) {
		struct rule *ru = &e->reg[r];

		ru->kind = R_UNSET;
		if (dwarf_frame_register(frame, r, mem, &ops, &nops))
			continue;
		if (!nops) {
			if (ops == mem)
				ru->kind = R_UNDEF;
			else if (!ops)
				ru->kind = R_SAME;
			continue;
		}
		ru->kind = R_EXPR;
		ok = copy_ops(e, ops, nops, &ru->first, &ru->nops);
	}
	free(frame);
	return ok;
}

static struct centry *lookup(struct ucfi_cache *c, uint64_t serial, Dwfl *dwfl, uint64_t pc)
{
	uint64_t h = (pc ^ serial * 0x9E3779B97F4A7C15ULL) * 0xbf58476d1ce4e5b9ULL;
	struct centry **slot = &c->e[h >> (64 - CACHE_BITS)], *e = *slot;
	Dwfl_Module *mod;

	if (e && e->serial == serial && e->pc == pc)
		return e;
	mod = dwfl_addrmodule(dwfl, pc);
	if (!mod)
		return NULL; /* no file reported there (yet): not cached */
	if (!e) {
		e = malloc(sizeof(*e));
		if (!e)
			return NULL;
		*slot = e;
	}
	memset(e, 0, sizeof(*e));
	e->serial = serial;
	e->pc = pc;
	e->bail = !fill(e, mod, pc);
	return e;
}

static bool reg_get(const struct ucfi_regs *in, uint64_t r, uint64_t *v)
{
	if (r >= UCFI_NREGS || !(in->set & (1u << r)))
		return false;
	*v = in->r[r];
	return true;
}

/* libdwfl's binary operators: comparisons signed, shifts as the CPU does them */
static uint64_t binop(uint8_t at, uint64_t a, uint64_t b)
{
	int64_t x = (int64_t)a, y = (int64_t)b;

	switch (at) {
	case DW_OP_plus:
		return a + b;
	case DW_OP_minus:
		return a - b;
	case DW_OP_and:
		return a & b;
	case DW_OP_or:
		return a | b;
	case DW_OP_xor:
		return a ^ b;
	case DW_OP_mul:
		return a * b;
	case DW_OP_shl:
		return a << (b & 63);
	case DW_OP_shr:
		return a >> (b & 63);
	case DW_OP_shra:
		return (uint64_t)(x >> (b & 63));
	case DW_OP_le:
		return x <= y;
	case DW_OP_ge:
		return x >= y;
	case DW_OP_eq:
		return x == y;
	case DW_OP_lt:
		return x < y;
	case DW_OP_gt:
		return x > y;
	default: /* DW_OP_ne */
		return x != y;
	}
}

/* the CFA of one step, evaluated on first use and kept for the step's other registers */
struct cfa_memo {
	uint64_t v;
	int state; /* 0 not evaluated, 1 @v, -1 failed */
};

/* evaluate @n operations from @first on @in; @cfa: DW_OP_call_frame_cfa allowed (then @m
 * keeps its value) */
static bool eval(const struct centry *e, unsigned int first, unsigned int n, bool cfa,
		 const struct ucfi_regs *in, uint64_t *res, ucfi_read_fn rd, void *arg,
		 struct cfa_memo *m)
{
	uint64_t st[2 * MAX_OPS + 1], a, b;
	unsigned int sp = 0;
	bool loc = false;

	if (!n)
		return false;
	for (unsigned int i = first; i < first + n; i++) {
		const struct uop *o = &e->op[i];
		uint8_t at = o->atom;

		if (at >= DW_OP_lit0 && at <= DW_OP_lit31) {
			st[sp++] = at - DW_OP_lit0;
		} else if (at >= DW_OP_breg0 && at <= DW_OP_breg31) {
			if (!reg_get(in, at - DW_OP_breg0, &a))
				return false;
			st[sp++] = a + o->n1;
		} else if (at >= DW_OP_reg0 && at <= DW_OP_reg31) {
			if (!reg_get(in, at - DW_OP_reg0, &a))
				return false;
			st[sp++] = a;
		} else {
			switch (at) {
			case DW_OP_regx:
				if (!reg_get(in, o->n1, &a))
					return false;
				st[sp++] = a;
				break;
			case DW_OP_bregx:
				if (!reg_get(in, o->n1, &a))
					return false;
				st[sp++] = a + o->n2;
				break;
			case DW_OP_dup:
				if (!sp)
					return false;
				st[sp] = st[sp - 1];
				sp++;
				break;
			case DW_OP_drop:
				if (!sp)
					return false;
				sp--;
				break;
			case DW_OP_plus_uconst:
				if (!sp)
					return false;
				st[sp - 1] += o->n1;
				break;
			case DW_OP_neg:
			case DW_OP_not:
				if (!sp)
					return false;
				st[sp - 1] = at == DW_OP_neg ? 0 - st[sp - 1] : ~st[sp - 1];
				break;
			case DW_OP_swap:
				if (sp < 2)
					return false;
				a = st[sp - 1];
				st[sp - 1] = st[sp - 2];
				st[sp - 2] = a;
				break;
			case DW_OP_over:
				if (sp < 2)
					return false;
				st[sp] = st[sp - 2];
				sp++;
				break;
			case DW_OP_plus:
			case DW_OP_minus:
			case DW_OP_and:
			case DW_OP_or:
			case DW_OP_xor:
			case DW_OP_mul:
			case DW_OP_shl:
			case DW_OP_shr:
			case DW_OP_shra:
			case DW_OP_le:
			case DW_OP_ge:
			case DW_OP_eq:
			case DW_OP_lt:
			case DW_OP_gt:
			case DW_OP_ne:
				if (sp < 2)
					return false;
				b = st[--sp];
				st[sp - 1] = binop(at, st[sp - 1], b);
				break;
			case DW_OP_deref:
				if (!sp || !rd(arg, st[sp - 1], &st[sp - 1]))
					return false;
				break;
			case DW_OP_call_frame_cfa:
				if (!cfa || !e->cfa_ok)
					return false;
				if (!m->state)
					m->state = eval(e, e->cfa_first, e->cfa_nops, false, in,
							&m->v, rd, arg, NULL)
						       ? 1
						       : -1;
				if (m->state < 0)
					return false;
				st[sp++] = m->v;
				loc = true;
				break;
			case DW_OP_stack_value:
				loc = false;
				break;
			case DW_OP_nop:
				break;
			default: /* the constants */
				st[sp++] = o->n1;
				break;
			}
		}
	}
	if (!sp)
		return false;
	*res = st[sp - 1];
	return !loc || rd(arg, *res, res);
}

int ucfi_step(struct ucfi_cache *c, uint64_t serial, Dwfl *dwfl, uint64_t pc,
	      const struct ucfi_regs *in, struct ucfi_regs *out, ucfi_read_fn rd, void *arg)
{
	const struct centry *e = lookup(c, serial, dwfl, pc);
	struct cfa_memo m = {0, 0};
	bool undef = false;

	if (!e || e->bail)
		return UCFI_BAIL;
	out->set = 0;
	for (int r = 0; r < UCFI_NREGS; r++) {
		const struct rule *ru = &e->reg[r];
		uint64_t v;

		switch (ru->kind) {
		case R_UNDEF:
			undef |= r == UCFI_NREGS - 1;
			continue;
		case R_SAME:
			if (!reg_get(in, (uint64_t)r, &v))
				continue;
			break;
		case R_EXPR:
			if (!eval(e, ru->first, ru->nops, true, in, &v, rd, arg, &m))
				continue;
			break;
		default:
			continue;
		}
		out->r[r] = v;
		out->set |= 1u << r;
	}
	if (undef)
		return UCFI_UNDEFINED;
	if (!(out->set & (1u << (UCFI_NREGS - 1))))
		return UCFI_ERROR;
	return out->r[UCFI_NREGS - 1] ? UCFI_SET : UCFI_UNDEFINED;
}
