// SPDX-License-Identifier: MIT
/*
 * Backend registry and plugin loader.
 *
 * Invariants: every backend in a registry passed check_ops() (ABI version within
 * HWS_BACKEND_ABI_MIN..HWS_BACKEND_ABI_VERSION, size covers the version-1 layout, required
 * callbacks present, sane limits) and its init() returned 0; priv is owned by the registry
 * and freed after fini(). Every backend gets the one host table below, whose members are
 * all non-NULL; what it reports about the machine comes from the library's settings
 * (core/kernel/hostinfo.c), never from the environment.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/host.h>
#include <hwsample/registry.h>
#include <hwsample/tracing.h>

#include "kernel/hostinfo.h"
#include "util/internal.h"

#define MAX_BACKENDS  32
#define MAX_PRIV_SIZE (64u << 20)

struct hws_registry {
	int nr;
	struct hws_backend *b[MAX_BACKENDS];
};

static uint64_t host_flags(void)
{
	return hws__host_no_simd() ? HWS_HOST_NO_SIMD : 0;
}

static const struct hws_host host = {
    .abi_version = HWS_BACKEND_ABI_VERSION,
    .size = sizeof(struct hws_host),
    .version = HWS_VERSION,
    .log = hws_log,
    .sysfs_root = hws_sysfs_root,
    .pmu_load = hws_pmu__load,
    .pmu_set = hws_pmu__set,
    .pmu_format = hws_pmu__format,
    .pmu_cap = hws_pmu__cap,
    .pmu_list = hws_pmu__list,
    .data_src_normalize = hws_data_src__normalize,
    .strbuf_addf = hws_strbuf__addf,
    .strbuf_add_json_str = hws_strbuf__add_json_str,
    .strbuf_add = hws_strbuf__add,
    .tracefs_dir = hws_tracefs__dir,
    .cpuinfo = hws_cpuinfo__get,
    .cpu_flag = hws_cpuinfo__has_flag,
    .flags = host_flags,
};

const struct hws_host *hws_host__get(void)
{
	return &host;
}

struct hws_registry *hws_registry__new(void)
{
	return calloc(1, sizeof(struct hws_registry));
}

void hws_registry__delete(struct hws_registry *reg)
{
	if (!reg)
		return;
	for (int i = reg->nr - 1; i >= 0; i--) {
		struct hws_backend *b = reg->b[i];
		if (b->ops->fini)
			b->ops->fini(b->priv);
		free(b->priv);
		if (b->dl)
			dlclose(b->dl);
		free(b);
	}
	free(reg);
}

static int check_ops(const struct hws_backend_ops *ops, const char *path, char *err, size_t len)
{
	const char *missing = NULL;

	if (ops->abi_version < HWS_BACKEND_ABI_MIN || ops->abi_version > HWS_BACKEND_ABI_VERSION) {
		snprintf(err, len,
			 "%s: backend plugin ABI version %u, this hwsample supports %u..%u: "
			 "rebuild the plugin against this hwsample or use a matching hwsample",
			 path, ops->abi_version, HWS_BACKEND_ABI_MIN, HWS_BACKEND_ABI_VERSION);
		return HWS_E_ABI_MISMATCH;
	}
	if (ops->size < HWS_OPS_SIZE_V1) {
		snprintf(err, len,
			 "%s: backend ops table is %u bytes, version 1 needs at least %zu: "
			 "the plugin was built against a broken header",
			 path, ops->size, (size_t)HWS_OPS_SIZE_V1);
		return HWS_E_ABI_MISMATCH;
	}
	if (!ops->name || !*ops->name)
		missing = "name";
	else if (!ops->init)
		missing = "init";
	else if (!ops->detect)
		missing = "detect";
	else if (!ops->encode)
		missing = "encode";
	else if (!ops->match)
		missing = "match";
	else if ((ops->caps & HWS_CAP_AUX) && !ops->aux_decode)
		missing = "aux_decode (required with HWS_CAP_AUX)";
	if (missing) {
		snprintf(err, len, "%s: backend plugin lacks required callback '%s'", path,
			 missing);
		return HWS_E_BAD_PLUGIN;
	}
	if (ops->priv_size > MAX_PRIV_SIZE || ops->aux_stream_size > MAX_PRIV_SIZE) {
		snprintf(err, len, "%s: backend '%s' asks for %zu bytes of state (limit %u)", path,
			 ops->name,
			 ops->priv_size > ops->aux_stream_size ? ops->priv_size
							       : ops->aux_stream_size,
			 MAX_PRIV_SIZE);
		return HWS_E_BAD_PLUGIN;
	}
	return 0;
}

int hws_registry__add(struct hws_registry *reg, const struct hws_backend_ops *ops, const char *path,
		      void *dl, char *err, size_t errlen)
{
	struct hws_backend *b;
	int ret;

	if (!ops) {
		snprintf(err, errlen, "%s: backend entry returned no ops table", path);
		return HWS_E_BAD_PLUGIN;
	}
	ret = check_ops(ops, path, err, errlen);
	if (ret)
		return ret;
	for (int i = 0; i < reg->nr; i++) {
		if (!strcmp(reg->b[i]->ops->name, ops->name)) {
			pr_debug("loader: %s: backend '%s' already loaded from %s, skipped\n", path,
				 ops->name, reg->b[i]->path);
			return 0;
		}
	}
	if (reg->nr == MAX_BACKENDS) {
		snprintf(err, errlen, "%s: too many backends (max %d)", path, MAX_BACKENDS);
		return HWS_E_TOO_BIG;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->ops = ops;
	b->dl = dl;
	snprintf(b->path, sizeof(b->path), "%s", path);
	b->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
	if (!b->priv) {
		free(b);
		return -ENOMEM;
	}
	ret = ops->init(b->priv, &host);
	if (ret == HWS_E_ABI_MISMATCH) {
		/* a member it tested with HWS_HOST_HAS is missing */
		snprintf(err, errlen,
			 "%s: backend '%s' needs host functions this hwsample (%s, host table "
			 "version %u, %u bytes) lacks: use a hwsample at least as new as the "
			 "headers the plugin was built with",
			 path, ops->name, HWS_VERSION, host.abi_version, host.size);
		free(b->priv);
		free(b);
		return ret;
	}
	if (ret) {
		char e[128];
		snprintf(err, errlen, "%s: backend '%s' failed to initialise: %s", path, ops->name,
			 hws_strerror(ret, e, sizeof(e)));
		free(b->priv);
		free(b);
		return ret;
	}
	reg->b[reg->nr++] = b;
	return 1;
}

