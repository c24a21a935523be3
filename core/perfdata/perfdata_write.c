// SPDX-License-Identifier: MIT
/*
 * perf.data writer (PERFILE2, file and pipe mode).
 *
 * File layout, perf's own (perf record writes its files the same way):
 *   [file header, 104 B][ids][attrs][data section ...][feature index + payloads]
 * At creation the header is a placeholder (no attrs, data.size 0). At the first data byte
 * (__write, __flush or __close, whichever comes first) the ids of every event and the attr
 * section are written right after the header, the data section starts after them, and
 * the header is rewritten to point at both (data.size 0, no feature bits). From then on
 * data.size in the header is kept current: each time the buffer goes to the file (when it
 * is full, at __flush, which the recorder calls after each round's FINISHED_ROUND) the
 * 8-byte data.size is rewritten in place to end at the last whole record in the file. The
 * writer follows the record framing itself (headers, AUXTRACE payloads) for that, so a
 * flush that ends inside a record or a write that fails half way never puts a torn record
 * inside data.size. Features follow the data at __close(), which sets the feature bits
 * last. A recorder killed at any point (SIGKILL, OOM, power cut after the page cache
 * reached the disk) therefore leaves a file whose header, attrs and ids are whole and
 * whose data.size covers every round written before it died; no feature bits mark it as
 * unfinished (hws_perf_reader__unfinished()), and readers recover the whole records that
 * follow data.size too.
 * An attr or ids added after the data started cannot go before it: the attr section is
 * then written again after the features at __close() and the header points there (the
 * early one stays as dead bytes before the data; a killed writer's file has the early one).
 * A failed write (ENOSPC, EDQUOT, EIO) sticks: data.size stays at the last whole record
 * that reached the file, __close() still writes the features there when the file system
 * takes them (else it cuts the file at the end of that record and sets no feature bit),
 * and hws_perf_writer__stats() counts the records, samples and bytes that were given to
 * the writer but are not in the file.
 *
 * Pipe mode: the 16-byte pipe header, then one HEADER_ATTR record per event, one
 * HEADER_FEATURE record per feature, TRACING_DATA (as perf sends it: a HEADER_TRACING_DATA
 * record, then the tracepoint formats) and FINISHED_INIT are emitted before the first data
 * byte (or at close when nothing was written); after that no event can be added, and a
 * feature set later is sent inline (perf accepts them anywhere in the stream; tracing data
 * sent after samples comes too late for readers to decode those samples' raw fields).
 * All output goes through a 256 KiB buffer (flushed when full, by __flush() and __close()).
 *
 * Invariants: the writer only ever appends to the data section; every write is retried on
 * EINTR and short writes; the first error sticks (w->err) and is returned by __close();
 * file mode: the header's data.size only ever names bytes that are in the file and end
 * on a record boundary (w->committed), and it is written after those bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwsample/perfdata.h>

#include "util/internal.h"
#include "perfdata/perfdata_int.h"

#define NAME_ALIGN 64
#define MAX_ATTRS  4096
#define WBUF_SIZE  (256u << 10)

struct wattr {
	struct hws_perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct wfeat {
	void *data;
	size_t len;
};

/*
 * Record framing of a byte stream of whole records (file mode data): where each record
 * ends (header size, plus the payload an AUXTRACE or TRACING_DATA record announces), so
 * the writer knows the last record boundary of any prefix. Headers may be split between
 * calls (gathered in hdr). A header that is not a record (size < 8, unknown type) gives
 * up: from there every byte counts as whole (lost).
 */
struct frame {
	uint64_t off;		   /* data bytes walked */
	uint64_t rec_end;	   /* end of the record being walked; == off between records */
	uint64_t bound;		   /* data offset after the last whole record walked */
	uint64_t records, samples; /* whole records (SAMPLE records) walked */
	uint32_t type;		   /* of the record being walked */
	uint8_t hdr[16];	   /* first bytes of a header split between two walks */
	uint8_t hlen;
	bool lost;
};

