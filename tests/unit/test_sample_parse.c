// SPDX-License-Identifier: MIT
/*
 * hws_sample__parse / hws_sample_id__parse / hws_record__id on hand-built records.
 * Each record is built field by field in the kernel's order (perf_output_sample()), with
 * every PERF_SAMPLE_* bit, so a parser that follows the uapi comment order (AUX before the
 * page sizes, no CGROUP) or mis-sizes a variable field reads wrong values here. Every
 * record is also parsed at every shorter size from a malloc'd copy of exactly that size
 * (ASan catches an over-read) and must fail cleanly.
 * The records are built by this file's own encoder, with the field order written out here,
 * not from core/perfdata/sample_fields.h: a test that reused the table under test could not
 * catch a wrong order in it.
 */
#include <byteswap.h>
#include <stdint.h>

#include <hwsample/perfdata.h>
#include <hwsample/sample.h>

#include "perfdata/perfdata_int.h"
#include "tests.h"

struct rb {
	uint8_t b[2048];
	size_t n;
};

static void r64(struct rb *r, uint64_t v)
{
	memcpy(r->b + r->n, &v, 8);
	r->n += 8;
}

static void r32x2(struct rb *r, uint32_t a, uint32_t b)
{
	memcpy(r->b + r->n, &a, 4);
	memcpy(r->b + r->n + 4, &b, 4);
	r->n += 8;
}

