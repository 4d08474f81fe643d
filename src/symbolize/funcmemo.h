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
 * Only frames whose strings live as long as their object is open (until
 * psym_funcmemo_next_object names another opening) may be used as keys.
 */
#ifndef PSYM_FUNCMEMO_H
#define PSYM_FUNCMEMO_H

#include <stdint.h>

#include "frame.h"

struct psym_funcmemo;
struct psym_builder;

/* NULL when out of memory (callers then go without). */
struct psym_funcmemo *psym_funcmemo_new(void);
void psym_funcmemo_free(struct psym_funcmemo *m);

/*
 * The frames of object obj come next. obj names one opening of one
 * object (psym_regentry_serial): an object closed for the open cap leaves
 * its strings' addresses to the next one opened, whose frames would
 * otherwise find the closed one's functions. The table keeps every
 * object's functions under its obj (two mappings of one open object share
 * them); what is remembered by the address of one string, or from the
 * last lookup, is forgotten.
 */
void psym_funcmemo_next_object(struct psym_funcmemo *m, uint64_t obj);

/*
 * The id remembered for f's strings and start line, 0 when none. depth:
 * f's place in its lookup counted from the outermost frame: neighbouring
 * addresses (looked up in address order) mostly share their outer
 * functions, found from the last lookup's frame at that depth before the
 * table (a cache miss).
 */
uint64_t psym_funcmemo_get(struct psym_funcmemo *m, const struct psym_frame *f, size_t depth);

/* Remember id (nonzero) for f at depth. Out of memory only forgets: returns nothing. */
void psym_funcmemo_put(struct psym_funcmemo *m, const struct psym_frame *f, size_t depth,
		       uint64_t id);

/*
 * psym_builder_str(b, s) for a string of the current object's (stable
 * frames only), remembered by its address: a new function's file and
 * linkage name are mostly strings seen before, found again without
 * measuring, hashing and comparing them once more. m may be NULL.
 */
int64_t psym_funcmemo_str(struct psym_funcmemo *m, struct psym_builder *b, const char *s);

#endif
