/* SPDX-License-Identifier: MIT */
/*
 * struct hws_strbuf: a growable text buffer with a hard cap, used by every report and dump
 * formatter so output can be golden-tested and is never unbounded (like curl's dynbuf).
 * Once an append would pass @cap the buffer keeps what it has and sets @toobig.
 */
#ifndef HWSAMPLE_STRBUF_H
#define HWSAMPLE_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <hwsample/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hws_strbuf {
	char *buf;  /* NUL-terminated, owned; NULL until the first append */
	size_t len; /* bytes used, not counting the NUL */
	size_t alloc;
	size_t cap; /* hard maximum of len; 0 = default (64 MiB) */
	int toobig; /* an append was refused */
};

#define HWS_STRBUF_INIT                                                                            \
	{                                                                                          \
		NULL, 0, 0, 0, 0                                                                   \
	}

HWS_API void hws_strbuf__init(struct hws_strbuf *sb, size_t cap);
/* Return 0 or -ENOMEM / HWS_E_TOO_BIG. */
HWS_API int hws_strbuf__add(struct hws_strbuf *sb, const void *data, size_t len);
HWS_API int hws_strbuf__addstr(struct hws_strbuf *sb, const char *s);
HWS_API int hws_strbuf__addf(struct hws_strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
HWS_API int hws_strbuf__vaddf(struct hws_strbuf *sb, const char *fmt, va_list ap);
/*
 * Append @s as a JSON string literal (with quotes and escapes): control characters as
 * \u00XX, bytes that are not well-formed UTF-8 as \ufffd; valid JSON whatever the bytes.
 */
HWS_API int hws_strbuf__add_json_str(struct hws_strbuf *sb, const char *s);
/*
 * Append @s for a terminal: control characters (C0, DEL, C1) and bytes that are not
 * well-formed UTF-8 as \xNN, the rest as it is (no escape sequence reaches the terminal).
 */
HWS_API int hws_strbuf__add_text_str(struct hws_strbuf *sb, const char *s);
/* The same for a message of several lines: '\n' and '\t' are kept, the rest as above. */
HWS_API int hws_strbuf__add_text_lines(struct hws_strbuf *sb, const char *s);
/* Whether hws_strbuf__add_text_str() writes @s unchanged. */
HWS_API bool hws_strbuf__text_plain(const char *s);
HWS_API void hws_strbuf__reset(struct hws_strbuf *sb);	 /* len = 0, keeps memory */
HWS_API void hws_strbuf__release(struct hws_strbuf *sb); /* frees; NULL-safe */

#ifdef __cplusplus
}
#endif
#endif
