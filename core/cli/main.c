// SPDX-License-Identifier: MIT
/* hwsample command line: placeholder until the record path lands. */
#include <stdio.h>
#include <string.h>

#include <hwsample/registry.h>

int main(int argc, char **argv)
{
	char err[512] = "";
	struct hws_registry *reg = hws_registry__new();
	int n;

#ifdef HWS_STATIC_BACKENDS
	n = hws_registry__add_static(reg, err, sizeof(err));
#else
	n = hws_registry__load_default(reg, NULL, err, sizeof(err));
#endif
	if (n < 0) {
		fprintf(stderr, "hwsample: %s\n", err);
		return 1;
	}
	for (int i = 0; i < hws_registry__count(reg); i++)
		printf("%s\n", hws_registry__at(reg, i)->ops->name);
	hws_registry__delete(reg);
	return 0;
}
