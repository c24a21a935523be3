// SPDX-License-Identifier: MIT
/*
 * Synthesized side-band (see include/hwsample/synth.h). Records are built in a stack
 * buffer: a filename is cut at PATH_MAX, so a record never exceeds 64 KiB. The sample_id
 * trailer is written in the kernel's order (core/perfdata/sample_fields.h); synthesized
 * records carry time 0 and cpu 0, as perf's do.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <hwsample/synth.h>

#include "util/internal.h"
#include "perfdata/sample_fields.h"

#define REC_MAX (PATH_MAX + 256)

struct rec {
	union {
		struct perf_event_header h;
		uint64_t align;
	};
	unsigned char body[REC_MAX];
};

static size_t put_trailer(const struct hws_perf_event_attr *a, uint64_t id, pid_t pid, pid_t tid,
			  unsigned char *p)
{
	struct hws_sample_id sid = {
	    .pid = (uint32_t)pid, .tid = (uint32_t)tid, .id = id, .stream_id = id};

	return a->sample_id_all ? pd_put_id_trailer(a->sample_type, &sid, p) : 0;
}

static size_t put_str(unsigned char *p, const char *s)
{
	size_t l = strnlen(s, PATH_MAX - 1) + 1, padded = (l + 7) & ~(size_t)7;

	memcpy(p, s, l - 1);
	memset(p + l - 1, 0, padded - l + 1);
	return padded;
}

static int emit(struct rec *r, size_t body, uint32_t type, uint16_t misc, hws_synth_fn fn,
		void *ctx)
{
	r->h.type = type;
	r->h.misc = misc;
	r->h.size = (uint16_t)(sizeof(r->h) + body);
	return fn(ctx, r, r->h.size);
}

static int synth_comm(const struct hws_perf_event_attr *a, uint64_t id, pid_t pid, pid_t tid,
		      const char *comm, hws_synth_fn fn, void *ctx)
{
	struct rec r;
	uint32_t v[2] = {(uint32_t)pid, (uint32_t)tid};
	size_t n = 0;

	memcpy(r.body, v, 8);
	n = 8 + put_str(r.body + 8, comm);
	n += put_trailer(a, id, pid, tid, r.body + n);
	return emit(&r, n, PERF_RECORD_COMM, 0, fn, ctx);
}

static int synth_fork(const struct hws_perf_event_attr *a, uint64_t id, pid_t pid, pid_t tid,
		      hws_synth_fn fn, void *ctx)
{
	struct rec r;
	uint32_t v[4] = {(uint32_t)pid, (uint32_t)pid, (uint32_t)tid, (uint32_t)pid};
	uint64_t t = 0;
	size_t n;

	memcpy(r.body, v, 16);
	memcpy(r.body + 16, &t, 8);
	n = 24 + put_trailer(a, id, pid, tid, r.body + 24);
	return emit(&r, n, PERF_RECORD_FORK, 0, fn, ctx);
}

static int synth_maps(const struct hws_perf_event_attr *a, uint64_t id, pid_t pid, bool data,
		      hws_synth_fn fn, void *ctx)
{
	char path[64], line[PATH_MAX + 256];
	FILE *f;
	int n = 0, ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned int maj, min;
		char perms[8], name[PATH_MAX];
		int pos = 0;
		struct rec r;

		name[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
			   &maj, &min, &ino, &pos) < 7)
			continue;
		if (pos > 0) {
			snprintf(name, sizeof(name), "%s", line + pos);
			name[strcspn(name, "\n")] = 0;
		}
		bool exec = perms[2] == 'x';
		if (!exec && !data)
			continue;
		if (!name[0])
			snprintf(name, sizeof(name), "//anon");
		uint32_t prot = (perms[0] == 'r' ? PROT_READ : 0) |
				(perms[1] == 'w' ? PROT_WRITE : 0) | (exec ? PROT_EXEC : 0);
		uint32_t flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		uint32_t pt[2] = {(uint32_t)pid, (uint32_t)pid};
		uint64_t q[3] = {start, end - start, pgoff};
		uint32_t mm[2] = {maj, min};
		uint64_t inos[2] = {ino, 0};
		uint32_t pf[2] = {prot, flags};
		size_t k = 0;

		memcpy(r.body + k, pt, 8), k += 8;
		memcpy(r.body + k, q, 24), k += 24;
		memcpy(r.body + k, mm, 8), k += 8;
		memcpy(r.body + k, inos, 16), k += 16;
		memcpy(r.body + k, pf, 8), k += 8;
		k += put_str(r.body + k, name);
		k += put_trailer(a, id, pid, pid, r.body + k);
		ret =
		    emit(&r, k, PERF_RECORD_MMAP2,
			 PERF_RECORD_MISC_USER | (exec ? 0 : PERF_RECORD_MISC_MMAP_DATA), fn, ctx);
		if (ret < 0)
			break;
		n++;
	}
	fclose(f);
	return ret < 0 ? ret : n;
}

static int synth_process(const struct hws_perf_event_attr *a, uint64_t id, pid_t pid, bool data,
			 hws_synth_fn fn, void *ctx)
{
	char path[64], comm[64];
	struct dirent *de;
	DIR *d;
	int n = 0, ret;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (hws_read_file(path, comm, sizeof(comm)) < 0)
		return 0; /* gone */
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char tpath[128], tcomm[64];
		pid_t tid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = atoi(de->d_name);
		snprintf(tpath, sizeof(tpath), "/proc/%d/task/%d/comm", pid, tid);
		if (hws_read_file(tpath, tcomm, sizeof(tcomm)) < 0)
			snprintf(tcomm, sizeof(tcomm), "%s", comm);
		if (tid != pid) {
			ret = synth_fork(a, id, pid, tid, fn, ctx);
			if (ret < 0)
				goto out;
			n++;
		}
		ret = synth_comm(a, id, pid, tid, tcomm, fn, ctx);
		if (ret < 0)
			goto out;
		n++;
	}
	ret = synth_maps(a, id, pid, data, fn, ctx);
	if (ret > 0)
		n += ret;
out:
	closedir(d);
	return ret < 0 ? ret : n;
}

int hws_synth__threads(const struct hws_perf_event_attr *attr, uint64_t id, pid_t pid,
		       bool data_maps, hws_synth_fn fn, void *ctx)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (pid >= 0)
		return synth_process(attr, id, pid, data_maps, fn, ctx);
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int r;
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		r = synth_process(attr, id, atoi(de->d_name), data_maps, fn, ctx);
		if (r < 0) {
			closedir(d);
			return r;
		}
		n += r;
	}
	closedir(d);
	return n;
}

int hws_synth__kernel_mmap(const struct hws_perf_event_attr *attr, uint64_t id, hws_synth_fn fn,
			   void *ctx)
{
	unsigned long long text = 0;
	char line[256];
	FILE *f = fopen("/proc/kallsyms", "re");
	struct rec r;
	size_t k = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[200];
		if (sscanf(line, "%llx %c %199s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_text")) {
			text = addr;
			break;
		}
	}
	if (f)
		fclose(f);
	uint32_t pt[2] = {UINT32_MAX, 0};
	uint64_t q[3] = {text, text ? ~0ULL - text : ~0ULL, text};

	memcpy(r.body + k, pt, 8), k += 8;
	memcpy(r.body + k, q, 24), k += 24;
	k += put_str(r.body + k, "[kernel.kallsyms]_text");
	k += put_trailer(attr, id, -1, 0, r.body + k);
	return emit(&r, k, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, fn, ctx);
}
