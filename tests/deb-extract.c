/* SPDX-License-Identifier: MIT */
/* Test driver: deb-extract DEB CACHE -> prints the extracted debug root. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "deb.h"

int main(int argc, char **argv)
{
	struct psym_err e = { 0 };
	char *root = NULL;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: deb-extract DEB CACHE\n");
		return 2;
	}
	ret = psym_deb_extract_debug(argv[1], argv[2], NULL, &root, &e);
	if (ret) {
		fprintf(stderr, "deb-extract: %s\n", e.msg);
		return psym_exit_code(ret);
	}
	printf("%s\n", root);
	free(root);
	return 0;
}
