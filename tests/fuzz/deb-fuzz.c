/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: .deb (ar + data.tar.{xz,zst,gz}) walk, nothing written;
 * each file's path goes through the kernel-module member matching
 * (debkmod.h), and each line of the input through the cache index's
 * module-line parser.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deb.h"
#include "debkmod.h"

static int count_cb(void *ud, const char *path, uint64_t size, const unsigned char *data,
		    size_t len)
{
	static const struct psym_deb_kmod wants[] = {
		{ "pmod", "6.1.0-test", NULL },
		{ "nf-tables", NULL, "0123456789abcdef" },
	};
	char rel[256];
	const char *base;

	(void)size;
	(void)data;
	*(size_t *)ud += len;
	if (!data && psym_debkmod_member(path, rel, sizeof(rel), &base))
		for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
			*(size_t *)ud += psym_debkmod_matches(&wants[i], rel, base);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_deb_limits lim = { .max_bytes = 1 << 24, .max_files = 1000 };
	struct psym_err e = { 0 };
	size_t total = 0, off;
	char *text = malloc(size + 1);

	psym_deb_parse_mem(data, size, "fuzz.deb", &lim, count_cb, &total, &e);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *line = text, *nl; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		total += psym_debkmod_parse(line, &off);
	}
	free(text);
	return (int)(total & 0);
}
