// SPDX-License-Identifier: MIT
/*
 * core/symbols/symbols.c against binutils: a small program with functions, initialized and .bss
 * globals is compiled at run time (non-PIE and PIE, with -g); every function/variable `nm`
 * lists must resolve to itself (or an alias at the same address), source lines must match
 * `addr2line`, and a live PIE process resolved through its /proc/PID/maps (as MMAP2 records
 * would describe it) must give the names of the addresses it prints. Also: map replacement,
 * fork, kallsyms, the LRU file bound.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwsample/filter.h>
#include <hwsample/sample.h>
#include <hwsample/symbols.h>

#include "tests.h"
#include "tests_tools.h"

static char dir[] = "/tmp/hws-test-symbols-XXXXXX";

static const char prog_src[] =
    "#include <stdio.h>\n"
    "#include <unistd.h>\n"
    "int g_init = 5;\n"
    "long g_bss_arr[4096];\n"
    "static double s_local[16] = { 1.0 };\n"
    "__attribute__((noinline)) int f_one(int x)\n"
    "{\n"
    "	return x * g_init + (int)s_local[x & 15];\n"
    "}\n"
    "__attribute__((noinline)) long f_two(long y)\n"
    "{\n"
    "	g_bss_arr[y & 4095] += y;\n"
    "	return g_bss_arr[(y + 1) & 4095];\n"
    "}\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "	printf(\"%p %p %p\\n\", (void *)f_two, (void *)&g_bss_arr[100], (void *)&g_init);\n"
    "	fflush(stdout);\n"
    "	if (argc > 1)\n"
    "		pause();\n"
    "	return f_one(argc) + (int)f_two(argc);\n"
    "}\n";

/* Resolve every sized FUNC/OBJECT nm lists, in the middle of its range. */
static void check_against_nm(struct hws_symbols *syms, const char *bin, int *nfunc, int *nobj)
{
	char cmd[512], line[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", bin);
	f = popen(cmd, "r");
	__T("popen nm", f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, sz;
		char type, name[256];
		struct hws_symbol sym;
		bool func;
		uint64_t q;

		if (sscanf(line, "%llx %llx %c %255s", &a, &sz, &type, name) != 4 || !sz)
			continue;
		if (strchr("tT", type))
			func = true;
		else if (strchr("dDbB", type))
			func = false;
		else
			continue;
		q = a + sz / 2;
		if (hws_symbols__resolve_file(syms, bin, q, !func, &sym) != 1) {
			fprintf(stderr, "FAIL: %s %s at 0x%" PRIx64 " not resolved\n", bin, name,
				q);
			tests_failed++;
			continue;
		}
		/* an alias at the same address is fine (nm lists both) */
		if (strcmp(sym.name, name) && q - sym.offset != a) {
			fprintf(stderr, "FAIL: %s 0x%" PRIx64 ": got %s+0x%" PRIx64 " want %s\n",
				bin, q, sym.name, sym.offset, name);
			tests_failed++;
		}
		T_EQ_U64("offset", sym.offset, q - a);
		if (func)
			(*nfunc)++;
		else
			(*nobj)++;
	}
	pclose(f);
}

static void test_nm(const char *bin)
{
	struct hws_symbols *syms = hws_symbols__new(NULL);
	int nfunc = 0, nobj = 0;

	check_against_nm(syms, bin, &nfunc, &nobj);
	__T("several functions checked", nfunc >= 3);
	__T("several objects checked", nobj >= 3);
	hws_symbols__delete(syms);
}

static void test_srcline(const char *bin)
{
	struct hws_symbols_opts o = {.sz = sizeof(o), .srcline = true};
	struct hws_symbols *syms = hws_symbols__new(&o);
	uint64_t a = tests_nm_addr(bin, "f_two");
	char cmd[512], want[512] = "", got[600];
	struct hws_symbol sym;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "addr2line -e %s 0x%" PRIx64, bin, a);
	f = popen(cmd, "r");
	if (f && fgets(want, sizeof(want), f))
		want[strcspn(want, "\n")] = 0;
	if (f)
		pclose(f);
	__T("addr2line output", strchr(want, ':') != NULL);
	__T("resolve f_two", hws_symbols__resolve_file(syms, bin, a, false, &sym) == 1);
	T_EQ_STR("name", sym.name, "f_two");
	snprintf(got, sizeof(got), "%s:%u", sym.srcfile ? sym.srcfile : "?", sym.line);
	T_EQ_STR("source line like addr2line", got, want);
	hws_symbols__delete(syms);
}

