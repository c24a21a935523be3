/* SPDX-License-Identifier: MIT */
/*
 * Run configuration files (the cfg directory): INI text parsed with libinih into sections of
 * key = value items, each remembering where it came from ("FILE:LINE" or "command line").
 *
 *   [run]                  how to record: backend (a name, a PMU, "auto", or a list),
 *                          events, period/freq, mode, cpus, mmap/AUX pages, overwrite,
 *                          snapshot, output, duration, ...   (hws_config_run_keys[])
 *   [<backend or PMU>]     e.g. [ibs_op], [ibs_fetch], [arm_spe], [intel_pebs], [sw]:
 *                          events, period, freq, pmu, and that PMU's controls
 *                          (l3missonly = 1, load_filter = 1, ldlat = 64, ...); a control
 *                          written "key? = value" is optional: applied where the PMU has
 *                          it, skipped where it does not (older CPU generations)
 *
 * Invariants:
 *  - hws_config__load() rejects, with "FILE:LINE: ..." and the valid choices, anything it
 *    can judge without knowing the machine: syntax, unknown [run] keys, wrong types and
 *    out-of-range [run] values, keys given twice.
 *  - hws_config__validate() judges the rest against the loaded backends: section names
 *    (a backend or a PMU one serves), keys of backend sections (the PMU's controls, from
 *    ops->controls()) and their ranges. Neither function opens a perf event.
 *  - Every string in the structures is owned by the config and freed by __delete.
 */
#ifndef HWSAMPLE_CONFIG_H
#define HWSAMPLE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>
#include <hwsample/registry.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_config_item {
	char *key;
	char *value;
	char *origin; /* "FILE:LINE" or "command line" */
	int line;     /* 0: not from the file */
};

struct hws_config_section {
	char *name; /* "run", "ibs_op", ... */
	int line;   /* line of the [header], 0 if created by an override */
	struct hws_config_item *items;
	int nr_items;
};

struct hws_config {
	char *path; /* file as given, NULL if none was loaded */
	struct hws_config_section *sections;
	int nr_sections;
};

enum hws_config_type {
	HWS_CFG_STRING,
	HWS_CFG_LIST,	 /* comma-separated words */
	HWS_CFG_UINT,	 /* whole number in [min, max] */
	HWS_CFG_BOOL,	 /* true/false, yes/no, on/off, 1/0 */
	HWS_CFG_SECONDS, /* positive number of seconds, may have a fraction: 2.5 */
	HWS_CFG_ENUM,	 /* one of choices (|-separated) */
	HWS_CFG_CPUS,	 /* CPU list: 0-3,8 */
};

struct hws_config_key {
	const char *name;
	enum hws_config_type type;
	uint64_t min, max;   /* HWS_CFG_UINT */
	const char *choices; /* HWS_CFG_ENUM: "default|per-thread|system-wide|cpus" */
	const char *cli;     /* matching command-line option, for help and docs */
	const char *help;
};

/* Keys of [run], NULL-name terminated (drives validation, --help and the man page). */
HWS_API extern const struct hws_config_key hws_config_run_keys[];
/* Keys every backend section takes besides its controls, NULL-name terminated. */
HWS_API extern const struct hws_config_key hws_config_backend_keys[];

HWS_API struct hws_config *hws_config__new(void);
HWS_API void hws_config__delete(struct hws_config *cfg); /* NULL-safe */

/* Parse @path into @cfg. Returns 0, or HWS_E_BAD_CONFIG / -errno with "FILE:LINE: what is
 * wrong; valid: ..." in @err. @cfg may hold part of the file after an error. A directory,
 * FIFO or device (refused before it is read: nothing blocks), an empty file and a file
 * without any section are HWS_E_BAD_CONFIG. */
HWS_API int hws_config__load(struct hws_config *cfg, const char *path, char *err, size_t errlen);

/* Set @section.@key to @value (creating either), replacing what the file said; @origin is
 * kept as given ("command line"). Returns 0 or -ENOMEM. */
HWS_API int hws_config__set(struct hws_config *cfg, const char *section, const char *key,
			    const char *value, const char *origin);
/* Remove @section.@key if present (a command-line value that excludes a file value, e.g.
 * -c drops the file's freq). */
HWS_API void hws_config__unset(struct hws_config *cfg, const char *section, const char *key);

/* Lookup; NULL if absent. Pointers are owned by @cfg (valid until it changes). */
HWS_API const struct hws_config_section *hws_config__section(const struct hws_config *cfg,
							     const char *name);
HWS_API const struct hws_config_item *hws_config__get(const struct hws_config *cfg,
						      const char *section, const char *key);

/* Typed values of an item already validated (0 on success, HWS_E_BAD_CONFIG with "origin:
 * ..." in @err otherwise). */
HWS_API int hws_config__uint(const struct hws_config_item *it, uint64_t min, uint64_t max,
			     uint64_t *out, char *err, size_t errlen);
HWS_API int hws_config__bool(const struct hws_config_item *it, bool *out, char *err, size_t errlen);
HWS_API int hws_config__seconds(const struct hws_config_item *it, double *out, char *err,
				size_t errlen);

/* Check section names and backend-section keys against @reg (see the file comment). */
HWS_API int hws_config__validate(const struct hws_config *cfg, const struct hws_registry *reg,
				 char *err, size_t errlen);

/* True if @key is one of hws_config_backend_keys (not a control). */
HWS_API bool hws_config__is_backend_key(const char *key);

#ifdef __cplusplus
}
#endif
#endif
