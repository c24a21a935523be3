// SPDX-License-Identifier: MIT
/*
 * perf.data reader: file mode (PERFILE2, old 72-byte headers, PERFFILE v1) and pipe mode,
 * either byte order.
 *
 * Invariants:
 *  - Memory is bounded whatever the input: records are read through a window (grown only
 *    to hold one record, <= 64 KiB, or one read chunk), AUXTRACE / TRACING_DATA payloads
 *    above MAX_PAYLOAD (64 MiB) are skipped (payload NULL, payload_size still set), a
 *    feature larger than MAX_FEATURE (64 MiB) or past MAX_FEATURES_TOTAL (128 MiB) is
 *    ignored, at most MAX_ATTRS (4096) events and MAX_IDS (1M) ids are kept; the window
 *    is 1 MiB; the records of one zstd COMPRESSED record may expand to MAX_DECOMP (32 MiB).
 *    Typical files need a few MiB.
 *  - Every length read from the input is checked against what is left of its container
 *    (record, feature, file) before it is used; no loop runs more often than the input has
 *    bytes, so a corrupt file ends in an error, never a hang or an over-read.
 *  - Records handed out are 8-aligned and in host byte order: kernel records of a mapped
 *    regular file in place (HWS_PERF_REC_HDR_STABLE, see map_file()), others copied into
 *    an 8-aligned buffer valid until the next call.
 *    Byte swapping follows perf's intent: u64 fields swapped as u64, u32/u16 fields as
 *    such (pid/tid, cpu/res keep their place), RAW/AUX/stack/string bytes unchanged, RAW's
 *    u32 size swapped; attr flag bitfields are bit-reversed per byte (perf swap_bitfield).
 *  - The first error sticks: __next() keeps returning it; errmsg names offset and record.
 *  - A file-mode file is unfinished (check_unfinished()) only when its header cannot be
 *    the one of a finished recording: data size past the end of the file; feature bits
 *    whose index is not after the data; or no feature bits with attrs (perf and hwsample
 *    always write features when they finish) or with bytes after the data that no attr or
 *    ids section accounts for. Old 72-byte headers and pipes are never unfinished. In an
 *    unfinished file records are read past data.size to the end of the file (or to an attr
 *    or ids section after the data), and the first record cut short or not a record ends
 *    the data (cut_here()) instead of raising an error; the features are not read.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdint.h>
#include <unistd.h>

#include <hwsample/perfdata.h>

#include "util/internal.h"
#include "perfdata/perfdata_int.h"

#define WINDOW_SIZE (1u << 20)
#define MAX_RECORD (1u << 16)
#define MAX_PAYLOAD (64ull << 20)
#define MAX_FEATURE (64ull << 20)
#define MAX_ATTRS 4096
#define MAX_IDS (1u << 20)
#define MAX_FEATURES_TOTAL (128ull << 20)
#define MAX_CPUS	   65536
#define ID_CACHE 16 /* a power of two */

struct rattr {
	struct hws_perf_evattr ev;
	char *name;
	bool gen_name; /* generated from the attr, EVENT_DESC / EVENT_UPDATE may replace it */
	uint64_t *ids;
};

struct idmap {
	uint64_t id;
	int idx1;
};

struct rfeat {
	uint8_t *data; /* len + 1 bytes, the extra byte is 0 */
	size_t len;
};

struct pmu_map {
	uint32_t type;
	const char *name;
};

struct pmu_cap {
	const char *pmu, *name, *value;
};

struct hws_perf_reader {
	struct hws_perf_reader_opts opts;
	int fd;
	bool own_fd;
	bool pipe;   /* pipe-mode format (16-byte header, attrs as records) */
	bool stream; /* the fd cannot seek: read() sequentially */
	bool swap;
	int err;
	char errmsg[320];

	uint8_t *win;
	size_t win_cap;
	uint64_t win_off;
	size_t win_len;

	/* regular files: the whole file mapped read-only (map_len = file_size), NULL when
	 * mmap failed or the input is a stream; released: bytes before it were dropped from
	 * the mapping with MADV_DONTNEED (see hws_perf_reader__release()) */
	const uint8_t *map;
	size_t map_len;
	uint64_t released;

	uint64_t file_size;
	uint64_t pos;
	uint64_t data_end;
	/* what hws_perf_reader__next()'s short path may assume (fast_state()): records in place
	 * in the mapping up to fast_end (0: take the long way); the attr of every SAMPLE
	 * record, or ATTR_BY_ID: look it up by id (record_attr()) */
	uint64_t fast_end;
	int smp_attr;

	uint64_t *rec; /* one record, 8-aligned */
	uint8_t *payload;
	size_t payload_cap;

	struct rattr *attrs;
	int nr_attrs, attrs_cap;
	struct idmap *ids; /* hash table, see id_put() */
	size_t id_cap, nr_ids;
	int id_pos_attr; /* attr whose sample_type locates ids (perf: the first) */
	/* record_attr()'s cache of recent ids, direct-mapped by the id's low bits (files
	 * interleave a few events: loads and stores, one id per CPU): an entry is valid while
	 * its idx1 != 0 */
	struct {
		uint64_t id;
		int idx1;
	} idc[ID_CACHE];
	/* where the first attr's layout puts a record's id (set with attrs[0], see
	 * id_layout()): SAMPLE: bytes from the start; others: bytes back from the end; 0: none */
	uint16_t id_smp_off, id_end_off;

	struct rfeat feats[HWS_FEAT__MAX];
	uint64_t features[4];
	uint64_t feat_bytes; /* total kept, for MAX_FEATURES_TOTAL */

	struct pmu_map *pmus;
	size_t nr_pmus;
	struct pmu_cap *caps;
	size_t nr_caps;
	int16_t *cpu_node;
	int nr_cpu_node;

	/* decompressed records of PERF_RECORD_COMPRESSED (see decompress()) */
	uint8_t *dc;
	size_t dc_cap, dc_len, dc_pos;
	uint64_t dc_off; /* file offset of the COMPRESSED record they came from */
	void *zds;	 /* ZSTD_DStream */
	bool zstd_warned;

	/* file mode: why the file is unfinished (HWS_UNFINISHED_*, 0: finished) and what its
	 * header said; where its whole records end, once __next() got there (cut_known) */
	int unf;
	char unf_why[160];
	uint64_t hdr_data_off, hdr_data_size;
	uint64_t cut, cut_bytes;
	bool cut_known;

	struct hws_file_info fi;
	struct hws_time_conv tc;
	bool have_tc;
	uint64_t *aux_priv;
	uint8_t *tracing;
	uint64_t tracing_size;
};

/* ---------------------------------------------------------------- errors */

__attribute__((format(printf, 5, 6))) static int fail(struct hws_perf_reader *r, int err,
						      uint64_t off,
						      const struct perf_event_header *h,
						      const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->map) {
		/* a mapped file that shrank reads as zeros up to the end of its last page */
		struct stat st;
		size_t n = strlen(msg);

		if (!fstat(r->fd, &st) && (uint64_t)st.st_size < r->map_len && n < sizeof(msg))
			snprintf(msg + n, sizeof(msg) - n,
				 " (the file shrank from %zu to %llu bytes while being read)",
				 r->map_len, (unsigned long long)st.st_size);
	}
	if (h)
		snprintf(r->errmsg, sizeof(r->errmsg),
			 "offset %#llx: record %s (type %u) size %u: %s", (unsigned long long)off,
			 hws_record__type_name(h->type), h->type, h->size, msg);
	else
		snprintf(r->errmsg, sizeof(r->errmsg), "offset %#llx: %s",
			 (unsigned long long)off, msg);
	r->err = err;
	r->fast_end = 0; /* the short path of hws_perf_reader__next() checks no error */
	return err;
}

/* ---------------------------------------------------------------- input window */

/* Make [off, off + len) available; *p points at it. HWS_E_TRUNCATED if the input ends
 * first (*got says how many bytes there were). */
static int fetch(struct hws_perf_reader *r, uint64_t off, size_t len, const uint8_t **p,
		 size_t *got)
{
	*got = 0;
	if (r->map) {
		if (off >= r->map_len)
			return HWS_E_TRUNCATED;
		if (r->map_len - off < len) {
			*got = (size_t)(r->map_len - off);
			return HWS_E_TRUNCATED;
		}
		*p = r->map + off;
		*got = len;
		return 0;
	}
	if (off >= r->win_off && off - r->win_off <= r->win_len &&
	    r->win_len - (off - r->win_off) >= len) {
		*p = r->win + (off - r->win_off);
		*got = len;
		return 0;
	}
	if (len > r->win_cap) {
		size_t cap = r->win_cap;
		uint8_t *n;

		while (cap < len)
			cap *= 2;
		n = realloc(r->win, cap);
		if (!n)
			return -ENOMEM;
		r->win = n;
		r->win_cap = cap;
	}
	if (r->stream) {
		size_t keep;

		if (off < r->win_off)
			return -ESPIPE;
		if (off - r->win_off >= r->win_len) {
			/* skip forward: discard everything, then read and drop the gap */
			uint64_t gap = off - (r->win_off + r->win_len);

			r->win_off += r->win_len;
			r->win_len = 0;
			while (gap) {
				ssize_t n = read(r->fd, r->win,
						 gap < r->win_cap ? (size_t)gap : r->win_cap);

				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0)
					return -errno;
				if (n == 0)
					return HWS_E_TRUNCATED;
				gap -= (uint64_t)n;
				r->win_off += (uint64_t)n;
			}
		} else {
			keep = r->win_len - (size_t)(off - r->win_off);
			memmove(r->win, r->win + (off - r->win_off), keep);
			r->win_off = off;
			r->win_len = keep;
		}
		while (r->win_len < len) {
			ssize_t n = read(r->fd, r->win + r->win_len, r->win_cap - r->win_len);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			if (n == 0) {
				*got = r->win_len;
				return HWS_E_TRUNCATED;
			}
			r->win_len += (size_t)n;
		}
	} else {
		size_t want = r->win_cap;

		if (off >= r->file_size)
			return HWS_E_TRUNCATED;
		if (want > r->file_size - off)
			want = (size_t)(r->file_size - off);
		r->win_off = off;
		r->win_len = 0;
		while (r->win_len < want) {
			ssize_t n = pread(r->fd, r->win + r->win_len, want - r->win_len,
					  (off_t)(off + r->win_len));

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			if (n == 0)
				break;
			r->win_len += (size_t)n;
		}
		if (r->win_len < len) {
			*got = r->win_len;
			return HWS_E_TRUNCATED;
		}
	}
	*p = r->win + (off - r->win_off);
	*got = len;
	return 0;
}

/* Copy @len bytes at @off into @dst (any size, chunked through the window). */
static int copy_in(struct hws_perf_reader *r, uint64_t off, void *dst, uint64_t len)
{
	while (len) {
		size_t n = len > WINDOW_SIZE ? WINDOW_SIZE : (size_t)len, got;
		const uint8_t *p;
		int err = fetch(r, off, n, &p, &got);

		if (err)
			return err;
		if (dst) {
			memcpy(dst, p, n);
			dst = (uint8_t *)dst + n;
		}
		off += n;
		len -= n;
	}
	return 0;
}

