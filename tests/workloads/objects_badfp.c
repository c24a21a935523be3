// SPDX-License-Identifier: MIT
/*
 * objects_badfp: allocations whose caller's frame-pointer register holds no frame, as code
 * built without frame pointers may leave any value in %rbp: the --objects recorder walks
 * saved frame pointers from the allocator and must stop at each of these, not crash (the
 * stack's end minus 16, wrapping past zero, was taken for an address inside the stack).
 * malloc and calloc of 2 KiB (recorded at the default threshold) with %rbp set to each
 * value, then "ok N" (N allocations made and freed). Other architectures: plain calls.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__x86_64__)
/* @fn(@a, @b) with %rbp = @fp, on a 16-byte aligned stack below the red zone */
__attribute__((noinline)) static void *call_fp(void *fn, uintptr_t a, uintptr_t b, uintptr_t fp)
{
	void *p;

	__asm__ volatile("mov %%rsp, %%rax\n\t"
			 "sub $128, %%rsp\n\t"
			 "and $-16, %%rsp\n\t"
			 "push %%rax\n\t"
			 "push %%rbp\n\t"
			 "mov %[fp], %%rbp\n\t"
			 "call *%[fn]\n\t"
			 "pop %%rbp\n\t"
			 "pop %%rsp"
			 : "=a"(p), "+D"(a), "+S"(b), [fn] "+r"(fn), [fp] "+r"(fp)
			 :
			 : "rcx", "rdx", "r8", "r9", "r10", "r11", "memory", "cc", "xmm0", "xmm1",
			   "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
			   "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	return p;
}
#else
__attribute__((noinline)) static void *call_fp(void *fn, uintptr_t a, uintptr_t b, uintptr_t fp)
{
	(void)fp;
	return fn == (void *)malloc ? malloc(a) : calloc(a, b);
}
#endif

int main(void)
{
	const uintptr_t fps[] = {
	    UINTPTR_MAX - 15, /* + 16 wraps to 0 */
	    UINTPTR_MAX - 7,
	    UINTPTR_MAX & ~(uintptr_t)4095,
	    1,
	    (uintptr_t)&fps + 3, /* inside the stack, misaligned */
	    0,
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(fps) / sizeof(fps[0]); i++) {
		void *p = call_fp((void *)malloc, 2048, 0, fps[i]);
		void *q = call_fp((void *)calloc, 2, 1024, fps[i]);

		n += (p != NULL) + (q != NULL);
		free(p);
		free(q);
	}
	printf("ok %d\n", n);
	return 0;
}
