// SPDX-License-Identifier: MIT
/*
 * hws_symbols__a2l_file() (core/symbols/elf.c) against binutils' addr2line, which perf 6.1
 * runs for its srcline: a program linked from a unit with debug info and one without (a
 * static and a global function, no line table), with crt's _init and a PLT, is compiled at
 * run time. For every byte address from _init to the end of _fini that addr2line gives no
 * line for, addr2line's answer decides: "FILE:?" (it found a function symbol) must be FILE
 * (the unit's name for the static function, "??" for the global one and _init), "??:0" (it
 * found nothing: the PLT, a gap between sections) must be NULL; the padding after a function
 * is still that function's, whatever its size, as addr2line has it. Each of the three
 * answers must be seen; a file without .debug_line gives NULL everywhere (perf does not ask).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <hwsample/symbols.h>

#include "symbols/symbols_core.h"
#include "tests.h"
#include "tests_tools.h"

static char dir[] = "/tmp/hws-test-symbols-a2l-XXXXXX";

static const char dbg_src[] = "#include <string.h>\n"
			      "int nd_global(int x);\n"
			      "int main(int argc, char **argv)\n"
			      "{\n"
			      "	return nd_global(argc) + (int)strlen(argv[0]);\n"
			      "}\n";

static const char nodbg_src[] = "static __attribute__((noinline)) int nd_local(int x)\n"
				"{\n"
				"	int s = 0;\n"
				"	for (int i = 0; i < x * 1000; i++)\n"
				"		s += i ^ x;\n"
				"	return s;\n"
				"}\n"
				"int nd_global(int x)\n"
				"{\n"
				"	return nd_local(x) + 1;\n"
				"}\n";

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fputs(text, f) >= 0;

	if (f)
		ok = !fclose(f) && ok;
	return ok;
}

/* addr2line -f -a over [lo, hi) of @bin compared with hws_symbols__a2l_file(); the counts of
 * answers seen: seen[0] a unit's name, seen[1] "??", seen[2] nothing */
static void compare(struct hws_symbols *syms, const char *bin, uint64_t lo, uint64_t hi,
		    int seen[3], bool nolines)
{
	char cmd[1200], l1[512], l2[512], l3[1024];
	int checked = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "i=%" PRIu64 "; while [ $i -lt %" PRIu64 " ]; do printf '%%x\\n' $i; "
		 "i=$((i+1)); done | addr2line -f -a -e %s",
		 lo, hi, bin);
	f = popen(cmd, "r");
	while (f && fgets(l1, sizeof(l1), f) && fgets(l2, sizeof(l2), f) &&
	       fgets(l3, sizeof(l3), f)) {
		uint64_t a = strtoull(l1, NULL, 16);
		char *colon, *sp, want[512] = "";
		const char *got = hws_symbols__a2l_file(syms, bin, a);
		char text[700];

		l3[strcspn(l3, "\n")] = 0;
		if ((sp = strstr(l3, " (discriminator")))
			*sp = 0;
		colon = strrchr(l3, ':');
		if (!colon)
			continue;
		*colon = 0;
		if (strcmp(colon + 1, "?") && strcmp(l3, "??"))
			continue; /* a line: the line tables answer, not this */
		if (!strcmp(colon + 1, "?"))
			snprintf(want, sizeof(want), "%s", l3);
		checked++;
		snprintf(text, sizeof(text), "0x%" PRIx64 ": addr2line %s:%s, a2l_file %s", a, l3,
			 colon + 1, got ? got : "(none)");
		if (nolines) {
			__T(text, !got);
			continue;
		}
		if (!want[0]) {
			__T(text, !got);
			seen[2]++;
		} else {
			__T(text, got && !strcmp(got, want));
			seen[strcmp(want, "??") ? 0 : 1]++;
		}
	}
	if (f)
		pclose(f);
	__T("addr2line answered for the addresses", checked > 0);
}

int main(void)
{
	char cmd[2400], dsrc[600], nsrc[600], nobj[600], bin[600], bin_nodbg[600];
	struct hws_symbols *syms;
	uint64_t init, fini;
	int seen[3] = {0}, none[3] = {0};

	tests_need_cc_binutils();
	if (!mkdtemp(dir))
		TEST_SKIP("mkdtemp failed");
	snprintf(dsrc, sizeof(dsrc), "%s/dbg.c", dir);
	snprintf(nsrc, sizeof(nsrc), "%s/nodbg.c", dir);
	snprintf(nobj, sizeof(nobj), "%s/nodbg.o", dir);
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	snprintf(bin_nodbg, sizeof(bin_nodbg), "%s/prog_nodbg", dir);
	if (!write_file(dsrc, dbg_src) || !write_file(nsrc, nodbg_src))
		TEST_SKIP("cannot write the test program");
	snprintf(cmd, sizeof(cmd),
		 "cc -O1 -c -o %s %s && cc -O1 -g -fno-builtin -o %s %s %s && "
		 "cc -O1 -fno-builtin -o %s %s %s",
		 nobj, nsrc, bin, dsrc, nobj, bin_nodbg, dsrc, nobj);
	if (tests_shell(cmd))
		TEST_SKIP("the C compiler failed");

	syms = hws_symbols__new(NULL);
	__T("symbols table", syms);
	if (!syms)
		TEST_END();
	init = tests_nm_addr(bin, "_init");
	fini = tests_nm_addr(bin, "_fini");
	__T("_init and _fini found", init && fini > init);
	if (init && fini > init)
		compare(syms, bin, init, fini + 16, seen, false);
	printf("a unit's name at %d addresses, \"??\" at %d, nothing at %d\n", seen[0], seen[1],
	       seen[2]);
	__T("the static function of the unit without lines named by its unit", seen[0] > 0);
	__T("a global function without lines (and _init) gives \"??\"", seen[1] > 0);
	__T("addresses in no function symbol give nothing", seen[2] > 0);
	T_EQ_STR("nd_local's unit",
		 hws_symbols__a2l_file(syms, bin, tests_nm_addr(bin, "nd_local")), "nodbg.c");
	T_EQ_STR("_init", hws_symbols__a2l_file(syms, bin, init + 1), "??");

	/* no .debug_line: perf never runs addr2line there */
	init = tests_nm_addr(bin_nodbg, "_init");
	fini = tests_nm_addr(bin_nodbg, "_fini");
	if (init && fini > init)
		compare(syms, bin_nodbg, init, fini + 16, none, true);
	__T("a file without line tables: none", !hws_symbols__a2l_file(syms, bin_nodbg, init + 1));
	__T("not a file: none", !hws_symbols__a2l_file(syms, "//anon", 0x1000));
	hws_symbols__delete(syms);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	tests_shell(cmd);
	TEST_END();
}
