/* SPDX-License-Identifier: MIT */
/* The answer sources beside a binary's DWARF, in the order they are asked (source.h). */
#include "config.h"

#include <string.h>

#include "source.h"

const struct psym_source_ops *const psym_sources[] = {
	&psym_source_gsym,	/* GSYM files: --gsym, the .build-id trees, the index store */
	&psym_source_gopclntab, /* Go's own table */
	NULL,
};

const struct psym_source_ops *psym_source_by_option(const char *name)
{
	for (size_t i = 0; psym_sources[i]; i++)
		if (psym_sources[i]->option && !strcmp(psym_sources[i]->option, name))
			return psym_sources[i];
	return NULL;
}
