/* SPDX-License-Identifier: MIT */
/*
 * Relocatable objects (ET_REL: .o files, kernel modules): the layout psym
 * gives their sections, and the relocations of their non-allocated
 * sections (.debug_*) applied to a private copy, so that the DWARF reader
 * sees the addresses and section offsets a linker would have written.
 *
 * Relocation types: x86-64 (64, 32, 32S, PC32, PC64, DTPOFF32/64), i386
 * (32, PC32, TLS_LDO_32; SHT_REL), AArch64 (ABS64/32/16, PREL64/32/16,
 * TLS_DTPREL). Others are left as the file has them. The file is
 * untrusted: a relocation outside its section, a symbol index outside the
 * symbol table, more relocations than the section has bytes, a wrong
 * entry size are refused with a message naming the file and the section.
 */
#ifndef PSYM_ELFRELOC_H
#define PSYM_ELFRELOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elffile.h"
#include "error.h"
#include "rellayout.h"

/* True when elf is ET_REL and some relocation section applies to section shndx. */
bool psym_elf_has_relocs(const struct psym_elf *elf, size_t shndx);

/*
 * Apply every relocation of section shndx of elf to buf, the section's
 * contents (decompressed when they were compressed), len bytes, which the
 * caller owns. Symbols take their section's address in elf's layout. 0,
 * or PSYM_EBADELF / PSYM_ENOMEM with e set.
 */
int psym_elf_relocate(const struct psym_elf *elf, size_t shndx, uint8_t *buf, size_t len,
		      struct psym_err *e);

#endif