/* ---------------------------------------------------------------- attrs and ids */

/* id -> event: open addressing, id_cap a power of two kept >= 2 x nr_ids (O(1) per id, so
 * a file with a million ids opens fast). idx1 = event index + 1; 0 marks a free slot. */
static size_t id_slot(uint64_t id, size_t cap)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id & (cap - 1);
}

static void id_put(struct idmap *t, size_t cap, uint64_t id, int idx1)
{
	size_t i = id_slot(id, cap);

	while (t[i].idx1 && t[i].id != id)
		i = (i + 1) & (cap - 1);
	t[i].id = id;
	t[i].idx1 = idx1; /* an id listed twice goes to the later event, as in perf's hash */
}

static int id_reserve(struct hws_perf_reader *r, size_t n)
{
	size_t cap = r->id_cap ? r->id_cap : 64;
	struct idmap *t;

	while (cap < 2 * n)
		cap *= 2;
	if (cap == r->id_cap)
		return 0;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < r->id_cap; i++)
		if (r->ids[i].idx1)
			id_put(t, cap, r->ids[i].id, r->ids[i].idx1);
	free(r->ids);
	r->ids = t;
	r->id_cap = cap;
	return 0;
}

static int add_ids(struct hws_perf_reader *r, int idx, const uint8_t *ids, uint64_t n)
{
	struct rattr *a = &r->attrs[idx];
	uint64_t *ai;

	if (!n)
		return 0;
	if (n > MAX_IDS || r->nr_ids + n > MAX_IDS)
		return HWS_E_TOO_BIG;
	if (id_reserve(r, (size_t)(r->nr_ids + n)))
		return -ENOMEM;
	ai = realloc(a->ids, (a->ev.nr_ids + n) * sizeof(*ai));
	if (!ai)
		return -ENOMEM;
	a->ids = ai;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t id = pd_get64(ids + 8 * i);

		if (r->swap)
			id = bswap_64(id);
		ai[a->ev.nr_ids + i] = id;
		id_put(r->ids, r->id_cap, id, idx + 1);
	}
	a->ev.nr_ids += n;
	a->ev.ids = ai;
	r->nr_ids += n;
	memset(r->idc, 0, sizeof(r->idc)); /* an id may have moved to this event */
	return 0;
}

/* Where records carry their id with @a0's sample_type (as hws_record__id() finds it). */
static void id_layout(struct hws_perf_reader *r, const struct hws_perf_event_attr *a0)
{
	uint64_t st = a0->sample_type;

	r->id_smp_off = r->id_end_off = 0;
	if (st & PERF_SAMPLE_IDENTIFIER)
		r->id_smp_off = 8;
	else if (st & PERF_SAMPLE_ID)
		r->id_smp_off = (uint16_t)(8 + 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
						    !!(st & PERF_SAMPLE_TIME) +
						    !!(st & PERF_SAMPLE_ADDR)));
	if (!a0->sample_id_all)
		return;
	if (st & PERF_SAMPLE_IDENTIFIER)
		r->id_end_off = 8;
	else if (st & PERF_SAMPLE_ID)
		r->id_end_off = (uint16_t)(8 + 8 * (!!(st & PERF_SAMPLE_STREAM_ID) +
						    !!(st & PERF_SAMPLE_CPU)));
}

/* Add an attr from @buf (@asz bytes on disk, file byte order; @buf is modified). */
static int add_attr(struct hws_perf_reader *r, uint8_t *buf, size_t asz)
{
	struct rattr *a, *na;
	size_t keep;

	if (r->nr_attrs >= MAX_ATTRS)
		return HWS_E_TOO_BIG;
	if (r->swap)
		hws__swap_attr(buf, asz, 1);
	if (r->nr_attrs == r->attrs_cap) { /* doubling: 4096 events stay cheap */
		int cap = r->attrs_cap ? r->attrs_cap * 2 : 8;

		na = realloc(r->attrs, sizeof(*na) * (size_t)cap);
		if (!na)
			return -ENOMEM;
		r->attrs = na;
		r->attrs_cap = cap;
	}
	na = r->attrs;
	a = &na[r->nr_attrs];
	memset(a, 0, sizeof(*a));
	keep = asz < sizeof(a->ev.attr) ? asz : sizeof(a->ev.attr);
	memcpy(&a->ev.attr, buf, keep);
	for (size_t i = keep; i < asz; i++)
		if (buf[i]) {
			pr_debug("perfdata: attr %d: ignoring non-zero bytes past %zu\n",
				 r->nr_attrs, keep);
			break;
		}
	a->ev.attr.size = sizeof(a->ev.attr);
	if (!r->nr_attrs)
		id_layout(r, &a->ev.attr);
	return r->nr_attrs++;
}

int hws_perf_reader__attr_by_id(const struct hws_perf_reader *r, uint64_t id)
{
	size_t i;

	if (!r || !r->id_cap)
		return -1;
	for (i = id_slot(id, r->id_cap); r->ids[i].idx1; i = (i + 1) & (r->id_cap - 1))
		if (r->ids[i].id == id)
			return r->ids[i].idx1 - 1;
	return -1;
}

/* Names: EVENT_DESC by index (as perf does), else generated from the attr. */
static int name_attrs(struct hws_perf_reader *r)
{
	for (int i = 0; i < r->nr_attrs; i++) {
		struct rattr *a = &r->attrs[i];
		const struct hws_perf_event_attr *at = &a->ev.attr;
		char buf[128];

		a->ev.pmu_name = hws_perf_reader__pmu_name(r, at->type);
		/* hybrid: generic HARDWARE/HW_CACHE events carry the PMU type in config[63:32] */
		if (!a->ev.pmu_name && (at->type == PERF_TYPE_HARDWARE ||
					at->type == PERF_TYPE_HW_CACHE) && (at->config >> 32))
			a->ev.pmu_name = hws_perf_reader__pmu_name(r, (uint32_t)(at->config >> 32));
		if (a->name)
			continue;
		hws__attr_default_name(at, a->ev.pmu_name, buf, sizeof(buf));
		a->name = strdup(buf);
		if (!a->name)
			return -ENOMEM;
		a->gen_name = true;
	}
	for (int i = 0; i < r->nr_attrs; i++)
		r->attrs[i].ev.name = r->attrs[i].name;
	return 0;
}

static void set_attr_name(struct hws_perf_reader *r, int idx, const char *name, size_t max)
{
	char *n;

	if (idx < 0 || idx >= r->nr_attrs || !max)
		return;
	n = strndup(name, max);
	if (!n)
		return;
	free(r->attrs[idx].name);
	r->attrs[idx].name = n;
	r->attrs[idx].ev.name = n;
	r->attrs[idx].gen_name = false;
}

/* ---------------------------------------------------------------- feature byte swap */

struct fcur {
	uint8_t *p;
	size_t left;
	int to_host;
};

static int f_u32(struct fcur *c, uint32_t *v)
{
	uint32_t x;

	if (c->left < 4)
		return HWS_E_BADREC;
	x = pd_get32(c->p);
	pd_swap32(c->p);
	if (v)
		*v = c->to_host ? bswap_32(x) : x;
	c->p += 4;
	c->left -= 4;
	return 0;
}

static int f_u64(struct fcur *c, uint64_t *v)
{
	uint64_t x;

	if (c->left < 8)
		return HWS_E_BADREC;
	x = pd_get64(c->p);
	pd_swap64(c->p);
	if (v)
		*v = c->to_host ? bswap_64(x) : x;
	c->p += 8;
	c->left -= 8;
	return 0;
}

static int f_u16(struct fcur *c, uint16_t *v)
{
	uint16_t x;

	if (c->left < 2)
		return HWS_E_BADREC;
	memcpy(&x, c->p, 2);
	pd_swap16(c->p);
	if (v)
		*v = c->to_host ? bswap_16(x) : x;
	c->p += 2;
	c->left -= 2;
	return 0;
}

static int f_skip(struct fcur *c, uint64_t n)
{
	if (n > c->left)
		return HWS_E_BADREC;
	c->p += n;
	c->left -= n;
	return 0;
}

static int f_str(struct fcur *c)
{
	uint32_t len;

	return f_u32(c, &len) ? HWS_E_BADREC : f_skip(c, len);
}

/* u32 nr; nr strings */
static int f_strlist(struct fcur *c)
{
	uint32_t nr;

	if (f_u32(c, &nr))
		return HWS_E_BADREC;
	for (uint32_t i = 0; i < nr; i++)
		if (f_str(c))
			return HWS_E_BADREC;
	return 0;
}

static void f_rest32(struct fcur *c)
{
	while (c->left >= 4)
		f_u32(c, NULL);
}

static void f_rest64(struct fcur *c)
{
	while (c->left >= 8)
		f_u64(c, NULL);
}

static int swap_cpu_map(struct fcur *c)
{
	uint16_t type, nr, lsz;

	if (f_u16(c, &type))
		return HWS_E_BADREC;
	switch (type) {
	case 0: /* cpus: u16 nr, u16 cpu[] */
		if (f_u16(c, &nr))
			return HWS_E_BADREC;
		for (uint16_t i = 0; i < nr; i++)
			if (f_u16(c, NULL))
				return HWS_E_BADREC;
		return 0;
	case 1: /* mask: u16 nr, u16 long_size, then u32[] (4) or u64[] at 8-aligned offset */
		if (f_u16(c, &nr) || f_u16(c, &lsz))
			return HWS_E_BADREC;
		if (lsz == 8) {
			if (f_skip(c, 2))
				return HWS_E_BADREC;
			f_rest64(c);
		} else {
			f_rest32(c);
		}
		return 0;
	case 2: /* range: u8 any_cpu, u8 pad, u16 start, u16 end */
		if (f_skip(c, 2) || f_u16(c, NULL) || f_u16(c, NULL))
			return HWS_E_BADREC;
		return 0;
	default:
		return HWS_E_BADREC;
	}
}

