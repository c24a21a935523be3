// SPDX-License-Identifier: MIT
/*
 * PERF_RECORD_SAMPLE and sample_id trailer parsing, record ids and record type names.
 *
 * Invariants: every function here is pure (no allocation, no global state) and reads only
 * inside [rec, rec + size). Fields are taken in the order the kernel writes them
 * (perf_output_sample() in kernel/events/core.c), which differs from the uapi comment for
 * CGROUP / DATA_PAGE_SIZE / CODE_PAGE_SIZE / AUX:
 *   IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD READ CALLCHAIN RAW BRANCH_STACK
 *   REGS_USER STACK_USER WEIGHT|WEIGHT_STRUCT DATA_SRC TRANSACTION REGS_INTR PHYS_ADDR
 *   CGROUP DATA_PAGE_SIZE CODE_PAGE_SIZE AUX
 * The sample_id trailer of other records is TID TIME ID STREAM_ID CPU IDENTIFIER, at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/perfdata.h>
#include <hwsample/sample.h>

#include "util/internal.h"
#include "perfdata/perfdata_int.h"

struct cur {
	const uint8_t *p;
	size_t left;
};

/* The record header by value: callers may hand in records that are not 4-aligned. */
static struct perf_event_header get_hdr(const void *rec, size_t size)
{
	struct perf_event_header h = { 0, 0, 0 }; /* size 0: rejected by every caller */

	if (rec && size >= sizeof(h))
		memcpy(&h, rec, sizeof(h));
	return h;
}

static int take(struct cur *c, size_t n, const uint8_t **out)
{
	if (n > c->left)
		return HWS_E_BADREC;
	*out = c->p;
	c->p += n;
	c->left -= n;
	return 0;
}

static int u64(struct cur *c, uint64_t *v)
{
	const uint8_t *p;

	if (take(c, 8, &p))
		return HWS_E_BADREC;
	*v = pd_get64(p);
	return 0;
}

static int u32pair(struct cur *c, uint32_t *a, uint32_t *b)
{
	const uint8_t *p;

	if (take(c, 8, &p))
		return HWS_E_BADREC;
	*a = pd_get32(p);
	if (b)
		*b = pd_get32(p + 4);
	return 0;
}

static unsigned int popcount64(uint64_t v)
{
	return (unsigned int)__builtin_popcountll(v);
}

/* popcount without the libgcc call that __builtin_popcountll is on baseline x86-64 */
static inline unsigned int bits64(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ULL);
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned int)((v * 0x0101010101010101ULL) >> 56);
}

/* Skip a read_format block; returns its start/size. */
static int read_block(struct cur *c, uint64_t read_format, const uint8_t **start, uint32_t *sz)
{
	uint64_t nr = 1, len;
	const uint8_t *p;

	if (read_format & PERF_FORMAT_GROUP) {
		if (c->left < 8)
			return HWS_E_BADREC;
		nr = pd_get64(c->p);
		if (nr > c->left / 8)
			return HWS_E_BADREC;
	}
	len = pd_read_size(read_format, nr);
	if (len > c->left || take(c, (size_t)len, &p))
		return HWS_E_BADREC;
	*start = p;
	*sz = (uint32_t)len;
	return 0;
}

/*
 * The common case of hws_sample__parse(): only fixed-size fields, so the record's length is
 * known from sample_type and checked once; then the fields are read in order without a
 * check each. Same result as the general path (which also accepts trailing bytes).
 */
