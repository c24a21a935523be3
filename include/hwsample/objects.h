/* SPDX-License-Identifier: MIT */
/*
 * Data objects: which object a sample's data address falls in.
 *
 * When asked (hwsample record --objects), the programs hwsample launches run with an
 * interposer library (hws-objects.so, LD_PRELOAD) that records their allocations: malloc,
 * calloc, realloc, the aligned allocators, free, mmap and munmap, each with address, size,
 * time (on the samples' clock: the events use CLOCK_MONOTONIC, as perf record -k mono) and
 * the allocation's call chain (the return address of the allocator, then a frame-pointer
 * walk bounded by the thread's stack), and each thread's stack and thread-local storage
 * blocks (times: TSC ticks on x86-64, converted to CLOCK_MONOTONIC when read). Each
 * process writes one file of fixed-size records
 * (struct hws_objrec after a struct hws_objfile header) into a shared mapping, so what it
 * recorded survives its own or the recorder's death. The recorder copies every such file
 * into the perf.data's private header feature HWS_FEAT_HWS_OBJECTS (perf ignores feature
 * bits it does not know), the files one after the other.
 *
 * At report time struct hws_objects indexes them and names, for a (pid, tid, address,
 * time), the heap block live there then (allocation site, size, offset), a thread-local
 * variable (the STT_TLS symbol at the offset in the thread's block, with symbols), the thread
 * stack, an anonymous or file mmap made by the program (with its call site), or, with
 * symbols, a static variable (ELF data symbol) or a mapped file.
 */
#ifndef HWSAMPLE_OBJECTS_H
#define HWSAMPLE_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>
#include <hwsample/perfdata.h>
#include <hwsample/sample.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the interposer's file format (host byte order, little-endian machines) ---- */

/* the private perf.data header feature holding the allocation records (perf: unknown bit) */
#define HWS_FEAT_HWS_OBJECTS 200

#define HWS_OBJFILE_MAGIC   "HWSOBJS1"
#define HWS_OBJFILE_VERSION 3 /* 1: times in ns only, 2: no ALLOCS/SITE (both still read) */
#define HWS_OBJ_FRAMES	    5

/* One process's records: this header, then @used bytes of struct hws_objrec. */
struct hws_objfile {
	char magic[8];	     /* HWS_OBJFILE_MAGIC */
	uint32_t version;    /* HWS_OBJFILE_VERSION */
	uint32_t rec_size;   /* sizeof(struct hws_objrec) */
	uint32_t pid, ppid;  /* the process, when it opened the file */
	uint64_t start_time; /* when it opened it (exec() starts a new file) */
	uint64_t min_size;   /* allocations of at least this many bytes are recorded */
	uint64_t used;	     /* bytes of records reserved (may pass capacity: then dropped) */
	uint64_t capacity;   /* bytes of records the file holds */
	uint64_t dropped;    /* records not written: the file was full (see also @flags) */
	int32_t clockid;     /* clock of the times (CLOCK_MONOTONIC) */
	uint32_t depth;	     /* frames recorded per allocation, at most HWS_OBJ_FRAMES */
	/* version 2: with @tsc_hz, record times are time-stamp counter ticks (x86-64 rdtsc),
	 * @tsc0 the tick at @start_time; HWS_OBJREC_CLOCK records pair later ticks with
	 * @clockid times, and the reader converts between them (@tsc_hz, an estimate, only
	 * past the last pair). 0: times are @clockid nanoseconds. */
	uint64_t tsc0;
	uint64_t tsc_hz;
	uint64_t flags; /* HWS_OBJFILE_F_* (0 in files written before it was defined) */
	uint64_t reserved[4];
};

/* hws_objfile.flags: the file system had no room for more records, or no more than the recorder
 * leaves free there (HWS_OBJECTS_KEEP_FREE): those after were dropped (counted in @dropped) */
#define HWS_OBJFILE_F_NOSPACE 1ULL
/* bytes the recorder leaves free on its records' file system unless HWS_OBJECTS_KEEP_FREE
 * (decimal bytes) says otherwise */
#define HWS_OBJECTS_KEEP_FREE_DEFAULT (64ULL << 20)

