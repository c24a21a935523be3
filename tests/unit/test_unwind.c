// SPDX-License-Identifier: MIT
/*
 * core/decode/unwind.c, the DWARF unwinder.
 *
 * Without arguments (ctest): this process unwinds itself. A chain of noinline functions
 * takes its registers and a copy of its stack the way the kernel does for
 * PERF_SAMPLE_REGS_USER / STACK_USER, its maps come from /proc/self/maps, and the unwound
 * frames must name the chain in order (then the callers up to main); a short copy, a frame
 * limit and garbage registers/stacks must end early with the right HWS_CC_* flag, never
 * crash.
 *
 * With a perf.data file (tests/e2e/decode_unwind.sh): print every --call-graph dwarf sample
 * as `perf script -F ip,sym` does (time order, dso-relative ip, innermost first; with
 * --no-inline as `perf script -F ip,sym --no-inline`), through the public reader, the
 * internal sample parse, core/symbols for the side-band, and the unwinder:
 *   test_unwind [--no-inline] [--no-fast] [--unwind-only] [--dwarf-names] [--repeat N]
 *               [--corpus DIR] FILE
 * --unwind-only sets hws_unwind_opts.unwind_only (as the decoder does),
 * --dwarf-names prints "name|dwarf name|dso" for frames that are not inline (the e2e test
 * accepts either name: see tests/e2e/decode_unwind_cmp.py), --repeat unwinds each sample N times
 * and prints the cost,
 * --corpus writes each sample as a fuzz_unwind input (tests/fuzz/make_unwind_corpus.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <hwsample/perfdata.h>
#include <hwsample/symbols.h>

#include "decode/unwind.h"
#include "perfdata/perfdata_int.h"
#include "tests.h"

#define MAX_OUT 512

/* ------------------------------------------------------------------ self unwinding */

#if defined(__x86_64__)
struct capture {
	uint64_t regs[3]; /* perf order of mask BP|SP|IP: bp, sp, ip */
	uint64_t mask;
	uint8_t stack[32768];
	uint64_t size;
};

static struct capture cap;
static char *stack_end;
void uw_leaf(void);
void uw_mid(int n);
void uw_top(void); /* end of the [stack] mapping */

/* the kernel's copy: from sp up, as far as the stack goes (no ASan checks: it reads redzones) */
__attribute__((noinline, no_sanitize_address)) static void copy_stack(uint64_t sp)
{
	volatile const uint8_t *s = (const uint8_t *)sp;
	uint64_t n = sizeof(cap.stack);

	if (stack_end && (uint64_t)stack_end - sp < n)
		n = (uint64_t)stack_end - sp;
	for (uint64_t i = 0; i < n; i++)
		cap.stack[i] = s[i];
	cap.size = n;
}

#ifdef __clang__
#define UW_NOINLINE __attribute__((noinline))
#else
#define UW_NOINLINE __attribute__((noinline, noclone))
#endif

UW_NOINLINE void uw_leaf(void)
{
	uint64_t sp, bp, ip;

	__asm__ volatile("mov %%rsp, %0\n\tmov %%rbp, %1\n\tlea 0(%%rip), %2"
			 : "=r"(sp), "=r"(bp), "=r"(ip));
	cap.mask = (1ULL << 6) | (1ULL << 7) | (1ULL << 8);
	cap.regs[0] = bp;
	cap.regs[1] = sp;
	cap.regs[2] = ip;
	copy_stack(sp);
	__asm__ volatile("" ::: "memory");
}

UW_NOINLINE void uw_mid(int n)
{
	if (n > 0)
		uw_mid(n - 1);
	else
		uw_leaf();
	__asm__ volatile("" ::: "memory");
}

UW_NOINLINE void uw_top(void)
{
	uw_mid(2);
	__asm__ volatile("" ::: "memory");
}

static int load_self_maps(struct hws_symbols *s)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char perm[8], path[4096] = "";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095[^\n]", &lo, &hi, perm, &off, path) <
		    4)
			continue;
		if (!strcmp(path, "[stack]"))
			stack_end = (char *)hi;
		hws_symbols__mmap(s, (uint32_t)getpid(), lo, hi - lo, off,
				  path[0] ? path : "//anon");
	}
	fclose(f);
	return 0;
}