static void parse_fixed(uint64_t st, const uint8_t *p, struct hws_record_sample *out)
{
#define F64(bit, dst)                                                                              \
	do {                                                                                       \
		if (st & (bit)) {                                                                  \
			(dst) = pd_get64(p);                                                       \
			p += 8;                                                                    \
		}                                                                                  \
	} while (0)
	F64(PERF_SAMPLE_IDENTIFIER, out->id);
	F64(PERF_SAMPLE_IP, out->ip);
	if (st & PERF_SAMPLE_TID) {
		out->pid = pd_get32(p);
		out->tid = pd_get32(p + 4);
		p += 8;
	}
	F64(PERF_SAMPLE_TIME, out->time);
	F64(PERF_SAMPLE_ADDR, out->addr);
	F64(PERF_SAMPLE_ID, out->id);
	F64(PERF_SAMPLE_STREAM_ID, out->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		out->cpu = pd_get32(p);
		p += 8;
	}
	F64(PERF_SAMPLE_PERIOD, out->period);
	F64(PERF_SAMPLE_WEIGHT_TYPE, out->weight);
	F64(PERF_SAMPLE_DATA_SRC, out->data_src);
	F64(PERF_SAMPLE_TRANSACTION, out->transaction);
	F64(PERF_SAMPLE_PHYS_ADDR, out->phys_addr);
	F64(PERF_SAMPLE_CGROUP, out->cgroup);
	F64(PERF_SAMPLE_DATA_PAGE_SIZE, out->data_page_size);
	F64(PERF_SAMPLE_CODE_PAGE_SIZE, out->code_page_size);
#undef F64
}

int hws_sample__parse(const struct hws_perf_event_attr *attr, const void *rec, size_t size,
		      struct hws_record_sample *out)
{
	const struct perf_event_header hdr_copy = get_hdr(rec, size), *hdr = &hdr_copy;
	uint64_t st, v;
	const uint8_t *p;
	struct cur c;

	if (!attr || !rec || !out || size < sizeof(*hdr) || hdr->size > size ||
	    hdr->size < sizeof(*hdr))
		return HWS_E_BADREC;
	hws_zero(out, sizeof(*out));
	st = attr->sample_type;
	out->attr = attr;
	out->sample_type = st;
	out->misc = hdr->misc;
	out->period = attr->sample_period; /* as perf: the attr's period unless PERIOD is sampled */
	c.p = (const uint8_t *)rec + sizeof(*hdr);
	c.left = hdr->size - sizeof(*hdr);
	if (!(st & ~(uint64_t)HWS_FIXED_SAMPLE_FIELDS) &&
	    (st & PERF_SAMPLE_WEIGHT_TYPE) != PERF_SAMPLE_WEIGHT_TYPE) {
		if (c.left < 8 * (size_t)bits64(st))
			return HWS_E_BADREC;
		parse_fixed(st, c.p, out);
		return 0;
	}

	if ((st & PERF_SAMPLE_IDENTIFIER) && u64(&c, &out->id))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_IP) && u64(&c, &out->ip))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_TID) && u32pair(&c, &out->pid, &out->tid))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_TIME) && u64(&c, &out->time))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_ADDR) && u64(&c, &out->addr))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_ID) && u64(&c, &out->id))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_STREAM_ID) && u64(&c, &out->stream_id))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_CPU) && u32pair(&c, &out->cpu, NULL))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_PERIOD) && u64(&c, &out->period))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_READ) &&
	    read_block(&c, attr->read_format, (const uint8_t **)&out->read, &out->read_size))
		return HWS_E_BADREC;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (u64(&c, &v) || v > c.left / 8 || take(&c, (size_t)v * 8, &p))
			return HWS_E_BADREC;
		out->nr_callchain = v;
		out->callchain = (const uint64_t *)p;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t rsz;

		if (c.left < 4)
			return HWS_E_BADREC;
		rsz = pd_get32(c.p);
		c.p += 4;
		c.left -= 4;
		if (take(&c, rsz, &p))
			return HWS_E_BADREC;
		out->raw = p;
		out->raw_size = rsz;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (u64(&c, &v) || v > c.left / 24)
			return HWS_E_BADREC;
		out->nr_branches = v;
		if ((attr->branch_sample_type & HWS_BRANCH_HW_INDEX) && take(&c, 8, &p))
			return HWS_E_BADREC;
		if (take(&c, (size_t)v * 24, &p))
			return HWS_E_BADREC;
		out->branches = p;
		if ((attr->branch_sample_type & HWS_BRANCH_COUNTERS) &&
		    (v > c.left / 8 || take(&c, (size_t)v * 8, &p)))
			return HWS_E_BADREC;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (u64(&c, &v))
			return HWS_E_BADREC;
		if (v && take(&c, popcount64(attr->sample_regs_user) * 8u, &p))
			return HWS_E_BADREC;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (u64(&c, &v) || v > c.left)
			return HWS_E_BADREC;
		if (v && (take(&c, (size_t)v, &p) || take(&c, 8, &p)))
			return HWS_E_BADREC;
	}
	if ((st & PERF_SAMPLE_WEIGHT_TYPE) && u64(&c, &out->weight))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_DATA_SRC) && u64(&c, &out->data_src))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_TRANSACTION) && u64(&c, &out->transaction))
		return HWS_E_BADREC;
	if (st & PERF_SAMPLE_REGS_INTR) {
		if (u64(&c, &v))
			return HWS_E_BADREC;
		if (v && take(&c, popcount64(attr->sample_regs_intr) * 8u, &p))
			return HWS_E_BADREC;
	}
	if ((st & PERF_SAMPLE_PHYS_ADDR) && u64(&c, &out->phys_addr))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_CGROUP) && u64(&c, &out->cgroup))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_DATA_PAGE_SIZE) && u64(&c, &out->data_page_size))
		return HWS_E_BADREC;
	if ((st & PERF_SAMPLE_CODE_PAGE_SIZE) && u64(&c, &out->code_page_size))
		return HWS_E_BADREC;
	if (st & PERF_SAMPLE_AUX) {
		if (u64(&c, &v) || v > c.left || take(&c, (size_t)v, &p))
			return HWS_E_BADREC;
		out->aux_size = v;
		out->aux = p;
	}
	return 0;
}

