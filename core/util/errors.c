// SPDX-License-Identifier: MIT
/*
 * Error strings and the library's logging hook. The library never prints directly: every
 * message goes through hws_log() to the function set with hws_set_print().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/strbuf.h>

#include "util/internal.h"

static const char *const hws_error_text[] = {
#define _HE(name, text) text,
    HWS_ERRORS
#undef _HE
};

const char *hws_strerror(int err, char *buf, size_t len)
{
	if (!buf || !len)
		return "";
	if (err > HWS_E__START && err < HWS_E__END) {
		snprintf(buf, len, "%s", hws_error_text[err - HWS_E__START - 1]);
	} else if (err < 0 && err > -4096) {
		snprintf(buf, len, "%s", strerror(-err));
	} else {
		snprintf(buf, len, "unknown error %d", err);
	}
	return buf;
}

static int log_level = HWS_LOG_WARN;
static hws_print_fn print_fn;

static void default_print(enum hws_log_level level, const char *msg)
{
	fputs(msg, stderr);
}

hws_print_fn hws_set_print(hws_print_fn fn)
{
	hws_print_fn old = print_fn ? print_fn : default_print;

	print_fn = fn;
	return old;
}

int hws_get_log_level(void)
{
	return log_level;
}

void hws_set_log_level(int level)
{
	log_level = level;
}

/*
 * Messages quote names from files (events, comm, paths, config keys): whatever they hold, the
 * message passed on has no control character but '\n' and '\t' and is valid UTF-8
 * (hws_strbuf__add_text_lines(); without memory, such bytes become '?').
 */
void hws_log(enum hws_log_level level, const char *fmt, ...)
{
	struct hws_strbuf sb;
	char msg[2048];
	va_list ap;

	if ((int)level > hws_get_log_level())
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hws_strbuf__init(&sb, 4 * sizeof(msg));
	if (hws_strbuf__add_text_lines(&sb, msg) || !sb.buf) {
		hws_strbuf__release(&sb);
		for (unsigned char *p = (unsigned char *)msg; *p; p++)
			if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p >= 0x7f)
				*p = '?';
	}
	(print_fn ? print_fn : default_print)(level, sb.buf ? sb.buf : msg);
	hws_strbuf__release(&sb);
}

int hws_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = -errno;
	close(fd);
	if (n < 0)
		return err;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return (int)n;
}
