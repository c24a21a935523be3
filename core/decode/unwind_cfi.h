/* SPDX-License-Identifier: MIT */
/*
 * One x86_64 unwinding step from the CFI libdw finds (core/decode/unwind.c's fast path):
 * libdw's Dwarf_Frame of an address is taken once, turned into a compact copy of its rules
 * and cached per (process build, address); a step then evaluates those rules on a register
 * set, as libdwfl's frame unwinder (handle_cfi(), expr_eval()) does, without its
 * allocations and lookups per frame.
 *
 * Invariants:
 *  - a step gives what libdwfl would: the same registers set, the same memory reads (through
 *    @rd), the same end (return address undefined or 0) or error; where it would do anything
 *    this file does not (no CFI in .eh_frame, .debug_frame, signal frames, expressions
 *    beyond the simple operators, another return-address column), it says UCFI_BAIL and the
 *    caller lets libdw walk the whole sample;
 *  - cached rules hold no pointer into libdw: they outlive the Dwfl they came from, and
 *    are found only under the build serial they were made for.
 * Not thread-safe: one cache per struct hws_unwinder.
 */
#ifndef HWS_DECODE_UNWIND_CFI_H
#define HWS_DECODE_UNWIND_CFI_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

#define UCFI_NREGS 17 /* x86_64 DWARF registers 0..16; 16 is the return address (rip) */

struct ucfi_regs {
	uint64_t r[UCFI_NREGS];
	uint32_t set; /* bit n: r[n] is known */
};

enum ucfi_result {
	UCFI_SET,	/* the caller's registers are in @out, its pc in out->r[16] */
	UCFI_UNDEFINED, /* the chain ends here (return address undefined or 0) */
	UCFI_ERROR,	/* the return address could not be recovered */
	UCFI_BAIL,	/* not handled here: unwind with libdw */
};

struct ucfi_cache;

struct ucfi_cache *ucfi_cache__new(void);
void ucfi_cache__delete(struct ucfi_cache *c); /* NULL-safe */

typedef bool (*ucfi_read_fn)(void *arg, uint64_t addr, uint64_t *val);

/*
 * ucfi_step() - the caller's registers of a frame at @pc (the address to look up: the pc
 * itself for the first frame, the return address - 1 for the others) of process build
 * @serial, whose libdw session is @dwfl (the module of @pc must be reported already).
 * Return: enum ucfi_result.
 */
int ucfi_step(struct ucfi_cache *c, uint64_t serial, Dwfl *dwfl, uint64_t pc,
	      const struct ucfi_regs *in, struct ucfi_regs *out, ucfi_read_fn rd, void *arg);

#endif
