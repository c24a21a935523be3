// SPDX-License-Identifier: MIT
/*
 * The build-ids of the files a recording's samples hit, as perf record writes them at its
 * end (HEADER_BUILD_ID, perf_session__write_buildid_table()): the records are watched as
 * they are written (COMM exec, MMAP, MMAP2, FORK and SAMPLE), each sample's ip marks the file
 * its process maps there (perf's build_id__mark_dso_hit(): the ip, not the call chain), and
 * at the end every file hit gets an entry with the build-id read from it (or carried by its
 * MMAP2), the vDSO the one of this process's image (the same for every process of the
 * kernel); optionally each is copied into perf's build-id cache. Kernel samples mark the
 * kernel ([kernel.kallsyms], its build-id from <sysfs>/kernel/notes) or the module whose
 * range (/proc/modules) holds the ip (named by its file under /lib/modules/<release> as
 * modules.dep lists it, else [name]; its build-id from <sysfs>/module/<name>/notes): both
 * listed with misc KERNEL, as perf does. A fake sysfs root (hws_host_opts) brings its own
 * "modules" and "modules.dep" files.
 * Pipe mode (hws_buildid_hits__next_record()): the same entries as HEADER_BUILD_ID records,
 * each made when its file is first hit, so the writer sends it before the sample that hit.
 * Records come as record drains its per-CPU rings, not in time order (perf sorts them before
 * it marks hits): the maps are kept by their records' time (sample_id_all), so an exec's COMM
 * or a FORK drained after later records of the same task drops or copies only what it did
 * then, a sample takes only a map its process had at the sample's time, and the latest
 * NR_MISSES samples no map took wait for a late MMAP or FORK (their CPU's ring came first).
 *
 * Invariants:
 *  - entries are laid out as perf writes them: u32 type 0, u16 misc (USER or KERNEL, with
 *    BUILD_ID_SIZE), u16 size, s32 pid -1 (the host), u8 build_id[20], u8 id size, 3 zero
 *    bytes, the name NUL-terminated and zero-padded to a multiple of 64; the kernel first;
 *  - a file without a build-id (or gone) gets no entry; memory stays bounded (MAX_MAPS
 *    mappings, MAX_NAMES files: beyond them records are not tracked; a module list that
 *    hws__read_modules() cannot take (over 8192, hidden addresses) tracks no module);
 *  - each file, module and the kernel is queued for next_record() once, at its first hit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <hwsample/perfdata.h>
#include <hwsample/pmu.h>
#include <hwsample/synth.h>
#include <hwsample/symbols.h>

#include "util/internal.h"

#define MAX_MAPS	   (1u << 20)
#define MAX_NAMES	   (1u << 16)
#define Q_KERNEL	   0xffffffffu /* queue items: a name index, a module | Q_MOD, the kernel */
#define Q_MOD		   0x80000000u
#define MAX_ATTRS	   64
#define NAME_MAX_LEN	   4096
#define MISC_COMM_EXEC	   (1U << 13)
#define MISC_MMAP_BUILD_ID (1U << 14)
#define MISC_BUILD_ID_SIZE (1U << 15)
#define MARK_EXEC	   0xffffffffu
#define NR_MISSES	   256 /* user samples no map took yet, kept for a late MMAP or FORK */

struct hmap {
	uint32_t pid, name; /* name MARK_EXEC: the pid's exec at @time (start = end = 0) */
	uint64_t start, end;
	uint64_t time; /* of the MMAP (sample_id_all), the FORK of a copy, or 0: unknown */
};

