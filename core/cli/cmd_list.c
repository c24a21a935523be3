// SPDX-License-Identifier: MIT
/*
 * hwsample list: every backend, whether it is usable here and why not, the PMUs it serves
 * that this machine (or $HWS_SYSFS_ROOT) has, and its controls with ranges and defaults.
 *
 * "Why not usable" comes in three kinds: no PMU (the backend's detect() says which hardware
 * or firmware is missing), kernel too old (the driver appeared in a later kernel than the
 * one running, or $HWS_KERNEL_VERSION), and permission: what perf_event_open() answers for
 * this user, tried with a software event on this process (user space, then with the kernel,
 * then CPU-wide), never guessed from kernel.perf_event_paranoid (what a level allows differs
 * between kernels: Debian's 3 refuses users everything, upstream treats 3 as 2).
 *
 * Hidden machine-readable modes for the bash completion (one word a line, no headers):
 *   hwsample list --names            backends, the PMUs this machine has, and "auto"
 *   hwsample list --controls NAME    controls of a backend or PMU, as "key="
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "cli.h"

static const char list_usage[] =
    "usage: hwsample list [--backend NAME]\n"
    "       hwsample list --names | --controls NAME   (one word a line, for scripts)\n"
    "\n"
    "Shows every backend, whether it can record on this machine and why not,\n"
    "the PMUs it serves and the controls they take (KEY=VALUE on the record line).\n"
    "Set HWS_SYSFS_ROOT to read PMUs from a fake sysfs tree.\n"
    "\n"
    "Examples:\n"
    "  hwsample list\n"
    "  hwsample list --backend amd_ibs\n"
    "  hwsample list --controls ibs_op\n"
    "  HWS_SYSFS_ROOT=tests/sysfs/amd-zen4 hwsample list   (what a Zen 4 would show)\n";

/* Kernel that introduced each backend's driver (for "kernel too old"). */
static const struct {
	const char *backend;
	unsigned int a, b;
	const char *what;
} min_kernel[] = {
    {"sw", 2, 6, "perf_event_open"},
    {"amd_ibs", 3, 2, "the perf IBS driver"},
    {"intel_pebs", 3, 10, "PEBS load latency (mem-loads)"},
    {"arm_spe", 4, 15, "the arm_spe_pmu driver"},
};

/* CAP_SYS_ADMIN (21) or CAP_PERFMON (38) in the effective set, or root. */
static bool privileged(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long eff = 0;

	if (geteuid() == 0)
		return true;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff >> 21 & 1) || (eff >> 38 & 1);
}

/* perf_event_open() of a cpu-clock sampling event as perf record would open it: this
 * process (@pid 0, any CPU) or CPU-wide (@pid -1 on the CPU we run on), with or without the
 * kernel. 0 or -errno; nothing stays open. */
