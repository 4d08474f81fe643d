/* SPDX-License-Identifier: MIT */
/*
 * Function ids remembered by the identity of a frame's strings.
 *
 * Resolvers whose strings live as long as the resolver (DWARF, symbol
 * tables, the symbol cache) hand back the same pointers for the same
 * function at every address. Keyed by those pointers and the start line,
 * the symbolizer finds a function's profile id again without demangling
 * or hashing its names once more: with a million addresses in a large C++
 * library, a function is seen hundreds of times for each time it is new.
 * Only frames whose strings outlive the memo may be used as keys.
 */
#ifndef PSYM_FUNCMEMO_H
#define PSYM_FUNCMEMO_H

#include <stdint.h>

#include "frame.h"

struct psym_funcmemo;

/* NULL when out of memory (callers then go without). */
struct psym_funcmemo *psym_funcmemo_new(void);
void psym_funcmemo_free(struct psym_funcmemo *m);

/* The id remembered for f's strings and start line, 0 when none. */
uint64_t psym_funcmemo_get(const struct psym_funcmemo *m, const struct psym_frame *f);

/* Remember id (nonzero) for f. Out of memory only forgets: returns nothing. */
void psym_funcmemo_put(struct psym_funcmemo *m, const struct psym_frame *f, uint64_t id);

#endif