static const char *name_of(struct hws_symbols *s, uint64_t ip)
{
	static char buf[256];
	struct hws_symbol sym;

	if (hws_symbols__resolve(s, (uint32_t)getpid(), ip, false, &sym) <= 0 || !sym.name)
		return "[unknown]";
	snprintf(buf, sizeof(buf), "%s", sym.name);
	return buf;
}

static void self_test(void)
{
	static const char *const want[] = {"uw_leaf", "uw_mid", "uw_mid", "uw_mid", "uw_top"};
	struct hws_frame fr[MAX_OUT];
	struct hws_symbols *s = hws_symbols__new(NULL);
	struct hws_unwinder *u = hws_unwinder__new(s, NULL);
	struct hws_unwind_stats st;
	uint32_t pid = (uint32_t)getpid(), fl = 0;
	bool saw_main = false;
	uint64_t rnd = 0x1234567;
	int n;

	__T("new", s && u);
	__T("maps", !load_self_maps(s));
	uw_top();
	n = hws_unwind__user(u, pid, PERF_SAMPLE_REGS_ABI_64, cap.mask, cap.regs, 3, cap.stack,
			     cap.size, fr, MAX_OUT, &fl);
	__T("frames", n >= 6);
	for (int i = 0; i < 5 && i < n; i++) {
		T_EQ_STR("chain", name_of(s, fr[i].ip), want[i]);
		__T("ctx", fr[i].ctx == HWS_CTX_USER && fr[i].flags == HWS_FRAME_UNWOUND);
	}
	T_EQ_U64("frame 0 is the ip", fr[0].ip, cap.regs[2]);
	for (int i = 5; i < n; i++)
		saw_main |= !strcmp(name_of(s, fr[i].ip), "main");
	__T("up to main", saw_main);
	T_EQ_U64("no error", fl, 0);

	/* a short copy: the frames whose return addresses it holds, then an error */
	fl = 0;
	n = hws_unwind__user(u, pid, PERF_SAMPLE_REGS_ABI_64, cap.mask, cap.regs, 3, cap.stack, 8,
			     fr, MAX_OUT, &fl);
	__T("short copy: some frames", n >= 1 && n < 6);
	__T("short copy: error", fl & HWS_CC_UNWIND_ERROR);

	/* the caller's limit */
	fl = 0;
	n = hws_unwind__user(u, pid, PERF_SAMPLE_REGS_ABI_64, cap.mask, cap.regs, 3, cap.stack,
			     cap.size, fr, 3, &fl);
	T_EQ_U64("max 3", n, 3);
	__T("max 3: truncated", fl == HWS_CC_TRUNCATED);

	/* no registers: not unwound */
	__T("abi none", hws_unwind__user(u, pid, PERF_SAMPLE_REGS_ABI_NONE, cap.mask, cap.regs, 3,
					 cap.stack, cap.size, fr, MAX_OUT, &fl) == -EOPNOTSUPP);

	/* garbage: a random stack (half of it the real one) and random sp/bp */
	for (int t = 0; t < 2000; t++) {
		uint64_t regs[3] = {cap.regs[0], cap.regs[1], cap.regs[2]};
		static uint8_t junk[4096];
		for (size_t i = 0; i < sizeof(junk); i += 8) {
			uint64_t v = tests_xorshift64(&rnd);
			if (v & 1)
				memcpy(&v, cap.stack + (v >> 8) % (cap.size - 8), 8);
			memcpy(junk + i, &v, 8);
		}
		if (t & 1)
			regs[1] += (tests_xorshift64(&rnd) % 512) - 256;
		if (t & 2)
			regs[0] = tests_xorshift64(&rnd);
		fl = 0;
		n = hws_unwind__user(u, pid, PERF_SAMPLE_REGS_ABI_64, cap.mask, regs, 3, junk,
				     sizeof(junk), fr, MAX_OUT, &fl);
		if (n < 1 || n > 127) {
			__T("garbage: 1..127 frames", false);
			break;
		}
	}
	hws_unwinder__stats(u, &st);
	__T("stats", st.samples >= 2004 && st.dwfl_new == 1 && st.modules >= 2);
	hws_unwinder__delete(u);
	hws_symbols__delete(s);
}
#else
static void self_test(void)
{
	TEST_SKIP("the self-unwinding test captures x86_64 registers");
}
#endif

/* ------------------------------------------------------------------ perf.data driver */

struct out_sample {
	uint64_t time;
	char *text;
};