/* a user sample's place: the process, the ip, its time when @timed */
struct hit {
	uint32_t pid;
	bool timed;
	uint64_t ip, time;
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
	struct hmap *maps; /* by time (unknown: 0, else the order they came); a later one covers
			    * an earlier one */
	size_t nr_maps, alloc_maps;
	struct hname *names;
	size_t nr_names, alloc_names;
	size_t last; /* index + 1 of the map of the last hit, or 0 */
	bool kernel_hit;
	bool mods_read;	       /* the module list, read at the first kernel sample */
	struct hws_kmod *mods; /* seen: hit */
	size_t nr_mods;
	uint32_t *queue; /* first hits not yet taken by next_record() */
	size_t nr_queue, alloc_queue;
	void *vdso; /* this process's vDSO image, once read */
	size_t vdso_len;
	bool vdso_tried;
	uint64_t t_first, t_last; /* the samples' earliest and latest time (have_time) */
	bool have_time;
	struct hit misses[NR_MISSES]; /* the latest timed misses (pid 0: none), a ring */
	size_t miss_next;
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
	free(h->mods);
	free(h->queue);
	free(h->vdso);
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

/* in time order: records come in the order record drains its per-CPU rings, so a task that
 * moved between CPUs can have its MMAP after a later one */
static int add_map(struct hws_buildid_hits *h, const struct hmap *m)
{
	size_t i;

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
	for (i = h->nr_maps++; i > 0 && h->maps[i - 1].time > m->time; i--)
		h->maps[i] = h->maps[i - 1];
	h->maps[i] = *m;
	h->last = 0;
	return 0;
}

static bool mark(struct hws_buildid_hits *h, const struct hit *s);

/* the misses of @pid (within [@start, @end) from @time on) a new map may take: those of its
 * samples that came before their map (their CPU's ring was drained first) */
static void retry_misses(struct hws_buildid_hits *h, uint32_t pid, uint64_t start, uint64_t end,
			 uint64_t time)
{
	for (size_t k = 0; k < NR_MISSES; k++) {
		struct hit *x = &h->misses[k];

		if (x->pid == pid && x->ip >= start && x->ip < end && x->time >= time && mark(h, x))
			x->pid = 0;
	}
}

/* what a file's name must look like to get an entry: a path, or the vDSO */
static bool trackable(const char *path)
{
	return (path[0] == '/' && strncmp(path, "//anon", 6) && strncmp(path, "/dev/", 5) &&
		strncmp(path, "/memfd:", 7) && strncmp(path, "/SYSV", 5)) ||
	       !strcmp(path, "[vdso]");
}

/* the time of non-sample record @rec (its sample_id_all trailer), or 0 */
static uint64_t record_time(const struct hws_buildid_hits *h, const void *rec, size_t size)
{
	const struct hws_perf_event_attr *attr = attr_of(h, rec, size);
	struct hws_sample_id sid;

	if (!attr || !attr->sample_id_all || !(attr->sample_type & PERF_SAMPLE_TIME) ||
	    hws_sample_id__parse(attr, rec, size, &sid) || !(sid.fields & HWS_SF_TIME))
		return 0;
	return sid.time;
}

static int on_mmap(struct hws_buildid_hits *h, const uint8_t *p, uint32_t type, uint16_t misc,
		   size_t size)
{
	size_t fo = type == PERF_RECORD_MMAP ? 40 : 72, n;
	char path[NAME_MAX_LEN];
	uint64_t start, len, t;
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
	if (err)
		return err;
	t = record_time(h, p, size);
	err = add_map(h, &(struct hmap){pid, idx, start, start + len, t});
	if (!err)
		retry_misses(h, pid, start, start + len, t);
	return err;
}

/* whether a child forked by @parent at @time (0: unknown) has map @m */
static bool inherited(const struct hmap *m, uint32_t parent, uint64_t time)
{
	return m->pid == parent && m->name != MARK_EXEC && (!time || m->time <= time);
}

/* @child starts at @time (0: unknown) with the maps @parent had then (a new process; threads
 * share theirs), unless it has exec()ed since: its exec may come first when the two sit in
 * different CPUs' rings */
static int on_fork(struct hws_buildid_hits *h, uint32_t child, uint32_t parent, uint64_t time)
{
	struct hmap *copy;
	size_t n = 0;
	int err = 0;

	/* copied aside first: each add_map() may move the maps from after @time */
	for (size_t i = 0; i < h->nr_maps; i++) {
		if (h->maps[i].pid == child && h->maps[i].name == MARK_EXEC &&
		    h->maps[i].time >= time)
			return 0;
		n += inherited(&h->maps[i], parent, time);
	}
	copy = malloc(n * sizeof(*copy) + 1);
	if (!copy)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < h->nr_maps; i++) {
		const struct hmap *m = &h->maps[i];

		if (inherited(m, parent, time))
			copy[n++] = (struct hmap){child, m->name, m->start, m->end, time};
	}
	for (size_t i = 0; !err && i < n; i++)
		err = add_map(h, &copy[i]);
	free(copy);
	if (!err && n)
		retry_misses(h, child, 0, UINT64_MAX, time);
	return err;
}

