/* SPDX-License-Identifier: MIT */
/*
 * core/symbols for the other core layers, beyond include/hwsample/symbols.h: the process
 * maps as they are, for the DWARF unwinder (core/decode/unwind.c), which hands them to libdw.
 *
 * Invariants: the path is owned by the struct hws_symbols and lives as long as it does
 * (files are interned once, never freed before hws_symbols__delete()); maps_gen changes
 * whenever the process's maps change (mmap, exec, fork), is never reused by another
 * process, and is 0 only for a process without maps so far.
 */
#ifndef HWS_SYMBOLS_CORE_H
#define HWS_SYMBOLS_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <gelf.h>

struct hws_symbols;

struct hws_map_info {
	/* the mapped file, "//anon", "[vdso]"...; the file to read: perf's build-id cache copy
	 * when the recording's build-id of the file (hws_symbols__build_id()) is not the one
	 * of the file at its path now (file false when there is no copy) */
	const char *path;
	uint64_t start, end; /* [start, end) in the process */
	uint64_t pgoff;	     /* file offset of start */
	uint64_t maps_gen;   /* the process's hws_symbols__maps_gen() */
	bool file;	     /* a regular file that may be an ELF file (not special) */
};

/* The map of @pid covering @addr: 0, -ESRCH (unknown pid) or -ENOENT (no map there). */
int hws_symbols__map_find(struct hws_symbols *s, uint32_t pid, uint64_t addr,
			  struct hws_map_info *mi);
/* Changes whenever @pid's maps change; 0 for a pid never seen. */
uint64_t hws_symbols__maps_gen(struct hws_symbols *s, uint32_t pid);
/* Changes whenever any answer of hws_symbols__resolve() may change (maps, symbol tables,
 * kernel symbols loaded): answers cached under one value stay right while it is current.
 * Never reused; 0 for NULL. */
uint64_t hws_symbols__answers_gen(const struct hws_symbols *s);

/*
 * For caches of answers above this layer (report's rows): hws_symbols__state() changes
 * whenever an answer of hws_symbols__resolve(), hws_symbols__in_kernel_map() or
 * hws_symbols__pid_comm() may change (mmap, comm, exec, fork, a file unloaded or loaded
 * from elsewhere, kernel symbols read). hws_symbols__touched() is the file the last
 * hws_symbols__resolve() used (NULL if none); hws_symbols__touch() with it counts a lookup
 * answered from such a cache and keeps that file as recently used as the lookup would.
 */
uint64_t hws_symbols__state(const struct hws_symbols *s);
/* hws_symbols__state() for the answers about process @pid (its maps, its comm, the kernel's
 * maps, the files): a change of another process's maps or comm leaves it as it is */
uint64_t hws_symbols__pid_state(struct hws_symbols *s, uint32_t pid);
void *hws_symbols__touched(const struct hws_symbols *s);
void hws_symbols__touch(struct hws_symbols *s, void *file);

struct hws_sample;
#define HWS_COMM_TID_LEN 16
/* @smp's comm as perf shows it: hws_symbols__sample_comm(), or for a thread without one
 * perf's ":TID" (signed: ":-1") written into @buf; never NULL (@buf when no comm) */
const char *hws_symbols__comm_or_tid(struct hws_symbols *s, const struct hws_sample *smp,
				     char buf[HWS_COMM_TID_LEN]);

/*
 * perf 6.1's srcline for an address no line table covers comes from binutils' addr2line,
 * which still "finds" an ELF function symbol there: the nearest STT_FUNC at or below
 * @vaddr in the section holding it, whatever its size (padding after a function too). It then
 * prints "FILE:?", FILE the STT_FILE before a local symbol or "??" for another, which perf
 * shows as "FILE:0"; finding nothing it prints "??:0", which perf takes as failure (and shows
 * SYM+OFFSET). perf runs addr2line only on a file with .debug_line: the one its symbols
 * come from, as core/symbols reads them. @path: a file as hws_symbol.dso names it.
 * Return: FILE, "??", or NULL (nothing found, no line tables, not an ELF file).
 */
const char *hws_symbols__a2l_file(struct hws_symbols *s, const char *path, uint64_t vaddr);

/*
 * A file a recording names (a map's path), opened for reading the way core/symbols does it:
 * never blocking on a FIFO, never becoming the controlling terminal, and only a regular file
 * of at least @min_size bytes (no devices like /dev/zero). Return: the descriptor, or -1.
 */
int hws_symbols__open_input(const char *path, long long min_size);

/*
 * The function scopes (subprograms, inlined calls) holding @pc under @parent, outermost first,
 * at most @max into @out, walked down the concrete DIE tree (namespaces followed, depth
 * bounded): their count. dwarf_getscopes() follows an inlined call into its abstract
 * definition instead, finds nothing in LTO's "<artificial>" unit, and libdw 0.188's leaks on
 * damaged DWARF. (core/symbols/inline.c)
 */
int hws_dwarf__walk_scopes(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int max);

/* section @name of @elf (its header in *@sh), or NULL (core/symbols/elf.c) */
Elf_Scn *hws_elf__section(Elf *elf, const char *name, GElf_Shdr *sh);

#endif
