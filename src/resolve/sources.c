/* SPDX-License-Identifier: MIT */
/* The answer sources beside a binary's DWARF, in the order they are asked (source.h). */
#include "config.h"

#include "source.h"

const struct psym_source_ops *const psym_sources[] = {
	&psym_source_gsym,	/* GSYM files: --gsym, the .build-id trees, the index store */
	&psym_source_gopclntab, /* Go's own table */
	NULL,
};
