/* SPDX-License-Identifier: MIT */
/*
 * Between report.c and report_sort.c: perf report's sorted view (struct hws_hist).
 */
#ifndef HWS_REPORT_INT_H
#define HWS_REPORT_INT_H

#include <stdbool.h>

#include <hwsample/report.h>

struct hws_hist;

/* NULL with errno EINVAL (bad key) or ENOMEM. @keys NULL: perf's default for @mem. */
/* @filter: for perf's elided columns and the time slices in the header; may be NULL */
struct hws_hist *hws_hist__new(const char *keys, bool mem, const struct hws_filter *filter);
void hws_hist__delete(struct hws_hist *h);
/* @shown: false for a sample that only counts in its section's totals (filtered out) */
int hws_hist__add(struct hws_hist *h, struct hws_symbols *syms, const struct hws_sample *s,
		  bool shown);
int hws_hist__render(struct hws_hist *h, struct hws_symbols *syms, const char *sort_str,
		     struct hws_strbuf *sb);
bool hws_hist__needs_srcline(const struct hws_hist *h);
/* perf report --hierarchy's layout; -EINVAL when a column is no key (sample, weight...) */
int hws_hist__set_hierarchy(struct hws_hist *h, bool on);
struct cg_params;
/* call graphs: perf's -g parameters, @children 1 / -1 / 0 (perf's default); @sort_str: the
 * --sort string (perf leaves a graph's first entry out when it starts with "sym") */
void hws_hist__set_callgraph(struct hws_hist *h, const struct cg_params *p, int children,
			     const char *sort_str, uint32_t max_stack);
bool hws_hist__has_callchains(const struct hws_hist *h);
/* which call-chain frames show their inlined functions (enum hws_inline_mode) */
void hws_hist__set_inline(struct hws_hist *h, int mode);
/* the srcline key shows source files' whole paths (perf's --full-source-path) */
void hws_hist__set_full_source_path(struct hws_hist *h, bool on);

/*
 * perf's --max-stack @max on a decoded chain (innermost first): the frames the kernel wrote
 * and the DWARF-unwound user frames after them (HWS_FRAME_UNWOUND) are limited apart, as
 * perf 6.1 resolves them apart: of the kernel's, the @max outermost in @caller order (perf
 * walks its chain from there), else the innermost; of the unwound ones, the @max innermost
 * either way (the unwinder walks from the innermost frame). Inlined functions shown at a frame
 * do not count. *@out: @chain, or *@buf (grown, *@abuf frames) when the kept frames are two
 * runs. Return: how many are kept, or -ENOMEM. (report_chain.c)
 */
int hws_chain__max_stack(const struct hws_frame *chain, uint32_t n, uint32_t max, bool caller,
			 struct hws_frame **buf, size_t *abuf, const struct hws_frame **out);

/* folded stacks (report_folded.c) */
struct hws_folded;
struct hws_folded *hws_folded__new(void);
void hws_folded__delete(struct hws_folded *f);
/* which call-chain frames show their inlined functions (enum hws_inline_mode) */
void hws_folded__set_inline(struct hws_folded *f, int mode);
/* perf script's --max-stack (hws_chain__max_stack(), callee order); 0 = all */
void hws_folded__set_max_stack(struct hws_folded *f, uint32_t max);
int hws_folded__add(struct hws_folded *f, struct hws_symbols *syms, const struct hws_sample *s,
		    uint64_t value);
int hws_folded__render(struct hws_folded *f, struct hws_strbuf *sb);
/* allocation records for the object and offset keys (may be NULL; must outlive @h) */
void hws_hist__set_objects(struct hws_hist *h, const struct hws_objects *o);
/* perf's event groups: copied; @view: side by side (perf's --group), else only named so */
int hws_hist__set_groups(struct hws_hist *h, const struct hws_perf_group *g, size_t n,
			 const char *const *names, size_t nnames, bool view);

#endif
