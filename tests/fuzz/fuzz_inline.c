// SPDX-License-Identifier: MIT
/*
 * Fuzz target: core/symbols/inline.c (hws_symbols__inlines(): the inline stack at a code
 * address, walking the unit's DIE tree with hws_dwarf__walk_scopes()) on arbitrary files:
 * damaged ELF headers, symbol tables, DWARF units, abbreviations, ranges and line tables.
 * Every lookup ends in a chain or in 0; any crash, sanitizer report, leak or hang is a bug.
 *
 * Input (little-endian u64, then bytes):
 *   addr    a code address of the process the file is mapped into
 *   file    the rest: the ELF file (written to a memfd, read through /proc/self/fd),
 *           mapped whole from offset 0 at BASE (a PIE's address v is at BASE + v)
 * The address's neighbours (addr + 1 ... addr + 15) are looked up too, through the same
 * cache, then addr again (the cached answer must be the same).
 * Seed corpus: tests/fuzz/corpus/inline/, addresses inside inlined bodies of the
 * callchain_nofp workload and of a program with two levels of always_inline functions, and
 * damaged copies (tests/fuzz/make_inline_corpus.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hwsample/symbols.h>

#define PID  1000
#define BASE 0x555555554000ULL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink; /* the strings are read (ASan: still valid) */

static uint64_t u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void use(const struct hws_inline_frame *fr, int n)
{
	for (int i = 0; i < n; i++) {
		if (!fr[i].name)
			__builtin_trap(); /* every entry has a name ("??" at worst) */
		sink += strlen(fr[i].name) + fr[i].line + fr[i].inlined;
		if (fr[i].srcfile)
			sink += strlen(fr[i].srcfile);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hws_symbols_opts o = {.sz = sizeof(o), .max_files = 1};
	const struct hws_inline_frame *fr;
	struct hws_symbols *syms;
	uint64_t addr;
	char path[64];
	int fd, n, first = 0;

	if (size < 8)
		return 0;
	addr = u64(data);
	fd = memfd_create("fuzz_inline", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data + 8, size - 8) != (ssize_t)(size - 8)) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	syms = hws_symbols__new(&o);
	if (syms && !hws_symbols__mmap(syms, PID, BASE, 1ULL << 32, 0, path)) {
		for (uint64_t i = 0; i < 16; i++) {
			n = hws_symbols__inlines(syms, PID, addr + i, &fr);
			if (n > 0)
				use(fr, n);
			if (!i)
				first = n;
		}
		/* the cache answers the same */
		n = hws_symbols__inlines(syms, PID, addr, &fr);
		if (n >= 0 && first >= 0 && n != first)
			__builtin_trap();
		if (n > 0)
			use(fr, n);
	}
	hws_symbols__delete(syms);
	close(fd);
	return 0;
}