void hws__swap_attr(void *attr, size_t avail, int to_host)
{
	static const struct {
		uint8_t off, len;
	} fields[] = {
		{ 8, 8 },   { 16, 8 },	{ 24, 8 },  { 32, 8 },	{ 48, 4 },  { 52, 4 },
		{ 56, 8 },  { 64, 8 },	{ 72, 8 },  { 80, 8 },	{ 88, 4 },  { 92, 4 },
		{ 96, 8 },  { 104, 4 }, { 108, 2 }, { 110, 2 }, { 112, 4 }, { 116, 4 },
		{ 120, 8 }, { 128, 8 }, { 136, 8 },
	};
	uint8_t *a = attr;
	uint32_t size;

	if (avail < 8)
		return;
	size = pd_get32(a + 4);
	pd_swap32(a);
	pd_swap32(a + 4);
	if (to_host)
		size = bswap_32(size);
	if (size == 0)
		size = PERF_ATTR_SIZE_VER0;
	if (size > avail)
		size = (uint32_t)avail;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (fields[i].off + fields[i].len > size)
			continue;
		if (fields[i].len == 8)
			pd_swap64(a + fields[i].off);
		else if (fields[i].len == 4)
			pd_swap32(a + fields[i].off);
		else
			pd_swap16(a + fields[i].off);
	}
	/* flags bitfield: bit order reverses with byte order (perf swap_bitfield) */
	if (size >= 48) {
		for (int i = 40; i < 48; i++) {
			uint8_t b = a[i];

			b = (uint8_t)((b >> 4) | (b << 4));
			b = (uint8_t)(((b & 0xcc) >> 2) | ((b & 0x33) << 2));
			b = (uint8_t)(((b & 0xaa) >> 1) | ((b & 0x55) << 1));
			a[i] = b;
		}
	}
}

int hws__swap_feature(int feat, void *buf, size_t len, int to_host)
{
	struct fcur c = { buf, len, to_host };
	uint32_t nr, n2;

	switch (feat) {
	case -HWS_RECORD_CPU_MAP:
		return swap_cpu_map(&c);
	case HWS_FEAT_HOSTNAME:
	case HWS_FEAT_OSRELEASE:
	case HWS_FEAT_VERSION:
	case HWS_FEAT_ARCH:
	case HWS_FEAT_CPUDESC:
	case HWS_FEAT_CPUID:
		return f_str(&c);
	case HWS_FEAT_NRCPUS:
	case HWS_FEAT_COMPRESSED:
		f_rest32(&c);
		return 0;
	case HWS_FEAT_TOTAL_MEM:
	case HWS_FEAT_CLOCKID:
	case HWS_FEAT_AUXTRACE:
	case HWS_FEAT_SAMPLE_TIME:
	case HWS_FEAT_MEM_TOPOLOGY:
	case HWS_FEAT_DIR_FORMAT:
		f_rest64(&c);
		return 0;
	case HWS_FEAT_CMDLINE:
		return f_strlist(&c);
	case HWS_FEAT_EVENT_DESC: {
		uint32_t asz;

		if (f_u32(&c, &nr) || f_u32(&c, &asz) || asz < 8)
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++) {
			if (c.left < asz)
				return HWS_E_BADREC;
			hws__swap_attr(c.p, asz, to_host);
			if (f_skip(&c, asz) || f_u32(&c, &n2) || f_str(&c))
				return HWS_E_BADREC;
			if (n2 > c.left / 8)
				return HWS_E_BADREC;
			for (uint32_t j = 0; j < n2; j++)
				f_u64(&c, NULL);
		}
		return 0;
	}
	case HWS_FEAT_CPU_TOPOLOGY:
		/* package and core lists; the per-CPU ids after them are u32s (die lists, if
		 * any, come after the per-CPU part and need nr_cpus: left as u32s, a gap) */
		if (f_strlist(&c) || f_strlist(&c))
			return HWS_E_BADREC;
		f_rest32(&c);
		return 0;
	case HWS_FEAT_NUMA_TOPOLOGY:
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_u32(&c, NULL) || f_u64(&c, NULL) || f_u64(&c, NULL) || f_str(&c))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_PMU_MAPPINGS:
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_u32(&c, NULL) || f_str(&c))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_GROUP_DESC:
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_str(&c) || f_u32(&c, NULL) || f_u32(&c, NULL))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_CACHE:
		if (f_u32(&c, NULL) || f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_u32(&c, NULL) || f_u32(&c, NULL) || f_u32(&c, NULL) ||
			    f_u32(&c, NULL) || f_str(&c) || f_str(&c) || f_str(&c))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_CLOCK_DATA:
		if (f_u32(&c, NULL) || f_u32(&c, NULL))
			return HWS_E_BADREC;
		f_rest64(&c);
		return 0;
	case HWS_FEAT_CPU_PMU_CAPS:
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_str(&c) || f_str(&c))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_HYBRID_TOPOLOGY:
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_str(&c) || f_str(&c))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_PMU_CAPS:
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++) {
			if (f_u32(&c, &n2))
				return HWS_E_BADREC;
			for (uint32_t j = 0; j < n2; j++)
				if (f_str(&c) || f_str(&c))
					return HWS_E_BADREC;
			if (f_str(&c))
				return HWS_E_BADREC;
		}
		return 0;
	case HWS_FEAT_BUILD_ID:
		/* a list of BUILD_ID records: header {u32 type; u16 misc; u16 size}, pid */
		while (c.left >= 12) {
			uint16_t sz;

			f_u32(&c, NULL);
			f_u16(&c, NULL);
			f_u16(&c, &sz);
			f_u32(&c, NULL);
			if (sz < 12 || f_skip(&c, sz - 12u))
				return HWS_E_BADREC;
		}
		return 0;
	default:
		return 0; /* TRACING_DATA, BPF_*, STAT, BRANCH_STACK...: left as bytes */
	}
}

/* ---------------------------------------------------------------- features */

/* Cursor over a host-order feature payload (read only). */
struct rcur {
	const uint8_t *p;
	size_t left;
};

static int r_u32(struct rcur *c, uint32_t *v)
{
	if (c->left < 4)
		return HWS_E_BADREC;
	*v = pd_get32(c->p);
	c->p += 4;
	c->left -= 4;
	return 0;
}

static int r_u64(struct rcur *c, uint64_t *v)
{
	if (c->left < 8)
		return HWS_E_BADREC;
	*v = pd_get64(c->p);
	c->p += 8;
	c->left -= 8;
	return 0;
}

/* A feature string: pointer into the payload; may be unterminated inside len, so it is
 * copied into @out (NUL-terminated, truncated to @outlen). */
static int r_str(struct rcur *c, const char **s, size_t *slen)
{
	uint32_t len;

	if (r_u32(c, &len) || len > c->left)
		return HWS_E_BADREC;
	*s = (const char *)c->p;
	*slen = strnlen(*s, len);
	c->p += len;
	c->left -= len;
	return 0;
}

static char *r_strdup(struct rcur *c)
{
	const char *s;
	size_t n;

	if (r_str(c, &s, &n))
		return NULL;
	return strndup(s, n);
}

static int parse_pmu_mappings(struct hws_perf_reader *r, const struct rfeat *f)
{
	struct rcur c = { f->data, f->len };
	uint32_t nr;

	if (r_u32(&c, &nr) || nr > c.left / 8)
		return HWS_E_BADREC;
	r->pmus = calloc(nr + 1, sizeof(*r->pmus));
	if (!r->pmus)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t type;
		char *n;

		if (r_u32(&c, &type))
			return HWS_E_BADREC;
		n = r_strdup(&c);
		if (!n)
			return HWS_E_BADREC;
		r->pmus[r->nr_pmus].type = type;
		r->pmus[r->nr_pmus++].name = n;
	}
	return 0;
}

static int add_cap(struct hws_perf_reader *r, const char *pmu, struct rcur *c, size_t max)
{
	char *n = r_strdup(c), *v = n ? r_strdup(c) : NULL;

	if (!n || !v || r->nr_caps >= max) {
		free(n);
		free(v);
		return HWS_E_BADREC;
	}
	r->caps[r->nr_caps].pmu = pmu;
	r->caps[r->nr_caps].name = n;
	r->caps[r->nr_caps++].value = v;
	return 0;
}

static const char cpu_pmu[] = "cpu"; /* CPU_PMU_CAPS entries point here (not freed) */

static void free_caps(struct hws_perf_reader *r)
{
	for (size_t i = 0; i < r->nr_caps; i++) {
		free((char *)r->caps[i].name);
		free((char *)r->caps[i].value);
		if (r->caps[i].pmu && r->caps[i].pmu != cpu_pmu &&
		    (i + 1 == r->nr_caps || r->caps[i + 1].pmu != r->caps[i].pmu))
			free((char *)r->caps[i].pmu);
	}
	free(r->caps);
	r->caps = NULL;
	r->nr_caps = 0;
}

static int parse_caps(struct hws_perf_reader *r)
{
	const struct rfeat *pc = &r->feats[HWS_FEAT_PMU_CAPS];
	const struct rfeat *cc = &r->feats[HWS_FEAT_CPU_PMU_CAPS];
	size_t max = (pc->len + cc->len) / 8 + 1;
	uint32_t nr, nc;
	struct rcur c;

	if (!pc->data && !cc->data)
		return 0;
	r->caps = calloc(max, sizeof(*r->caps));
	if (!r->caps)
		return -ENOMEM;
	if (cc->data) {
		c.p = cc->data;
		c.left = cc->len;
		if (!r_u32(&c, &nc))
			for (uint32_t i = 0; i < nc; i++)
				if (add_cap(r, cpu_pmu, &c, max))
					break;
	}
	if (pc->data) {
		c.p = pc->data;
		c.left = pc->len;
		if (r_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++) {
			size_t first = r->nr_caps;
			char *pmu;

			if (r_u32(&c, &nc) || nc > c.left / 8)
				return HWS_E_BADREC;
			for (uint32_t j = 0; j < nc; j++)
				if (add_cap(r, NULL, &c, max))
					return HWS_E_BADREC;
			pmu = r_strdup(&c);
			if (!pmu)
				return HWS_E_BADREC;
			if (first == r->nr_caps) {
				free(pmu);
				continue;
			}
			/* the first cap of a PMU owns the name string (freed via it) */
			for (size_t k = first; k < r->nr_caps; k++)
				r->caps[k].pmu = pmu;
		}
	}
	return 0;
}

static void cpulist_apply(struct hws_perf_reader *r, const char *s, size_t len, int node)
{
	const char *end = s + len;

	while (s < end && *s) {
		char *e;
		long a = strtol(s, &e, 10), b;

		if (e == s || e > end)
			break;
		b = a;
		if (e < end && *e == '-') {
			const char *t = e + 1;

			b = strtol(t, &e, 10);
			if (e == t || e > end)
				break;
		}
		for (long cpu = a < 0 ? 0 : a; cpu <= b && cpu < MAX_CPUS; cpu++) {
			if (cpu >= r->nr_cpu_node) {
				int n = (int)cpu + 64;
				int16_t *m = realloc(r->cpu_node, sizeof(*m) * (size_t)n);

				if (!m)
					return;
				for (int i = r->nr_cpu_node; i < n; i++)
					m[i] = -1;
				r->cpu_node = m;
				r->nr_cpu_node = n;
			}
			r->cpu_node[cpu] = (int16_t)node;
		}
		if (e >= end || *e != ',')
			break;
		s = e + 1;
	}
}

static int parse_numa(struct hws_perf_reader *r, const struct rfeat *f)
{
	struct rcur c = { f->data, f->len };
	uint32_t nr;

	if (r_u32(&c, &nr))
		return HWS_E_BADREC;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t node;
		uint64_t t, fr;
		const char *s;
		size_t n;

		if (r_u32(&c, &node) || r_u64(&c, &t) || r_u64(&c, &fr) || r_str(&c, &s, &n))
			return HWS_E_BADREC;
		if (node < 32768)
			cpulist_apply(r, s, n, (int)node);
	}
	return 0;
}

