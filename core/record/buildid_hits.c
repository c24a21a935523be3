// SPDX-License-Identifier: MIT
/*
 * The build-ids of the files a recording's samples hit, as perf record writes them at its
 * end (HEADER_BUILD_ID, perf_session__write_buildid_table()): the records are watched as
 * they are written (COMM exec, MMAP, MMAP2, FORK and SAMPLE), each sample's ip marks the file
 * its process maps there (perf's build_id__mark_dso_hit(): the ip, not the call chain), and
 * at the end every file hit gets an entry with the build-id read from it (or carried by its
 * MMAP2), the vDSO the one of this process's image (the same for every process of the
 * kernel); optionally each is copied into perf's build-id cache.
 *
 * Invariants:
 *  - entries are laid out as perf writes them: u32 type 0, u16 misc (USER or KERNEL, with
 *    BUILD_ID_SIZE), u16 size, s32 pid -1 (the host), u8 build_id[20], u8 id size, 3 zero
 *    bytes, the name NUL-terminated and zero-padded to a multiple of 64; the kernel first;
 *  - a file without a build-id (or gone) gets no entry; memory stays bounded (MAX_MAPS
 *    mappings, MAX_NAMES files: beyond them records are no longer tracked).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/perfdata.h>
#include <hwsample/synth.h>
#include <hwsample/symbols.h>

#include "util/internal.h"

#define MAX_MAPS	   (1u << 20)
#define MAX_NAMES	   (1u << 16)
#define MAX_ATTRS	   64
#define NAME_MAX_LEN	   4096
#define MISC_COMM_EXEC	   (1U << 13)
#define MISC_MMAP_BUILD_ID (1U << 14)
#define MISC_BUILD_ID_SIZE (1U << 15)

struct hmap {
	uint32_t pid, name;
	uint64_t start, end;
};

struct hname {
	char *path;
	bool hit;
	uint8_t bid_len; /* from an MMAP2 with a build-id, else 0 */
	uint8_t bid[20];
};

struct hws_buildid_hits {
	struct hws_perf_event_attr attrs[MAX_ATTRS];
	uint64_t *ids[MAX_ATTRS];
	size_t nr_ids[MAX_ATTRS];
	int nr_attrs;
	struct hmap *maps; /* in the order they came; a later one covers an earlier one */
	size_t nr_maps, alloc_maps;
	struct hname *names;
	size_t nr_names, alloc_names;
	size_t last; /* index + 1 of the map of the last hit, or 0 */
	bool kernel_hit;
};

struct hws_buildid_hits *hws_buildid_hits__new(void)
{
	return calloc(1, sizeof(struct hws_buildid_hits));
}

void hws_buildid_hits__delete(struct hws_buildid_hits *h)
{
	if (!h)
		return;
	for (int i = 0; i < h->nr_attrs; i++)
		free(h->ids[i]);
	for (size_t i = 0; i < h->nr_names; i++)
		free(h->names[i].path);
	free(h->names);
	free(h->maps);
	free(h);
}

int hws_buildid_hits__add_attr(struct hws_buildid_hits *h, const struct hws_perf_event_attr *attr,
			       const uint64_t *ids, size_t nr)
{
	if (!h || !attr || (nr && !ids))
		return -EINVAL;
	if (h->nr_attrs >= MAX_ATTRS)
		return -ENOSPC;
	h->ids[h->nr_attrs] = nr ? malloc(nr * sizeof(*ids)) : NULL;
	if (nr && !h->ids[h->nr_attrs])
		return -ENOMEM;
	if (nr)
		memcpy(h->ids[h->nr_attrs], ids, nr * sizeof(*ids));
	h->nr_ids[h->nr_attrs] = nr;
	h->attrs[h->nr_attrs++] = *attr;
	return 0;
}

static const struct hws_perf_event_attr *attr_of(const struct hws_buildid_hits *h, const void *rec,
						 size_t size)
{
	int64_t id;

	if (h->nr_attrs == 1)
		return &h->attrs[0];
	if (!h->nr_attrs)
		return NULL;
	id = hws_record__id(&h->attrs[0], rec, size); /* perf: the id sits alike in all */
	for (int i = 0; id >= 0 && i < h->nr_attrs; i++)
		for (size_t k = 0; k < h->nr_ids[i]; k++)
			if (h->ids[i][k] == (uint64_t)id)
				return &h->attrs[i];
	return &h->attrs[0];
}

