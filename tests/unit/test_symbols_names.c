// SPDX-License-Identifier: MIT
/*
 * core/symbols names as perf shows them: the demangle wrapper (core/symbols/demangle.c) on
 * Rust legacy and v0 names (no Rust compiler needed) and on C++ names of libstdc++ and of a
 * program compiled here, against binutils' c++filt (-p: no parameters, perf's default style;
 * without -p: with them, perf -v); and the PLT symbols synthesized by core/symbols/elf.c against
 * objdump's "<name@plt>" labels, for .plt, .plt.sec (IBT) and .plt.got entries.
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

static int run(const char *cmd)
{
	int rc = system(cmd);

	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

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
	snprintf(src, sizeof(src), "%s/prog.cc", dir);
	f = fopen(src, "w");
	fputs(cxx_src, f);
	fclose(f);
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		snprintf(bin, sizeof(bin), "%s/prog_%s", dir, variants[i][0]);
		snprintf(cmd, sizeof(cmd), "g++ -g -O1 %s -o %s %s 2>/dev/null", variants[i][1],
			 bin, src);
		if (run(cmd)) {
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
	run(cmd);
	TEST_END();
}
