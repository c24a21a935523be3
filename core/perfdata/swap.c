// SPDX-License-Identifier: MIT
/*
 * In-place byte swapping of perf.data contents: perf_event_attr, header feature payloads,
 * records (PERF_RECORD_SAMPLE by the event's sample_type, the sample_id trailer of other
 * kernel records, user records). To host order for the reader (core/perfdata/perfdata_read.c,
 * core/perfdata/features.c), to foreign order for tests that make big-endian files
 * (tests/perfdata_swap.h).
 *
 * Invariants: every function here works inside [buf, buf + len) only and allocates nothing;
 * u64 fields are swapped as u64, u32/u16 fields as such (so {pid, tid} pairs keep their
 * place), byte payloads (RAW data, AUX, STACK_USER, strings) are left as they are; a
 * malformed input returns HWS_E_BADREC and is left partly swapped. Nothing here calls
 * anything else of core/perfdata/ (the graph: core/perfdata/perfdata_read.c's head comment).
 */
#include <byteswap.h>
#include <stdint.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/perfdata.h>

#include "perfdata/perfdata_int.h"
#include "perfdata/sample_fields.h"

/* ---------------------------------------------------------------- cursor */

/* Bytes being swapped in place, front to back: to host order when to_host, else to foreign
 * order. */
struct fcur {
	uint8_t *p;
	size_t left;
	int to_host;
};

/*
 * fix16/32/64(p, to_host): swap the u16/u32/u64 at @p in place and return its host-order
 * value. f_u16/32/64(c, v): the same at the cursor, stepping over it, the value into *@v
 * (if @v); HWS_E_BADREC when fewer bytes are left.
 */
#define FIX_UINT(bits)                                                                             \
	static inline uint##bits##_t fix##bits(uint8_t *p, int to_host)                            \
	{                                                                                          \
		uint##bits##_t v, s;                                                               \
                                                                                                   \
		memcpy(&v, p, sizeof(v));                                                          \
		s = bswap_##bits(v);                                                               \
		memcpy(p, &s, sizeof(s));                                                          \
		return to_host ? s : v;                                                            \
	}                                                                                          \
                                                                                                   \
	static inline int f_u##bits(struct fcur *c, uint##bits##_t *v)                             \
	{                                                                                          \
		uint##bits##_t x;                                                                  \
                                                                                                   \
		if (c->left < sizeof(x))                                                           \
			return HWS_E_BADREC;                                                       \
		x = fix##bits(c->p, c->to_host);                                                   \
		if (v)                                                                             \
			*v = x;                                                                    \
		c->p += sizeof(x);                                                                 \
		c->left -= sizeof(x);                                                              \
		return 0;                                                                          \
	}
FIX_UINT(16)
FIX_UINT(32)
FIX_UINT(64)
#undef FIX_UINT

static int f_skip(struct fcur *c, uint64_t n)
{
	if (n > c->left)
		return HWS_E_BADREC;
	c->p += n;
	c->left -= n;
	return 0;
}

/* two u32 in one 8-byte slot ({pid, tid}, {cpu, res}): both or, when short, neither */
static int f_u32x2(struct fcur *c)
{
	if (c->left < 8)
		return HWS_E_BADREC;
	pd_swap32(c->p);
	pd_swap32(c->p + 4);
	c->p += 8;
	c->left -= 8;
	return 0;
}

/* @n u64: all or, when short, none */
static int f_n64(struct fcur *c, uint64_t n)
{
	if (n > c->left / 8)
		return HWS_E_BADREC;
	pd_swap64_array(c->p, (size_t)n);
	return f_skip(c, n * 8);
}

static int f_str(struct fcur *c)
{
	uint32_t len;

	return f_u32(c, &len) ? HWS_E_BADREC : f_skip(c, len);
}

/* u32 nr; nr strings */
static int f_strlist(struct fcur *c)
{
	uint32_t nr;

	if (f_u32(c, &nr))
		return HWS_E_BADREC;
	for (uint32_t i = 0; i < nr; i++)
		if (f_str(c))
			return HWS_E_BADREC;
	return 0;
}

static void f_rest32(struct fcur *c)
{
	while (c->left >= 4)
		f_u32(c, NULL);
}

static void f_rest64(struct fcur *c)
{
	while (c->left >= 8)
		f_u64(c, NULL);
}

/* ---------------------------------------------------------------- attrs and features */

