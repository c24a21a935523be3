// SPDX-License-Identifier: MIT
/*
 * HEADER_TRACING_DATA builder (include/hwsample/tracing.h), in perf's layout (read from
 * Linux tools/perf/util/trace-event-info.c for the facts; written here from them):
 *
 *   "\027\010\104tracing"  "0.6\0"  u8 big-endian  u8 sizeof(long)  u32 page size
 *   "header_page\0"  u64 size  events/header_page
 *   "header_event\0" u64 size  events/header_event
 *   u32 n  { u64 size  format } x n              ftrace formats (none: we record no ftrace:*)
 *   u32 nsys { "system\0"  u32 n { u64 size  format } x n } x nsys   formats of the events used
 *   u32 0                                          kallsyms (perf also stores it empty)
 *   u32 size  printk_formats
 *   u64 size  saved_cmdlines
 *
 * Numbers are in host order (the file's byte order). Invariant: the buffer grows through
 * one helper that fails cleanly on ENOMEM; nothing is written for a system with no event.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwsample/tracing.h>

#include "util/internal.h"

#define TRACEFS_FILE_MAX (64u << 20)

struct buf {
	char *p;
	size_t len, alloc;
	int err;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > b->alloc) {
		size_t na = b->alloc ? b->alloc : 65536;
		while (na < b->len + n)
			na *= 2;
		char *np = realloc(b->p, na);
		if (!np) {
			b->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->alloc = na;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

/* Whole tracefs file (sizes from stat are 0 there): returns malloc'ed bytes or NULL. */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0, alloc = 8192;
	char *p;

	*len = 0;
	if (fd < 0)
		return NULL;
	p = malloc(alloc);
	while (p) {
		ssize_t r;
		if (n == alloc) {
			char *np = alloc < TRACEFS_FILE_MAX ? realloc(p, alloc * 2) : NULL;
			if (!np) {
				free(p);
				p = NULL;
				break;
			}
			p = np;
			alloc *= 2;
		}
		r = read(fd, p + n, alloc - n);
		if (r < 0) {
			free(p);
			p = NULL;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return p;
}

/* Append "u<hdr> size, contents" of @path; a missing file is recorded as size 0, one this
 * user may not read fails the build with -EACCES (its formats would be silently lost). */
static void put_file(struct buf *b, const char *path, int hdr)
{
	size_t n;
	char *d = slurp(path, &n);
	uint64_t sz64 = n;
	uint32_t sz32 = (uint32_t)n;

	if (!d && (errno == EACCES || errno == EPERM) && !b->err)
		b->err = -EACCES;

	if (hdr == 8)
		put(b, &sz64, 8);
	else
		put(b, &sz32, 4);
	if (d)
		put(b, d, n);
	free(d);
}

const char *hws_tracefs__dir(void)
{
	static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char path[128];
	struct stat st;
	bool denied = false;

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		if (!stat(path, &st))
			return dirs[i];
		/* tracefs is mounted 0700 by default: there, but not for this user */
		denied |= errno == EACCES || errno == EPERM;
	}
	if (denied) {
		errno = EACCES;
		return NULL;
	}
	if (!mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		pr_warn("tracefs was not mounted: mounted it at /sys/kernel/tracing\n");
		return dirs[0];
	}
	return NULL; /* errno from mount(): EPERM without root, ENODEV without tracefs */
}

struct tp {
	char sys[128];
	char name[128];
};

/* Find sys/name of tracepoint id @id by scanning events/<sys>/<name>/id. */
static int tp_by_id(const char *dir, uint64_t id, struct tp *out)
{
	char path[PATH_MAX];
	DIR *d, *ds;
	struct dirent *s, *e;
	int found = 0;

	snprintf(path, sizeof(path), "%s/events", dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!found && (s = readdir(d))) {
		if (s->d_name[0] == '.' || strlen(s->d_name) >= sizeof(out->sys))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, s->d_name);
		ds = opendir(path);
		while (ds && !found && (e = readdir(ds))) {
			char idp[PATH_MAX + 300], buf[32];
			if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(out->name))
				continue;
			snprintf(idp, sizeof(idp), "%s/%s/id", path, e->d_name);
			if (hws_read_file(idp, buf, sizeof(buf)) > 0 &&
			    strtoull(buf, NULL, 10) == id) {
				/* both lengths checked against the fields above */
				memcpy(out->sys, s->d_name, strlen(s->d_name) + 1);
				memcpy(out->name, e->d_name, strlen(e->d_name) + 1);
				found = 1;
			}
		}
		if (ds)
			closedir(ds);
	}
	closedir(d);
	return found ? 0 : -ENOENT;
}

