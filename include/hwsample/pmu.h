/* SPDX-License-Identifier: MIT */
/*
 * Dynamic PMUs from sysfs: /sys/bus/event_source/devices/<name>/ with type, format/ and caps/.
 * The root is hws_sysfs_root(): "/sys", or a fake machine's tree (include/hwsample/host.h).
 *
 * Format files hold specs like "config:19", "config1:0-11", "config:0-7,32-35" and map a
 * control name onto bits of attr.config / config1 / config2 / config3. hwsample never
 * hard-codes those positions: it reads them here.
 *
 * struct hws_pmu is contract data (backends get it through struct hws_host); it is filled
 * by hws_pmu__load() and owns no pointers.
 */
#ifndef HWSAMPLE_PMU_H
#define HWSAMPLE_PMU_H

#include <stddef.h>
#include <stdint.h>
#include <hwsample/abi.h>

#include <hwsample/common.h>
#include <hwsample/host.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HWS_PMU_NAME_MAX    64
#define HWS_PMU_MAX_FORMATS 64
#define HWS_PMU_MAX_CAPS    64
#define HWS_PMU_MAX_RANGES  4

struct hws_pmu_format {
	char name[48];
	uint8_t config; /* 0 = config, 1 = config1, 2 = config2, 3 = config3 */
	uint8_t nr_ranges;
	struct {
		uint8_t lo, hi; /* inclusive bit range in that config word */
	} ranges[HWS_PMU_MAX_RANGES];
	uint8_t width; /* total bits */
};

struct hws_pmu_cap {
	char name[48];
	char value[64];
};

struct hws_pmu {
	char name[HWS_PMU_NAME_MAX];
	uint32_t type;
	uint32_t nr_formats;
	struct hws_pmu_format formats[HWS_PMU_MAX_FORMATS];
	uint32_t nr_caps;
	struct hws_pmu_cap caps[HWS_PMU_MAX_CAPS];
};

/*
 * hws_pmu__load() - read PMU @name from sysfs into @pmu.
 * Return: 0, -ENOENT if there is no such PMU, other -errno on read errors,
 * HWS_E_BADREC if a format file cannot be parsed.
 */
HWS_API int hws_pmu__load(const char *name, struct hws_pmu *pmu);

/* Parse one format spec ("config1:0-11") into @f (name left untouched). 0 or HWS_E_BADREC. */
HWS_API int hws_pmu_format__parse(const char *spec, struct hws_pmu_format *f);

HWS_API const struct hws_pmu_format *hws_pmu__format(const struct hws_pmu *pmu, const char *name);
/* Value of caps/<name>, or NULL. */
HWS_API const char *hws_pmu__cap(const struct hws_pmu *pmu, const char *name);

/*
 * hws_pmu__set() - write @value into the bits of format @name in @attr.
 * Return: 0; HWS_E_UNKNOWN_CONTROL if the PMU has no such format;
 * HWS_E_CONTROL_RANGE if @value does not fit (max is (1 << width) - 1).
 * On error a message naming the fix is written to @err (may be NULL).
 */
HWS_API int hws_pmu__set(const struct hws_pmu *pmu, const char *name, uint64_t value,
			 struct hws_perf_event_attr *attr, char *err, size_t errlen);
/* Read back the value of format @f from @attr. */
HWS_API uint64_t hws_pmu_format__get(const struct hws_pmu_format *f,
				     const struct hws_perf_event_attr *attr);
/* Largest value format @f holds. */
HWS_API uint64_t hws_pmu_format__max(const struct hws_pmu_format *f);

/*
 * hws_pmu__list() - names of PMUs under the sysfs root whose name starts with @prefix,
 * written into @names (each HWS_PMU_NAME_MAX bytes). Returns how many (may exceed @max).
 */
HWS_API int hws_pmu__list(const char *prefix, char (*names)[HWS_PMU_NAME_MAX], int max);

#ifdef __cplusplus
}
#endif
#endif
