/* SPDX-License-Identifier: MIT */
/*
 * Data types and fields of memory accesses (perf's data-type profiling, perf 6.8+
 * Linux tools/perf/util/annotate-data.c): the instruction at a sample's precise IP is decoded
 * (capstone: x86-64, arm64), its memory operand (base register, index, displacement) is
 * matched against the variables DWARF places at that PC (libdw): a pointer held in the base
 * register (the type it points to, at the displacement), a stack variable at the frame
 * base or stack pointer, a global at a PC-relative or absolute address; where DWARF has no
 * location for the register, its type is followed through the function from its start
 * (x86-64: moves, loads of members, calls to functions with a known return type), as perf
 * does. A global the instruction does not name is found from the sample's data address.
 *
 * The result is perf's: the type's name ("struct pair", a typedef's name, "int*"), the
 * offset of the access in it and the member there ("second", "inner.x" for nested structs).
 * Unlike perf 6.8, an array is shown as its element ("struct pair[]" +4100 is "struct pair"
 * +4 (second)), so arrays of structs name their fields.
 *
 * Answers are cached per (file, PC). Not thread-safe: one struct hws_datatypes per thread.
 * Without capstone at build time nothing is found (hws_datatypes__available() says so).
 */
#ifndef HWSAMPLE_DATATYPE_H
#define HWSAMPLE_DATATYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>
#include <hwsample/sample.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_datatypes;

/* A sample's data type. Strings are owned by the struct hws_datatypes (valid until
 * hws_datatypes__delete()). */
struct hws_datatype {
	const char *name;  /* "struct pair"; NULL: unknown (perf's "(unknown)") */
	const char *field; /* the member at @offset ("a.b"); NULL: none (perf's "no field") */
	const char *var;   /* the variable it was found through, when known */
	int64_t offset;	   /* of the access in the type */
	uint64_t size;	   /* the type's size in bytes */
	bool pseudo;	   /* perf's "(stack operation)" (x86 push, pop, call, ret): no
			    * offset, field or size */
};

/* Built with capstone (type profiling possible)? */
HWS_API bool hws_datatypes__available(void);

/* Return: the cache, or NULL with errno set. Free with hws_datatypes__delete() (NULL-safe). */
HWS_API struct hws_datatypes *hws_datatypes__new(void);
HWS_API void hws_datatypes__delete(struct hws_datatypes *dt);

/**
 * hws_datatypes__find() - the type accessed by the instruction at ELF address @pc of file
 * @path; @daddr: the data address as that file sees it (ELF vaddr of a global), or 0 when
 * the data is not in the file. Return: 1 and @out filled, 0 (unknown, @out->name NULL), or
 * -ENOMEM.
 */
HWS_API int hws_datatypes__find(struct hws_datatypes *dt, const char *path, uint64_t pc,
				uint64_t daddr, struct hws_datatype *out);

/**
 * hws_datatypes__resolve() - hws_datatypes__find() for sample @s (HWS_SF_IP, and
 * HWS_SF_ADDR when it has one), its IP and data address resolved with @syms in the
 * sample's process. Return: as hws_datatypes__find().
 */
HWS_API int hws_datatypes__resolve(struct hws_datatypes *dt, struct hws_symbols *syms,
				   const struct hws_sample *s, struct hws_datatype *out);

/**
 * hws_datatypes__alloc() - the type of a heap block from its allocation site, for the
 * accesses no instruction decode names (hws_datatypes__find() gave nothing): @ret_pc is the
 * ELF address in @path the allocator returned to (its caller's next instruction), @offset
 * the access's offset in the block. Covered: the caller's DWARF has a pointer variable that
 * receives the result (T *p = malloc(...)): p in the result register (x86-64 rax, arm64 x0)
 * at @ret_pc, or the instruction there copies the result into p's register or stack slot.
 * Not covered: casts without a variable (DWARF has no trace of them), results passed on
 * through wrappers or returned, void * and char * variables of generic allocators (void *:
 * nothing; char *: "char"). A block of several T gives the offset in one T.
 * Return: 1 and @out filled, 0 unknown, or -ENOMEM.
 */
HWS_API int hws_datatypes__alloc(struct hws_datatypes *dt, const char *path, uint64_t ret_pc,
				 uint64_t offset, struct hws_datatype *out);

/**
 * hws_datatype__format() - perf's columns: the type ("struct pair", "(unknown)"), or with
 * @with_offset its typeoff ("struct pair +4096 (second)", "int +0 (no field)",
 * "(unknown)", "(stack operation)"), appended to @sb. Return: 0 or -ENOMEM.
 */
HWS_API int hws_datatype__format(const struct hws_datatype *t, bool with_offset,
				 struct hws_strbuf *sb);

/**
 * hws_datatype__json() - ,"type":{"name":"struct pair","offset":N,"field":"second",
 * "size":N} appended to @sb (nothing when unknown). Return: 0 or -ENOMEM.
 */
HWS_API int hws_datatype__json(const struct hws_datatype *t, struct hws_strbuf *sb);

/* Counters for tests and -v. */
struct hws_datatypes_stats {
	uint64_t lookups, cached, found, by_var, by_global, by_tracking, by_daddr, files;
};
HWS_API void hws_datatypes__stats(const struct hws_datatypes *dt, struct hws_datatypes_stats *st);

#ifdef __cplusplus
}
#endif
#endif
