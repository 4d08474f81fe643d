/* SPDX-License-Identifier: MIT */
/*
 * Compile units: their headers (DWARF 2-5), the bases of their top DIE
 * (str_offsets, addr, rnglists), the sorted table of their address ranges,
 * and the DIE at a .debug_info offset.
 */
#ifndef PSYM_DWARF_UNIT_H
#define PSYM_DWARF_UNIT_H

#include "die.h"
#include "internal.h"

#define MAX_CU_CANDIDATES 16

/* Read every unit header and top DIE; the CU range table, sorted. */
int dw_index_cus(struct psym_dwarf *d, struct psym_err *e);
void dw_cu_free(struct cu *c);

/* The unit whose DIEs hold the .debug_info offset off, or NULL. */
struct cu *dw_unit_of_offset(struct psym_dwarf *d, uint64_t off);

/* Read the DIE at a .debug_info offset. */
bool dw_die_at(struct psym_dwarf *d, uint64_t off, struct cu **up, struct die *x);

/*
 * The CUs whose ranges hold a, lowest .debug_info offset first (as
 * llvm-symbolizer picks among overlapping CUs). Returns how many (at most
 * MAX_CU_CANDIDATES).
 */
size_t dw_find_cus(const struct psym_dwarf *d, uint64_t a, uint32_t *out);

#endif
