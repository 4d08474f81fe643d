/* SPDX-License-Identifier: MIT */
/*
 * The flame graph's layout: frames with depth, left edge and width in
 * sample value, from the merged stacks. No drawing here (report_flame.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "array.h"

/* A name's kind (report.c) is a frame's kind, but for inlining. */
_Static_assert((int)K_USER == PSYM_FLAME_USER && (int)K_KERNEL == PSYM_FLAME_KERNEL &&
		       (int)K_JIT == PSYM_FLAME_JIT && (int)K_UNKNOWN == PSYM_FLAME_UNKNOWN,
	       "enum kind and enum psym_flame_kind agree");

/* Width of the default drawing in pixels; narrower than 0.1 px: not drawn. */
#define FLAME_DRAW_WIDTH 1180.0

static int add_frame(struct psym_flame *fl, size_t *cap, const struct psym_rpt_stacks *st,
		     const struct stack *sk, size_t d, int64_t x, int64_t val, int64_t delta)
{
	struct psym_flame_frame *f;

	f = psym_array_grow(fl->frame, cap, fl->n + 1, sizeof(*f), 0);
	if (!f)
		return -1;
	fl->frame = f;
	f = &fl->frame[fl->n++];
	f->name = st->r.names.s[st->ids[sk->off + d]];
	f->depth = d;
	f->x = x;
	f->value = val;
	f->delta = delta;
	f->inl = st->inl[sk->ioff + d] != 0;
	f->kind = (enum psym_flame_kind)(st->r.names.kind[st->ids[sk->off + d]] & 3);
	if (f->inl && f->kind == PSYM_FLAME_USER)
		f->kind = PSYM_FLAME_INLINED;
	return 0;
}

/* Whether no sum of the stacks' values (widths or changes) can saturate. */
static bool sums_fit(const struct psym_rpt_stacks *st)
{
	uint64_t sv = 0, sd = 0;

	for (size_t i = 0; i < st->n; i++)
		if (__builtin_add_overflow(sv, (uint64_t)abs64(st->s[i].v), &sv) ||
		    __builtin_add_overflow(sd, (uint64_t)abs64(st->s[i].d), &sd))
			return false;
	return sv <= INT64_MAX && sd <= INT64_MAX;
}

/*
 * The merged stacks are sorted, so equal prefixes are adjacent; each
 * (depth, run of equal prefix) is one frame, closed when the run ends.
 * A frame's value is the sum of its run's: when no sum can saturate, the
 * running total where it opened, taken from the one where it closes (work
 * per frame drawn, not per stack and depth); else summed depth by depth.
 */
static int lay_out(struct psym_flame *fl, const struct psym_rpt_stacks *st)
{
	int64_t *acc = calloc(fl->maxdepth + 1, sizeof(*acc));
	int64_t *accd = calloc(fl->maxdepth + 1, sizeof(*accd));
	int64_t x = 0, xd = 0;
	bool opened = sums_fit(st); /* acc[], accd[]: where frames opened */
	size_t cap = 0;
	int ret = -1;

	if (!acc || !accd)
		goto out;
	for (size_t i = 0; i <= st->n; i++) {
		/* Depth at which stack i differs from stack i-1. */
		size_t common = 0;

		if (i > 0 && i < st->n) {
			const uint32_t *a = st->ids + st->s[i].off, *b = st->ids + st->s[i - 1].off;

			while (common < st->s[i].n && common < st->s[i - 1].n &&
			       a[common] == b[common])
				common++;
		}
		if (i > 0) {
			/* Close frames of stack i-1 deeper than common. */
			const struct stack *pv = &st->s[i - 1];

			for (size_t d = pv->n; d-- > common;) {
				int64_t val = opened ? x - acc[d] : acc[d];
				int64_t dv = opened ? xd - accd[d] : accd[d];

				acc[d] = 0;
				accd[d] = 0;
				if ((double)val / (double)st->total * FLAME_DRAW_WIDTH < 0.1) {
					/* In a diff, frames of the base only have no width. */
					if (val || !st->diff)
						fl->omitted++;
					continue;
				}
				if (add_frame(fl, &cap, st, pv, d, x - val, val, dv))
					goto out;
			}
		}
		if (i == st->n)
			break;
		if (opened) {
			for (size_t d = common; d < st->s[i].n; d++) {
				acc[d] = x;
				accd[d] = xd;
			}
			xd += st->s[i].d;
		} else {
			for (size_t d = 0; d < st->s[i].n; d++) {
				acc[d] = sat_add(acc[d], st->s[i].v);
				accd[d] = sat_add(accd[d], st->s[i].d);
			}
		}
		x = sat_add(x, st->s[i].v);
	}
	ret = 0;
out:
	free(acc);
	free(accd);
	return ret;
}

int psym_flame_layout(const struct psym_profile *p, const struct psym_report_opts *o,
		      struct psym_flame **out, struct psym_err *e)
{
	struct psym_flame *fl = calloc(1, sizeof(*fl));
	int ret;

	*out = NULL;
	if (fl)
		fl->st = calloc(1, sizeof(*fl->st));
	if (!fl || !fl->st) {
		free(fl);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	ret = psym_rpt_stacks_collect(p, o, fl->st, e);
	if (!ret)
		ret = psym_rpt_stacks_merge(fl->st, e);
	if (ret)
		goto fail;
	fl->total = fl->st->total;
	fl->total_delta = fl->st->total_d;
	fl->diff = fl->st->diff;
	fl->type = psym_profile_str(p, p->pb->sample_type[fl->st->r.idx]->type);
	fl->unit = psym_profile_str(p, p->pb->sample_type[fl->st->r.idx]->unit);
	for (size_t i = 0; i < fl->st->n; i++)
		if (fl->st->s[i].n > fl->maxdepth)
			fl->maxdepth = fl->st->s[i].n;
	if (fl->total > 0 && lay_out(fl, fl->st)) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto fail;
	}
	*out = fl;
	return 0;
fail:
	psym_flame_free(fl);
	return ret;
}

void psym_flame_free(struct psym_flame *fl)
{
	if (!fl)
		return;
	if (fl->st) {
		psym_rpt_stacks_free(fl->st);
		free(fl->st);
	}
	free(fl->frame);
	free(fl);
}