static int swap_cpu_map(struct fcur *c)
{
	uint16_t type, nr, lsz;

	if (f_u16(c, &type))
		return HWS_E_BADREC;
	switch (type) {
	case 0: /* cpus: u16 nr, u16 cpu[] */
		if (f_u16(c, &nr))
			return HWS_E_BADREC;
		for (uint16_t i = 0; i < nr; i++)
			if (f_u16(c, NULL))
				return HWS_E_BADREC;
		return 0;
	case 1: /* mask: u16 nr, u16 long_size, then u32[] (4) or u64[] at 8-aligned offset */
		if (f_u16(c, &nr) || f_u16(c, &lsz))
			return HWS_E_BADREC;
		if (lsz == 8) {
			if (f_skip(c, 2))
				return HWS_E_BADREC;
			f_rest64(c);
		} else {
			f_rest32(c);
		}
		return 0;
	case 2: /* range: u8 any_cpu, u8 pad, u16 start, u16 end */
		if (f_skip(c, 2) || f_u16(c, NULL) || f_u16(c, NULL))
			return HWS_E_BADREC;
		return 0;
	default:
		return HWS_E_BADREC;
	}
}

void hws__swap_attr(void *attr, size_t avail, int to_host)
{
	static const struct {
		uint8_t off, len;
	} fields[] = {
	    {8, 8},   {16, 8},	{24, 8},  {32, 8},  {48, 4},  {52, 4},	{56, 8},
	    {64, 8},  {72, 8},	{80, 8},  {88, 4},  {92, 4},  {96, 8},	{104, 4},
	    {108, 2}, {110, 2}, {112, 4}, {116, 4}, {120, 8}, {128, 8}, {136, 8},
	};
	uint8_t *a = attr;
	uint32_t size;

	if (avail < 8)
		return;
	size = pd_get32(a + 4);
	pd_swap32(a);
	pd_swap32(a + 4);
	if (to_host)
		size = bswap_32(size);
	if (size == 0)
		size = PERF_ATTR_SIZE_VER0;
	if (size > avail)
		size = (uint32_t)avail;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (fields[i].off + fields[i].len > size)
			continue;
		if (fields[i].len == 8)
			pd_swap64(a + fields[i].off);
		else if (fields[i].len == 4)
			pd_swap32(a + fields[i].off);
		else
			pd_swap16(a + fields[i].off);
	}
	/* flags bitfield: bit order reverses with byte order (perf swap_bitfield) */
	if (size >= 48) {
		for (int i = 40; i < 48; i++) {
			uint8_t b = a[i];

			b = (uint8_t)((b >> 4) | (b << 4));
			b = (uint8_t)(((b & 0xcc) >> 2) | ((b & 0x33) << 2));
			b = (uint8_t)(((b & 0xaa) >> 1) | ((b & 0x55) << 1));
			a[i] = b;
		}
	}
}

