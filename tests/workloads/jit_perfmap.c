// SPDX-License-Identifier: MIT
/*
 * jit_perfmap: code generated at run time, named the way JIT compilers name theirs for perf
 * (Java's perf-map-agent, node --perf-basic-prof, python -X perf, LuaJIT): lines
 * "START SIZE NAME" (hex, hex, the rest of the line) in /tmp/perf-PID.map.
 *
 * Two functions are written into an anonymous executable mapping, 4 KiB apart, each a loop
 * that counts its argument down (x86-64 only); "jit_hot" runs three times as many turns as
 * "jit_warm". A third range is listed but never run. With argv[2] == "nomap" no map file is
 * written (perf then names the mapping /tmp/perf-PID.map and the samples [unknown]).
 *
 *   jit_perfmap [TURNS_MILLIONS [nomap]]   default 200
 *
 * The map file is removed at exit unless HWS_KEEP_PERFMAP is set (readers need it after
 * the run: the tests keep it and remove it themselves).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* loop: sub rdi, 1; jnz loop; mov rax, rdi; ret */
static const uint8_t loop_code[] = {0x48, 0x83, 0xef, 0x01, 0x75, 0xfa, 0x48, 0x89, 0xf8, 0xc3};

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	long turns = (argc > 1 ? atol(argv[1]) : 200) * 1000000L;
	int with_map = !(argc > 2 && !strcmp(argv[2], "nomap"));
	uint8_t *code = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t (*hot)(uint64_t), (*warm)(uint64_t);
	char path[64];
	uint64_t sum;
	FILE *f;

	if (code == MAP_FAILED) {
		perror("jit_perfmap: mmap");
		return 1;
	}
	memcpy(code, loop_code, sizeof(loop_code));
	memcpy(code + 4096, loop_code, sizeof(loop_code));
	hot = (uint64_t(*)(uint64_t))(void *)code;
	warm = (uint64_t(*)(uint64_t))(void *)(code + 4096);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (with_map) {
		f = fopen(path, "w");
		if (!f) {
			perror("jit_perfmap: map file");
			return 1;
		}
		fprintf(f, "%lx %zx jit_hot\n", (unsigned long)(uintptr_t)code, sizeof(loop_code));
		fprintf(f, "%lx %zx LazyCompile:*warm /app/warm.js:12\n",
			(unsigned long)(uintptr_t)(code + 4096), sizeof(loop_code));
		fprintf(f, "%lx 100 jit_never_run\n", (unsigned long)(uintptr_t)(code + 8192));
		fclose(f);
	}
	sum = hot((uint64_t)turns * 3 / 4) + warm((uint64_t)turns / 4);
	printf("jit_perfmap: %d %llu\n", (int)getpid(), (unsigned long long)sum);
	if (with_map && !getenv("HWS_KEEP_PERFMAP"))
		unlink(path);
	return 0;
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "jit_perfmap: x86-64 only\n");
	return 77;
#endif
}
