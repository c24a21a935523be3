// SPDX-License-Identifier: MIT
/*
 * The kallsyms line reader's short cut (SWAR hex digits and name end) against the plain
 * reader: the same answer (accepted or not, address, type, name, name end) for real lines
 * of this machine's /proc/kallsyms (when readable) and for 400k generated lines: 0-20 digits
 * of either case, stray bytes in the digits, every type letter, names with tabs, spaces,
 * control and high bytes, module tags, and ends cut anywhere (short buffers take the plain
 * path, so cuts near the fast path's limit matter most).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/symbols/ksyms_line.h"
#include "tests.h"

static int mismatches;

static void same(char *p, char *end, const char *what)
{
	uint64_t a1 = 1, a2 = 2;
	char t1 = 1, t2 = 2, *n1 = NULL, *n2 = NULL, *e1 = NULL, *e2 = NULL;
	bool r1 = ksyms_line(p, end, &a1, &t1, &n1, &e1);
	bool r2 = ksyms_line_slow(p, end, &a2, &t2, &n2, &e2);

	/* the outputs are only defined when the line is taken; the name end also when the
	 * name is empty (both then say false after the same scan) */
	if (r1 != r2 || (r1 && (a1 != a2 || t1 != t2 || n1 != n2 || e1 != e2))) {
		if (mismatches++ < 10)
			fprintf(stderr, "%s: fast %d %llx %c / slow %d %llx %c: '%.*s'\n", what, r1,
				(unsigned long long)a1, t1, r2, (unsigned long long)a2, t2,
				(int)(end - p > 60 ? 60 : end - p), p);
	}
}

static void real_lines(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	int n = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n < 200000) {
		size_t l = strlen(line);
		char buf[600];

		memset(buf, 0, sizeof(buf));
		memcpy(buf, line, l);
		same(buf, buf + l, "real line");
		same(buf, buf + (l > 1 ? l - 1 : l), "real line, no newline");
		n++;
	}
	fclose(f);
	__T("real lines read (or no kallsyms here)", n > 0 || !fopen("/proc/kallsyms", "r"));
}

static void generated_lines(void)
{
	static const char hex[] = "0123456789abcdefABCDEF";
	static const char types[] = "tTwWdDbBrRaAuUvV?x ";
	uint64_t st = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 400000; i++) {
		char buf[128];
		size_t n = 0, nd = tests_xorshift64(&st) % 21, nn;
		uint64_t r = tests_xorshift64(&st);

		memset(buf, 0, sizeof(buf));
		for (size_t k = 0; k < nd; k++)
			buf[n++] = (r & 3) ? hex[tests_xorshift64(&st) % 16]
					   : hex[tests_xorshift64(&st) % (sizeof(hex) - 1)];
		if (nd && !(tests_xorshift64(&st) % 16)) /* a stray byte among the digits */
			buf[tests_xorshift64(&st) % nd] = (char)(tests_xorshift64(&st) % 256);
		buf[n++] = (tests_xorshift64(&st) % 32) ? ' ' : 'x';
		buf[n++] = types[tests_xorshift64(&st) % (sizeof(types) - 1)];
		buf[n++] = (tests_xorshift64(&st) % 32) ? ' ' : '\t';
		nn = tests_xorshift64(&st) % 40;
		for (size_t k = 0; k < nn && n < 100; k++) {
			uint64_t c = tests_xorshift64(&st) % 100;

			buf[n++] = c < 80   ? (char)('a' + c % 26)
				   : c < 85 ? '_'
				   : c < 90 ? (char)(0x80 + c)
				   : c < 93 ? '\t'
				   : c < 95 ? ' '
				   : c < 97 ? (char)(c % 32)
					    : '.';
		}
		if (tests_xorshift64(&st) % 4 == 0 && n < 110) {
			memcpy(buf + n, "\t[mod]", 6);
			n += 6;
		}
		buf[n++] = '\n';
		same(buf, buf + n, "generated");
		/* every cut of the buffer's end */
		same(buf, buf + tests_xorshift64(&st) % (n + 1), "cut");
	}
}

int main(void)
{
	real_lines();
	generated_lines();
	T_EQ_U64("fast and plain readers disagree", mismatches, 0);
	TEST_END();
}
