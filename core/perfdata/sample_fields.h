/* SPDX-License-Identifier: MIT */
/*
 * The kernel's field order of PERF_RECORD_SAMPLE and of the sample_id trailer of other kernel
 * records: the one place in core that knows it. Not installed.
 *
 * Invariants:
 *  - PD_SAMPLE_FIELDS(X) expands X(bit, kind, name) once per field, in the order
 *    perf_output_sample() in the kernel writes them, which differs from the uapi comment for
 *    CGROUP / DATA_PAGE_SIZE / CODE_PAGE_SIZE / AUX. PD_ID_TRAILER_FIELDS(X) does the same
 *    for the trailer, which ends the record. Everything that walks a sample or a trailer
 *    expands these lists (sample_parse.c: hws_sample__parse(), hws_sample_id__parse();
 *    swap.c: hws__swap_sample() and the trailer swapper) or asks the helpers below
 *    (perfdata_read.c and hws_record__id(): where the id is; core/decode/events.c: the
 *    fixed-layout plan and where the time is; core/record/session.c: where the CPU is;
 *    core/record/synth.c writes trailers with pd_put_id_trailer()). The lists expand at
 *    compile time, so a walker costs what the hand-written sequence of tests cost.
 *  - @kind says how a field is laid out (PD_K_<kind>, below); @name is the struct
 *    hws_record_sample member a U64 field fills (the trailer's: the struct hws_sample_id
 *    member), for REGS the perf_event_attr mask that sizes it, else what it holds.
 *  - WEIGHT and WEIGHT_STRUCT share one 8-byte slot (PERF_SAMPLE_WEIGHT_TYPE); a
 *    sample_type with both is not one the kernel accepts, and no helper here plans it.
 *
 * Kinds (all sizes in bytes, every field 8-aligned):
 *   U64        one u64
 *   TID        u32 pid, u32 tid
 *   CPU        u32 cpu, u32 res
 *   READ       the read_format block (pd_read_size())
 *   CALLCHAIN  u64 nr, u64 ips[nr]
 *   RAW        u32 size, size bytes (size + 4 is 8-aligned)
 *   BRANCH     u64 nr, u64 hw_idx (BRANCH_HW_INDEX), {from, to, flags}[nr], u64 counters[nr]
 *              (BRANCH_COUNTERS)
 *   REGS       u64 abi, then one u64 per bit of the mask when abi != 0
 *   STACK      u64 size, size bytes, then u64 dyn_size when size != 0
 *   AUX        u64 size, size bytes
 */
#ifndef HWS_CORE_PERFDATA_SAMPLE_FIELDS_H
#define HWS_CORE_PERFDATA_SAMPLE_FIELDS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

#include <hwsample/perfdata.h>

#define PD_SAMPLE_FIELDS(X)                                                                        \
	X(PERF_SAMPLE_IDENTIFIER, U64, id)                                                         \
	X(PERF_SAMPLE_IP, U64, ip)                                                                 \
	X(PERF_SAMPLE_TID, TID, pid)                                                               \
	X(PERF_SAMPLE_TIME, U64, time)                                                             \
	X(PERF_SAMPLE_ADDR, U64, addr)                                                             \
	X(PERF_SAMPLE_ID, U64, id)                                                                 \
	X(PERF_SAMPLE_STREAM_ID, U64, stream_id)                                                   \
	X(PERF_SAMPLE_CPU, CPU, cpu)                                                               \
	X(PERF_SAMPLE_PERIOD, U64, period)                                                         \
	X(PERF_SAMPLE_READ, READ, read)                                                            \
	X(PERF_SAMPLE_CALLCHAIN, CALLCHAIN, callchain)                                             \
	X(PERF_SAMPLE_RAW, RAW, raw)                                                               \
	X(PERF_SAMPLE_BRANCH_STACK, BRANCH, branches)                                              \
	X(PERF_SAMPLE_REGS_USER, REGS, sample_regs_user)                                           \
	X(PERF_SAMPLE_STACK_USER, STACK, stack)                                                    \
	X(PERF_SAMPLE_WEIGHT_TYPE, U64, weight)                                                    \
	X(PERF_SAMPLE_DATA_SRC, U64, data_src)                                                     \
	X(PERF_SAMPLE_TRANSACTION, U64, transaction)                                               \
	X(PERF_SAMPLE_REGS_INTR, REGS, sample_regs_intr)                                           \
	X(PERF_SAMPLE_PHYS_ADDR, U64, phys_addr)                                                   \
	X(PERF_SAMPLE_CGROUP, U64, cgroup)                                                         \
	X(PERF_SAMPLE_DATA_PAGE_SIZE, U64, data_page_size)                                         \
	X(PERF_SAMPLE_CODE_PAGE_SIZE, U64, code_page_size)                                         \
	X(PERF_SAMPLE_AUX, AUX, aux)

#define PD_ID_TRAILER_FIELDS(X)                                                                    \
	X(PERF_SAMPLE_TID, TID, pid)                                                               \
	X(PERF_SAMPLE_TIME, U64, time)                                                             \
	X(PERF_SAMPLE_ID, U64, id)                                                                 \
	X(PERF_SAMPLE_STREAM_ID, U64, stream_id)                                                   \
	X(PERF_SAMPLE_CPU, CPU, cpu)                                                               \
	X(PERF_SAMPLE_IDENTIFIER, U64, id)

