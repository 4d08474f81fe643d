/* SPDX-License-Identifier: MIT */
/*
 * Abbreviation tables, parsed once per offset of .debug_abbrev and kept in
 * a hash; finding an abbreviation by code; skipping the attributes of a
 * DIE (in O(1) when all its forms have a fixed size).
 */
#ifndef PSYM_DWARF_ABBREV_H
#define PSYM_DWARF_ABBREV_H

#include "form.h"
#include "internal.h"
#include "search.h"

/*
 * The table at off, parsed on first use. NULL when out of memory, or with
 * *over set when the units of a hostile file make us parse the section
 * many times over (tables at offsets inside each other).
 */
struct abtab *dw_abtab_get(struct psym_dwarf *d, uint64_t off, bool *over);
void dw_abtab_free(struct abtab *t);

static inline const struct abbrev *abbrev_find(const struct abtab *t, uint64_t code)
{
	size_t lo;

	if (t->dense)
		return code < t->ndense && t->dense[code] ? &t->list[t->dense[code] - 1] : NULL;
	lo = PSYM_LOWER_BOUND(0, t->n, i, t->list[i].code >= code);
	return lo < t->n && t->list[lo].code == code ? &t->list[lo] : NULL;
}

/* Skip the attributes of one DIE. */
static inline bool skip_attrs(struct cur *c, const struct unitfmt *u, const struct abtab *t,
			      const struct abbrev *a)
{
	if (a->fixed >= 0) {
		skip(c,
		     (uint64_t)a->fixed + (uint64_t)a->naddr * u->addr_size +
			     (uint64_t)a->noff * u->offsz +
			     (uint64_t)a->nrefaddr * (u->version <= 2 ? u->addr_size : u->offsz));
		return c->ok;
	}
	for (uint32_t i = 0; i < a->nattr; i++) {
		const struct attrspec *as = &t->attrs[a->attr0 + i];

		if (!skip_sized(c, u, as->size, as->form))
			return false;
	}
	return true;
}

#endif