/* exec at @time (0: unknown): the process's maps from before it are gone; the ones after it
 * (its new image's, when their CPU's ring was drained first) stay */
static int on_exec(struct hws_buildid_hits *h, uint32_t pid, uint64_t time)
{
	size_t k = 0;

	for (size_t i = 0; i < h->nr_maps; i++)
		if (h->maps[i].pid != pid || (time && h->maps[i].time > time))
			h->maps[k++] = h->maps[i];
	h->nr_maps = k;
	h->last = 0;
	return time ? add_map(h, &(struct hmap){pid, MARK_EXEC, 0, 0, time}) : 0;
}

static void enqueue(struct hws_buildid_hits *h, uint32_t item)
{
	if (h->nr_queue == h->alloc_queue) {
		size_t n = h->alloc_queue ? h->alloc_queue * 2 : 64;
		uint32_t *t = realloc(h->queue, n * sizeof(*t));

		if (!t)
			return; /* no record for it in a pipe: the file still gets none */
		h->queue = t;
		h->alloc_queue = n;
	}
	h->queue[h->nr_queue++] = item;
}

/* the machine's module list: /proc/modules, or a fake sysfs tree's "modules"; nothing when
 * it cannot be read or its addresses are hidden (kptr_restrict) */
static void read_modules(struct hws_buildid_hits *h)
{
	char path[4200];
	const char *root = hws_sysfs_root();
	int n;

	h->mods_read = true;
	if (strcmp(root, "/sys"))
		snprintf(path, sizeof(path), "%s/modules", root);
	else
		snprintf(path, sizeof(path), "/proc/modules");
	n = hws__read_modules(path, &h->mods);
	h->nr_mods = n > 0 ? (size_t)n : 0;
}

static void on_kernel_sample(struct hws_buildid_hits *h, uint64_t ip)
{
	if (!h->mods_read)
		read_modules(h);
	for (size_t i = 0; i < h->nr_mods; i++)
		if (ip >= h->mods[i].base && ip - h->mods[i].base < h->mods[i].size) {
			if (!h->mods[i].seen)
				enqueue(h, Q_MOD | (uint32_t)i);
			h->mods[i].seen = true;
			return;
		}
	if (!h->kernel_hit)
		enqueue(h, Q_KERNEL);
	h->kernel_hit = true;
}

/* @m is where sample @s's ip was: its process's, mapped by the sample's time when known */
static bool covers(const struct hmap *m, const struct hit *s)
{
	return m->pid == s->pid && s->ip >= m->start && s->ip < m->end &&
	       (!s->timed || m->time <= s->time);
}

/* mark the file of @s's map hit: whether a map took it */
static bool mark(struct hws_buildid_hits *h, const struct hit *s)
{
	if (h->last && covers(&h->maps[h->last - 1], s))
		return true; /* marked already */
	for (size_t i = h->nr_maps; i-- > 0;) {
		const struct hmap *m = &h->maps[i];

		if (covers(m, s)) {
			if (!h->names[m->name].hit)
				enqueue(h, m->name);
			h->names[m->name].hit = true;
			h->last = i + 1;
			return true;
		}
	}
	return false;
}

