/* SPDX-License-Identifier: MIT */
/*
 * rx-match PATTERNS SUBJECTS: for every pattern (one a line) print "I error"
 * when psym_rx_compile refuses it, else "I J 0|1" for every subject J (one
 * a line; a byte 0x01 stands for a newline), whether it matches. tests/rx.sh
 * prints the same lines from Go's regexp and compares.
 * rx-match -e PATTERN: print the error message (or "ok") and the program size.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rx.h"

static char **read_lines(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	char **v = NULL, *line = NULL;
	size_t cap = 0;
	ssize_t len;

	*n = 0;
	if (!f)
		return NULL;
	while ((len = getline(&line, &cap, f)) >= 0) {
		char **nv = realloc(v, (*n + 1) * sizeof(*v));

		if (!nv)
			exit(3);
		v = nv;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		for (ssize_t i = 0; i < len; i++)
			if (line[i] == 1)
				line[i] = '\n';
		v[(*n)++] = line;
		line = NULL;
		cap = 0;
	}
	free(line);
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	char **pat, **sub;
	size_t np, ns;

	if (argc == 3 && !strcmp(argv[1], "-e")) {
		struct psym_rx *rx;
		struct psym_err e = { 0 };

		if (psym_rx_compile(argv[2], &rx, &e)) {
			printf("%s\n", e.msg);
			return 1;
		}
		printf("ok %zu\n", psym_rx_prog_size(rx));
		psym_rx_free(rx);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: rx-match PATTERNS SUBJECTS | rx-match -e PATTERN\n");
		return 2;
	}
	pat = read_lines(argv[1], &np);
	sub = read_lines(argv[2], &ns);
	if (!pat || !sub) {
		fprintf(stderr, "rx-match: cannot read the lists\n");
		return 2;
	}
	for (size_t i = 0; i < np; i++) {
		struct psym_rx *rx;
		struct psym_err e = { 0 };

		if (psym_rx_compile(pat[i], &rx, &e)) {
			printf("%zu error %s\n", i, e.msg);
			continue;
		}
		for (size_t j = 0; j < ns; j++)
			printf("%zu %zu %d\n", i, j, psym_rx_match(rx, sub[j], strlen(sub[j])));
		psym_rx_free(rx);
	}
	for (size_t i = 0; i < np; i++)
		free(pat[i]);
	for (size_t j = 0; j < ns; j++)
		free(sub[j]);
	free(pat);
	free(sub);
	return 0;
}