static int parse_event_desc(struct hws_perf_reader *r, const struct rfeat *f)
{
	struct rcur c = { f->data, f->len };
	uint32_t nr, asz;

	if (r_u32(&c, &nr) || r_u32(&c, &asz) || asz > c.left)
		return HWS_E_BADREC;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids;
		const char *s;
		size_t n;

		if (asz > c.left)
			return HWS_E_BADREC;
		c.p += asz;
		c.left -= asz;
		if (r_u32(&c, &nids) || r_str(&c, &s, &n) || nids > c.left / 8)
			return HWS_E_BADREC;
		c.p += (size_t)nids * 8;
		c.left -= (size_t)nids * 8;
		if ((int)i < r->nr_attrs && n && (!r->attrs[i].name || r->attrs[i].gen_name))
			set_attr_name(r, (int)i, s, n);
	}
	return 0;
}

/* Store a feature payload (file order in @data, swapped here). Takes ownership. */
static void store_feature(struct hws_perf_reader *r, int feat, uint8_t *data, size_t len)
{
	if (r->feat_bytes + len > MAX_FEATURES_TOTAL) {
		pr_warn("header feature %d of the input dropped: its features pass %llu MiB\n",
			feat, MAX_FEATURES_TOTAL >> 20);
		free(data);
		return;
	}
	r->feat_bytes += len;
	if (r->swap && hws__swap_feature(feat, data, len, 1))
		pr_debug("perfdata: feature %d: malformed, partly swapped\n", feat);
	if (r->feats[feat].data)
		r->feat_bytes -= r->feats[feat].len;
	free(r->feats[feat].data);
	r->feats[feat].data = data;
	r->feats[feat].len = len;
	data[len] = 0;
	r->features[feat / 64] |= 1ULL << (feat % 64);
}

/* Interpret the features the reader uses itself. Malformed ones are ignored. */
static void digest_features(struct hws_perf_reader *r)
{
	if (r->feats[HWS_FEAT_PMU_MAPPINGS].data && !r->pmus &&
	    parse_pmu_mappings(r, &r->feats[HWS_FEAT_PMU_MAPPINGS]))
		pr_debug("perfdata: malformed PMU_MAPPINGS\n");
	if (!r->caps && parse_caps(r))
		pr_debug("perfdata: malformed PMU_CAPS\n");
	if (r->feats[HWS_FEAT_NUMA_TOPOLOGY].data && !r->cpu_node &&
	    parse_numa(r, &r->feats[HWS_FEAT_NUMA_TOPOLOGY]))
		pr_debug("perfdata: malformed NUMA_TOPOLOGY\n");
	if (r->feats[HWS_FEAT_EVENT_DESC].data &&
	    parse_event_desc(r, &r->feats[HWS_FEAT_EVENT_DESC]))
		pr_debug("perfdata: malformed EVENT_DESC\n");
	if (r->feats[HWS_FEAT_TRACING_DATA].data && !r->tracing) { /* re-pointed each time */
		r->fi.tracing_data = r->feats[HWS_FEAT_TRACING_DATA].data;
		r->fi.tracing_data_size = r->feats[HWS_FEAT_TRACING_DATA].len;
	}
	name_attrs(r);
}

static int read_features(struct hws_perf_reader *r, const struct hws_file_header *h)
{
	struct hws_file_section *secs;
	uint64_t off = h->data.offset + h->data.size;
	int nr = 0, n = 0, err = 0;

	for (int f = 0; f < HWS_FEAT__MAX; f++)
		nr += (h->adds_features[f / 64] >> (f % 64)) & 1;
	if (!nr)
		return 0;
	if (off > r->file_size || (uint64_t)nr * sizeof(*secs) > r->file_size - off) {
		pr_warn("the input's feature index lies past its end: header features ignored\n");
		return 0;
	}
	secs = calloc((size_t)nr, sizeof(*secs));
	if (!secs)
		return -ENOMEM;
	err = copy_in(r, off, secs, (uint64_t)nr * sizeof(*secs));
	if (err)
		goto out;
	for (int f = 0; f < HWS_FEAT__MAX; f++) {
		struct hws_file_section s;
		uint8_t *d;

		if (!((h->adds_features[f / 64] >> (f % 64)) & 1))
			continue;
		s = secs[n++];
		if (r->swap) {
			s.offset = bswap_64(s.offset);
			s.size = bswap_64(s.size);
		}
		if (f == 0 || s.offset > r->file_size || s.size > r->file_size - s.offset) {
			pr_debug("perfdata: feature %d: section outside the file\n", f);
			continue;
		}
		if (s.size > MAX_FEATURE) {
			pr_warn("header feature %d of the input is %llu bytes: too big, ignored\n",
				f, (unsigned long long)s.size);
			continue;
		}
		d = malloc((size_t)s.size + 1);
		if (!d) {
			err = -ENOMEM;
			goto out;
		}
		err = copy_in(r, s.offset, d, s.size);
		if (err) {
			free(d);
			err = 0;
			continue;
		}
		store_feature(r, f, d, (size_t)s.size);
	}
out:
	free(secs);
	return err;
}

/* ---------------------------------------------------------------- open */

/* An attr or ids section of the file (check_unfinished() looks at what follows the data). */
struct sect {
	uint64_t off, end;
};