static void on_sample(struct hws_buildid_hits *h, const void *rec, size_t size)
{
	const struct hws_perf_event_attr *attr = attr_of(h, rec, size);
	struct hws_record_sample s;
	struct hit x;
	uint16_t mode;

	if (!attr || hws_sample__parse(attr, rec, size, &s))
		return;
	if (s.sample_type & PERF_SAMPLE_TIME) {
		if (!h->have_time || s.time < h->t_first)
			h->t_first = s.time;
		if (!h->have_time || s.time > h->t_last)
			h->t_last = s.time;
		h->have_time = true;
	}
	if (!(s.sample_type & PERF_SAMPLE_IP) || !(s.sample_type & PERF_SAMPLE_TID))
		return;
	mode = s.misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode == PERF_RECORD_MISC_KERNEL) {
		on_kernel_sample(h, s.ip);
		return;
	}
	if (mode != PERF_RECORD_MISC_USER)
		return;
	x = (struct hit){s.pid, (s.sample_type & PERF_SAMPLE_TIME) != 0, s.ip, s.time};
	if (!mark(h, &x) && x.timed && x.pid)
		h->misses[h->miss_next++ % NR_MISSES] = x;
}

int hws_buildid_hits__record(struct hws_buildid_hits *h, const void *rec)
{
	const struct perf_event_header *eh = rec;
	const uint8_t *p = rec;
	uint32_t a, b;
	uint64_t t;
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
		break;
	case PERF_RECORD_FORK:
		if (eh->size < 24)
			break;
		memcpy(&a, p + 8, 4);
		memcpy(&b, p + 12, 4);
		t = 0;
		if (eh->size >= 32)
			memcpy(&t, p + 24, 8);
		if (a != b)
			err = on_fork(h, a, b, t);
		break;
	case PERF_RECORD_COMM:
		if (eh->size < 16 || !(eh->misc & MISC_COMM_EXEC))
			break;
		memcpy(&a, p + 8, 4);
		memcpy(&b, p + 12, 4);
		if (a == b)
			err = on_exec(h, a, record_time(h, rec, eh->size));
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

/* module @mod's file as modules.dep lists it under /lib/modules/<release> (names compare
 * with '-' and '_' alike, as the kernel's), else "[mod]", as perf names it */
static void module_name(const char *mod, char *buf, size_t len)
{
	const char *root = hws_sysfs_root();
	char path[4200], line[4200];
	size_t ml = strlen(mod);
	struct utsname u;
	FILE *f;
	int w;

	snprintf(buf, len, "[%s]", mod);
	if (uname(&u))
		return;
	if (strcmp(root, "/sys"))
		snprintf(path, sizeof(path), "%s/modules.dep", root);
	else
		snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base;
		bool same = true;
		size_t n;

		if (!colon)
			continue;
		*colon = 0;
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		n = strcspn(base, ".");
		if (n != ml || strncmp(base + n, ".ko", 3))
			continue;
		for (size_t i = 0; i < n && same; i++)
			same = (base[i] == '-' ? '_' : base[i]) == (mod[i] == '-' ? '_' : mod[i]);
		if (!same)
			continue;
		/* a path too long for @buf keeps the "[mod]" name (a cut one names no file) */
		if (line[0] == '/')
			w = snprintf(path, sizeof(path), "%s", line);
		else
			w = snprintf(path, sizeof(path), "/lib/modules/%s/%s", u.release, line);
		if (w > 0 && (size_t)w < sizeof(path) && (size_t)w < len)
			memcpy(buf, path, (size_t)w + 1);
		break;
	}
	if (f)
		fclose(f);
}

/* queue item @item's entry: its name and mode into @name / @mode, its build-id as hex into
 * @hex; returns the number of hex digits (<= 0: no build-id, no entry) */
