// SPDX-License-Identifier: MIT
/*
 * Call chains of samples (PERF_SAMPLE_CALLCHAIN) into struct hws_frame, innermost first.
 *
 * The kernel writes u64 nr, then nr entries: return addresses, with PERF_CONTEXT_* markers
 * (values from (u64)-4095 up) before each run of addresses saying where they run (kernel,
 * user, hypervisor, guest kernel/user). The markers are dropped; each frame keeps the
 * context of the last marker before it (HWS_CTX_UNKNOWN before any: old layouts without
 * markers). As perf script, at most max_stack frames (markers not counted) are kept; a
 * longer chain is cut and flagged HWS_CC_TRUNCATED. A --call-graph dwarf sample's user
 * frames, unwound after the kernel's, get a max_stack of their own, as perf 6.1 limits the
 * two parts apart (thread__resolve_callchain(): the kernel's chain, then the unwinder's). An entry
 * in the marker range that is no marker makes the chain corrupt, as in perf: the sample keeps no
 * call chain and the event's callchain_errors counter goes up. (nr itself is checked against the
 * record's size by the parser: a record it overruns is a malformed SAMPLE, counted in errors.)
 *
 * Invariants:
 *  - the frames live in the decoder's buffer (d->cc), reused by every sample: valid until
 *    the next sample is delivered, as struct hws_sample promises;
 *  - only samples whose event has PERF_SAMPLE_CALLCHAIN come here (decode.c: do_sample()),
 *    so samples without one pay nothing;
 *  - nothing is invented: a --call-graph dwarf sample (REGS_USER + STACK_USER) shows the
 *    frames the kernel wrote (its kernel part) plus what the unwinder (unwind.c) finds in
 *    its registers and stack copy, nothing else; inlined functions are not frames here:
 *    outputs add them from the file's DWARF (hws_symbols__inlines(), as perf 6.1 does for
 *    DWARF-unwound frames, HWS_FRAME_UNWOUND).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include <string.h>

#include "decode/decode_int.h"
#include "decode/unwind.h"
#include "perfdata/perfdata_int.h"

/* <linux/perf_event.h>'s enum perf_callchain_context (as u64) */
#define CTX_HV		 ((uint64_t)-32)
#define CTX_KERNEL	 ((uint64_t)-128)
#define CTX_USER	 ((uint64_t)-512)
#define CTX_USER_DEFER	 ((uint64_t)-640) /* PERF_CONTEXT_USER_DEFERRED (6.18+): a cookie follows */
#define CTX_GUEST	 ((uint64_t)-2048)
#define CTX_GUEST_KERNEL ((uint64_t)-2176)
#define CTX_GUEST_USER	 ((uint64_t)-2560)
#define CTX_MAX		 ((uint64_t)-4095)

/* the frame buffer, grown to hold @n frames: 0 or -ENOMEM */
static int cc_reserve(struct dec_cc *cc, uint32_t n)
{
	struct hws_frame *f;

	if (n <= cc->cap)
		return 0;
	f = realloc(cc->buf, (size_t)n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	cc->buf = f;
	cc->cap = n;
	return 0;
}

void dec_cc_free(struct dec_cc *cc)
{
	free(cc->buf);
	cc->buf = NULL;
	cc->cap = 0;
}

int dec_cc_frames(struct dec_cc *cc, uint32_t max_stack, const uint64_t *ips, uint64_t nr,
		  uint32_t *nr_out, uint32_t *flags_out)
{
	uint8_t ctx = HWS_CTX_UNKNOWN;
	uint32_t n = 0, flags = 0;

	*nr_out = 0;
	*flags_out = 0;
	if (cc_reserve(cc, max_stack))
		return -ENOMEM;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t ip = ips[i];

		if (__builtin_expect(ip >= CTX_MAX, 0)) {
			switch (ip) {
			case CTX_HV:
				ctx = HWS_CTX_HV;
				break;
			case CTX_KERNEL:
				ctx = HWS_CTX_KERNEL;
				break;
			case CTX_USER:
				ctx = HWS_CTX_USER;
				break;
			case CTX_USER_DEFER:
				/* the user part comes in a later record (not read yet): skip its
				 * cookie */
				ctx = HWS_CTX_USER;
				i++;
				break;
			case CTX_GUEST:
			case CTX_GUEST_KERNEL:
				ctx = HWS_CTX_GUEST_KERNEL;
				break;
			case CTX_GUEST_USER:
				ctx = HWS_CTX_GUEST_USER;
				break;
			default:
				return HWS_E_BADREC;
			}
			continue;
		}
		if (n == max_stack) {
			flags |= HWS_CC_TRUNCATED;
			break;
		}
		cc->buf[n++] = (struct hws_frame){.ip = ip, .ctx = ctx};
	}
	*nr_out = n;
	*flags_out = flags;
	return 0;
}

/* --call-graph dwarf: append the user part unwound from @rec's registers and stack copy
 * after the kernel's frames (@n of them in d->cc); returns the new count */
static uint32_t cc_unwind(struct hws_decoder *d, struct hws_decode_counts *c, const void *rec,
			  size_t size, const struct hws_record_sample *rs, uint32_t n,
			  uint32_t *flags)
{
	struct hws_user_regs ur;
	uint32_t room;
	int got;

	if (hws_sample__user_regs_stack(rs->attr, rec, size, &ur) || !ur.abi)
		return n;
	if (!d->unw && !d->unw_failed) {
		struct hws_unwind_opts uo = {
		    .max_frames = d->max_stack, .no_inline = true, .unwind_only = true};

		d->unw = hws_unwinder__new(d->syms, &uo);
		d->unw_failed = !d->unw;
		if (!d->unw)
			pr_warn(
			    "decode: no DWARF unwinder (%s): samples with user stack copies keep "
			    "their kernel frames only\n",
			    strerror(errno));
	}
	/* perf: the unwinder's own max_stack frames, whatever the kernel's part took */
	if (!d->unw || cc_reserve(&d->cc, n + d->max_stack))
		return n;
	room = d->max_stack;
	got = hws_unwind__user(d->unw, rs->pid, ur.abi, ur.mask, ur.regs, ur.nr, ur.stack,
			       ur.dyn_size, d->cc.buf + n, (int)room, flags);
	if (got < 0) {
		c->callchain_errors++;
		return n;
	}
	return n + (uint32_t)got;
}

void dec_callchain(struct hws_decoder *d, struct hws_decode_counts *c, const void *rec, size_t size,
		   const struct hws_record_sample *rs, struct hws_sample *s)
{
	uint32_t n, flags;
	int rc;

	rc = dec_cc_frames(&d->cc, d->max_stack, rs->callchain, rs->nr_callchain, &n, &flags);
	if (rc) {
		c->callchain_errors++;
		pr_debug("decode: sample at time %" PRIu64 ": corrupt call chain (%" PRIu64
			 " entries), left out\n",
			 rs->time, rs->nr_callchain);
		return;
	}
	/* --call-graph dwarf (core/decode/unwind.c): the kernel wrote its part only */
	if ((rs->sample_type & DEC_DWARF_BITS) == DEC_DWARF_BITS)
		n = cc_unwind(d, c, rec, size, rs, n, &flags);
	if (!n)
		return;
	s->callchain = d->cc.buf;
	s->nr_callchain = n;
	s->callchain_flags = flags;
	s->fields |= HWS_SF_CALLCHAIN;
}