/* PD_K_<kind>: 1 when the field is always 8 bytes */
#define PD_K_U64       1
#define PD_K_TID       1
#define PD_K_CPU       1
#define PD_K_READ      0
#define PD_K_CALLCHAIN 0
#define PD_K_RAW       0
#define PD_K_BRANCH    0
#define PD_K_REGS      0
#define PD_K_STACK     0
#define PD_K_AUX       0

#define PD__FIXED_BIT(bit, kind, name) | (PD_K_##kind ? (uint64_t)(bit) : 0)
#define PD__BIT(bit, kind, name)       | (uint64_t)(bit)

/* sample_type bits whose fields are always 8 bytes: a sample of only these has a length
 * known from sample_type (8 per bit; WEIGHT and WEIGHT_STRUCT share theirs) */
#define HWS_FIXED_SAMPLE_FIELDS ((uint64_t)0 PD_SAMPLE_FIELDS(PD__FIXED_BIT))
/* the sample_type bits the sample_id trailer carries (8 bytes each) */
#define PD_ID_TRAILER_MASK ((uint64_t)0 PD_ID_TRAILER_FIELDS(PD__BIT))

/* Size of the sample_id trailer of non-sample records for @sample_type. */
static inline size_t pd_id_trailer_size(uint64_t sample_type)
{
	size_t n = 0;

#define PD__SIZE(bit, kind, name) n += (sample_type & (bit)) ? 8 : 0;
	PD_ID_TRAILER_FIELDS(PD__SIZE)
#undef PD__SIZE
	return n;
}

/* Write the sample_id trailer of @sample_type with the values in @sid (CPU's res word 0) at
 * @p; returns its size (pd_id_trailer_size()). */
static inline size_t pd_put_id_trailer(uint64_t sample_type, const struct hws_sample_id *sid,
				       void *p)
{
	uint8_t *b = p;
	size_t n = 0;

#define PD__PUT_U64(name) memcpy(b + n, &sid->name, 8)
#define PD__PUT_TID(name) (memcpy(b + n, &sid->pid, 4), memcpy(b + n + 4, &sid->tid, 4))
#define PD__PUT_CPU(name) (memcpy(b + n, &sid->cpu, 4), memset(b + n + 4, 0, 4))
#define PD__PUT(bit, kind, name)                                                                   \
	if (sample_type & (bit)) {                                                                 \
		PD__PUT_##kind(name);                                                              \
		n += 8;                                                                            \
	}
	PD_ID_TRAILER_FIELDS(PD__PUT)
#undef PD__PUT
#undef PD__PUT_U64
#undef PD__PUT_TID
#undef PD__PUT_CPU
	return n;
}

/* Where field @bit (one of the list's, a constant) starts in the sample_id trailer of
 * @sample_type: bytes back from the end of the record; 0 when @sample_type has no such field. */
static inline unsigned int pd_id_trailer_back(uint64_t sample_type, uint64_t bit)
{
	unsigned int back = 0;
	bool from = false;

	/* the fields from @bit on, to the end */
#define PD__BACK(b, kind, name)                                                                    \
	from = from || (b) == bit;                                                                 \
	back += from && (sample_type & (b)) ? 8 : 0;
	PD_ID_TRAILER_FIELDS(PD__BACK)
#undef PD__BACK
	return (sample_type & bit) ? back : 0;
}

/* Where field @bit (one of the list's, a constant) of a sample of @sample_type starts, in bytes
 * from the start of the record (header included); 0 when @sample_type has no such field or a
 * field of variable size comes before it. */
static inline unsigned int pd_sample_fixed_off(uint64_t sample_type, uint64_t bit)
{
	unsigned int off = 8;

#define PD__OFF(b, kind, name)                                                                     \
	if (bit & (b))                                                                             \
		return (sample_type & (b)) ? off : 0;                                              \
	if (sample_type & (b)) {                                                                   \
		if (!PD_K_##kind)                                                                  \
			return 0;                                                                  \
		off += 8;                                                                          \
	}
	PD_SAMPLE_FIELDS(PD__OFF)
#undef PD__OFF
	return 0;
}

/* Where records of an event with @sample_type carry its id (as hws_record__id() reads it):
 * *smp: bytes from the start of a SAMPLE; *back: bytes back from the end of other kernel
 * records when the event has sample_id_all; 0: no id there. IDENTIFIER is read before ID. */
static inline void pd_id_place(uint64_t sample_type, unsigned int *smp, unsigned int *back)
{
	if (sample_type & PERF_SAMPLE_IDENTIFIER) {
		*smp = pd_sample_fixed_off(sample_type, PERF_SAMPLE_IDENTIFIER);
		*back = pd_id_trailer_back(sample_type, PERF_SAMPLE_IDENTIFIER);
	} else {
		*smp = pd_sample_fixed_off(sample_type, PERF_SAMPLE_ID);
		*back = pd_id_trailer_back(sample_type, PERF_SAMPLE_ID);
	}
}

#endif