static int item_entry(struct hws_buildid_hits *h, uint32_t item, char *name, size_t nlen,
		      uint16_t *mode, char *hex, size_t hlen)
{
	const struct hname *f;

	*mode = PERF_RECORD_MISC_KERNEL;
	if (item == Q_KERNEL) {
		snprintf(name, nlen, "[kernel.kallsyms]");
		return hws__kernel_build_id(hex, hlen);
	}
	if (item & Q_MOD) {
		module_name(h->mods[item & ~Q_MOD].name, name, nlen);
		return hws__module_build_id(h->mods[item & ~Q_MOD].name, hex, hlen);
	}
	f = &h->names[item];
	*mode = PERF_RECORD_MISC_USER;
	snprintf(name, nlen, "%s", f->path);
	if (f->bid_len) {
		for (int k = 0; k < f->bid_len; k++)
			snprintf(hex + 2 * k, 3, "%02x", f->bid[k]);
		return f->bid_len * 2;
	}
	if (strcmp(f->path, "[vdso]"))
		return hws__file_build_id(f->path, hex, hlen);
	if (!h->vdso_tried) {
		h->vdso_tried = true;
		if (hws__vdso_image(&h->vdso, &h->vdso_len))
			h->vdso = NULL;
	}
	return h->vdso ? hws__mem_build_id(h->vdso, h->vdso_len, hex, hlen) : 0;
}

/* the file of @item (entry @name, build-id @hex of @n digits) into the build-id cache @dir
 * unless a copy is there: 1 copied or there, 0 nothing to copy, or a negative errno. The
 * kernel's kallsyms is copied by hws_buildid_cache__add_kernel(). */
static int item_cache(struct hws_buildid_hits *h, uint32_t item, const char *name, const char *hex,
		      int n, const char *dir)
{
	char disk[48];
	bool is_vdso = !strcmp(name, "[vdso]");
	int err;

	if (!dir || !*dir || item == Q_KERNEL || (item & Q_MOD && name[0] != '/'))
		return 0;
	if (is_vdso) {
		/* the vDSO of this process is the one recorded (not a 32-bit one, say) */
		if (!h->vdso || hws__mem_build_id(h->vdso, h->vdso_len, disk, sizeof(disk)) != n ||
		    memcmp(disk, hex, (size_t)n))
			return 0;
	} else if (item & Q_MOD || h->names[item].bid_len) {
		/* a file replaced since it was mapped no longer has that build-id: not cached */
		if (hws__file_build_id(name, disk, sizeof(disk)) != n ||
		    memcmp(disk, hex, (size_t)n))
			return 0;
	}
	err = hws__buildid_cache_dso(dir, name, hex, is_vdso ? h->vdso : NULL,
				     is_vdso ? h->vdso_len : 0);
	return err ? err : 1;
}

/* one entry (@type 0 in HEADER_BUILD_ID, HEADER_BUILD_ID the record) into @buf: its size */
static size_t make_entry(uint8_t *buf, uint32_t type, uint16_t mode, const char *hex,
			 const char *name)
{
	size_t nlen = strlen(name) + 1, len = (nlen + 63) / 64 * 64;
	uint16_t misc = (uint16_t)(mode | MISC_BUILD_ID_SIZE), size = (uint16_t)(36 + len);
	int32_t pid = -1;
	uint8_t bin[20];
	int bl = hex_to_bin(hex, bin);

	memset(buf, 0, 36 + len);
	memcpy(buf, &type, 4);
	memcpy(buf + 4, &misc, 2);
	memcpy(buf + 6, &size, 2);
	memcpy(buf + 8, &pid, 4);
	if (bl > 0)
		memcpy(buf + 12, bin, (size_t)bl);
	buf[32] = (uint8_t)(bl > 0 ? bl : 0);
	memcpy(buf + 36, name, nlen);
	return 36 + len;
}

#define ENTRY_MAX (36 + NAME_MAX_LEN + 64)

