// SPDX-License-Identifier: MIT
/*
 * hwsample list: every backend, whether it is usable here and why not, the PMUs it serves
 * that this machine (or $HWS_SYSFS_ROOT) has, and its controls with ranges and defaults.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char list_usage[] =
	"usage: hwsample list [--backend NAME]\n"
	"\n"
	"Shows every backend, whether it can record on this machine and why not,\n"
	"the PMUs it serves and the controls they take (KEY=VALUE on the record line).\n"
	"Set HWS_SYSFS_ROOT to read PMUs from a fake sysfs tree.\n"
	"\n"
	"Examples:\n"
	"  hwsample list\n"
	"  hwsample list --backend amd_ibs\n";

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
		printf("      %-20s %" PRIu64 "..%" PRIu64 " (default %" PRIu64 ")  %s\n", ci[i].name,
		       ci[i].min, ci[i].max, ci[i].def, ci[i].help);
	if (n > 64)
		printf("      ... %d more\n", n - 64);
}

int cmd_list(struct hws_cli *cli, int argc, char **argv)
{
	struct hws_registry *reg;
	const char *only = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(list_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
			only = argv[++i];
		} else {
			fprintf(stderr, "hwsample list: unknown argument '%s'\n", argv[i]);
			return HWS_EXIT_USAGE;
		}
	}
	reg = hws_cli__registry(cli);
	if (!reg)
		return HWS_EXIT_ERROR;
	for (int i = 0; i < hws_registry__count(reg); i++) {
		struct hws_backend *b = hws_registry__at(reg, i);
		char why[512] = "";
		int score;

		if (only && !hws_backend__serves(b, only))
			continue;
		score = b->ops->detect(b->priv, why, sizeof(why));
		printf("%-12s %-10s %s\n", b->ops->name, score > 0 ? "usable" : "not usable",
		       b->ops->description ? b->ops->description : "");
		printf("    %s\n", why);
		if (cli->verbose)
			printf("    plugin: %s\n", b->path);
		for (const char *const *p = b->ops->pmus; p && *p; p++) {
			char names[16][HWS_PMU_NAME_MAX];
			int n = hws_pmu__list(*p, names, 16);
			size_t l = strlen(*p);
			bool prefix = l && (*p)[l - 1] == '_';

			for (int k = 0; k < n && k < 16; k++) {
				if (!prefix && strcmp(names[k], *p))
					continue;
				printf("    pmu %s\n", names[k]);
				print_controls(b, names[k]);
			}
		}
	}
	return 0;
}
