// SPDX-License-Identifier: MIT
/*
 * Fuzz target: core/symbols/datatype.c (data types of accesses) on arbitrary files: damaged
 * ELF headers, DWARF (types, locations, frame bases, member chains) and instruction bytes.
 * Every lookup ends in a type or in "unknown"; any crash, sanitizer report or hang is a bug.
 *
 * Input (little-endian u64s, then bytes):
 *   pc      the instruction's ELF address
 *   daddr   the data address as the file sees it (0: none)
 *   file    the rest: the ELF file (written to a memfd, read through /proc/self/fd)
 * The PC's neighbours (pc + 1 ... pc + 15) are looked up too, through the same cache, and
 * each PC also as an allocation site (hws_datatypes__alloc, daddr as the block offset).
 * Seed corpus: tests/fuzz/corpus/datatype/, the types_truth workload at its touching
 * instructions, and damaged copies (tests/fuzz/make_datatype_corpus.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hwsample/datatype.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink; /* the strings are read (ASan: still valid) */

static uint64_t u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void use(const struct hws_datatype *t)
{
	struct hws_strbuf sb = HWS_STRBUF_INIT;

	if (t->name)
		sink += strlen(t->name);
	if (t->field)
		sink += strlen(t->field);
	hws_datatype__format(t, true, &sb);
	hws_datatype__json(t, &sb);
	sink += sb.len;
	hws_strbuf__release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hws_datatypes *dt;
	struct hws_datatype t;
	uint64_t pc, daddr;
	char path[64];
	int fd;

	if (size < 16)
		return 0;
	pc = u64(data);
	daddr = u64(data + 8);
	fd = memfd_create("fuzz_datatype", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data + 16, size - 16) != (ssize_t)(size - 16)) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dt = hws_datatypes__new();
	for (uint64_t i = 0; dt && i < 16; i++) {
		if (hws_datatypes__find(dt, path, pc + i, i ? 0 : daddr, &t) > 0 && !t.name)
			__builtin_trap(); /* found: it has a name */
		use(&t);
		/* the same PC as an allocator's return address, daddr as the block offset */
		if (hws_datatypes__alloc(dt, path, pc + i, daddr, &t) > 0 && !t.name)
			__builtin_trap();
		use(&t);
	}
	/* the cache answers the same */
	if (dt && hws_datatypes__find(dt, path, pc, daddr, &t) >= 0)
		use(&t);
	hws_datatypes__delete(dt);
	close(fd);
	return 0;
}