static int sect_cmp(const void *a, const void *b)
{
	const struct sect *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Read the attr section and the ids of each attr; *secs (caller frees) gets the attr
 * section and every non-empty ids section, *nr_secs how many. */
static int read_file_attrs(struct hws_perf_reader *r, const struct hws_file_header *h,
			   struct sect **secs, size_t *nr_secs)
{
	uint64_t off = 0, end = h->attrs.size;
	uint8_t *sec, buf[4096];
	int ret = 0;

	if (h->attrs.offset > r->file_size || h->attrs.size > r->file_size - h->attrs.offset)
		return fail(r, HWS_E_BAD_FILE, 0, NULL, "attr section outside the file");
	if (h->attrs.size > (uint64_t)MAX_ATTRS * (sizeof(buf) + 16))
		return fail(r, HWS_E_TOO_BIG, 24, NULL, "attr section of %llu bytes",
			    (unsigned long long)h->attrs.size);
	/* the whole section at once, so the window can serve the ids sections */
	sec = malloc((size_t)end + 1);
	/* one entry per attr (at least PERF_ATTR_SIZE_VER0 + 16 bytes each) and the section */
	*secs = malloc((size_t)(end / (PERF_ATTR_SIZE_VER0 + 16) + 1) * sizeof(**secs));
	*nr_secs = 0;
	if (!sec || !*secs) {
		free(sec);
		return -ENOMEM;
	}
	if (end)
		(*secs)[(*nr_secs)++] = (struct sect){h->attrs.offset, h->attrs.offset + end};
	if (copy_in(r, h->attrs.offset, sec, end)) {
		ret = fail(r, HWS_E_BAD_FILE, h->attrs.offset, NULL, "cannot read the attrs");
		goto out;
	}
	while (off < end) {
		struct hws_file_section ids;
		uint64_t at = h->attrs.offset + off;
		uint32_t asz;
		uint64_t nids;
		uint8_t *idbuf;
		int idx, err;

		if (end - off < PERF_ATTR_SIZE_VER0 + sizeof(ids)) {
			ret = fail(r, HWS_E_BAD_FILE, at, NULL, "short attr in the attr section");
			goto out;
		}
		asz = pd_get32(sec + off + 4);
		if (r->swap)
			asz = bswap_32(asz);
		if (asz == 0)
			asz = PERF_ATTR_SIZE_VER0;
		if (asz < PERF_ATTR_SIZE_VER0 || asz > sizeof(buf) || end - off < asz + sizeof(ids)) {
			ret = fail(r, HWS_E_BAD_FILE, at, NULL, "attr size %u is invalid", asz);
			goto out;
		}
		memcpy(buf, sec + off, asz);
		memcpy(&ids, sec + off + asz, sizeof(ids));
		if (r->swap) {
			ids.offset = bswap_64(ids.offset);
			ids.size = bswap_64(ids.size);
		}
		idx = add_attr(r, buf, asz);
		if (idx < 0) {
			ret = fail(r, idx, at, NULL, "too many attrs");
			goto out;
		}
		nids = ids.size / 8;
		if (ids.offset > r->file_size || ids.size > r->file_size - ids.offset) {
			ret = fail(r, HWS_E_BAD_FILE, at, NULL, "attr %d: ids outside the file", idx);
			goto out;
		}
		if (nids > MAX_IDS) {
			ret = fail(r, HWS_E_TOO_BIG, at, NULL, "attr %d: too many ids", idx);
			goto out;
		}
		if (ids.size)
			(*secs)[(*nr_secs)++] = (struct sect){ids.offset, ids.offset + ids.size};
		idbuf = malloc(nids * 8 + 1);
		if (!idbuf) {
			ret = -ENOMEM;
			goto out;
		}
		err = copy_in(r, ids.offset, idbuf, nids * 8);
		if (!err)
			err = add_ids(r, idx, idbuf, nids);
		free(idbuf);
		if (err) {
			ret = fail(r, err, ids.offset, NULL, "attr %d: cannot read ids", idx);
			goto out;
		}
		/* perf walks the section by each attr's own size */
		off += asz + sizeof(ids);
	}
out:
	free(sec);
	return ret;
}

/* Detect PERFFILE (v1) endianness by attr_size as perf does. */
static int v1_endian(uint64_t attr_size, bool *swap)
{
	static const uint64_t sizes[] = { PERF_ATTR_SIZE_VER0 + 16, PERF_ATTR_SIZE_VER1 + 16,
					  PERF_ATTR_SIZE_VER2 + 16, PERF_ATTR_SIZE_VER3 + 16 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (attr_size == sizes[i]) {
			*swap = false;
			return 0;
		}
		if (bswap_64(attr_size) == sizes[i]) {
			*swap = true;
			return 0;
		}
	}
	return HWS_E_BAD_FILE;
}

/* The feature index that bits in @h announce is right after the data: it fits in the file
 * and its first section lies after it, within the file. (A file whose recorder was killed
 * has records there, or nothing: perf writes its feature bits at the start.) */
static bool feature_index_ok(struct hws_perf_reader *r, const struct hws_file_header *h,
			     uint64_t dend)
{
	struct hws_file_section s;
	int nr = 0;

	for (int f = 0; f < HWS_FEAT__MAX; f++)
		nr += (h->adds_features[f / 64] >> (f % 64)) & 1;
	if (dend > r->file_size || (uint64_t)nr * sizeof(s) > r->file_size - dend ||
	    copy_in(r, dend, &s, sizeof(s)))
		return false;
	if (r->swap) {
		s.offset = bswap_64(s.offset);
		s.size = bswap_64(s.size);
	}
	return s.offset >= dend && s.offset <= r->file_size && s.size <= r->file_size - s.offset;
}

/*
 * Is the file unfinished (see the head comment)? If so, say why, and read its records up
 * to the end of the file or the first attr or ids section after the data (@secs, sorted
 * here), whichever comes first.
 */
static void check_unfinished(struct hws_perf_reader *r, const struct hws_file_header *h,
			     struct sect *secs, size_t nr)
{
	uint64_t dend = h->data.offset + h->data.size, at = dend, end = r->file_size;
	bool feats =
	    h->adds_features[0] | h->adds_features[1] | h->adds_features[2] | h->adds_features[3];
	const char *why;

	qsort(secs, nr, sizeof(*secs), sect_cmp);
	/* the bytes after the data that attr and ids sections account for */
	for (size_t i = 0; i < nr; i++)
		if (secs[i].off <= at && secs[i].end > at)
			at = secs[i].end;
	if (dend > r->file_size)
		r->unf = HWS_UNFINISHED_PAST_EOF;
	else if (feats ? !feature_index_ok(r, h, dend) : h->attrs.size || at < r->file_size)
		r->unf = h->data.size ? HWS_UNFINISHED_NO_FEATURES : HWS_UNFINISHED_DATA_SIZE_0;
	if (!r->unf)
		return;
	if (r->unf == HWS_UNFINISHED_PAST_EOF)
		why = "data size past the end of the file: cut short, or the recorder did not "
		      "finish";
	else if (r->unf == HWS_UNFINISHED_DATA_SIZE_0)
		why = "data size 0: the recorder did not finish, killed?";
	else
		why = "no header features after the data: the recorder did not finish, killed? "
		      "disk full?";
	snprintf(r->unf_why, sizeof(r->unf_why), "%s", why);
	for (size_t i = 0; i < nr; i++)
		if (secs[i].off >= dend && secs[i].off < end)
			end = secs[i].off;
	r->data_end = end > h->data.offset ? end : h->data.offset;
}

static int open_header(struct hws_perf_reader *r)
{
	struct sect *secs = NULL;
	size_t nr_secs = 0;
	struct hws_file_header h;
	const uint8_t *p;
	size_t got;
	uint64_t magic, hsize;
	int err;

	err = fetch(r, 0, 16, &p, &got);
	if (err)
		return fail(r, err == HWS_E_TRUNCATED ? HWS_E_BAD_FILE : err, 0, NULL,
			    "file too short for a perf.data header (%zu bytes)", got);
	magic = pd_get64(p);
	hsize = pd_get64(p + 8);
	if (magic == PERF_MAGIC2) {
		r->swap = false;
	} else if (magic == bswap_64(PERF_MAGIC2)) {
		r->swap = true;
	} else if (magic == PERF_MAGIC1 || magic == bswap_64(PERF_MAGIC1)) {
		r->swap = false; /* decided below from attr_size */
	} else {
		return fail(r, HWS_E_BAD_FILE, 0, NULL, "bad magic %#llx: not a perf.data file",
			    (unsigned long long)magic);
	}
	if (r->swap)
		hsize = bswap_64(hsize);
	if (hsize == PERF_PIPE_HEADER_SIZE && magic != PERF_MAGIC1 &&
	    magic != bswap_64(PERF_MAGIC1)) {
		r->pipe = true;
		r->pos = PERF_PIPE_HEADER_SIZE;
		r->data_end = r->stream ? UINT64_MAX : r->file_size;
		return 0;
	}
	if (r->stream)
		return fail(r, HWS_E_BAD_FILE, 0, NULL,
			    "file-mode perf.data on a pipe: save it to a file first");
	if (hsize != PERF_FILE_HEADER_SIZE && hsize != PERF_FILE_HEADER_SIZE_OLD &&
	    !(magic == PERF_MAGIC1 || magic == bswap_64(PERF_MAGIC1)))
		return fail(r, HWS_E_BAD_FILE, 8, NULL, "header size %llu is invalid",
			    (unsigned long long)hsize);
	memset(&h, 0, sizeof(h));
	if (hsize > sizeof(h))
		hsize = sizeof(h);
	if (copy_in(r, 0, &h, hsize < PERF_FILE_HEADER_SIZE_OLD ? PERF_FILE_HEADER_SIZE_OLD : hsize))
		return fail(r, HWS_E_BAD_FILE, 0, NULL, "file too short for its header");
	if (magic == PERF_MAGIC1 || magic == bswap_64(PERF_MAGIC1)) {
		if (v1_endian(h.attr_size, &r->swap))
			return fail(r, HWS_E_BAD_FILE, 16, NULL, "PERFFILE v1: unknown attr_size");
		hsize = PERF_FILE_HEADER_SIZE_OLD;
		memset(h.adds_features, 0, sizeof(h.adds_features));
	}
	if (r->swap)
		pd_swap64_array(&h, sizeof(h) / 8);
	if (hsize == PERF_FILE_HEADER_SIZE_OLD)
		memset(h.adds_features, 0, sizeof(h.adds_features));
	if (h.attr_size == 0)
		return fail(r, HWS_E_BAD_FILE, 16, NULL, "attr_size is 0");
	if ((h.attrs.size && h.attrs.offset < hsize) || (h.data.size && h.data.offset < hsize))
		return fail(r, HWS_E_BAD_FILE, 24, NULL, "sections overlap the file header");
	if (h.attrs.size && h.data.size && h.attrs.offset < h.data.offset + h.data.size &&
	    h.data.offset < h.attrs.offset + h.attrs.size)
		return fail(r, HWS_E_BAD_FILE, 24, NULL, "attr and data sections overlap");
	if (h.data.offset > r->file_size)
		return fail(r, HWS_E_TRUNCATED, 40, NULL, "data section starts past the end (%#llx)",
			    (unsigned long long)h.data.offset);
	if (h.data.offset + h.data.size < h.data.offset)
		return fail(r, HWS_E_BAD_FILE, 48, NULL, "data size overflows");
	err = read_file_attrs(r, &h, &secs, &nr_secs);
	if (err) {
		free(secs);
		return err;
	}
	r->pos = h.data.offset;
	r->data_end = h.data.offset + h.data.size;
	r->hdr_data_off = h.data.offset;
	r->hdr_data_size = h.data.size;
	if (hsize == PERF_FILE_HEADER_SIZE)
		check_unfinished(r, &h, secs, nr_secs);
	free(secs);
	err = r->unf ? 0 : read_features(r, &h);
	if (err)
		return fail(r, err, h.data.offset + h.data.size, NULL, "cannot read features");
	if (r->nr_attrs == 0)
		pr_debug("perfdata: file has no attrs\n");
	return 0;
}

static const char *fi_pmu_cap(const struct hws_file_info *fi, const char *pmu, const char *cap)
{
	return hws_perf_reader__pmu_cap(fi->pmu_cap_ctx, pmu, cap);
}

static uint64_t fi_cpu_midr(const struct hws_file_info *fi, int cpu)
{
	(void)cpu;
	if (fi->cpuid && !strncmp(fi->cpuid, "0x", 2))
		return strtoull(fi->cpuid, NULL, 16);
	return 0;
}

/*
 * Map a regular file whole: records and AUX payloads are then handed out in place (no read()
 * copy, no copy by the caller: HWS_PERF_REC_HDR_STABLE / _PAYLOAD_STABLE). Pages are faulted
 * in as records are read and dropped again by hws_perf_reader__release(), so the resident
 * set stays bounded. No MADV_SEQUENTIAL: it lets the kernel drop the file's cached pages
 * behind us, and the next run (or perf on the same file) reads them from disk again.
 * Without mmap (it failed, or opts.no_mmap) the 1 MiB read window is used. A file that
 * shrinks while mapped reads as zeros to the end of its last page (fail() says it shrank)
 * and raises SIGBUS past it; the CLI turns that into an error message.
 */
static void map_file(struct hws_perf_reader *r)
{
	void *m;

	if (r->opts.no_mmap || !r->file_size || r->file_size > SIZE_MAX / 2)
		return;
	m = mmap(NULL, (size_t)r->file_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (m == MAP_FAILED)
		return;
	r->map = m;
	r->map_len = (size_t)r->file_size;
}

void hws_perf_reader__release(struct hws_perf_reader *r, uint64_t before)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), end;

	if (!r || !r->map)
		return;
	end = (before < r->map_len ? before : r->map_len) & ~(pg - 1);
	/* in steps of at least 8 MiB: one madvise per round would cost more than it saves */
	if (end <= r->released || end - r->released < ((uint64_t)8 << 20))
		return;
	madvise((void *)(uintptr_t)(r->map + r->released), (size_t)(end - r->released),
		MADV_DONTNEED);
	r->released = end;
}

struct hws_perf_reader *hws_perf_reader__open_fd(int fd, const struct hws_perf_reader_opts *opts)
{
	struct hws_perf_reader *r;
	struct stat st;
	int err;

	if (fd < 0 || fstat(fd, &st))
		return errno = EBADF, NULL;
	if (S_ISDIR(st.st_mode)) /* it opens, and reads as "too short": say what it is */
		return errno = EISDIR, NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return errno = ENOMEM, NULL;
	err = HWS_OPTS_GET(r->opts, opts, hws_perf_reader_opts);
	if (err) {
		free(r);
		return errno = -err, NULL;
	}
	r->fd = fd;
	r->stream = !S_ISREG(st.st_mode) || lseek(fd, 0, SEEK_CUR) < 0;
	r->pipe = r->stream;
	r->file_size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
	r->win_cap = WINDOW_SIZE;
	r->win = malloc(r->win_cap);
	r->rec = malloc(MAX_RECORD + 16);
	if (!r->stream)
		map_file(r);
	if (!r->win || !r->rec) {
		hws_perf_reader__close(r);
		return errno = ENOMEM, NULL;
	}
	r->fi.sz = sizeof(r->fi);
	r->fi.pmu_cap = fi_pmu_cap;
	r->fi.pmu_cap_ctx = r;
	r->fi.cpu_midr = fi_cpu_midr;
	err = open_header(r);
	if (err) {
		/* keep the message reachable for callers that want it: log at warn level */
		pr_warn("%s\n", r->errmsg);
		hws_perf_reader__close(r);
		return errno = -err, NULL;
	}
	digest_features(r);
	return r;
}

struct hws_perf_reader *hws_perf_reader__open(const char *path,
					      const struct hws_perf_reader_opts *opts)
{
	struct hws_perf_reader *r;
	int fd, err;

	if (!path)
		return errno = EINVAL, NULL;
	if (!strcmp(path, "-"))
		return hws_perf_reader__open_fd(STDIN_FILENO, opts);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	r = hws_perf_reader__open_fd(fd, opts);
	if (!r) {
		err = errno;
		close(fd);
		return errno = err, NULL;
	}
	r->own_fd = true;
	return r;
}

static void zstd_free(void *zds);

