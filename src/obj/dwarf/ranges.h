/* SPDX-License-Identifier: MIT */
/*
 * Address ranges of a DIE: DW_AT_low_pc/high_pc, DW_AT_ranges in DWARF 2-4
 * .debug_ranges and DWARF 5 .debug_rnglists (also through rnglistx).
 */
#ifndef PSYM_DWARF_RANGES_H
#define PSYM_DWARF_RANGES_H

#include "die.h"
#include "internal.h"

struct rangebuf {
	struct erange *r;
	size_t n, cap;
};

/*
 * Append the ranges of a DIE: low_pc/high_pc, or DW_AT_ranges (DWARF 2-4
 * .debug_ranges from base `base`, DWARF 5 .debug_rnglists). Returns the
 * number appended, or -1 when out of memory.
 */
int dw_die_ranges(const struct psym_dwarf *d, const struct cu *u, const struct die *x,
		  uint64_t base, struct rangebuf *b);

#endif
