// SPDX-License-Identifier: MIT
/*
 * perf's --max-stack on decoded chains (core/analysis/report_chain.c, hws_chain__max_stack(),
 * used by report's graphs and --folded): a frame-pointer chain keeps its N innermost frames
 * (callee order) or N outermost (caller order); a --call-graph dwarf chain (kernel frames,
 * then unwound user frames flagged HWS_FRAME_UNWOUND) is cut in its two parts apart, as perf
 * 6.1 resolves them: kernel N innermost / outermost by order, unwound N innermost in both
 * orders. Chains within the limit are kept as they are (no copy).
 */
#include <stdbool.h>
#include <stdlib.h>

#include <hwsample/sample.h>

#include "analysis/report_int.h"
#include "tests.h"

/* a kernel frame, a user frame (frame pointers), an unwound user frame */
#define K(v)                                                                                       \
	{                                                                                          \
		.ip = (v), .ctx = HWS_CTX_KERNEL                                                   \
	}
#define U(v)                                                                                       \
	{                                                                                          \
		.ip = (v), .ctx = HWS_CTX_USER                                                     \
	}
#define W(v)                                                                                       \
	{                                                                                          \
		.ip = (v), .ctx = HWS_CTX_USER, .flags = HWS_FRAME_UNWOUND                         \
	}

static struct hws_frame *buf;
static size_t abuf;

/* cut @c (@n frames) to @max in @caller order: the kept ips must be @want (@nw of them) */
static void expect(const char *what, const struct hws_frame *c, uint32_t n, uint32_t max,
		   bool caller, const uint64_t *want, int nw)
{
	const struct hws_frame *out = NULL;
	int m = hws_chain__max_stack(c, n, max, caller, &buf, &abuf, &out);
	char t[160];

	snprintf(t, sizeof(t), "%s: count", what);
	T_EQ_U64(t, m, nw);
	for (int i = 0; out && i < m && i < nw; i++) {
		snprintf(t, sizeof(t), "%s: frame %d", what, i);
		T_EQ_U64(t, out[i].ip, want[i]);
	}
}

int main(void)
{
	/* frame pointers: kernel 1..3, then user 10..13 (not unwound) */
	static const struct hws_frame fp[] = {K(1), K(2), K(3), U(10), U(11), U(12), U(13)};
	/* dwarf: kernel 1..4, then the unwinder's 10..14 */
	static const struct hws_frame dw[] = {K(1),  K(2),  K(3),  K(4), W(10),
					      W(11), W(12), W(13), W(14)};
	static const struct hws_frame dwu[] = {W(10), W(11), W(12)};
	const struct hws_frame *out = NULL;

	expect("fp callee 3", fp, 7, 3, false, (const uint64_t[]){1, 2, 3}, 3);
	expect("fp caller 3", fp, 7, 3, true, (const uint64_t[]){11, 12, 13}, 3);
	expect("dwarf callee 2: 2 kernel + 2 unwound", dw, 9, 2, false,
	       (const uint64_t[]){1, 2, 10, 11}, 4);
	expect("dwarf caller 2: 2 outermost kernel + 2 innermost unwound", dw, 9, 2, true,
	       (const uint64_t[]){3, 4, 10, 11}, 4);
	expect("dwarf callee 4: the kernel's 4 + 4 unwound", dw, 9, 4, false,
	       (const uint64_t[]){1, 2, 3, 4, 10, 11, 12, 13}, 8);
	expect("dwarf caller 6: whole kernel + 5 unwound", dw, 9, 6, true,
	       (const uint64_t[]){1, 2, 3, 4, 10, 11, 12, 13, 14}, 9);
	expect("user-only dwarf caller 2", dwu, 3, 2, true, (const uint64_t[]){10, 11}, 2);
	expect("user-only dwarf callee 1", dwu, 3, 1, false, (const uint64_t[]){10}, 1);

	/* within the limit, or 0: the chain itself */
	T_EQ_U64("max 0: all", hws_chain__max_stack(dw, 9, 0, true, &buf, &abuf, &out), 9);
	__T("max 0: the chain itself", out == dw);
	T_EQ_U64("max 5 callee: all", hws_chain__max_stack(dw, 9, 5, false, &buf, &abuf, &out), 9);
	__T("within the limit: no copy", out == dw);
	T_EQ_U64("empty", hws_chain__max_stack(dw, 0, 3, false, &buf, &abuf, &out), 0);
	free(buf);
	TEST_END();
}
