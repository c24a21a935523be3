// SPDX-License-Identifier: MIT
/*
 * Fuzz target: a JIT's perf map (core/symbols/elf.c, perfmap_load()) from arbitrary bytes.
 * The input is written to /tmp/perf-PID.map for a pid no process here has, an executable
 * anonymous mapping of that pid covers the user half, and addresses are looked up: fixed
 * ones, and each 8-byte word of the input taken as an address. Any crash, sanitizer report,
 * hang or unbounded allocation is a bug; a name found must be inside the file's text.
 * Seed corpus: tests/fuzz/corpus/perfmap/ (good lines, 0x prefixes and overlaps, malformed
 * lines, a last line without a newline).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/filter.h>
#include <hwsample/symbols.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char map_path[64];

static void remove_map(void)
{
	unlink(map_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t fixed[] = {0, 1, 0x1000, 0x7f0000001010, 0x7fffffffffff};
	uint32_t pid = 4100000 + (uint32_t)(getpid() % 90000);
	struct hws_symbols *syms;
	struct hws_symbol sym;
	int fd;

	if (!map_path[0]) {
		snprintf(map_path, sizeof(map_path), "/tmp/perf-%u.map", pid);
		atexit(remove_map);
	}
	fd = open(map_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	syms = hws_symbols__new(NULL);
	if (!syms)
		return 0;
	hws_symbols__mmap_prot(syms, pid, 0x1000, 0x7fffffffe000, 0x1000, HWS_PROT_EXEC, "//anon");
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + size / 8; i++) {
		uint64_t a = fixed[0];

		if (i < sizeof(fixed) / sizeof(fixed[0]))
			a = fixed[i];
		else
			memcpy(&a, data + 8 * (i - sizeof(fixed) / sizeof(fixed[0])), 8);
		if (hws_symbols__resolve(syms, pid, a, false, &sym) > 0 &&
		    (!sym.name || !memmem(data, size, sym.name, strlen(sym.name))))
			abort(); /* a name that is not the file's */
		if (sym.dso && strcmp(hws_dso__short_name(sym.dso), "[unknown]") == 0)
			abort();
	}
	hws_symbols__delete(syms);
	return 0;
}
