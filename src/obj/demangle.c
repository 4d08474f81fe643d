/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <libiberty/demangle.h>
#include <string.h>

#include "demangle.h"

char *psym_demangle(const char *name)
{
	size_t len;
	char *out;

	if (!name || name[0] != '_')
		return NULL;
	/* _Z: Itanium C++ and Rust legacy; _R: Rust v0. */
	if (name[1] != 'Z' && name[1] != 'R')
		return NULL;
	len = strlen(name);
	if (len > 1 << 16)
		return NULL;
	/*
	 * libiberty tries a name as Rust before C++. A legacy Rust name is
	 * _ZN...17h<16 hex digits>E: any other _Z name goes to the C++
	 * demangler at once (the Rust attempt scanned every name for
	 * nothing), and only if that finds nothing is the full search made,
	 * so the answer is the full search's.
	 */
	if (name[1] == 'Z' && !(len > 23 && name[2] == 'N' && name[len - 1] == 'E' &&
				!memcmp(name + len - 20, "17h", 3))) {
		out = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_GNU_V3);
		if (out)
			return out;
	}
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
