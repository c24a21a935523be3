// SPDX-License-Identifier: MIT
/*
 * core/symbols/inline.c (hws_symbols__inlines(), over the DIE walk hws_dwarf__walk_scopes())
 * against binutils: a program with known inlining (always_inline functions nested two levels,
 * inl_inner in inl_middle in inl_outer, one unit, -O2 -g, PIE) is compiled at run time and
 * mapped into a process table. For every byte address of inl_outer and main, `addr2line -i -f`
 * (which perf runs for its inline stacks) gives the chain from DWARF independently; the
 * library's chain must have the same length, the same names in the same order (innermost
 * first), and the same file (base name) and line for each entry (the address's own line for
 * the first, the call site in the next function for the others). Also: the nesting is found
 * (inl_inner, inl_middle, inl_outer at some address, flagged inlined, inlined, not inlined,
 * call lines those of the source's calls), answers are cached, addresses outside any
 * function or mapping give 0.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <hwsample/symbols.h>

#include "tests.h"
#include "tests_tools.h"

#define PID  4242
#define BASE 0x555555554000ULL /* where the PIE is mapped: its address v is at BASE + v */

static char dir[] = "/tmp/hws-test-symbols-inline-XXXXXX";

static const char prog_src[] =
    "static volatile int sink;\n"
    "static inline __attribute__((always_inline)) int inl_inner(int x)\n"
    "{\n"
    "	sink += x * 3;\n"
    "	return sink ^ x;\n"
    "}\n"
    "static inline __attribute__((always_inline)) int inl_middle(int x)\n"
    "{\n"
    "	int a = inl_inner(x + 1); /* call A */\n"
    "	sink += a;\n"
    "	return a + inl_inner(x * 5); /* call B */\n"
    "}\n"
    "__attribute__((noinline)) int inl_outer(int x)\n"
    "{\n"
    "	int r = inl_middle(x); /* call C */\n"
    "	sink -= r;\n"
    "	return r;\n"
    "}\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "	(void)argv;\n"
    "	return inl_outer(argc) & 1;\n"
    "}\n";

/* one assembler function under three names: GNU as (2.35+) gives each a DW_TAG_subprogram of
 * the same range, as glibc's syscall stubs have (__munmap, __GI___munmap, munmap, ...) */
static const char alias_src[] = "	.text\n"
				"	.globl asm_alias_a, asm_alias_b, asm_alias_c\n"
				"	.type asm_alias_a, @function\n"
				"	.type asm_alias_b, @function\n"
				"	.type asm_alias_c, @function\n"
				"asm_alias_a:\n"
				"asm_alias_b:\n"
				"asm_alias_c:\n"
				"	nop\n"
				"	xorl %eax, %eax\n"
				"	ret\n"
				"	.size asm_alias_a, .-asm_alias_a\n"
				"	.size asm_alias_b, .-asm_alias_b\n"
				"	.size asm_alias_c, .-asm_alias_c\n"
				"	.section .note.GNU-stack,\"\",@progbits\n";

/* the source line (1-based) holding @mark */
static uint32_t line_of(const char *mark)
{
	const char *p = strstr(prog_src, mark);
	uint32_t n = 1;

	for (const char *q = prog_src; p && q < p; q++)
		n += *q == '\n';
	return p ? n : 0;
}

/* start and size of function @name (nm -S) */
static bool nm_func(const char *bin, const char *want, uint64_t *start, uint64_t *size)
{
	char cmd[512], line[512];
	bool ok = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", bin);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, sz;
		char type, name[256];

		if (sscanf(line, "%llx %llx %c %255s", &a, &sz, &type, name) == 4 &&
		    !strcmp(name, want) && sz) {
			*start = a;
			*size = sz;
			ok = true;
		}
	}
	if (f)
		pclose(f);
	return ok;
}

struct a2l_ent {
	char name[128], file[256];
	uint32_t line;
};

struct a2l {
	uint64_t addr;
	int n;
	struct a2l_ent e[8];
};

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

/*
 * addr2line -i -f -a for @n addresses from @start: out[i] gets address start + i's entries.
 * Return: the number of blocks read.
 */
