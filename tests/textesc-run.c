/* SPDX-License-Identifier: MIT */
/*
 * textesc-run: for every line of standard input (bytes in hex, no NUL),
 * print two lines: the JSON string psym_json_string writes of those bytes,
 * and the text escape psym_text_write writes (both textesc.h). tests/
 * textesc.sh checks them against Python's own decoder and escape rule.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textesc.h"

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int main(void)
{
	char *line = NULL, *buf;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, stdin)) >= 0) {
		size_t n = 0;

		buf = malloc((size_t)len / 2 + 1);
		if (!buf)
			return 3;
		for (ssize_t i = 0; i + 1 < len; i += 2) {
			int h = hexval(line[i]), l = hexval(line[i + 1]);

			if (h < 0 || l < 0)
				break;
			buf[n++] = (char)(h << 4 | l);
		}
		buf[n] = '\0';
		psym_json_string(stdout, buf);
		putchar('\n');
		psym_text_write(stdout, buf, n);
		putchar('\n');
		free(buf);
	}
	free(line);
	return ferror(stdout) ? 3 : 0;
}
