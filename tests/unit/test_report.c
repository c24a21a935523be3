// SPDX-License-Identifier: MIT
/*
 * Report aggregation (core/analysis/report.c) on hand-built samples: tallies per (pid, ip) and
 * (pid, addr) with kernel addresses merged across processes, data-source matrix, log2
 * latency buckets, the key bound, bar drawing, the loss table, sort orders and symbol
 * grouping in the rendered text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/report.h>

#include "tests.h"

static struct hws_sample mk(uint32_t pid, uint64_t ip, uint64_t addr, uint32_t lat,
			    unsigned int level, unsigned int snoop)
{
	struct hws_sample s = {.sz = sizeof(s)};

	s.fields = HWS_SF_PID | HWS_SF_IP | HWS_SF_PERIOD;
	s.pid = pid;
	s.tid = pid;
	s.ip = ip;
	s.period = 10;
	if (addr) {
		s.fields |= HWS_SF_ADDR;
		s.addr = addr;
	}
	if (lat) {
		s.fields |= HWS_SF_LAT_TOTAL;
		s.lat_total = lat;
	}
	if (level) {
		s.fields |= HWS_SF_DATA_SRC | HWS_SF_OP;
		s.mem_level = (uint8_t)level;
		s.snoop = (uint8_t)snoop;
		s.tlb = HWS_TLB_L1_HIT;
		s.op = HWS_OP_LOAD;
	}
	return s;
}

static int count_lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_aggregation(void)
{
	struct hws_report *r = hws_report__new(NULL);
	struct hws_sample s;

	for (int i = 0; i < 5; i++) {
		s = mk(1, 0x401000, 0x601000, 3, HWS_MEM_L1, HWS_SNOOP_NONE);
		hws_report__add(r, &s);
	}
	s = mk(2, 0x401000, 0, 0, 0, 0); /* same ip, other process */
	hws_report__add(r, &s);
	s = mk(1, 0xffffffff81000000ULL, 0, 200, HWS_MEM_LOCAL_DRAM, HWS_SNOOP_HITM);
	hws_report__add(r, &s);
	s = mk(2, 0xffffffff81000000ULL, 0, 0, 0, 0); /* kernel: merged across pids */
	hws_report__add(r, &s);
	s = mk(3, 0x1234, 0, 0, 0, 0);
	s.lat_xlat = 1000;
	s.fields |= HWS_SF_LAT_XLAT;
	hws_report__add(r, &s);

	T_EQ_U64("samples", hws_report__nr_samples(r), 9);
	T_EQ_U64("pid 1 ip", hws_report__ip_samples(r, 1, 0x401000), 5);
	T_EQ_U64("pid 2 ip", hws_report__ip_samples(r, 2, 0x401000), 1);
	T_EQ_U64("kernel ip merged", hws_report__ip_samples(r, 77, 0xffffffff81000000ULL), 2);
	T_EQ_U64("addr", hws_report__addr_samples(r, 1, 0x601000), 5);
	T_EQ_U64("addr other pid", hws_report__addr_samples(r, 2, 0x601000), 0);
	T_EQ_U64("ds l1/none", hws_report__data_src(r, HWS_MEM_L1, HWS_SNOOP_NONE), 5);
	T_EQ_U64("ds dram/hitm", hws_report__data_src(r, HWS_MEM_LOCAL_DRAM, HWS_SNOOP_HITM), 1);
	T_EQ_U64("ds l2", hws_report__data_src(r, HWS_MEM_L2, HWS_SNOOP_NONE), 0);
	/* 3 -> bucket 2 ([2,3]), 200 -> bucket 8 ([128,255]), 1000 -> bucket 10 ([512,1023]) */
	T_EQ_U64("lat 3", hws_report__lat_bucket(r, HWS_SF_LAT_TOTAL, 2), 5);
	T_EQ_U64("lat 200", hws_report__lat_bucket(r, HWS_SF_LAT_TOTAL, 8), 1);
	T_EQ_U64("lat bucket 1 empty", hws_report__lat_bucket(r, HWS_SF_LAT_TOTAL, 1), 0);
	T_EQ_U64("xlat 1000", hws_report__lat_bucket(r, HWS_SF_LAT_XLAT, 10), 1);
	T_EQ_U64("xlat not in total", hws_report__lat_bucket(r, HWS_SF_LAT_TOTAL, 10), 0);

	struct hws_decode_counts c = {
	    .samples = 8, .period = 80, .lost = 17, .lost_records = 2, .throttle = 1};
	hws_report__add_counts(r, "cpu-clock", "sw", 0, &c);
	struct hws_decode_counts c2 = {.samples = 1, .period = 10, .lost_samples = 4};
	hws_report__add_counts(r, "cpu-clock", "sw", 1, &c2);

	struct hws_strbuf sb = HWS_STRBUF_INIT;
	__T("render", hws_report__render(r, NULL, &sb) == 0);
	const char *t = sb.buf;
	__T("header", strstr(t, "# hwsample report: 9 samples, total period 90") != NULL);
	__T("counts row cpu 0", strstr(t, "cpu-clock    sw            0          8") != NULL);
	__T("total row", strstr(t, "total") != NULL);
	__T("loss summary",
	    strstr(t, "loss: 17 records lost (2 LOST records), 4 samples dropped by "
		      "the PMU, 1 throttles") != NULL);
	__T("top code section",
	    strstr(t, "== Top code addresses (by samples, top 4 of 4) ==") != NULL);
	__T("top data section",
	    strstr(t, "== Top data addresses (by samples, top 1 of 1) ==") != NULL);
	__T("top ip first", strstr(t, "           5  55.6%") != NULL);
	__T("data source section",
	    strstr(t, "== Data source (6 samples with a data source) ==") != NULL);
	__T("latency section",
	    strstr(t, "== Latency lat_total (cycles): 6 samples, min 3, mean 35.8, max 200 ==") !=
		NULL);
	__T("xlat section", strstr(t, "== Latency lat_xlat (cycles)") != NULL);
	__T("no lat_miss section", strstr(t, "lat_miss") == NULL);
	__T("bucket rows 2-3 .. 128-255",
	    strstr(t, "2-3") && strstr(t, "128-255") && strstr(t, "64-127"));
	__T("unicode bars", strstr(t, "█") != NULL);

	/* sort by latency: the kernel ip (200) comes first */
	hws_report__delete(r);
	struct hws_report_opts o = {.sz = sizeof(o),
				    .sort = HWS_REPORT_SORT_LATENCY,
				    .ascii = true,
				    .sections = HWS_REPORT_TOP_CODE};
	r = hws_report__new(&o);
	s = mk(1, 0x1000, 0, 1, 0, 0);
	for (int i = 0; i < 10; i++)
		hws_report__add(r, &s);
	s = mk(1, 0x2000, 0, 500, 0, 0);
	hws_report__add(r, &s);
	hws_strbuf__reset(&sb);
	hws_report__render(r, NULL, &sb);
	const char *a = strstr(sb.buf, "Top code addresses");
	__T("sorted by latency",
	    a && strstr(a, "0x0000000000002000") &&
		strstr(a, "0x0000000000002000") < strstr(a, "0x0000000000001000"));
	__T("ascii bars only", strstr(sb.buf, "█") == NULL && strstr(sb.buf, "###") != NULL);
	__T("sections: no data source", strstr(sb.buf, "Data source") == NULL);
	hws_report__delete(r);
	hws_strbuf__release(&sb);
}

