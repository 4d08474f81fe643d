/* SPDX-License-Identifier: MIT */
/*
 * Attribute values: the one place that knows every DW_FORM. dw_form_class()
 * says how a form is sized (the abbreviation tables keep it per attribute),
 * read_form() reads a value, skip_sized() skips one by its size class.
 * Inline: they run for every attribute of every DIE walked.
 */
#ifndef PSYM_DWARF_FORM_H
#define PSYM_DWARF_FORM_H

#include "internal.h"

/* What a unit needs to size and read forms. */
struct unitfmt {
	uint16_t version;
	uint8_t addr_size, offsz;
};

/* A value read from a form: a number, or a pointer (string, block) with u = length. */
struct fval {
	uint64_t u;
	const uint8_t *p;
	uint32_t form;
};

/*
 * How a form is sized: a fixed size (>= 0), or SZ_ADDR / SZ_OFF /
 * SZ_REFADDR (the unit's address or offset size), SZ_LEB, SZ_STR, or
 * SZ_VAR (read it to know: blocks, exprloc, indirect, unknown forms).
 */
int dw_form_class(uint32_t form);

/*
 * The fixed part of a size class: bytes (>= 0) with *kind 0, or 0 with
 * *kind 1 (address), 2 (offset), 3 (ref_addr); -1 when variable.
 */
static inline int form_fixed(int cls, int *kind)
{
	*kind = cls == SZ_ADDR ? 1 : cls == SZ_OFF ? 2 : cls == SZ_REFADDR ? 3 : 0;
	return cls >= 0 ? cls : *kind ? 0 : -1;
}

static inline bool form_is_const(uint32_t f)
{
	return f == FORM_data1 || f == FORM_data2 || f == FORM_data4 || f == FORM_data8 ||
	       f == FORM_udata || f == FORM_sdata || f == FORM_implicit_const;
}

static inline bool form_is_addrx(uint32_t f)
{
	return f == FORM_addrx || f == FORM_addrx1 || f == FORM_addrx2 || f == FORM_addrx3 ||
	       f == FORM_addrx4 || f == FORM_GNU_addr_index;
}

/* Read one value; false (and c->ok false) on an unknown form or a bad read. */
static inline bool read_form(struct cur *c, const struct unitfmt *u, uint32_t form,
			     int64_t implicit, struct fval *v)
{
	for (int hops = 0; form == FORM_indirect; hops++) {
		if (hops == 4) {
			cur_fail(c);
			return false;
		}
		form = (uint32_t)rd_uleb(c);
	}
	v->form = form;
	v->p = NULL;
	switch (form) {
	case FORM_addr: v->u = rd_un(c, u->addr_size); break;
	case FORM_data1:
	case FORM_flag:
	case FORM_ref1:
	case FORM_strx1:
	case FORM_addrx1: v->u = rd_u8(c); break;
	case FORM_data2:
	case FORM_ref2:
	case FORM_strx2:
	case FORM_addrx2: v->u = rd_u16(c); break;
	case FORM_strx3:
	case FORM_addrx3: v->u = rd_un(c, 3); break;
	case FORM_data4:
	case FORM_ref4:
	case FORM_ref_sup4:
	case FORM_strx4:
	case FORM_addrx4: v->u = rd_u32(c); break;
	case FORM_data8:
	case FORM_ref8:
	case FORM_ref_sig8:
	case FORM_ref_sup8: v->u = rd_u64(c); break;
	case FORM_data16:
		v->p = c->p;
		v->u = 16;
		skip(c, 16);
		break;
	case FORM_sdata: v->u = (uint64_t)rd_sleb(c); break;
	case FORM_udata:
	case FORM_ref_udata:
	case FORM_strx:
	case FORM_addrx:
	case FORM_loclistx:
	case FORM_rnglistx:
	case FORM_GNU_addr_index:
	case FORM_GNU_str_index: v->u = rd_uleb(c); break;
	case FORM_strp:
	case FORM_sec_offset:
	case FORM_line_strp:
	case FORM_strp_sup:
	case FORM_GNU_ref_alt:
	case FORM_GNU_strp_alt: v->u = rd_off(c, u->offsz); break;
	case FORM_ref_addr: v->u = rd_off(c, u->version <= 2 ? u->addr_size : u->offsz); break;
	case FORM_string:
		v->p = (const uint8_t *)rd_cstr(c);
		v->u = 0;
		break;
	case FORM_block1: v->u = rd_u8(c); goto block;
	case FORM_block2: v->u = rd_u16(c); goto block;
	case FORM_block4: v->u = rd_u32(c); goto block;
	case FORM_block:
	case FORM_exprloc:
		v->u = rd_uleb(c);
	block:
		v->p = c->p;
		skip(c, v->u);
		break;
	case FORM_flag_present: v->u = 1; break;
	case FORM_implicit_const: v->u = (uint64_t)implicit; break;
	default: cur_fail(c); return false;
	}
	return c->ok;
}

/* Skip one value of form, whose size class is cls (dw_form_class(form)). */
static inline bool skip_sized(struct cur *c, const struct unitfmt *u, int cls, uint32_t form)
{
	struct fval v;

	switch (cls) {
	case SZ_LEB:
		while (c->p < c->end && (*c->p & 0x80))
			c->p++;
		skip(c, 1);
		break;
	case SZ_STR: rd_cstr(c); break;
	case SZ_ADDR: skip(c, u->addr_size); break;
	case SZ_OFF: skip(c, u->offsz); break;
	case SZ_REFADDR: skip(c, u->version <= 2 ? u->addr_size : u->offsz); break;
	case SZ_VAR: return read_form(c, u, form, 0, &v);
	default: skip(c, (uint64_t)cls); break;
	}
	return c->ok;
}

static inline bool skip_form(struct cur *c, const struct unitfmt *u, uint32_t form)
{
	return skip_sized(c, u, dw_form_class(form), form);
}

#endif
