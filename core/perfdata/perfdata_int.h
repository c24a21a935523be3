/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the perf.data writer, reader, byte swapper and sample parser
 * (core/perfdata/perfdata_write.c, core/perfdata/perfdata_read.c, core/perfdata/swap.c,
 * core/perfdata/sample_parse.c), and by core/record/host_features.c and core/decode/.
 * Not installed. All helpers are bounds-checked by their callers.
 */
#ifndef HWS_CORE_PERFDATA_INT_H
#define HWS_CORE_PERFDATA_INT_H

#include <byteswap.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>

#include <hwsample/perfdata.h>
#include <hwsample/abi.h>
#include <hwsample/strbuf.h>

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
#define PERF_MAGIC1 0x454c494646524550ULL /* "PERFFILE" (v1, before 2.6.39) */

#define PERF_FILE_HEADER_SIZE	  104
#define PERF_FILE_HEADER_SIZE_OLD 72
#define PERF_PIPE_HEADER_SIZE	  16
/* attr bytes hwsample writes per event: PERF_ATTR_SIZE_VER7, what perf 6.1 reads (config3 and
 * config4 stay out of files) */
#define HWS_FILE_ATTR_SIZE HWS_PERF_ATTR_SIZE_VER7

/* Bits that newer uapi headers define; spelled out so older build hosts compile. */
#define HWS_BRANCH_HW_INDEX    (1ULL << 17) /* PERF_SAMPLE_BRANCH_HW_INDEX */
#define HWS_BRANCH_COUNTERS    (1ULL << 19) /* PERF_SAMPLE_BRANCH_COUNTERS */
#define HWS_FORMAT_LOST	       (1ULL << 4)  /* PERF_FORMAT_LOST */
#define HWS_MISC_MMAP_BUILD_ID (1U << 14)
/* HEADER_BUILD_ID entry: byte 20 of the id is its size */
#define HWS_MISC_BUILD_ID_SIZE (1U << 15)

struct hws_file_section {
	uint64_t offset;
	uint64_t size;
};

struct hws_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct hws_file_section attrs;
	struct hws_file_section data;
	struct hws_file_section event_types;
	uint64_t adds_features[4];
};

static inline uint64_t pd_get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint16_t pd_get16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t pd_get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline void pd_swap64(void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	v = bswap_64(v);
	memcpy(p, &v, 8);
}

static inline void pd_swap32(void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	v = bswap_32(v);
	memcpy(p, &v, 4);
}

static inline void pd_swap16(void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	v = bswap_16(v);
	memcpy(p, &v, 2);
}

/* Swap @n u64 words at @p (@n may be 0). */
static inline void pd_swap64_array(void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pd_swap64((char *)p + 8 * i);
}

/* Features whose payload is one perf string (u32 len, bytes padded, NUL-terminated) */
static inline bool pd_string_feature(int feat)
{
	switch (feat) {
	case HWS_FEAT_HOSTNAME:
	case HWS_FEAT_OSRELEASE:
	case HWS_FEAT_VERSION:
	case HWS_FEAT_ARCH:
	case HWS_FEAT_CPUDESC:
	case HWS_FEAT_CPUID:
		return true;
	default:
		return false;
	}
}

/* The record header by value: callers may hand in records that are not 4-aligned. */
static inline struct perf_event_header pd_get_hdr(const void *rec, size_t size)
{
	struct perf_event_header h = {0, 0, 0}; /* size 0: rejected by every caller */

	if (rec && size >= sizeof(h))
		memcpy(&h, rec, sizeof(h));
	return h;
}

static inline unsigned int pd_popcount64(uint64_t v)
{
	return (unsigned int)__builtin_popcountll(v);
}

