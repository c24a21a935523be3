// SPDX-License-Identifier: MIT
/*
 * Fuzz target: core/decode/unwind.c on arbitrary registers and stack copies, against the
 * real files of a fixed process: the unwind_chains workload ($HWS_WORKLOADS/unwind_chains,
 * else this program) and the libc this program runs with, mapped at addresses the input
 * chooses. Every frame found is also named (inline names included). Any crash, sanitizer
 * report or hang is a bug; the time per input is bounded by the unwinder's own budget.
 *
 * Input (little-endian u64s, then bytes):
 *   exe_base   where the executable's file offset 0 is mapped (its PT_LOADs follow)
 *   libc_base  the same for libc (0: libc not mapped)
 *   mask       sample_regs_user (perf's x86_64 / arm64 register numbers)
 *   regs[]     one u64 per bit of mask (as many as the input has)
 *   stack      the rest: the stack copy from the sampled sp up (its dyn_size is its length)
 * Seed corpus: tests/fuzz/corpus/unwind/, real samples of the workload
 * (tests/fuzz/make_unwind_corpus.sh).
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwsample/symbols.h>

#include "decode/unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSLOTS 16 /* processes: one per (exe_base, libc_base) pair seen recently */

static struct hws_symbols *syms;
static volatile size_t sink; /* the names are read (ASan: still valid) */
static struct hws_unwinder *uw;
static char exe[4096], libc_path[4096];
static struct {
	uint64_t exe_base, libc_base;
} slots[NSLOTS];

static void find_files(void)
{
	const char *w = getenv("HWS_WORKLOADS");
	char line[4352];
	FILE *f;

	snprintf(exe, sizeof(exe), "%s/unwind_chains", w ? w : "");
	if (!w || access(exe, R_OK)) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = 0;
	}
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "/libc.so")) {
			p[strcspn(p, "\n")] = 0;
			snprintf(libc_path, sizeof(libc_path), "%s", p);
			break;
		}
	}
	if (f)
		fclose(f);
}

/* map @path's PT_LOADs for @pid as the kernel would with file offset 0 at @base */
static void map_file(uint32_t pid, const char *path, uint64_t base)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	size_t n;

	if (fd < 0)
		return;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getphdrnum(e, &n)) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			uint64_t lo, hi;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			lo = ph.p_vaddr & ~0xfffULL;
			hi = (ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL;
			hws_symbols__mmap(syms, pid, base + lo, hi - lo, ph.p_offset & ~0xfffULL,
					  path);
		}
	}
	elf_end(e);
	close(fd);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hws_frame fr[256];
	uint64_t exe_base, libc_base, mask, regs[64];
	unsigned int nr = 0, want;
	uint32_t pid, fl = 0;
	size_t off = 24;
	int n;

	if (!syms) {
		struct hws_unwind_opts o = {.max_procs = 4};
		elf_version(EV_CURRENT);
		find_files();
		syms = hws_symbols__new(NULL);
		uw = syms ? hws_unwinder__new(syms, &o) : NULL;
		if (!uw)
			abort();
	}
	if (size < 24)
		return 0;
	exe_base = get64(data) & ~0xfffULL;
	libc_base = get64(data + 8) & ~0xfffULL;
	mask = get64(data + 16);
	want = (unsigned int)__builtin_popcountll(mask);
	while (nr < want && off + 8 <= size) {
		regs[nr++] = get64(data + off);
		off += 8;
	}
	pid = 1 + (uint32_t)(((exe_base >> 12) ^ (libc_base >> 12) * 31) % NSLOTS);
	if (slots[pid - 1].exe_base != exe_base || slots[pid - 1].libc_base != libc_base) {
		/* a fresh address space: exec */
		hws_symbols__comm(syms, pid, pid, "fuzz", true);
		map_file(pid, exe, exe_base);
		if (libc_base && libc_path[0])
			map_file(pid, libc_path, libc_base);
		slots[pid - 1].exe_base = exe_base;
		slots[pid - 1].libc_base = libc_base;
	}
	n = hws_unwind__user(uw, pid, PERF_SAMPLE_REGS_ABI_64, mask, regs, nr, data + off,
			     size - off, fr, (int)(sizeof(fr) / sizeof(fr[0])), &fl);
	if (getenv("HWS_FUZZ_VERBOSE")) /* how far the seeds get: frames, flags */
		fprintf(stderr, "fuzz_unwind: %d frames, flags %#x\n", n, fl);
	for (int i = 0; i < n; i++) {
		struct hws_inline_info ii;
		if (!hws_unwind__inline(uw, pid, fr[i].ip, fr[i].inline_depth, &ii))
			sink += strlen(ii.name) + (ii.file ? strlen(ii.file) : 0);
	}
	return 0;
}
