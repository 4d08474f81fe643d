/* SPDX-License-Identifier: MIT */
/* Fuzz target: the legacy heap profile (heap_v2, with alloc values) reader. */
#include "legacy-fuzz.h"

static const uint8_t head[] = "heap profile: 1: 2 [ 3: 4] @ heap_v2/524288\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_legacy(head, sizeof(head) - 1, data, size);
}
