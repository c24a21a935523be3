// SPDX-License-Identifier: MIT
/*
 * Where kernel symbols come from, and where they are moved to.
 *  - hws_symbols__use_kallsyms_copy(): a copy (perf's build-id cache) is read instead of
 *    the rest of the live file only when it starts with the bytes the live file showed and
 *    its module symbols are exactly those of the modules list, each inside its module;
 *    otherwise the live file is read. Told apart by a symbol past the first read that the
 *    copy names differently.
 *  - KASLR: a kernel MMAP "[kernel.kallsyms]_text" (or _stext) whose pgoff differs from the
 *    kallsyms' _text moves the kernel's symbols by the difference and drops module symbols,
 *    whether the MMAP comes before or after the kallsyms is read; no difference, no change.
 *  - the decoder: a file whose HEADER_BUILD_ID names a kernel that is not the running one
 *    takes its kernel names from <buildid dir>/[kernel.kallsyms]/<id>/kallsyms (perf's
 *    layout, old single-file layout too), moved to the file's kernel MMAP; without a copy
 *    the kernel addresses stay "[kernel]"; hws_perf_reader__build_id() reads the entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwsample/decode.h>
#include <hwsample/perfdata.h>
#include <hwsample/registry.h>
#include <hwsample/symbols.h>

#include "rec_build.h"
#include "tests.h"

#define KPID	 ((uint32_t)-1)
#define BASE	 0xffffffff81000000ULL
#define NSYMS	 10000 /* ~280 KB of text: more than the first read of the live file */
#define MOD_BASE 0xffffffffc0000000ULL

static char dir[256];

/* a kallsyms text: _text at @base, NSYMS functions after it, the last one named @tail,
 * then @extra lines (module or other tagged symbols) */