static void test_bound(void)
{
	struct hws_report_opts o = {.sz = sizeof(o), .max_keys = 100, .top = 5};
	struct hws_report *r = hws_report__new(&o);
	struct hws_strbuf sb = HWS_STRBUF_INIT;

	for (uint64_t i = 0; i < 1000; i++) {
		struct hws_sample s = mk(1, 0x1000 + i * 4, 0, 0, 0, 0);
		__T("add", hws_report__add(r, &s) == 0);
	}
	T_EQ_U64("samples", hws_report__nr_samples(r), 1000);
	T_EQ_U64("first key kept", hws_report__ip_samples(r, 1, 0x1000), 1);
	T_EQ_U64("key 999 not kept", hws_report__ip_samples(r, 1, 0x1000 + 999 * 4), 0);
	hws_report__render(r, NULL, &sb);
	__T("other row", strstr(sb.buf, "900  (table full: not itemized)") != NULL);
	__T("top 5 shown", strstr(sb.buf, "top 5 of 100") != NULL);
	hws_strbuf__release(&sb);
	hws_report__delete(r);
}

static void test_symbols_grouping(void)
{
	struct hws_symbols *syms = hws_symbols__new(NULL);
	struct hws_report *r = hws_report__new(NULL);
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	char kpath[] = "/tmp/hws-test-report-XXXXXX";
	FILE *f;
	int fd = mkstemp(kpath);

	f = fdopen(fd, "w");
	fputs("ffffffff81000000 T k_alpha\nffffffff81000100 T k_beta\n", f);
	fclose(f);
	__T("kallsyms", hws_symbols__use_kallsyms(syms, kpath) == 0);
	unlink(kpath);
	for (int i = 0; i < 3; i++) {
		struct hws_sample s = mk(1, 0xffffffff81000000ULL + (uint64_t)i * 16, 0, 0, 0, 0);
		hws_report__add(r, &s);
	}
	struct hws_sample s = mk(1, 0xffffffff81000104ULL, 0, 0, 0, 0);
	hws_report__add(r, &s);
	hws_report__render(r, syms, &sb);
	__T("grouped by function",
	    strstr(sb.buf, "== Top functions (by samples, top 2 of 2) ==") != NULL);
	__T("k_alpha has 3", strstr(sb.buf, "           3  75.0%") != NULL);
	__T("k_alpha label", count_lines_with(sb.buf, "k_alpha") == 4); /* 1 group + 3 addrs */
	__T("offset shown", strstr(sb.buf, "k_beta+0x4") != NULL);
	hws_strbuf__release(&sb);
	hws_report__delete(r);
	hws_symbols__delete(syms);
}

