// SPDX-License-Identifier: MIT
/*
 * The options-struct convention of include/hwsample/common.h, in one place: every function
 * that takes a struct hws_*_opts reads it with HWS_OPTS_GET().
 */
#include <errno.h>
#include <string.h>

#include "util/internal.h"

int hws__opts_get(void *dst, size_t dst_sz, const void *opts, const char *type)
{
	const unsigned char *p = opts;
	size_t sz;

	memset(dst, 0, dst_sz);
	memcpy(dst, &dst_sz, sizeof(dst_sz)); /* sz: the library's own size */
	if (!opts)
		return 0;
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(sz)) {
		pr_warn("struct %s: sz is %zu: declare it with HWS_OPTS() (it sets sz)\n", type,
			sz);
		return -EINVAL;
	}
	for (size_t i = dst_sz; i < sz; i++) {
		if (p[i]) {
			pr_warn(
			    "struct %s: set members past the %zu bytes this library (hwsample %s) "
			    "knows: it is older than the program's headers\n",
			    type, dst_sz, HWS_VERSION);
			return -EINVAL;
		}
	}
	memcpy((char *)dst + sizeof(sz), p + sizeof(sz), (sz < dst_sz ? sz : dst_sz) - sizeof(sz));
	return 0;
}
