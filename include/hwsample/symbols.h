/* SPDX-License-Identifier: MIT */
/*
 * Symbolization of code and data addresses of a recording.
 *
 * struct hws_symbols keeps a process table built from the side-band records of a perf.data
 * file (COMM, FORK, EXIT, MMAP, MMAP2) and resolves (pid, address) to the mapped file and the
 * ELF symbol containing it: functions (STT_FUNC) for code and global variables (STT_OBJECT)
 * for data, PLT entries as "name@plt" (synthesized from the PLT relocations, as perf does), plus
 * source file:line through libdw when the file (or its separate debuginfo under
 * /usr/lib/debug/.build-id) has DWARF. Kernel addresses resolve through /proc/kallsyms only
 * when the caller says the recording host is this host (hws_symbols__use_kallsyms()), else
 * they are "[kernel]" without a name.
 *
 * Memory stays bounded: at most opts.max_files ELF files are kept loaded (least recently used
 * ones are unloaded), a file's symbol table is read once per load, and the process table only
 * grows with the side-band records of the file.
 *
 * Not thread-safe: one struct hws_symbols per thread.
 */
#ifndef HWSAMPLE_SYMBOLS_H
#define HWSAMPLE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>
#include <hwsample/strbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_symbols;

struct hws_symbols_opts {
	size_t sz;	    /* sizeof(struct hws_symbols_opts) */
	uint32_t max_files; /* ELF files kept loaded at once; 0 = 64 */
	bool srcline;	    /* look up source file:line (libdw); slower */
	bool no_elf;	    /* never open ELF files (maps only) */
	/* C++ and Rust names of ELF files are demangled as perf shows them (libiberty, no
	 * parameter list) unless no_demangle (perf --no-demangle); demangle_params adds the
	 * parameters and qualifiers, as perf -v shows them. Kernel names are never demangled. */
	bool no_demangle;
	bool demangle_params;
	/* keep the maps a process had before each exec() (up to 8 images): an address that
	 * no current map of the process covers resolves in the newest earlier image mapping
	 * it. For callers that look addresses up after the run (report, c2c), where samples
	 * taken before an exec would otherwise meet the new image's maps; without it an exec
	 * drops the old maps, as perf does while it processes samples in time order. */
	bool exec_history;
};

enum hws_sym_kind {
	HWS_SYM_NONE = 0, /* no symbol: only the map (or nothing) is known */
	HWS_SYM_FUNC,	  /* STT_FUNC / STT_GNU_IFUNC, kallsyms t/T/w/W */
	HWS_SYM_OBJECT,	  /* STT_OBJECT / STT_TLS, kallsyms d/D/b/B/r/R */
};

/* The result of a lookup. The strings are owned by the struct hws_symbols and are valid
 * until the next hws_symbols__resolve() or __delete() (a lookup may unload a file). */
struct hws_symbol {
	const char *dso;     /* mapped file, "[kernel]", "[vdso]", "[heap]", "//anon"...; NULL if
			      * no map covers the address */
	const char *name;    /* symbol name, NULL if none */
	const char *srcfile; /* source file, NULL unless opts.srcline and DWARF had it */
	uint64_t offset;     /* address - symbol start */
	uint64_t size;	     /* symbol size (0 if unknown) */
	uint64_t dso_addr;   /* the address as the file sees it (ELF vaddr), or the address */
	uint32_t line;	     /* source line, 0 if unknown */
	uint8_t kind;	     /* enum hws_sym_kind */
};

/**
 * hws_symbols__new() - empty process table and file cache.
 * @opts: may be NULL (defaults).
 * Return: the object, or NULL with errno set. Free with hws_symbols__delete().
 */
HWS_API struct hws_symbols *hws_symbols__new(const struct hws_symbols_opts *opts);
HWS_API void hws_symbols__delete(struct hws_symbols *syms); /* NULL-safe */

/**
 * hws_symbols__use_kallsyms() - resolve kernel addresses with a kallsyms file.
 * @path: normally "/proc/kallsyms"; NULL turns kernel names off ("[kernel]" only).
 * Call it with /proc/kallsyms only when the recording kernel is the running kernel (same
 * build-id, or hostname and osrelease); any kallsyms file of the recording's kernel works.
 * Only the first 64 KiB are read here (more if they show no address); the rest is read
 * from the file as opened at the first kernel lookup, so recordings without kernel
 * addresses never pay for it. If that later read fails, kernel names are off.
 * Return: 0, or negative errno if the file cannot be read or shows no addresses
 * (kptr_restrict); kernel names stay off then.
 */
HWS_API int hws_symbols__use_kallsyms(struct hws_symbols *syms, const char *path);

