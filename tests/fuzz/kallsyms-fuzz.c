/* SPDX-License-Identifier: MIT */
/* Fuzz target: kallsyms copies (plain, zstd or gzip; checked by SHA-256), lookups. */
#include "config.h"

#include <stdint.h>

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
	psym_kallsyms_free(k);
	return 0;
}