void hws_perf_reader__close(struct hws_perf_reader *r)
{
	if (!r)
		return;
	if (r->own_fd)
		close(r->fd);
	for (int i = 0; i < r->nr_attrs; i++) {
		free(r->attrs[i].name);
		free(r->attrs[i].ids);
	}
	free(r->attrs);
	free(r->ids);
	for (int f = 0; f < HWS_FEAT__MAX; f++)
		free(r->feats[f].data);
	for (size_t i = 0; i < r->nr_pmus; i++)
		free((char *)r->pmus[i].name);
	free(r->pmus);
	free_caps(r);
	free(r->cpu_node);
	free(r->aux_priv);
	free(r->tracing);
	free(r->payload);
	free(r->dc);
	zstd_free(r->zds);
	free(r->win);
	free(r->rec);
	if (r->map)
		munmap((void *)(uintptr_t)r->map, r->map_len);
	free(r);
}

/* ---------------------------------------------------------------- records */

#define ATTR_BY_ID (-2) /* sample_attr_rule(): the record's id says */

/* The attr of a SAMPLE record as far as the attrs alone decide it: -1 (none), 0 (the only
 * one), or ATTR_BY_ID */
static int sample_attr_rule(const struct hws_perf_reader *r)
{
	if (r->nr_attrs == 0)
		return -1;
	if (r->nr_attrs == 1)
		return 0;
	if (!(r->attrs[0].ev.attr.sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)))
		return -1;
	return ATTR_BY_ID;
}

/* the attr index of @id from the id cache + 1; 0: not cached */
static inline int id_cached(const struct hws_perf_reader *r, uint64_t id)
{
	size_t c = (size_t)id & (ID_CACHE - 1);

	return r->idc[c].id == id ? r->idc[c].idx1 : 0;
}

static int record_attr(struct hws_perf_reader *r, const uint8_t *rec)
{
	const struct perf_event_header *h = (const void *)rec;
	int rule = sample_attr_rule(r);
	int64_t id;
	int idx;

	/* other records: only kernel ones, with sample_id_all, carry an id */
	if (h->type != PERF_RECORD_SAMPLE && (h->type >= HWS_RECORD_HEADER_ATTR || !r->nr_attrs ||
					      !r->attrs[0].ev.attr.sample_id_all))
		return -1;
	if (rule != ATTR_BY_ID)
		return rule;
	/* as hws_record__id(), with the offsets worked out once (id_layout()) */
	id = -1;
	if (h->type == PERF_RECORD_SAMPLE) {
		if ((size_t)r->id_smp_off + 8 <= h->size)
			id = (int64_t)pd_get64(rec + r->id_smp_off);
	} else if (r->id_end_off && (size_t)r->id_end_off + 8 <= h->size) {
		id = (int64_t)pd_get64(rec + h->size - r->id_end_off);
	}
	if (r->swap)
		id = (int64_t)bswap_64((uint64_t)id);
	/* consecutive records mostly come from the same event */
	idx = id_cached(r, (uint64_t)id);
	if (idx)
		return idx - 1;
	idx = hws_perf_reader__attr_by_id(r, (uint64_t)id);
	r->idc[(size_t)id & (ID_CACHE - 1)].id = (uint64_t)id;
	r->idc[(size_t)id & (ID_CACHE - 1)].idx1 = idx + 1; /* the slot id_cached() reads */
	return idx;
}

static uint8_t *grow_payload(struct hws_perf_reader *r, size_t need)
{
	if (need > r->payload_cap) {
		uint8_t *n = realloc(r->payload, need);

		if (!n)
			return NULL;
		r->payload = n;
		r->payload_cap = need;
	}
	return r->payload;
}

/* Read @size payload bytes at @off; skip them when above MAX_PAYLOAD. */
static int read_payload(struct hws_perf_reader *r, uint64_t off, uint64_t size,
			struct hws_perf_record *out)
{
	int err;

	out->payload_size = size;
	out->payload = NULL;
	if (!r->stream && (off > r->data_end || size > r->data_end - off ||
			 size > r->file_size - (off < r->file_size ? off : r->file_size)))
		return HWS_E_TRUNCATED;
	if (size > MAX_PAYLOAD) {
		pr_warn("a %llu-byte record payload at %#llx is too big: skipped\n",
			(unsigned long long)size, (unsigned long long)off);
		return r->stream ? copy_in(r, off, NULL, size) : 0;
	}
	if (r->stream) {
		/* grow as the bytes arrive so a lying size cannot make us allocate */
		uint64_t done = 0;

		while (done < size) {
			size_t n = size - done > WINDOW_SIZE ? WINDOW_SIZE : (size_t)(size - done);

			if (!grow_payload(r, (size_t)(done + n)))
				return -ENOMEM;
			err = copy_in(r, off + done, r->payload + done, n);
			if (err)
				return err;
			done += n;
		}
	} else if (r->map) {
		out->payload = r->map + off; /* inside the file: checked above */
		out->flags |= HWS_PERF_REC_PAYLOAD_STABLE;
		return 0;
	} else {
		if (!grow_payload(r, size ? (size_t)size : 1))
			return -ENOMEM;
		err = copy_in(r, off, r->payload, size);
		if (err)
			return err;
	}
	out->payload = r->payload;
	return 0;
}

/* What the reader itself takes from a user record. Errors here are not fatal. */
static int consume(struct hws_perf_reader *r, uint8_t *rec, struct hws_perf_record *out)
{
	struct perf_event_header *h = (void *)rec;
	size_t sz = h->size;

	switch (h->type) {
	case HWS_RECORD_HEADER_ATTR: {
		uint32_t asz;
		int idx;

		if (sz < 8 + PERF_ATTR_SIZE_VER0)
			return HWS_E_BADREC;
		/* the record was swapped already: re-swap the attr part back for add_attr */
		asz = pd_get32(rec + 12);
		if (asz == 0)
			asz = PERF_ATTR_SIZE_VER0;
		if (asz < PERF_ATTR_SIZE_VER0 || asz > sz - 8)
			return HWS_E_BADREC;
		{
			bool sw = r->swap;
			uint8_t abuf[4096];
			int err;

			if (asz > sizeof(abuf))
				return HWS_E_BADREC;
			memcpy(abuf, rec + 8, asz);
			r->swap = false;
			idx = add_attr(r, abuf, asz);
			if (idx >= 0) {
				uint64_t n = (sz - 8 - asz) / 8;

				err = add_ids(r, idx, rec + 8 + asz, n);
				if (err)
					idx = err;
			}
			r->swap = sw;
		}
		if (idx < 0)
			return idx;
		name_attrs(r);
		return 0;
	}
	case HWS_RECORD_HEADER_FEATURE: {
		uint64_t feat;
		uint8_t *d;

		if (sz < 16)
			return HWS_E_BADREC;
		feat = pd_get64(rec + 8);
		if (feat == 0 || feat >= HWS_FEAT__MAX)
			return HWS_E_BADREC;
		d = malloc(sz - 16 + 1);
		if (!d)
			return -ENOMEM;
		memcpy(d, rec + 16, sz - 16);
		/* already swapped with the record */
		{
			bool sw = r->swap;

			r->swap = false;
			store_feature(r, (int)feat, d, sz - 16);
			r->swap = sw;
		}
		if (feat == HWS_FEAT_PMU_CAPS || feat == HWS_FEAT_CPU_PMU_CAPS)
			free_caps(r);
		if (feat == HWS_FEAT_PMU_MAPPINGS) {
			for (size_t i = 0; i < r->nr_pmus; i++)
				free((char *)r->pmus[i].name);
			free(r->pmus);
			r->pmus = NULL;
			r->nr_pmus = 0;
		}
		digest_features(r);
		return 0;
	}
	case HWS_RECORD_AUXTRACE_INFO: {
		size_t n = sz >= 16 ? (sz - 16) / 8 : 0;
		uint64_t *p;

		if (sz < 16)
			return HWS_E_BADREC;
		p = malloc(n * 8 + 8);
		if (!p)
			return -ENOMEM;
		memcpy(p, rec + 16, n * 8);
		free(r->aux_priv);
		r->aux_priv = p;
		r->fi.auxtrace_type = pd_get32(rec + 8);
		r->fi.nr_auxtrace_priv = (uint32_t)n;
		r->fi.auxtrace_priv = p;
		return 0;
	}
	case HWS_RECORD_TIME_CONV:
		if (sz < 32)
			return HWS_E_BADREC;
		memset(&r->tc, 0, sizeof(r->tc));
		r->tc.time_shift = pd_get64(rec + 8);
		r->tc.time_mult = pd_get64(rec + 16);
		r->tc.time_zero = pd_get64(rec + 24);
		if (sz >= 56) {
			r->tc.time_cycles = pd_get64(rec + 32);
			r->tc.time_mask = pd_get64(rec + 40);
			r->tc.cap_user_time_zero = rec[48];
			r->tc.cap_user_time_short = rec[49];
		} else {
			r->tc.cap_user_time_zero = 1;
		}
		r->have_tc = true;
		r->fi.time_conv = &r->tc;
		return 0;
	case HWS_RECORD_HEADER_TRACING_DATA:
		if (out->payload) {
			uint8_t *t = malloc(out->payload_size + 1);

			if (!t)
				return -ENOMEM;
			memcpy(t, out->payload, out->payload_size);
			free(r->tracing);
			r->tracing = t;
			r->tracing_size = out->payload_size;
			r->fi.tracing_data = t;
			r->fi.tracing_data_size = out->payload_size;
		}
		return 0;
	case HWS_RECORD_EVENT_UPDATE:
		/* NAME (type 2): {u64 type; u64 id; char name[]} */
		if (sz > 24 && pd_get64(rec + 8) == 2) {
			int idx = hws_perf_reader__attr_by_id(r, pd_get64(rec + 16));

			set_attr_name(r, idx, (const char *)rec + 24, sz - 24);
		}
		return 0;
	default:
		return 0;
	}
}

/* ---------------------------------------------------------------- compressed records */

/*
 * PERF_RECORD_COMPRESSED (perf record -z): zstd frames holding ordinary records. libzstd is
 * loaded with dlopen() on first use (no build dependency); its streaming API is declared
 * here as zstd.h declares it (stable ABI). Without it, COMPRESSED records are handed out
 * and their contents skipped (one warning). Decompressed records are handed out right
 * after the COMPRESSED record, with its file offset (as perf report -D shows them); a
 * record may continue in the next COMPRESSED record. The output is bounded by MAX_DECOMP.
 */
#define MAX_DECOMP (32u << 20)

struct zstd_in {
	const void *src;
	size_t size, pos;
};

struct zstd_out {
	void *dst;
	size_t size, pos;
};

static struct {
	int state; /* 0 untried, 1 loaded, -1 unavailable */
	void *(*create)(void);
	size_t (*init)(void *ds);
	size_t (*decompress)(void *ds, struct zstd_out *out, struct zstd_in *in);
	size_t (*free_ds)(void *ds);
	unsigned (*is_error)(size_t code);
} zstd;

