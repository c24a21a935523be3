// SPDX-License-Identifier: MIT
/*
 * Replays a libFuzzer corpus through LLVMFuzzerTestOneInput without libFuzzer, so every
 * fuzz target's corpus runs in the normal (and sanitizer) ctest builds. Arguments are
 * files or directories (read one level deep). Exit 0 when every input ran.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int runs = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: no such corpus\n", argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			DIR *d = opendir(argv[i]);
			struct dirent *de;
			char path[4096];
			while (d && (de = readdir(d))) {
				if (de->d_name[0] == '.')
					continue;
				snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
				if (run_file(path) == 0)
					runs++;
			}
			if (d)
				closedir(d);
		} else if (run_file(argv[i]) == 0) {
			runs++;
		}
	}
	printf("replayed %d inputs\n", runs);
	return runs > 0 ? 0 : 1;
}
