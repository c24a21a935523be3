// SPDX-License-Identifier: MIT
/*
 * PERF_RECORD_SAMPLE and sample_id trailer parsing, record ids, record type names and
 * default event names. Calls nothing else of core/perfdata/ (byte swapping is swap.c's).
 *
 * Invariants: every function here is pure (no allocation, no global state) and reads only
 * inside [rec, rec + size). Fields are taken in the order the kernel writes them, as
 * core/perfdata/sample_fields.h lists them (samples: PD_SAMPLE_FIELDS; the sample_id trailer
 * at the end of other records: PD_ID_TRAILER_FIELDS); this file only says what each kind of
 * field is read into.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hwsample/errors.h>
#include <hwsample/perfdata.h>
#include <hwsample/sample.h>

#include "util/internal.h"
#include "perfdata/perfdata_int.h"
#include "perfdata/sample_fields.h"

struct cur {
	const uint8_t *p;
	size_t left;
};

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

/* The variable-size fields (sample_fields.h's kinds); each returns 0 or HWS_E_BADREC. */
static inline int p_callchain(struct cur *c, struct hws_record_sample *out)
{
	const uint8_t *p;
	uint64_t v;

	if (u64(c, &v) || v > c->left / 8 || take(c, (size_t)v * 8, &p))
		return HWS_E_BADREC;
	out->nr_callchain = v;
	out->callchain = (const uint64_t *)p;
	return 0;
}

static inline int p_raw(struct cur *c, struct hws_record_sample *out)
{
	const uint8_t *p;
	uint32_t rsz;

	if (c->left < 4)
		return HWS_E_BADREC;
	rsz = pd_get32(c->p);
	c->p += 4;
	c->left -= 4;
	if (take(c, rsz, &p))
		return HWS_E_BADREC;
	out->raw = p;
	out->raw_size = rsz;
	return 0;
}

static inline int p_branch(struct cur *c, uint64_t branch_sample_type,
			   struct hws_record_sample *out)
{
	const uint8_t *p;
	uint64_t v;

	if (u64(c, &v) || v > c->left / 24)
		return HWS_E_BADREC;
	out->nr_branches = v;
	if ((branch_sample_type & HWS_BRANCH_HW_INDEX) && take(c, 8, &p))
		return HWS_E_BADREC;
	if (take(c, (size_t)v * 24, &p))
		return HWS_E_BADREC;
	out->branches = p;
	if ((branch_sample_type & HWS_BRANCH_COUNTERS) &&
	    (v > c->left / 8 || take(c, (size_t)v * 8, &p)))
		return HWS_E_BADREC;
	return 0;
}

static inline int p_regs(struct cur *c, uint64_t mask)
{
	const uint8_t *p;
	uint64_t v;

	if (u64(c, &v))
		return HWS_E_BADREC;
	if (v && take(c, pd_popcount64(mask) * 8u, &p))
		return HWS_E_BADREC;
	return 0;
}

static inline int p_stack(struct cur *c)
{
	const uint8_t *p;
	uint64_t v;

	if (u64(c, &v) || v > c->left)
		return HWS_E_BADREC;
	if (v && (take(c, (size_t)v, &p) || take(c, 8, &p)))
		return HWS_E_BADREC;
	return 0;
}

/* REGS / STACK for hws_sample__user_regs_stack(): kept in @out (NULL: skipped) */
static int u_regs(struct cur *c, uint64_t mask, struct hws_user_regs *out)
{
	unsigned int n = pd_popcount64(mask);
	const uint8_t *p;
	uint64_t abi;

	if (u64(c, &abi))
		return HWS_E_BADREC;
	if (!abi)
		return 0;
	if (take(c, n * 8u, &p))
		return HWS_E_BADREC;
	if (out) {
		out->abi = abi;
		out->nr = n;
		for (unsigned int i = 0; i < n; i++)
			out->regs[i] = pd_get64(p + 8 * i);
	}
	return 0;
}

static int u_stack(struct cur *c, struct hws_user_regs *out)
{
	const uint8_t *p, *d;
	uint64_t v;

	if (u64(c, &v) || v > c->left)
		return HWS_E_BADREC;
	if (!v)
		return 0;
	if (take(c, (size_t)v, &p) || take(c, 8, &d))
		return HWS_E_BADREC;
	out->stack = p;
	out->stack_size = v;
	out->dyn_size = pd_get64(d);
	/* the kernel's dyn_size never exceeds the copy; a file's may: only the copy is there */
	if (out->dyn_size > v)
		out->dyn_size = v;
	return 0;
}

static inline int p_aux(struct cur *c, struct hws_record_sample *out)
{
	const uint8_t *p;
	uint64_t v;

	if (u64(c, &v) || v > c->left || take(c, (size_t)v, &p))
		return HWS_E_BADREC;
	out->aux_size = v;
	out->aux = p;
	return 0;
}

