/* SPDX-License-Identifier: MIT */
/*
 * Test helpers that run the system's tools (a shell, binutils' nm) on programs the tests
 * build at run time.
 */
#ifndef HWS_TESTS_TOOLS_H
#define HWS_TESTS_TOOLS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests.h"

/* system(@cmd): its exit status, or -1 if it did not exit */
static inline int tests_shell(const char *cmd)
{
	int rc = system(cmd);

	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* exit 77 (skipped) unless cc, addr2line and nm are installed: tests that build a program at run
 * time and ask binutils about it */
static inline void tests_need_cc_binutils(void)
{
	if (tests_shell("command -v cc >/dev/null 2>&1 && command -v addr2line >/dev/null 2>&1 && "
			"command -v nm >/dev/null 2>&1"))
		TEST_SKIP("cc, addr2line or nm not installed");
}

/* the address nm gives symbol @want of @bin (the last of that name), 0 if none */
static inline uint64_t tests_nm_addr(const char *bin, const char *want)
{
	char cmd[1100], line[512];
	uint64_t r = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm --defined-only %s", bin);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, want))
			r = a;
	}
	if (f)
		pclose(f);
	return r;
}

#endif