int hws_sample_id__parse(const struct hws_perf_event_attr *attr, const void *rec, size_t size,
			 struct hws_sample_id *out)
{
	const struct perf_event_header hdr_copy = get_hdr(rec, size), *hdr = &hdr_copy;
	uint64_t st;
	size_t n;
	struct cur c;

	if (!attr || !rec || !out || size < sizeof(*hdr) || hdr->size > size ||
	    hdr->size < sizeof(*hdr))
		return HWS_E_BADREC;
	memset(out, 0, sizeof(*out));
	if (hdr->type == PERF_RECORD_SAMPLE) {
		struct hws_record_sample s;
		int err = hws_sample__parse(attr, rec, size, &s);

		if (err)
			return err;
		st = attr->sample_type;
		out->pid = s.pid;
		out->tid = s.tid;
		out->cpu = s.cpu;
		out->time = s.time;
		out->id = s.id;
		out->stream_id = s.stream_id;
		out->fields = ((st & PERF_SAMPLE_TIME) ? HWS_SF_TIME : 0) |
			      ((st & PERF_SAMPLE_CPU) ? HWS_SF_CPU : 0) |
			      ((st & PERF_SAMPLE_TID) ? HWS_SF_PID : 0) |
			      ((st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) ? HWS_SF_ID : 0);
		return 0;
	}
	if (!attr->sample_id_all || hdr->type >= HWS_RECORD_HEADER_ATTR)
		return 0;
	st = attr->sample_type;
	n = pd_id_trailer_size(st);
	if (n > hdr->size - sizeof(*hdr))
		return HWS_E_BADREC;
	c.p = (const uint8_t *)rec + hdr->size - n;
	c.left = n;
	if (st & PERF_SAMPLE_TID) {
		u32pair(&c, &out->pid, &out->tid);
		out->fields |= HWS_SF_PID;
	}
	if (st & PERF_SAMPLE_TIME) {
		u64(&c, &out->time);
		out->fields |= HWS_SF_TIME;
	}
	if (st & PERF_SAMPLE_ID) {
		u64(&c, &out->id);
		out->fields |= HWS_SF_ID;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		u64(&c, &out->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		u32pair(&c, &out->cpu, NULL);
		out->fields |= HWS_SF_CPU;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		u64(&c, &out->id);
		out->fields |= HWS_SF_ID;
	}
	return 0;
}

int64_t hws_record__id(const struct hws_perf_event_attr *attr, const void *rec, size_t size)
{
	const struct perf_event_header hdr_copy = get_hdr(rec, size), *hdr = &hdr_copy;
	const uint8_t *b = rec;
	uint64_t st;
	size_t off;

	if (!attr || !rec || size < sizeof(*hdr) || hdr->size > size || hdr->size < sizeof(*hdr))
		return -1;
	st = attr->sample_type;
	if (hdr->type == PERF_RECORD_SAMPLE) {
		if (st & PERF_SAMPLE_IDENTIFIER)
			off = 8;
		else if (st & PERF_SAMPLE_ID)
			off = 8 + ((st & PERF_SAMPLE_IP) ? 8 : 0) + ((st & PERF_SAMPLE_TID) ? 8 : 0) +
			      ((st & PERF_SAMPLE_TIME) ? 8 : 0) + ((st & PERF_SAMPLE_ADDR) ? 8 : 0);
		else
			return -1;
		if (off + 8 > hdr->size)
			return -1;
		return (int64_t)pd_get64(b + off);
	}
	if (!attr->sample_id_all || hdr->type >= HWS_RECORD_HEADER_ATTR)
		return -1;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		if (hdr->size < 16)
			return -1;
		return (int64_t)pd_get64(b + hdr->size - 8);
	}
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	off = 8 + ((st & PERF_SAMPLE_STREAM_ID) ? 8 : 0) + ((st & PERF_SAMPLE_CPU) ? 8 : 0);
	if (off + 8 > hdr->size)
		return -1;
	return (int64_t)pd_get64(b + hdr->size - off);
}