int hws_registry__load_file(struct hws_registry *reg, const char *path, char *err, size_t errlen)
{
	hws_backend_entry_fn entry;
	void *dl;
	int ret;

	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		snprintf(err, errlen, "cannot load backend plugin %s: %s", path, dlerror());
		return HWS_E_BAD_PLUGIN;
	}
	*(void **)&entry = dlsym(dl, HWS_BACKEND_ENTRY_NAME);
	if (!entry) {
		snprintf(err, errlen, "%s: not a hwsample backend (no symbol %s)", path,
			 HWS_BACKEND_ENTRY_NAME);
		dlclose(dl);
		return HWS_E_BAD_PLUGIN;
	}
	ret = hws_registry__add(reg, entry(&host), path, dl, err, errlen);
	if (ret <= 0)
		dlclose(dl);
	return ret;
}

int hws_registry__load_dir(struct hws_registry *reg, const char *dir, char *err, size_t errlen)
{
	struct dirent **list;
	int n, loaded = 0, ret = 0;

	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0) {
		ret = -errno;
		snprintf(err, errlen, "backend directory %s: %s", dir, strerror(-ret));
		return ret;
	}
	for (int i = 0; i < n; i++) {
		const char *nm = list[i]->d_name;
		size_t l = strlen(nm);
		char path[PATH_MAX];

		if (!ret && !strncmp(nm, "hws-", 4) && l > 3 && !strcmp(nm + l - 3, ".so")) {
			snprintf(path, sizeof(path), "%s/%s", dir, nm);
			int r = hws_registry__load_file(reg, path, err, errlen);
			if (r < 0)
				ret = r;
			else
				loaded += r;
		}
		free(list[i]);
	}
	free(list);
	return ret < 0 ? ret : loaded;
}

static int dir_exists(const char *d)
{
	return d && *d && access(d, R_OK | X_OK) == 0;
}