static void write_ks(const char *path, uint64_t base, const char *tail, const char *extra)
{
	FILE *f = fopen(path, "w");

	fprintf(f, "%016llx T _text\n", (unsigned long long)base);
	fprintf(f, "%016llx T _stext\n", (unsigned long long)base);
	for (int i = 1; i <= NSYMS; i++)
		fprintf(f, "%016llx t %s%05d\n", (unsigned long long)(base + i * 0x40ULL),
			i == NSYMS ? tail : "fn_", i);
	fputs(extra, f);
	fclose(f);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

/* name at kernel address @a, or "" */
static const char *name_at(struct hws_symbols *s, uint64_t a)
{
	static char buf[128];
	struct hws_symbol sym;

	buf[0] = 0;
	if (hws_symbols__resolve(s, 1, a, false, &sym) == 1 && sym.name)
		snprintf(buf, sizeof(buf), "%s", sym.name);
	return buf;
}

#define LAST (BASE + NSYMS * 0x40ULL)
#define MODS                                                                                       \
	"ffffffffc0000010 t mod_a\t[mymod]\nffffffffc0000100 T mod_b\t[mymod]\n"                   \
	"ffffffffc0100000 t other_fn\t[other]\n"

/* which file the bulk came from: the last symbol is "live_" in the live file, "copy_" in
 * the copy */
static const char *source(const char *live, const char *copy, const char *modules)
{
	struct hws_symbols *s = hws_symbols__new(NULL);
	static char who[16];

	__T("use", hws_symbols__use_kallsyms_copy(s, live, copy, modules) == 0);
	snprintf(who, sizeof(who), "%.5s", name_at(s, LAST + 4));
	hws_symbols__delete(s);
	return who;
}

static void test_copy_choice(void)
{
	char live[300], copy[300], mods[300];

	snprintf(live, sizeof(live), "%s/live", dir);
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	snprintf(mods, sizeof(mods), "%s/modules", dir);

	write_ks(live, BASE, "live_", "");
	write_ks(copy, BASE, "copy_", "");
	T_EQ_STR("same start, no modules: the copy", source(live, copy, NULL), "copy_");
	T_EQ_STR("no copy: live", source(live, NULL, NULL), "live_");
	T_EQ_STR("missing modules file means none", source(live, copy, "/nonexistent/m"), "copy_");
	write_ks(copy, BASE + 0x200000, "copy_", "");
	T_EQ_STR("another base (another boot): live", source(live, copy, NULL), "live_");
	T_EQ_STR("missing copy: live", source(live, "/nonexistent/copy", NULL), "live_");

	write_ks(live, BASE, "live_", MODS);
	write_ks(copy, BASE, "copy_", MODS);
	write_text(mods, "mymod 4096 0 - Live 0xffffffffc0000000\n"
			 "other 8192 1 mymod, Live 0xffffffffc0100000 (O)\n");
	T_EQ_STR("modules where the list says: the copy", source(live, copy, mods), "copy_");
	T_EQ_STR("modules but no list: live", source(live, copy, NULL), "live_");
	write_text(mods, "mymod 4096 0 - Live 0xffffffffc0000000\n"
			 "other 8192 1 mymod, Live 0xffffffffc0200000\n");
	T_EQ_STR("a module moved: live", source(live, copy, mods), "live_");
	write_text(mods, "mymod 4096 0 - Live 0xffffffffc0000000\n"
			 "other 8192 1 mymod, Live 0xffffffffc0100000\n"
			 "third 4096 0 - Live 0xffffffffc0300000\n");
	T_EQ_STR("a module loaded since: live", source(live, copy, mods), "live_");
	write_text(mods, "mymod 4096 0 - Live 0x0000000000000000\n"
			 "other 8192 1 mymod, Live 0x0000000000000000\n");
	T_EQ_STR("hidden module addresses: live", source(live, copy, mods), "live_");
	write_text(mods, "mymod 4096 0 - Live 0xffffffffc0000000\n"
			 "other 8192 1 mymod, Live 0xffffffffc0100000\n");
	write_ks(copy, BASE, "copy_", MODS "ffffffffa0000000 t bpf_prog_1234_x\t[bpf]\n");
	T_EQ_STR("BPF programs in the copy: live", source(live, copy, mods), "live_");
	write_ks(copy, BASE, "copy_",
		 MODS "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n"
		      "ffffffffc0202000 t kprobe_insn_page\t[__builtin__kprobes]\n");
	T_EQ_STR("trampolines outside the modules: the copy", source(live, copy, mods), "copy_");
	write_ks(copy, BASE, "copy_",
		 MODS "ffffffffc0000800 t ftrace_trampoline\t[__builtin__ftrace]\n");
	T_EQ_STR("a trampoline inside a module: live", source(live, copy, mods), "live_");
	write_ks(copy, BASE, "copy_",
		 "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n");
	T_EQ_STR("trampolines and no modules: the copy", source(live, copy, "/nonexistent/m"),
		 "copy_");
	write_ks(copy, BASE, "copy_", MODS "ffffffffc0201000 t tramp\t[__builtin_x]\n");
	T_EQ_STR("a tag that is not a trampoline's: live", source(live, copy, mods), "live_");
	write_ks(copy, BASE, "copy_", "ffffffffc0000010 t mod_a\t[mymod]\n");
	T_EQ_STR("a module missing from the copy: live", source(live, copy, mods), "live_");
	unlink(live);
	unlink(copy);
	unlink(mods);
}

static void test_relocation(void)
{
	char ks[300];
	struct hws_symbols *s;
	const uint64_t delta = 0x1c00000;

	snprintf(ks, sizeof(ks), "%s/ks", dir);
	write_ks(ks, BASE, "last_", MODS);

	/* the kernel MMAP first, as in a file read in order */
	s = hws_symbols__new(NULL);
	hws_symbols__mmap(s, KPID, BASE + delta, 0x1000000, BASE + delta, "[kernel.kallsyms]_text");
	__T("use", hws_symbols__use_kallsyms(s, ks) == 0);
	T_EQ_STR("moved: fn 7", name_at(s, BASE + delta + 7 * 0x40 + 1), "fn_00007");
	T_EQ_STR("moved: the last one", name_at(s, LAST + delta + 2), "last_10000");
	T_EQ_STR("the old place names nothing sensible", name_at(s, BASE + 7 * 0x40 + 1), "");
	T_EQ_STR("module symbols dropped", name_at(s, MOD_BASE + 0x10), "");
	hws_symbols__delete(s);

	/* the MMAP after the first lookup read the kallsyms (file order: unordered mode) */
	s = hws_symbols__new(NULL);
	__T("use", hws_symbols__use_kallsyms(s, ks) == 0);
	T_EQ_STR("before the MMAP: as listed", name_at(s, BASE + 9 * 0x40), "fn_00009");
	hws_symbols__mmap(s, KPID, BASE - delta, 0x1000000, BASE - delta,
			  "[kernel.kallsyms]_stext");
	T_EQ_STR("after it: moved down", name_at(s, BASE - delta + 9 * 0x40), "fn_00009");
	T_EQ_STR("the cached answer is gone", name_at(s, BASE + 9 * 0x40), "");
	hws_symbols__delete(s);

	/* the same place: nothing moves, modules stay */
	s = hws_symbols__new(NULL);
	hws_symbols__mmap(s, KPID, BASE, 0x1000000, BASE, "[kernel.kallsyms]_text");
	__T("use", hws_symbols__use_kallsyms(s, ks) == 0);
	T_EQ_STR("same base: fn 3", name_at(s, BASE + 3 * 0x40), "fn_00003");
	T_EQ_STR("same base: module kept", name_at(s, MOD_BASE + 0x10), "mod_a");
	hws_symbols__delete(s);

	/* a reference the kallsyms lacks, or none at all (pgoff 0): left as listed */
	s = hws_symbols__new(NULL);
	hws_symbols__mmap(s, KPID, BASE, 0x1000000, BASE + delta, "[kernel.kallsyms]_nosuch");
	__T("use", hws_symbols__use_kallsyms(s, ks) == 0);
	T_EQ_STR("unknown reference: as listed", name_at(s, BASE + 3 * 0x40), "fn_00003");
	hws_symbols__delete(s);
	s = hws_symbols__new(NULL);
	hws_symbols__mmap(s, KPID, BASE, 0x1000000, 0, "[kernel.kallsyms]_text");
	__T("use", hws_symbols__use_kallsyms(s, ks) == 0);
	T_EQ_STR("pgoff 0: as listed", name_at(s, BASE + 3 * 0x40), "fn_00003");
	hws_symbols__delete(s);
	unlink(ks);
}

/* ------------------------------------------------------------- the decoder */

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static void emit_rec(struct hws_perf_writer *w, struct rb *r)
{
	((struct perf_event_header *)r->b)->size = (uint16_t)r->n;
	__T("write record", hws_perf_writer__write(w, r->b, r->n) == 0);
}

/* a file of one cpu-clock event: the kernel MMAP (pgoff @text), one kernel sample at @ip,
 * and, if @bid, a HEADER_BUILD_ID entry for [kernel.kallsyms] with that id (20 bytes) */
static void write_file(const char *path, uint64_t text, uint64_t ip, const uint8_t *bid)
{
	struct hws_perf_event_attr a = {.size = sizeof(a),
					.type = PERF_TYPE_SOFTWARE,
					.config = PERF_COUNT_SW_CPU_CLOCK,
					.sample_type = ST,
					.sample_period = 1000};
	struct hws_perf_writer *w = hws_perf_writer__new(path, false);
	static const char kname[] = "[kernel.kallsyms]_text";
	uint64_t id = 1;
	struct rb r;

	__T("writer", w != NULL);
	if (!w)
		return;
	hws_perf_writer__add_attr(w, &a, "cpu-clock", &id, 1);
	begin(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	put32x2(&r, KPID, 0);
	put64(&r, text);
	put64(&r, 0x1000000);
	put64(&r, text);
	put(&r, kname, sizeof(kname));
	r.n = (r.n + 7) & ~(size_t)7;
	emit_rec(w, &r);
	begin(&r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(&r, ip);
	put32x2(&r, 10, 10);
	put64(&r, 5);
	emit_rec(w, &r);
	if (bid) {
		uint8_t e[36 + 64] = {0};
		uint16_t misc = PERF_RECORD_MISC_KERNEL | (1U << 15), size = sizeof(e);
		int32_t pid = -1;

		memcpy(e + 4, &misc, 2);
		memcpy(e + 6, &size, 2);
		memcpy(e + 8, &pid, 4);
		memcpy(e + 12, bid, 20);
		e[32] = 20;
		memcpy(e + 36, "[kernel.kallsyms]", 18);
		__T("build-id feature",
		    hws_perf_writer__set_feature(w, HWS_FEAT_BUILD_ID, e, sizeof(e)) == 0);
	}
	__T("close", hws_perf_writer__close(w) == 0);
}

static int nop_cb(void *ctx, const struct hws_sample *s)
{
	(void)s;
	++*(int *)ctx;
	return 0;
}

/* decode @path with @cache as the build-id dir; the name of kernel address @ip after */
static const char *decoded_name(const char *path, const char *cache, uint64_t ip,
				struct hws_registry *reg)
{
	struct hws_decoder_opts o = {.sz = sizeof(o), .buildid_dir = cache};
	struct hws_perf_reader *r;
	struct hws_decoder *d;
	static char buf[128];
	struct hws_symbol sym;
	int n = 0;

	buf[0] = 0;
	r = hws_perf_reader__open(path, NULL);
	__T("open", r != NULL);
	if (!r)
		return buf;
	d = hws_decoder__new(r, reg, &o);
	__T("run", d && hws_decoder__run(d, nop_cb, &n) == 0);
	T_EQ_U64("one sample", n, 1);
	if (d && hws_symbols__resolve(hws_decoder__symbols(d), 10, ip, false, &sym) == 1)
		snprintf(buf, sizeof(buf), "%s", sym.name);
	hws_decoder__delete(d);
	hws_perf_reader__close(r);
	return buf;
}

static void test_decoder(void)
{
	static const uint8_t bid[20] = {0xde, 0xad, 0xbe, 0xef, 0,  1,	2,  3,	4,  5,
					6,    7,    8,	  9,	10, 11, 12, 13, 14, 0x42};
	const char *hex = "deadbeef000102030405060708090a0b0c0d0e42";
	char path[300], cache[300], kdir[400], ks[500], kks[400], got[48];
	const uint64_t delta = 0x3000000;
	struct hws_registry *reg = hws_registry__new();
	struct hws_perf_reader *r;
	char err[256];

	__T("backends", hws_registry__add_static(reg, err, sizeof(err)) >= 0);
	snprintf(path, sizeof(path), "%s/k.data", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(kdir, sizeof(kdir), "%s/[kernel.kallsyms]/%s", cache, hex);
	snprintf(ks, sizeof(ks), "%s/kallsyms", kdir);

	write_file(path, BASE + delta, BASE + delta + 11 * 0x40 + 5, bid);
	r = hws_perf_reader__open(path, NULL);
	__T("open", r != NULL);
	T_EQ_U64("build-id digits",
		 hws_perf_reader__build_id(r, "[kernel.kallsyms]", got, sizeof(got)), 40);
	T_EQ_STR("build-id", got, hex);
	T_EQ_U64("no entry for another name",
		 hws_perf_reader__build_id(r, "/bin/true", got, sizeof(got)), 0);
	T_EQ_U64("too small a buffer", hws_perf_reader__build_id(r, "[kernel.kallsyms]", got, 40),
		 (uint64_t)-ENOSPC);
	hws_perf_reader__close(r);

	T_EQ_STR("no copy: [kernel] only",
		 decoded_name(path, cache, BASE + delta + 11 * 0x40 + 5, reg), "");
	__T("mkdir", mkdir(cache, 0755) == 0 || errno == EEXIST);
	snprintf(kks, sizeof(kks), "%s/[kernel.kallsyms]", cache);
	__T("mkdir", mkdir(kks, 0755) == 0 || errno == EEXIST);
	__T("mkdir", mkdir(kdir, 0755) == 0 || errno == EEXIST);
	write_ks(ks, BASE, "last_", MODS);
	T_EQ_STR("the cached copy, moved to the file's kernel",
		 decoded_name(path, cache, BASE + delta + 11 * 0x40 + 5, reg), "fn_00011");
	T_EQ_STR("the copy's own addresses are not the file's",
		 decoded_name(path, cache, BASE + 11 * 0x40 + 5, reg), "");
	T_EQ_STR("another cache dir: nothing",
		 decoded_name(path, dir, BASE + delta + 11 * 0x40, reg), "");
	/* perf's older layout: the copy is the build-id entry itself */
	unlink(ks);
	rmdir(kdir);
	write_ks(kdir, BASE + delta, "last_", "");
	T_EQ_STR("old layout, same base",
		 decoded_name(path, cache, BASE + delta + 11 * 0x40 + 5, reg), "fn_00011");
	unlink(kdir);

	write_file(path, BASE, BASE + 11 * 0x40, NULL);
	T_EQ_STR("no build-id, not this host: [kernel] only",
		 decoded_name(path, cache, BASE + 11 * 0x40, reg), "");
	unlink(path);
	rmdir(kks);
	rmdir(cache);
	hws_registry__delete(reg);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/hws-kallsyms-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	test_copy_choice();
	test_relocation();
	test_decoder();
	rmdir(dir);
	TEST_END();
}
