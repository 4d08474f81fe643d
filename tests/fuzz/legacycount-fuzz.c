/* SPDX-License-Identifier: MIT */
/* Fuzz target: the legacy Go count profile reader. */
#include "legacy-fuzz.h"

static const uint8_t head[] = "goroutine profile: total 3\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_legacy(head, sizeof(head) - 1, data, size);
}
