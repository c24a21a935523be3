// SPDX-License-Identifier: MIT
/* Demo workload: touch N MiB (argv[1], default 64) of fresh anonymous memory page by page,
 * so every 4 KiB page faults once (transparent huge pages are turned off for the mapping, or
 * one 2 MiB fault would stand for 512 pages). Used by the loss and page-fault tests. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 64, n = mib << 20;
	volatile char *p =
	    mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise((void *)p, n, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	munmap((void *)p, n);
	return 0;
}