/* hws_symbols__resolve_range() at @addr: every probe inside the range it returns must get
 * the same answer from a second table with the same maps (@ref), shifted by the distance. */
static int check_range(struct hws_symbols *syms, struct hws_symbols *ref, uint32_t pid,
		       uint64_t addr, bool data)
{
	struct hws_symbol a, b;
	uint64_t lo = 1, hi = 0;
	int ra = hws_symbols__resolve_range(syms, pid, addr, data, &a, &lo, &hi), bad = 0;
	uint64_t probes[5] = {lo, hi, lo + (hi - lo) / 2, addr, addr + (hi - addr) / 3};

	if (lo > addr || hi < addr) {
		fprintf(stderr, "FAIL: range [0x%" PRIx64 ", 0x%" PRIx64 "] misses 0x%" PRIx64 "\n",
			lo, hi, addr);
		tests_failed++;
		return 0;
	}
	for (int i = 0; i < 5; i++) {
		uint64_t q = probes[i], d = q - addr;
		int rb =
		    hws_symbols__resolve_range(ref, pid, q, data, &b, NULL, NULL); /* uncached */

		if (rb != ra || (a.dso == NULL) != (b.dso == NULL) ||
		    (a.dso && strcmp(a.dso, b.dso)) || (a.name == NULL) != (b.name == NULL) ||
		    (a.name && strcmp(a.name, b.name)) || a.kind != b.kind || a.size != b.size ||
		    (a.name && b.offset != a.offset + d) || b.dso_addr != a.dso_addr + d)
			bad++;
	}
	if (bad) {
		fprintf(stderr,
			"FAIL: pid %u 0x%" PRIx64 " %s: range [0x%" PRIx64 ", 0x%" PRIx64
			"] of %s+0x%" PRIx64 " does not hold\n",
			pid, addr, data ? "data" : "code", lo, hi, a.name ? a.name : "?", a.offset);
		tests_failed++;
	}
	return hi > lo; /* a wide range */
}

