/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the core sources (not installed, not for backends).
 */
#ifndef HWS_CORE_INTERNAL_H
#define HWS_CORE_INTERNAL_H

#include <stddef.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>

#include <hwsample/errors.h>

void hws_log(enum hws_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define pr_err(fmt, ...)   hws_log(HWS_LOG_ERROR, fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)  hws_log(HWS_LOG_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)  hws_log(HWS_LOG_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) hws_log(HWS_LOG_DEBUG, fmt, ##__VA_ARGS__)

/* Copy the caller's options struct @opts (NULL: defaults) into the library's own @dst by the
 * convention of include/hwsample/common.h. Returns 0 or -EINVAL (with a warning). */
int hws__opts_get(void *dst, size_t dst_sz, const void *opts, const char *type);
#define HWS_OPTS_GET(dst, opts, type) hws__opts_get(&(dst), sizeof(dst), (opts), #type)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

typedef uint8_t hws_v16 __attribute__((vector_size(16), aligned(1), may_alias));

/*
 * memset(p, 0, n) for the per-sample structs (about 200 bytes, zeroed millions of times):
 * gcc turns a fixed-size memset of that size into `rep stos`, whose start-up costs more
 * than the dozen 16-byte stores this loop makes (the empty asm keeps gcc from turning the
 * loop back into the same memset). The asm takes no operand so that gcc can still unroll
 * the loop into stores at constant offsets, one instruction each.
 */
/* qsort() of @n elements of @size bytes, nothing for fewer than two: qsort(NULL, 0, ...) is
 * undefined, and an empty table's pointer is often NULL */
static inline void hws__qsort(void *base, size_t n, size_t size,
			      int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static inline __attribute__((always_inline)) void hws_zero(void *p, size_t n)
{
	uint8_t *b = p;

#pragma GCC unroll 16
	for (size_t i = 0; i < n / 16; i++) {
		*(hws_v16 *)(b + 16 * i) = (hws_v16){0};
		__asm__ volatile("");
	}
	b += n / 16 * 16;
	for (size_t i = 0; i < n % 16; i++)
		b[i] = 0;
}

/* core/util/mem.c: malloc(@len) for a large buffer about to be filled: from 1 MiB on,
 * 2 MiB-aligned and in transparent huge pages where it can (fewer first-touch faults; a hint,
 * nothing if it fails). free() it. */
void *hws__huge_alloc(size_t len);

struct hws_strbuf;
/* @s (a name from a file) for a text line: @s itself when hws_strbuf__text_plain(), else
 * escaped by hws_strbuf__add_text_str() into @b (reset first), "?" without memory */
const char *hws__text(struct hws_strbuf *b, const char *s);

/* Read a small sysfs/proc file into @buf (NUL-terminated, trailing newline removed).
 * Returns length or -errno. */
int hws_read_file(const char *path, char *buf, size_t len);

/* core/symbols/buildid.c: the running kernel's build-id (from <sysfs root>/kernel/notes) as
 * hex, module @mod's (<sysfs root>/module/@mod/notes/.note.gnu.build-id); perf's default build-id
 * cache directory (~/.debug of the user's home); the kallsyms copy of kernel @bid in it (0 when it
 * exists); copying @kallsyms there unless a copy exists. All return a negative errno on failure. */
int hws__kernel_build_id(char *hex, size_t len);
int hws__module_build_id(const char *mod, char *hex, size_t len);

/* core/symbols/kallsyms.c: the module list of /proc/modules (or a file like it at @path):
 * "name size refs deps state 0xaddr ..." lines. Returns the count (*@out, free() it), 0 for
 * a missing file (a kernel without modules), -1 when it cannot tell (unreadable, an address
 * hidden by kptr_restrict, a line it cannot read, over 8192 modules). */
struct hws_kmod {
	char name[64];
	uint64_t base, size;
	bool seen; /* the caller's */
};
int hws__read_modules(const char *path, struct hws_kmod **out);
int hws__buildid_dir(char *buf, size_t len);
int hws__buildid_kallsyms_path(const char *dir, const char *bid, char *buf, size_t len);
int hws__buildid_cache_kallsyms(const char *dir, const char *bid, const char *kallsyms);
/* perf's build-id cache for files (<dir><path>/<bid>/elf) and the vDSO
 * (<dir>/[vdso]/<bid>/vdso): the copy's path when it exists (0), or -ENOENT / -EINVAL (a
 * name that is neither absolute nor [vdso], or has a ".." component); adding a copy of file
 * @name, or of @len bytes at @mem when @mem is not NULL, unless one exists. */
int hws__buildid_cache_path(const char *dir, const char *name, const char *bid, char *buf,
			    size_t len);
int hws__buildid_cache_dso(const char *dir, const char *name, const char *bid, const void *mem,
			   size_t len);
/* this process's vDSO image (malloc'ed copy of its [vdso] mapping), or -ENOENT */
int hws__vdso_image(void **buf, size_t *len);
/* core/symbols/elf.c: NT_GNU_BUILD_ID of an ELF file or an ELF image in memory, as hex:
 * its length, 0 when there is none, or a negative errno */
int hws__file_build_id(const char *path, char *hex, size_t len);
int hws__mem_build_id(const void *buf, size_t size, char *hex, size_t len);

/* hws_datatypes__resolve() and hws_objects__sample_type() for a caller that has already
 * resolved the sample's code address (@code: hws_symbols__resolve() of s->ip, or NULL to
 * have it resolved here) */
struct hws_datatypes;
struct hws_datatype;
struct hws_objects;
struct hws_object;
struct hws_symbols;
struct hws_symbol;
struct hws_sample;
int hws__datatypes_resolve_code(struct hws_datatypes *dt, struct hws_symbols *syms,
				const struct hws_sample *s, const struct hws_symbol *code,
				struct hws_datatype *out);
int hws__objects_sample_type_code(const struct hws_objects *o, const struct hws_object *obj,
				  struct hws_datatypes *dt, struct hws_symbols *syms,
				  const struct hws_sample *s, const struct hws_symbol *code,
				  struct hws_datatype *out);

#endif