/* label of a lookup as the report groups it: "name  [base]", "[base]" or "[unknown]" */
static void label_of(const struct hws_symbol *sym, char *out, size_t len)
{
	const char *base = sym->dso ? strrchr(sym->dso, '/') : NULL;

	base = base ? base + 1 : sym->dso;
	if (sym->name && base)
		snprintf(out, len, base[0] == '[' ? "%s  %s" : "%s  [%s]", sym->name, base);
	else if (sym->name)
		snprintf(out, len, "%s", sym->name);
	else if (base)
		snprintf(out, len, base[0] == '[' ? "%s" : "[%s]", base);
	else
		snprintf(out, len, "[unknown]");
}

struct lcount {
	char label[160];
	uint64_t n;
};

#define LC_MAX 16384 /* labels per table: more than the distinct functions of this program */

static void lc_add(struct lcount *t, int *n, int max, const char *label, uint64_t v)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(t[i].label, label)) {
			t[i].n += v;
			return;
		}
	if (*n < max) {
		snprintf(t[*n].label, sizeof(t[*n].label), "%s", label);
		t[(*n)++].n = v;
	}
}

/*
 * The report resolves each symbol once for a run of sorted addresses (the range a lookup
 * returns). Its "Top functions" / "Top data objects" totals must equal grouping every
 * sample by its own lookup: kernel symbols of several sizes, a real ELF (this program,
 * through its own maps), maps of files that do not exist, anonymous memory, the holes
 * between maps and a process without maps; code and data addresses.
 */
