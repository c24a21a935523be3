// SPDX-License-Identifier: MIT
/*
 * hwsample record --objects: the allocation records of the launched program
 * (include/hwsample/objects.h). Before the workload starts: the directory FILE.objects/
 * and the environment that preloads hws-objects.so into it; when the run finishes: every
 * process's file copied into the perf.data's HWS_FEAT_HWS_OBJECTS feature, then the
 * directory removed.
 *
 * Invariants:
 *  - The directory is removed only once its records are in a complete output file; a run
 *    killed before that leaves it, and dump/report read it next to the file.
 *  - The environment changes are undone once the workload is forked: hwsample itself and
 *    what it runs later see the environment it was given.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hwsample/objects.h>

#include "record.h"

#ifndef HWS_OBJECTS_LIB_FROM_BIN
#define HWS_OBJECTS_LIB_FROM_BIN "../lib/hwsample/hws-objects.so"
#endif

/* the feature's payload is read back whole: keep it well under the reader's limit */
#define MAX_PAYLOAD (60ULL << 20)

int record__objects_arg(struct record *r, const char *arg)
{
	const char *p = arg;

	r->objects = 1;
	if (!arg)
		return 0;
	if (!strcmp(arg, "auto")) { /* c2c record: on when a program is launched */
		r->objects = 2;
		return 0;
	}
	while (*p) {
		size_t l = strcspn(p, ",");
		char *end;
		unsigned long long v;

		if (!strncmp(p, "min=", 4) || !strncmp(p, "depth=", 6)) {
			bool min = p[0] == 'm';

			errno = 0;
			v = strtoull(p + (min ? 4 : 6), &end, 0);
			if (errno || end != p + l || end == p + (min ? 4 : 6) ||
			    (min ? v < 1 : (v < 1 || v > HWS_OBJ_FRAMES)))
				goto bad;
			if (min)
				r->objects_min = v;
			else
				r->objects_depth = (unsigned int)v;
		} else {
			goto bad;
		}
		p += l;
		if (*p)
			p++;
	}
	return 0;
bad:
	fprintf(stderr,
		"hwsample: --objects=%s: expected min=BYTES (1 or more) and/or depth=FRAMES "
		"(1-%d), e.g. --objects=min=64,depth=3\n",
		hws_cli__text(arg), HWS_OBJ_FRAMES);
	return -1;
}

int record__objects_check(struct record *r, bool profile_workload)
{
	if (r->objects <= 0)
		return 0;
	if (r->objects == 2) { /* auto: quietly off where it cannot work */
		r->objects = profile_workload && r->argc && !r->pipe_out;
		return 0;
	}
	if (!profile_workload || !r->argc) {
		fprintf(
		    stderr,
		    "hwsample: --objects: allocations are recorded only in a program hwsample "
		    "starts (-- PROG), by a library preloaded into it; a running process (-p, "
		    "-t) or the whole system (-a, -C) cannot load it, and recording allocations "
		    "with uprobes on libc is not implemented: run the program under hwsample, "
		    "or leave --objects out (static variables, stacks and mapped files are "
		    "still named from the symbols)\n");
		return HWS_EXIT_UNSUPPORTED;
	}
	if (r->pipe_out) {
		fprintf(stderr, "hwsample: --objects: not with -o - (pipe mode carries no private "
				"header features): record to a file\n");
		return HWS_EXIT_UNSUPPORTED;
	}
	return 0;
}

static bool usable(const char *path)
{
	return !access(path, R_OK);
}

/* hws-objects.so: $HWS_OBJECTS_LIB, next to the binary (build tree), or where it is
 * installed relative to the binary */
static int find_lib(char *out, size_t len)
{
	const char *env = getenv("HWS_OBJECTS_LIB");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return usable(out) ? 0 : -ENOENT;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	snprintf(out, len, "%s/hws-objects.so", exe);
	if (usable(out))
		return 0;
	snprintf(out, len, "%s/%s", exe, HWS_OBJECTS_LIB_FROM_BIN);
	return usable(out) ? 0 : -ENOENT;
}

/* remove the .objs files of DIR, then DIR */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX];

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 5 && !strcmp(de->d_name + l - 5, ".objs")) {
			if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
			    (int)sizeof(path))
				unlink(path);
		}
	}
	closedir(d);
	rmdir(dir);
}