int hws__swap_feature(int feat, void *buf, size_t len, int to_host)
{
	struct fcur c = {buf, len, to_host};
	uint32_t nr, n2;

	if (pd_string_feature(feat))
		return f_str(&c);
	switch (feat) {
	case -HWS_RECORD_CPU_MAP:
		return swap_cpu_map(&c);
	case HWS_FEAT_NRCPUS:
	case HWS_FEAT_COMPRESSED:
		f_rest32(&c);
		return 0;
	case HWS_FEAT_TOTAL_MEM:
	case HWS_FEAT_CLOCKID:
	case HWS_FEAT_AUXTRACE:
	case HWS_FEAT_SAMPLE_TIME:
	case HWS_FEAT_MEM_TOPOLOGY:
	case HWS_FEAT_DIR_FORMAT:
		f_rest64(&c);
		return 0;
	case HWS_FEAT_CMDLINE:
		return f_strlist(&c);
	case HWS_FEAT_EVENT_DESC: {
		uint32_t asz;

		if (f_u32(&c, &nr) || f_u32(&c, &asz) || asz < 8)
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++) {
			if (c.left < asz)
				return HWS_E_BADREC;
			hws__swap_attr(c.p, asz, to_host);
			if (f_skip(&c, asz) || f_u32(&c, &n2) || f_str(&c))
				return HWS_E_BADREC;
			if (n2 > c.left / 8)
				return HWS_E_BADREC;
			for (uint32_t j = 0; j < n2; j++)
				f_u64(&c, NULL);
		}
		return 0;
	}
	case HWS_FEAT_CPU_TOPOLOGY:
		/* package and core lists; the per-CPU ids after them are u32s (die lists, if
		 * any, come after the per-CPU part and need nr_cpus: left as u32s, a gap) */
		if (f_strlist(&c) || f_strlist(&c))
			return HWS_E_BADREC;
		f_rest32(&c);
		return 0;
	case HWS_FEAT_NUMA_TOPOLOGY:
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_u32(&c, NULL) || f_u64(&c, NULL) || f_u64(&c, NULL) || f_str(&c))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_PMU_MAPPINGS:
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_u32(&c, NULL) || f_str(&c))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_GROUP_DESC:
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_str(&c) || f_u32(&c, NULL) || f_u32(&c, NULL))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_CACHE:
		if (f_u32(&c, NULL) || f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_u32(&c, NULL) || f_u32(&c, NULL) || f_u32(&c, NULL) ||
			    f_u32(&c, NULL) || f_str(&c) || f_str(&c) || f_str(&c))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_CLOCK_DATA:
		if (f_u32(&c, NULL) || f_u32(&c, NULL))
			return HWS_E_BADREC;
		f_rest64(&c);
		return 0;
	case HWS_FEAT_CPU_PMU_CAPS:    /* u32 nr; {name, value}[nr] */
	case HWS_FEAT_HYBRID_TOPOLOGY: /* u32 nr; {pmu name, cpus}[nr] */
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++)
			if (f_str(&c) || f_str(&c))
				return HWS_E_BADREC;
		return 0;
	case HWS_FEAT_PMU_CAPS:
		if (f_u32(&c, &nr))
			return HWS_E_BADREC;
		for (uint32_t i = 0; i < nr; i++) {
			if (f_u32(&c, &n2))
				return HWS_E_BADREC;
			for (uint32_t j = 0; j < n2; j++)
				if (f_str(&c) || f_str(&c))
					return HWS_E_BADREC;
			if (f_str(&c))
				return HWS_E_BADREC;
		}
		return 0;
	case HWS_FEAT_BUILD_ID:
		/* a list of BUILD_ID records: header {u32 type; u16 misc; u16 size}, pid */
		while (c.left >= 12) {
			uint16_t sz;

			f_u32(&c, NULL);
			f_u16(&c, NULL);
			f_u16(&c, &sz);
			f_u32(&c, NULL);
			if (sz < 12 || f_skip(&c, sz - 12u))
				return HWS_E_BADREC;
		}
		return 0;
	default:
		return 0; /* TRACING_DATA, BPF_*, STAT, BRANCH_STACK...: left as bytes */
	}
}

/* ---------------------------------------------------------------- records */

/* The variable-size fields of a sample (sample_fields.h's kinds); 0 or HWS_E_BADREC. */
static inline int s_read(struct fcur *c, uint64_t rf)
{
	uint64_t nr = 1;

	if (rf & PERF_FORMAT_GROUP) {
		if (c->left < 8)
			return HWS_E_BADREC;
		nr = c->to_host ? bswap_64(pd_get64(c->p)) : pd_get64(c->p);
		if (nr > c->left / 8)
			return HWS_E_BADREC;
	}
	return f_n64(c, pd_read_size(rf, nr) / 8);
}

static inline int s_callchain(struct fcur *c)
{
	uint64_t v;

	return f_u64(c, &v) || f_n64(c, v) ? HWS_E_BADREC : 0;
}

static inline int s_raw(struct fcur *c)
{
	uint64_t v;

	if (c->left < 4)
		return HWS_E_BADREC;
	v = fix32(c->p, c->to_host);
	return f_skip(c, 4) || f_skip(c, v) ? HWS_E_BADREC : 0;
}

static inline int s_branch(struct fcur *c, uint64_t branch_sample_type)
{
	uint64_t v;

	if (f_u64(c, &v) || v > c->left / 24)
		return HWS_E_BADREC;
	if ((branch_sample_type & HWS_BRANCH_HW_INDEX) && f_u64(c, NULL))
		return HWS_E_BADREC;
	if (f_n64(c, v * 3))
		return HWS_E_BADREC;
	if ((branch_sample_type & HWS_BRANCH_COUNTERS) && f_n64(c, v))
		return HWS_E_BADREC;
	return 0;
}

static inline int s_regs(struct fcur *c, uint64_t mask)
{
	uint64_t v;

	return f_u64(c, &v) || (v && f_n64(c, pd_popcount64(mask))) ? HWS_E_BADREC : 0;
}

static inline int s_stack(struct fcur *c)
{
	uint64_t v;

	if (f_u64(c, &v))
		return HWS_E_BADREC;
	return v && (f_skip(c, v) || f_u64(c, NULL)) ? HWS_E_BADREC : 0;
}

static inline int s_aux(struct fcur *c)
{
	uint64_t v;

	return f_u64(c, &v) || f_skip(c, v) ? HWS_E_BADREC : 0;
}

