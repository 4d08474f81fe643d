/* SPDX-License-Identifier: MIT */
/*
 * dwz's alternate files (.gnu_debugaltlink, DW_FORM_GNU_ref_alt /
 * DW_FORM_GNU_strp_alt) and DWARF 5 supplementary files (.debug_sup,
 * DW_FORM_ref_sup4/8 / DW_FORM_strp_sup): the link's path and build ID, the
 * alternate file's sections as a second psym_dwarf (d->alt), and the
 * targets of DW_TAG_imported_unit in either file.
 *
 * References into the alternate file carry DW_ALT_REF (internal.h); the
 * alternate file's own references stay in it. Its own alternate link, if
 * any, is not followed: one level only.
 */
#ifndef PSYM_DWARF_ALT_H
#define PSYM_DWARF_ALT_H

#include "form.h"
#include "internal.h"

/* The units one CU's walk has imported (each once: cycles end), capped. */
struct imported {
	const struct cu **v;
	size_t n, cap;
};

/* Add u; false when it was there already, or over MAX_IMPORTS (or no memory). */
bool dw_imported_add(struct imported *s, const struct cu *u);
void dw_imported_free(struct imported *s);

/*
 * Read the attributes of a DW_TAG_imported_unit DIE of unit u of src (d
 * or d->alt; a is its abbreviation, c after its code) and return the unit
 * its DW_AT_import names, with the psym_dwarf holding it in *in; NULL
 * when there is none (no alternate file, a reference to no unit's DIE).
 * c->ok false on a bad read.
 */
struct cu *dw_import_target(struct psym_dwarf *d, struct psym_dwarf *src, const struct cu *u,
			    struct cur *c, const struct unitfmt *uf, const struct abbrev *a,
			    struct psym_dwarf **in);

#endif