/* A live PIE process: its /proc maps as MMAP2 would give them. */
static void test_live(const char *bin)
{
	struct hws_symbols *syms = hws_symbols__new(NULL), *ref = hws_symbols__new(NULL);
	struct hws_symbols *fresh = hws_symbols__new(NULL);
	unsigned long long fn = 0, bss = 0, init = 0, libc = 0, heap = 0;
	int pfd[2];
	pid_t pid;
	char line[1024];
	FILE *f;

	if (pipe(pfd))
		return;
	pid = fork();
	if (!pid) {
		dup2(pfd[1], 1);
		execl(bin, bin, "wait", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	__T("child prints addresses", f && fgets(line, sizeof(line), f) &&
					  sscanf(line, "%llx %llx %llx", &fn, &bss, &init) == 3);
	snprintf(line, sizeof(line), "/proc/%d/maps", (int)pid);
	FILE *m = fopen(line, "r");
	while (m && fgets(line, sizeof(line), m)) {
		unsigned long long s, e, off;
		char perms[8], path[512] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511[^\n]", &s, &e, perms, &off,
			   path) < 4)
			continue;
		char *p = path;
		while (*p == ' ')
			p++;
		hws_symbols__mmap(syms, (uint32_t)pid, s, e - s, off, *p ? p : "//anon");
		hws_symbols__mmap(ref, (uint32_t)pid, s, e - s, off, *p ? p : "//anon");
		hws_symbols__mmap(fresh, (uint32_t)pid, s, e - s, off, *p ? p : "//anon");
		if (!libc && perms[2] == 'x' && strstr(p, "libc"))
			libc = s;
		if (!strcmp(p, "[heap]"))
			heap = s;
	}
	if (m)
		fclose(m);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (f)
		fclose(f);

	struct hws_symbol sym;
	__T("f_two resolves", hws_symbols__resolve(syms, (uint32_t)pid, fn + 2, false, &sym) == 1);
	T_EQ_STR("f_two", sym.name, "f_two");
	T_EQ_U64("f_two offset", sym.offset, 2);
	__T("dso is the program", sym.dso && strstr(sym.dso, "prog_pie"));
	__T("bss global resolves", hws_symbols__resolve(syms, (uint32_t)pid, bss, true, &sym) == 1);
	T_EQ_STR("g_bss_arr", sym.name, "g_bss_arr");
	T_EQ_U64("g_bss_arr[100] offset", sym.offset, 800);
	__T("data global resolves",
	    hws_symbols__resolve(syms, (uint32_t)pid, init, true, &sym) == 1);
	T_EQ_STR("g_init", sym.name, "g_init");
	/* libc function through the same maps */
	__T("unknown pid", hws_symbols__resolve(syms, 1u << 30, fn, false, &sym) == 0);
	__T("unknown pid has no dso", sym.dso == NULL);

	/* ranges: code around f_two and in libc, data around the globals, every 5 bytes */
	int wide = 0, n = 0;
	for (uint64_t a = fn - 0x600; a < fn + 0x600; a += 5, n++)
		wide += check_range(syms, ref, (uint32_t)pid, a, false);
	for (uint64_t a = libc; libc && a < libc + 0x3000; a += 5, n++)
		wide += check_range(syms, ref, (uint32_t)pid, a, false);
	for (uint64_t a = init - 0x400; a < bss + 0x9000; a += 40, n++)
		wide += check_range(syms, ref, (uint32_t)pid, a, true);
	for (uint64_t a = bss - 0x1000; a < bss + 0x2000; a += 5, n++)
		wide += check_range(syms, ref, (uint32_t)pid, a, false);
	/* heap data: the program's .bss lookback fails, one range for the heap */
	int hwide = 0;
	for (uint64_t a = heap; heap && a < heap + 0x4000; a += 24, n++)
		hwide += check_range(syms, ref, (uint32_t)pid, a, true);
	wide += hwide;
	__T("heap map found", heap != 0);

	/* the cached lookups (exact addresses and recent ranges) against uncached ones, the
	 * same regions visited in a scrambled order */
	uint64_t bases[4] = {fn - 0x600, libc, init - 0x400, heap}, x = 2463534242;
	int mism = 0, nlook = 0;
	for (int i = 0; i < 20000; i++) {
		struct hws_symbol a, b;
		bool data = i & 1;
		uint64_t q;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		q = bases[x % 4] + (x >> 16) % 0x3000;
		if (!bases[x % 4])
			continue;
		int ra = hws_symbols__resolve(fresh, (uint32_t)pid, q, data, &a);
		int rb = hws_symbols__resolve_range(ref, (uint32_t)pid, q, data, &b, NULL, NULL);
		nlook++;
		if (ra != rb || (a.dso == NULL) != (b.dso == NULL) ||
		    (a.dso && strcmp(a.dso, b.dso)) || (a.name == NULL) != (b.name == NULL) ||
		    (a.name && strcmp(a.name, b.name)) || a.offset != b.offset ||
		    a.dso_addr != b.dso_addr || a.size != b.size || a.kind != b.kind) {
			if (mism++ < 5)
				fprintf(stderr,
					"FAIL: cached 0x%" PRIx64 " %s: %s+0x%" PRIx64
					" want %s+0x%" PRIx64 "\n",
					q, data ? "data" : "code", a.name ? a.name : "?", a.offset,
					b.name ? b.name : "?", b.offset);
		}
	}
	tests_failed += mism;
	__T("cached lookups compared", nlook > 10000);
	hws_symbols__delete(fresh);
	__T("heap data ranges are wide", hwide > 0x4000 / 24 / 2);
	__T("libc map found", libc != 0);
	__T("most lookups give a wide range", wide > n / 2);
	/* f_two's range is the function, as nm sizes it */
	uint64_t lo, hi;
	hws_symbols__resolve_range(syms, (uint32_t)pid, fn + 2, false, &sym, &lo, &hi);
	T_EQ_U64("f_two range starts at f_two", lo, fn);
	T_EQ_U64("f_two range is its size", hi - lo + 1, sym.size);
	hws_symbols__delete(syms);
	hws_symbols__delete(ref);
}

/* The lookup cache follows the LRU: with one file loaded at a time, alternating processes
 * reload each time (a stale cached name would point into an unloaded file: ASan). */