struct hws_perf_writer {
	int fd;
	bool own_fd;
	bool pipe;
	bool pipe_started;
	bool started;	 /* file mode: ids + attrs are in the file, the data section is open */
	bool attrs_late; /* file mode: an attr or ids came after the start (attrs at the end) */
	int err;
	uint64_t pos;	    /* current write position (file offset / bytes of the stream) */
	uint64_t data_off;  /* file mode: data section start */
	uint64_t data_size; /* bytes appended by __write (buffered ones included) */
	uint64_t attrs_off; /* file mode: the attr section written at the start */
	/* file mode: framing of every data byte that left the buffer, written or (after an
	 * error) lost (fa); the data bytes up to the last whole record in the file and their
	 * counts (committed); the data.size the file's header says (hdr_size) */
	struct frame fa;
	uint64_t committed, c_records, c_samples, hdr_size;
	uint8_t *wbuf; /* small writes are gathered here; flushed when full and at close */
	size_t wlen;
	struct wattr *attrs;
	int nr_attrs, attrs_cap;
	struct wfeat feats[HWS_FEAT__MAX];
};

static int write_data(struct hws_perf_writer *w, const void *p, size_t n);

static int write_all(struct hws_perf_writer *w, const void *buf, size_t len)
{
	const char *p = buf;

	if (w->err)
		return w->err;
	while (len) {
		ssize_t n = write(w->fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			w->err = -errno;
			return w->err;
		}
		if (n == 0) {
			w->err = -EIO;
			return w->err;
		}
		p += n;
		len -= (size_t)n;
		w->pos += (uint64_t)n;
	}
	return 0;
}

static int flush_buf(struct hws_perf_writer *w)
{
	size_t n = w->wlen;

	w->wlen = 0;
	if (!n)
		return 0;
	return w->started ? write_data(w, w->wbuf, n) : write_all(w, w->wbuf, n);
}

/* Buffered append: small writes gather in wbuf, large ones go straight out. */
static int append(struct hws_perf_writer *w, const void *buf, size_t len)
{
	int err;

	if (w->err)
		return w->err;
	if (len < WBUF_SIZE && w->wbuf) {
		if (w->wlen + len > WBUF_SIZE) {
			err = flush_buf(w);
			if (err)
				return err;
		}
		memcpy(w->wbuf + w->wlen, buf, len);
		w->wlen += len;
		return 0;
	}
	err = flush_buf(w);
	return err ? err : write_all(w, buf, len);
}

static int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int write_header(struct hws_perf_writer *w, const struct hws_file_header *h)
{
	return pwrite_all(w->fd, h, sizeof(*h), 0);
}

/* ---------------------------------------------------------------- file mode data */

/* Walk @n more bytes of records (@p) through @f. */
static void frame_walk(struct frame *f, const uint8_t *p, size_t n)
{
	uint64_t end = f->off + n;

	while (f->off < end) {
		struct perf_event_header h;
		uint64_t start, total;
		size_t take, have, need;

		if (f->lost) {
			f->off = f->rec_end = f->bound = end;
			return;
		}
		if (f->off < f->rec_end) { /* inside a record: step over its bytes */
			uint64_t k = (f->rec_end < end ? f->rec_end : end) - f->off;

			p += k;
			f->off += k;
			if (f->off == f->rec_end) {
				f->bound = f->off;
				f->records++;
				f->samples += f->type == PERF_RECORD_SAMPLE;
			}
			continue;
		}
		/* a header starts at off - hlen: look at up to 16 bytes of it (AUXTRACE keeps
		 * its payload size at +8), without stepping over them yet */
		take = sizeof(f->hdr) - f->hlen;
		if (take > end - f->off)
			take = (size_t)(end - f->off);
		memcpy(f->hdr + f->hlen, p, take);
		have = f->hlen + take;
		start = f->off - f->hlen;
		need = sizeof(h);
		if (have >= sizeof(h)) {
			memcpy(&h, f->hdr, sizeof(h));
			if (h.size < sizeof(h) || h.type >= HWS_RECORD__MAX) {
				f->lost = true;
				continue;
			}
			if (h.type == HWS_RECORD_AUXTRACE && h.size >= 16)
				need = 16;
			else if (h.type == HWS_RECORD_HEADER_TRACING_DATA && h.size >= 12)
				need = 12;
		}
		if (have < need) { /* the input ends inside the header */
			f->hlen = (uint8_t)have;
			f->off += take;
			return;
		}
		total = h.size;
		if (need == 16)
			total += pd_get64(f->hdr + 8);
		else if (need == 12)
			total += (pd_get32(f->hdr + 8) + 7ULL) & ~7ULL;
		if (total < h.size || start + total < start) {
			f->lost = true;
			continue;
		}
		f->rec_end = start + total;
		f->type = h.type;
		f->hlen = 0;
	}
}

