/* SPDX-License-Identifier: MIT */
/*
 * Decoding a CU (its line table and its function tree), once.
 */
#ifndef PSYM_DWARF_LOOKUP_H
#define PSYM_DWARF_LOOKUP_H

#include "internal.h"

/*
 * Decode c now (marks it decoded; failed when it cannot be). Safe on
 * several threads for different CUs.
 */
int dw_decode_cu(struct psym_dwarf *d, struct cu *c, struct psym_err *e);

#endif
