// SPDX-License-Identifier: MIT
/*
 * Growable text buffer with a hard cap. Invariant: buf is NULL or NUL-terminated at len;
 * len <= cap; a refused append leaves the content unchanged and sets toobig.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/strbuf.h>

#define STRBUF_DEFAULT_CAP (64u << 20)

void hws_strbuf__init(struct hws_strbuf *sb, size_t cap)
{
	memset(sb, 0, sizeof(*sb));
	sb->cap = cap;
}

static int grow(struct hws_strbuf *sb, size_t need)
{
	size_t cap = sb->cap ? sb->cap : STRBUF_DEFAULT_CAP;
	size_t n;
	char *p;

	if (need > cap || sb->len + need > cap) {
		sb->toobig = 1;
		return HWS_E_TOO_BIG;
	}
	if (sb->len + need + 1 <= sb->alloc)
		return 0;
	n = sb->alloc ? sb->alloc : 256;
	while (n < sb->len + need + 1)
		n *= 2;
	p = realloc(sb->buf, n);
	if (!p)
		return -ENOMEM;
	sb->buf = p;
	sb->alloc = n;
	return 0;
}

int hws_strbuf__add(struct hws_strbuf *sb, const void *data, size_t len)
{
	int err = grow(sb, len);

	if (err)
		return err;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = 0;
	return 0;
}

int hws_strbuf__addstr(struct hws_strbuf *sb, const char *s)
{
	return hws_strbuf__add(sb, s, strlen(s));
}

int hws_strbuf__vaddf(struct hws_strbuf *sb, const char *fmt, va_list ap)
{
	char small[256];
	va_list ap2;
	int n, err;

	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n < sizeof(small))
		return hws_strbuf__add(sb, small, (size_t)n);
	err = grow(sb, (size_t)n);
	if (err)
		return err;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int hws_strbuf__addf(struct hws_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = hws_strbuf__vaddf(sb, fmt, ap);
	va_end(ap);
	return err;
}

int hws_strbuf__add_json_str(struct hws_strbuf *sb, const char *s)
{
	int err = hws_strbuf__add(sb, "\"", 1);

	for (; !err && s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			err = hws_strbuf__add(sb, e, 2);
		} else if (c < 0x20) {
			err = hws_strbuf__addf(sb, "\\u%04x", c);
		} else {
			err = hws_strbuf__add(sb, s, 1);
		}
	}
	return err ? err : hws_strbuf__add(sb, "\"", 1);
}

void hws_strbuf__reset(struct hws_strbuf *sb)
{
	sb->len = 0;
	sb->toobig = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}

void hws_strbuf__release(struct hws_strbuf *sb)
{
	if (!sb)
		return;
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	sb->toobig = 0;
}
