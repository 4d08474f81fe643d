/* SPDX-License-Identifier: MIT */
/*
 * Test helper: write this process's vDSO image to FILE and print
 * "BASE LIMIT" (hex) of its mapping, then wait until stdin closes so the
 * caller can read /proc/PID/maps.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

int main(int argc, char **argv)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	uint64_t start = 0, limit = 0;
	char line[512];
	FILE *f, *out;

	if (argc != 2 || !base)
		return 2;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &limit) == 2)
			break;
	fclose(f);
	if (start != base || limit <= start)
		return 1;
	out = fopen(argv[1], "wb");
	if (!out || fwrite((void *)(uintptr_t)start, 1, limit - start, out) != limit - start)
		return 1;
	fclose(out);
	printf("%" PRIx64 " %" PRIx64 "\n", start, limit);
	return 0;
}