static int addr2line(const char *bin, uint64_t start, int n, struct a2l *out)
{
	char path[600], cmd[1400], line[1024];
	struct a2l *cur = NULL;
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/addrs", dir);
	f = fopen(path, "w");
	if (!f)
		return 0;
	for (int i = 0; i < n; i++)
		fprintf(f, "0x%" PRIx64 "\n", start + (uint64_t)i);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "addr2line -i -f -a -e %s < %s", bin, path);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "0x", 2)) {
			if (got == n)
				break;
			cur = &out[got++];
			memset(cur, 0, sizeof(*cur));
			cur->addr = strtoull(line, NULL, 16);
			continue;
		}
		if (!cur || cur->n == 8)
			continue;
		/* function name, then "file:line" (maybe " (discriminator N)") */
		struct a2l_ent *e = &cur->e[cur->n];
		char *c;

		snprintf(e->name, sizeof(e->name), "%s", line);
		if (!fgets(line, sizeof(line), f))
			break;
		line[strcspn(line, "\n")] = 0;
		if ((c = strstr(line, " (discriminator")))
			*c = 0;
		c = strrchr(line, ':');
		if (c) {
			*c = 0;
			e->line = (uint32_t)strtoul(c + 1, NULL, 10); /* "?" -> 0 */
		}
		snprintf(e->file, sizeof(e->file), "%s", line);
		cur->n++;
	}
	if (f)
		pclose(f);
	return got;
}

struct stats {
	int addrs, inl3, inl_any;
};

/* every address of function @fn against addr2line; @aliased: the function has other names,
 * and its own entry is flagged inlined when DWARF's name is not the ELF symbol's (as perf) */
static void check_function(struct hws_symbols *syms, const char *bin, const char *fn, bool aliased,
			   struct stats *st)
{
	uint32_t call_a = line_of("/* call A */"), call_b = line_of("/* call B */");
	uint32_t call_c = line_of("/* call C */");
	uint64_t start = 0, size = 0;
	struct a2l *want;
	int n;

	__T("nm finds the function", nm_func(bin, fn, &start, &size));
	if (!size)
		return;
	want = calloc(size, sizeof(*want));
	if (!want)
		exit(1);
	n = addr2line(bin, start, (int)size, want);
	T_EQ_U64("addr2line answers every address", n, size);
	for (int i = 0; i < n; i++) {
		const struct hws_inline_frame *fr;
		uint64_t a = start + (uint64_t)i;
		int m = hws_symbols__inlines(syms, PID, BASE + a, &fr);
		char what[128];
		bool bad = m != want[i].n;

		T_EQ_U64("addr2line's address", want[i].addr, a);
		for (int k = 0; !bad && k < m; k++) {
			const struct a2l_ent *e = &want[i].e[k];
			const char *f = strcmp(e->file, "??") ? e->file : NULL;

			bad = strcmp(fr[k].name, e->name) || fr[k].line != e->line ||
			      (f == NULL) != (fr[k].srcfile == NULL) ||
			      (f && strcmp(base_name(f), base_name(fr[k].srcfile))) ||
			      (fr[k].inlined != (k + 1 < m) && !(aliased && k + 1 == m));
		}
		snprintf(what, sizeof(what), "%s+0x%x: chain as addr2line -i -f", fn, i);
		__T(what, !bad);
		if (bad) {
			fprintf(stderr, "  addr2line (%d):", want[i].n);
			for (int k = 0; k < want[i].n; k++)
				fprintf(stderr, " %s %s:%u;", want[i].e[k].name,
					base_name(want[i].e[k].file), want[i].e[k].line);
			fprintf(stderr, "\n  hwsample (%d):", m);
			for (int k = 0; k < m; k++)
				fprintf(stderr, " %s%s %s:%u;", fr[k].name,
					fr[k].inlined ? " (inlined)" : "",
					fr[k].srcfile ? base_name(fr[k].srcfile) : "??",
					fr[k].line);
			fprintf(stderr, "\n");
		}
		st->addrs++;
		st->inl_any += m > 1;
		if (m == 3 && !strcmp(fr[0].name, "inl_inner") &&
		    !strcmp(fr[1].name, "inl_middle") && !strcmp(fr[2].name, "inl_outer")) {
			st->inl3++;
			__T("inl_inner's call site is call A or B",
			    fr[1].line == call_a || fr[1].line == call_b);
			T_EQ_U64("inl_middle's call site is call C", fr[2].line, call_c);
			T_EQ_STR("call sites in the program's file", base_name(fr[1].srcfile),
				 "inl.c");
			__T("inlined, inlined, the ELF symbol",
			    fr[0].inlined && fr[1].inlined && !fr[2].inlined);
		}
	}
	free(want);
}

