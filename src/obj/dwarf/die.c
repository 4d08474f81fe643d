/* SPDX-License-Identifier: MIT */
/*
 * Reading a DIE's attributes and resolving its strings and addresses.
 */
#include "config.h"

#include <string.h>

#include "die.h"

static const char *sec_str(const struct psym_dwarf *d, enum sec s, uint64_t off)
{
	const struct section *sc = &d->sec[s];

	if (off >= sc->len || !memchr(sc->p + off, 0, sc->len - off))
		return NULL;
	return (const char *)sc->p + off;
}

const char *dw_resolve_str(const struct psym_dwarf *d, const struct cu *u, const struct strval *v)
{
	switch (v->form) {
	case 0: return NULL;
	case FORM_string: return v->p;
	case FORM_strp: return sec_str(d, S_STR, v->u);
	case FORM_line_strp: return sec_str(d, S_LINE_STR, v->u);
	case FORM_strx:
	case FORM_strx1:
	case FORM_strx2:
	case FORM_strx3:
	case FORM_strx4:
	case FORM_GNU_str_index: {
		struct cur c;
		uint64_t off;

		if (v->u > (UINT64_MAX - u->str_off_base) / u->offsz)
			return NULL;
		c = sec_cur(d, S_STR_OFF, u->str_off_base + v->u * u->offsz);
		off = rd_off(&c, u->offsz);
		return c.ok ? sec_str(d, S_STR, off) : NULL;
	}
	case FORM_GNU_strp_alt:
	case FORM_strp_sup: /* the alternate file's, when it was found */
		return d->alt ? sec_str(d->alt, S_STR, v->u) : NULL;
	default: return NULL;
	}
}

bool dw_read_addrx(const struct psym_dwarf *d, const struct cu *u, uint64_t idx, uint64_t *out)
{
	struct cur c;

	if (idx > (UINT64_MAX - u->addr_base) / u->addr_size)
		return false;
	c = sec_cur(d, S_ADDR, u->addr_base + idx * u->addr_size);
	*out = rd_un(&c, u->addr_size);
	return c.ok;
}

/* Read all attributes of a DIE at c (after its code) into *x. */
bool dw_read_die(struct cur *c, const struct cu *u, const struct abbrev *a, struct die *x)
{
	const struct unitfmt uf = { u->version, u->addr_size, u->offsz };
	const struct attrspec *as = a->nattr ? &u->ab->attrs[a->attr0] : NULL;
	bool ok;

	memset(x, 0, sizeof(*x));
	x->origin = x->spec = x->sibling = NOREF;
	for (uint32_t i = 0; i < a->nattr; i++) {
		struct fval v;

		if (!read_form(c, &uf, as[i].form, as[i].implicit, &v))
			return false;
		switch (as[i].name) {
		case AT_low_pc:
			x->low_pc = v.u;
			x->low_form = v.form;
			x->has_low = v.form == FORM_addr || form_is_addrx(v.form);
			break;
		case AT_high_pc:
			x->high_pc = v.u;
			x->high_form = v.form;
			x->has_high = v.form == FORM_addr || form_is_addrx(v.form) ||
				      form_is_const(v.form);
			break;
		case AT_ranges:
			x->ranges = v.u;
			x->ranges_form = v.form;
			x->has_ranges = v.form == FORM_sec_offset || v.form == FORM_rnglistx ||
					v.form == FORM_data4 || v.form == FORM_data8;
			break;
		case AT_name: set_str(&x->name, &v); break;
		case AT_linkage_name: set_str(&x->linkage, &v); break;
		case AT_MIPS_linkage_name:
			if (!x->linkage.form)
				set_str(&x->linkage, &v);
			break;
		case AT_comp_dir: set_str(&x->comp_dir, &v); break;
		case AT_language: x->language = v.u; break;
		case AT_abstract_origin:
			x->origin = ref_abs(u, &v, &ok);
			if (!ok)
				x->origin = NOREF;
			break;
		case AT_specification:
			x->spec = ref_abs(u, &v, &ok);
			if (!ok)
				x->spec = NOREF;
			break;
		case AT_sibling:
			x->sibling = ref_abs(u, &v, &ok);
			if (!ok)
				x->sibling = NOREF;
			break;
		case AT_decl_line: const_val(&v, &x->decl_line); break;
		case AT_decl_file:
			x->decl_file_state = v.form != FORM_implicit_const &&
							     const_val(&v, &x->decl_file) &&
							     x->decl_file <= UINT32_MAX
						     ? DECL_FILE_INDEX
						     : DECL_FILE_NONAME;
			break;
		case AT_call_file: const_val(&v, &x->call_file); break;
		case AT_call_line: const_val(&v, &x->call_line); break;
		case AT_call_column: const_val(&v, &x->call_column); break;
		case AT_GNU_discriminator: const_val(&v, &x->call_discriminator); break;
		case AT_stmt_list:
			x->stmt_list = v.u;
			x->has_stmt = v.form == FORM_sec_offset || v.form == FORM_data4 ||
				      v.form == FORM_data8;
			break;
		case AT_str_offsets_base:
			x->str_off_base = v.u;
			x->has_str_off_base = true;
			break;
		case AT_addr_base:
		case AT_GNU_addr_base:
			x->addr_base = v.u;
			x->has_addr_base = true;
			break;
		case AT_rnglists_base:
			x->rng_base = v.u;
			x->has_rng_base = true;
			break;
		case AT_dwo_name:
		case AT_GNU_dwo_name: set_str(&x->dwo_name, &v); break;
		case AT_GNU_dwo_id:
			x->dwo_id = v.u;
			x->has_dwo_id = v.form == FORM_data8 || v.form == FORM_udata;
			break;
		case AT_GNU_ranges_base: x->gnu_ranges_base = v.u; break;
		default: break;
		}
	}
	return true;
}
