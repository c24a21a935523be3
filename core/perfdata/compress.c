// SPDX-License-Identifier: MIT
/*
 * PERF_RECORD_COMPRESSED / COMPRESSED2 (perf record -z): zstd frames holding ordinary
 * records, decompressed for the reader (core/perfdata/perfdata_read.c hands them out).
 *
 * Invariants:
 *  - libzstd is loaded with dlopen() on first use (no build dependency), once per process
 *    under a lock; its streaming API is declared here as zstd's zstd.h declares it (stable ABI).
 *    Without it, COMPRESSED records are handed out and their contents skipped (one warning
 *    per reader).
 *  - Decompressed records are handed out right after the COMPRESSED record, with its file
 *    offset (as perf report -D shows them); a record may continue in the next COMPRESSED
 *    record, so the unread rest of the buffer is kept. The buffer is bounded by MAX_DECOMP.
 *  - Works on struct pd_decomp alone (read_int.h); calls nothing of core/perfdata/.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/errors.h>

#include "util/internal.h"
#include "perfdata/perfdata_int.h"
#include "perfdata/read_int.h"

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

void pd_decomp_free(struct pd_decomp *dc)
{
	if (dc->zds && zstd.state == 1)
		zstd.free_ds(dc->zds);
	free(dc->buf);
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

int pd_decompress(struct pd_decomp *dc, const uint8_t *rec, size_t size)
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
		if (!dc->warned)
			pr_warn("compressed records (perf record -z): libzstd.so.1 is not "
				"installed, their contents are skipped\n");
		dc->warned = true;
		return 0;
	}
	if (!dc->zds) {
		dc->zds = zstd.create();
		if (!dc->zds || zstd.is_error(zstd.init(dc->zds)))
			return -ENOMEM;
	}
	/* keep the unread remainder (a record cut at the end of the previous frame) */
	if (dc->pos) {
		memmove(dc->buf, dc->buf + dc->pos, dc->len - dc->pos);
		dc->len -= dc->pos;
		dc->pos = 0;
	}
	in.src = rec + off;
	in.size = size - off;
	in.pos = 0;
	while (in.pos < in.size) {
		size_t ret;

		if (dc->cap - dc->len < 65536) {
			size_t cap = dc->cap ? dc->cap * 2 : 1u << 20;
			uint8_t *n;

			if (cap > MAX_DECOMP)
				return HWS_E_TOO_BIG;
			n = realloc(dc->buf, cap);
			if (!n)
				return -ENOMEM;
			dc->buf = n;
			dc->cap = cap;
		}
		out.dst = dc->buf;
		out.size = dc->cap;
		out.pos = dc->len;
		ret = zstd.decompress(dc->zds, &out, &in);
		dc->len = out.pos;
		if (zstd.is_error(ret))
			return HWS_E_BADREC;
		if (out.pos < out.size && in.pos == in.size)
			break;
	}
	return 0;
}
