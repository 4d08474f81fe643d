/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <libiberty/demangle.h>
#include <string.h>

#include "demangle.h"

char *psym_demangle(const char *name)
{
	if (!name || name[0] != '_')
		return NULL;
	/* _Z: Itanium C++ and Rust legacy; _R: Rust v0. */
	if (name[1] != 'Z' && name[1] != 'R')
		return NULL;
	if (strlen(name) > 1 << 16)
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
