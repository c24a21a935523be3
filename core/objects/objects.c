// SPDX-License-Identifier: MIT
/*
 * The index of allocation records (include/hwsample/objects.h): which heap block, mapping or
 * stack of a process held an address at a time, and the attribution of a sample's data
 * address (records first, then symbols).
 *
 * Each file of the payload (one process image) is replayed in time order: an ALLOC opens a
 * block [addr, addr + size) from its time, a FREE or REALLOC closes the live block at its
 * address (unknown addresses are ignored: blocks under the threshold), a new block at a
 * live address closes the old one (a free the file missed), MUNMAP closes the mappings it
 * overlaps. A later file of the same pid (exec) closes what the earlier left open.
 * Version 2 files with a tick rate have times in time-stamp counter ticks: they are first
 * converted to nanoseconds, linearly between the nearest (tick, time) pairs (the header's
 * and the CLOCK records), past the last pair with the slope of all pairs (the header's
 * estimate when there is one pair).
 *
 * Invariants:
 *  - Every object has start < end and t0 <= t1 (t1 = UINT64_MAX: never freed).
 *  - objs[] is sorted by (pid, start); pmax[i] is the largest end of objs[first of its pid
 *    .. i], so a lookup walks back from the last start <= addr only while pmax > addr.
 *  - Input is never trusted: sizes and counts are checked against the payload, a malformed
 *    file header ends the payload, a malformed record is skipped and counted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwsample/datatype.h>
#include <hwsample/objects.h>

#include "objects_int.h"
#include "util/internal.h"

#define MAP_ANON_FLAG 0x20 /* MAP_ANONYMOUS (x86, arm64, most) */

struct obj {
	uint64_t start, end, t0, t1;
	uint32_t pid, tid;
	uint8_t kind, nframes;
	uint64_t frames[HWS_OBJ_FRAMES];
	uint64_t image; /* TLS: the module's TLS image in memory */
};

struct ofile {
	uint32_t pid, ppid;
	uint64_t start_time;
	size_t first, nr; /* its objects in objs[] before the sort */
};

struct hws_objects {
	struct obj *objs;
	uint64_t *pmax;
	size_t nr, alloc;
	struct ofile *files;
	size_t nfiles, afiles;
	uint64_t dropped, bad;
	struct tls_syms *tls; /* the TLS variables of the files asked about */
};

/* ---------------------------------------------------------------- live blocks of one file */

/* open addressing, address -> object index + 1 (0 empty, SIZE_MAX tombstone) */
struct live {
	uint64_t *key;
	size_t *val;
	size_t size, used;
};

#define TOMB SIZE_MAX

static size_t hash_addr(uint64_t a, size_t size)
{
	return (size_t)((a * 0x9E3779B97F4A7C15ULL) >> 17) & (size - 1);
}

static int live_grow(struct live *l)
{
	struct live n = {.size = l->size ? l->size * 2 : 1024};

	n.key = calloc(n.size, sizeof(*n.key));
	n.val = calloc(n.size, sizeof(*n.val));
	if (!n.key || !n.val) {
		free(n.key);
		free(n.val);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->size; i++) {
		size_t j;

		if (!l->val[i] || l->val[i] == TOMB)
			continue;
		for (j = hash_addr(l->key[i], n.size); n.val[j]; j = (j + 1) & (n.size - 1))
			;
		n.key[j] = l->key[i];
		n.val[j] = l->val[i];
		n.used++;
	}
	free(l->key);
	free(l->val);
	*l = n;
	return 0;
}

/* the slot of @a, or of the empty slot where it would go */
static size_t live_find(const struct live *l, uint64_t a, bool *found)
{
	size_t i = hash_addr(a, l->size), tomb = SIZE_MAX;

	for (; l->val[i]; i = (i + 1) & (l->size - 1)) {
		if (l->val[i] == TOMB) {
			if (tomb == SIZE_MAX)
				tomb = i;
		} else if (l->key[i] == a) {
			*found = true;
			return i;
		}
	}
	*found = false;
	return tomb != SIZE_MAX ? tomb : i;
}

/* ---------------------------------------------------------------- building */