/* The header's data.size follows w->committed (8 bytes rewritten in place). */
static int sync_size(struct hws_perf_writer *w)
{
	int err;

	if (w->committed == w->hdr_size)
		return 0;
	err = pwrite_all(w->fd, &w->committed, 8, offsetof(struct hws_file_header, data.size));
	if (err)
		return w->err ? w->err : (w->err = err);
	w->hdr_size = w->committed;
	return 0;
}

/*
 * File mode: write @n data bytes (the buffer, or a large __write()), walk their records,
 * commit the ones that reached the file whole and rewrite data.size. After an error
 * (now or earlier) the bytes that did not get there are walked too: they count as lost.
 */
static int write_data(struct hws_perf_writer *w, const void *p, size_t n)
{
	uint64_t from = w->pos;
	bool was_ok = !w->err;
	int err = write_all(w, p, n);
	size_t k = (size_t)(w->pos - from);

	frame_walk(&w->fa, p, k);
	if (was_ok) {
		w->committed = w->fa.bound;
		w->c_records = w->fa.records;
		w->c_samples = w->fa.samples;
	}
	if (err)
		frame_walk(&w->fa, (const uint8_t *)p + k, n - k);
	if (k) {
		int serr = sync_size(w);

		if (!err)
			err = serr;
	}
	return err;
}

/* File mode: append to the data section (buffered like append()). */
static int append_data(struct hws_perf_writer *w, const void *buf, size_t len)
{
	int err = w->err;

	if (!err && len < WBUF_SIZE) {
		if (w->wlen + len > WBUF_SIZE)
			err = flush_buf(w);
		if (!err) {
			memcpy(w->wbuf + w->wlen, buf, len);
			w->wlen += len;
			return 0;
		}
	} else if (!err) {
		err = flush_buf(w);
		if (!err)
			return write_data(w, buf, len);
	}
	frame_walk(&w->fa, buf, len); /* kept out of the file by the error: lost */
	return err;
}

static void init_header(struct hws_file_header *h)
{
	memset(h, 0, sizeof(*h));
	h->magic = PERF_MAGIC2;
	h->size = sizeof(*h);
	h->attr_size = HWS_FILE_ATTR_SIZE + sizeof(struct hws_file_section);
}

/*
 * The ids of every attr, then the attr array with each one's ids section, as they go at
 * file offset @off (perf's layout). *attrs_off: where the attr array starts.
 */
static int build_attr_section(const struct hws_perf_writer *w, uint64_t off, struct hws_strbuf *sb,
			      uint64_t *attrs_off)
{
	uint64_t ids_off = off;
	int err = 0;

	for (int i = 0; !err && i < w->nr_attrs; i++)
		err = hws_strbuf__add(sb, w->attrs[i].ids, w->attrs[i].nr_ids * 8);
	*attrs_off = off + sb->len;
	for (int i = 0; !err && i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];
		struct hws_file_section ids = {ids_off, a->nr_ids * 8};

		err = hws_strbuf__add(sb, &a->attr, HWS_FILE_ATTR_SIZE);
		if (!err)
			err = hws_strbuf__add(sb, &ids, sizeof(ids));
		ids_off += a->nr_ids * 8;
	}
	return err;
}

/* File mode, at the first data byte: ids and attrs right after the header, the data
 * section after them, and the header pointing at both (data.size 0, no feature bits). */
static int start_file(struct hws_perf_writer *w)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct hws_file_header h;
	uint64_t attrs_off;
	int err;

	if (w->started || w->err)
		return w->err;
	err = build_attr_section(w, w->pos, &sb, &attrs_off);
	if (!err && sb.len)
		err = write_all(w, sb.buf, sb.len);
	hws_strbuf__release(&sb);
	if (!err) {
		init_header(&h);
		h.attrs.offset = attrs_off;
		h.attrs.size = (uint64_t)w->nr_attrs * h.attr_size;
		h.data.offset = w->pos;
		err = write_header(w, &h);
	}
	if (err)
		return w->err ? w->err : (w->err = err);
	w->attrs_off = attrs_off;
	w->data_off = w->pos;
	w->started = true;
	return 0;
}