enum hws_objrec_type {
	HWS_OBJREC_NONE = 0, /* not written (the process died while writing it) */
	HWS_OBJREC_ALLOC,    /* a heap block: addr, size (flags: enum hws_obj_fn) */
	HWS_OBJREC_FREE,     /* addr freed */
	HWS_OBJREC_REALLOC,  /* old freed, block addr, size allocated */
	HWS_OBJREC_MMAP,     /* addr, size; old = flags << 32 | (uint32_t)fd; flags = prot */
	HWS_OBJREC_MUNMAP,   /* addr, size */
	HWS_OBJREC_STACK,    /* the thread tid's stack is [addr, addr + size) */
	HWS_OBJREC_CLOCK,    /* version 2: tick addr is time (nanoseconds of clockid) */
	HWS_OBJREC_FREES,    /* version 2: nframes (1-4) frees: (time, addr) pairs in the words
			      * from time on (time, addr, size, old, frames[0..3]) */
	HWS_OBJREC_TLS,	     /* thread tid's block of a module's thread-local storage is [addr,
			      * addr + size); old: the module's TLS image in memory (a mapped
			      * address of its file); flags: its TLS module id. A FREE at addr
			      * ends it (the thread returned). */
	HWS_OBJREC_SITE,     /* version 3: call chain number addr (of the process) is frames */
	HWS_OBJREC_ALLOCS,   /* version 3: nframes (1-2) heap blocks, four words each from time
			      * on: time, addr, size, enum hws_obj_fn << 32 | SITE number */
	HWS_OBJREC__MAX,
};

/* which allocator made a block (hws_objrec.flags of HWS_OBJREC_ALLOC) */
enum hws_obj_fn {
	HWS_OBJFN_MALLOC,
	HWS_OBJFN_CALLOC,
	HWS_OBJFN_REALLOC,
	HWS_OBJFN_MEMALIGN, /* posix_memalign, aligned_alloc, memalign, valloc, pvalloc */
};

struct hws_objrec {
	uint8_t type; /* enum hws_objrec_type, stored last (0: the record was never finished) */
	uint8_t nframes;
	uint16_t flags;
	uint32_t tid;
	uint64_t time;
	uint64_t addr;
	uint64_t size;
	uint64_t old;
	uint64_t frames[HWS_OBJ_FRAMES]; /* return addresses, the allocator's caller first */
};

/* ---- the index ---- */

enum hws_object_kind {
	HWS_OBJ_NONE = 0,
	HWS_OBJ_HEAP,	/* a block from malloc & co. */
	HWS_OBJ_STATIC, /* an ELF data symbol */
	HWS_OBJ_TLS,	/* a thread-local variable (ELF STT_TLS symbol in a thread's block) */
	HWS_OBJ_STACK,	/* a thread's stack */
	HWS_OBJ_MMAP,	/* a file mapping */
	HWS_OBJ_ANON,	/* an anonymous mapping (with its call site when the program made it) */
};

/* What a data address is. Strings point into the index or the symbol table. */
struct hws_object {
	int kind;	  /* enum hws_object_kind */
	uint64_t base;	  /* start of the object */
	uint64_t size;	  /* its size (0 if unknown) */
	uint64_t offset;  /* address - base */
	uint64_t time;	  /* when it was allocated (heap, mmap) */
	uint32_t tid;	  /* the thread that allocated it (heap, mmap) or owns it (stack) */
	uint32_t nframes; /* allocation call chain (heap, mmap, anon) */
	const uint64_t *frames;
	const char *name; /* static: the symbol; mmap: the file; NULL otherwise */
	const char *dso;  /* static: the file holding the symbol */
			  /* room for the data type and field (capstone + DWARF): later */
};

struct hws_objects;

/**
 * hws_objects__new() - an index of allocation records.
 * @data, @len: a HWS_FEAT_HWS_OBJECTS payload: struct hws_objfile + records, repeated.
 * Damaged input is read as far as it is whole (hws_objects__nr_bad() counts what was not).
 * Return: the index, or NULL with errno set (ENOMEM).
 */
HWS_API struct hws_objects *hws_objects__new(const void *data, size_t len);
/* the payload of @r's HWS_FEAT_HWS_OBJECTS feature, or errno ENOENT when it has none */
HWS_API struct hws_objects *hws_objects__from_reader(const struct hws_perf_reader *r);
/**
 * hws_objects__from_dir() - the per-process files a recorder left in @dir (killed before it
 * copied them into the perf.data). Return: the index, or NULL with errno set.
 */
