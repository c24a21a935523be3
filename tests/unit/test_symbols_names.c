// SPDX-License-Identifier: MIT
/*
 * core/symbols names as perf shows them: the demangle wrapper (core/symbols/demangle.c) on
 * Rust legacy and v0 names (no Rust compiler needed) and on C++ names of libstdc++ and of a
 * program compiled here, against binutils' c++filt (-p: no parameters, perf's default style;
 * without -p: with them, perf -v); and the PLT symbols synthesized by core/symbols/elf.c against
 * objdump's "<name@plt>" labels, for .plt, .plt.sec (IBT) and .plt.got entries; and which of
 * several aliases at one address names it (perf's choose_best_symbol() rules, each rule with
 * the winner first and last in the symbol table).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <hwsample/symbols.h>

#include "symbols/symbols_int.h"
#include "tests.h"
#include "tests_tools.h"

static char dir[] = "/tmp/hws-test-symnames-XXXXXX";

static const char cxx_src[] =
    "#include <cstdio>\n"
    "#include <cstring>\n"
    "#include <vector>\n"
    "namespace outer { namespace inner {\n"
    "template <typename T> struct Box { T v; __attribute__((noinline)) T get(int k) const {\n"
    "	return v + (T)k; } };\n"
    "__attribute__((noinline)) long twice(long x, const char *s) { return 2 * x + "
    "(long)std::strlen(s); }\n"
    "} }\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "	std::vector<int> v(argc, 1);\n"
    "	outer::inner::Box<double> b{1.5};\n"
    "	std::printf(\"%ld %f %zu\\n\", outer::inner::twice(argc, argv[0]), b.get(argc), "
    "v.size());\n"
    "	return 0;\n"
    "}\n";

static void test_rust(void)
{
	/* legacy: the hash is dropped, $..$ escapes decoded; v0: paths without crate hashes */
	static const char *const cases[][2] = {
	    {"_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write"},
	    {"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h1a2b3c4d5e6f7a8bE",
	     "std::rt::lang_start::{{closure}}"},
	    {"_RNvCs1234_7mycrate4main", "mycrate::main"},
	    {"_RNvNtCs9ltgdHTiPiY_4core3ptr13drop_in_place", "core::ptr::drop_in_place"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = hws__demangle(cases[i][0], false);
		T_EQ_STR(cases[i][0], d, cases[i][1]);
		free(d);
	}
	__T("plain C name stays", hws__demangle("main", false) == NULL);
	__T("not mangled", hws__demangle("_start", false) == NULL);
	__T("NULL", hws__demangle(NULL, false) == NULL);
}

/* the first 300 C++ names of libstdc++ (@lib) demangled as c++filt [-p] does */
static void test_cxx(const char *lib)
{
	char cmd[900], mangled[1024], want[2048];
	int n = 0;

	for (int params = 0; params < 2; params++) {
		FILE *f;

		snprintf(cmd, sizeof(cmd),
			 "nm -D --defined-only %s | awk '$3 ~ /^_Z/ {sub(/@.*/, \"\", $3); print "
			 "$3}' | sort -u | head -300 "
			 "> %s/names && c++filt %s < %s/names | paste %s/names -",
			 lib, dir, params ? "" : "-p", dir, dir);
		f = popen(cmd, "r");
		if (!f)
			TEST_SKIP("popen");
		while (fscanf(f, "%1023[^\t]\t%2047[^\n]\n", mangled, want) == 2) {
			char *d = hws__demangle(mangled, params);
			T_EQ_STR(mangled, d, want);
			free(d);
			n++;
		}
		pclose(f);
	}
	printf("%d C++ names demangled as c++filt does\n", n);
	__T("C++ names found", n > 200);
}