/*
 * The common case of hws_sample__parse(): only fixed-size fields, so the record's length is
 * known from sample_type and checked once; then the fields are read in order without a
 * check each. Same result as the general path (which also accepts trailing bytes).
 */
static void parse_fixed(uint64_t st, const uint8_t *p, struct hws_record_sample *out)
{
#define F_U64(bit, name)                                                                           \
	if (st & (bit)) {                                                                          \
		out->name = pd_get64(p);                                                           \
		p += 8;                                                                            \
	}
#define F_TID(bit, name)                                                                           \
	if (st & (bit)) {                                                                          \
		out->pid = pd_get32(p);                                                            \
		out->tid = pd_get32(p + 4);                                                        \
		p += 8;                                                                            \
	}
#define F_CPU(bit, name)                                                                           \
	if (st & (bit)) {                                                                          \
		out->cpu = pd_get32(p);                                                            \
		p += 8;                                                                            \
	}
#define F_READ(bit, name)
#define F_CALLCHAIN(bit, name)
#define F_RAW(bit, name)
#define F_BRANCH(bit, name)
#define F_REGS(bit, name)
#define F_STACK(bit, name)
#define F_AUX(bit, name)
#define F(bit, kind, name) F_##kind(bit, name)
	PD_SAMPLE_FIELDS(F)
#undef F
}

int hws_sample__parse(const struct hws_perf_event_attr *attr, const void *rec, size_t size,
		      struct hws_record_sample *out)
{
	const struct perf_event_header hdr_copy = pd_get_hdr(rec, size), *hdr = &hdr_copy;
	uint64_t st;
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
	if (!(st & ~HWS_FIXED_SAMPLE_FIELDS) &&
	    (st & PERF_SAMPLE_WEIGHT_TYPE) != PERF_SAMPLE_WEIGHT_TYPE) {
		if (c.left < 8 * (size_t)bits64(st))
			return HWS_E_BADREC;
		parse_fixed(st, c.p, out);
		return 0;
	}