int hws_tracing_data__build(const struct hws_perf_event_attr *const *attrs, int nr, void **out,
			    size_t *len)
{
	static const char magic[10] = {23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
	struct tp tps[64];
	int ntp = 0;
	struct buf b = {0};
	const char *dir;
	char path[PATH_MAX];
	uint8_t u8;
	uint32_t u32;

	*out = NULL;
	*len = 0;
	for (int i = 0; i < nr; i++)
		if (attrs[i] && attrs[i]->type == PERF_TYPE_TRACEPOINT)
			ntp++;
	if (!ntp)
		return 0;
	dir = hws_tracefs__dir();
	if (!dir)
		return errno == EACCES ? -EACCES : errno == EPERM ? -EPERM : -ENOENT;
	snprintf(path, sizeof(path), "%s/events", dir);
	{
		DIR *ev = opendir(path);
		if (!ev)
			return errno == EACCES || errno == EPERM ? -EACCES : -errno;
		closedir(ev);
	}
	ntp = 0;
	for (int i = 0; i < nr && ntp < 64; i++) {
		int dup = 0;
		if (!attrs[i] || attrs[i]->type != PERF_TYPE_TRACEPOINT)
			continue;
		if (tp_by_id(dir, attrs[i]->config, &tps[ntp]))
			continue;
		for (int k = 0; k < ntp; k++)
			dup |= !strcmp(tps[k].sys, tps[ntp].sys) &&
			       !strcmp(tps[k].name, tps[ntp].name);
		if (!dup)
			ntp++;
	}

	put(&b, magic, sizeof(magic));
	put(&b, "0.6", 4);
	u8 = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	put(&b, &u8, 1);
	u8 = sizeof(long);
	put(&b, &u8, 1);
	u32 = (uint32_t)sysconf(_SC_PAGESIZE);
	put(&b, &u32, 4);

	put(&b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	put_file(&b, path, 8);
	put(&b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", dir);
	put_file(&b, path, 8);

	u32 = 0; /* ftrace:* formats: none recorded */
	put(&b, &u32, 4);

	/* systems, in first-use order, each with its events */
	uint32_t nsys = 0;
	for (int i = 0; i < ntp; i++) {
		int seen = 0;
		for (int k = 0; k < i; k++)
			seen |= !strcmp(tps[k].sys, tps[i].sys);
		nsys += !seen;
	}
	put(&b, &nsys, 4);
	for (int i = 0; i < ntp; i++) {
		int seen = 0;
		uint32_t n = 0;
		for (int k = 0; k < i; k++)
			seen |= !strcmp(tps[k].sys, tps[i].sys);
		if (seen)
			continue;
		put(&b, tps[i].sys, strlen(tps[i].sys) + 1);
		for (int k = i; k < ntp; k++)
			n += !strcmp(tps[k].sys, tps[i].sys);
		put(&b, &n, 4);
		for (int k = i; k < ntp; k++) {
			if (strcmp(tps[k].sys, tps[i].sys))
				continue;
			snprintf(path, sizeof(path), "%s/events/%.127s/%.127s/format", dir,
				 tps[k].sys, tps[k].name);
			put_file(&b, path, 8);
		}
	}

	u32 = 0; /* kallsyms: empty, as perf stores it */
	put(&b, &u32, 4);
	snprintf(path, sizeof(path), "%s/printk_formats", dir);
	put_file(&b, path, 4);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	put_file(&b, path, 8);

	if (b.err) {
		free(b.p);
		return b.err;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}