static void rbytes(struct rb *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void hdr(struct rb *r, uint32_t type)
{
	struct perf_event_header h = {type, PERF_RECORD_MISC_USER, (uint16_t)r->n};

	memcpy(r->b, &h, sizeof(h));
}

/* Parse at every size below the full one, from an exact-size heap copy. */
static int all_prefixes_fail(const struct hws_perf_event_attr *a, const struct rb *r)
{
	for (size_t sz = 0; sz < r->n; sz++) {
		uint8_t *p = malloc(sz ? sz : 1);
		struct hws_record_sample s;
		int err;

		memcpy(p, r->b, sz);
		if (sz >= 8) {
			struct perf_event_header h;

			memcpy(&h, p, 8);
			h.size = (uint16_t)sz;
			memcpy(p, &h, 8);
		}
		err = hws_sample__parse(a, p, sz, &s);
		free(p);
		if (err != HWS_E_BADREC) {
			fprintf(stderr, "size %zu of %zu parsed (%d)\n", sz, r->n, err);
			return 0;
		}
	}
	return 1;
}

static void test_every_field(void)
{
	static const uint8_t raw[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	static const uint8_t stack[16] = {0xaa, 0xbb};
	struct hws_perf_event_attr a = {.size = sizeof(a)};
	struct hws_record_sample s;
	struct rb r = {.n = 8};
	uint32_t raw_size = 12;
	uint8_t *copy;

	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
			PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
			PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX;
	a.read_format =
	    PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST | PERF_FORMAT_TOTAL_TIME_ENABLED;
	a.branch_sample_type = HWS_BRANCH_HW_INDEX;
	a.sample_regs_user = 0x7; /* 3 regs */
	a.sample_regs_intr = 0x3;

	r64(&r, 0x1d);				/* IDENTIFIER */
	r64(&r, 0xffffffff81000010ULL);		/* IP */
	r32x2(&r, 100, 101);			/* pid, tid */
	r64(&r, 123456789);			/* TIME */
	r64(&r, 0x7ffd1000);			/* ADDR */
	r64(&r, 0x1d);				/* ID */
	r64(&r, 0x55);				/* STREAM_ID */
	r32x2(&r, 3, 0);			/* cpu, res */
	r64(&r, 10007);				/* PERIOD */
	r64(&r, 2);				/* READ: nr */
	r64(&r, 999);				/*   time_enabled */
	r64(&r, 11), r64(&r, 0x1d), r64(&r, 0); /* value, id, lost */
	r64(&r, 22), r64(&r, 0x1e), r64(&r, 1);
	r64(&r, 3); /* CALLCHAIN nr */
	r64(&r, 0xa), r64(&r, 0xb), r64(&r, 0xc);
	rbytes(&r, &raw_size, 4); /* RAW size 12: 4 + 12 = 16, 8-aligned */
	rbytes(&r, raw, 12);
	r64(&r, 2);  /* BRANCH_STACK nr */
	r64(&r, 77); /*   hw_idx */
	r64(&r, 1), r64(&r, 2), r64(&r, 3), r64(&r, 4), r64(&r, 5), r64(&r, 6);
	r64(&r, 2); /* REGS_USER abi */
	r64(&r, 1), r64(&r, 2), r64(&r, 3);
	r64(&r, 16); /* STACK_USER size */
	rbytes(&r, stack, 16);
	r64(&r, 8);				    /*   dyn_size */
	r64(&r, (5ULL << 48) | (6ULL << 32) | 250); /* WEIGHT_STRUCT var3 var2 var1 */
	r64(&r, 0x29080142);			    /* DATA_SRC */
	r64(&r, 0x10);				    /* TRANSACTION */
	r64(&r, 0);				    /* REGS_INTR abi 0: no regs */
	r64(&r, 0x12345000);			    /* PHYS_ADDR */
	r64(&r, 0xc9);				    /* CGROUP */
	r64(&r, 4096);				    /* DATA_PAGE_SIZE */
	r64(&r, 2 << 20);			    /* CODE_PAGE_SIZE */
	r64(&r, 8);				    /* AUX size */
	r64(&r, 0x0123456789abcdefULL);
	hdr(&r, PERF_RECORD_SAMPLE);

	copy = malloc(r.n);
	memcpy(copy, r.b, r.n);
	__T("parse every field", hws_sample__parse(&a, copy, r.n, &s) == 0);
	T_EQ_U64("id", s.id, 0x1d);
	T_EQ_U64("ip", s.ip, 0xffffffff81000010ULL);
	T_EQ_U64("pid", s.pid, 100);
	T_EQ_U64("tid", s.tid, 101);
	T_EQ_U64("time", s.time, 123456789);
	T_EQ_U64("addr", s.addr, 0x7ffd1000);
	T_EQ_U64("stream_id", s.stream_id, 0x55);
	T_EQ_U64("cpu", s.cpu, 3);
	T_EQ_U64("period", s.period, 10007);
	T_EQ_U64("read size", s.read_size, 8 * 8);
	__T("read points at nr", s.read && pd_get64(s.read) == 2);
	T_EQ_U64("callchain nr", s.nr_callchain, 3);
	T_EQ_U64("callchain[2]", s.callchain[2], 0xc);
	T_EQ_U64("raw size", s.raw_size, 12);
	__T("raw bytes", s.raw && !memcmp(s.raw, raw, 12));
	T_EQ_U64("branches", s.nr_branches, 2);
	__T("branch[0].from after hw_idx", s.branches && pd_get64(s.branches) == 1);
	T_EQ_U64("weight", s.weight, (5ULL << 48) | (6ULL << 32) | 250);
	T_EQ_U64("data_src", s.data_src, 0x29080142);
	T_EQ_U64("transaction", s.transaction, 0x10);
	T_EQ_U64("phys", s.phys_addr, 0x12345000);
	T_EQ_U64("cgroup (before page sizes)", s.cgroup, 0xc9);
	T_EQ_U64("data page size", s.data_page_size, 4096);
	T_EQ_U64("code page size", s.code_page_size, 2 << 20);
	T_EQ_U64("aux size (last)", s.aux_size, 8);
	__T("aux bytes", s.aux && pd_get64(s.aux) == 0x0123456789abcdefULL);
	T_EQ_U64("record id", hws_record__id(&a, copy, r.n), 0x1d);
	__T("every shorter size fails cleanly", all_prefixes_fail(&a, &r));

	/* byte swap there and back is the identity; foreign RAW bytes are left as bytes */
	{
		uint8_t *sw = malloc(r.n);

		memcpy(sw, r.b, r.n);
		__T("swap to foreign", hws__swap_sample(sw, r.n, &a, 0) == 0);
		__T("foreign ip is swapped", pd_get64(sw + 16) == bswap_64(0xffffffff81000010ULL));
		__T("foreign pid/tid stay in place",
		    pd_get32(sw + 24) == bswap_32(100) && pd_get32(sw + 28) == bswap_32(101));
		__T("swap back", hws__swap_sample(sw, r.n, &a, 1) == 0);
		__T("swap round trip is identity", !memcmp(sw, r.b, r.n));
		free(sw);
	}
	/* a lying callchain nr must fail, not over-read */
	{
		struct rb bad = r;
		size_t cc = 8 + 8 * 9 + 8 * 8; /* offset of callchain nr */
		uint64_t huge = 1ULL << 60;

		memcpy(bad.b + cc, &huge, 8);
		__T("huge callchain nr", hws_sample__parse(&a, bad.b, bad.n, &s) == HWS_E_BADREC);
	}
	free(copy);
}

static void test_read_nongroup_and_period_default(void)
{
	struct hws_perf_event_attr a = {.size = sizeof(a), .sample_period = 4000};
	struct hws_record_sample s;
	struct rb r = {.n = 8};

	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_WEIGHT;
	a.read_format =
	    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	r64(&r, 0x401000);
	r64(&r, 5), r64(&r, 100), r64(&r, 90), r64(&r, 77); /* value enabled running id */
	r64(&r, 33);					    /* WEIGHT */
	hdr(&r, PERF_RECORD_SAMPLE);
	__T("non-group read", hws_sample__parse(&a, r.b, r.n, &s) == 0);
	T_EQ_U64("read size", s.read_size, 32);
	T_EQ_U64("weight after read", s.weight, 33);
	T_EQ_U64("period from attr (perf does the same)", s.period, 4000);
	T_EQ_U64("no id", hws_record__id(&a, r.b, r.n), -1);
	__T("every shorter size fails cleanly", all_prefixes_fail(&a, &r));

	/* ID without IDENTIFIER: after IP TID TIME ADDR */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
	r.n = 8;
	r64(&r, 1), r32x2(&r, 2, 3), r64(&r, 0x4455), r32x2(&r, 1, 0);
	hdr(&r, PERF_RECORD_SAMPLE);
	T_EQ_U64("id position without IDENTIFIER", hws_record__id(&a, r.b, r.n), 0x4455);
	/* RAW with size 4 and no payload (the kernel's "no data" form) */
	a.sample_type = PERF_SAMPLE_RAW;
	r.n = 8;
	r32x2(&r, 4, 0);
	hdr(&r, PERF_RECORD_SAMPLE);
	__T("raw size 4", hws_sample__parse(&a, r.b, r.n, &s) == 0 && s.raw_size == 4);
	/* RAW size past the record */
	r.n = 8;
	r32x2(&r, 0xfffffff0, 0);
	hdr(&r, PERF_RECORD_SAMPLE);
	__T("raw past the end", hws_sample__parse(&a, r.b, r.n, &s) == HWS_E_BADREC);
	/* header size larger than the buffer */
	__T("hdr.size > size", hws_sample__parse(&a, r.b, r.n - 1, &s) == HWS_E_BADREC);
}

static void test_sample_id_trailer(void)
{
	struct hws_perf_event_attr a = {.size = sizeof(a), .sample_id_all = 1};
	struct hws_sample_id id;
	struct rb r = {.n = 8};

	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	/* COMM: pid, tid, "ls\0" padded to 8, then the trailer */
	r32x2(&r, 10, 11);
	rbytes(&r, "ls\0\0\0\0\0\0", 8);
	r32x2(&r, 10, 11); /* TID */
	r64(&r, 5555);	   /* TIME */
	r64(&r, 0x99);	   /* ID */
	r64(&r, 0x98);	   /* STREAM_ID */
	r32x2(&r, 7, 0);   /* CPU */
	r64(&r, 0x99);	   /* IDENTIFIER */
	hdr(&r, PERF_RECORD_COMM);
	__T("trailer", hws_sample_id__parse(&a, r.b, r.n, &id) == 0);
	T_EQ_U64("pid", id.pid, 10);
	T_EQ_U64("tid", id.tid, 11);
	T_EQ_U64("time", id.time, 5555);
	T_EQ_U64("id", id.id, 0x99);
	T_EQ_U64("stream", id.stream_id, 0x98);
	T_EQ_U64("cpu", id.cpu, 7);
	T_EQ_U64("fields", id.fields, HWS_SF_TIME | HWS_SF_CPU | HWS_SF_PID | HWS_SF_ID);
	T_EQ_U64("record id from trailer end", hws_record__id(&a, r.b, r.n), 0x99);
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_IDENTIFIER;
	r.n -= 8;
	hdr(&r, PERF_RECORD_COMM);
	T_EQ_U64("record id without IDENTIFIER", hws_record__id(&a, r.b, r.n), 0x99);
	/* too short for the trailer */
	r.n = 16;
	hdr(&r, PERF_RECORD_COMM);
	__T("short trailer", hws_sample_id__parse(&a, r.b, r.n, &id) == HWS_E_BADREC);
	a.sample_id_all = 0;
	__T("no sample_id_all: nothing",
	    hws_sample_id__parse(&a, r.b, r.n, &id) == 0 && id.fields == 0);
	T_EQ_U64("no sample_id_all: no id", hws_record__id(&a, r.b, r.n), -1);
}

/* Every record type: host -> foreign -> host is the identity (lengths read the right way
 * round in both directions), and a foreign u64 field really is byte-reversed. */
static void test_swap_all_types(void)
{
	struct hws_perf_event_attr a = {.size = sizeof(a), .sample_id_all = 1};
	int bad = 0, swapped = 0;

	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_READ;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	for (uint32_t type = 1; type < 90; type++) {
		struct rb r = {.n = 8}, orig;
		uint64_t i;

		if (type > 22 && type < 64)
			continue;
		/* small counts in the places records keep them (nr fields at +8 / +16 / +24) */
		r64(&r, type == HWS_RECORD_HEADER_FEATURE ? HWS_FEAT_NRCPUS : 1);
		r64(&r, 1);
		r64(&r, 1);
		for (i = 0; i < 12; i++)
			r64(&r, 0x0102030405060700ULL + i);
		if (type == HWS_RECORD_HEADER_ATTR) { /* attr size 64 at +12 */
			uint32_t sz = 64;

			memcpy(r.b + 12, &sz, 4);
		}
		hdr(&r, type);
		orig = r;
		if (hws__swap_record(r.b, r.n, &a, 0))
			continue; /* layout not satisfied by this filler: nothing to compare */
		swapped++;
		if (hws__swap_record(r.b, r.n, &a, 1) || memcmp(r.b, orig.b, r.n)) {
			fprintf(stderr, "type %u: swap round trip differs\n", type);
			bad++;
		}
	}
	T_EQ_U64("round trips", bad, 0);
	__T("most types swapped", swapped > 30);
	{ /* READ (group): pid/tid as u32, the block as u64 */
		struct rb r = {.n = 8};

		r32x2(&r, 1, 2);
		r64(&r, 2), r64(&r, 100); /* nr, enabled */
		r64(&r, 5), r64(&r, 77), r64(&r, 6), r64(&r, 78);
		r32x2(&r, 1, 2), r64(&r, 9), r64(&r, 77), r32x2(&r, 3, 0),
		    r64(&r, 77); /* trailer */
		hdr(&r, PERF_RECORD_READ);
		__T("read swap", hws__swap_record(r.b, r.n, &a, 0) == 0);
		T_EQ_U64("nr foreign", pd_get64(r.b + 16), bswap_64(2));
		T_EQ_U64("value foreign", pd_get64(r.b + 32), bswap_64(5));
		T_EQ_U64("tid foreign", pd_get32(r.b + 12), bswap_32(2));
		T_EQ_U64("trailer id foreign", pd_get64(r.b + r.n - 8), bswap_64(77));
	}
}

static void test_names(void)
{
	T_EQ_STR("sample", hws_record__type_name(PERF_RECORD_SAMPLE), "SAMPLE");
	T_EQ_STR("mmap2", hws_record__type_name(10), "MMAP2");
	T_EQ_STR("auxtrace", hws_record__type_name(HWS_RECORD_AUXTRACE), "AUXTRACE");
	T_EQ_STR("feature", hws_record__type_name(HWS_RECORD_HEADER_FEATURE), "FEATURE");
	T_EQ_STR("unknown", hws_record__type_name(5000), "UNKNOWN");
	T_EQ_STR("hole", hws_record__type_name(40), "UNKNOWN");
}

/*
 * Records with only fixed-size fields take a short path in the parser (one length check):
 * every subset of those fields, in kernel order, with distinct values, must read back the
 * same as the general path reads them when one variable field (an empty RAW) is added, and
 * every shorter size must fail.
 */
static void test_fixed_subsets(void)
{
	static const uint64_t bits[] = {
	    PERF_SAMPLE_IDENTIFIER,	PERF_SAMPLE_IP,	      PERF_SAMPLE_TID,
	    PERF_SAMPLE_TIME,		PERF_SAMPLE_ADDR,     PERF_SAMPLE_ID,
	    PERF_SAMPLE_STREAM_ID,	PERF_SAMPLE_CPU,      PERF_SAMPLE_PERIOD,
	    PERF_SAMPLE_WEIGHT,		PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_TRANSACTION,
	    PERF_SAMPLE_PHYS_ADDR,	PERF_SAMPLE_CGROUP,   PERF_SAMPLE_DATA_PAGE_SIZE,
	    PERF_SAMPLE_CODE_PAGE_SIZE,
	};
	unsigned int nb = sizeof(bits) / sizeof(bits[0]), bad = 0, prefix_bad = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	for (unsigned int i = 0; i < 3000; i++) {
		struct hws_perf_event_attr a = {.size = sizeof(a)};
		struct hws_record_sample f, g;
		struct rb r = {.n = 8}, rv;
		uint64_t st = 0, v;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		for (unsigned int k = 0; k < nb; k++)
			if ((seed >> (k + 20)) & 1)
				st |= bits[k];
		if (i & 1)
			st = (st & ~(uint64_t)PERF_SAMPLE_WEIGHT) |
			     ((st & PERF_SAMPLE_WEIGHT) ? PERF_SAMPLE_WEIGHT_STRUCT : 0);
		/* fields in kernel order */
		for (unsigned int k = 0; k < nb; k++) {
			uint64_t b =
			    bits[k] == PERF_SAMPLE_WEIGHT ? PERF_SAMPLE_WEIGHT_TYPE : bits[k];

			if (!(st & b))
				continue;
			v = seed ^ (0x0101010101010101ULL * (k + 1));
			r64(&r, v);
		}
		hdr(&r, PERF_RECORD_SAMPLE);
		a.sample_type = st;
		if (hws_sample__parse(&a, r.b, r.n, &f)) {
			bad++;
			continue;
		}
		/* the general path: same fields plus RAW (size 4, zero bytes) placed after
		 * PERIOD, i.e. before WEIGHT and everything later in the kernel's order */
		{
			size_t split = 8;
			uint64_t early =
			    st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
				  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);

			split += 8 * (size_t)__builtin_popcountll(early);
			memcpy(rv.b, r.b, split);
			memset(rv.b + split, 0, 8); /* u32 size 4 + 4 zero bytes: 8-aligned */
			rv.b[split] = 4;
			memcpy(rv.b + split + 8, r.b + split, r.n - split);
			rv.n = r.n + 8;
			hdr(&rv, PERF_RECORD_SAMPLE);
		}
		a.sample_type = st | PERF_SAMPLE_RAW;
		if (hws_sample__parse(&a, rv.b, rv.n, &g)) {
			bad++;
			continue;
		}
		a.sample_type = st;
		g.sample_type = f.sample_type;
		g.raw = f.raw;
		g.raw_size = f.raw_size;
		if (memcmp(&f, &g, sizeof(f)))
			bad++;
		if (i % 100 == 0 && !all_prefixes_fail(&a, &r))
			prefix_bad++;
	}
	T_EQ_U64("fixed-layout records parse as the general path does", bad, 0);
	T_EQ_U64("fixed-layout records: every shorter size fails", prefix_bad, 0);
}

int main(void)
{
	test_every_field();
	test_fixed_subsets();
	test_read_nongroup_and_period_default();
	test_sample_id_trailer();
	test_swap_all_types();
	test_names();
	TEST_END();
}
