// SPDX-License-Identifier: MIT
/*
 * Large buffers a command fills once (the kallsyms text and its symbol table): on a VM every
 * 4 KiB first-touch fault costs microseconds (EPT), so a 5 MB kallsyms copy read into fresh
 * pages cost more than parsing it. Transparent huge pages (THP in "madvise" mode, Debian's
 * default) fault such a buffer in 2 MiB at a time. Hints only: where madvise fails (THP off,
 * old kernel) nothing changes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util/internal.h"

#define HUGE_SZ ((uintptr_t)2 << 20)

/* ask for huge pages for the 2 MiB-aligned part of [p, p + len) */
static void huge_hint(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t lo = ((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(HUGE_SZ - 1);

	if (p && hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)len;
#endif
}

void *hws__huge_alloc(size_t len)
{
	void *p;

	if (len < HUGE_SZ / 2 || len > SIZE_MAX - HUGE_SZ)
		return malloc(len);
	len = (len + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	if (posix_memalign(&p, HUGE_SZ, len))
		return NULL;
	huge_hint(p, len);
	return p;
}
