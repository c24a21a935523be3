// SPDX-License-Identifier: MIT
/* PLT demo workload: calls strlen() through the PLT argv[1] times (default 20M; built with
 * -fno-builtin so the calls stay calls), for the PLT naming test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	const char *volatile s = "";
	size_t t = 0;

	for (long i = 0; i < n; i++)
		t += strlen(s);
	printf("plt_calls: %zu\n", t);
	return 0;
}
