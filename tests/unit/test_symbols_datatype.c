// SPDX-License-Identifier: MIT
/*
 * Data types of accesses (core/symbols/datatype.c) on the types_truth workload
 * ($HWS_WORKLOADS/types_truth, -O2 -g): every instruction of each touching function is
 * looked up; the design's type, offset and field (the workload's header) is found there, and
 * nothing else but calls ("(stack operation)", as perf). Instruction
 * boundaries come from capstone here too (a PC inside an instruction decodes as another).
 * Also: unknown
 * files, perf's column formats, the JSON key, the cache.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#if __has_include(<capstone/capstone.h>)
#include <capstone/capstone.h>
#define HAVE_CS 1
#endif

#include <hwsample/datatype.h>

#include "../tests.h"

static const struct {
	const char *fn, *type, *field;
	int64_t off;
	int line;
} cases[] = {
    {"touch_global", "struct pair", "second", 4096, __LINE__},
    {"touch_first", "struct pair", "first", 8, __LINE__},
    {"touch_stack", "struct pair", "second", 4096, __LINE__},
    {"touch_heap", "struct pair", "second", 4096, __LINE__},
    {"touch_param", "struct pair", "second", 4096, __LINE__},
    {"touch_nested", "struct outer", "in.y", 4096 + 4096 - 8, __LINE__},
};

/* the address and size of function @name (a prefix: gcc's .constprop clones) */
static bool func_range(const char *path, const char *name, uint64_t *start, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	bool ok = false;
	Elf *e;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !ok && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize && !ok; i++) {
			GElf_Sym s;
			const char *n;
			size_t l = strlen(name);

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strncmp(n, name, l) && (!n[l] || n[l] == '.') && s.st_size) {
				*start = s.st_value;
				*size = s.st_size;
				ok = true;
			}
		}
	}
	elf_end(e);
	close(fd);
	return ok;
}

/* the address of the instruction after the one at @pc of file @path */
static uint64_t next_insn(const char *path, uint64_t pc)
{
#ifdef HAVE_CS
	static uint8_t *text;
	static uint64_t text_addr, text_size;
	uint64_t size = 0;
	cs_insn *in;
	csh h;

	if (!text) {
		int fd = open(path, O_RDONLY);
		Elf_Scn *scn = NULL;
		Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;

		while (e && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;
			size_t shstr;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || elf_getshdrstrndx(e, &shstr))
				continue;
			n = elf_strptr(e, shstr, sh.sh_name);
			d = n && !strcmp(n, ".text") ? elf_getdata(scn, NULL) : NULL;
			if (d && (text = malloc(d->d_size))) {
				memcpy(text, d->d_buf, d->d_size);
				text_addr = sh.sh_addr;
				text_size = d->d_size;
			}
		}
		elf_end(e);
		if (fd >= 0)
			close(fd);
	}
	if (!text || pc < text_addr || pc >= text_addr + text_size ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return pc + 1;
	if (cs_disasm(h, text + (pc - text_addr), text_addr + text_size - pc, pc, 1, &in) == 1) {
		size = in->size;
		cs_free(in, 1);
	}
	cs_close(&h);
	return pc + (size ? size : 1);
#else
	return pc + 1;
#endif
}

static void fmt(const struct hws_datatype *t, bool off, char *out, size_t len)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;

	hws_datatype__format(t, off, &sb);
	snprintf(out, len, "%s", sb.buf ? sb.buf : "");
	hws_strbuf__release(&sb);
}

