// SPDX-License-Identifier: MIT
/*
 * perf.data reader: file mode (PERFILE2, old 72-byte headers, PERFFILE v1) and pipe mode,
 * either byte order. This file: opening (file header, attr and ids sections, the feature
 * index), the input (mapping or read window), attrs and ids, record delivery. Its parts,
 * sharing its state through core/perfdata/read_int.h: features.c (header features, names and
 * the accessors over them), compress.c (COMPRESSED records). Inside core/perfdata/ calls go
 *   perfdata_read.c -> features.c, compress.c, swap.c, sample_parse.c
 *   features.c -> swap.c, sample_parse.c        perfdata_write.c -> sample_parse.c
 * and swap.c, sample_parse.c and compress.c call nothing of core/perfdata/.
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
 *    Byte swapping (core/perfdata/swap.c) follows perf's intent: u64 fields swapped as
 *    u64, u32/u16 fields as such (pid/tid, cpu/res keep their place), RAW/AUX/stack/string
 *    bytes unchanged, RAW's u32 size swapped; attr flag bitfields are bit-reversed per byte
 *    (perf swap_bitfield).
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
#include <errno.h>
#include <fcntl.h>
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
#include "perfdata/sample_fields.h"
#include "perfdata/read_int.h"

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
		snprintf(r->errmsg, sizeof(r->errmsg), "offset %#llx: %s", (unsigned long long)off,
			 msg);
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
	*p = NULL; /* set on success; gcc -O3 does not see that -errno is never 0 there */
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
	unsigned int smp, back;

	pd_id_place(a0->sample_type, &smp, &back);
	r->id_smp_off = (uint16_t)smp;
	r->id_end_off = a0->sample_id_all ? (uint16_t)back : 0;
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
		pd_store_feature(r, f, d, (size_t)s.size);
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
		if (asz < PERF_ATTR_SIZE_VER0 || asz > sizeof(buf) ||
		    end - off < asz + sizeof(ids)) {
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
			ret =
			    fail(r, HWS_E_BAD_FILE, at, NULL, "attr %d: ids outside the file", idx);
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
	static const uint64_t sizes[] = {PERF_ATTR_SIZE_VER0 + 16, PERF_ATTR_SIZE_VER1 + 16,
					 PERF_ATTR_SIZE_VER2 + 16, PERF_ATTR_SIZE_VER3 + 16};

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

	hws__qsort(secs, nr, sizeof(*secs), sect_cmp);
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
	if (copy_in(r, 0, &h,
		    hsize < PERF_FILE_HEADER_SIZE_OLD ? PERF_FILE_HEADER_SIZE_OLD : hsize))
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
		return fail(r, HWS_E_TRUNCATED, 40, NULL,
			    "data section starts past the end (%#llx)",
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
	pd_file_info_init(r);
	err = open_header(r);
	if (err) {
		/* keep the message reachable for callers that want it: log at warn level */
		pr_warn("%s\n", r->errmsg);
		hws_perf_reader__close(r);
		return errno = -err, NULL;
	}
	pd_digest_features(r);
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
	pd_free_features(r);
	free(r->aux_priv);
	free(r->tracing);
	free(r->payload);
	pd_decomp_free(&r->dc);
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
		pd_name_attrs(r);
		return 0;
	}
	case HWS_RECORD_HEADER_FEATURE:
		return pd_header_feature(r, rec, sz);
	case HWS_RECORD_HEADER_BUILD_ID:
		return pd_header_build_id(r, rec, sz);
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

			pd_set_attr_name(r, idx, (const char *)rec + 24, sz - 24);
		}
		return 0;
	default:
		return 0;
	}
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
		int sidx =
		    idx >= 0 ? idx : (r->nr_attrs && h->type < HWS_RECORD_HEADER_ATTR ? 0 : -1);

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
		err = pd_decompress(&r->dc, (const uint8_t *)r->rec, h->size);
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
	size_t left = r->dc.len - r->dc.pos;
	int err;

	if (left < sizeof(h))
		return 0;
	memcpy(&h, r->dc.buf + r->dc.pos, sizeof(h));
	if (r->swap) {
		h.type = bswap_32(h.type);
		h.misc = bswap_16(h.misc);
		h.size = bswap_16(h.size);
	}
	if (h.size < sizeof(h) || h.type >= HWS_RECORD__MAX || h.type == HWS_RECORD_AUXTRACE ||
	    h.type == HWS_RECORD_HEADER_TRACING_DATA || h.type == HWS_RECORD_COMPRESSED ||
	    h.type == HWS_RECORD_COMPRESSED2)
		return fail(r, HWS_E_BADREC, r->dc.off, &h,
			    "invalid record inside compressed data (at +%#zx)", r->dc.pos);
	if (h.size > left)
		return 0;
	memcpy(r->rec, r->dc.buf + r->dc.pos, h.size);
	memcpy(r->rec, &h, sizeof(h));
	r->dc.pos += h.size;
	err = finish_record(r, (uint8_t *)r->rec, &h, r->dc.off, out);
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
	    r->map && !r->swap && !r->err && r->dc.pos >= r->dc.len && r->data_end <= r->map_len
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