/* the entry of @item, copying its file into the cache: 0 (none), its size, or -errno */
static int item_put(struct hws_buildid_hits *h, uint32_t item, uint32_t type, uint8_t *buf,
		    const char *cache_dir, struct hws_buildid_hits_stats *st)
{
	char name[NAME_MAX_LEN], hex[48];
	uint16_t mode;
	int n = item_entry(h, item, name, sizeof(name), &mode, hex, sizeof(hex)), c;

	if (n <= 0 || n > 40 || n % 2) {
		if (st && item != Q_KERNEL)
			st->no_build_id++;
		return 0;
	}
	hex[n] = 0;
	c = item_cache(h, item, name, hex, n, cache_dir);
	if (st && c > 0)
		st->cached++;
	else if (st && c < 0)
		st->cache_failed++;
	if (st && item != Q_KERNEL)
		st->entries++;
	return (int)make_entry(buf, type, mode, hex, name);
}

int hws_buildid_hits__finish(struct hws_buildid_hits *h, struct hws_perf_writer *w,
			     const char *cache_dir, struct hws_buildid_hits_stats *st)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	uint8_t e[ENTRY_MAX];
	char dbuf[4096];
	int n, err = 0;

	if (!h || !w)
		return -EINVAL;
	if (!cache_dir && !hws__buildid_dir(dbuf, sizeof(dbuf)))
		cache_dir = dbuf;
	if (st)
		memset(st, 0, sizeof(*st));
	/* perf's order: the kernel, its modules, then the user files in the order first seen */
	if (h->kernel_hit) {
		n = item_put(h, Q_KERNEL, 0, e, cache_dir, st);
		err = n > 0 ? hws_strbuf__add(&sb, e, (size_t)n) : 0;
	}
	for (size_t i = 0; !err && i < h->nr_mods; i++) {
		if (!h->mods[i].seen)
			continue;
		n = item_put(h, Q_MOD | (uint32_t)i, 0, e, cache_dir, st);
		err = n > 0 ? hws_strbuf__add(&sb, e, (size_t)n) : n;
	}
	for (size_t i = 0; !err && i < h->nr_names; i++) {
		if (!h->names[i].hit)
			continue;
		n = item_put(h, (uint32_t)i, 0, e, cache_dir, st);
		err = n > 0 ? hws_strbuf__add(&sb, e, (size_t)n) : n;
	}
	/* an empty list replaces the kernel's entry the host features put there: perf lists
	 * the kernel only when samples hit it */
	if (!err)
		err = hws_perf_writer__set_feature(w, HWS_FEAT_BUILD_ID, sb.len ? sb.buf : NULL,
						   sb.len);
	/* HEADER_SAMPLE_TIME, as perf record writes it when it processes the samples: what
	 * report --time 10% and perf's percentages take as the recording's span */
	if (!err && h->have_time)
		err = hws_perf_writer__set_feature(w, HWS_FEAT_SAMPLE_TIME,
						   (uint64_t[]){h->t_first, h->t_last}, 16);
	hws_strbuf__release(&sb);
	return err;
}

int hws_buildid_hits__next_record(struct hws_buildid_hits *h, const char *cache_dir, void *buf,
				  size_t len)
{
	char dbuf[4096];
	int n = 0;

	if (!h || !buf)
		return -EINVAL;
	if (len < ENTRY_MAX)
		return -ENOSPC;
	if (!h->nr_queue)
		return 0;
	if (!cache_dir && !hws__buildid_dir(dbuf, sizeof(dbuf)))
		cache_dir = dbuf;
	while (!n && h->nr_queue) {
		uint32_t item = h->queue[0];

		memmove(h->queue, h->queue + 1, --h->nr_queue * sizeof(*h->queue));
		n = item_put(h, item, HWS_RECORD_HEADER_BUILD_ID, buf, cache_dir, NULL);
	}
	return n;
}