	/* each field: 0, or HWS_E_BADREC when the record ends inside it */
#define P_U64(bit, name) u64(&c, &out->name)
#define P_TID(bit, name) u32pair(&c, &out->pid, &out->tid)
#define P_CPU(bit, name) u32pair(&c, &out->cpu, NULL)
#define P_READ(bit, name)                                                                          \
	read_block(&c, attr->read_format, (const uint8_t **)&out->read, &out->read_size)
#define P_CALLCHAIN(bit, name) p_callchain(&c, out)
#define P_RAW(bit, name)       p_raw(&c, out)
#define P_BRANCH(bit, name)    p_branch(&c, attr->branch_sample_type, out)
#define P_REGS(bit, name)      p_regs(&c, attr->name)
#define P_STACK(bit, name)     p_stack(&c)
#define P_AUX(bit, name)       p_aux(&c, out)
#define P(bit, kind, name)                                                                         \
	if ((st & (bit)) && P_##kind(bit, name))                                                   \
		return HWS_E_BADREC;
	PD_SAMPLE_FIELDS(P)
#undef P
	return 0;
}

int hws_sample__user_regs_stack(const struct hws_perf_event_attr *attr, const void *rec,
				size_t size, struct hws_user_regs *out)
{
	const struct perf_event_header hdr_copy = pd_get_hdr(rec, size), *hdr = &hdr_copy;
	struct hws_record_sample tmp;
	uint64_t st;
	struct cur c;

	if (!attr || !rec || !out || size < sizeof(*hdr) || hdr->size > size ||
	    hdr->size < sizeof(*hdr))
		return HWS_E_BADREC;
	memset(out, 0, sizeof(*out));
	st = attr->sample_type;
	out->mask = attr->sample_regs_user;
	c.p = (const uint8_t *)rec + sizeof(*hdr);
	c.left = hdr->size - sizeof(*hdr);
	hws_zero(&tmp, sizeof(tmp));

	/* as hws_sample__parse(), keeping only the user registers and the stack copy */
#define U_U64(bit, name) u64(&c, &tmp.name)
#define U_TID(bit, name) u32pair(&c, &tmp.pid, &tmp.tid)
#define U_CPU(bit, name) u32pair(&c, &tmp.cpu, NULL)
#define U_READ(bit, name)                                                                          \
	read_block(&c, attr->read_format, (const uint8_t **)&tmp.read, &tmp.read_size)
#define U_CALLCHAIN(bit, name) p_callchain(&c, &tmp)
#define U_RAW(bit, name)       p_raw(&c, &tmp)
#define U_BRANCH(bit, name)    p_branch(&c, attr->branch_sample_type, &tmp)
#define U_REGS(bit, name)      u_regs(&c, attr->name, (bit) == PERF_SAMPLE_REGS_USER ? out : NULL)
#define U_STACK(bit, name)     u_stack(&c, out)
#define U_AUX(bit, name)       p_aux(&c, &tmp)
#define U(bit, kind, name)                                                                         \
	if ((st & (bit)) && U_##kind(bit, name))                                                   \
		return HWS_E_BADREC;
	PD_SAMPLE_FIELDS(U)
#undef U
	return 0;
}

int hws_sample_id__parse(const struct hws_perf_event_attr *attr, const void *rec, size_t size,
			 struct hws_sample_id *out)
{
	const struct perf_event_header hdr_copy = pd_get_hdr(rec, size), *hdr = &hdr_copy;
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
	/* what each field sets in out->fields (STREAM_ID: nothing) */
#define SF_pid		 HWS_SF_PID
#define SF_time		 HWS_SF_TIME
#define SF_id		 HWS_SF_ID
#define SF_stream_id	 0
#define SF_cpu		 HWS_SF_CPU
#define T_U64(bit, name) u64(&c, &out->name)
#define T_TID(bit, name) u32pair(&c, &out->pid, &out->tid)
#define T_CPU(bit, name) u32pair(&c, &out->cpu, NULL)
#define T(bit, kind, name)                                                                         \
	if (st & (bit)) {                                                                          \
		T_##kind(bit, name);                                                               \
		out->fields |= SF_##name;                                                          \
	}
	PD_ID_TRAILER_FIELDS(T)
#undef T
	return 0;
}

int64_t hws_record__id(const struct hws_perf_event_attr *attr, const void *rec, size_t size)
{
	const struct perf_event_header hdr_copy = pd_get_hdr(rec, size), *hdr = &hdr_copy;
	const uint8_t *b = rec;
	unsigned int smp, back;

	if (!attr || !rec || size < sizeof(*hdr) || hdr->size > size || hdr->size < sizeof(*hdr))
		return -1;
	pd_id_place(attr->sample_type, &smp, &back);
	if (hdr->type == PERF_RECORD_SAMPLE) {
		if (!smp || smp + 8 > hdr->size)
			return -1;
		return (int64_t)pd_get64(b + smp);
	}
	if (!attr->sample_id_all || hdr->type >= HWS_RECORD_HEADER_ATTR)
		return -1;
	if (!back || back + 8 > hdr->size)
		return -1;
	return (int64_t)pd_get64(b + hdr->size - back);
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

/* ---------------------------------------------------------------- default event names */

static const char *const hw_names[] = {
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branches",
    "branch-misses",
    "bus-cycles",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
    "ref-cycles",
};

static const char *const sw_names[] = {
    "cpu-clock",	"task-clock",	"page-faults",	"context-switches",
    "cpu-migrations",	"minor-faults", "major-faults", "alignment-faults",
    "emulation-faults", "dummy",	"bpf-output",	"cgroup-switches",
};

/*
 * perf's modifiers of a generated name (Linux tools/perf/util/evsel.c evsel__add_modifiers()):
 * ":" then k, u, h for the contexts counted when one is excluded, p per precise_ip level, and
 * H, G for the host and guest counted when exclude_host is set or exclude_guest equals its
 * default (set when a context is excluded or precise_ip is): "cycles:ppH" for perf record -e
 * cycles:pp, "cpu-clock:HG" for an attr with neither.
 */
static void add_modifiers(const struct hws_perf_event_attr *at, char *buf, size_t len)
{
	char m[16];
	size_t n = 0;
	bool guest_default = false;

	if (at->exclude_kernel || at->exclude_user || at->exclude_hv) {
		if (!at->exclude_kernel)
			m[n++] = 'k';
		if (!at->exclude_user)
			m[n++] = 'u';
		if (!at->exclude_hv)
			m[n++] = 'h';
		guest_default = true;
	}
	for (unsigned int i = 0; i < at->precise_ip; i++)
		m[n++] = 'p';
	if (at->precise_ip)
		guest_default = true;
	if (at->exclude_host || at->exclude_guest == guest_default) {
		if (!at->exclude_host)
			m[n++] = 'H';
		if (!at->exclude_guest)
			m[n++] = 'G';
	}
	m[n] = 0;
	if (n) {
		size_t l = strlen(buf);

		snprintf(buf + l, len > l ? len - l : 0, ":%s", m);
	}
}

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
	if (at->type == PERF_TYPE_HARDWARE || at->type == PERF_TYPE_SOFTWARE ||
	    at->type == PERF_TYPE_RAW)
		add_modifiers(at, buf, len);
}
