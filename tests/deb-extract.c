/* SPDX-License-Identifier: MIT */
/*
 * Test driver: deb-extract DEB CACHE [BUILD-ID...] -> prints the extracted
 * debug root. Without build IDs every debug file is extracted; "-" alone
 * wants none. --limit-bytes=N before DEB sets the byte cap.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deb.h"

int main(int argc, char **argv)
{
	struct psym_err e = { 0 };
	char *root = NULL;
	int ret;

	struct psym_deb_limits lim = { 0 };
	int a = 1;

	if (argc > 1 && strncmp(argv[1], "--limit-bytes=", 14) == 0) {
		lim.max_bytes = strtoull(argv[1] + 14, NULL, 10);
		a++;
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: deb-extract [--limit-bytes=N] DEB CACHE [BUILD-ID...]\n");
		return 2;
	}
	if (argc - a == 3 && strcmp(argv[a + 2], "-") == 0)
		ret = psym_deb_extract_debug(argv[a], argv[a + 1], &lim, (const char *const *)argv,
					     0, &root, &e);
	else
		ret = psym_deb_extract_debug(argv[a], argv[a + 1], &lim,
					     argc - a > 2 ? (const char *const *)argv + a + 2
							  : NULL,
					     (size_t)(argc - a - 2), &root, &e);
	if (ret) {
		fprintf(stderr, "deb-extract: %s\n", e.msg);
		return psym_exit_code(ret);
	}
	printf("%s\n", root);
	free(root);
	return 0;
}