int record__objects_start(struct record *r, char *err, size_t errlen)
{
	char lib[PATH_MAX], val[PATH_MAX + 4096], num[32];
	const char *old = getenv("LD_PRELOAD");

	if (r->objects <= 0)
		return 0;
	if (find_lib(lib, sizeof(lib))) {
		snprintf(
		    err, errlen,
		    "--objects: the allocation recorder hws-objects.so is not next to hwsample "
		    "nor installed with it: reinstall hwsample, or name it with "
		    "HWS_OBJECTS_LIB=PATH");
		return -ENOENT;
	}
	if (snprintf(r->objects_dir, sizeof(r->objects_dir), "%s.objects", r->output) >=
	    (int)sizeof(r->objects_dir)) {
		snprintf(err, errlen, "--objects: the output file's name is too long");
		r->objects_dir[0] = 0;
		return -ENAMETOOLONG;
	}
	remove_dir(r->objects_dir); /* a previous run's */
	if (mkdir(r->objects_dir, 0700) && errno != EEXIST) {
		int e = errno;

		snprintf(err, errlen, "--objects: cannot create %s: %s", r->objects_dir,
			 strerror(e));
		return -e;
	}
	r->objects_env_saved = old != NULL;
	if (old)
		snprintf(r->objects_old_preload, sizeof(r->objects_old_preload), "%s", old);
	if (snprintf(val, sizeof(val), "%s%s%s", lib, old && *old ? ":" : "", old ? old : "") >=
	    (int)sizeof(val)) {
		snprintf(err, errlen, "--objects: LD_PRELOAD is too long");
		return -ENAMETOOLONG;
	}
	setenv("LD_PRELOAD", val, 1);
	setenv("HWS_OBJECTS_DIR", r->objects_dir, 1);
	snprintf(num, sizeof(num), "%llu",
		 (unsigned long long)(r->objects_min ? r->objects_min : 1024));
	setenv("HWS_OBJECTS_MIN", num, 1);
	snprintf(num, sizeof(num), "%u", r->objects_depth ? r->objects_depth : HWS_OBJ_FRAMES);
	setenv("HWS_OBJECTS_DEPTH", num, 1);
	return 0;
}

