/* SPDX-License-Identifier: MIT */
/*
 * The .debug_* (and legacy .zdebug_*) sections of the opened psym_elf.
 * Compressed ones are refused when their headers claim more than the caps
 * (--limit dwarf-section-bytes, --max-memory) and otherwise inflated once
 * through compress.c, .debug_info on a second thread.
 */
#ifndef PSYM_DWARF_SECTIONS_H
#define PSYM_DWARF_SECTIONS_H

#include "internal.h"

/* Find and inflate the sections; PSYM_NOENT when there is no .debug_info. */
int dw_load_sections(struct psym_dwarf *d, struct psym_err *e);
void dw_section_free(struct section *s);

#endif