static void test_range_grouping(void)
{
	static struct lcount want[2][LC_MAX], got[2][LC_MAX];
	int nwant[2] = {0, 0}, ngot[2] = {0, 0};
	struct hws_report_opts o = {.sz = sizeof(o), .top = 100000, .width = 1, .ascii = true};
	struct hws_symbols *syms = hws_symbols__new(NULL), *ref = hws_symbols__new(NULL);
	struct hws_report *r = hws_report__new(&o);
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	char kpath[] = "/tmp/hws-test-report-XXXXXX", line[1024];
	uint64_t text_lo = 0, text_hi = 0, x = 88172645463325252ULL;
	int fd = mkstemp(kpath);
	FILE *f = fdopen(fd, "w");

	/* 40 kernel symbols: gaps, sizes and a data symbol among them */
	for (int i = 0; i < 40; i++)
		fprintf(f, "%016llx %c ksym_%d\n", 0xffffffff81000000ULL + (uint64_t)i * i * 64,
			i % 7 == 3 ? 'D' : 'T', i);
	fclose(f);
	__T("kallsyms", hws_symbols__use_kallsyms(syms, kpath) == 0);
	__T("kallsyms ref", hws_symbols__use_kallsyms(ref, kpath) == 0);
	unlink(kpath);
	/* pid 10: this very program, as its MMAP2 records would describe it */
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, e, off;
		char perms[8], path[512] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511[^\n]", &a, &e, perms, &off,
			   path) < 4)
			continue;
		char *pp = path;
		while (*pp == ' ')
			pp++;
		for (int k = 0; k < 2; k++)
			hws_symbols__mmap(k ? ref : syms, 10, a, e - a, off, *pp ? pp : "//anon");
		if (perms[2] == 'x' && strstr(pp, "test_report") && !text_lo) {
			text_lo = a;
			text_hi = e;
		}
	}
	if (f)
		fclose(f);
	__T("own text map found", text_lo != 0);
	/* pid 20: files that do not exist, anonymous memory and holes */
	for (int k = 0; k < 2; k++) {
		struct hws_symbols *sy = k ? ref : syms;
		hws_symbols__mmap(sy, 20, 0x400000, 0x10000, 0, "/nonexistent/prog");
		hws_symbols__mmap(sy, 20, 0x500000, 0x8000, 0, "//anon");
		hws_symbols__mmap(sy, 20, 0x600000, 0x4000, 0x2000, "/nonexistent/libz.so");
	}
	for (int i = 0; i < 20000; i++) {
		struct hws_sample s;
		uint64_t ip, addr;
		uint32_t pid;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		switch (x % 4) {
		case 0:
			ip = 0xffffffff81000000ULL + (x >> 8) % (40 * 40 * 64);
			pid = 10 + (uint32_t)(x >> 40) % 3 * 10; /* merged: kernel */
			break;
		case 1:
			ip = text_lo + (x >> 8) % (text_hi - text_lo);
			pid = 10;
			break;
		case 2:
			ip = 0x3f0000 + (x >> 8) % 0x220000; /* maps and the holes around them */
			pid = 20;
			break;
		default:
			ip = (x >> 8) % 0x100000;
			pid = 30; /* no maps at all */
			break;
		}
		addr = (x >> 3) % 5 ? ip ^ ((x >> 20) & 0x3f8) : 0;
		s = mk(pid, ip, addr, 0, 0, 0);
		hws_report__add(r, &s);
		for (int data = 0; data < 2; data++) {
			struct hws_symbol sym;
			uint64_t a = data ? addr : ip;
			char label[160];

			if (data && !a)
				continue;
			hws_symbols__resolve(ref, (int64_t)a < 0 ? 0 : pid, a, data, &sym);
			label_of(&sym, label, sizeof(label));
			lc_add(want[data], &nwant[data], LC_MAX, label, 1);
		}
	}
	__T("render", hws_report__render(r, syms, &sb) == 0);
	/* rows: "%12 samples %5.1f%%  <bar of 1>  label" in the two grouped tables */
	int table = -1;
	for (char *p = sb.buf, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		unsigned long long n;

		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(p, "== Top functions", 16))
			table = 0;
		else if (!strncmp(p, "== Top data objects", 19))
			table = 1;
		else if (!strncmp(p, "==", 2))
			table = -1;
		else if (table >= 0 && strlen(p) > 24 && sscanf(p, "%llu", &n) == 1 && p[18] == '%')
			lc_add(got[table], &ngot[table], LC_MAX, p + 24, n);
	}
	for (int t = 0; t < 2; t++) {
		__T("several groups", nwant[t] >= 20);
		/* a full table would drop labels unevenly on the two sides */
		__T("label tables not full", nwant[t] < LC_MAX && ngot[t] < LC_MAX);
		T_EQ_U64("same number of groups", ngot[t], nwant[t]);
		for (int i = 0; i < nwant[t]; i++) {
			uint64_t n = 0;
			for (int j = 0; j < ngot[t]; j++)
				if (!strcmp(got[t][j].label, want[t][i].label))
					n = got[t][j].n;
			if (n != want[t][i].n) {
				fprintf(stderr,
					"FAIL: %s group '%s': %" PRIu64 " want %" PRIu64 "\n",
					t ? "data" : "code", want[t][i].label, n, want[t][i].n);
				tests_failed++;
			}
		}
	}
	hws_strbuf__release(&sb);
	hws_report__delete(r);
	hws_symbols__delete(syms);
	hws_symbols__delete(ref);
}