static void test_cache_lru(const char *nopie)
{
	struct hws_symbols_opts o = {.sz = sizeof(o), .max_files = 1};
	struct hws_symbols *syms = hws_symbols__new(&o);
	uint64_t fa = tests_nm_addr(nopie, "f_one"), fb = tests_nm_addr(nopie, "f_two");
	char copy[320], cmd[700];
	struct hws_symbols_stats st;
	struct hws_symbol sym;

	snprintf(copy, sizeof(copy), "%s_copy", nopie);
	snprintf(cmd, sizeof(cmd), "cp %s %s", nopie, copy);
	__T("copy", tests_shell(cmd) == 0);
	hws_symbols__mmap(syms, 5, 0x400000, 0x100000, 0, nopie);
	hws_symbols__mmap(syms, 6, 0x400000, 0x100000, 0, copy);
	for (int i = 0; i < 4; i++) {
		__T("pid 5", hws_symbols__resolve(syms, 5, fa + 1, false, &sym) == 1);
		T_EQ_STR("pid 5 name", sym.name, "f_one");
		T_EQ_STR("pid 5 file", sym.dso, nopie);
		__T("pid 5 again (cached)",
		    hws_symbols__resolve(syms, 5, fa + 1, false, &sym) == 1);
		T_EQ_STR("cached name", sym.name, "f_one");
		T_EQ_U64("cached offset", sym.offset, 1);
		__T("pid 6", hws_symbols__resolve(syms, 6, fb, false, &sym) == 1);
		T_EQ_STR("pid 6 name", sym.name, "f_two");
		T_EQ_STR("pid 6 file", sym.dso, copy);
	}
	hws_symbols__stats(syms, &st);
	T_EQ_U64("loads", st.files_loaded, 8);
	T_EQ_U64("unloads", st.files_unloaded, 7);
	T_EQ_U64("lookups counted, cached ones too", st.lookups, 12);
	/* a new mapping over a cached address changes the answer */
	hws_symbols__mmap(syms, 5, 0x400000, 0x100000, 0, "/nonexistent/other");
	hws_symbols__resolve(syms, 5, fa + 1, false, &sym);
	T_EQ_STR("remapped", sym.dso, "/nonexistent/other");
	__T("no name after remap", sym.name == NULL);
	hws_symbols__delete(syms);
}

static void test_maps(void)
{
	struct hws_symbols *syms = hws_symbols__new(NULL);
	struct hws_symbol sym;

	hws_symbols__mmap(syms, 100, 0x10000, 0x40000, 0x1000, "/nonexistent/a");
	hws_symbols__mmap(syms, 100, 0x20000, 0x10000, 0x0, "/nonexistent/b");
	hws_symbols__resolve(syms, 100, 0x18000, false, &sym);
	T_EQ_STR("left part kept", sym.dso, "/nonexistent/a");
	T_EQ_U64("left dso_addr", sym.dso_addr, 0x9000);
	hws_symbols__resolve(syms, 100, 0x20010, false, &sym);
	T_EQ_STR("new map", sym.dso, "/nonexistent/b");
	T_EQ_U64("new dso_addr", sym.dso_addr, 0x10);
	hws_symbols__resolve(syms, 100, 0x30000, false, &sym);
	T_EQ_STR("right part kept", sym.dso, "/nonexistent/a");
	T_EQ_U64("right pgoff moved", sym.dso_addr, 0x21000);
	hws_symbols__resolve(syms, 100, 0x50000, false, &sym);
	__T("past the end", sym.dso == NULL);

	hws_symbols__comm(syms, 100, 100, "parent", false);
	hws_symbols__fork(syms, 200, 100);
	hws_symbols__resolve(syms, 200, 0x20010, false, &sym);
	T_EQ_STR("fork copies maps", sym.dso, "/nonexistent/b");
	T_EQ_STR("fork copies comm", hws_symbols__pid_comm(syms, 200), "parent");
	hws_symbols__comm(syms, 200, 200, "child", true);
	hws_symbols__resolve(syms, 200, 0x20010, false, &sym);
	__T("exec drops maps", sym.dso == NULL);
	T_EQ_STR("exec comm", hws_symbols__pid_comm(syms, 200), "child");
	hws_symbols__resolve(syms, 100, 0x20010, false, &sym);
	T_EQ_STR("parent untouched", sym.dso, "/nonexistent/b");
	/* a map covering several old ones */
	hws_symbols__mmap(syms, 100, 0x0, 0x100000, 0, "/nonexistent/c");
	hws_symbols__resolve(syms, 100, 0x30000, false, &sym);
	T_EQ_STR("covering map", sym.dso, "/nonexistent/c");
	struct hws_symbols_stats st;
	hws_symbols__stats(syms, &st);
	T_EQ_U64("maps added", st.maps, 3);
	hws_symbols__delete(syms);
}

