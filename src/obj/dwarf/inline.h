/* SPDX-License-Identifier: MIT */
/*
 * One CU's subprogram / inlined-subroutine tree: the DIE walk that builds
 * it, and finding the top-level function and the inlined child at an
 * address.
 */
#ifndef PSYM_DWARF_INLINE_H
#define PSYM_DWARF_INLINE_H

#include "internal.h"

/* Walk the CU's DIEs once; entries, tops and kids of c. */
int dw_decode_dies(struct psym_dwarf *d, struct cu *c, struct psym_err *e);
/* The top-level function whose range holds a, or NONE. */
uint32_t dw_find_top(const struct cu *c, uint64_t a);
/*
 * The child of en whose range holds a, or NONE. Siblings should not
 * overlap; when they do, the first in DIE order wins, as with
 * llvm-symbolizer.
 */
uint32_t dw_find_kid(const struct cu *c, const struct entry *en, uint64_t a);

/*
 * The inlined subroutines without code between entry outer and its
 * descendant inner (dw_find_kid's answer), outermost first, at most max
 * into out; their number.
 */
size_t dw_empty_between(const struct cu *c, uint32_t outer, uint32_t inner, uint32_t *out,
			size_t max);

#endif