static const char *const kernel_names[] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[10] = "MMAP2",
	[11] = "AUX",
	[12] = "ITRACE_START",
	[13] = "LOST_SAMPLES",
	[14] = "SWITCH",
	[15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES",
	[17] = "KSYMBOL",
	[18] = "BPF_EVENT",
	[19] = "CGROUP",
	[20] = "TEXT_POKE",
	[21] = "AUX_OUTPUT_HW_ID",
	[22] = "CALLCHAIN_DEFERRED",
};

static const char *const user_names[] = {
	[HWS_RECORD_HEADER_ATTR - 64] = "ATTR",
	[HWS_RECORD_HEADER_EVENT_TYPE - 64] = "EVENT_TYPE",
	[HWS_RECORD_HEADER_TRACING_DATA - 64] = "TRACING_DATA",
	[HWS_RECORD_HEADER_BUILD_ID - 64] = "BUILD_ID",
	[HWS_RECORD_FINISHED_ROUND - 64] = "FINISHED_ROUND",
	[HWS_RECORD_ID_INDEX - 64] = "ID_INDEX",
	[HWS_RECORD_AUXTRACE_INFO - 64] = "AUXTRACE_INFO",
	[HWS_RECORD_AUXTRACE - 64] = "AUXTRACE",
	[HWS_RECORD_AUXTRACE_ERROR - 64] = "AUXTRACE_ERROR",
	[HWS_RECORD_THREAD_MAP - 64] = "THREAD_MAP",
	[HWS_RECORD_CPU_MAP - 64] = "CPU_MAP",
	[HWS_RECORD_STAT_CONFIG - 64] = "STAT_CONFIG",
	[HWS_RECORD_STAT - 64] = "STAT",
	[HWS_RECORD_STAT_ROUND - 64] = "STAT_ROUND",
	[HWS_RECORD_EVENT_UPDATE - 64] = "EVENT_UPDATE",
	[HWS_RECORD_TIME_CONV - 64] = "TIME_CONV",
	[HWS_RECORD_HEADER_FEATURE - 64] = "FEATURE",
	[HWS_RECORD_COMPRESSED - 64] = "COMPRESSED",
	[HWS_RECORD_FINISHED_INIT - 64] = "FINISHED_INIT",
};

const char *hws_record__type_name(uint32_t type)
{
	const char *n = NULL;

	if (type < sizeof(kernel_names) / sizeof(kernel_names[0]))
		n = kernel_names[type];
	else if (type >= 64 && type - 64 < sizeof(user_names) / sizeof(user_names[0]))
		n = user_names[type - 64];
	return n ? n : "UNKNOWN";
}

/* ---------------------------------------------------------------- byte swapping */

/* Swap a u64 at @p and return its host-order value. */
static uint64_t fix64(uint8_t *p, int to_host)
{
	uint64_t v = pd_get64(p);

	pd_swap64(p);
	return to_host ? bswap_64(v) : v;
}