static pthread_mutex_t zstd_lock = PTHREAD_MUTEX_INITIALIZER;

static void zstd_free(void *zds)
{
	if (zds && zstd.state == 1)
		zstd.free_ds(zds);
}

static bool zstd_load(void)
{
	pthread_mutex_lock(&zstd_lock);
	if (zstd.state == 0) {
		void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);

		zstd.state = -1;
		if (h) {
			*(void **)&zstd.create = dlsym(h, "ZSTD_createDStream");
			*(void **)&zstd.init = dlsym(h, "ZSTD_initDStream");
			*(void **)&zstd.decompress = dlsym(h, "ZSTD_decompressStream");
			*(void **)&zstd.free_ds = dlsym(h, "ZSTD_freeDStream");
			*(void **)&zstd.is_error = dlsym(h, "ZSTD_isError");
			if (zstd.create && zstd.init && zstd.decompress && zstd.free_ds &&
			    zstd.is_error)
				zstd.state = 1;
		}
	}
	pthread_mutex_unlock(&zstd_lock);
	return zstd.state == 1;
}

/* Append the decompressed payload of COMPRESSED record @rec to r->dc. */
static int decompress(struct hws_perf_reader *r, const uint8_t *rec, size_t size)
{
	struct zstd_in in;
	struct zstd_out out;
	const struct perf_event_header *h = (const void *)rec;
	size_t off = 8;

	if (h->type == HWS_RECORD_COMPRESSED2) { /* {u64 data_size; data[]} (perf >= 6.15) */
		uint64_t ds;

		if (size < 16)
			return HWS_E_BADREC;
		ds = pd_get64(rec + 8);
		off = 16;
		if (ds < size - 16)
			size = 16 + (size_t)ds;
	}
	if (!zstd_load()) {
		if (!r->zstd_warned)
			pr_warn("compressed records (perf record -z): libzstd.so.1 is not "
				"installed, their contents are skipped\n");
		r->zstd_warned = true;
		return 0;
	}
	if (!r->zds) {
		r->zds = zstd.create();
		if (!r->zds || zstd.is_error(zstd.init(r->zds)))
			return -ENOMEM;
	}
	/* keep the unread remainder (a record cut at the end of the previous frame) */
	if (r->dc_pos) {
		memmove(r->dc, r->dc + r->dc_pos, r->dc_len - r->dc_pos);
		r->dc_len -= r->dc_pos;
		r->dc_pos = 0;
	}
	in.src = rec + off;
	in.size = size - off;
	in.pos = 0;
	while (in.pos < in.size) {
		size_t ret;

		if (r->dc_cap - r->dc_len < 65536) {
			size_t cap = r->dc_cap ? r->dc_cap * 2 : 1u << 20;
			uint8_t *n;

			if (cap > MAX_DECOMP)
				return HWS_E_TOO_BIG;
			n = realloc(r->dc, cap);
			if (!n)
				return -ENOMEM;
			r->dc = n;
			r->dc_cap = cap;
		}
		out.dst = r->dc;
		out.size = r->dc_cap;
		out.pos = r->dc_len;
		ret = zstd.decompress(r->zds, &out, &in);
		r->dc_len = out.pos;
		if (zstd.is_error(ret))
			return HWS_E_BADREC;
		if (out.pos < out.size && in.pos == in.size)
			break;
	}
	return 0;
}

/* ---------------------------------------------------------------- record delivery */

/* Byte-swap, attribute, and interpret a record copied into r->rec. */
static int finish_record(struct hws_perf_reader *r, uint8_t *rec, const struct perf_event_header *h,
			 uint64_t off, struct hws_perf_record *out)
{
	int err, idx;

	idx = record_attr(r, rec);
	if (r->swap) {
		/* an unknown id: swap by the first event's layout, as perf parses it */
		int sidx = idx >= 0 ? idx : (r->nr_attrs && h->type < HWS_RECORD_HEADER_ATTR ? 0 : -1);

		err = hws__swap_record(rec, h->size, sidx >= 0 ? &r->attrs[sidx].ev.attr : NULL, 1);
		if (err)
			return fail(r, err, off, h, "cannot byte-swap the record");
	}
	out->hdr = (const struct perf_event_header *)rec;
	out->file_offset = off;
	out->attr_idx = idx;
	return 0;
}

static int after_record(struct hws_perf_reader *r, const struct perf_event_header *h,
			struct hws_perf_record *out)
{
	int err;

	if (h->type < HWS_RECORD_HEADER_ATTR)
		return 1;
	if (h->type == HWS_RECORD_COMPRESSED || h->type == HWS_RECORD_COMPRESSED2) {
		err = decompress(r, (const uint8_t *)r->rec, h->size);
		if (err)
			return fail(r, err, out->file_offset, h, "cannot decompress: %s",
				    err == HWS_E_TOO_BIG ? "output above 32 MiB" : "bad zstd data");
		return 1;
	}
	err = consume(r, (uint8_t *)r->rec, out);
	if (err == -ENOMEM)
		return fail(r, err, out->file_offset, h, "out of memory");
	if (err == HWS_E_TOO_BIG)
		return fail(r, err, out->file_offset, h, "too many events or ids");
	if (err)
		pr_debug("perfdata: offset %#llx: malformed %s record ignored\n",
			 (unsigned long long)out->file_offset, hws_record__type_name(h->type));
	return 1;
}

/* Next record from the decompressed buffer: 1, 0 (none whole there), or an error. */
static int next_decompressed(struct hws_perf_reader *r, struct hws_perf_record *out)
{
	struct perf_event_header h;
	size_t left = r->dc_len - r->dc_pos;
	int err;

	if (left < sizeof(h))
		return 0;
	memcpy(&h, r->dc + r->dc_pos, sizeof(h));
	if (r->swap) {
		h.type = bswap_32(h.type);
		h.misc = bswap_16(h.misc);
		h.size = bswap_16(h.size);
	}
	if (h.size < sizeof(h) || h.type >= HWS_RECORD__MAX || h.type == HWS_RECORD_AUXTRACE ||
	    h.type == HWS_RECORD_HEADER_TRACING_DATA || h.type == HWS_RECORD_COMPRESSED ||
	    h.type == HWS_RECORD_COMPRESSED2)
		return fail(r, HWS_E_BADREC, r->dc_off, &h,
			    "invalid record inside compressed data (at +%#zx)", r->dc_pos);
	if (h.size > left)
		return 0;
	memcpy(r->rec, r->dc + r->dc_pos, h.size);
	memcpy(r->rec, &h, sizeof(h));
	r->dc_pos += h.size;
	err = finish_record(r, (uint8_t *)r->rec, &h, r->dc_off, out);
	return err ? err : after_record(r, &h, out);
}

/*
 * What the short path of hws_perf_reader__next() may assume, worked out again after every
 * call that took the long way: all that it depends on (the mapping, byte order, pending
 * decompressed records, an error, the attrs) only changes there or in fail().
 */
static void fast_state(struct hws_perf_reader *r)
{
	r->fast_end =
	    r->map && !r->swap && !r->err && r->dc_pos >= r->dc_len && r->data_end <= r->map_len
		? r->data_end
		: 0;
	r->smp_attr = sample_attr_rule(r);
}

static __attribute__((noinline)) int next_long(struct hws_perf_reader *r,
					       struct hws_perf_record *out);

/* record_attr() of a SAMPLE record on the short path (host order), its id cache hit inline */
static inline int sample_attr(struct hws_perf_reader *r, const struct perf_event_header *hp)
{
	if (r->smp_attr != ATTR_BY_ID)
		return r->smp_attr;
	if ((size_t)r->id_smp_off + 8 <= hp->size) {
		int idx1 = id_cached(r, pd_get64((const uint8_t *)hp + r->id_smp_off));

		if (idx1)
			return idx1 - 1;
	}
	return record_attr(r, (const uint8_t *)hp);
}

int hws_perf_reader__next(struct hws_perf_reader *r, struct hws_perf_record *out)
{
	int rc;

	if (!r || !out)
		return -EINVAL;
	if (r->pos + sizeof(struct perf_event_header) <= r->fast_end && !(r->pos & 7)) {
		/* the common case in short: a kernel record in place in the mapped file */
		const struct perf_event_header *hp = (const void *)(r->map + r->pos);

		if (hp->type < HWS_RECORD_HEADER_ATTR && hp->size >= sizeof(*hp) &&
		    hp->size <= r->fast_end - r->pos) {
			out->hdr = hp;
			out->file_offset = r->pos;
			out->payload = NULL;
			out->payload_size = 0;
			out->flags = HWS_PERF_REC_HDR_STABLE;
			out->attr_idx = hp->type == PERF_RECORD_SAMPLE
					    ? sample_attr(r, hp)
					    : record_attr(r, (const uint8_t *)hp);
			r->pos += hp->size;
			return 1;
		}
	}
	rc = next_long(r, out);
	fast_state(r);
	return rc;
}

/* An unfinished file: the record at r->pos is cut short or is not one, and ends the data
 * (__next() returns 0 from now on). */
static int cut_here(struct hws_perf_reader *r)
{
	r->cut = r->pos;
	r->cut_bytes = (r->data_end < r->file_size ? r->data_end : r->file_size) - r->pos;
	r->cut_known = true;
	r->data_end = r->pos;
	return 0;
}

static __attribute__((noinline)) int next_long(struct hws_perf_reader *r,
					       struct hws_perf_record *out)
{
	struct perf_event_header h;
	const uint8_t *p;
	uint8_t *rec;
	size_t got;
	int err;

