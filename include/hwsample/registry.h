/* SPDX-License-Identifier: MIT */
/*
 * Backend registry: loads backends (dlopen'ed plugins or statically linked tables), checks
 * their ABI, allocates and initialises their private state, and finds them by backend
 * name, by the PMU they serve, or by the event they decode.
 *
 * Plugin search order (hws_registry__load_default()): the directory the caller names (the
 * CLI: --backend-dir, else $HWS_BACKEND_DIR) and only it; else <libdir>/hwsample/backends
 * relative to the running executable's directory (an installed tree, wherever it is),
 * the compiled-in <libdir>/hwsample/backends, then "backends/" next to the running
 * executable (build tree).
 */
#ifndef HWSAMPLE_REGISTRY_H
#define HWSAMPLE_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <hwsample/abi.h>

#include <hwsample/common.h>
#include <hwsample/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_registry;

struct hws_backend {
	const struct hws_backend_ops *ops;
	void *priv;	 /* ops->priv_size bytes, owned by the registry */
	char path[4096]; /* plugin file, or "(static)" */
	void *dl;	 /* dlopen handle, NULL for static */
};

/* The host table handed to every backend. */
HWS_API const struct hws_host *hws_host__get(void);

HWS_API struct hws_registry *hws_registry__new(void);
HWS_API void hws_registry__delete(struct hws_registry *reg); /* NULL-safe; calls fini, dlclose */

/* Check and add one ops table (static or from a plugin). 0 or negative with @err filled. */
HWS_API int hws_registry__add(struct hws_registry *reg, const struct hws_backend_ops *ops,
			      const char *path, void *dl, char *err, size_t errlen);
/* dlopen one plugin file. */
HWS_API int hws_registry__load_file(struct hws_registry *reg, const char *path, char *err,
				    size_t errlen);
/* Load every hws-*.so in @dir. Returns how many loaded, or negative with @err filled
 * (a bad plugin is an error: it is named with the reason). */
HWS_API int hws_registry__load_dir(struct hws_registry *reg, const char *dir, char *err,
				   size_t errlen);
/* Search path as in the file comment; @dir may be NULL or "" (the default places). */
HWS_API int hws_registry__load_default(struct hws_registry *reg, const char *dir, char *err,
				       size_t errlen);
/* Add every backend linked into this binary (built with HWS_STATIC_BACKENDS). */
HWS_API int hws_registry__add_static(struct hws_registry *reg, char *err, size_t errlen);

HWS_API int hws_registry__count(const struct hws_registry *reg);
HWS_API struct hws_backend *hws_registry__at(const struct hws_registry *reg, int i);
/* By backend name ("amd_ibs") or a PMU it serves ("ibs_op", "arm_spe_0"). NULL if none. */
HWS_API struct hws_backend *hws_registry__find(const struct hws_registry *reg, const char *name);
/* Backend that decodes this event: the first whose match() claims it, else the first with
 * HWS_CAP_SOFTWARE (it decodes any event). NULL if none. */
HWS_API struct hws_backend *hws_registry__match(const struct hws_registry *reg,
						const struct hws_perf_event_attr *attr,
						const char *pmu_name);
/* True if @name is served by @b (backend name or one of its PMUs, prefix rule). */
HWS_API bool hws_backend__serves(const struct hws_backend *b, const char *name);

#ifdef __cplusplus
}
#endif
#endif
