/* SPDX-License-Identifier: MIT */
/*
 * Minimal test helpers (no framework, like libperf's tests): __T(text, cond) records a
 * failure with file:line and goes on; TEST_END returns 1 if anything failed, else 0.
 * Exit 77 means "skipped" (SKIP_RETURN_CODE in CTest).
 */
#ifndef HWS_TESTS_H
#define HWS_TESTS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/host.h>

static int tests_failed;
static int tests_run;

#define __T(text, cond)                                                                            \
	do {                                                                                       \
		tests_run++;                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, text);             \
			tests_failed++;                                                            \
		}                                                                                  \
	} while (0)

#define T_EQ_U64(text, a, b)                                                                       \
	do {                                                                                       \
		uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);                                   \
		tests_run++;                                                                       \
		if (_a != _b) {                                                                    \
			fprintf(stderr,                                                            \
				"FAIL %s:%d: %s: got 0x%" PRIx64 " (%" PRIu64 ") want 0x%" PRIx64  \
				" (%" PRIu64 ")\n",                                                \
				__FILE__, __LINE__, text, _a, _a, _b, _b);                         \
			tests_failed++;                                                            \
		}                                                                                  \
	} while (0)

#define T_EQ_STR(text, a, b)                                                                       \
	do {                                                                                       \
		const char *_a = (a), *_b = (b);                                                   \
		tests_run++;                                                                       \
		if (!_a || !_b || strcmp(_a, _b)) {                                                \
			fprintf(stderr, "FAIL %s:%d: %s: got \"%s\" want \"%s\"\n", __FILE__,      \
				__LINE__, text, _a ? _a : "(null)", _b ? _b : "(null)");           \
			tests_failed++;                                                            \
		}                                                                                  \
	} while (0)

#define TEST_SKIP(why)                                                                             \
	do {                                                                                       \
		printf("SKIP: %s\n", why);                                                         \
		exit(77);                                                                          \
	} while (0)

/* xorshift64: the tests' reproducible random numbers (*state must not be 0) */
static inline uint64_t tests_xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

/* Describe a fake machine to the library, as the CLI does from HWS_SYSFS_ROOT and
 * HWS_PROC_CPUINFO: @root NULL for the real one, @cpuinfo NULL for the default (the tree's
 * cpuinfo, or /proc/cpuinfo without a tree). */
static inline void tests_machine(const char *root, const char *cpuinfo)
{
	HWS_OPTS(hws_host_opts, o, .sysfs_root = root, .proc_cpuinfo = cpuinfo);

	if (hws_host__configure(&o)) {
		fprintf(stderr, "hws_host__configure(%s, %s) failed\n", root ? root : "real sysfs",
			cpuinfo ? cpuinfo : "default cpuinfo");
		exit(1);
	}
}

#define TEST_END()                                                                                 \
	do {                                                                                       \
		printf("%d checks, %d failed\n", tests_run, tests_failed);                         \
		return tests_failed ? 1 : 0;                                                       \
	} while (0)

#endif
