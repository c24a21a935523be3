/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint formats for perf.data: HEADER_TRACING_DATA in perf's layout (the same bytes
 * `perf record` stores, so perf script can format hwsample's tracepoint samples), built
 * from tracefs for the tracepoint events of a recording.
 */
#ifndef HWSAMPLE_TRACING_H
#define HWSAMPLE_TRACING_H

#include <stddef.h>
#include <hwsample/abi.h>

#include <hwsample/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * hws_tracing_data__build() - HEADER_TRACING_DATA payload for the PERF_TYPE_TRACEPOINT
 * events among @attrs. *buf is malloc'ed (caller frees); *len 0 when there are none.
 * Returns 0 or negative errno: -EACCES when tracefs, its events directory or a format
 * file is there but this user may not read it; another errno when tracefs is absent
 * (as hws_tracefs__dir()). A format file that does not exist is stored empty.
 */
HWS_API int hws_tracing_data__build(const struct hws_perf_event_attr *const *attrs, int nr,
				    void **buf, size_t *len);

/* tracefs mount point in use ("/sys/kernel/tracing" or the debugfs one), mounting tracefs
 * if needed; NULL if none, with errno: EACCES when tracefs is mounted but this user may not
 * read its events directory (nothing is mounted over it), EPERM when it is not mounted and
 * mounting it needs root, another errno when mounting it failed otherwise (ENODEV: no
 * tracefs in this kernel). */
HWS_API const char *hws_tracefs__dir(void);

#ifdef __cplusplus
}
#endif
#endif