static struct obj *new_obj(struct hws_objects *o)
{
	if (o->nr == o->alloc) {
		size_t na = o->alloc ? o->alloc * 2 : 256;
		struct obj *v = realloc(o->objs, na * sizeof(*v));

		if (!v)
			return NULL;
		o->objs = v;
		o->alloc = na;
	}
	memset(&o->objs[o->nr], 0, sizeof(o->objs[0]));
	return &o->objs[o->nr++];
}

static int cmp_time(const void *a, const void *b)
{
	const struct hws_objrec *x = *(const struct hws_objrec *const *)a;
	const struct hws_objrec *y = *(const struct hws_objrec *const *)b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x < y ? -1 : x > y; /* reservation order */
}

/* close the live block at @a at time @t */
static void close_at(struct hws_objects *o, struct live *l, uint64_t a, uint64_t t)
{
	bool found;
	size_t i;

	if (!l->size)
		return;
	i = live_find(l, a, &found);
	if (!found)
		return;
	o->objs[l->val[i] - 1].t1 = t;
	l->val[i] = TOMB;
}

static int open_block(struct hws_objects *o, struct live *l, const struct hws_objrec *r,
		      const struct hws_objfile *fh, int kind)
{
	struct obj *b;
	bool found;
	size_t i = 0; /* set and read for heap and TLS blocks only */

	if (!r->size || r->addr + r->size < r->addr)
		return o->bad++, 0;
	if (kind == HWS_OBJ_HEAP || kind == HWS_OBJ_TLS) { /* TLS: a thread's, then the next's */
		if ((l->used + 1) * 2 > l->size && live_grow(l))
			return -ENOMEM;
		i = live_find(l, r->addr, &found);
		if (found) /* a free the file missed */
			o->objs[l->val[i] - 1].t1 = r->time;
		else if (!l->val[i])
			l->used++;
	}
	b = new_obj(o);
	if (!b)
		return -ENOMEM;
	b->start = r->addr;
	b->end = r->addr + r->size;
	b->t0 = r->time;
	b->t1 = UINT64_MAX;
	b->pid = fh->pid;
	b->tid = r->tid;
	b->kind = (uint8_t)kind;
	b->nframes = r->nframes > HWS_OBJ_FRAMES ? HWS_OBJ_FRAMES : r->nframes;
	memcpy(b->frames, r->frames, sizeof(b->frames));
	if (kind == HWS_OBJ_STACK)
		b->t0 = 0; /* the stack was there before the thread's first record */
	if (kind == HWS_OBJ_TLS) {
		b->nframes = 0;
		b->image = r->old;
	}
	if (kind == HWS_OBJ_HEAP || kind == HWS_OBJ_TLS) {
		l->key[i] = r->addr;
		l->val[i] = o->nr;
	}
	return 0;
}

static void unmap(struct hws_objects *o, size_t first, const struct hws_objrec *r)
{
	uint64_t end = r->addr + r->size;

	if (end < r->addr)
		end = UINT64_MAX;
	for (size_t i = first; i < o->nr; i++) {
		struct obj *b = &o->objs[i];

		if ((b->kind == HWS_OBJ_MMAP || b->kind == HWS_OBJ_ANON) && b->t1 == UINT64_MAX &&
		    b->start < end && r->addr < b->end)
			b->t1 = r->time;
	}
}

struct tpair {
	uint64_t tick, ns;
};

static int cmp_tpair(const void *a, const void *b)
{
	const struct tpair *x = a, *y = b;

	return x->tick < y->tick ? -1 : x->tick > y->tick;
}

/* @t + (@d ticks at @num ns per @den ticks), @d signed, clamped to [0, UINT64_MAX) */
static uint64_t tick_ns(uint64_t t, double d, double num, double den)
{
	double v = (double)t + d * num / den;

	if (!(v > 0))
		return 0;
	return v >= 18446744073709549568.0 ? UINT64_MAX - 1 : (uint64_t)v;
}

