/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the Java legacy profile readers (src/pprof/legacyjava.c).
 * The first byte picks the header the rest follows: 0 a heapz profile, 1 a
 * contentionz profile (read by the C++ contention reader until its Java
 * attributes), 2 a Java CPU profile (binary header, 32-bit little-endian).
 */
#include "legacy-fuzz.h"

static const uint8_t heapz[] = "--- heapz 1 ---\nformat = java\n";
static const uint8_t contentionz[] = "--- contentionz 1 ---\nformat = java\n";
static const uint8_t cpu[] = { 0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0x10, 0x27, 0, 0, 0, 0, 0, 0 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0: return fuzz_legacy(heapz, sizeof(heapz) - 1, data + 1, size - 1);
	case 1: return fuzz_legacy(contentionz, sizeof(contentionz) - 1, data + 1, size - 1);
	default: return fuzz_legacy(cpu, sizeof(cpu), data + 1, size - 1);
	}
}