HWS_API struct hws_objects *hws_objects__from_dir(const char *dir);
HWS_API void hws_objects__delete(struct hws_objects *o); /* NULL-safe */

/* Counts: blocks and mappings indexed, records dropped by full files, malformed records. */
HWS_API size_t hws_objects__nr_objects(const struct hws_objects *o);
HWS_API uint64_t hws_objects__nr_dropped(const struct hws_objects *o);
HWS_API uint64_t hws_objects__nr_bad(const struct hws_objects *o);

/**
 * hws_objects__lookup() - the block, mapping or stack of process @pid containing @addr at
 * @time (allocated at or before it, not freed before it) from the records alone.
 * Return: true and @out filled, or false (@out->kind HWS_OBJ_NONE).
 */
HWS_API bool hws_objects__lookup(const struct hws_objects *o, uint32_t pid, uint64_t addr,
				 uint64_t time, struct hws_object *out);

/**
 * hws_objects__attribute() - what sample @s's data address (HWS_SF_ADDR) is: the records'
 * answer (@o may be NULL), else with @syms (may be NULL) a static variable or a mapped file.
 * Return: true and @out filled, or false.
 */
HWS_API bool hws_objects__attribute(const struct hws_objects *o, struct hws_symbols *syms,
				    const struct hws_sample *s, struct hws_object *out);

/* "heap", "static", "tls", "stack", "mmap", "anon" ("" for HWS_OBJ_NONE) */
HWS_API const char *hws_object__kind_name(int kind);

/**
 * hws_object__site() - the allocation site of @obj as "function+0xoff" (the first frame;
 * "0x..." without a symbol), resolved with @syms (may be NULL) in process @pid.
 * Appended to @sb. Return: 0 or -ENOMEM; nothing appended when @obj has no frames.
 */
HWS_API int hws_object__site(const struct hws_object *obj, struct hws_symbols *syms, uint32_t pid,
			     struct hws_strbuf *sb);

/**
 * hws_object__label() - @obj as one name: "[heap] site+0x1f", "[static] name", "[stack] tid
 * N", "[mmap] /path", "[anon] site" ("[kind] " alone when it has neither), with " (N bytes)"
 * after it when @with_size and the size is known (not for stacks and mappings); the site
 * resolved with @syms (may be NULL) in process @pid. The column of report --sort object and
 * the "object" label of convert --to-pprof. Appended to @sb. Return: 0 or -ENOMEM.
 */
HWS_API int hws_object__label(const struct hws_object *obj, struct hws_symbols *syms, uint32_t pid,
			      bool with_size, struct hws_strbuf *sb);

/**
 * hws_object__json() - ,"object":{"kind":"heap","site":"...","size":N,"offset":N,...}
 * appended to @sb (nothing for HWS_OBJ_NONE). Return: 0 or -ENOMEM.
 */
HWS_API int hws_object__json(const struct hws_object *obj, struct hws_symbols *syms, uint32_t pid,
			     struct hws_strbuf *sb);

struct hws_datatypes;
struct hws_datatype;
/**
 * hws_object__type() - the type of heap object @obj of process @pid from its allocation site
 * (include/hwsample/datatype.h, hws_datatypes__alloc(): its first frame, resolved with
 * @syms, and its offset). Return: 1 and @out filled, 0 unknown (other kinds of objects too),
 * or -ENOMEM.
 */
HWS_API int hws_object__type(const struct hws_object *obj, struct hws_datatypes *dt,
			     struct hws_symbols *syms, uint32_t pid, struct hws_datatype *out);

/**
 * hws_objects__sample_type() - the type of sample @s's access, as report --sort type,typeoff,
 * dump --json, c2c and pprof give it: from its instruction (hws_datatypes__resolve()), else,
 * when its data address is in a heap object of @o, from the object's allocation site
 * (hws_object__type()). @obj: @s's object when the caller has it (hws_objects__attribute()),
 * else NULL: then @s is attributed here, only when the instruction gives no type (@o may be
 * NULL: no objects). Return: 1 and @out filled, 0 unknown, or -ENOMEM.
 */
HWS_API int hws_objects__sample_type(const struct hws_objects *o, const struct hws_object *obj,
				     struct hws_datatypes *dt, struct hws_symbols *syms,
				     const struct hws_sample *s, struct hws_datatype *out);

#ifdef __cplusplus
}
#endif

#endif
