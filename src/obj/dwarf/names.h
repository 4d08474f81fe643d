/* SPDX-License-Identifier: MIT */
/*
 * Names, decl_line and decl_file of functions through DW_AT_abstract_origin
 * and DW_AT_specification chains (bounded hops), resolved on lookup and
 * cached by DIE offset.
 */
#ifndef PSYM_DWARF_NAMES_H
#define PSYM_DWARF_NAMES_H

#include "internal.h"

/*
 * Fill en's missing names and its decl file from what it refers to (once).
 * en is an entry of unit fc of d; c is the unit whose file table fc's file
 * indexes name (fc itself, or the skeleton of a split unit).
 */
void dw_entry_names(struct psym_dwarf *d, struct entry *en, const struct cu *fc,
		    const struct cu *c);

#endif
