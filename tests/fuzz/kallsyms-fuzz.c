/* SPDX-License-Identifier: MIT */
/* Fuzz target: kallsyms copies (plain, zstd or gzip; checked by SHA-256; full or
 * subset), lookups, the subset writer. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_kallsyms *k = NULL;
	struct psym_err e = { 0 };
	struct psym_frame f;

	/* Compressed copies: inflated under a 16 MiB cap, checked against a hash. */
	if (!psym_kallsyms_parse_blob(data, size, "fuzz", NULL, 0, (size_t)16 << 20, &k, &e))
		psym_kallsyms_free(k);
	k = NULL;
	if (!psym_kallsyms_parse_blob(
		    data, size, "fuzz",
		    "0000000000000000000000000000000000000000000000000000000000000000", 0,
		    (size_t)16 << 20, &k, &e))
		psym_kallsyms_free(k);
	k = NULL;
	if (psym_kallsyms_parse((const char *)data, size, "fuzz", &k, &e))
		return 0;
	psym_kallsyms_lookup(k, psym_kallsyms_text_addr(k), &f);
	psym_kallsyms_lookup(k, 0xffffffff81000100ULL, &f);
	psym_kallsyms_lookup(k, UINT64_MAX, &f);
	/* The subset writer on whatever parsed (a subset too): it reads back. */
	{
		uint64_t a[] = { psym_kallsyms_text_addr(k), 0xffffffff81000100ULL, UINT64_MAX };
		char *text = NULL;
		size_t len = 0;

		if (!psym_kallsyms_subset(k, a, 3, &text, &len, &e))
			free(text);
	}
	psym_kallsyms_free(k);
	return 0;
}