int main(void)
{
	char cmd[1800], src[600], asrc[600], bin[600];
	struct hws_symbols *syms;
	const struct hws_inline_frame *fr, *again;
	struct stats st = {0};
	uint64_t start = 0, size = 0;
	FILE *f;
	int n;

	tests_need_cc_binutils();
	if (!mkdtemp(dir))
		TEST_SKIP("mkdtemp failed");
	snprintf(src, sizeof(src), "%s/inl.c", dir);
	snprintf(bin, sizeof(bin), "%s/inl", dir);
	f = fopen(src, "w");
	if (!f || fputs(prog_src, f) < 0 || fclose(f))
		TEST_SKIP("cannot write the test program");
	snprintf(asrc, sizeof(asrc), "%s/alias.S", dir);
	f = fopen(asrc, "w");
	if (!f || fputs(alias_src, f) < 0 || fclose(f))
		TEST_SKIP("cannot write the test program");
	snprintf(cmd, sizeof(cmd), "cc -O2 -g -fPIE -pie -o %s %s %s 2>/dev/null", bin, src, asrc);
	if (tests_shell(cmd))
		TEST_SKIP("cannot compile the test program");

	syms = hws_symbols__new(NULL);
	__T("symbols", syms != NULL);
	if (!syms)
		return 1;
	/* the whole file from offset 0: file address v at BASE + v (first LOAD at 0) */
	__T("comm", !hws_symbols__comm(syms, PID, PID, "inl", false));
	__T("mmap", !hws_symbols__mmap(syms, PID, BASE, 1ULL << 24, 0, bin));

	check_function(syms, bin, "inl_outer", false, &st);
	check_function(syms, bin, "main", false, &st);
	/* the names of an assembler function: binutils' (perf 6.1's) of them, the last DIE */
	snprintf(cmd, sizeof(cmd),
		 "readelf --debug-dump=info %s 2>/dev/null | grep -q 'DW_AT_name.*asm_alias_c'",
		 bin);
	if (tests_shell(cmd)) {
		printf(
		    "note: this assembler gives the aliases no DWARF subprograms: not checked\n");
	} else {
		const struct hws_inline_frame *af;

		__T("nm asm_alias_a", nm_func(bin, "asm_alias_a", &start, &size));
		T_EQ_U64("one entry at an aliased function",
			 hws_symbols__inlines(syms, PID, BASE + start + 1, &af), 1);
		check_function(syms, bin, "asm_alias_a", true, &st);
	}
	printf("%d addresses checked, %d with an inline chain, %d inl_inner in inl_middle in "
	       "inl_outer\n",
	       st.addrs, st.inl_any, st.inl3);
	__T("addresses checked", st.addrs > 8);
	__T("the two-level nesting is found (inl_inner, inl_middle, inl_outer)", st.inl3 > 0);

	/* cached: the same answer, the same entries */
	__T("nm inl_outer", nm_func(bin, "inl_outer", &start, &size));
	n = 0;
	for (uint64_t a = start; a < start + size && n < 2; a++) {
		n = hws_symbols__inlines(syms, PID, BASE + a, &fr);
		if (n > 1) {
			T_EQ_U64("same count again",
				 hws_symbols__inlines(syms, PID, BASE + a, &again), n);
			__T("same entries again (cached)", again == fr);
		}
	}
	__T("an inlined address in inl_outer", n > 1);

	/* nothing there: the ELF header (no symbol), another process, an unmapped address */
	T_EQ_U64("file header: none", hws_symbols__inlines(syms, PID, BASE, &fr), 0);
	__T("and no entries", fr == NULL);
	T_EQ_U64("other pid: none", hws_symbols__inlines(syms, PID + 1, BASE + start, &fr), 0);
	T_EQ_U64("unmapped: none", hws_symbols__inlines(syms, PID, 0x1000, &fr), 0);
	hws_symbols__delete(syms);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	tests_shell(cmd);
	TEST_END();
}
