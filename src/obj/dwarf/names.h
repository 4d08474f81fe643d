/* SPDX-License-Identifier: MIT */
/*
 * Names and decl_line of functions through DW_AT_abstract_origin and
 * DW_AT_specification chains (bounded hops), resolved on lookup and cached
 * by DIE offset.
 */
#ifndef PSYM_DWARF_NAMES_H
#define PSYM_DWARF_NAMES_H

#include "internal.h"

/* Fill en's missing names from what it refers to (once). */
void dw_entry_names(struct psym_dwarf *d, struct entry *en);

#endif
