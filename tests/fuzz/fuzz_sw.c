// SPDX-License-Identifier: MIT
/*
 * Fuzz target for the sw backend's tracepoint path: a file's HEADER_TRACING_DATA blob parsed
 * (backends/sw/sw_tp.c's bounds-checked walk, then libtraceevent's header_page, ftrace and
 * event format parsers and printk formats) and a PERF_SAMPLE_RAW payload decoded with it
 * (raw_json: every field of the matching format). Input: byte 0 = flags (bit 0: sample has
 * no RAW), bytes 1..4 = the blob's length (little-endian, clamped to what is left), the blob,
 * then the RAW payload. Blob and payload are copied into exactly sized heap buffers so ASan
 * catches any read past either. The backend is set up anew for every input (its cache of the
 * parsed formats is keyed by the blob's address).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hwsample/backend.h>
#include <hwsample/registry.h>

const struct hws_backend_ops *hws_backend_entry_sw(const struct hws_host *host);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct hws_backend_ops *ops;
	struct hws_file_info fi;
	struct hws_sample s;
	struct hws_strbuf sb;
	uint8_t *blob, *raw;
	size_t blen, rlen;
	void *priv;

	if (!ops)
		ops = hws_backend_entry_sw(hws_host__get());
	if (size < 5)
		return 0;
	blen =
	    (size_t)data[1] | (size_t)data[2] << 8 | (size_t)data[3] << 16 | (size_t)data[4] << 24;
	if (blen > size - 5)
		blen = size - 5;
	rlen = size - 5 - blen;
	blob = malloc(blen ? blen : 1);
	raw = malloc(rlen ? rlen : 1);
	priv = calloc(1, ops->priv_size);
	if (!blob || !raw || !priv || ops->init(priv, hws_host__get()))
		abort();
	memcpy(blob, data + 5, blen);
	memcpy(raw, data + 5 + blen, rlen);

	memset(&fi, 0, sizeof(fi));
	fi.sz = sizeof(fi);
	fi.arch = "x86_64";
	fi.tracing_data = blob;
	fi.tracing_data_size = blen;
	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	if (!(data[0] & 1)) {
		s.raw = raw;
		s.raw_size = (uint32_t)rlen;
	}
	hws_strbuf__init(&sb, 1 << 16);
	if (ops->raw_json(priv, &fi, &s, &sb) == 0 && (!sb.buf || sb.buf[0] != '{'))
		abort(); /* raw_json gives one JSON object or an error */
	/* the parsed formats are reused for a second sample of the same file */
	sb.len = 0;
	ops->raw_json(priv, &fi, &s, &sb);
	hws_strbuf__release(&sb);
	ops->fini(priv);
	free(priv);
	free(blob);
	free(raw);
	return 0;
}
