/* SPDX-License-Identifier: MIT */
/* Fuzz target: the legacy gperftools CPU profile (binary words after a 64-bit header) reader. */
#include "legacy-fuzz.h"

static const uint8_t head[40] = {
	[8] = 3, [24] = 0x10, [25] = 0x27
}; /* 64-bit LE: 0 3 0 10000 0 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_legacy(head, sizeof(head), data, size);
}