static int name_index(struct hws_buildid_hits *h, const char *path, uint32_t *idx)
{
	/* newest first: the files of one process come together */
	for (size_t i = h->nr_names; i-- > 0;)
		if (!strcmp(h->names[i].path, path)) {
			*idx = (uint32_t)i;
			return 0;
		}
	if (h->nr_names >= MAX_NAMES)
		return -ENOSPC;
	if (h->nr_names == h->alloc_names) {
		size_t n = h->alloc_names ? h->alloc_names * 2 : 64;
		struct hname *t = realloc(h->names, n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		h->names = t;
		h->alloc_names = n;
	}
	memset(&h->names[h->nr_names], 0, sizeof(h->names[0]));
	h->names[h->nr_names].path = strdup(path);
	if (!h->names[h->nr_names].path)
		return -ENOMEM;
	*idx = (uint32_t)h->nr_names++;
	return 0;
}

static int add_map(struct hws_buildid_hits *h, uint32_t pid, uint64_t start, uint64_t end,
		   uint32_t name)
{
	if (h->nr_maps >= MAX_MAPS)
		return -ENOSPC;
	if (h->nr_maps == h->alloc_maps) {
		size_t n = h->alloc_maps ? h->alloc_maps * 2 : 256;
		struct hmap *t = realloc(h->maps, n * sizeof(*t));

		if (!t)
			return -ENOMEM;
		h->maps = t;
		h->alloc_maps = n;
	}
	h->maps[h->nr_maps++] = (struct hmap){pid, name, start, end};
	return 0;
}

/* what a file's name must look like to get an entry: a path, or the vDSO */
static bool trackable(const char *path)
{
	return (path[0] == '/' && strncmp(path, "//anon", 6) && strncmp(path, "/dev/", 5) &&
		strncmp(path, "/memfd:", 7) && strncmp(path, "/SYSV", 5)) ||
	       !strcmp(path, "[vdso]");
}

static int on_mmap(struct hws_buildid_hits *h, const uint8_t *p, uint32_t type, uint16_t misc,
		   size_t size)
{
	size_t fo = type == PERF_RECORD_MMAP ? 40 : 72, n;
	char path[NAME_MAX_LEN];
	uint64_t start, len;
	uint32_t pid, idx;
	int err;

	if (size <= fo || (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return 0;
	memcpy(&pid, p + 8, 4);
	memcpy(&start, p + 16, 8);
	memcpy(&len, p + 24, 8);
	n = strnlen((const char *)p + fo, size - fo);
	if (n >= sizeof(path) || !len)
		return 0;
	memcpy(path, p + fo, n);
	path[n] = 0;
	if (!trackable(path))
		return 0;
	err = name_index(h, path, &idx);
	if (!err && type == PERF_RECORD_MMAP2 && (misc & MISC_MMAP_BUILD_ID) && p[40] &&
	    p[40] <= 20) {
		h->names[idx].bid_len = p[40];
		memcpy(h->names[idx].bid, p + 44, p[40]);
	}
	return err ? err : add_map(h, pid, start, start + len, idx);
}

/* @child starts with the maps of @parent (a new process; threads share theirs) */
static int on_fork(struct hws_buildid_hits *h, uint32_t child, uint32_t parent)
{
	size_t n = h->nr_maps;
	int err = 0;

	for (size_t i = 0; !err && i < n; i++)
		if (h->maps[i].pid == parent)
			err = add_map(h, child, h->maps[i].start, h->maps[i].end, h->maps[i].name);
	return err;
}

/* exec: the process's maps before it are gone */
static void on_exec(struct hws_buildid_hits *h, uint32_t pid)
{
	size_t k = 0;

	for (size_t i = 0; i < h->nr_maps; i++)
		if (h->maps[i].pid != pid)
			h->maps[k++] = h->maps[i];
	h->nr_maps = k;
	h->last = 0;
}

static void on_sample(struct hws_buildid_hits *h, const void *rec, size_t size)
{
	const struct hws_perf_event_attr *attr = attr_of(h, rec, size);
	struct hws_record_sample s;
	uint16_t mode;

	if (!attr || hws_sample__parse(attr, rec, size, &s) || !(s.sample_type & PERF_SAMPLE_IP) ||
	    !(s.sample_type & PERF_SAMPLE_TID))
		return;
	mode = s.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode == PERF_RECORD_MISC_KERNEL) {
		h->kernel_hit = true;
		return;
	}
	if (mode != PERF_RECORD_MISC_USER)
		return;
	if (h->last) {
		const struct hmap *m = &h->maps[h->last - 1];

		if (m->pid == s.pid && s.ip >= m->start && s.ip < m->end)
			return; /* marked already */
	}
	for (size_t i = h->nr_maps; i-- > 0;) {
		const struct hmap *m = &h->maps[i];

		if (m->pid == s.pid && s.ip >= m->start && s.ip < m->end) {
			h->names[m->name].hit = true;
			h->last = i + 1;
			return;
		}
	}
}

int hws_buildid_hits__record(struct hws_buildid_hits *h, const void *rec)
{
	const struct perf_event_header *eh = rec;
	const uint8_t *p = rec;
	uint32_t a, b;
	int err = 0;

	if (!h || !rec)
		return -EINVAL;
	switch (eh->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(h, rec, eh->size);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		err = on_mmap(h, p, eh->type, eh->misc, eh->size);
		h->last = 0;
		break;
	case PERF_RECORD_FORK:
		if (eh->size < 24)
			break;
		memcpy(&a, p + 8, 4);
		memcpy(&b, p + 12, 4);
		if (a != b)
			err = on_fork(h, a, b);
		break;
	case PERF_RECORD_COMM:
		if (eh->size < 16 || !(eh->misc & MISC_COMM_EXEC))
			break;
		memcpy(&a, p + 8, 4);
		memcpy(&b, p + 12, 4);
		if (a == b)
			on_exec(h, a);
		break;
	default:
		break;
	}
	return err == -ENOSPC ? 0 : err; /* bounded: what is past the bounds goes untracked */
}

static int hex_to_bin(const char *hex, uint8_t *out)
{
	size_t n = strlen(hex);

	if (n % 2 || n > 40)
		return -EINVAL;
	for (size_t i = 0; i < n / 2; i++)
		out[i] = (uint8_t)strtoul((char[]){hex[2 * i], hex[2 * i + 1], 0}, NULL, 16);
	return (int)(n / 2);
}

static int put_entry(struct hws_strbuf *sb, uint16_t mode, const uint8_t *bid, size_t bid_len,
		     const char *name)
{
	uint8_t e[36] = {0};
	size_t nlen = strlen(name) + 1, len = (nlen + 63) / 64 * 64;
	uint16_t misc = (uint16_t)(mode | MISC_BUILD_ID_SIZE), size;
	int32_t pid = -1;
	int err;

	if (36 + len > UINT16_MAX || bid_len > 20)
		return -E2BIG;
	size = (uint16_t)(36 + len);
	memcpy(e + 4, &misc, 2);
	memcpy(e + 6, &size, 2);
	memcpy(e + 8, &pid, 4);
	memcpy(e + 12, bid, bid_len);
	e[32] = (uint8_t)bid_len;
	err = hws_strbuf__add(sb, e, sizeof(e));
	if (!err)
		err = hws_strbuf__add(sb, name, nlen);
	for (size_t i = nlen; !err && i < len; i++)
		err = hws_strbuf__add(sb, "", 1);
	return err;
}

int hws_buildid_hits__finish(struct hws_buildid_hits *h, struct hws_perf_writer *w,
			     const char *cache_dir, struct hws_buildid_hits_stats *st)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	void *vdso = NULL;
	size_t vdso_len = 0;
	uint8_t bin[20];
	char hex[48], disk[48], dbuf[4096];
	int n, err = 0;

	if (!h || !w)
		return -EINVAL;
	if (!cache_dir && !hws__buildid_dir(dbuf, sizeof(dbuf)))
		cache_dir = dbuf;
	if (st)
		memset(st, 0, sizeof(*st));
	n = hws__kernel_build_id(hex, sizeof(hex));
	if (n > 0 && n <= 40)
		err = put_entry(&sb, PERF_RECORD_MISC_KERNEL, bin, (size_t)hex_to_bin(hex, bin),
				"[kernel.kallsyms]");
	for (size_t i = 0; !err && i < h->nr_names; i++) {
		struct hname *f = &h->names[i];
		bool is_vdso = !strcmp(f->path, "[vdso]");

		if (!f->hit)
			continue;
		if (f->bid_len) {
			for (int k = 0; k < f->bid_len; k++)
				snprintf(hex + 2 * k, 3, "%02x", f->bid[k]);
			n = f->bid_len * 2;
		} else if (is_vdso) {
			n = vdso || !hws__vdso_image(&vdso, &vdso_len)
				? hws__mem_build_id(vdso, vdso_len, hex, sizeof(hex))
				: 0;
		} else {
			n = hws__file_build_id(f->path, hex, sizeof(hex));
		}
		if (n <= 0 || n > 40) {
			if (st)
				st->no_build_id++;
			continue;
		}
		err = put_entry(&sb, PERF_RECORD_MISC_USER, bin, (size_t)hex_to_bin(hex, bin),
				f->path);
		if (err)
			break;
		if (st)
			st->entries++;
		if (!cache_dir || !*cache_dir)
			continue;
		/* a file replaced since it was mapped no longer has that build-id: not cached */
		if (!is_vdso && f->bid_len &&
		    (hws__file_build_id(f->path, disk, sizeof(disk)) != n ||
		     memcmp(disk, hex, (size_t)n)))
			continue;
		/* the vDSO of this process is the one recorded (not a 32-bit one, say) */
		if (is_vdso && ((!vdso && hws__vdso_image(&vdso, &vdso_len)) ||
				hws__mem_build_id(vdso, vdso_len, disk, sizeof(disk)) != n ||
				memcmp(disk, hex, (size_t)n)))
			continue;
		if (hws__buildid_cache_dso(cache_dir, f->path, hex, is_vdso ? vdso : NULL,
					   vdso_len) == 0) {
			if (st)
				st->cached++;
		} else if (st) {
			st->cache_failed++;
		}
	}
	free(vdso);
	if (!err && sb.len)
		err = hws_perf_writer__set_feature(w, HWS_FEAT_BUILD_ID, sb.buf, sb.len);
	hws_strbuf__release(&sb);
	return err;
}
