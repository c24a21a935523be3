// SPDX-License-Identifier: MIT
/*
 * HEADER_TRACING_DATA builder (see include/hwsample/tracing.h). Placeholder that reports
 * "no tracepoints" until the full builder lands; keeps the record path linking.
 */
#include <errno.h>
#include <stdlib.h>

#include <hwsample/tracing.h>

int hws_tracing_data__build(const struct perf_event_attr *const *attrs, int nr, void **buf,
			    size_t *len)
{
	*buf = NULL;
	*len = 0;
	return 0;
}

const char *hws_tracefs__dir(void)
{
	return NULL;
}