/**
 * hws_symbols__use_kallsyms_copy() - hws_symbols__use_kallsyms(@path), reading a copy of
 * it instead of the rest of @path when the copy provably lists the same addresses (perf's
 * build-id cache keeps one per kernel; the kernel takes tens of ms to generate
 * /proc/kallsyms, a copy reads in a few): the copy starts with the bytes @path showed (the
 * kernel's own symbols), and its module symbols are those of the modules @modules lists
 * (normally /proc/modules; NULL or a missing file: no modules), each inside its module.
 * A copy with other tagged symbols (BPF programs, trampolines) is not used.
 * @copy: NULL makes this hws_symbols__use_kallsyms().
 *
 * Either way, kernel symbols are moved to where the recording saw the kernel when its
 * kernel MMAP ("[kernel.kallsyms]_text", pgoff = _text) says the kernel lay elsewhere
 * (another boot, KASLR); module symbols are then dropped.
 */
HWS_API int hws_symbols__use_kallsyms_copy(struct hws_symbols *syms, const char *path,
					   const char *copy, const char *modules);

/**
 * hws_symbols__build_id() - the recording's build-id @bid (hex) of file @path (a path, or
 * "[vdso]"), from its HEADER_BUILD_ID, and @copy: perf's build-id cache copy of it, or
 * NULL. As perf, the file at @path is read only if its build-id is @bid, else @copy (no
 * copy: the file's addresses get no names); [vdso] is read from @copy. Call before the
 * file is first looked up. Return: 0, -EINVAL or -ENOMEM.
 */
HWS_API int hws_symbols__build_id(struct hws_symbols *syms, const char *path, const char *bid,
				  const char *copy);

/* Side-band records. Return 0 or -ENOMEM. */
HWS_API int hws_symbols__comm(struct hws_symbols *syms, uint32_t pid, uint32_t tid,
			      const char *comm, bool exec);
HWS_API int hws_symbols__fork(struct hws_symbols *syms, uint32_t pid, uint32_t ppid);
/**
 * hws_symbols__fork_thread() - a FORK record whole: thread @tid of process @pid made by
 * thread @ptid of @ppid. As hws_symbols__fork(), and the new thread takes @ptid's comm (a
 * thread's comm is its own: perf's thread__fork()); a thread's COMM names only that thread.
 */
HWS_API int hws_symbols__fork_thread(struct hws_symbols *syms, uint32_t pid, uint32_t ppid,
				     uint32_t tid, uint32_t ptid);
/**
 * hws_symbols__mmap() - a mapping of @pid (MMAP / MMAP2). A new mapping replaces the parts
 * of older ones it overlaps, as in the kernel. @pid (u32)-1 means the kernel map.
 */
HWS_API int hws_symbols__mmap(struct hws_symbols *syms, uint32_t pid, uint64_t start, uint64_t len,
			      uint64_t pgoff, const char *filename);

#define HWS_PROT_EXEC 0x4 /* PROT_EXEC */
/**
 * hws_symbols__mmap_prot() - hws_symbols__mmap() with the mapping's protection (an MMAP2's
 * prot; an MMAP's is HWS_PROT_EXEC unless marked data). As perf, executable anonymous
 * memory ("//anon", "/dev/zero", "/anon_hugepage", "[stack", "[heap]", "/SYSV") is a JIT's:
 * it is named by "/tmp/perf-PID.map" (lines "START SIZE NAME", hex, the process's own
 * addresses), read at the first lookup when it is a regular file (not through a symlink),
 * and shown as perf's "[JIT] tid PID" (hws_dso__short_name()).
 */
HWS_API int hws_symbols__mmap_prot(struct hws_symbols *syms, uint32_t pid, uint64_t start,
				   uint64_t len, uint64_t pgoff, uint32_t prot,
				   const char *filename);

/* Comm of @pid (its main thread's last COMM; "swapper" for pid 0 without one, as perf names
 * the idle task), NULL if unknown. Owned by @syms. */
HWS_API const char *hws_symbols__pid_comm(struct hws_symbols *syms, uint32_t pid);

/* Comm of thread @tid as perf names it: its last COMM, else the comm of the thread that made
 * it (hws_symbols__fork_thread()); "swapper" for tid 0 without one; NULL if unknown (perf
 * shows ":TID"). Owned by @syms. */
HWS_API const char *hws_symbols__tid_comm(struct hws_symbols *syms, uint32_t tid);

struct hws_sample;
/* Comm of @s's thread: hws_symbols__tid_comm() of its tid, as perf script and perf report
 * show it; NULL when @syms is NULL or the sample carries no pid (HWS_SF_PID: an SPE record
 * without CONTEXT names no process). */
HWS_API const char *hws_symbols__sample_comm(struct hws_symbols *syms, const struct hws_sample *s);

/**
 * hws_symbols__resolve() - symbolize @addr in process @pid.
 * @data: true for a data address (prefers variables), false for code.
 * Return: 1 if a symbol name was found, 0 if only the map (or nothing) is known; *out is
 * filled in both cases. Recent answers are kept in a small direct-mapped cache (cleared by
 * every side-band call and file unload), so repeated addresses cost a hash and a compare.
 */
HWS_API int hws_symbols__resolve(struct hws_symbols *syms, uint32_t pid, uint64_t addr, bool data,
				 struct hws_symbol *out);

