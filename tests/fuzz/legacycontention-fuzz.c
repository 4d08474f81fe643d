/* SPDX-License-Identifier: MIT */
/* Fuzz target: the legacy contention profile reader. */
#include "legacy-fuzz.h"

static const uint8_t head[] = "--- contentionz 1 ---\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_legacy(head, sizeof(head) - 1, data, size);
}
