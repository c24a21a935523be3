// SPDX-License-Identifier: MIT
/*
 * The escapers of core/util/strbuf.c for strings from files: JSON (control characters as
 * \u00XX, invalid UTF-8 as \ufffd, well-formed UTF-8 kept) and terminal text (C0, DEL, C1
 * and invalid UTF-8 as \xNN), each on fixed cases and on random bytes (the JSON is checked
 * to hold no control byte, the text to be plain text itself); the lines variant, which keeps
 * '\n' and '\t', and the library's messages (hws_log(): what reaches the print function has no
 * other control character, whatever a quoted name holds).
 */
#include <stdlib.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/strbuf.h>

#include "tests.h"
#include "util/internal.h"

static const char *json(struct hws_strbuf *sb, const char *s)
{
	hws_strbuf__reset(sb);
	return hws_strbuf__add_json_str(sb, s) ? "ERR" : sb->buf;
}

static const char *text(struct hws_strbuf *sb, const char *s)
{
	hws_strbuf__reset(sb);
	if (hws_strbuf__add_text_str(sb, s))
		return "ERR";
	return sb->buf ? sb->buf : "";
}

static const char *lines(struct hws_strbuf *sb, const char *s)
{
	hws_strbuf__reset(sb);
	if (hws_strbuf__add_text_lines(sb, s))
		return "ERR";
	return sb->buf ? sb->buf : "";
}

static char logged[4096];

static void catch_msg(enum hws_log_level level, const char *msg)
{
	(void)level;
	snprintf(logged, sizeof(logged), "%s", msg);
}

int main(void)
{
	struct hws_strbuf sb;
	char in[64];

	hws_strbuf__init(&sb, 0);
	T_EQ_STR("json plain", json(&sb, "abc"), "\"abc\"");
	T_EQ_STR("json quote, backslash", json(&sb, "a\"b\\c"), "\"a\\\"b\\\\c\"");
	T_EQ_STR("json controls", json(&sb, "\x1b[31m\x07\r\n"),
		 "\"\\u001b[31m\\u0007\\u000d\\u000a\"");
	T_EQ_STR("json utf-8 kept", json(&sb, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
		 "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	T_EQ_STR("json invalid bytes",
		 json(&sb, "a\xff\xfe"
			   "b"),
		 "\"a\\ufffd\\ufffdb\"");
	T_EQ_STR("json overlong /", json(&sb, "\xc0\xaf"), "\"\\ufffd\\ufffd\"");
	T_EQ_STR("json surrogate", json(&sb, "\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
	T_EQ_STR("json truncated sequence", json(&sb, "\xe2\x82"), "\"\\ufffd\\ufffd\"");
	T_EQ_STR("text plain", text(&sb, "a b/c\\d"), "a b/c\\d");
	T_EQ_STR("text controls", text(&sb, "x\x1b[2Jy\n\x7f"), "x\\x1b[2Jy\\x0a\\x7f");
	T_EQ_STR("text C1 CSI",
		 text(&sb, "\xc2\x9b"
			   "31m"),
		 "\\xc2\\x9b31m");
	T_EQ_STR("text utf-8 kept", text(&sb, "\xc3\xa9\xe2\x82\xac"), "\xc3\xa9\xe2\x82\xac");
	T_EQ_STR("text invalid", text(&sb, "\xff"), "\\xff");
	__T("text_plain of plain", hws_strbuf__text_plain("abc \xc3\xa9"));
	__T("text_plain of ESC", !hws_strbuf__text_plain("a\x1b"));
	T_EQ_STR("lines: newline and tab kept, the rest escaped",
		 lines(&sb, "a\tb\nc\r\x1b[K\xff\xc3\xa9\n"), "a\tb\nc\\x0d\\x1b[K\\xff\xc3\xa9\n");
	T_EQ_STR("lines: plain text as it is", lines(&sb, "x = 1\n"), "x = 1\n");

	hws_print_fn old = hws_set_print(catch_msg);
	hws_log(HWS_LOG_WARN, "event '%s' of %s\n", "ev\x1b]0;t\x07\r\x7f", "f\xff\xc3\xa9");
	T_EQ_STR("hws_log: the quoted names escaped, the newline kept", logged,
		 "event 'ev\\x1b]0;t\\x07\\x0d\\x7f' of f\\xff\xc3\xa9\n");
	hws_log(HWS_LOG_WARN, "plain %d\n", 1);
	T_EQ_STR("hws_log: a plain message unchanged", logged, "plain 1\n");
	hws_set_print(old);

	srand(23);
	for (int it = 0; it < 20000; it++) {
		size_t n = (size_t)(rand() % 63), i;
		const unsigned char *p;
		int bad = 0;

		for (i = 0; i < n; i++)
			in[i] = (char)(1 + rand() % 255);
		in[n] = 0;
		p = (const unsigned char *)json(&sb, in);
		for (; *p && !bad; p++)
			bad = *p < 0x20; /* DEL is valid in JSON strings */
		if (bad) {
			__T("random string: JSON without control bytes", 0);
			break;
		}
		p = (const unsigned char *)text(&sb, in);
		for (; *p && !bad; p++)
			bad = *p < 0x20 || *p == 0x7f;
		if (bad || !hws_strbuf__text_plain(text(&sb, in))) {
			__T("random string: text without control bytes", 0);
			break;
		}
		if (it == 19999)
			__T("20000 random strings: no control byte in JSON or text", 1);
	}
	hws_strbuf__release(&sb);
	TEST_END();
}
