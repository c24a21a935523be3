/* SPDX-License-Identifier: MIT */
/*
 * DWARF unwinding of the user stack copy of --call-graph dwarf samples (PERF_SAMPLE_REGS_USER
 * + PERF_SAMPLE_STACK_USER) with libdw's unwinder, as perf does (Linux
 * tools/perf/util/unwind-libdw.c), inlined calls included. Internal to core;
 * core/decode/callchain.c calls it.
 *
 * Invariants:
 *  - one libdw Dwfl per process (pid), kept across samples (at most opts.max_procs, least
 *    recently used dropped first) and rebuilt when the process's maps change; a process's
 *    files are reported to libdw when an address of them is first met, so each ELF file
 *    (and its debuginfo) is opened once per cached process, not once per sample;
 *  - stack reads inside [sp, sp + dyn_size) come from the sample's copy, other reads from
 *    the mapped ELF file; nothing else is read. "[vdso]" maps use this process's vDSO image
 *    (as perf does: right when the recording ran on this kernel);
 *  - inline frames and their names are cached per (process, address): unwinding a sample
 *    again, or naming a frame again, costs a hash lookup;
 *  - a sample costs at most opts.max_frames frames and about opts.max_usec of CPU time
 *    (opening files and loading their DWARF excluded: once per file and process); a
 *    corrupt stack or register set ends the chain early with HWS_CC_UNWIND_ERROR (counted),
 *    never a crash or a hang;
 *  - frames are perf's: frame 0 is the sampled ip, each next one its caller's return address
 *    minus 1 (libdw's "not an activation": the call instruction, so its symbol and line
 *    are the caller's), as perf stores and prints them.
 * Not thread-safe: one struct hws_unwinder per thread (like struct hws_symbols).
 */
#ifndef HWS_DECODE_UNWIND_H
#define HWS_DECODE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include <hwsample/sample.h>

struct hws_symbols;
struct hws_unwinder;

struct hws_unwind_opts {
	uint32_t max_frames; /* frames per sample, inline frames included; 0: 127 (perf's
			      * sample_max_stack default, sysctl kernel.perf_event_max_stack) */
	uint32_t max_usec;   /* CPU time budget per sample in microseconds; 0: 50000 */
	uint32_t max_procs;  /* processes whose libdw state is kept; 0: 32 */
	bool no_inline;	     /* no inline frames (perf script --no-inline) */
	bool no_fast;	     /* every sample walked by libdw, none from the cached rules of
			      * unwind_cfi.c (which give the same frames: for tests) */
	bool unwind_only;    /* no hws_unwind__inline() (which then finds no DWARF where a
			      * debug file has no .debug_frame): such files are not opened */
};

struct hws_unwind_stats {
	uint64_t samples;   /* hws_unwind__user() calls */
	uint64_t frames;    /* frames returned, inline frames included */
	uint64_t inlined;   /* of which inline frames */
	uint64_t errors;    /* samples that ended with HWS_CC_UNWIND_ERROR */
	uint64_t timeouts;  /* of which ran out of time */
	uint64_t no_regs;   /* samples without usable registers (kernel thread, other ABI) */
	uint64_t dwfl_new;  /* per-process libdw states created */
	uint64_t modules;   /* files reported to libdw */
	uint64_t bad_files; /* files that could not be opened as ELF */
};

/* @syms gives the processes' maps (it must outlive the unwinder); @o may be NULL. NULL with
 * errno on failure. */
struct hws_unwinder *hws_unwinder__new(struct hws_symbols *syms, const struct hws_unwind_opts *o);
void hws_unwinder__delete(struct hws_unwinder *u); /* NULL-safe */
void hws_unwinder__stats(const struct hws_unwinder *u, struct hws_unwind_stats *st);

/*
 * hws_unwind__user() - unwind one sample's user stack copy.
 * @regs_abi: PERF_SAMPLE_REGS_ABI_64 (32-bit processes are not unwound: -EOPNOTSUPP)
 * @regs_mask: attr->sample_regs_user; @regs: its nr_regs values in bit order
 * @stack: the copy, starting at the sampled sp; @stack_size: its valid bytes (dyn_size)
 * @out: up to @max frames, innermost first, all HWS_CTX_USER with HWS_FRAME_UNWOUND; inlined
 * calls (unless opts.no_inline) as struct hws_frame says: same ip, HWS_FRAME_INLINED,
 * inline_depth 1 (innermost) up, then the frame itself (depth 0).
 * @cc_flags: HWS_CC_UNWIND_ERROR / HWS_CC_TRUNCATED are or-ed in (may be NULL).
 * Return: the number of frames (0 when the ip is in no known ELF file), or -EINVAL /
 * -EOPNOTSUPP (no usable registers) / -ENOMEM.
 */
int hws_unwind__user(struct hws_unwinder *u, uint32_t pid, uint64_t regs_abi, uint64_t regs_mask,
		     const uint64_t *regs, unsigned int nr_regs, const void *stack,
		     uint64_t stack_size, struct hws_frame *out, int max, uint32_t *cc_flags);

/* An inlined function at a frame, perf's inline entry (what `perf script` prints for it). */
struct hws_inline_info {
	const char *name; /* the function (DWARF DW_AT_name) */
	const char *file; /* its source line: where the sampled ip is for depth 1 (innermost),
			   * else where the next inner function was inlined; NULL if unknown */
	uint32_t line;
};

/*
 * hws_unwind__inline() - name frame @ip (as hws_unwind__user() returned it) of @pid at
 * @inline_depth: for depth >= 1, the inlined function; for depth 0, the function it is all
 * inlined into (its DWARF name, which may differ from the ELF symbol: "foo" for
 * "foo.part.0"), and the line of the call that was inlined (or of @ip when nothing is).
 * Strings are libdw's, valid until the next hws_unwind__*() call.
 * Return: 0, or -ENOENT (no DWARF there, or no such depth).
 */
int hws_unwind__inline(struct hws_unwinder *u, uint32_t pid, uint64_t ip, unsigned int inline_depth,
		       struct hws_inline_info *out);

#endif