static bool no_inline, no_fast, dwarf_names, unwind_only;
static uint64_t exe_base, libc_base; /* file offset 0 of the workload and libc (--corpus) */
static int repeat;
static const char *corpus;

static void sideband(struct hws_symbols *s, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	uint32_t pid, tid, ppid;
	uint64_t addr, len, pgoff;
	char name[4096];
	size_t fo;

	switch (h->type) {
	case PERF_RECORD_COMM:
		if (h->size < 16)
			return;
		memcpy(&pid, p + 8, 4);
		memcpy(&tid, p + 12, 4);
		snprintf(name, sizeof(name), "%.*s", (int)(h->size - 16), (const char *)p + 16);
		hws_symbols__comm(s, pid, tid, name, h->misc & PERF_RECORD_MISC_COMM_EXEC);
		return;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		fo = h->type == PERF_RECORD_MMAP ? 40 : 72;
		if (h->size <= fo)
			return;
		memcpy(&pid, p + 8, 4);
		memcpy(&addr, p + 16, 8);
		memcpy(&len, p + 24, 8);
		memcpy(&pgoff, p + 32, 8);
		snprintf(name, sizeof(name), "%.*s", (int)(h->size - fo), (const char *)p + fo);
		hws_symbols__mmap(s, pid, addr, len, pgoff, name);
		if (!pgoff && strstr(name, "/unwind_chains"))
			exe_base = addr;
		if (!pgoff && strstr(name, "/libc.so"))
			libc_base = addr;
		return;
	case PERF_RECORD_FORK:
		memcpy(&pid, p + 8, 4);
		memcpy(&ppid, p + 12, 4);
		hws_symbols__fork(s, pid, ppid);
		return;
	}
}