int hws_registry__load_default(struct hws_registry *reg, const char *dir, char *err, size_t errlen)
{
	char exe_dir[PATH_MAX], path[PATH_MAX], *slash;
	ssize_t n;

	if (dir && *dir)
		return dir_exists(dir)
			   ? hws_registry__load_dir(reg, dir, err, errlen)
			   : (snprintf(err, errlen, "backend directory %s does not exist", dir),
			      -ENOENT);
	n = readlink("/proc/self/exe", exe_dir, sizeof(exe_dir));
	if (n > 0 && (size_t)n < sizeof(exe_dir)) {
		exe_dir[n] = 0;
		slash = strrchr(exe_dir, '/');
		if (slash)
			slash[1] = 0;
	} else {
		exe_dir[0] = 0;
	}
	/* the install this program belongs to, wherever it was moved: the plugins of its
	 * own version before any other */
	if (*exe_dir &&
	    snprintf(path, sizeof(path), "%s%s", exe_dir, HWS_BACKEND_DIR_FROM_BIN) <
		(int)sizeof(path) &&
	    dir_exists(path))
		return hws_registry__load_dir(reg, path, err, errlen);
	if (dir_exists(HWS_BACKEND_DIR_DEFAULT))
		return hws_registry__load_dir(reg, HWS_BACKEND_DIR_DEFAULT, err, errlen);
	/* a build tree: backends/ next to the program */
	if (*exe_dir && snprintf(path, sizeof(path), "%sbackends", exe_dir) < (int)sizeof(path) &&
	    dir_exists(path))
		return hws_registry__load_dir(reg, path, err, errlen);
	snprintf(err, errlen,
		 "no backend plugins found: looked in %s, in %s and in backends/ next to the "
		 "program; install hwsample's backends, or name the directory holding hws-*.so "
		 "(hws_registry__load_default() @dir)",
		 HWS_BACKEND_DIR_DEFAULT, HWS_BACKEND_DIR_FROM_BIN);
	return -ENOENT;
}

/* Provided by the generated table when static backends are linked in (weak otherwise). */
extern const hws_backend_entry_fn hws_static_backend_table[] __attribute__((weak));

int hws_registry__add_static(struct hws_registry *reg, char *err, size_t errlen)
{
	int loaded = 0;

	if (!hws_static_backend_table)
		return 0;
	for (int i = 0; hws_static_backend_table[i]; i++) {
		int r = hws_registry__add(reg, hws_static_backend_table[i](&host), "(static)", NULL,
					  err, errlen);
		if (r < 0)
			return r;
		loaded += r;
	}
	return loaded;
}

int hws_registry__count(const struct hws_registry *reg)
{
	return reg ? reg->nr : 0;
}

struct hws_backend *hws_registry__at(const struct hws_registry *reg, int i)
{
	return reg && i >= 0 && i < reg->nr ? reg->b[i] : NULL;
}

bool hws_backend__serves(const struct hws_backend *b, const char *name)
{
	if (!strcmp(b->ops->name, name))
		return true;
	for (const char *const *p = b->ops->pmus; p && *p; p++) {
		size_t l = strlen(*p);
		if (l && (*p)[l - 1] == '_' ? !strncmp(*p, name, l) || !strncmp(*p, name, l - 1)
					    : !strcmp(*p, name))
			return true;
	}
	return false;
}

struct hws_backend *hws_registry__find(const struct hws_registry *reg, const char *name)
{
	for (int i = 0; reg && i < reg->nr; i++)
		if (!strcmp(reg->b[i]->ops->name, name))
			return reg->b[i];
	for (int i = 0; reg && i < reg->nr; i++)
		if (hws_backend__serves(reg->b[i], name))
			return reg->b[i];
	return NULL;
}

struct hws_backend *hws_registry__match(const struct hws_registry *reg,
					const struct hws_perf_event_attr *attr,
					const char *pmu_name)
{
	struct hws_backend *fallback = NULL;

	for (int i = 0; reg && i < reg->nr; i++) {
		struct hws_backend *b = reg->b[i];
		if (b->ops->caps & HWS_CAP_SOFTWARE) {
			if (!fallback)
				fallback = b;
			continue;
		}
		if (b->ops->match(b->priv, attr, pmu_name))
			return b;
	}
	return fallback;
}
