/* SPDX-License-Identifier: MIT */
/* core/objects internals: the STT_TLS symbols of ELF files (tls.c) */
#ifndef HWS_OBJECTS_INT_H
#define HWS_OBJECTS_INT_H

#include <stdbool.h>
#include <stdint.h>

struct tls_syms;

struct tls_syms *tls_syms__new(void); /* NULL: no memory */
void tls_syms__delete(struct tls_syms *t);
/* the STT_TLS symbol of file @path containing TLS-segment offset @off: its @name, @value
 * (offset) and @size. False when none (or the file is unreadable). */
bool tls_syms__find(struct tls_syms *t, const char *path, uint64_t off, const char **name,
		    uint64_t *value, uint64_t *size);

#endif