static uint32_t fix32(uint8_t *p, int to_host)
{
	uint32_t v = pd_get32(p);

	pd_swap32(p);
	return to_host ? bswap_32(v) : v;
}

struct wcur {
	uint8_t *p;
	size_t left;
};

static int w64(struct wcur *c, int to_host, uint64_t *v)
{
	uint64_t x;

	if (c->left < 8)
		return HWS_E_BADREC;
	x = fix64(c->p, to_host);
	if (v)
		*v = x;
	c->p += 8;
	c->left -= 8;
	return 0;
}

static int w32x2(struct wcur *c)
{
	if (c->left < 8)
		return HWS_E_BADREC;
	pd_swap32(c->p);
	pd_swap32(c->p + 4);
	c->p += 8;
	c->left -= 8;
	return 0;
}

static int wskip(struct wcur *c, uint64_t n)
{
	if (n > c->left)
		return HWS_E_BADREC;
	c->p += n;
	c->left -= n;
	return 0;
}

static int wn64(struct wcur *c, uint64_t n)
{
	if (n > c->left / 8)
		return HWS_E_BADREC;
	pd_swap64_array(c->p, (size_t)n);
	return wskip(c, n * 8);
}

int hws__swap_sample(void *rec, size_t size, const struct hws_perf_event_attr *attr, int to_host)
{
	const struct perf_event_header hdr_copy = get_hdr(rec, size), *hdr = &hdr_copy;
	struct wcur c;
	uint64_t st, v;

	if (!attr || size < sizeof(*hdr) || hdr->size > size || hdr->size < sizeof(*hdr))
		return HWS_E_BADREC;
	st = attr->sample_type;
	c.p = (uint8_t *)rec + sizeof(*hdr);
	c.left = hdr->size - sizeof(*hdr);

#define W64(bit)                                        \
	do {                                            \
		if ((st & (bit)) && w64(&c, to_host, NULL)) \
			return HWS_E_BADREC;            \
	} while (0)
	W64(PERF_SAMPLE_IDENTIFIER);
	W64(PERF_SAMPLE_IP);
	if ((st & PERF_SAMPLE_TID) && w32x2(&c))
		return HWS_E_BADREC;
	W64(PERF_SAMPLE_TIME);
	W64(PERF_SAMPLE_ADDR);
	W64(PERF_SAMPLE_ID);
	W64(PERF_SAMPLE_STREAM_ID);
	if ((st & PERF_SAMPLE_CPU) && w32x2(&c))
		return HWS_E_BADREC;
	W64(PERF_SAMPLE_PERIOD);
	if (st & PERF_SAMPLE_READ) {
		uint64_t nr = 1, rf = attr->read_format;

		if (rf & PERF_FORMAT_GROUP) {
			if (c.left < 8)
				return HWS_E_BADREC;
			nr = to_host ? bswap_64(pd_get64(c.p)) : pd_get64(c.p);
			if (nr > c.left / 8)
				return HWS_E_BADREC;
		}
		if (wn64(&c, pd_read_size(rf, nr) / 8))
			return HWS_E_BADREC;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (w64(&c, to_host, &v) || wn64(&c, v))
			return HWS_E_BADREC;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (c.left < 4)
			return HWS_E_BADREC;
		v = fix32(c.p, to_host);
		if (wskip(&c, 4) || wskip(&c, v))
			return HWS_E_BADREC;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (w64(&c, to_host, &v) || v > c.left / 24)
			return HWS_E_BADREC;
		if ((attr->branch_sample_type & HWS_BRANCH_HW_INDEX) && w64(&c, to_host, NULL))
			return HWS_E_BADREC;
		if (wn64(&c, v * 3))
			return HWS_E_BADREC;
		if ((attr->branch_sample_type & HWS_BRANCH_COUNTERS) && wn64(&c, v))
			return HWS_E_BADREC;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (w64(&c, to_host, &v) || (v && wn64(&c, popcount64(attr->sample_regs_user))))
			return HWS_E_BADREC;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if (w64(&c, to_host, &v))
			return HWS_E_BADREC;
		if (v && (wskip(&c, v) || w64(&c, to_host, NULL)))
			return HWS_E_BADREC;
	}
	W64(PERF_SAMPLE_WEIGHT_TYPE);
	W64(PERF_SAMPLE_DATA_SRC);
	W64(PERF_SAMPLE_TRANSACTION);
	if (st & PERF_SAMPLE_REGS_INTR) {
		if (w64(&c, to_host, &v) || (v && wn64(&c, popcount64(attr->sample_regs_intr))))
			return HWS_E_BADREC;
	}
	W64(PERF_SAMPLE_PHYS_ADDR);
	W64(PERF_SAMPLE_CGROUP);
	W64(PERF_SAMPLE_DATA_PAGE_SIZE);
	W64(PERF_SAMPLE_CODE_PAGE_SIZE);
	if (st & PERF_SAMPLE_AUX) {
		if (w64(&c, to_host, &v) || wskip(&c, v))
			return HWS_E_BADREC;
	}
#undef W64
	return 0;
}

