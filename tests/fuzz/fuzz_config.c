// SPDX-License-Identifier: MIT
/*
 * Fuzz target: run configuration files (core/record/config.c, libinih under it) on arbitrary
 * bytes. The input is a memfd loaded through its /proc/self/fd path, as a config file is
 * loaded; then every section and item is looked up again. Any crash, sanitizer report, hang
 * or unbounded allocation is a bug; an error must come with a message.
 * Seed corpus: tests/fuzz/corpus/config/ (made by tests/fuzz/make_config_corpus.sh from cfg/
 * and the cases of tests/e2e/record_config_limits.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hwsample/config.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hws_config *cfg;
	char path[64], err[512] = "";
	int fd = memfd_create("fuzz.conf", MFD_CLOEXEC), ret;

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	cfg = hws_config__new();
	if (cfg) {
		ret = hws_config__load(cfg, path, err, sizeof(err));
		if (ret && !err[0])
			abort(); /* an error without a message */
		for (int i = 0; i < cfg->nr_sections; i++) {
			const struct hws_config_section *s = &cfg->sections[i];

			if (hws_config__section(cfg, s->name) != s)
				abort();
			for (int k = 0; k < s->nr_items; k++)
				if (!hws_config__get(cfg, s->name, s->items[k].key))
					abort();
		}
		hws_config__delete(cfg);
	}
	close(fd);
	return 0;
}
