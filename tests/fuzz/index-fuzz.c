/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the index reader (src/index/). The input is an index file
 * in memory: opened (header and checksum table checked), looked up at
 * addresses around its own groups and elsewhere, then verified whole. The
 * checksums make random damage fail early; the corpus also holds files
 * with valid checksums over hostile contents (made by tests/index.sh's
 * recipe), which reach the record decoder.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_frame f[PSYM_MAX_FRAMES];
	struct psym_index *x = NULL;
	struct psym_err e = { 0 };
	uint8_t *copy = malloc(size ? size : 1);
	size_t n, groups;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (psym_index_open_owned(copy, size, "fuzz", NULL, NULL, &x, &e) != 0)
		return 0;
	for (uint64_t a = 0; a < 0x3000; a += 3)
		if (psym_index_lookup(x, a, true, f, PSYM_MAX_FRAMES, &n, &e) == 0) {
			if (n > PSYM_MAX_FRAMES)
				abort();
			/* Every string must be inside the input and terminated (ASan). */
			for (size_t i = 0; i < n; i++)
				sink += (f[i].name ? strlen(f[i].name) : 0) +
					(f[i].linkage_name ? strlen(f[i].linkage_name) : 0) +
					(f[i].file ? strlen(f[i].file) : 0);
		}
	for (uint64_t a = 0x400000; a < 0x402000; a += 5)
		psym_index_lookup(x, a, false, f, 4, &n, &e);
	psym_index_lookup(x, UINT64_MAX, true, f, PSYM_MAX_FRAMES, &n, &e);
	psym_index_verify(x, &groups, &e);
	psym_index_close(x);
	return 0;
}