/* comms are per thread, as perf's: a thread's COMM names it alone, a new thread takes the
 * comm of the thread that made it, a reused tid starts afresh */
static void test_thread_comms(void)
{
	struct hws_symbols *syms = hws_symbols__new(NULL);
	struct hws_sample s = {.fields = HWS_SF_PID, .pid = 300, .tid = 301};

	__T("thread syms", syms != NULL);
	if (!syms)
		return;
	hws_symbols__comm(syms, 300, 300, "server", true);
	hws_symbols__fork_thread(syms, 300, 300, 301, 300);
	T_EQ_STR("new thread: its creator's comm", hws_symbols__tid_comm(syms, 301), "server");
	hws_symbols__comm(syms, 300, 301, "worker", false);
	T_EQ_STR("thread COMM: the thread's", hws_symbols__tid_comm(syms, 301), "worker");
	T_EQ_STR("thread COMM: not the process's", hws_symbols__pid_comm(syms, 300), "server");
	T_EQ_STR("main thread keeps its own", hws_symbols__tid_comm(syms, 300), "server");
	T_EQ_STR("a sample: its thread's comm", hws_symbols__sample_comm(syms, &s), "worker");
	hws_symbols__fork_thread(syms, 300, 300, 302, 301);
	T_EQ_STR("made by a named thread", hws_symbols__tid_comm(syms, 302), "worker");
	hws_symbols__fork_thread(syms, 300, 300, 303, 999);
	__T("made by an unknown thread: unnamed (perf's :TID)",
	    hws_symbols__tid_comm(syms, 303) == NULL);
	s.tid = 304;
	__T("a sample of an unknown thread: unnamed", hws_symbols__sample_comm(syms, &s) == NULL);
	s.tid = (uint32_t)-1;
	__T("tid -1: unnamed (not its process's)", hws_symbols__sample_comm(syms, &s) == NULL);
	hws_symbols__fork_thread(syms, 400, 300, 301, 300);
	T_EQ_STR("reused tid: named by its new creator", hws_symbols__tid_comm(syms, 301),
		 "server");
	T_EQ_STR("the idle task", hws_symbols__tid_comm(syms, 0), "swapper");
	/* enough threads to grow the table while a fork reads its creator's entry */
	int bad = 0;
	for (uint32_t t = 1000; t < 1600; t++) {
		hws_symbols__fork_thread(syms, 300, 300, t, t - 1 >= 1000 ? t - 1 : 301);
		bad += !hws_symbols__tid_comm(syms, t) ||
		       strcmp(hws_symbols__tid_comm(syms, t), "server");
	}
	T_EQ_U64("600 threads, each made by the last: all named as the first", bad, 0);
	s.fields = 0;
	__T("no pid in the sample: no comm", hws_symbols__sample_comm(syms, &s) == NULL);
	hws_symbols__delete(syms);
}

static void test_kallsyms(void)
{
	struct hws_symbols *syms = hws_symbols__new(NULL);
	char path[300];
	struct hws_symbol sym;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	f = fopen(path, "w");
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000100 t helper\n"
	      "ffffffff81000200 A absolute\n"
	      "ffffffff81000300 T do_work\n"
	      "ffffffff82000000 D jiffies_x\n"
	      "ffffffffc0000000 t mod_fn\t[mymod]\n",
	      f);
	fclose(f);
	hws_symbols__resolve(syms, 1, 0xffffffff81000150ULL, false, &sym);
	T_EQ_STR("kernel without kallsyms", sym.dso, "[kernel]");
	__T("no kernel name", sym.name == NULL);
	__T("use kallsyms", hws_symbols__use_kallsyms(syms, path) == 0);
	__T("kernel fn", hws_symbols__resolve(syms, 1, 0xffffffff81000150ULL, false, &sym) == 1);
	T_EQ_STR("helper", sym.name, "helper");
	T_EQ_U64("helper off", sym.offset, 0x50);
	hws_symbols__resolve(syms, 1, 0xffffffff81000310ULL, false, &sym);
	T_EQ_STR("do_work (absolute symbol skipped)", sym.name, "do_work");
	hws_symbols__resolve(syms, 1, 0xffffffffc0000008ULL, false, &sym);
	T_EQ_STR("module", sym.name, "mod_fn");
	/* a process whose last map is [vsyscall]: a garbage user frame in the hole below it
	 * must not leave a cached range over the kernel's half (its kernel samples were
	 * unnamed after one) */
	hws_symbols__mmap(syms, 7, 0x400000, 0x1000, 0, "/nonexistent/prog");
	hws_symbols__mmap(syms, 7, 0xffffffffff600000ULL, 0x1000, 0, "[vsyscall]");
	hws_symbols__resolve(syms, 7, 0x6563617274207327ULL, false, &sym);
	__T("garbage frame: no name", sym.name == NULL);
	__T("a kernel address of that process after it",
	    hws_symbols__resolve(syms, 7, 0xffffffff81000160ULL, false, &sym) == 1);
	T_EQ_STR("... named", sym.name, "helper");
	f = fopen(path, "w");
	fputs("0000000000000000 T _stext\n0000000000000000 t helper\n", f);
	fclose(f);
	__T("kptr_restrict detected", hws_symbols__use_kallsyms(syms, path) == -EPERM);
	__T("names off again",
	    hws_symbols__resolve(syms, 1, 0xffffffff81000150ULL, false, &sym) == 0);
	hws_symbols__delete(syms);
}

