/* SPDX-License-Identifier: MIT */
/*
 * The lifecycle of a psym_dwarf: open (sections, unit index) and close.
 * Split DWARF is set up above it (psym_dwarf_open calls dw_split_init),
 * and torn down through d->free_split, so that this file calls nothing
 * above it: alt.c and split.c use it, it uses neither.
 */
#ifndef PSYM_DWARF_LIFECYCLE_H
#define PSYM_DWARF_LIFECYCLE_H

#include "internal.h"

/*
 * psym_dwarf_open without split DWARF: the sections and the unit index;
 * need_code: PSYM_NOENT (or a corrupt-DWARF error) when no unit has code
 * (false for an alternate file, whose units have none).
 */
int dw_open(const struct psym_elf *elf, const struct psym_dwarf_opts *o, bool need_code,
	    struct psym_dwarf **out, struct psym_err *e);

#endif