/* the times of @n records @copy from ticks to nanoseconds (the header and CLOCK pairs) */
static int ticks_to_ns(const struct hws_objfile *fh, struct hws_objrec *copy, size_t n)
{
	struct tpair *p = malloc((n + 1) * sizeof(*p));
	size_t np = 0;
	double num, den;

	if (!p)
		return -ENOMEM;
	p[np++] = (struct tpair){fh->tsc0, fh->start_time};
	for (size_t i = 0; i < n; i++)
		if (copy[i].type == HWS_OBJREC_CLOCK)
			p[np++] = (struct tpair){copy[i].addr, copy[i].time};
	hws__qsort(p, np, sizeof(*p), cmp_tpair);
	/* the slope past the ends: all pairs, or the header's rate */
	num = (double)p[np - 1].ns - (double)p[0].ns;
	den = (double)p[np - 1].tick - (double)p[0].tick;
	if (!(den > 0) || !(num > 0)) {
		num = 1e9;
		den = (double)fh->tsc_hz;
	}
	for (size_t i = 0; i < n; i++) {
		struct hws_objrec *r = &copy[i];
		size_t lo = 0, hi = np;

		if (r->type == HWS_OBJREC_CLOCK)
			continue;
		while (lo < hi) { /* the first pair past the tick */
			size_t mid = lo + (hi - lo) / 2;

			if (p[mid].tick <= r->time)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0)
			r->time =
			    tick_ns(p[0].ns, -((double)p[0].tick - (double)r->time), num, den);
		else if (lo == np || p[lo].tick == p[lo - 1].tick)
			r->time =
			    tick_ns(p[lo - 1].ns, (double)(r->time - p[lo - 1].tick), num, den);
		else
			r->time = tick_ns(p[lo - 1].ns, (double)(r->time - p[lo - 1].tick),
					  (double)p[lo].ns - (double)p[lo - 1].ns,
					  (double)(p[lo].tick - p[lo - 1].tick));
	}
	free(p);
	return 0;
}

/* the (time, addr) pairs of a FREES record, the blocks of an ALLOCS record */
#define FREES_MAX  4
#define ALLOCS_MAX 2