/* Swap the sample_id trailer at the end of a non-sample record. */
static int swap_trailer(uint8_t *rec, size_t size, const struct hws_perf_event_attr *attr,
			int to_host)
{
	uint64_t st;
	size_t n;
	struct wcur c;

	if (!attr || !attr->sample_id_all)
		return 0;
	st = attr->sample_type;
	n = pd_id_trailer_size(st);
	if (n > size - 8)
		return HWS_E_BADREC;
	c.p = rec + size - n;
	c.left = n;
	if (st & PERF_SAMPLE_TID)
		w32x2(&c);
	if (st & PERF_SAMPLE_TIME)
		w64(&c, to_host, NULL);
	if (st & PERF_SAMPLE_ID)
		w64(&c, to_host, NULL);
	if (st & PERF_SAMPLE_STREAM_ID)
		w64(&c, to_host, NULL);
	if (st & PERF_SAMPLE_CPU)
		w32x2(&c);
	if (st & PERF_SAMPLE_IDENTIFIER)
		w64(&c, to_host, NULL);
	return 0;
}

/* Swap u32 fields at byte offsets @offs (relative to the record start) that lie inside. */
static void swap32_at(uint8_t *rec, size_t size, const size_t *offs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (offs[i] + 4 <= size)
			pd_swap32(rec + offs[i]);
}

static void swap64_at(uint8_t *rec, size_t size, const size_t *offs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (offs[i] + 8 <= size)
			pd_swap64(rec + offs[i]);
}

static void swap64_range(uint8_t *rec, size_t size, size_t from)
{
	for (size_t o = from; o + 8 <= size; o += 8)
		pd_swap64(rec + o);
}

