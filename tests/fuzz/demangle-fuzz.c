/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: psym_demangle (src/obj/demangle.c), names taken from the
 * files psym reads. The input is a name: as it is, and with "_Z" and
 * "_ZN" in front, so that the nested-name walk that finds an inheriting
 * constructor sees every shape. The answer, when there is one, must be a
 * string, and for a name libiberty cannot demangle there must be none.
 * psym_demangle_as in each of pprof's modes too (its template stripper
 * and pprof's bracket remover run on whatever libiberty answers, and on
 * the raw name): a bounded string, and none in the mode that keeps it.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

static void one(const char *pre, const uint8_t *data, size_t size)
{
	size_t k = strlen(pre);
	char *name = malloc(k + size + 1), *out;

	if (!name)
		return;
	memcpy(name, pre, k);
	memcpy(name + k, data, size);
	name[k + size] = '\0';
	out = psym_demangle(name);
	if (out && strlen(out) > (size_t)1 << 24)
		abort();
	free(out);
	for (int m = PSYM_DEMANGLE_SIMPLE; m <= PSYM_DEMANGLE_CLONES; m++) {
		out = psym_demangle_as(name, (enum psym_demangle_mode)m);
		if (out && strlen(out) > (size_t)1 << 24)
			abort();
		if (m == PSYM_DEMANGLE_NONE && out)
			abort();
		free(out);
	}
	free(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	one("", data, size);
	one("_Z", data, size);
	one("_ZN", data, size);
	return 0;
}