/* Past ~48K distinct addresses samples are staged and applied in batches: the tallies, the
 * key bound (first max_keys distinct keys in sample order) and runs must come out as if
 * every sample had been applied at once. */
static void test_many(void)
{
	struct hws_report_opts o = {.sz = sizeof(o), .max_keys = 150000, .top = 3};
	struct hws_report *r = hws_report__new(&o);
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	uint64_t x = 12345, nsamples = 0, add_err = 0;

	for (uint64_t i = 0; i < 200000; i++) {
		/* key i, i % 7 + 1 times, the repeats sometimes in a run, sometimes spread */
		for (uint64_t k = 0; k <= i % 7; k++) {
			uint64_t ip = 0x400000 + (i << 4);
			struct hws_sample s;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (k && (x & 1)) { /* interleave an earlier key */
				uint64_t j = (x >> 8) % (i + 1);
				s = mk(1 + (uint32_t)(j % 3), 0x400000 + (j << 4), 0, 0, 0, 0);
				add_err += hws_report__add(r, &s) != 0;
				nsamples++;
			}
			s = mk(1 + (uint32_t)(i % 3), ip, 0, 0, 0, 0);
			add_err += hws_report__add(r, &s) != 0;
			nsamples++;
		}
	}
	T_EQ_U64("adds", add_err, 0);
	T_EQ_U64("samples", hws_report__nr_samples(r), nsamples);
	/* count what the interleaving added, the same way */
	uint64_t want[8] = {0}, keys[8] = {0, 1, 6, 7, 49151, 49152, 149999, 150000};
	x = 12345;
	for (uint64_t i = 0; i < 200000; i++)
		for (uint64_t k = 0; k <= i % 7; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			for (int q = 0; q < 8; q++) {
				if (k && (x & 1) && (x >> 8) % (i + 1) == keys[q])
					want[q]++;
				if (i == keys[q])
					want[q]++;
			}
		}
	for (int q = 0; q < 8; q++) {
		uint64_t got = hws_report__ip_samples(r, 1 + (uint32_t)(keys[q] % 3),
						      0x400000 + (keys[q] << 4));
		if (keys[q] < 150000)
			T_EQ_U64("key tally", got, want[q]);
		else
			T_EQ_U64("key past the bound not kept", got, 0);
		T_EQ_U64("other pid", hws_report__ip_samples(r, 4, 0x400000 + (keys[q] << 4)), 0);
	}
	__T("render", hws_report__render(r, NULL, &sb) == 0);
	__T("150000 keys", strstr(sb.buf, "top 3 of 150000)") != NULL);
	__T("other row", strstr(sb.buf, "(table full: not itemized)") != NULL);
	hws_strbuf__release(&sb);
	hws_report__delete(r);

	/* queries see the samples still in flight */
	r = hws_report__new(NULL);
	for (uint64_t i = 0; i < 60000; i++) {
		struct hws_sample s = mk(9, 0x1000 + i * 8, 0x2000 + i * 8, 0, 0, 0);
		hws_report__add(r, &s);
	}
	T_EQ_U64("last ip", hws_report__ip_samples(r, 9, 0x1000 + 59999 * 8), 1);
	T_EQ_U64("last addr", hws_report__addr_samples(r, 9, 0x2000 + 59999 * 8), 1);
	hws_report__delete(r);
}

/* samples of CPUs interleaved (each CPU in its own run of one address, as a time-ordered
 * system-wide file gives them): each CPU's run is counted to its own key */