/* a program's functions resolve to their demangled names, or mangled with no_demangle */
static void test_cxx_resolve(const char *bin)
{
	char cmd[600], line[600];
	struct hws_symbol sym;
	int n = 0;
	FILE *f;

	for (int nodm = 0; nodm < 2; nodm++) {
		HWS_OPTS(hws_symbols_opts, o, .no_demangle = nodm);
		struct hws_symbols *syms = hws_symbols__new(&o);

		snprintf(cmd, sizeof(cmd), "nm -S %s | awk '$3 ~ /[tTwW]/ && $4 ~ /twice|get/'",
			 bin);
		f = popen(cmd, "r");
		while (f && fgets(line, sizeof(line), f)) {
			uint64_t a, sz;
			char type, name[512], filt[700], want[600];
			FILE *g;

			if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %511s", &a, &sz, &type,
				   name) != 4)
				continue;
			snprintf(filt, sizeof(filt), "c++filt -p '%s'", name);
			g = popen(filt, "r");
			if (!g || !fgets(want, sizeof(want), g))
				want[0] = 0;
			if (g)
				pclose(g);
			want[strcspn(want, "\n")] = 0;
			hws_symbols__resolve_file(syms, bin, a + sz / 2, false, &sym);
			T_EQ_STR("resolved name", sym.name, nodm ? name : want);
			n++;
		}
		if (f)
			pclose(f);
		hws_symbols__delete(syms);
	}
	__T("functions twice/get found", n >= 4);
}

/* every objdump label "<X@plt>" is our symbol X@plt at offset 0, and in its middle; with
 * @demangle, X as c++filt -p shows it */
static int test_plt(const char *bin, bool demangle)
{
	HWS_OPTS(hws_symbols_opts, o, .no_demangle = !demangle);
	struct hws_symbols *syms = hws_symbols__new(&o);
	char cmd[600], line[600], want[1100];
	struct hws_symbol sym;
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn %s | grep -E '^[0-9a-f]+ <.*@plt>:'", bin);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		uint64_t a;
		char name[512];

		if (sscanf(line, "%" SCNx64 " <%511[^>]>", &a, name) != 2)
			continue;
		snprintf(want, sizeof(want), "%s", name);
		if (demangle) {
			char filt[600];
			FILE *g;

			*strstr(name, "@plt") = 0;
			snprintf(filt, sizeof(filt), "c++filt -p '%s'", name);
			g = popen(filt, "r");
			if (!g || !fgets(want, sizeof(want) - 8, g))
				want[0] = 0;
			if (g)
				pclose(g);
			strcpy(want + strcspn(want, "\n"), "@plt");
		}
		hws_symbols__resolve_file(syms, bin, a, false, &sym);
		T_EQ_STR(bin, sym.name, want);
		T_EQ_U64("offset 0", sym.offset, 0);
		hws_symbols__resolve_file(syms, bin, a + 5, false, &sym);
		T_EQ_STR("inside the entry", sym.name, want);
		T_EQ_U64("offset 5", sym.offset, 5);
		n++;
	}
	if (f)
		pclose(f);
	hws_symbols__delete(syms);
	return n;
}

/* per group: the symbols at one address (".weak"/".globl"/local, sized or not), the winner */
static const char alias_asm[] =
    "	.text\n"
    /* not weak over weak (local beats weak) */
    "	.weak w1\n	.type w1,@function\n	.size w1,16\n"
    "	.type l1,@function\n	.size l1,16\n"
    "w1:\nl1:\n	.skip 16\n"
    "	.type l1b,@function\n	.size l1b,16\n"
    "	.weak w1b\n	.type w1b,@function\n	.size w1b,16\n"
    "l1b:\nw1b:\n	.skip 16\n"
    /* global over local, whatever the underscores */
    "	.type g2l,@function\n	.size g2l,16\n"
    "	.globl ___g2\n	.type ___g2,@function\n	.size ___g2,16\n"
    "g2l:\n___g2:\n	.skip 16\n"
    /* fewer leading underscores (libc's ____strtoll_l_internal / __GI_____strtoll_l_internal) */
    "	.type ____x3,@function\n	.size ____x3,16\n"
    "	.type __GI_____x3,@function\n	.size __GI_____x3,16\n"
    "____x3:\n__GI_____x3:\n	.skip 16\n"
    /* the longer name */
    "	.type y4long,@function\n	.size y4long,16\n"
    "	.type y4,@function\n	.size y4,16\n"
    "y4long:\ny4:\n	.skip 16\n"
    /* sized over size 0 (the size-0 one in the middle: perf's fixup_end leaves it 0), even
     * with a longer name */
    "	.type z5s,@function\n	.size z5s,16\n"
    "	.type z5_unsized_long,@function\n"
    "	.type z5c,@function\n	.size z5c,16\n"
    "z5s:\nz5_unsized_long:\nz5c:\n	.skip 16\n"
    /* a global size-0 one listed last (symbol tables list locals first) is sized by perf's
     * fixup_end, and global wins */
    "	.globl z6\n	.type z6,@function\n"
    "	.type z6s,@function\n	.size z6s,16\n"
    "z6:\nz6s:\n	.skip 16\n"
    /* not a SyS alias */
    "	.type SyS_foo,@function\n	.size SyS_foo,16\n"
    "	.type sys_foo,@function\n	.size sys_foo,16\n"
    "SyS_foo:\nsys_foo:\n	.skip 16\n"
    /* size 0: the last of the address reaches the next one, as after perf's
     * symbols__fixup_end() (kallsyms' memmove / __memmove) */
    "	.type t8,@function\n"
    "	.type __t8,@function\n"
    "t8:\n__t8:\n	.skip 16\n"
    /* a full tie: the first one */
    "	.type t7a,@function\n	.size t7a,16\n"
    "	.type t7b,@function\n	.size t7b,16\n"
    "t7a:\nt7b:\n	.skip 16\n";