/* Size in bytes of a read_format block with @nr group members (1 if not a group). */
static inline uint64_t pd_read_size(uint64_t read_format, uint64_t nr)
{
	uint64_t per = 8 + ((read_format & PERF_FORMAT_ID) ? 8 : 0) +
		       ((read_format & HWS_FORMAT_LOST) ? 8 : 0);
	uint64_t hdr = ((read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
		       ((read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);

	if (read_format & PERF_FORMAT_GROUP)
		return 8 + hdr + nr * per;
	return hdr + per;
}

/* ---- core/perfdata/swap.c: in-place byte swapping ---- */

/* perfdata_read.c: hws_perf_reader__next() without its argument checks, for the decoder's
 * loop of nearly all samples (decode.c: run_direct(), its only caller, so that link-time
 * optimization inlines the short path there) */
int pd_reader_next(struct hws_perf_reader *r, struct hws_perf_record *out);

/* perfdata_read.c: the next non-SAMPLE record from file offset *pos on, without moving the
 * reader (the decoder's look-ahead): 1, 0 at the end, -1 when not possible from there */
int pd_reader_scan(struct hws_perf_reader *r, uint64_t *pos, struct hws_perf_record *out);

/*
 * Byte-swap a record body in place: into host order when @to_host (reader), else from host
 * into the other order (test helper that makes big-endian files). The 8-byte header must
 * already be in host order. @attr (host order) is the event the record belongs to (needed
 * for SAMPLE and the sample_id trailer); NULL leaves those parts alone.
 * u64 fields are swapped as u64, u32/u16 fields as such (so {pid, tid} pairs keep their
 * place), byte payloads (RAW data, AUX, STACK_USER, strings) are left as they are.
 * Returns 0 or HWS_E_BADREC (the record is then partly swapped).
 */
int hws__swap_record(void *rec, size_t size, const struct hws_perf_event_attr *attr, int to_host);
/* Swap a PERF_RECORD_SAMPLE body (header in host order). */
int hws__swap_sample(void *rec, size_t size, const struct hws_perf_event_attr *attr, int to_host);
/* Swap a perf_event_attr of @size bytes as perf_event__attr_swap() does (with @to_host:
 * size is read after swapping, else before). */
void hws__swap_attr(void *attr, size_t avail, int to_host);
/* Swap a header feature payload in place, to host order when @to_host, else to foreign
 * order (test helper). Returns 0 or HWS_E_BADREC (left partly swapped). */
int hws__swap_feature(int feat, void *buf, size_t len, int to_host);

/* ---- core/perfdata/sample_parse.c ---- */

/* Name for an event without one: "cycles", "page-faults", "tracepoint 123",
 * "ibs_op/config=0x80000/" (with @pmu), else "raw 0x1cd". */
void hws__attr_default_name(const struct hws_perf_event_attr *at, const char *pmu, char *buf,
			    size_t len);

/* PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER of a sample (what --call-graph dwarf
 * records), for the DWARF unwinder (core/decode/unwind.c). */
struct hws_user_regs {
	uint64_t abi;	   /* PERF_SAMPLE_REGS_ABI_*; 0: no registers (kernel thread) */
	uint64_t mask;	   /* attr->sample_regs_user: which registers regs[] holds, in bit order */
	uint64_t regs[64]; /* nr values */
	unsigned int nr;
	const void
	    *stack; /* the stack copy from the user sp up, stack_size bytes (in the record) */
	uint64_t stack_size; /* bytes copied (attr->sample_stack_user); 0: no stack */
	uint64_t dyn_size;   /* of which valid (the kernel's dyn_size) */
};

/* Find the user registers and stack copy of PERF_RECORD_SAMPLE @rec (as hws_sample__parse()).
 * Return: 0 (fields absent: abi 0 / stack_size 0) or HWS_E_BADREC. */
int hws_sample__user_regs_stack(const struct hws_perf_event_attr *attr, const void *rec,
				size_t size, struct hws_user_regs *out);

/* ---- core/perfdata/perfdata_write.c ---- */

/* Feature payload builders (perf's on-disk encodings, host order). Return 0 or -errno. */
int hws__put_string(struct hws_strbuf *sb, const char *s);
int hws__put_u32(struct hws_strbuf *sb, uint32_t v);
int hws__put_u64(struct hws_strbuf *sb, uint64_t v);

#endif
