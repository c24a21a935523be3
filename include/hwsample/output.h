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
 * A struct hws_output (hws_output__new()) formats samples with the options it was made
 * with; its caches for speed are its own. It appends to a struct hws_strbuf, never prints.
 */
#ifndef HWSAMPLE_OUTPUT_H
#define HWSAMPLE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/common.h>
#include <hwsample/filter.h>
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
	HWS_OUT_SCRIPT, /* perf script -F's layout of the fields in opts.fields */
};

/* Fields of HWS_OUT_SCRIPT (bits of hws_output_opts.fields), named as perf script -F names
 * them; printed in perf's order, with perf's widths. */
enum hws_output_field {
	HWS_OUTF_COMM = 0,
	HWS_OUTF_TID,
	HWS_OUTF_PID,
	HWS_OUTF_TIME,
	HWS_OUTF_CPU,
	HWS_OUTF_EVENT,
	HWS_OUTF_IP,
	HWS_OUTF_SYM,
	HWS_OUTF_DSO,
	HWS_OUTF_ADDR,
	HWS_OUTF_SYMOFF,
	HWS_OUTF_PERIOD,
	HWS_OUTF_PHYS_ADDR,
};

/* What the lines hold. Read once by hws_output__new(); declare with HWS_OPTS(). */
struct hws_output_opts {
	size_t sz;    /* sizeof(struct hws_output_opts) */
	int format;   /* enum hws_output_format */
	bool raw;     /* add the vendor fields (raw_json) */
	bool symbols; /* add symbols (needs syms) */
	/* symbol table of the samples' processes; owned by the caller, must outlive the output */
	struct hws_symbols *syms;
	/* vendor fields of @s as one JSON object; return 0, or < 0 to leave "raw" out */
	int (*raw_json)(void *ctx, const struct hws_sample *s, struct hws_strbuf *sb);
	void *raw_ctx;
	uint64_t fields; /* HWS_OUT_SCRIPT: 1 << HWS_OUTF_* of the fields to print */
	bool ns;	 /* HWS_OUT_SCRIPT: time in nanoseconds (perf script --ns), else us */
	/* only samples passing this filter are written, as perf script's --pid, --comms,
	 * --dsos, --symbols, -C, --time drop the others (include/hwsample/filter.h); its comm,
	 * dso and sym lists look names up in @syms, which must then be set (with or without
	 * @symbols). NULL: every sample. Must outlive the output. */
	const struct hws_filter *filter;
	/* HWS_OUT_SCRIPT: event names right-aligned in this many columns, as perf script
	 * aligns them to the longest event name of the file; 0: not padded */
	uint32_t event_width;
	/* HWS_OUT_JSON: more keys of @s, appended to @sb as ',"key":value...' after the
	 * call chain (e.g. hws_object__json()); return 0, or < 0 to add nothing */
	int (*extra_json)(void *ctx, const struct hws_sample *s, struct hws_strbuf *sb);
	void *extra_ctx;
	/* with symbols: the call-chain frames that show the functions inlined at them
	 * (enum hws_inline_mode, hws_symbols__inlines()): text as perf script prints them,
	 * "NAME+0xOFF (inlined)" lines before the frame; JSON as entries with "inlined":true */
	int inline_mode;
};

/**
 * hws_output__script_fields() - the field bits of a perf script -F list ("comm,tid,ip,sym").
 * @bad: when not NULL, receives the first field not understood.
 * Return: 0; -EINVAL for a name perf does not know either, -EOPNOTSUPP for a perf script
 * field hwsample does not print (srcline, iregs, brstack...); -EINVAL for an empty list.
 */
HWS_API int hws_output__script_fields(const char *list, uint64_t *fields, char *bad, size_t badlen);
/* the fields hws_output__script_fields() accepts, comma-separated, for messages */
HWS_API const char *hws_output__script_field_names(void);

/* A formatter of one stream of samples (opaque). */
struct hws_output;

/**
 * hws_output__new() - a formatter with the options @opts (NULL: text, no symbols, no raw).
 *
 * The formatter keeps what it wrote for repeated values between calls, and knows the
 * samples' event and backend strings by address: they must stay valid and unchanged while
 * it is used, as a decoder's are until hws_decoder__delete() (make one formatter per
 * decoder). Not thread-safe: one thread at a time.
 *
 * Return: the formatter (freed by hws_output__delete()), or NULL with errno set: EINVAL for
 * invalid options (an unknown format, see also include/hwsample/common.h), ENOMEM.
 */
HWS_API struct hws_output *hws_output__new(const struct hws_output_opts *opts);
HWS_API void hws_output__delete(struct hws_output *out); /* NULL-safe */

/* CSV header row (with newline); nothing for the other formats. 0 or negative error. */
HWS_API int hws_output__header(const struct hws_output *out, struct hws_strbuf *sb);

/* hws_output__sample()'s return for a sample its options' filter dropped */
#define HWS_OUTPUT_FILTERED 1

/**
 * hws_output__sample() - @s as one line (newline included) appended to @sb.
 *
 * A line goes in whole or not at all: on error @sb is as it was.
 * Return: 0, HWS_OUTPUT_FILTERED (nothing appended: opts.filter dropped @s), -ENOMEM, or
 * HWS_E_TOO_BIG when @sb's cap has no room for the line.
 */
HWS_API int hws_output__sample(struct hws_output *out, const struct hws_sample *s,
			       struct hws_strbuf *sb);

#ifdef __cplusplus
}
#endif
#endif