static void test_cpus(void)
{
	struct hws_report *r = hws_report__new(NULL);

	for (int i = 0; i < 1000; i++) {
		struct hws_sample s =
		    mk(100 + (uint32_t)(i % 3), 0x401000 + (uint64_t)(i % 3) * 16, 0, 0, 0, 0);

		s.fields |= HWS_SF_CPU;
		s.cpu = (uint32_t)(i % 3) + (i % 7 == 0 ? 64 : 0); /* 64 shares a slot with 0 */
		if (i % 10 == 9)
			s.ip += 4; /* now and then another address on the same CPU */
		hws_report__add(r, &s);
	}
	uint64_t want[3][2] = {{0}};
	for (int i = 0; i < 1000; i++)
		want[i % 3][i % 10 == 9]++;
	for (int c = 0; c < 3; c++) {
		T_EQ_U64("cpu run", hws_report__ip_samples(r, 100 + (uint32_t)c, 0x401000 + c * 16),
			 want[c][0]);
		T_EQ_U64("cpu other address",
			 hws_report__ip_samples(r, 100 + (uint32_t)c, 0x401000 + c * 16 + 4),
			 want[c][1]);
	}
	hws_report__delete(r);
}

static void test_bar(void)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;

	hws_report__bar(&sb, 5, 10, 4, true);
	T_EQ_STR("ascii half", sb.buf, "##  ");
	hws_strbuf__reset(&sb);
	hws_report__bar(&sb, 1, 1000, 4, true);
	T_EQ_STR("tiny non-zero still visible", sb.buf, "#   ");
	hws_strbuf__reset(&sb);
	hws_report__bar(&sb, 0, 10, 3, false);
	T_EQ_STR("zero", sb.buf, "   ");
	hws_strbuf__reset(&sb);
	hws_report__bar(&sb, 9, 16, 2, false); /* 9/16 of 16 eighths = 9: one full + 1/8 */
	T_EQ_STR("eighths", sb.buf, "█▏");
	hws_strbuf__reset(&sb);
	hws_report__bar(&sb, 20, 10, 2, false);
	T_EQ_STR("clamped", sb.buf, "██");
	hws_strbuf__release(&sb);
}

/* perf's --itrace letters and the sections of the events perf makes of an SPE record */
static void test_itrace(void)
{
	struct hws_report_opts o = {.sz = sizeof(o), .sort_keys = "mem", .mem = true};
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct hws_sample s;
	uint32_t m = 0;
	char bad[32];
	struct hws_report *r;
	const char *p, *q;

	__T("itrace: default is every event",
	    !hws_report__parse_itrace(NULL, &m, NULL, 0) && m == (1U << HWS_SYNTH__NR) - 1);
	__T("itrace empty: the default",
	    !hws_report__parse_itrace("", &m, NULL, 0) && m == (1U << HWS_SYNTH__NR) - 1);
	__T("itrace fm", !hws_report__parse_itrace("fm", &m, NULL, 0) &&
			     m == (HWS_SYNTH_L1D_MISS | HWS_SYNTH_L1D_ACCESS | HWS_SYNTH_LLC_MISS |
				   HWS_SYNTH_LLC_ACCESS));
	/* flags after e and d are not the letters f and m; Intel PT's letters pick nothing */
	__T("itrace e+f d+m b",
	    !hws_report__parse_itrace("e+fd+mb", &m, NULL, 0) && m == HWS_SYNTH_BRANCH_MISS);
	__T("itrace y10us g32 M",
	    !hws_report__parse_itrace("y10usg32M", &m, NULL, 0) && m == HWS_SYNTH_MEMORY);
	__T("itrace i1i: not made",
	    hws_report__parse_itrace("i1i", &m, bad, sizeof(bad)) == -ENOTSUP &&
		!strcmp(bad, "i1i"));
	__T("itrace unknown letter",
	    hws_report__parse_itrace("fk", &m, bad, sizeof(bad)) == -EINVAL && !strcmp(bad, "k"));
	o.itrace = "k";
	__T("report with a bad itrace: EINVAL", !hws_report__new(&o) && errno == EINVAL);

	/* a load with L1D and TLB events (2 sections), a branch (1), a record of no event */
	o.itrace = "ftb";
	r = hws_report__new(&o);
	__T("report with itrace", r != NULL);
	if (!r)
		return;
	s = mk(1, 0x1000, 0x5000, 40, 0, 0);
	s.sz = sizeof(s);
	s.fields |= HWS_SF_SYNTH | HWS_SF_DATA_SRC;
	s.data_src = 0x2 | 0x0aULL << 5; /* load (mem_op 2); mem_lvl L1 (8) | HIT (2) */
	s.synth = HWS_SYNTH_L1D_ACCESS | HWS_SYNTH_TLB_ACCESS | HWS_SYNTH_MEMORY;
	hws_report__add(r, &s);
	s.synth = HWS_SYNTH_BRANCH_MISS;
	hws_report__add(r, &s);
	s.synth = 0;
	hws_report__add(r, &s);
	hws_report__render(r, NULL, &sb);
	p = strstr(sb.buf, "of event 'l1d-access'");
	q = strstr(sb.buf, "of event 'tlb-access'");
	__T("l1d-access, then tlb-access (perf's order)", p && q && p < q);
	__T("branch-miss last", q && strstr(q, "of event 'branch-miss'"));
	__T("memory: not picked", !strstr(sb.buf, "'memory'"));
	__T("three sections", count_lines_with(sb.buf, "# Samples: 1 ") == 3);
	/* the branch's data source is 0: N/A */
	q = q ? strstr(q, "of event 'branch-miss'") : NULL;
	__T("branch-miss: N/A", q && strstr(q, "100.00%  N/A"));
	__T("l1d-access: L1 hit", p && strstr(p, "100.00%  L1 hit"));
	hws_report__delete(r);
	hws_strbuf__release(&sb);
}