static int cmp_time(const void *a, const void *b)
{
	const struct out_sample *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* corpus input: see tests/fuzz/fuzz_unwind.c (a few samples, spread over the file) */
static void write_corpus(const struct hws_user_regs *ur, int idx)
{
	char path[4096];
	uint64_t hdr[3] = {exe_base, libc_base, ur->mask};
	FILE *f;

	if (idx % 8 || idx / 8 >= 16 || !ur->abi)
		return;
	snprintf(path, sizeof(path), "%s/sample-%03d", corpus, idx);
	f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(hdr, 8, 3, f);
	fwrite(ur->regs, 8, ur->nr, f);
	fwrite(ur->stack, 1, (size_t)ur->dyn_size, f);
	fclose(f);
}

static int driver(const char *file)
{
	struct hws_perf_reader *r = hws_perf_reader__open(file, NULL);
	struct hws_symbols_opts so = {.sz = sizeof(so)};
	struct hws_unwind_opts uo = {
	    .no_inline = no_inline, .no_fast = no_fast, .unwind_only = unwind_only};
	struct hws_symbols *s = hws_symbols__new(&so);
	struct hws_unwinder *u = hws_unwinder__new(s, &uo);
	struct hws_frame fr[MAX_OUT];
	struct out_sample *outs = NULL;
	size_t nouts = 0, aouts = 0;
	struct hws_perf_record rec;
	struct hws_unwind_stats st;
	double unwind_ns = 0;
	uint64_t nframes = 0;
	int ret;

	if (!r || !s || !u) {
		fprintf(stderr, "test_unwind: %s: %s\n", file, strerror(errno));
		return 1;
	}
	/* side-band first: the maps as they were when the samples were taken (no exec after) */
	while ((ret = hws_perf_reader__next(r, &rec)) > 0)
		sideband(s, rec.hdr);
	hws_perf_reader__close(r);
	r = hws_perf_reader__open(file, NULL);
	while (r && (ret = hws_perf_reader__next(r, &rec)) > 0) {
		const struct hws_perf_evattr *ea;
		struct hws_record_sample smp;
		struct hws_user_regs ur;
		struct hws_strbuf sb = {0};
		uint32_t fl = 0;
		int n = 0;

		if (rec.hdr->type != PERF_RECORD_SAMPLE || rec.attr_idx < 0)
			continue;
		ea = hws_perf_reader__attr(r, rec.attr_idx);
		if (hws_sample__parse(&ea->attr, rec.hdr, rec.hdr->size, &smp) ||
		    hws_sample__user_regs_stack(&ea->attr, rec.hdr, rec.hdr->size, &ur)) {
			fprintf(stderr, "test_unwind: bad sample at %" PRIu64 "\n",
				rec.file_offset);
			return 1;
		}
		if (corpus)
			write_corpus(&ur, (int)nouts);
		for (int k = 0; k < (repeat ? repeat : 1); k++) {
			struct timespec t0, t1;
			fl = 0;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			n = hws_unwind__user(u, smp.pid, ur.abi, ur.mask, ur.regs, ur.nr, ur.stack,
					     ur.dyn_size, fr, MAX_OUT, &fl);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			unwind_ns += (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
		}
		nframes += n > 0 ? (uint64_t)n : 0;
		if (fl & HWS_CC_UNWIND_ERROR)
			fprintf(stderr, "unwind error: pid %u time %" PRIu64 ", %d frames\n",
				smp.pid, smp.time, n);
		hws_strbuf__addf(&sb, "\n");
		for (int i = 0; i < n; i++) {
			struct hws_symbol sym;
			struct hws_inline_info ii;
			const char *name;
			uint64_t a = fr[i].ip;

			if (hws_symbols__resolve(s, smp.pid, fr[i].ip, false, &sym) >= 0 && sym.dso)
				a = sym.dso_addr;
			name = sym.name ? sym.name : "[unknown]";
			if (fr[i].flags & HWS_FRAME_INLINED) {
				if (!hws_unwind__inline(u, smp.pid, fr[i].ip, fr[i].inline_depth,
							&ii))
					hws_strbuf__addf(&sb, "\t%16" PRIx64 " %s (inlined)\n", a,
							 ii.name);
				else
					hws_strbuf__addf(&sb, "\t%16" PRIx64 " ?? (inlined)\n", a);
				continue;
			}
			hws_strbuf__addf(&sb, "\t%16" PRIx64 " %s", a, name);
			if (dwarf_names) {
				const char *dso = sym.dso ? strrchr(sym.dso, '/') : NULL;
				bool dw = !hws_unwind__inline(u, smp.pid, fr[i].ip, 0, &ii);
				hws_strbuf__addf(&sb, "|%s|%s", dw ? ii.name : "",
						 dso	   ? dso + 1
						 : sym.dso ? sym.dso
							   : "");
			}
			hws_strbuf__addf(&sb, "\n");
		}
		if (nouts == aouts) {
			aouts = aouts ? aouts * 2 : 1024;
			outs = realloc(outs, aouts * sizeof(*outs));
			if (!outs)
				return 1;
		}
		outs[nouts].time = smp.time;
		outs[nouts++].text = sb.buf;
	}
	if (ret < 0 || !r) {
		fprintf(stderr, "test_unwind: %s: read error\n", file);
		return 1;
	}
	qsort(outs, nouts, sizeof(*outs), cmp_time);
	for (size_t i = 0; i < nouts; i++) {
		fputs(outs[i].text, stdout);
		free(outs[i].text);
	}
	free(outs);
	hws_unwinder__stats(u, &st);
	fprintf(stderr,
		"unwind: %zu samples, %" PRIu64 " frames (%" PRIu64 " inline), %" PRIu64
		" errors, %" PRIu64 " timeouts, %" PRIu64 " files, %" PRIu64 " processes\n",
		nouts, nframes, st.inlined, st.errors, st.timeouts, st.modules, st.dwfl_new);
	if (repeat && nouts)
		fprintf(stderr, "unwind cost: %.1f us per sample (%d passes)\n",
			unwind_ns / 1e3 / ((double)nouts * repeat), repeat);
	hws_unwinder__delete(u);
	hws_symbols__delete(s);
	hws_perf_reader__close(r);
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--no-inline"))
			no_inline = true;
		else if (!strcmp(argv[i], "--no-fast"))
			no_fast = true;
		else if (!strcmp(argv[i], "--unwind-only"))
			unwind_only = true;
		else if (!strcmp(argv[i], "--dwarf-names"))
			dwarf_names = true;
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--corpus") && i + 1 < argc)
			corpus = argv[++i];
		else {
			fprintf(stderr, "usage: test_unwind [--no-inline] [--no-fast] "
					"[--unwind-only] [--dwarf-names] "
					"[--repeat N] [--corpus DIR] [FILE]\n");
			return 2;
		}
	}
	if (i < argc)
		return driver(argv[i]);
	self_test();
	printf("%d checks, %d failed\n", tests_run, tests_failed);
	return tests_failed ? 1 : 0;
}