struct hws_perf_writer *hws_perf_writer__new_fd(int fd, bool pipe_mode)
{
	struct hws_perf_writer *w;
	struct stat st;
	int err;

	if (fd < 0)
		return errno = EBADF, NULL;
	if (fstat(fd, &st))
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return errno = ENOMEM, NULL;
	w->fd = fd;
	w->wbuf = malloc(WBUF_SIZE);
	if (!w->wbuf) {
		err = -ENOMEM;
		goto err_out;
	}
	w->pipe = pipe_mode || !S_ISREG(st.st_mode) || lseek(fd, 0, SEEK_CUR) < 0;
	if (!w->pipe) {
		struct hws_file_header h;

		init_header(&h);
		h.data.offset = sizeof(h);
		if (ftruncate(fd, 0) && errno != EINVAL) {
			err = -errno;
			goto err_out;
		}
		err = write_header(w, &h);
		if (err)
			goto err_out;
		if (lseek(fd, sizeof(h), SEEK_SET) < 0) {
			err = -errno;
			goto err_out;
		}
		w->pos = sizeof(h);
		w->data_off = sizeof(h);
	}
	return w;
err_out:
	free(w->wbuf);
	free(w);
	return errno = -err, NULL;
}

struct hws_perf_writer *hws_perf_writer__new(const char *path, bool pipe_mode)
{
	struct hws_perf_writer *w;
	int fd, err;

	if (!path)
		return errno = EINVAL, NULL;
	if (!strcmp(path, "-"))
		return hws_perf_writer__new_fd(STDOUT_FILENO, true);
	/* never through a symlink: one planted at @path (a shared directory) would make us
	 * create or overwrite its target */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return NULL;
	w = hws_perf_writer__new_fd(fd, pipe_mode);
	if (!w) {
		err = errno;
		close(fd);
		return errno = err, NULL;
	}
	w->own_fd = true;
	return w;
}

int hws_perf_writer__add_attr(struct hws_perf_writer *w, const struct hws_perf_event_attr *attr,
			      const char *name, const uint64_t *ids, size_t nr_ids)
{
	struct wattr *a, *na;

	if (!w || !attr || (nr_ids && !ids))
		return -EINVAL;
	if (w->pipe_started)
		return -EBUSY;
	if (w->nr_attrs >= MAX_ATTRS || nr_ids > (1u << 24))
		return -E2BIG;
	w->attrs_late |= w->started;	   /* the file's attr section is before the data */
	if (w->nr_attrs == w->attrs_cap) { /* doubling: 4096 events stay cheap */
		int cap = w->attrs_cap ? w->attrs_cap * 2 : 8;

		na = realloc(w->attrs, sizeof(*na) * (size_t)cap);
		if (!na)
			return -ENOMEM;
		w->attrs = na;
		w->attrs_cap = cap;
	}
	na = w->attrs;
	a = &na[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr,
	       attr->size && attr->size < sizeof(*attr) ? attr->size : sizeof(*attr));
	a->attr.size = HWS_FILE_ATTR_SIZE;
	if (name) {
		a->name = strdup(name);
		if (!a->name)
			return -ENOMEM;
	}
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(*ids));
		if (!a->ids) {
			free(a->name);
			return -ENOMEM;
		}
		memcpy(a->ids, ids, nr_ids * sizeof(*ids));
		a->nr_ids = nr_ids;
	}
	return w->nr_attrs++;
}

int hws_perf_writer__add_ids(struct hws_perf_writer *w, int idx, const uint64_t *ids, size_t nr_ids)
{
	struct wattr *a;
	uint64_t *n;

	if (!w || idx < 0 || idx >= w->nr_attrs || (nr_ids && !ids))
		return -EINVAL;
	if (w->pipe_started)
		return -EBUSY;
	a = &w->attrs[idx];
	if (a->nr_ids + nr_ids > (1u << 24))
		return -E2BIG;
	w->attrs_late |= w->started && nr_ids;
	n = realloc(a->ids, (a->nr_ids + nr_ids) * sizeof(*n) + 1);
	if (!n)
		return -ENOMEM;
	memcpy(n + a->nr_ids, ids, nr_ids * sizeof(*n));
	a->ids = n;
	a->nr_ids += nr_ids;
	return 0;
}

/* ---------------------------------------------------------------- features */

static int emit_feature(struct hws_perf_writer *w, int f);