int hws__swap_record(void *recp, size_t size, const struct hws_perf_event_attr *attr, int to_host)
{
	const struct perf_event_header hdr_copy = get_hdr(recp, size), *hdr = &hdr_copy;
	uint8_t *rec = recp;
	size_t sz;

	if (size < sizeof(*hdr) || hdr->size > size || hdr->size < sizeof(*hdr))
		return HWS_E_BADREC;
	sz = hdr->size;
	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		return hws__swap_sample(rec, sz, attr, to_host);
	case PERF_RECORD_MMAP: {
		static const size_t o32[] = { 8, 12 }, o64[] = { 16, 24, 32 };

		swap32_at(rec, sz, o32, 2);
		swap64_at(rec, sz, o64, 3);
		break;
	}
	case PERF_RECORD_MMAP2: {
		static const size_t o32[] = { 8, 12, 40, 44, 64, 68 }, o64[] = { 16, 24, 32, 48, 56 };

		swap32_at(rec, sz, o32, 2);
		swap64_at(rec, sz, o64, 3);
		if (!(hdr->misc & HWS_MISC_MMAP_BUILD_ID)) {
			swap32_at(rec, sz, o32 + 2, 2); /* maj, min */
			swap64_at(rec, sz, o64 + 3, 2); /* ino, ino_generation */
		}
		swap32_at(rec, sz, o32 + 4, 2); /* prot, flags */
		break;
	}
	case PERF_RECORD_LOST:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case 11: /* AUX */
	case 13: /* LOST_SAMPLES */
	case 21: /* AUX_OUTPUT_HW_ID */
	{
		static const size_t o64[] = { 8, 16, 24 };
		size_t n = hdr->type == PERF_RECORD_LOST ? 2 : hdr->type == 13 || hdr->type == 21 ? 1 : 3;

		swap64_at(rec, sz, o64, n);
		break;
	}
	case PERF_RECORD_COMM:
	case 12: /* ITRACE_START */
	case 15: /* SWITCH_CPU_WIDE */
	{
		static const size_t o32[] = { 8, 12 };

		swap32_at(rec, sz, o32, 2);
		break;
	}
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK: {
		static const size_t o32[] = { 8, 12, 16, 20 }, o64[] = { 24 };

		swap32_at(rec, sz, o32, 4);
		swap64_at(rec, sz, o64, 1);
		break;
	}
	case PERF_RECORD_READ: { /* pid, tid, read_format block (group: nr first) */
		static const size_t o32[] = { 8, 12 };
		uint64_t nr = 1, n;

		swap32_at(rec, sz, o32, 2);
		if (!attr || sz < 24)
			break;
		if (attr->read_format & PERF_FORMAT_GROUP) {
			nr = to_host ? bswap_64(pd_get64(rec + 16)) : pd_get64(rec + 16);
			if (nr > sz / 8)
				return HWS_E_BADREC;
		}
		n = pd_read_size(attr->read_format, nr);
		if (16 + n > sz)
			return HWS_E_BADREC;
		pd_swap64_array(rec + 16, (size_t)n / 8);
		break;
	}
	case 16: { /* NAMESPACES: pid, tid, nr, {dev, inode}[nr] */
		static const size_t o32[] = { 8, 12 };
		uint64_t nr;

		swap32_at(rec, sz, o32, 2);
		if (sz < 24)
			return HWS_E_BADREC;
		nr = fix64(rec + 16, to_host);
		if (nr > (sz - 24) / 16)
			return HWS_E_BADREC;
		pd_swap64_array(rec + 24, (size_t)nr * 2);
		break;
	}
	case 17: /* KSYMBOL: addr, u32 len, u16 type, u16 flags */
		if (sz >= 24) {
			pd_swap64(rec + 8);
			pd_swap32(rec + 16);
			pd_swap16(rec + 20);
			pd_swap16(rec + 22);
		}
		break;
	case 18: /* BPF_EVENT: u16 type, u16 flags, u32 id */
		if (sz >= 16) {
			pd_swap16(rec + 8);
			pd_swap16(rec + 10);
			pd_swap32(rec + 12);
		}
		break;
	case 19: /* CGROUP: id, path */
		if (sz >= 16)
			pd_swap64(rec + 8);
		break;
	case 20: /* TEXT_POKE: addr, u16 old_len, u16 new_len */
		if (sz >= 20) {
			pd_swap64(rec + 8);
			pd_swap16(rec + 16);
			pd_swap16(rec + 18);
		}
		break;
	case 14: /* SWITCH */
		break;
	case HWS_RECORD_HEADER_ATTR: {
		uint32_t asz;

		if (sz < 8 + 8)
			return HWS_E_BADREC;
		asz = to_host ? bswap_32(pd_get32(rec + 12)) : pd_get32(rec + 12);
		if (asz == 0)
			asz = 64;
		if (asz > sz - 8)
			return HWS_E_BADREC;
		hws__swap_attr(rec + 8, asz, to_host);
		swap64_range(rec, sz, 8 + asz);
		return 0;
	}
	case HWS_RECORD_HEADER_EVENT_TYPE:
	case HWS_RECORD_HEADER_TRACING_DATA:
		if (sz >= 16) {
			if (hdr->type == HWS_RECORD_HEADER_EVENT_TYPE)
				pd_swap64(rec + 8);
			else
				pd_swap32(rec + 8);
		}
		return 0;
	case HWS_RECORD_HEADER_BUILD_ID:
		if (sz >= 12)
			pd_swap32(rec + 8);
		return 0;
	case HWS_RECORD_FINISHED_ROUND:
	case HWS_RECORD_FINISHED_INIT:
	case HWS_RECORD_COMPRESSED:
		return 0;
	case HWS_RECORD_ID_INDEX:
	case HWS_RECORD_STAT_CONFIG:
	case HWS_RECORD_STAT_ROUND:
		swap64_range(rec, sz, 8);
		return 0;
	case HWS_RECORD_AUXTRACE_INFO:
		if (sz >= 16) {
			pd_swap32(rec + 8);
			pd_swap32(rec + 12);
		}
		swap64_range(rec, sz, 16);
		return 0;
	case HWS_RECORD_AUXTRACE: {
		static const size_t o32[] = { 32, 36, 40, 44 }, o64[] = { 8, 16, 24 };

		swap64_at(rec, sz, o64, 3);
		swap32_at(rec, sz, o32, 4);
		return 0;
	}
	case HWS_RECORD_AUXTRACE_ERROR: {
		static const size_t o32[] = { 8, 12, 16, 20, 24, 28, 112, 116 },
				    o64[] = { 32, 104 };

		swap32_at(rec, sz, o32, 6);
		swap64_at(rec, sz, o64, 2);
		swap32_at(rec, sz, o32 + 6, 2);
		return 0;
	}
	case HWS_RECORD_THREAD_MAP: {
		uint64_t nr;

		if (sz < 16)
			return HWS_E_BADREC;
		nr = fix64(rec + 8, to_host);
		if (nr > (sz - 16) / 24)
			return HWS_E_BADREC;
		for (uint64_t i = 0; i < nr; i++)
			pd_swap64(rec + 16 + i * 24);
		return 0;
	}
	case HWS_RECORD_CPU_MAP:
		return hws__swap_feature(-HWS_RECORD_CPU_MAP, rec + 8, sz - 8, to_host);
	case HWS_RECORD_STAT: {
		static const size_t o32[] = { 16, 20 }, o64[] = { 8, 24, 32, 40 };

		swap64_at(rec, sz, o64, 4);
		swap32_at(rec, sz, o32, 2);
		return 0;
	}
	case HWS_RECORD_EVENT_UPDATE: {
		uint64_t type;

		if (sz < 24)
			return HWS_E_BADREC;
		type = fix64(rec + 8, to_host);
		pd_swap64(rec + 16);
		if (type == 1 /* SCALE */ && sz >= 32)
			pd_swap64(rec + 24);
		else if (type == 3 /* CPUS */)
			return hws__swap_feature(-HWS_RECORD_CPU_MAP, rec + 24, sz - 24, to_host);
		return 0;
	}
	case HWS_RECORD_TIME_CONV: {
		static const size_t o64[] = { 8, 16, 24, 32, 40 };

		swap64_at(rec, sz, o64, 5);
		return 0;
	}
	case HWS_RECORD_HEADER_FEATURE: {
		uint64_t feat;

		if (sz < 16)
			return HWS_E_BADREC;
		feat = fix64(rec + 8, to_host);
		if (feat >= HWS_FEAT__MAX)
			return HWS_E_BADREC;
		return hws__swap_feature((int)feat, rec + 16, sz - 16, to_host);
	}
	default:
		return 0; /* unknown: left as is */
	}
	return swap_trailer(rec, sz, attr, to_host);
}

/* ---------------------------------------------------------------- default event names */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

void hws__attr_default_name(const struct hws_perf_event_attr *at, const char *pmu, char *buf,
			    size_t len)
{
	if (at->type == PERF_TYPE_HARDWARE && (at->config & 0xffffffff) < 10)
		snprintf(buf, len, "%s", hw_names[at->config & 0xffffffff]);
	else if (at->type == PERF_TYPE_SOFTWARE && at->config < 12)
		snprintf(buf, len, "%s", sw_names[at->config]);
	else if (at->type == PERF_TYPE_TRACEPOINT)
		snprintf(buf, len, "tracepoint %llu", (unsigned long long)at->config);
	else if (pmu && at->type > PERF_TYPE_BREAKPOINT)
		snprintf(buf, len, "%s/config=%#llx/", pmu, (unsigned long long)at->config);
	else
		snprintf(buf, len, "raw %#llx", (unsigned long long)at->config);
}