/* kallsyms larger than the first read: the rest is read at the first kernel lookup, from
 * the file as it was opened (unlinked here); addresses that only show further on, or
 * nowhere (kptr_restrict), are still told at once */
static void test_kallsyms_big(void)
{
	struct hws_symbols *syms = hws_symbols__new(NULL);
	char path[300];
	struct hws_symbol sym;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms_big", dir);
	f = fopen(path, "w");
	for (int i = 0; i < 5000; i++) /* ~200 KB */
		fprintf(f, "%016llx t some_function_%05d\n", 0xffffffff81000000ULL + i * 0x40ULL,
			i);
	fprintf(f, "ffffffffc0001000 T mod_last\t[m]\n");
	fclose(f);
	__T("use big kallsyms", hws_symbols__use_kallsyms(syms, path) == 0);
	unlink(path);
	__T("deferred lookup",
	    hws_symbols__resolve(syms, 1, 0xffffffff81000000ULL + 4321 * 0x40 + 3, false, &sym) ==
		1);
	T_EQ_STR("name past the first read", sym.name, "some_function_04321");
	T_EQ_U64("offset", sym.offset, 3);
	__T("last line", hws_symbols__resolve(syms, 1, 0xffffffffc0001010ULL, false, &sym) == 1);
	T_EQ_STR("module symbol", sym.name, "mod_last");

	f = fopen(path, "w"); /* zeros first, addresses later */
	for (int i = 0; i < 5000; i++)
		fprintf(f, "%016llx t zero_%05d\n",
			i < 4000 ? 0ULL : 0xffffffff81000000ULL + i * 64ULL, i);
	fclose(f);
	__T("addresses further on", hws_symbols__use_kallsyms(syms, path) == 0);
	__T("resolves",
	    hws_symbols__resolve(syms, 1, 0xffffffff81000000ULL + 4500 * 64ULL, false, &sym) == 1);
	T_EQ_STR("zero_04500", sym.name, "zero_04500");

	f = fopen(path, "w"); /* kptr_restrict on a big file */
	for (int i = 0; i < 5000; i++)
		fprintf(f, "0000000000000000 t z_%05d\n", i);
	fclose(f);
	__T("kptr_restrict detected on a big file",
	    hws_symbols__use_kallsyms(syms, path) == -EPERM);
	__T("names off", hws_symbols__resolve(syms, 1, 0xffffffff81000040ULL, false, &sym) == 0);
	T_EQ_STR("still [kernel]", sym.dso, "[kernel]");
	__T("missing file", hws_symbols__use_kallsyms(syms, "/nonexistent/kallsyms") == -ENOENT);
	unlink(path);
	hws_symbols__delete(syms);
}

static void test_lru(const char *a, const char *b)
{
	struct hws_symbols_opts o = {.sz = sizeof(o), .max_files = 1};
	struct hws_symbols *syms = hws_symbols__new(&o);
	uint64_t fa = tests_nm_addr(a, "f_one"), fb = tests_nm_addr(b, "f_two");
	struct hws_symbols_stats st;
	struct hws_symbol sym;

	for (int i = 0; i < 4; i++) {
		__T("a", hws_symbols__resolve_file(syms, a, fa, false, &sym) == 1);
		T_EQ_STR("a name", sym.name, "f_one");
		__T("b", hws_symbols__resolve_file(syms, b, fb, false, &sym) == 1);
		T_EQ_STR("b name", sym.name, "f_two");
	}
	hws_symbols__stats(syms, &st);
	T_EQ_U64("loads with max_files=1", st.files_loaded, 8);
	T_EQ_U64("unloads", st.files_unloaded, 7);
	__T("missing file", hws_symbols__resolve_file(syms, "/nonexistent", 1, false, &sym) == 0);
	hws_symbols__delete(syms);
}