/**
 * hws_symbols__resolve_range() - hws_symbols__resolve() that also says how far its answer
 * holds, so a caller walking sorted addresses looks up each symbol once.
 * @lo, @hi: set (when not NULL) to an inclusive range of addresses of process @pid around
 * @addr over which a lookup with the same @data gives the same dso, name, kind, size and
 * srcfile/line, with offset and dso_addr moving by the same amount as the address. It is
 * [@addr, @addr] when nothing wider is known (always with opts.srcline).
 * Return: as hws_symbols__resolve(). The range holds until the next side-band call
 * (hws_symbols__mmap/comm/fork) or hws_symbols__use_kallsyms().
 */
HWS_API int hws_symbols__resolve_range(struct hws_symbols *syms, uint32_t pid, uint64_t addr,
				       bool data, struct hws_symbol *out, uint64_t *lo,
				       uint64_t *hi);

/**
 * hws_symbols__in_kernel_map() - is kernel address @addr inside the kernel map as perf sees
 * it (from the recording's kernel MMAP start upwards; a recording without one has none)?
 * perf names the DSO of kernel addresses outside it "[unknown]".
 */
HWS_API bool hws_symbols__in_kernel_map(struct hws_symbols *syms, uint64_t addr);

/**
 * hws_symbols__resolve_file() - symbolize ELF virtual address @vaddr of file @path
 * (no process table involved). Same return and lifetime rules as hws_symbols__resolve().
 */
HWS_API int hws_symbols__resolve_file(struct hws_symbols *syms, const char *path, uint64_t vaddr,
				      bool data, struct hws_symbol *out);

/* One entry of the inline stack at a code address (hws_symbols__inlines()). */
struct hws_inline_frame {
	const char *name;    /* the function: DWARF's linkage name, else its name (demangled
			      * unless opts.no_demangle); "??" when DWARF has none */
	const char *srcfile; /* source line: for the first entry where the address is, for each
			      * next one where the entry before it was inlined; NULL if unknown */
	uint32_t line;
	bool inlined; /* perf's "NAME (inlined)"; false for an entry naming the address's ELF
		       * symbol (normally the last: the function the others are inlined into),
		       * which perf shows as the plain frame */
};

/**
 * hws_symbols__inlines() - perf's inline stack at code address @addr of process @pid (what
 * perf report / script show for a call-chain frame, from addr2line -i -f): the functions
 * inlined there, innermost first, then the function they are inlined into, from the file's
 * DWARF (or its separate debuginfo). A caller shows these entries instead of the frame.
 * @frames: set to the entries, owned by @syms, valid until the next hws_symbols__* call.
 * Answers are cached per (file, address) while the file is loaded.
 * Return: the number of entries, 0 when DWARF says nothing or @addr has no ELF symbol (show
 * the frame as it is), or -ENOMEM.
 */
HWS_API int hws_symbols__inlines(struct hws_symbols *syms, uint32_t pid, uint64_t addr,
				 const struct hws_inline_frame **frames);

/* Which call-chain frames show their inline stacks (perf report / script --inline). */
enum hws_inline_mode {
	HWS_INLINE_DEFAULT = 0, /* perf 6.1's: frames found by DWARF unwinding (--call-graph
				 * dwarf, HWS_FRAME_UNWOUND); frame-pointer chains never */
	HWS_INLINE_NONE,	/* --no-inline */
	HWS_INLINE_ALL,		/* --inline given: every user-space frame, frame-pointer chains
				 * and their first frame (the sample's ip) included */
};

/* does a frame with these struct hws_frame flags and ctx show its inline stack in @mode? */
HWS_API bool hws_inline__wanted(int mode, uint8_t flags, uint8_t ctx);

/**
 * hws_symbol__format() - append "name+0xoff" (or "[dso]+0xaddr" / "[unknown]") to @sb,
 * with " (file:line)" when known. @with_dso adds " [dso basename]".
 */
HWS_API int hws_symbol__format(const struct hws_symbol *sym, bool with_dso, struct hws_strbuf *sb);

/**
 * hws_buildid_cache__add_kernel() - copy the running kernel's /proc/kallsyms into perf's
 * build-id cache under the kernel's build-id, as perf record does, unless a copy is there,
 * so perf report and hwsample name kernel addresses of this kernel's recordings after a
 * reboot or on another machine. @dir: the cache; NULL: ~/.debug of the user's home (as
 * perf, a program honouring $PERF_BUILDID_DIR passes it here).
 * Return: 0, or a negative errno (no build-id in /sys/kernel/notes, kptr_restrict hides
 * the addresses (-EPERM), the cache is not writable).
 */
HWS_API int hws_buildid_cache__add_kernel(const char *dir);

/* Counters for tests and -v: files loaded, unloaded, lookups. */
struct hws_symbols_stats {
	uint64_t files_loaded, files_unloaded, files_failed, lookups, procs, maps;
};
HWS_API void hws_symbols__stats(const struct hws_symbols *syms, struct hws_symbols_stats *st);

#ifdef __cplusplus
}
#endif
#endif
