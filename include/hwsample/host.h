/* SPDX-License-Identifier: MIT */
/*
 * The machine the library works on: where its sysfs tree and cpuinfo are, and options the
 * program sets for every backend. Process-wide settings, like hws_set_log_level(): set them
 * before creating registries or sessions, not while other threads use the library.
 *
 * A fake machine (tests, a dry run for another CPU) is a directory laid out like /sys, with
 * bus/event_source/devices/<pmu>/... and a cpuinfo file at its top (the trees under
 * tests/sysfs/). The library itself reads no environment variable: the hwsample CLI sets
 * these from HWS_SYSFS_ROOT, HWS_PROC_CPUINFO and HWS_SPE_NO_AVX2.
 *
 * Backends see the same settings through the host table (include/hwsample/backend.h:
 * sysfs_root, cpuinfo, cpu_flag, flags).
 */
#ifndef HWSAMPLE_HOST_H
#define HWSAMPLE_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include <hwsample/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_host_opts {
	size_t sz;		  /* HWS_OPTS() */
	const char *sysfs_root;	  /* a fake machine's sysfs tree; NULL or "": /sys */
	const char *proc_cpuinfo; /* cpuinfo to read; NULL or "": <sysfs_root>/cpuinfo with a
				   * sysfs_root (none there: no cpuinfo facts), else
				   * /proc/cpuinfo */
	bool no_simd;		  /* backends take their portable code paths (no SIMD), e.g.
				   * to compare both */
};

/*
 * hws_host__configure() - set the machine description (@opts copied; NULL: the real
 * machine, no options). Returns 0, or -EINVAL / -ENAMETOOLONG with nothing changed.
 */
HWS_API int hws_host__configure(const struct hws_host_opts *opts);

/* The sysfs root in use ("/sys" or the configured one). Never NULL. */
HWS_API const char *hws_sysfs_root(void);

/*
 * hws_cpuinfo__get() - the value of "@key : value" in the machine's cpuinfo, first match
 * (the first CPU's for per-CPU keys: "vendor_id", "cpu family", "model", "stepping",
 * "model name", "flags", "CPU implementer", ...), written to @buf (NUL-terminated,
 * truncated to @len - 1). Returns the value's length, -ENOENT (no such key, or a fake
 * machine without a cpuinfo file) or another negative errno.
 */
HWS_API int hws_cpuinfo__get(const char *key, char *buf, size_t len);

/* 1 if the first CPU's feature list ("flags" on x86, "Features" on Arm) has the word
 * @flag, 0 if not or unknown. */
HWS_API int hws_cpuinfo__has_flag(const char *flag);

#ifdef __cplusplus
}
#endif
#endif
