/* SPDX-License-Identifier: MIT */
/*
 * Building perf records by hand in tests: a fixed buffer and appenders (host byte order).
 * rb_begin() starts a record with its header; the caller sets header.size when done.
 * Tests append a sample's fields in the kernel's order themselves, on purpose: they encode
 * independently of core/perfdata/sample_fields.h, the table the code under test walks.
 */
#ifndef HWS_TESTS_REC_BUILD_H
#define HWS_TESTS_REC_BUILD_H

#include <stdint.h>
#include <string.h>

#include <linux/perf_event.h>

struct rb {
	uint8_t b[4096];
	size_t n;
};

static inline void put(struct rb *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static inline void put64(struct rb *r, uint64_t v)
{
	put(r, &v, 8);
}

static inline void put32x2(struct rb *r, uint32_t a, uint32_t b)
{
	put(r, &a, 4);
	put(r, &b, 4);
}

static inline void begin(struct rb *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc};

	r->n = 0;
	put(r, &h, sizeof(h));
}

/* test backends: init/detect/encode that do nothing (decode-only tests) */
struct hws_host;
struct hws_event_request;
struct hws_event_desc;

static inline int be_init(void *priv, const struct hws_host *host)
{
	(void)priv;
	(void)host;
	return 0;
}

static inline int be_detect(void *priv, char *why, size_t len)
{
	(void)priv;
	(void)why;
	(void)len;
	return 1;
}

static inline int be_encode(void *priv, const struct hws_event_request *req,
			    struct hws_event_desc *out, int max, char *err, size_t errlen)
{
	(void)priv;
	(void)req;
	(void)out;
	(void)max;
	(void)err;
	(void)errlen;
	return 0;
}

#endif
