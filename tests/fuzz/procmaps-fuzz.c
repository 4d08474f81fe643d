/* SPDX-License-Identifier: MIT */
/* Fuzz target: /proc/PID/maps text. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_procmap *maps = NULL;
	struct psym_err e = { 0 };
	size_t n = 0;

	if (psym_procmaps_parse((const char *)data, size, &maps, &n, &e) == 0)
		free(maps);
	return 0;
}
