// SPDX-License-Identifier: MIT
/*
 * Growable text buffer with a hard cap. Invariant: buf is NULL or NUL-terminated at len;
 * len <= cap; a refused append leaves the content unchanged and sets toobig.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/strbuf.h>

#include "util/internal.h"

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

/*
 * Length of the well-formed UTF-8 sequence at @p (1 to 4 bytes: no overlong forms, no
 * surrogates, nothing above U+10FFFF), 0 when the bytes there are not one; *@cp: its code point.
 * A NUL ends the string: it never counts as a continuation byte.
 */
static size_t utf8_seq(const unsigned char *p, unsigned int *cp)
{
	unsigned int c = p[0], n, min, v;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, min = 0x80, v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, min = 0x800, v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, min = 0x10000, v = c & 0x07;
	} else {
		return 0;
	}
	for (unsigned int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/*
 * JSON: '"' and '\\' escaped, control characters as \u00XX, well-formed UTF-8 as it is, and
 * every byte that is not part of well-formed UTF-8 as U+FFFD (\ufffd): the output is valid
 * JSON (RFC 8259, UTF-8) whatever the bytes of @s.
 */
int hws_strbuf__add_json_str(struct hws_strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run;
	int err = hws_strbuf__add(sb, "\"", 1);

	while (!err && p && *p) {
		unsigned int cp;
		size_t n;

		for (run = p; *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\'; p++)
			;
		if (p > run && (err = hws_strbuf__add(sb, run, (size_t)(p - run))))
			break;
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			char e[2] = {'\\', (char)*p++};
			err = hws_strbuf__add(sb, e, 2);
		} else if (*p < 0x20) {
			err = hws_strbuf__addf(sb, "\\u%04x", *p++);
		} else if ((n = utf8_seq(p, &cp))) {
			err = hws_strbuf__add(sb, p, n);
			p += n;
		} else {
			err = hws_strbuf__add(sb, "\\ufffd", 6);
			p++;
		}
	}
	return err ? err : hws_strbuf__add(sb, "\"", 1);
}

/*
 * Terminal text: printable ASCII and well-formed UTF-8 as they are; control characters
 * (C0, DEL and the C1 range U+0080..U+009F, which terminals take as escape sequences) and
 * bytes that are not well-formed UTF-8 as \xNN, one per byte, so a name from a file can
 * neither move the cursor, recolour, retitle the terminal nor hide the text after it.
 */
/* the terminal escaper; @lines: '\n' and '\t' as they are (a message of several lines) */
static int add_text(struct hws_strbuf *sb, const char *s, bool lines)
{
	const unsigned char *p = (const unsigned char *)s, *run;
	int err = 0;

	while (!err && p && *p) {
		unsigned int cp = 0;
		size_t n;

		for (run = p; (*p >= 0x20 && *p < 0x7f) || (lines && (*p == '\n' || *p == '\t'));
		     p++)
			;
		if (p > run && (err = hws_strbuf__add(sb, run, (size_t)(p - run))))
			break;
		if (!*p)
			break;
		n = utf8_seq(p, &cp);
		if (n > 1 && cp >= 0xa0) {
			err = hws_strbuf__add(sb, p, n);
			p += n;
			continue;
		}
		if (!n)
			n = 1;
		for (size_t i = 0; i < n && !err; i++)
			err = hws_strbuf__addf(sb, "\\x%02x", *p++);
	}
	return err;
}

int hws_strbuf__add_text_str(struct hws_strbuf *sb, const char *s)
{
	return add_text(sb, s, false);
}

int hws_strbuf__add_text_lines(struct hws_strbuf *sb, const char *s)
{
	return add_text(sb, s, true);
}

/* whether hws_strbuf__add_text_str() would write @s as it is */
bool hws_strbuf__text_plain(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned int cp = 0;
		size_t n;

		if (*p >= 0x20 && *p < 0x7f) {
			p++;
			continue;
		}
		n = utf8_seq(p, &cp);
		if (n < 2 || cp < 0xa0)
			return false;
		p += n;
	}
	return true;
}

const char *hws__text(struct hws_strbuf *b, const char *s)
{
	if (!s || hws_strbuf__text_plain(s))
		return s;
	hws_strbuf__reset(b);
	if (hws_strbuf__add_text_str(b, s) || !b->buf)
		return "?";
	return b->buf;
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