static int cmp_site(const void *a, const void *b)
{
	const struct hws_objrec *x = *(const struct hws_objrec *const *)a;
	const struct hws_objrec *y = *(const struct hws_objrec *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* the SITE record numbered @id among @n sorted @sites, or NULL */
static const struct hws_objrec *find_site(struct hws_objrec **sites, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sites[mid]->addr < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sites[lo]->addr == id ? sites[lo] : NULL;
}

/* @copy's @n records with every FREES record replaced by its FREE records, every ALLOCS
 * record by its ALLOC records (with their SITE's frames) and no SITE records: the new array
 * (@copy freed) and its length in @n, or NULL (-ENOMEM) */
static struct hws_objrec *expand_packed(struct hws_objects *o, struct hws_objrec *copy, size_t *n)
{
	struct hws_objrec *ex, **sites;
	size_t extra = 0, k = 0, ns = 0;

	for (size_t i = 0; i < *n; i++)
		if ((copy[i].type == HWS_OBJREC_FREES || copy[i].type == HWS_OBJREC_ALLOCS) &&
		    copy[i].nframes > 1)
			extra += copy[i].nframes - 1U;
	ex = malloc((*n + extra) * sizeof(*ex));
	sites = malloc((*n ? *n : 1) * sizeof(*sites));
	if (!ex || !sites) {
		free(ex);
		free(sites);
		free(copy);
		return NULL;
	}
	for (size_t i = 0; i < *n; i++)
		if (copy[i].type == HWS_OBJREC_SITE)
			sites[ns++] = &copy[i];
	hws__qsort(sites, ns, sizeof(*sites), cmp_site);
	for (size_t i = 0; i < *n; i++) {
		const struct hws_objrec *r = &copy[i], *site;
		uint64_t w[2 * FREES_MAX];

		if (r->type == HWS_OBJREC_SITE)
			continue;
		if (r->type != HWS_OBJREC_FREES && r->type != HWS_OBJREC_ALLOCS) {
			ex[k++] = *r;
			continue;
		}
		if (r->nframes > (r->type == HWS_OBJREC_FREES ? FREES_MAX : ALLOCS_MAX)) {
			o->bad++;
			continue;
		}
		/* time, addr, size, old, frames[0..3] */
		memcpy(w, &r->time, sizeof(w));
		for (unsigned int j = 0; j < r->nframes; j++) {
			memset(&ex[k], 0, sizeof(ex[k]));
			ex[k].tid = r->tid;
			if (r->type == HWS_OBJREC_FREES) {
				ex[k].type = HWS_OBJREC_FREE;
				ex[k].time = w[2 * j];
				ex[k].addr = w[2 * j + 1];
				k++;
				continue;
			}
			ex[k].type = HWS_OBJREC_ALLOC;
			ex[k].time = w[4 * j];
			ex[k].addr = w[4 * j + 1];
			ex[k].size = w[4 * j + 2];
			ex[k].flags = (uint16_t)(w[4 * j + 3] >> 32);
			site = find_site(sites, ns, (uint32_t)w[4 * j + 3]);
			if (site) { /* else no frames: the file filled up */
				ex[k].nframes =
				    site->nframes > HWS_OBJ_FRAMES ? HWS_OBJ_FRAMES : site->nframes;
				memcpy(ex[k].frames, site->frames, sizeof(ex[k].frames));
			}
			k++;
		}
	}
	free(sites);
	free(copy);
	*n = k;
	return ex;
}

/* one file: @fh, then @n records at @recs (unaligned) */
static int add_file(struct hws_objects *o, const struct hws_objfile *fh, const uint8_t *recs,
		    size_t n)
{
	struct hws_objrec *copy = NULL, **order = NULL;
	struct live l = {0};
	struct ofile *f;
	size_t first = o->nr;
	int err = 0;

	if (o->nfiles == o->afiles) {
		size_t na = o->afiles ? o->afiles * 2 : 16;
		struct ofile *v = realloc(o->files, na * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->files = v;
		o->afiles = na;
	}
	o->dropped += fh->dropped;
	if (n) {
		copy = malloc(n * sizeof(*copy));
		order = malloc(n * sizeof(*order));
		if (!copy || !order) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(copy, recs, n * sizeof(*copy));
		free(order);
		copy = expand_packed(o, copy, &n);
		order = copy ? malloc((n ? n : 1) * sizeof(*order)) : NULL;
		if (!copy || !order) {
			err = -ENOMEM;
			goto out;
		}
		if (fh->version >= 2 && fh->tsc_hz && (err = ticks_to_ns(fh, copy, n)))
			goto out;
		for (size_t i = 0; i < n; i++)
			order[i] = &copy[i];
		hws__qsort(order, n, sizeof(*order), cmp_time);
	}
	for (size_t i = 0; i < n && !err; i++) {
		const struct hws_objrec *r = order[i];

		switch (r->type) {
		case HWS_OBJREC_NONE:
			break; /* never finished */
		case HWS_OBJREC_ALLOC:
			err = open_block(o, &l, r, fh, HWS_OBJ_HEAP);
			break;
		case HWS_OBJREC_FREE:
			close_at(o, &l, r->addr, r->time);
			break;
		case HWS_OBJREC_REALLOC:
			close_at(o, &l, r->old, r->time);
			err = open_block(o, &l, r, fh, HWS_OBJ_HEAP);
			break;
		case HWS_OBJREC_MMAP:
			err = open_block(o, &l, r, fh,
					 ((r->old >> 32) & MAP_ANON_FLAG) ? HWS_OBJ_ANON
									  : HWS_OBJ_MMAP);
			break;
		case HWS_OBJREC_MUNMAP:
			unmap(o, first, r);
			break;
		case HWS_OBJREC_STACK:
			err = open_block(o, &l, r, fh, HWS_OBJ_STACK);
			break;
		case HWS_OBJREC_CLOCK:
			break; /* used above */
		case HWS_OBJREC_TLS:
			err = open_block(o, &l, r, fh, HWS_OBJ_TLS);
			break;
		default:
			o->bad++;
		}
	}
	if (!err) {
		f = &o->files[o->nfiles++];
		f->pid = fh->pid;
		f->ppid = fh->ppid;
		f->start_time = fh->start_time;
		f->first = first;
		f->nr = o->nr - first;
	}
out:
	free(l.key);
	free(l.val);
	free(copy);
	free(order);
	return err;
}

static int cmp_file(const void *a, const void *b)
{
	const struct ofile *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start_time < y->start_time ? -1 : x->start_time > y->start_time;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct obj *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* exec: a process image's objects end when the next image of its pid starts */
static void end_images(struct hws_objects *o)
{
	hws__qsort(o->files, o->nfiles, sizeof(*o->files), cmp_file);
	for (size_t i = 0; i + 1 < o->nfiles; i++) {
		const struct ofile *f = &o->files[i], *next = &o->files[i + 1];

		if (f->pid != next->pid)
			continue;
		for (size_t j = f->first; j < f->first + f->nr; j++)
			if (o->objs[j].t1 > next->start_time)
				o->objs[j].t1 = next->start_time;
	}
}

static int finish(struct hws_objects *o)
{
	end_images(o);
	hws__qsort(o->objs, o->nr, sizeof(*o->objs), cmp_obj);
	o->pmax = malloc((o->nr ? o->nr : 1) * sizeof(*o->pmax));
	if (!o->pmax)
		return -ENOMEM;
	for (size_t i = 0; i < o->nr; i++) {
		uint64_t e = o->objs[i].end;

		if (i && o->objs[i - 1].pid == o->objs[i].pid && o->pmax[i - 1] > e)
			e = o->pmax[i - 1];
		o->pmax[i] = e;
	}
	return 0;
}

/* one payload (file headers and records, repeated) into @o */
static int add_payload(struct hws_objects *o, const uint8_t *p, size_t len)
{
	while (len >= sizeof(struct hws_objfile)) {
		struct hws_objfile fh;
		uint64_t used;
		size_t n;
		int err;

		memcpy(&fh, p, sizeof(fh));
		if (memcmp(fh.magic, HWS_OBJFILE_MAGIC, 8) || fh.version < 1 ||
		    fh.version > HWS_OBJFILE_VERSION || fh.rec_size != sizeof(struct hws_objrec)) {
			o->bad++;
			return 0; /* nothing after it can be trusted */
		}
		used = fh.used < fh.capacity ? fh.used : fh.capacity;
		used -= used % sizeof(struct hws_objrec);
		p += sizeof(fh);
		len -= sizeof(fh);
		if (used > len) { /* cut short: what is there */
			o->bad++;
			used = len - len % sizeof(struct hws_objrec);
		}
		n = (size_t)(used / sizeof(struct hws_objrec));
		err = add_file(o, &fh, p, n);
		if (err)
			return err;
		p += used;
		len -= used;
	}
	if (len)
		o->bad++;
	return 0;
}

struct hws_objects *hws_objects__new(const void *data, size_t len)
{
	struct hws_objects *o = calloc(1, sizeof(*o));
	int err;

	if (!o)
		return NULL;
	o->tls = tls_syms__new();
	err = o->tls ? 0 : -ENOMEM;
	if (!err && data)
		err = add_payload(o, data, len);
	if (!err)
		err = finish(o);
	if (err) {
		hws_objects__delete(o);
		errno = -err;
		return NULL;
	}
	return o;
}

struct hws_objects *hws_objects__from_reader(const struct hws_perf_reader *r)
{
	size_t len = 0;
	const void *p = hws_perf_reader__feature(r, HWS_FEAT_HWS_OBJECTS, &len);

	if (!p) {
		errno = ENOENT;
		return NULL;
	}
	return hws_objects__new(p, len);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct hws_objects *hws_objects__from_dir(const char *dir)
{
	struct hws_objects *o;
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, an = 0;
	int err = 0;

	if (!d)
		return NULL;
	o = calloc(1, sizeof(*o));
	if (o && !(o->tls = tls_syms__new())) {
		free(o);
		o = NULL;
	}
	if (!o) {
		closedir(d);
		return NULL;
	}
	while (!err && (de = readdir(d))) {
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
		if (!names[nn])
			err = -ENOMEM;
		else
			nn++;
	}
	closedir(d);
	hws__qsort(names, nn, sizeof(*names), cmp_name);
	for (size_t i = 0; i < nn && !err; i++) {
		char path[4096];
		struct hws_objfile fh;
		struct stat st;
		void *m;
		int fd;

		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || (size_t)st.st_size < sizeof(fh) ||
		    pread(fd, &fh, sizeof(fh), 0) != (ssize_t)sizeof(fh)) {
			close(fd);
			o->bad++;
			continue;
		}
		/* only the records reserved: the rest of the file is a sparse hole */
		{
			uint64_t used = fh.used < fh.capacity ? fh.used : fh.capacity;
			size_t want = sizeof(fh) + (size_t)used;

			if (want > (size_t)st.st_size)
				want = (size_t)st.st_size;
			m = mmap(NULL, want, PROT_READ, MAP_PRIVATE, fd, 0);
			close(fd);
			if (m == MAP_FAILED) {
				o->bad++;
				continue;
			}
			err = add_payload(o, m, want);
			munmap(m, want);
		}
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	if (!err)
		err = finish(o);
	if (err) {
		hws_objects__delete(o);
		errno = -err;
		return NULL;
	}
	return o;
}

void hws_objects__delete(struct hws_objects *o)
{
	if (!o)
		return;
	free(o->objs);
	free(o->pmax);
	free(o->files);
	tls_syms__delete(o->tls);
	free(o);
}

size_t hws_objects__nr_objects(const struct hws_objects *o)
{
	return o ? o->nr : 0;
}

uint64_t hws_objects__nr_dropped(const struct hws_objects *o)
{
	return o ? o->dropped : 0;
}

uint64_t hws_objects__nr_bad(const struct hws_objects *o)
{
	return o ? o->bad : 0;
}

/* ---------------------------------------------------------------- lookup */

static void fill(struct hws_object *out, const struct obj *b, uint64_t addr)
{
	memset(out, 0, sizeof(*out));
	out->kind = b->kind;
	out->base = b->start;
	out->size = b->end - b->start;
	out->offset = addr - b->start;
	out->time = b->t0;
	out->tid = b->tid;
	out->nframes = b->kind == HWS_OBJ_STACK ? 0 : b->nframes;
	out->frames = b->frames;
}

/* the smallest object of @pid containing @addr alive at @t */
static const struct obj *find(const struct hws_objects *o, uint32_t pid, uint64_t addr, uint64_t t)
{
	size_t lo = 0, hi = o->nr;
	const struct obj *best = NULL;

	/* first index with (pid, start) > (pid, addr) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct obj *b = &o->objs[mid];

		if (b->pid < pid || (b->pid == pid && b->start <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct obj *b = &o->objs[i];

		if (b->pid != pid || o->pmax[i] <= addr)
			break;
		if (b->end > addr && b->t0 <= t && t < b->t1 &&
		    (!best || b->end - b->start < best->end - best->start))
			best = b;
	}
	return best;
}

static const struct obj *lookup(const struct hws_objects *o, uint32_t pid, uint64_t addr,
				uint64_t time)
{
	const struct obj *b;

	if (!o || !o->nr)
		return NULL;
	b = find(o, pid, addr, time);
	if (!b) {
		/* a forked child: the blocks its parent had when it started */
		for (size_t i = 0; i < o->nfiles && !b; i++) {
			const struct ofile *f = &o->files[i];

			if (f->pid == pid && f->ppid && f->ppid != pid && f->start_time <= time)
				b = find(o, f->ppid, addr, f->start_time);
		}
	}
	return b;
}

bool hws_objects__lookup(const struct hws_objects *o, uint32_t pid, uint64_t addr, uint64_t time,
			 struct hws_object *out)
{
	const struct obj *b = lookup(o, pid, addr, time);

	memset(out, 0, sizeof(*out));
	if (!b)
		return false;
	fill(out, b, addr);
	return true;
}

/* a thread's TLS block @b: the variable at @out->offset, from the STT_TLS symbols of the file
 * mapped at the module's TLS image (the block itself when there is none) */
static void tls_var(const struct hws_objects *o, struct hws_symbols *syms, uint32_t pid,
		    const struct obj *b, struct hws_object *out)
{
	struct hws_symbol sym;
	const char *name;
	uint64_t value, size;

	if (!syms || hws_symbols__resolve(syms, pid, b->image, true, &sym) < 0 || !sym.dso ||
	    !tls_syms__find(o->tls, sym.dso, out->offset, &name, &value, &size))
		return;
	out->dso = sym.dso;
	out->name = name;
	out->base = b->start + value;
	out->size = size;
	out->offset -= value;
}

bool hws_objects__attribute(const struct hws_objects *o, struct hws_symbols *syms,
			    const struct hws_sample *s, struct hws_object *out)
{
	struct hws_symbol sym;
	const struct obj *b;

	memset(out, 0, sizeof(*out));
	if (!(s->fields & HWS_SF_ADDR))
		return false;
	b = lookup(o, s->pid, s->addr, (s->fields & HWS_SF_TIME) ? s->time : 0);
	if (b) {
		fill(out, b, s->addr);
		if (out->kind == HWS_OBJ_TLS)
			tls_var(o, syms, s->pid, b, out);
		if (out->kind == HWS_OBJ_MMAP && syms &&
		    hws_symbols__resolve(syms, s->pid, s->addr, true, &sym) >= 0 && sym.dso)
			out->name = sym.dso;
		return true;
	}
	if (!syms || hws_symbols__resolve(syms, s->pid, s->addr, true, &sym) < 0 || !sym.dso)
		return false;
	if (sym.name && sym.kind == HWS_SYM_OBJECT) {
		out->kind = HWS_OBJ_STATIC;
		out->name = sym.name;
		out->dso = sym.dso;
		out->base = s->addr - sym.offset;
		out->size = sym.size;
		out->offset = sym.offset;
		return true;
	}
	if (!strcmp(sym.dso, "[stack]")) {
		out->kind = HWS_OBJ_STACK;
	} else if (sym.dso[0] == '/' && strncmp(sym.dso, "//", 2)) {
		out->kind = HWS_OBJ_MMAP;
		out->name = sym.dso;
		out->offset = sym.dso_addr; /* the address as the file sees it */
	} else if ((int64_t)s->addr >= 0) {
		out->kind = HWS_OBJ_ANON; /* extent unknown: no offset */
		out->name = sym.dso;	  /* [heap], //anon ... */
	} else {
		return false;
	}
	return true;
}

const char *hws_object__kind_name(int kind)
{
	static const char *const names[] = {"", "heap", "static", "tls", "stack", "mmap", "anon"};

	return kind >= 0 && kind < (int)ARRAY_SIZE(names) ? names[kind] : "";
}

int hws_object__site(const struct hws_object *obj, struct hws_symbols *syms, uint32_t pid,
		     struct hws_strbuf *sb)
{
	struct hws_symbol sym;
	uint64_t ip;

	if (!obj->nframes || !obj->frames)
		return 0;
	ip = obj->frames[0];
	if (syms && hws_symbols__resolve(syms, pid, ip, false, &sym) >= 0 && sym.name)
		return hws_strbuf__addf(sb, "%s+0x%" PRIx64, sym.name, sym.offset);
	return hws_strbuf__addf(sb, "0x%" PRIx64, ip);
}

int hws_object__label(const struct hws_object *obj, struct hws_symbols *syms, uint32_t pid,
		      bool with_size, struct hws_strbuf *sb)
{
	int err = hws_strbuf__addf(sb, "[%s] ", hws_object__kind_name(obj->kind));

	if (!err && obj->kind == HWS_OBJ_STACK)
		err = hws_strbuf__addf(sb, "tid %u", obj->tid);
	else if (!err && obj->nframes)
		err = hws_object__site(obj, syms, pid, sb);
	else if (!err && obj->name)
		err = hws_strbuf__addstr(sb, obj->name);
	if (!err && with_size && obj->size && obj->kind != HWS_OBJ_STACK &&
	    obj->kind != HWS_OBJ_MMAP)
		err = hws_strbuf__addf(sb, " (%" PRIu64 " bytes)", obj->size);
	return err;
}

/* @obj's frame @i as a JSON string */
static int frame_json(const struct hws_object *obj, uint32_t i, struct hws_symbols *syms,
		      uint32_t pid, struct hws_strbuf *sb)
{
	struct hws_object one = *obj;
	struct hws_strbuf t = HWS_STRBUF_INIT;
	int err;

	one.frames = &obj->frames[i];
	one.nframes = 1;
	err = hws_object__site(&one, syms, pid, &t);
	if (!err) /* escaped: names come from the file */
		err = hws_strbuf__add_json_str(sb, t.buf ? t.buf : "");
	hws_strbuf__release(&t);
	return err;
}

int hws_object__json(const struct hws_object *obj, struct hws_symbols *syms, uint32_t pid,
		     struct hws_strbuf *sb)
{
	int err;

	if (obj->kind == HWS_OBJ_NONE)
		return 0;
	err =
	    hws_strbuf__addf(sb, ",\"object\":{\"kind\":\"%s\"", hws_object__kind_name(obj->kind));
	if (!err && obj->nframes) {
		err = hws_strbuf__addstr(sb, ",\"site\":");
		if (!err)
			err = frame_json(obj, 0, syms, pid, sb);
	}
	if (!err && obj->name) {
		err = hws_strbuf__addstr(sb, ",\"name\":");
		if (!err)
			err = hws_strbuf__add_json_str(sb, obj->name);
	}
	/* extent unknown (a mapping known from the side-band only): no size, base, offset;
	 * a file's offset is its address as the file sees it */
	if (!err && obj->size)
		err = hws_strbuf__addf(
		    sb, ",\"size\":%" PRIu64 ",\"offset\":%" PRIu64 ",\"base\":\"0x%" PRIx64 "\"",
		    obj->size, obj->offset, obj->base);
	else if (!err && (obj->kind == HWS_OBJ_MMAP || obj->kind == HWS_OBJ_STATIC))
		err = hws_strbuf__addf(sb, ",\"offset\":%" PRIu64, obj->offset);
	if (!err && obj->nframes > 1) {
		err = hws_strbuf__addstr(sb, ",\"frames\":[");
		for (uint32_t i = 0; !err && i < obj->nframes; i++) {
			if (i)
				err = hws_strbuf__addstr(sb, ",");
			if (!err)
				err = frame_json(obj, i, syms, pid, sb);
		}
		if (!err)
			err = hws_strbuf__addstr(sb, "]");
	}
	if (!err)
		err = hws_strbuf__addstr(sb, "}");
	return err;
}

int hws_object__type(const struct hws_object *obj, struct hws_datatypes *dt,
		     struct hws_symbols *syms, uint32_t pid, struct hws_datatype *out)
{
	struct hws_symbol code;

	memset(out, 0, sizeof(*out));
	if (!dt || !syms || !obj || obj->kind != HWS_OBJ_HEAP || !obj->nframes || !obj->frames)
		return 0;
	if (hws_symbols__resolve(syms, pid, obj->frames[0], false, &code) < 0 || !code.dso ||
	    code.dso[0] != '/')
		return 0;
	return hws_datatypes__alloc(dt, code.dso, code.dso_addr, obj->offset, out);
}

int hws__objects_sample_type_code(const struct hws_objects *o, const struct hws_object *obj,
				  struct hws_datatypes *dt, struct hws_symbols *syms,
				  const struct hws_sample *s, const struct hws_symbol *code,
				  struct hws_datatype *out)
{
	struct hws_object own;
	int err = hws__datatypes_resolve_code(dt, syms, s, code, out);

	if (err || !(s->fields & HWS_SF_ADDR))
		return err;
	if (!obj) {
		if (!o || !hws_objects__attribute(o, syms, s, &own))
			return 0;
		obj = &own;
	}
	/* no answer from the instruction: a heap block's type from its allocation site */
	return hws_object__type(obj, dt, syms, s->pid, out);
}

int hws_objects__sample_type(const struct hws_objects *o, const struct hws_object *obj,
			     struct hws_datatypes *dt, struct hws_symbols *syms,
			     const struct hws_sample *s, struct hws_datatype *out)
{
	return hws__objects_sample_type_code(o, obj, dt, syms, s, NULL, out);
}