int hws_perf_writer__set_feature(struct hws_perf_writer *w, int feat, const void *data, size_t len)
{
	void *p;

	if (!w || feat <= 0 || feat >= HWS_FEAT__MAX || (len && !data))
		return -EINVAL;
	p = malloc(len ? len : 1);
	if (!p)
		return -ENOMEM;
	if (len)
		memcpy(p, data, len);
	free(w->feats[feat].data);
	w->feats[feat].data = p;
	w->feats[feat].len = len;
	/* pipe mode, stream already started: send it now (perf takes FEATURE records
	 * anywhere in the stream) */
	return w->pipe && w->pipe_started ? emit_feature(w, feat) : 0;
}

int hws_perf_writer__set_string(struct hws_perf_writer *w, int feat, const char *s)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	int err;

	if (!s)
		return -EINVAL;
	err = hws__put_string(&sb, s);
	if (!err)
		err = hws_perf_writer__set_feature(w, feat, sb.buf, sb.len);
	hws_strbuf__release(&sb);
	return err;
}

/* {u32 len; char str[len]} with len = strlen + 1 rounded up to 64, zero padded. */
int hws__put_string(struct hws_strbuf *sb, const char *s)
{
	static const char zero[NAME_ALIGN];
	size_t len = strlen(s) + 1, olen = (len + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	uint32_t l = (uint32_t)olen;
	int err;

	if (olen > UINT32_MAX)
		return -E2BIG;
	err = hws_strbuf__add(sb, &l, 4);
	if (!err)
		err = hws_strbuf__add(sb, s, len);
	if (!err)
		err = hws_strbuf__add(sb, zero, olen - len);
	return err;
}

int hws__put_u32(struct hws_strbuf *sb, uint32_t v)
{
	return hws_strbuf__add(sb, &v, 4);
}

int hws__put_u64(struct hws_strbuf *sb, uint64_t v)
{
	return hws_strbuf__add(sb, &v, 8);
}

/* Default display name of an event without one. */
static void attr_name(const struct wattr *a, char *buf, size_t len)
{
	if (a->name)
		snprintf(buf, len, "%s", a->name);
	else
		hws__attr_default_name(&a->attr, NULL, buf, len);
}

static int build_event_desc(struct hws_perf_writer *w, struct hws_strbuf *sb)
{
	int err = hws__put_u32(sb, (uint32_t)w->nr_attrs);

	if (!err)
		err = hws__put_u32(sb, HWS_FILE_ATTR_SIZE);
	for (int i = 0; !err && i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];
		char name[256];

		attr_name(a, name, sizeof(name));
		err = hws_strbuf__add(sb, &a->attr, HWS_FILE_ATTR_SIZE);
		if (!err)
			err = hws__put_u32(sb, (uint32_t)a->nr_ids);
		if (!err)
			err = hws__put_string(sb, name);
		if (!err && a->nr_ids)
			err = hws_strbuf__add(sb, a->ids, a->nr_ids * sizeof(uint64_t));
	}
	return err;
}

/* Fill EVENT_DESC unless the caller set it. */
static int prepare_features(struct hws_perf_writer *w)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	int err;

	if (w->feats[HWS_FEAT_EVENT_DESC].data || !w->nr_attrs)
		return 0;
	err = build_event_desc(w, &sb);
	if (!err)
		err = hws_perf_writer__set_feature(w, HWS_FEAT_EVENT_DESC, sb.buf, sb.len);
	hws_strbuf__release(&sb);
	return err;
}

/* ---------------------------------------------------------------- pipe mode */

/*
 * Pipe mode: one feature as a HEADER_FEATURE record; TRACING_DATA as perf writes it
 * (perf_event__synthesize_tracing_data()): struct { header (size 16); u32 size; u32 pad; }
 * with size the data's length rounded up to 8, then the data and zero padding to that
 * size. perf's reader parses the data itself and checks that what it read plus the padding
 * to 8 equals size.
 */
