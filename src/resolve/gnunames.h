/* SPDX-License-Identifier: MIT */
/*
 * Function names as GNU addr2line 2.40 prints them (psym addr
 * --compat=addr2line), including the part that depends on the addresses
 * asked before: binutils names the innermost function of an address by
 * its linkage name when it has one (in C, Fortran and other unmangled
 * languages its DW_AT_name counts as one). One without is named, the
 * first time it is the innermost, after the symbol holding the address,
 * and keeps that symbol's name for good when the symbol starts where the
 * function starts; from then on it is named by its DW_AT_name. Callers of
 * inlined calls are named by what the function holds at that point.
 */
#ifndef PSYM_GNUNAMES_H
#define PSYM_GNUNAMES_H

#include <stddef.h>
#include <stdint.h>

#include "dwarfsym.h"
#include "elffile.h"
#include "frame.h"

struct psym_gnu_names;

/* An empty memory (NULL when out of memory: names are then as on a first query). */
struct psym_gnu_names *psym_gnu_names_new(void);
void psym_gnu_names_free(struct psym_gnu_names *g);

/*
 * Name the n frames f (innermost first) of vaddr, of which dg says what
 * binutils knows (psym_dwarf_gnu_frames; bias: elf's addresses less the
 * DWARF's), as GNU addr2line names them now, and remember what it would. Names are borrowed from elf and the DWARF.
 */
void psym_gnu_names_apply(struct psym_gnu_names *g, struct psym_elf *elf, uint64_t vaddr,
			  uint64_t bias, struct psym_frame *f, size_t n,
			  const struct psym_dwarf_gnu *dg);

#endif
