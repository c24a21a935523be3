// SPDX-License-Identifier: MIT
/*
 * The machine description (include/hwsample/host.h): the sysfs root, the cpuinfo file and
 * the backend options, set by the program with hws_host__configure(), and the one cpuinfo
 * reader of hwsample (record/host_features.c and, through the host table, the backends
 * use it).
 *
 * Invariants:
 *  - nothing here reads the environment; the defaults are the real machine (/sys,
 *    /proc/cpuinfo);
 *  - a configured sysfs root without a configured cpuinfo means that root's cpuinfo file:
 *    a fake machine whose tree has none has no cpuinfo facts (-ENOENT), never the build
 *    host's;
 *  - the file is read each time (settings may change between calls; per-CPU keys are
 *    found in the first block, so a lookup reads little of a large /proc/cpuinfo).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/host.h>

#include "kernel/hostinfo.h"
#include "util/internal.h"

static struct {
	char sysfs_root[PATH_MAX];
	char cpuinfo[PATH_MAX];
	bool no_simd;
} host = {"/sys", "/proc/cpuinfo", false};

int hws_host__configure(const struct hws_host_opts *opts)
{
	struct hws_host_opts o;
	char root[PATH_MAX], cpuinfo[PATH_MAX];
	int err = HWS_OPTS_GET(o, opts, hws_host_opts);
	bool fake = o.sysfs_root && *o.sysfs_root;

	if (err)
		return err;
	if (snprintf(root, sizeof(root), "%s", fake ? o.sysfs_root : "/sys") >= (int)sizeof(root))
		return -ENAMETOOLONG;
	if (o.proc_cpuinfo && *o.proc_cpuinfo)
		err = snprintf(cpuinfo, sizeof(cpuinfo), "%s", o.proc_cpuinfo);
	else if (fake)
		err = snprintf(cpuinfo, sizeof(cpuinfo), "%s/cpuinfo", o.sysfs_root);
	else
		err = snprintf(cpuinfo, sizeof(cpuinfo), "/proc/cpuinfo");
	if (err >= (int)sizeof(cpuinfo))
		return -ENAMETOOLONG;
	memcpy(host.sysfs_root, root, sizeof(root));
	memcpy(host.cpuinfo, cpuinfo, sizeof(cpuinfo));
	host.no_simd = o.no_simd;
	return 0;
}

const char *hws_sysfs_root(void)
{
	return host.sysfs_root;
}

bool hws__host_no_simd(void)
{
	return host.no_simd;
}

/* The first line "@key<blanks>: value" of the cpuinfo file: *value points into *line (which
 * the caller frees). 0, -ENOENT or -errno. */
static int cpuinfo_line(const char *key, char **line, char **value)
{
	size_t kl = strlen(key), cap = 0;
	FILE *f = fopen(host.cpuinfo, "r");
	int err = -ENOENT;

	*line = NULL;
	if (!f)
		return -errno;
	while (getline(line, &cap, f) > 0) {
		char *p = *line + kl;

		if (strncmp(*line, key, kl))
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, "\n")] = 0;
		*value = p;
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

int hws_cpuinfo__get(const char *key, char *buf, size_t len)
{
	char *line, *v;
	int err = cpuinfo_line(key, &line, &v);

	if (!err) {
		size_t n = strlen(v);

		if (len)
			snprintf(buf, len, "%s", v);
		err = n > INT_MAX ? INT_MAX : (int)n;
	}
	free(line);
	return err;
}

int hws_cpuinfo__has_flag(const char *flag)
{
	size_t n = strlen(flag);
	char *line, *v;
	int found = 0, err = cpuinfo_line("flags", &line, &v);

	if (err) {
		free(line);
		err = cpuinfo_line("Features", &line, &v);
	}
	if (err) {
		free(line);
		return 0;
	}
	for (const char *p = v; n && (p = strstr(p, flag)); p += n)
		if ((p == v || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == ' ' || p[n] == '\t' || p[n] == '\0')) {
			found = 1;
			break;
		}
	free(line);
	return found;
}