static int emit_feature(struct hws_perf_writer *w, int f)
{
	static const char zero[8];
	const struct wfeat *ft = &w->feats[f];
	struct perf_event_header eh = {HWS_RECORD_HEADER_FEATURE, 0, 0};
	size_t pad = (8 - ft->len % 8) % 8, sz;
	uint64_t id = (uint64_t)f;
	int err;

	if (!ft->data || f == HWS_FEAT_BUILD_ID)
		return 0;
	if (f == HWS_FEAT_TRACING_DATA) {
		struct {
			struct perf_event_header h;
			uint32_t size, pad;
		} td = {
		    {HWS_RECORD_HEADER_TRACING_DATA, 0, sizeof(td)}, (uint32_t)(ft->len + pad), 0};

		if (ft->len + pad > UINT32_MAX) {
			pr_warn("perfdata: tracing data too large for pipe mode, dropped\n");
			return 0;
		}
		err = append(w, &td, sizeof(td));
		if (!err)
			err = append(w, ft->data, ft->len);
		if (!err && pad)
			err = append(w, zero, pad);
		return err;
	}
	sz = sizeof(eh) + 8 + ft->len + pad;
	if (sz > UINT16_MAX) {
		pr_warn("header feature %d is too big for a pipe: not written\n", f);
		return 0;
	}
	eh.size = (uint16_t)sz;
	err = append(w, &eh, sizeof(eh));
	if (!err)
		err = append(w, &id, 8);
	if (!err)
		err = append(w, ft->data, ft->len);
	if (!err && pad)
		err = append(w, zero, pad);
	return err;
}

static int pipe_start(struct hws_perf_writer *w)
{
	struct {
		uint64_t magic, size;
	} ph = {PERF_MAGIC2, PERF_PIPE_HEADER_SIZE};
	struct perf_event_header eh;
	int err;

	if (w->pipe_started)
		return 0;
	err = prepare_features(w);
	if (err)
		return w->err = err;
	w->pipe_started = true;
	err = append(w, &ph, sizeof(ph));
	for (int i = 0; !err && i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];
		size_t sz = sizeof(eh) + HWS_FILE_ATTR_SIZE + a->nr_ids * 8;

		if (sz > UINT16_MAX)
			return w->err = -E2BIG;
		eh.type = HWS_RECORD_HEADER_ATTR;
		eh.misc = 0;
		eh.size = (uint16_t)sz;
		err = append(w, &eh, sizeof(eh));
		if (!err)
			err = append(w, &a->attr, HWS_FILE_ATTR_SIZE);
		if (!err && a->nr_ids)
			err = append(w, a->ids, a->nr_ids * 8);
	}
	/* the features, then the tracing data, as perf record sends them */
	for (int f = 1; !err && f < HWS_FEAT__MAX; f++)
		if (f != HWS_FEAT_TRACING_DATA)
			err = emit_feature(w, f);
	if (!err)
		err = emit_feature(w, HWS_FEAT_TRACING_DATA);
	if (!err) {
		eh.type = HWS_RECORD_FINISHED_INIT;
		eh.misc = 0;
		eh.size = sizeof(eh);
		err = append(w, &eh, sizeof(eh));
	}
	return err;
}

int hws_perf_writer__write(struct hws_perf_writer *w, const void *buf, size_t len)
{
	int err;

	if (!w || (len && !buf))
		return -EINVAL;
	if (!w->pipe) {
		start_file(w); /* an error sticks in w->err: the bytes are then counted lost */
		w->data_size += len;
		return append_data(w, buf, len);
	}
	err = pipe_start(w);
	if (err)
		return err;
	err = append(w, buf, len);
	if (!err)
		w->data_size += len;
	return err;
}

int hws_perf_writer__flush(struct hws_perf_writer *w)
{
	int err;

	if (!w)
		return -EINVAL;
	if (w->pipe) {
		if (!w->pipe_started) {
			err = pipe_start(w);
			if (err)
				return err;
		}
		return flush_buf(w);
	}
	start_file(w);
	err = flush_buf(w);
	return err ? err : w->err;
}

uint64_t hws_perf_writer__data_size(const struct hws_perf_writer *w)
{
	return w ? w->data_size : 0;
}

int64_t hws_perf_writer__data_offset(struct hws_perf_writer *w)
{
	if (!w)
		return -EINVAL;
	if (w->pipe)
		return 0;
	start_file(w);
	return w->err ? w->err : (int64_t)w->data_off;
}

