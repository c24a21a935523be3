// SPDX-License-Identifier: MIT
/*
 * deny_perf PROG [ARGS]: run PROG with perf_event_open() failing with EACCES, as a
 * container's seccomp profile makes it fail, whatever the user and perf_event_paranoid.
 * For the permission tests (tests/e2e/permissions.sh): hwsample must report what the
 * kernel answered, not what the sysctl suggests.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	if (argc < 2) {
		fprintf(stderr, "usage: deny_perf PROG [ARGS]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)) {
		perror("deny_perf: seccomp");
		return 77;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
