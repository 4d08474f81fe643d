/* SPDX-License-Identifier: MIT */
/*
 * Every address where a lookup's answer may change (psym_dwarf_boundaries):
 * what the per-build-ID index (src/index/) is built from.
 */
#include "config.h"

#include <stdlib.h>

#include "dwarfsym.h"
#include "internal.h"

struct vec {
	uint64_t *v;
	size_t n, cap;
	uint64_t bias;
	int err;
};

static void push(struct vec *x, uint64_t a)
{
	if (x->err)
		return;
	if (x->n == x->cap) {
		size_t ncap = x->cap ? x->cap * 2 : 4096;
		uint64_t *nv = realloc(x->v, ncap * sizeof(*nv));

		if (!nv) {
			x->err = PSYM_ENOMEM;
			return;
		}
		x->v = nv;
		x->cap = ncap;
	}
	x->v[x->n++] = a + x->bias;
}

/* What one decoded unit (or its split unit's function tree) changes at. */
static void unit_bounds(struct vec *x, const struct cu *c)
{
	for (size_t i = 0; i < c->ntops; i++) {
		push(x, c->tops[i].lo);
		push(x, c->tops[i].hi);
	}
	for (size_t i = 0; i < c->nkids; i++) {
		push(x, c->kids[i].lo);
		push(x, c->kids[i].hi);
	}
	for (size_t i = 0; i < c->nseqs; i++) {
		push(x, c->seqs[i].lo);
		push(x, c->seqs[i].hi);
	}
	for (size_t i = 0; i < c->nrows; i++)
		push(x, c->rows[i].addr);
	for (size_t i = 0; i < c->ndiscs; i++)
		push(x, c->discs[i].addr);
}

int psym_dwarf_boundaries(struct psym_dwarf *d, uint64_t bias, uint64_t **out, size_t *n,
			  struct psym_err *e)
{
	struct vec x = { .bias = bias };
	uint64_t *los;
	int ret;

	*out = NULL;
	*n = 0;
	/* Decode every unit a lookup can reach, on several threads. */
	los = malloc((d->ncuranges ? d->ncuranges : 1) * sizeof(*los));
	if (!los)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; i < d->ncuranges; i++)
		los[i] = d->curanges[i].lo;
	ret = psym_dwarf_prepare(d, los, d->ncuranges, e);
	free(los);
	if (ret)
		return ret;
	for (size_t i = 0; i < d->ncuranges; i++) {
		push(&x, d->curanges[i].lo);
		push(&x, d->curanges[i].hi);
	}
	for (size_t i = 0; i < d->ncus; i++) {
		const struct cu *c = &d->cus[i];

		if (!c->decoded || c->failed)
			continue;
		unit_bounds(&x, c);
		if (c->split_cu)
			unit_bounds(&x, c->split_cu);
	}
	if (x.err) {
		free(x.v);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	*out = x.v;
	*n = x.n;
	return 0;
}