int main(void)
{
	const char *w = getenv("HWS_WORKLOADS");
	struct hws_datatypes_stats st;
	struct hws_datatypes *dt;
	struct hws_datatype t;
	struct hws_strbuf sb = HWS_STRBUF_INIT;
	char path[4096], b[256];
	uint64_t lookups, cached;

	if (!hws_datatypes__available()) {
		printf("SKIP: built without capstone\n");
		return 77;
	}
	snprintf(path, sizeof(path), "%s/types_truth", w ? w : ".");
	if (!w || access(path, R_OK)) {
		printf("SKIP: no types_truth workload (HWS_WORKLOADS)\n");
		return 77;
	}
	dt = hws_datatypes__new();
	__T("new", dt);
	if (!dt)
		return 1;

	/* unknown: no such file, not an ELF file, an address outside the code */
	__T("no file", hws_datatypes__find(dt, "/nonexistent/x", 0x1000, 0, &t) == 0 && !t.name);
	__T("not ELF", hws_datatypes__find(dt, "/proc/self/status", 0x1000, 0, &t) == 0);
	__T("outside the code", hws_datatypes__find(dt, path, 0x7fffffff, 0, &t) == 0);
	fmt(&t, false, b, sizeof(b));
	__T("unknown type column: (unknown)", !strcmp(b, "(unknown)"));
	fmt(&t, true, b, sizeof(b));
	__T("unknown typeoff column: (unknown)", !strcmp(b, "(unknown)"));
	__T("unknown: no JSON key", !hws_datatype__json(&t, &sb) && !sb.len);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t start = 0, size = 0;
		int good = 0, other = 0;

		if (!func_range(path, cases[i].fn, &start, &size)) {
			fprintf(stderr, "FAIL line %d: no function %s\n", cases[i].line,
				cases[i].fn);
			tests_failed++;
			continue;
		}
		for (uint64_t pc = start; pc < start + size; pc = next_insn(path, pc)) {
			if (hws_datatypes__find(dt, path, pc, 0, &t) <= 0)
				continue;
			if (!strcmp(t.name, cases[i].type) && t.offset == cases[i].off && t.field &&
			    !strcmp(t.field, cases[i].field)) {
				good++;
			} else if (!t.pseudo) {
				fmt(&t, true, b, sizeof(b));
				fprintf(stderr, "line %d: %s+%#" PRIx64 ": %s\n", cases[i].line,
					cases[i].fn, pc - start, b);
				other++;
			}
		}
		printf("%s: %d instructions of the design, %d others\n", cases[i].fn, good, other);
		__T("the design's type at an instruction", good > 0);
		__T("no other type", other == 0);
	}

	/* perf's formats, the JSON key */
	{
		uint64_t start, size;

		__T("touch_param", func_range(path, "touch_param", &start, &size));
		for (uint64_t pc = start; pc < start + size; pc = next_insn(path, pc))
			if (hws_datatypes__find(dt, path, pc, 0, &t) > 0)
				break;
	}
	fmt(&t, false, b, sizeof(b));
	__T("type column", !strcmp(b, "struct pair"));
	fmt(&t, true, b, sizeof(b));
	__T("typeoff column: perf's format", !strcmp(b, "struct pair +4096 (second)"));
	hws_strbuf__reset(&sb);
	{
		static const char want[] = ",\"type\":{\"name\":\"struct pair\",\"offset\":4096,"
					   "\"size\":8192,\"field\":\"second\"";

		__T("json", !hws_datatype__json(&t, &sb) && sb.buf &&
				!strncmp(sb.buf, want, sizeof(want) - 1) &&
				sb.buf[sb.len - 1] == '}');
	}

	/* a second pass is answered from the cache */
	hws_datatypes__stats(dt, &st);
	lookups = st.lookups;
	cached = st.cached;
	{
		uint64_t start, size;

		if (func_range(path, "touch_nested", &start, &size))
			for (uint64_t pc = start; pc < start + size; pc = next_insn(path, pc))
				hws_datatypes__find(dt, path, pc, 0, &t);
		hws_datatypes__stats(dt, &st);
		T_EQ_U64("second pass: all cached", st.cached - cached, st.lookups - lookups);
	}
	hws_strbuf__release(&sb);
	hws_datatypes__delete(dt);
	hws_datatypes__delete(NULL);
	TEST_END();
}
