/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the core sources (not installed, not for backends).
 */
#ifndef HWS_CORE_INTERNAL_H
#define HWS_CORE_INTERNAL_H

#include <hwsample/errors.h>

void hws_log(enum hws_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define pr_err(fmt, ...) hws_log(HWS_LOG_ERROR, fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) hws_log(HWS_LOG_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) hws_log(HWS_LOG_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) hws_log(HWS_LOG_DEBUG, fmt, ##__VA_ARGS__)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Read a small sysfs/proc file into @buf (NUL-terminated, trailing newline removed).
 * Returns length or -errno. */
int hws_read_file(const char *path, char *buf, size_t len);

#endif
