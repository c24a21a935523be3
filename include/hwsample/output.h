/* SPDX-License-Identifier: MIT */
/*
 * Per-sample formatters of `hwsample dump`: text, JSON (one object per line) and CSV.
 *
 * JSON keys, each present only when its HWS_SF_* bit is set: time, cpu, pid, tid, event,
 * backend, period, ip, precise, addr, phys_addr, op, lat_total, lat_issue, lat_xlat,
 * lat_miss, lat_ins, mem_level, snoop, tlb, data_src, branch_target; with symbols: sym, dso
 * (code) and data_sym, data_dso (data); with raw: "raw" = the backend's raw_json object.
 * Numbers are JSON numbers, addresses hex strings ("0x7f00001e43bb"), names strings,
 * precise a boolean.
 * CSV has the same columns in that order (an empty cell when the field is not valid) and
 * a header row from hws_output__header(); raw is one quoted cell holding the JSON object.
 * Formatters append to a struct hws_strbuf and never print.
 */
#ifndef HWSAMPLE_OUTPUT_H
#define HWSAMPLE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include <hwsample/common.h>
#include <hwsample/sample.h>
#include <hwsample/strbuf.h>
#include <hwsample/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hws_output_format {
	HWS_OUT_TEXT = 0,
	HWS_OUT_JSON,
	HWS_OUT_CSV,
};

struct hws_output_opts {
	size_t sz;    /* sizeof(struct hws_output_opts) */
	int format;   /* enum hws_output_format */
	bool raw;     /* add the vendor fields (raw_json) */
	bool symbols; /* add symbols (needs syms) */
	struct hws_symbols *syms;
	/* vendor fields of @s as one JSON object; return 0, or < 0 to leave "raw" out */
	int (*raw_json)(void *ctx, const struct hws_sample *s, struct hws_strbuf *sb);
	void *raw_ctx;
	/* optional scratch buffer reused across calls (vendor fields, symbols); NULL: one is
	 * made and freed per sample. Owned by the caller (hws_strbuf__release when done). */
	struct hws_strbuf *scratch;
	/* optional memo of the event/backend strings' JSON form, kept across calls (NULL: each
	 * sample scans them again). Strings are known by address: a memo must not outlive the
	 * strings its samples point to (make one per decoder run). */
	struct hws_output_memo *memo;
};

HWS_API struct hws_output_memo *hws_output_memo__new(void);
HWS_API void hws_output_memo__delete(struct hws_output_memo *m);

/* CSV header row (with newline); nothing for the other formats. 0 or negative error. */
HWS_API int hws_output__header(const struct hws_output_opts *o, struct hws_strbuf *sb);

/* One sample as one line (newline included). 0 or negative error (-ENOMEM, HWS_E_TOO_BIG). */
HWS_API int hws_output__sample(const struct hws_output_opts *o, const struct hws_sample *s,
			       struct hws_strbuf *sb);

#ifdef __cplusplus
}
#endif
#endif