int hws__swap_sample(void *rec, size_t size, const struct hws_perf_event_attr *attr, int to_host)
{
	const struct perf_event_header hdr_copy = pd_get_hdr(rec, size), *hdr = &hdr_copy;
	struct fcur c;
	uint64_t st;

	if (!attr || size < sizeof(*hdr) || hdr->size > size || hdr->size < sizeof(*hdr))
		return HWS_E_BADREC;
	st = attr->sample_type;
	c.p = (uint8_t *)rec + sizeof(*hdr);
	c.left = hdr->size - sizeof(*hdr);
	c.to_host = to_host;
	/* each field: 0, or HWS_E_BADREC when the record ends inside it */
#define S_U64(bit, name)       f_u64(&c, NULL)
#define S_TID(bit, name)       f_u32x2(&c)
#define S_CPU(bit, name)       f_u32x2(&c)
#define S_READ(bit, name)      s_read(&c, attr->read_format)
#define S_CALLCHAIN(bit, name) s_callchain(&c)
#define S_RAW(bit, name)       s_raw(&c)
#define S_BRANCH(bit, name)    s_branch(&c, attr->branch_sample_type)
#define S_REGS(bit, name)      s_regs(&c, attr->name)
#define S_STACK(bit, name)     s_stack(&c)
#define S_AUX(bit, name)       s_aux(&c)
#define S(bit, kind, name)                                                                         \
	if ((st & (bit)) && S_##kind(bit, name))                                                   \
		return HWS_E_BADREC;
	PD_SAMPLE_FIELDS(S)
#undef S
	return 0;
}

/* Swap the sample_id trailer at the end of a non-sample record. */
static int swap_trailer(uint8_t *rec, size_t size, const struct hws_perf_event_attr *attr,
			int to_host)
{
	uint64_t st;
	size_t n;
	struct fcur c;

	if (!attr || !attr->sample_id_all)
		return 0;
	st = attr->sample_type;
	n = pd_id_trailer_size(st);
	if (n > size - 8)
		return HWS_E_BADREC;
	c.p = rec + size - n;
	c.left = n;
	c.to_host = to_host;
	/* the sizes were checked together above */
#define T(bit, kind, name)                                                                         \
	if (st & (bit))                                                                            \
		S_##kind(bit, name);
	PD_ID_TRAILER_FIELDS(T)
#undef T
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
	const struct perf_event_header hdr_copy = pd_get_hdr(recp, size), *hdr = &hdr_copy;
	uint8_t *rec = recp;
	size_t sz;

	if (size < sizeof(*hdr) || hdr->size > size || hdr->size < sizeof(*hdr))
		return HWS_E_BADREC;
	sz = hdr->size;
	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		return hws__swap_sample(rec, sz, attr, to_host);
	case PERF_RECORD_MMAP: {
		static const size_t o32[] = {8, 12}, o64[] = {16, 24, 32};

		swap32_at(rec, sz, o32, 2);
		swap64_at(rec, sz, o64, 3);
		break;
	}
	case PERF_RECORD_MMAP2: {
		static const size_t o32[] = {8, 12, 40, 44, 64, 68}, o64[] = {16, 24, 32, 48, 56};

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
		static const size_t o64[] = {8, 16, 24};
		size_t n = hdr->type == PERF_RECORD_LOST	? 2
			   : hdr->type == 13 || hdr->type == 21 ? 1
								: 3;

		swap64_at(rec, sz, o64, n);
		break;
	}
	case PERF_RECORD_COMM:
	case 12: /* ITRACE_START */
	case 15: /* SWITCH_CPU_WIDE */
	{
		static const size_t o32[] = {8, 12};

		swap32_at(rec, sz, o32, 2);
		break;
	}
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK: {
		static const size_t o32[] = {8, 12, 16, 20}, o64[] = {24};

		swap32_at(rec, sz, o32, 4);
		swap64_at(rec, sz, o64, 1);
		break;
	}
	case PERF_RECORD_READ: { /* pid, tid, read_format block (group: nr first) */
		static const size_t o32[] = {8, 12};
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
		static const size_t o32[] = {8, 12};
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
		static const size_t o32[] = {32, 36, 40, 44}, o64[] = {8, 16, 24};

		swap64_at(rec, sz, o64, 3);
		swap32_at(rec, sz, o32, 4);
		return 0;
	}
	case HWS_RECORD_AUXTRACE_ERROR: {
		static const size_t o32[] = {8, 12, 16, 20, 24, 28, 112, 116}, o64[] = {32, 104};

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
		static const size_t o32[] = {16, 20}, o64[] = {8, 24, 32, 40};

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
		static const size_t o64[] = {8, 16, 24, 32, 40};

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
