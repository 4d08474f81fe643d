/* SPDX-License-Identifier: MIT */
/*
 * The attributes of a DIE that the reader uses, read in one pass; strings
 * (inline, .debug_str, .debug_line_str, str_offsets) and .debug_addr
 * entries resolved with the unit's bases.
 */
#ifndef PSYM_DWARF_DIE_H
#define PSYM_DWARF_DIE_H

#include "form.h"
#include "internal.h"

/* A string attribute as found: resolved once the unit's bases are known. */
struct strval {
	uint32_t form;
	uint64_t u;
	const char *p;
};

struct die {
	uint64_t low_pc, high_pc, ranges, origin, spec, sibling, stmt_list;
	uint64_t str_off_base, addr_base, rng_base, dwo_id, gnu_ranges_base;
	uint32_t low_form, high_form, ranges_form;
	struct strval name, linkage, comp_dir, dwo_name;
	uint64_t language;
	int64_t decl_line, decl_file, call_file, call_line, call_column, call_discriminator;
	uint8_t decl_file_state; /* enum decl_file_state */
	bool has_low, has_high, has_ranges, has_stmt, has_str_off_base, has_addr_base, has_rng_base;
	bool has_dwo_id;
};

const char *dw_resolve_str(const struct psym_dwarf *d, const struct cu *u, const struct strval *v);
bool dw_read_addrx(const struct psym_dwarf *d, const struct cu *u, uint64_t idx, uint64_t *out);
/* Read all attributes of a DIE at c (after its code) into *x. */
bool dw_read_die(struct cur *c, const struct cu *u, const struct abbrev *a, struct die *x);

static inline uint64_t ref_abs(const struct cu *u, const struct fval *v, bool *ok)
{
	switch (v->form) {
	case FORM_ref1:
	case FORM_ref2:
	case FORM_ref4:
	case FORM_ref8:
	case FORM_ref_udata: *ok = v->u < u->end - u->off; return u->off + v->u;
	case FORM_ref_addr: *ok = v->u < DW_ALT_REF; return v->u;
	case FORM_GNU_ref_alt:
	case FORM_ref_sup4:
	case FORM_ref_sup8: *ok = v->u < DW_ALT_REF; return v->u | DW_ALT_REF; /* alt.c */
	default:
		*ok = false; /* ref_sig8: not resolvable here */
		return 0;
	}
}

static inline void set_str(struct strval *s, const struct fval *v)
{
	s->form = v->form;
	s->u = v->u;
	s->p = (const char *)v->p;
}

static inline bool const_val(const struct fval *v, int64_t *out)
{
	if (!form_is_const(v->form))
		return false;
	if (v->form == FORM_sdata || v->form == FORM_implicit_const) {
		if ((int64_t)v->u < 0)
			return false;
	}
	*out = (int64_t)v->u;
	return true;
}

#endif
