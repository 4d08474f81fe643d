/* SPDX-License-Identifier: MIT */
/*
 * Abbreviation tables (.debug_abbrev): each parsed once, on first use,
 * with per abbreviation what a DIE walk needs (tag, children, where
 * DW_AT_sibling is, the fixed size of its attributes).
 */
#include "config.h"

#include <stdlib.h>

#include "abbrev.h"
#include "array.h"

void dw_abtab_free(struct abtab *t)
{
	if (!t)
		return;
	free(t->list);
	free(t->dense);
	free(t->attrs);
	free(t);
}

static int cmp_abbrev(const void *a, const void *b)
{
	const struct abbrev *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

static struct abtab *abtab_parse(struct psym_dwarf *d, uint64_t off)
{
	struct cur c = sec_cur(d, S_ABBREV, off);
	const uint8_t *start = c.p;
	struct abtab *t = calloc(1, sizeof(*t));
	size_t cap = 0, capattrs = 0;
	uint64_t maxcode = 0;

	if (!t)
		return NULL;
	t->off = off;
	while (c.ok) {
		struct abbrev a = { 0 };
		uint64_t code = rd_uleb(&c);

		if (code == 0 || !c.ok)
			break;
		a.code = code;
		a.tag = (uint16_t)rd_uleb(&c);
		a.children = rd_u8(&c) != 0;
		a.attr0 = (uint32_t)t->nattrs;
		a.sibling = -1;
		for (;;) {
			uint64_t name = rd_uleb(&c), form = rd_uleb(&c);
			int64_t implicit = 0;
			int cls, kind, n;

			if (!c.ok || (name == 0 && form == 0))
				break;
			if (form == FORM_implicit_const)
				implicit = rd_sleb(&c);
			if (a.nattr == UINT16_MAX || t->nattrs >= UINT32_MAX - 1) {
				cur_fail(&c);
				break;
			}
			{
				struct attrspec *na = psym_array_grow(
					t->attrs, &capattrs, t->nattrs + 1, sizeof(*na), 0);

				if (!na)
					goto nomem;
				t->attrs = na;
			}
			cls = dw_form_class((uint32_t)form);
			n = form_fixed(cls, &kind);
			t->attrs[t->nattrs++] = (struct attrspec){ (uint16_t)name, (uint16_t)form,
								   (int8_t)cls, implicit };
			if (name > UINT16_MAX || form > UINT16_MAX)
				t->attrs[t->nattrs - 1] =
					(struct attrspec){ 0, UINT16_MAX, SZ_VAR, 0 };
			if (name == AT_sibling && a.sibling < 0 && a.nattr < INT16_MAX)
				a.sibling = (int16_t)a.nattr;
			if (name == AT_low_pc || name == AT_ranges)
				a.has_pc = true;
			if (n < 0 || a.fixed < 0) {
				a.fixed = -1;
			} else {
				a.fixed += n;
				if (kind == 1 && a.naddr < UINT8_MAX)
					a.naddr++;
				else if (kind == 2 && a.noff < UINT8_MAX)
					a.noff++;
				else if (kind == 3 && a.nrefaddr < UINT8_MAX)
					a.nrefaddr++;
				else if (kind)
					a.fixed = -1;
			}
			a.nattr++;
		}
		if (!c.ok)
			break;
		{
			struct abbrev *nl =
				psym_array_grow(t->list, &cap, t->n + 1, sizeof(*nl), 0);

			if (!nl)
				goto nomem;
			t->list = nl;
		}
		t->list[t->n++] = a;
		if (code > maxcode)
			maxcode = code;
	}
	/* Codes are usually 1..n: index them directly; else sort for bsearch. */
	d->abbrev_bytes += (uint64_t)(c.p - start);
	if (t->n && maxcode <= 4 * (uint64_t)t->n + 256) {
		t->ndense = (size_t)maxcode + 1;
		t->dense = calloc(t->ndense, sizeof(*t->dense));
		if (!t->dense)
			goto nomem;
		for (size_t i = 0; i < t->n; i++)
			if (!t->dense[t->list[i].code])
				t->dense[t->list[i].code] = (uint32_t)i + 1;
	} else if (t->n) {
		qsort(t->list, t->n, sizeof(*t->list), cmp_abbrev);
		t->sorted = true;
	}
	return t;
nomem:
	dw_abtab_free(t);
	return NULL;
}

/*
 * The table at off, parsed on first use. NULL when out of memory, or with
 * *over set when the units of a hostile file make us parse the section
 * many times over (tables at offsets inside each other).
 */
struct abtab *dw_abtab_get(struct psym_dwarf *d, uint64_t off, bool *over)
{
	struct abtab *t;
	size_t j;

	*over = false;
	if (d->capabtabs) {
		for (j = hash_off(off) & (d->capabtabs - 1); d->abtabs[j];
		     j = (j + 1) & (d->capabtabs - 1))
			if (d->abtabs[j]->off == off)
				return d->abtabs[j];
	}
	if ((d->nabtabs + 1) * 2 > d->capabtabs) {
		size_t ncap = d->capabtabs ? d->capabtabs * 2 : 64;
		struct abtab **n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t i = 0; i < d->capabtabs; i++) {
			if (!d->abtabs[i])
				continue;
			for (j = hash_off(d->abtabs[i]->off) & (ncap - 1); n[j];
			     j = (j + 1) & (ncap - 1))
				;
			n[j] = d->abtabs[i];
		}
		free(d->abtabs);
		d->abtabs = n;
		d->capabtabs = ncap;
	}
	if (d->abbrev_bytes > 4 * (uint64_t)d->sec[S_ABBREV].len + ((uint64_t)1 << 20)) {
		*over = true;
		return NULL;
	}
	t = abtab_parse(d, off);
	if (!t)
		return NULL;
	for (j = hash_off(off) & (d->capabtabs - 1); d->abtabs[j]; j = (j + 1) & (d->capabtabs - 1))
		;
	d->abtabs[j] = t;
	d->nabtabs++;
	return t;
}
