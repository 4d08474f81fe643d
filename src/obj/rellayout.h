/* SPDX-License-Identifier: MIT */
/*
 * The addresses psym gives the sections of a relocatable object (ET_REL:
 * .o files, kernel modules), which have none of their own. Below elffile.c
 * (which lays a file out as it opens it) and elfreloc.c (which relocates
 * its debug sections to those addresses): it reads only libelf.
 */
#ifndef PSYM_RELLAYOUT_H
#define PSYM_RELLAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/*
 * Where the layout of an ET_REL file starts. Not 0: the DWARF reader
 * takes code at address 0 for code a linker discarded, and an address
 * psym takes or prints for an object is an offset in its section anyway
 * (psym_elf_section_addr).
 */
#define PSYM_REL_BASE ((uint64_t)1 << 24)

/*
 * The layout of an ET_REL file (libelf handle elf,
 * nsections sections): *secaddr (malloc'd, nsections entries) gets each
 * allocated section's address, sh_addr where the file has one, else laid
 * out in section order at its alignment from PSYM_REL_BASE; 0 for the
 * others.
 */
int psym_elf_rel_layout(void *elf, const char *path, size_t nsections, uint64_t **secaddr,
			struct psym_err *e);

#endif