	if (r->err)
		return r->err;
	memset(out, 0, sizeof(*out));
	err = next_decompressed(r, out);
	if (err)
		return err;
	if (r->pos >= r->data_end)
		goto end;
	if (r->unf && r->pos + sizeof(h) > r->data_end)
		return cut_here(r);
	if (!r->stream && r->data_end - r->pos < sizeof(h)) {
		if (r->data_end > r->file_size && r->pos >= r->file_size)
			return fail(r, HWS_E_TRUNCATED, r->pos, NULL,
				    "file truncated: data section ends at %#llx, file at %#llx",
				    (unsigned long long)r->data_end,
				    (unsigned long long)r->file_size);
		return fail(r, HWS_E_BADREC, r->pos, NULL,
			    "%llu stray bytes at the end of the data section",
			    (unsigned long long)(r->data_end - r->pos));
	}
	err = fetch(r, r->pos, sizeof(h), &p, &got);
	if (err) {
		if (err == HWS_E_TRUNCATED && r->stream && got == 0)
			goto end; /* clean end of stream */
		if (r->unf && err == HWS_E_TRUNCATED)
			return cut_here(r);
		return fail(r, err, r->pos, NULL, "file truncated inside a record header");
	}
	memcpy(&h, p, sizeof(h));
	if (r->swap) {
		h.type = bswap_32(h.type);
		h.misc = bswap_16(h.misc);
		h.size = bswap_16(h.size);
	}
	if (r->unf &&
	    (h.size < sizeof(h) || h.type >= HWS_RECORD__MAX || h.size > r->data_end - r->pos))
		return cut_here(r);
	if (h.size < sizeof(h))
		return fail(r, HWS_E_BADREC, r->pos, &h, "record size below the 8-byte header");
	if (h.type >= HWS_RECORD__MAX)
		return fail(r, HWS_E_BADREC, r->pos, &h, "unknown record type");
	if (!r->stream && h.size > r->data_end - r->pos) {
		if (r->pos + h.size > r->file_size)
			return fail(r, HWS_E_TRUNCATED, r->pos, &h, "file truncated inside the record");
		return fail(r, HWS_E_BADREC, r->pos, &h, "record runs past the data section");
	}
	err = fetch(r, r->pos, h.size, &p, &got);
	if (err && r->unf && err == HWS_E_TRUNCATED)
		return cut_here(r);
	if (err)
		return fail(r, err, r->pos, &h, "file truncated inside the record (%zu of %u bytes)",
			    got, h.size);
	if (!r->swap && h.type < HWS_RECORD_HEADER_ATTR && !((uintptr_t)p & 7)) {
		/* kernel records are only read: hand out the window's bytes, valid until the
		 * next call as the copy would be */
		rec = (uint8_t *)(uintptr_t)p;
		if (r->map)
			out->flags |= HWS_PERF_REC_HDR_STABLE;
	} else {
		rec = (uint8_t *)r->rec;
		memcpy(rec, p, h.size);
		memcpy(rec, &h, sizeof(h));
	}
	err = finish_record(r, rec, &h, r->pos, out);
	if (err)
		return err;

	/* records followed by bytes not counted in header.size */
	if (h.type == HWS_RECORD_AUXTRACE || h.type == HWS_RECORD_HEADER_TRACING_DATA) {
		uint64_t psz;

		if (h.type == HWS_RECORD_AUXTRACE) {
			if (h.size < 16)
				return r->unf ? cut_here(r)
					      : fail(r, HWS_E_BADREC, r->pos, &h,
						     "AUXTRACE record too short");
			psz = pd_get64(rec + 8);
		} else {
			/* perf: {header (size 16); u32 size (8-aligned); u32 pad} then size
			 * bytes; older hwsample versions wrote a 12-byte record with the
			 * unpadded size, the bytes padded to 8 following: both read here */
			if (h.size < 12)
				return r->unf ? cut_here(r)
					      : fail(r, HWS_E_BADREC, r->pos, &h,
						     "TRACING_DATA too short");
			psz = (pd_get32(rec + 8) + 7ULL) & ~7ULL;
		}
		err = read_payload(r, r->pos + h.size, psz, out);
		if (err == HWS_E_TRUNCATED && r->unf)
			return cut_here(r);
		if (err)
			return fail(r, err, r->pos, &h, "payload of %llu bytes %s",
				    (unsigned long long)psz,
				    err == HWS_E_TRUNCATED ? "runs past the end" : "unreadable");
		if (h.type == HWS_RECORD_HEADER_TRACING_DATA && out->payload)
			out->payload_size = pd_get32(rec + 8);
		r->pos += psz;
	}
	if (h.type == HWS_RECORD_COMPRESSED || h.type == HWS_RECORD_COMPRESSED2)
		r->dc_off = r->pos;
	r->pos += h.size;
	return after_record(r, &h, out);
end:
	if (r->dc_len > r->dc_pos)
		return fail(r, HWS_E_TRUNCATED, r->dc_off, NULL,
			    "%zu bytes of a record cut at the end of the compressed data",
			    r->dc_len - r->dc_pos);
	if (r->unf && !r->cut_known)
		cut_here(r);
	return 0;
}

int hws_perf_reader__peek_type(struct hws_perf_reader *r)
{
	struct perf_event_header h;
	const uint8_t *p;
	size_t got;

	if (!r || r->err)
		return -1;
	if (r->dc_len - r->dc_pos >= sizeof(h)) {
		p = r->dc + r->dc_pos;
	} else {
		if (r->pos >= r->data_end || (!r->stream && r->data_end - r->pos < sizeof(h)))
			return -1;
		if (fetch(r, r->pos, sizeof(h), &p, &got))
			return -1;
	}
	memcpy(&h, p, sizeof(h));
	return (int)(r->swap ? bswap_32(h.type) : h.type);
}

/* ---------------------------------------------------------------- accessors */

const char *hws_perf_reader__errmsg(const struct hws_perf_reader *r)
{
	return r && r->errmsg[0] ? r->errmsg : "no error";
}

int hws_perf_reader__unfinished(const struct hws_perf_reader *r, struct hws_perf_unfinished *u)
{
	if (u)
		memset(u, 0, sizeof(*u));
	if (!r || !r->unf)
		return 0;
	if (u) {
		u->reason = r->unf;
		u->why = r->unf_why;
		u->data_offset = r->hdr_data_off;
		u->data_size = r->hdr_data_size;
		u->read_all = r->cut_known;
		u->end = r->cut_known ? r->cut : 0;
		u->cut_bytes = r->cut_known ? r->cut_bytes : 0;
	}
	return r->unf;
}

bool hws_perf_reader__is_pipe(const struct hws_perf_reader *r)
{
	return r && r->pipe;
}

bool hws_perf_reader__needs_swap(const struct hws_perf_reader *r)
{
	return r && r->swap;
}

int hws_perf_reader__nr_attrs(const struct hws_perf_reader *r)
{
	return r ? r->nr_attrs : 0;
}

const struct hws_perf_evattr *hws_perf_reader__attr(const struct hws_perf_reader *r, int idx)
{
	if (!r || idx < 0 || idx >= r->nr_attrs)
		return NULL;
	return &r->attrs[idx].ev;
}

bool hws_perf_reader__has_feature(const struct hws_perf_reader *r, int feat)
{
	if (!r || feat < 0 || feat >= HWS_FEAT__MAX)
		return false;
	return (r->features[feat / 64] >> (feat % 64)) & 1;
}

const void *hws_perf_reader__feature(const struct hws_perf_reader *r, int feat, size_t *len)
{
	if (!hws_perf_reader__has_feature(r, feat))
		return NULL;
	if (len)
		*len = r->feats[feat].len;
	return r->feats[feat].data;
}

int hws_perf_reader__build_id(const struct hws_perf_reader *r, const char *filename, char *hex,
			      size_t len)
{
	size_t flen, off = 0, want = strlen(filename);
	const uint8_t *p = hws_perf_reader__feature(r, HWS_FEAT_BUILD_ID, &flen);

	/* entries (host order, checked when the section was read): u32 type, u16 misc,
	 * u16 size, s32 pid, u8 build_id[20], u8 id size (when misc has BUILD_ID_SIZE), 3
	 * reserved bytes, then the NUL-terminated file name padded to the entry's size */
	while (p && off + 36 <= flen) {
		uint16_t misc = pd_get16(p + off + 4), sz = pd_get16(p + off + 6);
		const uint8_t *e = p + off;
		size_t nlen, idlen;

		if (sz < 36 || off + sz > flen)
			break;
		nlen = strnlen((const char *)e + 36, sz - 36u);
		off += sz;
		if (nlen != want || memcmp(e + 36, filename, want))
			continue;
		idlen = (misc & HWS_MISC_BUILD_ID_SIZE) ? e[32] : 20;
		if (idlen > 20)
			idlen = 20;
		if (!(misc & HWS_MISC_BUILD_ID_SIZE)) /* old files: zero-padded to 20 bytes */
			while (idlen && !e[12 + idlen - 1])
				idlen--;
		if (!idlen)
			return 0;
		if (len < idlen * 2 + 1)
			return -ENOSPC;
		for (size_t i = 0; i < idlen; i++) {
			hex[2 * i] = "0123456789abcdef"[e[12 + i] >> 4];
			hex[2 * i + 1] = "0123456789abcdef"[e[12 + i] & 15];
		}
		hex[idlen * 2] = 0;
		return (int)idlen * 2;
	}
	return 0;
}

const char *hws_perf_reader__string(const struct hws_perf_reader *r, int feat)
{
	const struct rfeat *f;
	uint32_t len;

	switch (feat) {
	case HWS_FEAT_HOSTNAME:
	case HWS_FEAT_OSRELEASE:
	case HWS_FEAT_VERSION:
	case HWS_FEAT_ARCH:
	case HWS_FEAT_CPUDESC:
	case HWS_FEAT_CPUID:
		break;
	default:
		return NULL;
	}
	if (!hws_perf_reader__has_feature(r, feat))
		return NULL;
	f = &r->feats[feat];
	if (f->len < 4)
		return NULL;
	len = pd_get32(f->data);
	if (len > f->len - 4)
		return NULL;
	/* NUL-terminated: data[len] is 0 (store_feature); a string without NUL in its
	 * @len bytes runs into the next bytes of this feature at most */
	if (!memchr(f->data + 4, 0, len))
		return NULL;
	return (const char *)f->data + 4;
}

int hws_perf_reader__nr_cpus(const struct hws_perf_reader *r, uint32_t *online)
{
	size_t len;
	const uint8_t *p = hws_perf_reader__feature(r, HWS_FEAT_NRCPUS, &len);

	if (online)
		*online = 0;
	if (!p || len < 8)
		return 0;
	if (online)
		*online = pd_get32(p + 4);
	return (int)(pd_get32(p) & 0x7fffffff);
}

const char *hws_perf_reader__pmu_name(const struct hws_perf_reader *r, uint32_t type)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->nr_pmus; i++)
		if (r->pmus[i].type == type)
			return r->pmus[i].name;
	return NULL;
}

const char *hws_perf_reader__pmu_cap(const struct hws_perf_reader *r, const char *pmu,
				     const char *cap)
{
	if (!r || !pmu || !cap)
		return NULL;
	for (size_t i = 0; i < r->nr_caps; i++)
		if (r->caps[i].pmu && !strcmp(r->caps[i].pmu, pmu) &&
		    !strcmp(r->caps[i].name, cap))
			return r->caps[i].value;
	return NULL;
}

int hws_perf_reader__cpu_node(const struct hws_perf_reader *r, int cpu)
{
	if (!r || cpu < 0 || cpu >= r->nr_cpu_node)
		return -1;
	return r->cpu_node[cpu];
}

const struct hws_file_info *hws_perf_reader__file_info(struct hws_perf_reader *r)
{
	uint32_t onl;

	if (!r)
		return NULL;
	r->fi.nr_cpus = (uint32_t)hws_perf_reader__nr_cpus(r, &onl);
	r->fi.arch = hws_perf_reader__string(r, HWS_FEAT_ARCH);
	r->fi.cpuid = hws_perf_reader__string(r, HWS_FEAT_CPUID);
	r->fi.cpudesc = hws_perf_reader__string(r, HWS_FEAT_CPUDESC);
	return &r->fi;
}