static inline __attribute__((always_inline)) int reader_next(struct hws_perf_reader *r,
							     struct hws_perf_record *out)
{
	int rc;

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
		/* a round's end (as many as one per few samples in perf's system-wide
		 * recordings): a bare header, nothing to read */
		if (hp->type == HWS_RECORD_FINISHED_ROUND && hp->size == sizeof(*hp)) {
			*out = (struct hws_perf_record){.hdr = hp,
							.file_offset = r->pos,
							.flags = HWS_PERF_REC_HDR_STABLE,
							.attr_idx = -1};
			r->pos += sizeof(*hp);
			return 1;
		}
	}
	rc = next_long(r, out);
	fast_state(r);
	return rc;
}

int hws_perf_reader__next(struct hws_perf_reader *r, struct hws_perf_record *out)
{
	if (!r || !out)
		return -EINVAL;
	return reader_next(r, out);
}

int pd_reader_next(struct hws_perf_reader *r, struct hws_perf_record *out)
{
	return reader_next(r, out);
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
			return fail(r, HWS_E_TRUNCATED, r->pos, &h,
				    "file truncated inside the record");
		return fail(r, HWS_E_BADREC, r->pos, &h, "record runs past the data section");
	}
	err = fetch(r, r->pos, h.size, &p, &got);
	if (err && r->unf && err == HWS_E_TRUNCATED)
		return cut_here(r);
	if (err)
		return fail(r, err, r->pos, &h,
			    "file truncated inside the record (%zu of %u bytes)", got, h.size);
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
		r->dc.off = r->pos;
	r->pos += h.size;
	return after_record(r, &h, out);
end:
	if (r->dc.len > r->dc.pos)
		return fail(r, HWS_E_TRUNCATED, r->dc.off, NULL,
			    "%zu bytes of a record cut at the end of the compressed data",
			    r->dc.len - r->dc.pos);
	if (r->unf && !r->cut_known)
		cut_here(r);
	return 0;
}

/*
 * The look-ahead of the decoder's exact unordered delivery (core/decode/decode.c:
 * run_direct()): from file offset *pos on, the next record that is not a SAMPLE, as
 * __next() would hand it out in the mapped file, without moving the reader; *pos moves past
 * it (UINT64_MAX: from the reader's position). Only kernel records and FINISHED_ROUND (user records
 * that carry nothing but their header) are handed out; others are stepped over. 1: one found, 0:
 * the end of the data, -1: no look-ahead from here (the file is not mapped whole or not in host
 * byte order, a record carries bytes past its size (AUXTRACE, TRACING_DATA) or is compressed, or
 * looks damaged: __next() says what is wrong when it gets there).
 */
int pd_reader_scan(struct hws_perf_reader *r, uint64_t *pos, struct hws_perf_record *out)
{
	uint64_t p = *pos == UINT64_MAX ? r->pos : *pos, end = r->data_end;

	if (!r->map || r->swap || r->err || end > r->map_len || r->dc.pos < r->dc.len || (p & 7))
		return -1;
	for (;;) {
		const struct perf_event_header *hp;
		struct perf_event_header h;
		uint16_t sz;

		/* samples (nearly all records) in short: only a size of 0 would not move on; one
		 * that runs past the end, or is no multiple of 8, is stopped below (__next() says
		 * what is wrong with it) */
		while (p + sizeof(h) <= end) {
			memcpy(&h, r->map + p, sizeof(h));
			if (h.type != PERF_RECORD_SAMPLE || !h.size)
				break;
			p += h.size;
		}
		if (p + sizeof(h) > end)
			break;
		sz = h.size;
		if ((p & 7) || (sz & 7) || sz < sizeof(h) || sz > end - p ||
		    h.type >= HWS_RECORD__MAX || h.type == HWS_RECORD_AUXTRACE ||
		    h.type == HWS_RECORD_HEADER_TRACING_DATA || h.type == HWS_RECORD_COMPRESSED ||
		    h.type == HWS_RECORD_COMPRESSED2)
			return -1;
		if (h.type >= HWS_RECORD_HEADER_ATTR && h.type != HWS_RECORD_FINISHED_ROUND) {
			p += sz;
			continue;
		}
		hp = (const void *)(r->map + p);
		memset(out, 0, sizeof(*out));
		out->hdr = hp;
		out->file_offset = p;
		out->flags = HWS_PERF_REC_HDR_STABLE;
		out->attr_idx = record_attr(r, (const uint8_t *)hp);
		*pos = p + sz;
		return 1;
	}
	*pos = p;
	return p == end ? 0 : -1;
}

int hws_perf_reader__peek_type(struct hws_perf_reader *r)
{
	struct perf_event_header h;
	const uint8_t *p;
	size_t got;

	if (!r || r->err)
		return -1;
	if (r->dc.len - r->dc.pos >= sizeof(h)) {
		p = r->dc.buf + r->dc.pos;
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
