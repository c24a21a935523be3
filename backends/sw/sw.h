/* SPDX-License-Identifier: MIT */
/* sw backend internals shared by sw.c and sw_tp.c. */
#ifndef HWS_BACKEND_SW_H
#define HWS_BACKEND_SW_H

#include <hwsample/backend.h>

struct tep_handle;

struct sw_priv {
	const struct hws_host *host;
	/* tracepoint decoding: parsed HEADER_TRACING_DATA of the file being decoded */
	const void *tp_blob;
	uint64_t tp_len;
	struct tep_handle *tep;
};

int sw_tp_json(struct sw_priv *p, const struct hws_file_info *fi, const struct hws_sample *s,
	       struct hws_strbuf *out);
void sw_tp_fini(struct sw_priv *p);

#endif