void hws_perf_writer__stats(const struct hws_perf_writer *w, struct hws_perf_writer_stats *st)
{
	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	if (!w)
		return;
	st->err = w->err;
	if (w->pipe) {
		st->pipe = true;
		st->data_size = w->data_size;
		return;
	}
	st->data_size = w->committed;
	st->records = w->c_records;
	st->samples = w->c_samples;
	if (w->err) { /* after an error every byte given has been walked (wlen is 0) */
		st->lost_bytes = w->data_size - w->committed;
		st->lost_records = w->fa.records - w->c_records;
		st->lost_samples = w->fa.samples - w->c_samples;
		/* a record given in part (the caller stopped inside it) */
		if (w->fa.off < w->fa.rec_end || w->fa.hlen)
			st->lost_records++;
	}
}

/* ---------------------------------------------------------------- close */

/*
 * File mode: the features after the data's last whole record, the attr section again
 * after them if an event or ids came after the data started, then the header with the
 * feature bits (the commit point). When the file system takes none of that (full disk)
 * the file is cut after the data and its header keeps no feature bits.
 */
static int finish_file(struct hws_perf_writer *w, uint64_t size)
{
	struct hws_file_section *secs = NULL;
	struct hws_file_header h;
	uint64_t off, feat_off;
	int nr = 0, err, n;

	err = prepare_features(w);
	if (err)
		return err;
	for (int f = 1; f < HWS_FEAT__MAX; f++)
		nr += w->feats[f].data != NULL;

	init_header(&h);
	h.attrs.offset = w->attrs_off;
	h.attrs.size = (uint64_t)w->nr_attrs * h.attr_size;
	h.data.offset = w->data_off;
	h.data.size = size;

	/* Features: index right after the data, then the payloads in bit order. */
	feat_off = w->data_off + size;
	secs = calloc((size_t)nr + 1, sizeof(*secs));
	if (!secs)
		return -ENOMEM;
	off = feat_off + (uint64_t)nr * sizeof(*secs);
	n = 0;
	for (int f = 1; f < HWS_FEAT__MAX; f++) {
		const struct wfeat *ft = &w->feats[f];

		if (!ft->data)
			continue;
		h.adds_features[f / 64] |= 1ULL << (f % 64);
		secs[n].offset = off;
		secs[n].size = ft->len;
		err = pwrite_all(w->fd, ft->data, ft->len, off);
		if (err)
			goto bare;
		off += ft->len;
		n++;
	}
	err = pwrite_all(w->fd, secs, (size_t)nr * sizeof(*secs), feat_off);
	if (err)
		goto bare;

	if (!w->started || w->attrs_late) {
		/* the attrs (and ids) before the data are not all of them: all again here */
		struct hws_strbuf sb = HWS_STRBUF_INIT;
		uint64_t attrs_off;

		err = build_attr_section(w, off, &sb, &attrs_off);
		if (!err && sb.len)
			err = pwrite_all(w->fd, sb.buf, sb.len, off);
		off += sb.len;
		hws_strbuf__release(&sb);
		if (err)
			goto bare;
		h.attrs.offset = attrs_off;
	}
	if (ftruncate(w->fd, (off_t)off) && errno != EINVAL) {
		err = -errno;
		goto out;
	}
	/* The header last: until now the file says "no features". */
	err = write_header(w, &h);
	goto out;
bare:
	memset(h.adds_features, 0, sizeof(h.adds_features));
	if (ftruncate(w->fd, (off_t)feat_off) && errno != EINVAL)
		goto out;
	if (w->started && !write_header(w, &h))
		w->hdr_size = size;
out:
	free(secs);
	return err;
}

int hws_perf_writer__close(struct hws_perf_writer *w)
{
	int err, ferr;

	if (!w)
		return 0;
	if (w->pipe) {
		err = pipe_start(w);
		if (!err)
			err = flush_buf(w);
	} else {
		/* flush what is buffered; whatever happened before, still write the features
		 * (and attrs if late), so the file holds every whole record that reached it
		 * (after a failed write the data ends at the last of them: w->committed) */
		start_file(w);
		flush_buf(w);
		err = w->err;
		ferr = finish_file(w, err ? w->committed : w->data_size);
		if (!err)
			err = ferr;
	}
	if (w->own_fd && close(w->fd) && !err)
		err = -errno;
	for (int i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].name);
		free(w->attrs[i].ids);
	}
	free(w->attrs);
	for (int f = 0; f < HWS_FEAT__MAX; f++)
		free(w->feats[f].data);
	free(w->wbuf);
	free(w);
	return err;
}
