/* SPDX-License-Identifier: MIT */
/*
 * Split DWARF: the split unit of a skeleton unit, in a .dwo file or in the
 * binary's .dwp package, found through the caller's psym_dwo_finder and
 * opened on the first decode of a skeleton that needs it, once per file.
 */
#ifndef PSYM_DWARF_SPLIT_H
#define PSYM_DWARF_SPLIT_H

#include "internal.h"

/* The split state of d, when it has skeleton units and a finder; 0 or ENOMEM. */
int dw_split_init(struct psym_dwarf *d, struct psym_err *e);
void dw_split_free(struct split *s);

/*
 * Decode the function tree of skeleton c: from its split unit when found
 * (with the skeleton's address base, low_pc and ranges base), else from the
 * skeleton itself (lines and symbol names only), with the reason kept.
 * Safe on several threads for different CUs.
 */
int dw_split_decode(struct psym_dwarf *d, struct cu *c, struct psym_err *e);

#endif