void record__objects_forked(struct record *r)
{
	if (r->objects <= 0)
		return;
	if (r->objects_env_saved)
		setenv("LD_PRELOAD", r->objects_old_preload, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv("HWS_OBJECTS_DIR");
	unsetenv("HWS_OBJECTS_MIN");
	unsetenv("HWS_OBJECTS_DEPTH");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* append file @path's header and records to @buf */
static int add_file(const char *path, uint8_t **buf, size_t *len, size_t *alloc, uint64_t *nrec,
		    uint64_t *dropped, bool *nospace)
{
	struct hws_objfile fh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t used;
	size_t want;

	if (fd < 0)
		return 0;
	if (pread(fd, &fh, sizeof(fh), 0) != (ssize_t)sizeof(fh) ||
	    memcmp(fh.magic, HWS_OBJFILE_MAGIC, 8)) {
		close(fd);
		return 0; /* not (yet) a file of ours */
	}
	used = fh.used < fh.capacity ? fh.used : fh.capacity;
	used -= used % sizeof(struct hws_objrec);
	want = sizeof(fh) + (size_t)used;
	if (*len + want > MAX_PAYLOAD) {
		close(fd);
		return -E2BIG;
	}
	if (*len + want > *alloc) {
		size_t na = (*len + want) * 2;
		uint8_t *v = realloc(*buf, na);

		if (!v) {
			close(fd);
			return -ENOMEM;
		}
		*buf = v;
		*alloc = na;
	}
	if (pread(fd, *buf + *len, want, 0) != (ssize_t)want) {
		close(fd);
		return 0;
	}
	/* the records written (each thread fills chunks: unused slots are type 0), and the
	 * header as read with them (used may have moved on meanwhile) */
	{
		struct hws_objrec *rec = (struct hws_objrec *)(*buf + *len + sizeof(fh));
		size_t n = (size_t)(used / sizeof(*rec)), k = 0;

		for (size_t i = 0; i < n; i++) {
			if (rec[i].type == HWS_OBJREC_NONE)
				continue;
			if (rec[i].type == HWS_OBJREC_FREES || rec[i].type == HWS_OBJREC_ALLOCS)
				*nrec += rec[i].nframes;
			else if (rec[i].type != HWS_OBJREC_CLOCK &&
				 rec[i].type != HWS_OBJREC_STACK && rec[i].type != HWS_OBJREC_TLS &&
				 rec[i].type != HWS_OBJREC_SITE)
				(*nrec)++;
			if (k != i)
				memcpy(&rec[k], &rec[i], sizeof(*rec));
			k++;
		}
		used = k * sizeof(*rec);
	}
	memcpy(*buf + *len + offsetof(struct hws_objfile, used), &used, sizeof(used));
	*len += sizeof(fh) + (size_t)used;
	*dropped += fh.dropped;
	if (fh.flags & HWS_OBJFILE_F_NOSPACE)
		*nospace = true;
	close(fd);
	return 0;
}

int record__objects_finish(struct record *r)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL, path[PATH_MAX];
	size_t nn = 0, an = 0, len = 0, alloc = 0;
	uint8_t *buf = NULL;
	int err = 0;

	if (r->objects <= 0 || !r->objects_dir[0])
		return 0;
	d = opendir(r->objects_dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && !err) {
		size_t l = strlen(de->d_name);

		if (l < 6 || strcmp(de->d_name + l - 5, ".objs"))
			continue;
		if (nn == an) {
			char **v = realloc(names, (an = an ? an * 2 : 16) * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			names = v;
		}
		names[nn] = strdup(de->d_name);
		if (names[nn])
			nn++;
		else
			err = -ENOMEM;
	}
	closedir(d);
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nn && !err; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", r->objects_dir, names[i]) >=
		    (int)sizeof(path))
			continue;
		err = add_file(path, &buf, &len, &alloc, &r->objects_recs, &r->objects_dropped,
			       &r->objects_nospace);
	}
	r->objects_procs = nn;
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	if (!err && len)
		err = hws_perf_writer__set_feature(r->w, HWS_FEAT_HWS_OBJECTS, buf, len);
	free(buf);
	if (err) {
		fprintf(stderr,
			"hwsample: the allocation records %s in the file (%s): they stay in %s, "
			"which dump and report read next to %s\n",
			err == -E2BIG ? "are too big to keep" : "could not be kept",
			err == -E2BIG ? "over 60 MiB: a higher --objects=min=N records fewer"
				      : strerror(-err),
			hws_cli__text(r->objects_dir), hws_cli__text(r->output));
		r->objects_keep_dir = true;
	}
	return 0;
}

/* the headroom the recorder kept free (hws-objects.so's HWS_OBJECTS_KEEP_FREE: decimal
 * bytes, anything else the default, as its env_u64() reads it), as "N MiB" or "N bytes" */
static void keep_free_text(char *b, size_t len)
{
	const char *v = getenv("HWS_OBJECTS_KEEP_FREE");
	unsigned long long n = 0;

	if (v && *v && v[strspn(v, "0123456789")] == 0) {
		for (; *v; v++)
			n = n * 10 + (unsigned long long)(*v - '0');
		if (n % (1ULL << 20) || !n) {
			snprintf(b, len, "%llu bytes", n);
			return;
		}
	} else {
		n = HWS_OBJECTS_KEEP_FREE_DEFAULT;
	}
	snprintf(b, len, "%llu MiB", n >> 20);
}

void record__objects_done(struct record *r, bool file_ok)
{
	char keep[32], why[320] = "";

	if (r->objects <= 0 || !r->objects_dir[0])
		return;
	if (file_ok && !r->objects_keep_dir)
		remove_dir(r->objects_dir);
	if (r->quiet || !file_ok)
		return;
	keep_free_text(keep, sizeof(keep));
	if (r->objects_dropped && r->objects_nospace)
		snprintf(why, sizeof(why),
			 ", some dropped: no space left on the output's file system (the records "
			 "leave %s free there for the samples: free space there or record to "
			 "another one with -o; a larger --objects=min= records fewer)",
			 keep);
	else if (r->objects_dropped)
		snprintf(why, sizeof(why), ", some dropped: the 1 GiB per process was full");
	fprintf(stderr,
		"  objects: %llu allocation records from %zu process image%s (threshold %llu "
		"bytes)%s\n",
		(unsigned long long)r->objects_recs, r->objects_procs,
		r->objects_procs == 1 ? "" : "s",
		(unsigned long long)(r->objects_min ? r->objects_min : 1024), why);
}

void record__objects_abandon(struct record *r)
{
	if (r->objects > 0 && r->objects_dir[0])
		remove_dir(r->objects_dir);
}