static void test_aliases(void)
{
	static const char *const winners[] = {"l1",  "l1b", "___g2",   "__GI_____x3", "y4long",
					      "z5s", "z6",  "sys_foo", "__t8",	      "t7a"};
	struct hws_symbols *syms;
	char src[300], so[300], cmd[1000];
	struct hws_symbol sym;
	FILE *f;

	snprintf(src, sizeof(src), "%s/alias.s", dir);
	snprintf(so, sizeof(so), "%s/alias.so", dir);
	f = fopen(src, "w");
	fputs(alias_asm, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gcc -shared -nostdlib -o %s %s 2>/dev/null", so, src);
	if (tests_shell(cmd)) {
		printf("note: alias object not built (gcc -shared -nostdlib)\n");
		return;
	}
	HWS_OPTS(hws_symbols_opts, o, .no_demangle = true);
	syms = hws_symbols__new(&o);
	for (size_t i = 0; i < sizeof(winners) / sizeof(winners[0]); i++) {
		char line[200];
		uint64_t a = 0;
		FILE *p;

		snprintf(cmd, sizeof(cmd), "nm %s | awk '$3 == \"%s\" {print $1}'", so, winners[i]);
		p = popen(cmd, "r");
		if (p && fgets(line, sizeof(line), p))
			a = strtoull(line, NULL, 16);
		if (p)
			pclose(p);
		__T("alias address found", a != 0);
		hws_symbols__resolve_file(syms, so, a + 4, false, &sym);
		T_EQ_STR("alias chosen as perf does", sym.name, winners[i]);
	}
	hws_symbols__delete(syms);
}

int main(void)
{
	char src[300], bin[300], cmd[1600];
	const char *variants[][2] = {
	    {"lazy", "-no-pie -fno-pie"},
	    {"pie", "-fPIE -pie"},
	    {"ibt", "-fcf-protection -Wl,-z,ibtplt -Wl,-z,now"},
	    {"plt_got", "-fPIE -pie -Wl,-z,now"},
	};
	FILE *f;

	test_rust();
	if (!mkdtemp(dir))
		TEST_SKIP("mkdtemp failed");
	test_aliases();
	snprintf(src, sizeof(src), "%s/prog.cc", dir);
	f = fopen(src, "w");
	fputs(cxx_src, f);
	fclose(f);
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		snprintf(bin, sizeof(bin), "%s/prog_%s", dir, variants[i][0]);
		snprintf(cmd, sizeof(cmd), "g++ -g -O1 %s -o %s %s 2>/dev/null", variants[i][1],
			 bin, src);
		if (tests_shell(cmd)) {
			if (!i)
				TEST_SKIP("no C++ compiler (g++)");
			printf("note: %s variant not built here\n", variants[i][0]);
			continue;
		}
		if (!i) {
			FILE *p = popen("g++ -print-file-name=libstdc++.so", "r");
			char lib[400] = "";

			if (p && fgets(lib, sizeof(lib), p))
				lib[strcspn(lib, "\n")] = 0;
			if (p)
				pclose(p);
			test_cxx(lib);
			test_cxx_resolve(bin);
		}
		int n = test_plt(bin, false);
		printf("%s: %d PLT entries checked\n", variants[i][0], n);
		__T("PLT entries found", n >= 2);
		T_EQ_U64("demangled PLT entries", test_plt(bin, true), n);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	tests_shell(cmd);
	TEST_END();
}