/* executable anonymous memory is a JIT's, named by its perf map (perf's map__new()); other
 * memory is not */
static void test_jit_maps(void)
{
	struct hws_symbols *syms = hws_symbols__new(NULL);
	struct hws_symbol sym;
	char path[64];
	FILE *f;
	/* a pid no test process has: the map file is this test's */
	uint32_t pid = 4190000 + (uint32_t)(getpid() % 1000);

	__T("jit syms", syms != NULL);
	if (!syms)
		return;
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	f = fopen(path, "w");
	__T("map file", f != NULL);
	if (!f) {
		hws_symbols__delete(syms);
		return;
	}
	/* good, a name under three bytes, size 0, a 0x prefix, a last line without '\n' */
	fprintf(f, "7f0000001000 40 jit_a\n7f0000002000 10 ab\n7f0000003000 0 zero\n"
		   "0x7f0000004000 0x20 with 0x\n7f0000005000 8 last");
	fclose(f);
	hws_symbols__mmap_prot(syms, pid, 0x7f0000000000, 0x10000, 0x7f0000000000, HWS_PROT_EXEC,
			       "//anon");
	hws_symbols__mmap_prot(syms, pid, 0x7f0000100000, 0x10000, 0, 0x3, "//anon");
	hws_symbols__resolve(syms, pid, 0x7f0000001010, false, &sym);
	T_EQ_STR("jit: named by the map", sym.name, "jit_a");
	T_EQ_U64("jit: offset", sym.offset, 0x10);
	T_EQ_U64("jit: the process's own address", sym.dso_addr, 0x7f0000001010);
	T_EQ_STR("jit: the map's path", sym.dso, path);
	hws_symbols__resolve(syms, pid, 0x7f0000002004, false, &sym);
	__T("jit: a two-byte name skipped (as perf)", sym.name == NULL);
	hws_symbols__resolve(syms, pid, 0x7f0000003000, false, &sym);
	__T("jit: a size-0 entry names nothing", sym.name == NULL);
	hws_symbols__resolve(syms, pid, 0x7f0000004010, false, &sym);
	T_EQ_STR("jit: 0x prefixes (strtoull)", sym.name, "with 0x");
	hws_symbols__resolve(syms, pid, 0x7f0000005004, false, &sym);
	T_EQ_STR("jit: a last line without a newline", sym.name, "last");
	hws_symbols__resolve(syms, pid, 0x7f0000100010, true, &sym);
	T_EQ_STR("not executable: plain anonymous memory", sym.dso, "//anon");
	unlink(path);
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", 77);
	T_EQ_STR("short name of a JIT map", hws_dso__short_name(path), "[JIT] tid 77");
	T_EQ_STR("same again", hws_dso__short_name(path), "[JIT] tid 77");
	T_EQ_STR("not a JIT map", hws_dso__short_name("/tmp/perf-77.map.old"), "perf-77.map.old");
	hws_symbols__delete(syms);
}

int main(void)
{
	char src[300], nopie[300], pie[300], cmd[1600];
	FILE *f;

	if (!mkdtemp(dir))
		TEST_SKIP("mkdtemp failed");
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	snprintf(nopie, sizeof(nopie), "%s/prog_nopie", dir);
	snprintf(pie, sizeof(pie), "%s/prog_pie", dir);
	f = fopen(src, "w");
	fputs(prog_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cc -g -O1 -fno-pie -no-pie -o %s %s && cc -g -O1 -fPIE -pie -o %s %s", nopie, src,
		 pie, src);
	if (tests_shell(cmd))
		TEST_SKIP("no C compiler");

	test_nm(nopie);
	test_nm(pie);
	test_srcline(nopie);
	test_srcline(pie);
	test_live(pie);
	test_maps();
	test_thread_comms();
	test_jit_maps();
	test_kallsyms();
	test_kallsyms_big();
	test_lru(nopie, pie);
	test_cache_lru(nopie);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	tests_shell(cmd);
	TEST_END();
}
