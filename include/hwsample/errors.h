/* SPDX-License-Identifier: MIT */
/*
 * hwsample error codes and logging.
 *
 * Functions return 0 (or a count) on success and a negative number on failure: either a
 * negative errno (-ENOENT, -EACCES, ...) or one of hwsample's own conditions below, which
 * start at HWS_E__START (-10000) so they never overlap errno. hws_strerror() covers both.
 */
#ifndef HWSAMPLE_ERRORS_H
#define HWSAMPLE_ERRORS_H

#include <stddef.h>

#include <hwsample/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HWS_ERRORS                                                                                 \
	_HE(NO_PMU, "no matching PMU on this machine")                                             \
	_HE(ABI_MISMATCH, "backend plugin ABI version mismatch")                                   \
	_HE(BAD_PLUGIN, "backend plugin is missing a required callback")                           \
	_HE(NO_BACKEND, "no such backend")                                                         \
	_HE(BADREC, "malformed record")                                                            \
	_HE(NEED_MORE, "need more bytes")                                                          \
	_HE(BAD_FILE, "not a perf.data file or corrupt header")                                    \
	_HE(TRUNCATED, "file truncated")                                                           \
	_HE(UNKNOWN_CONTROL, "unknown control")                                                    \
	_HE(CONTROL_RANGE, "value too wide for its field")                                         \
	_HE(UNSUPPORTED, "not supported by this CPU or kernel")                                    \
	_HE(UNKNOWN_EVENT, "unknown event")                                                        \
	_HE(BAD_ARG, "invalid argument")                                                           \
	_HE(TOO_BIG, "size limit exceeded")                                                        \
	_HE(BAD_CONFIG, "invalid configuration")

enum hws_errno {
	HWS_E__START = -10000,
#define _HE(name, text) HWS_E_##name,
	HWS_ERRORS
#undef _HE
	    HWS_E__END,
};

/*
 * hws_strerror() - describe a negative errno or hws_errno value.
 * Writes into @buf (always NUL-terminated) and returns @buf. Thread-safe.
 */
HWS_API const char *hws_strerror(int err, char *buf, size_t len);

enum hws_log_level {
	HWS_LOG_ERROR = 0,
	HWS_LOG_WARN,
	HWS_LOG_INFO,
	HWS_LOG_DEBUG,
};

typedef void (*hws_print_fn)(enum hws_log_level level, const char *msg);

/*
 * hws_set_print() - route the library's messages to @fn (NULL: default, stderr).
 * Messages up to the level hws_set_log_level() set are passed on (default HWS_LOG_WARN);
 * the default function prints them to stderr. A message holds no control character but
 * '\n' and '\t', and no byte that is not well-formed UTF-8: those of names it quotes from
 * files are shown as \xNN (hws_strbuf__add_text_lines()).
 * Returns the previous function.
 */
HWS_API hws_print_fn hws_set_print(hws_print_fn fn);
HWS_API void hws_set_log_level(int level);
HWS_API int hws_get_log_level(void);

#ifdef __cplusplus
}
#endif
#endif
