/* SPDX-License-Identifier: MIT */
/* Fuzz target: the GSYM reader (src/obj/gsym.c), opened from memory and looked up. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "gsym.h"

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_frame f[PSYM_MAX_FRAMES];
	struct psym_gsym *g = NULL;
	struct psym_err e = { 0 };
	size_t n;

	if (psym_gsym_open_mem(data, size, "fuzz", &g, &e) != 0)
		return 0;
	for (uint64_t a = 0; a < 0x20000; a += 13)
		if (psym_gsym_lookup(g, a, f, PSYM_MAX_FRAMES, &n, &e) == 0)
			for (size_t i = 0; i < n; i++)
				sink += strlen(f[i].name) + (f[i].file ? strlen(f[i].file) : 0);
	psym_gsym_lookup(g, UINT64_MAX, f, PSYM_MAX_FRAMES, &n, &e);
	psym_gsym_close(g);
	return 0;
}
