/* SPDX-License-Identifier: MIT */
/* Fuzz target: .deb (ar + data.tar.{xz,zst,gz}) walk, nothing written. */
#include "config.h"

#include <stdint.h>

#include "deb.h"

static int count_cb(void *ud, const char *path, uint64_t size, const unsigned char *data,
		    size_t len)
{
	(void)path;
	(void)size;
	(void)data;
	*(size_t *)ud += len;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_deb_limits lim = { .max_bytes = 1 << 24, .max_files = 1000 };
	struct psym_err e = { 0 };
	size_t total = 0;

	psym_deb_parse_mem(data, size, "fuzz.deb", &lim, count_cb, &total, &e);
	return 0;
}
