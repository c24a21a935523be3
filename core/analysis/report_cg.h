/* SPDX-License-Identifier: MIT */
/*
 * Call-graph trees of perf report's view (report_cg.c), used by report_sort.c (one tree per
 * row) and report.c (folded stacks).
 *
 * A struct cg_tree holds the nodes of many trees (one root each): one node per frame of a
 * path from the root, keyed by (parent, frame key), so equal frames under one parent merge
 * as perf's callchain_node entries do (perf's default key: the function).
 */
#ifndef HWS_REPORT_CG_H
#define HWS_REPORT_CG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwsample/strbuf.h>

/* perf's callchain_param.mode */
enum cg_mode {
	CG_NONE,
	CG_GRAPH,   /* graph: percentages of the section's total (CHAIN_GRAPH_ABS) */
	CG_FRACTAL, /* fractal: of the parent's (CHAIN_GRAPH_REL) */
	CG_FLAT,
	CG_FOLDED,
};

struct cg_params {
	int mode;	    /* enum cg_mode */
	bool caller;	    /* caller order (root first) */
	bool order_set;	    /* caller/callee given: else caller with children, callee without */
	double min_percent; /* perf's threshold (0.5) */
	bool mode_set;	    /* a mode was given (-g ...): else graph only with call chains */
};

/* one frame: what merges (k0, k1) and its printed name (an id of the caller's strings) */
struct cg_frame {
	uint64_t k0, k1;
	uint32_t name;
};

struct cg_tree;

struct cg_tree *cg_tree__new(void);
void cg_tree__delete(struct cg_tree *t);
/* a new empty tree: its root node's number, 0 on -ENOMEM */
uint32_t cg_tree__root(struct cg_tree *t);
/* add the path of @n frames @f[0], @f[step], ... (step 1 or -1) under @root with @value */
int cg_tree__add(struct cg_tree *t, uint32_t root, const struct cg_frame *f, size_t n, int step,
		 uint64_t value);
/* add the paths of tree @src to @dst (perf's callchain_merge()), @src itself left as it was:
 * 0 or -ENOMEM */
int cg_tree__merge(struct cg_tree *t, uint32_t dst, uint32_t src);
/* the value of every path through @root */
uint64_t cg_tree__total(const struct cg_tree *t, uint32_t root);

typedef const char *(*cg_name_fn)(const void *ctx, uint32_t name);

/**
 * cg_tree__render() - perf report --stdio's call graph of one row, as its
 * hist_entry_callchain__fprintf() prints it.
 * @total: the section's total period; @parent: the row's (self, or children with --children)
 * @skip_first: the sort order starts with "sym": perf leaves out the first entry of a lone
 * root chain
 */
int cg_tree__render(struct cg_tree *t, uint32_t root, const struct cg_params *p, uint64_t total,
		    uint64_t parent, bool skip_first, cg_name_fn name, const void *ctx,
		    struct hws_strbuf *sb);

/* parse perf's -g / --call-graph argument: 0 or -EINVAL with the bad token in @bad */
int cg_parse(const char *arg, struct cg_params *p, char *bad, size_t len);

/**
 * cg_tree__folded() - every path of @root ending with a value, as "name;name;... value\n",
 * sorted by text (stackcollapse-perf.pl's order); paths with a zero value are not printed.
 */
int cg_tree__folded(struct cg_tree *t, uint32_t root, cg_name_fn name, const void *ctx,
		    struct hws_strbuf *sb);

#endif