/* perf's group view through the library: two events of a group side by side */
static void test_groups(void)
{
	struct hws_report_opts o = {.sz = sizeof(o), .sort_keys = "sym"};
	const struct hws_perf_group g = {NULL, 0, 2};
	const char *names[] = {"cycles", "instructions"};
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	struct hws_report *r = hws_report__new(&o);
	struct hws_sample s;

	__T("report", r != NULL);
	if (!r)
		return;
	/* cycles: 3 at 0x1000, 1 at 0x2000; instructions: 1 at 0x2000, 1 at 0x3000 */
	for (int i = 0; i < 6; i++) {
		static const uint64_t ip[] = {0x1000, 0x1000, 0x1000, 0x2000, 0x2000, 0x3000};

		s = mk(1, ip[i], 0, 0, 0, 0);
		s.attr_idx = i < 4 ? 0 : 1;
		s.event = names[s.attr_idx];
		hws_report__add(r, &s);
	}
	__T("set_groups", !hws_report__set_groups(r, &g, 1, names, 2, true));
	hws_report__render(r, NULL, &sb);
	__T("one section of the group",
	    strstr(sb.buf, "# Samples: 6  of events 'anon group { cycles, instructions }'") &&
		!strstr(sb.buf, "of event 'instructions'"));
	__T("a column per event, a member's row of 0 for the leader",
	    strstr(sb.buf, "75.00%   0.00%") && strstr(sb.buf, "25.00%  50.00%") &&
		strstr(sb.buf, "0.00%  50.00%"));
	hws_strbuf__reset(&sb);
	__T("set_groups, not side by side", !hws_report__set_groups(r, &g, 1, names, 2, false));
	hws_report__delete(r);
	r = hws_report__new(&o);
	for (int i = 0; r && i < 2; i++) {
		s = mk(1, 0x1000, 0, 0, 0, 0);
		s.attr_idx = (uint32_t)i;
		s.event = names[i];
		hws_report__add(r, &s);
	}
	__T("--no-group", r && !hws_report__set_groups(r, &g, 1, names, 2, false));
	if (r)
		hws_report__render(r, NULL, &sb);
	__T("--no-group: the leader's section says events",
	    strstr(sb.buf, "of events 'cycles'") && strstr(sb.buf, "of event 'instructions'"));
	hws_report__delete(r);
	hws_strbuf__release(&sb);
}

int main(void)
{
	test_aggregation();
	test_bound();
	test_symbols_grouping();
	test_range_grouping();
	test_many();
	test_cpus();
	test_bar();
	test_itrace();
	test_groups();
	TEST_END();
}
