/* SPDX-License-Identifier: MIT */
/*
 * The line program of a CU (DWARF 2-5 .debug_line): its file table joined
 * into paths once, its rows kept per sequence, sequences sorted by address;
 * finding the row of an address.
 */
#ifndef PSYM_DWARF_LINE_H
#define PSYM_DWARF_LINE_H

#include "internal.h"

/* Decode the line program of u (none without DW_AT_stmt_list). */
int dw_decode_lines(struct psym_dwarf *d, struct cu *u, struct psym_err *e);
/* File name for a DWARF file index (1-based before DWARF 5, 0-based since). */
const char *dw_cu_file(const struct cu *c, uint64_t idx);
/* The discriminator of row r (0: none, or not kept: psym_dwarf_opts). */
uint32_t dw_row_discriminator(const struct cu *c, const struct row *r);
/* The row whose range holds a, NULL when none (or an end of sequence). */
const struct row *dw_find_row(const struct cu *c, uint64_t a);

static inline const char *row_file(const struct cu *c, const struct row *r)
{
	return r->file == UINT16_MAX ? NULL : dw_cu_file(c, r->file);
}

#endif
