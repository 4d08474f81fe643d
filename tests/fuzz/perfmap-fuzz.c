/* SPDX-License-Identifier: MIT */
/* Fuzz target: perf map text and jitdump records (first byte picks), lookups. */
#include "config.h"

#include <stdint.h>

#include "perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_perfmap_limits lim = { .max_entries = 1 << 16, .max_name_bytes = 1 << 20 };
	struct psym_perfmap *m = NULL;
	struct psym_err e = { 0 };
	struct psym_frame f;

	if (size < 1 || psym_perfmap_new(&lim, &m, &e))
		return 0;
	if (data[0] & 1)
		psym_perfmap_add_jitdump_mem(m, data + 1, size - 1, "fuzz", &e);
	else
		psym_perfmap_add_text(m, (const char *)data + 1, size - 1, "fuzz", &e);
	for (uint64_t a = 0; a < 0x3000; a += 0x101)
		psym_perfmap_lookup(m, a, &f);
	psym_perfmap_lookup(m, UINT64_MAX, &f);
	psym_perfmap_free(m);
	return 0;
}