static int try_open(pid_t pid, bool kernel)
{
	struct hws_perf_event_attr a = {
	    .size = sizeof(a),
	    .type = PERF_TYPE_SOFTWARE,
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .sample_period = 1000000,
	    .disabled = 1,
	    .exclude_kernel = !kernel,
	    .exclude_hv = 1,
	};
	int cpu = pid < 0 ? sched_getcpu() : -1;
	int fd = (int)syscall(SYS_perf_event_open, &a, pid, pid < 0 && cpu < 0 ? 0 : cpu, -1,
			      PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

struct perm {
	int user;   /* own process, user space: 0 or -errno */
	int kernel; /* own process, with the kernel */
	int cpu;    /* CPU-wide (-a/-C), user space */
};

static void perm_words(const struct perm *p, char *buf, size_t len)
{
	if (p->user)
		snprintf(buf, len, "refused (%s)", strerror(-p->user));
	else if (!p->kernel && !p->cpu)
		snprintf(buf, len, "every mode allowed");
	else
		snprintf(buf, len, "own processes, %s%s",
			 p->kernel ? "user space only" : "user and kernel",
			 p->cpu ? " (no -a/-C)" : ", -a/-C allowed");
}

static void print_controls(struct hws_backend *b, const char *pmu)
{
	struct hws_control_info ci[64];
	int n;

	if (!b->ops->controls)
		return;
	n = b->ops->controls(b->priv, pmu, ci, 64);
	if (n <= 0) {
		printf("      (no controls)\n");
		return;
	}
	for (int i = 0; i < n && i < 64; i++)
		printf("      %-20s %" PRIu64 "..%" PRIu64 " (default %" PRIu64 ")  %s\n",
		       hws_cli__text(ci[i].name), ci[i].min, ci[i].max, ci[i].def, ci[i].help);
	if (n > 64)
		printf("      ... %d more\n", n - 64);
}

static void print_names(struct hws_registry *reg)
{
	printf("auto\n");
	for (int i = 0; i < hws_registry__count(reg); i++) {
		struct hws_backend *b = hws_registry__at(reg, i);
		printf("%s\n", b->ops->name);
		for (const char *const *p = b->ops->pmus; p && *p; p++) {
			char names[16][HWS_PMU_NAME_MAX];
			int n = hws_pmu__list(*p, names, 16);
			size_t l = strlen(*p);
			bool prefix = l && (*p)[l - 1] == '_';

			if (!prefix && strcmp(*p, b->ops->name)) {
				/* a PMU name -b accepts even where it is absent */
				printf("%s\n", hws_cli__text(*p));
				continue;
			}
			for (int k = 0; k < n && k < 16; k++)
				if (strcmp(names[k], b->ops->name))
					printf("%s\n", hws_cli__text(names[k]));
		}
	}
}

static int print_control_words(struct hws_registry *reg, const char *name)
{
	struct hws_backend *b = hws_registry__find(reg, name);
	struct hws_control_info ci[64];
	int n;

	if (!b)
		return HWS_EXIT_USAGE;
	if (!b->ops->controls)
		return 0;
	n = b->ops->controls(b->priv, strcmp(name, b->ops->name) ? name : NULL, ci, 64);
	for (int i = 0; i < n && i < 64; i++)
		printf("%s=\n", hws_cli__text(ci[i].name));
	return 0;
}

int cmd_list(struct hws_cli *cli, int argc, char **argv)
{
	struct hws_registry *reg;
	const char *only = NULL, *controls_of = NULL;
	bool want_names = false;
	char kbuf[128], pw[128];
	struct perm perm;
	uint32_t kver;
	int paranoid;
	bool priv;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(list_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--names")) {
			want_names = true;
		} else if (!strcmp(argv[i], "--controls") && i + 1 < argc) {
			controls_of = argv[++i];
		} else {
			fprintf(stderr, "hwsample list: unknown argument '%s'\n",
				hws_cli__text(argv[i]));
			return HWS_EXIT_USAGE;
		}
	}
	reg = hws_cli__registry(cli);
	if (!reg)
		return HWS_EXIT_ERROR;
	if (want_names) {
		print_names(reg);
		return 0;
	}
	if (controls_of)
		return print_control_words(reg, controls_of);

	kver = hws_cli__kernel_version(kbuf, sizeof(kbuf));
	paranoid = hws_cli__sysctl_int("perf_event_paranoid", 2);
	priv = privileged();
	perm.user = try_open(0, false);
	perm.kernel = perm.user ? perm.user : try_open(0, true);
	perm.cpu = perm.user ? perm.user : try_open(-1, false);
	perm_words(&perm, pw, sizeof(pw));
	printf("kernel %s, perf_event_paranoid %d, %s, perf_event_open tried: %s\n", kbuf, paranoid,
	       priv ? "privileged (root or CAP_PERFMON)" : "unprivileged", pw);
	if (only && !hws_registry__find(reg, only)) {
		fprintf(stderr, "hwsample list: no backend or PMU named '%s'\n",
			hws_cli__text(only));
		return HWS_EXIT_USAGE;
	}
	for (int i = 0; i < hws_registry__count(reg); i++) {
		struct hws_backend *b = hws_registry__at(reg, i);
		char why[512] = "", status[96];
		int score;

		if (only && !hws_backend__serves(b, only))
			continue;
		score = b->ops->detect(b->priv, why, sizeof(why));
		snprintf(status, sizeof(status), "%s", score > 0 ? "usable" : "not usable: no PMU");
		for (size_t k = 0; k < sizeof(min_kernel) / sizeof(min_kernel[0]); k++) {
			if (strcmp(min_kernel[k].backend, b->ops->name) ||
			    kver >= HWS_KERNEL_VERSION(min_kernel[k].a, min_kernel[k].b, 0))
				continue;
			snprintf(status, sizeof(status), "not usable: kernel too old");
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "%s%s needs Linux %u.%u or later (this is %s)", *why ? "; " : "",
				 min_kernel[k].what, min_kernel[k].a, min_kernel[k].b, kbuf);
			score = 0;
		}
		if (score > 0 && (perm.user == -EACCES || perm.user == -EPERM)) {
			snprintf(status, sizeof(status), "not usable: permission");
			if (paranoid >= 3 && !priv)
				snprintf(
				    why + strlen(why), sizeof(why) - strlen(why),
				    "%sperf_event_open refused this user (%s; "
				    "kernel.perf_event_paranoid is %d): run as root, give "
				    "hwsample CAP_PERFMON, or sysctl kernel.perf_event_paranoid=2",
				    *why ? "; " : "", strerror(-perm.user), paranoid);
			else
				snprintf(
				    why + strlen(why), sizeof(why) - strlen(why),
				    "%sperf_event_open refused this user (%s) although "
				    "kernel.perf_event_paranoid %d allows it: a seccomp filter "
				    "(container) or a security module refuses perf_event_open",
				    *why ? "; " : "", strerror(-perm.user), paranoid);
		} else if (score > 0 && perm.user) {
			snprintf(status, sizeof(status), "not usable: perf_event_open");
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "%sperf_event_open failed here (%s)%s", *why ? "; " : "",
				 strerror(-perm.user),
				 perm.user == -ENOSYS ? ": this kernel has no perf events "
							"(CONFIG_PERF_EVENTS)"
						      : "");
		}
		printf("%-12s %-26s %s\n", b->ops->name, status,
		       b->ops->description ? b->ops->description : "");
		if (*why)
			printf("    %s\n", hws_cli__text(why));
		if (cli->verbose)
			printf("    plugin: %s\n", hws_cli__text(b->path));
		for (const char *const *p = b->ops->pmus; p && *p; p++) {
			char names[16][HWS_PMU_NAME_MAX];
			int n = hws_pmu__list(*p, names, 16);
			size_t l = strlen(*p);
			bool prefix = l && (*p)[l - 1] == '_';

			for (int k = 0; k < n && k < 16; k++) {
				if (!prefix && strcmp(names[k], *p))
					continue;
				printf("    pmu %s\n", hws_cli__text(names[k]));
				print_controls(b, names[k]);
			}
		}
	}
	return 0;
}
