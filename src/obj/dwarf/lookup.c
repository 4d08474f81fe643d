/* SPDX-License-Identifier: MIT */
/*
 * Address -> frames: the CU, the function tree walked down to the innermost
 * inlined call, the line row, names resolved on the way.
 */
#include "config.h"

#include <stdlib.h>

#include "inline.h"
#include "line.h"
#include "lookup.h"
#include "names.h"
#include "search.h"
#include "split.h"
#include "unit.h"

int dw_decode_cu(struct psym_dwarf *d, struct cu *c, struct psym_err *e)
{
	int ret;

	c->decoded = true;
	pthread_mutex_lock(&d->strings_mu);
	d->ndecoded++;
	pthread_mutex_unlock(&d->strings_mu);
	ret = dw_decode_lines(d, c, e);
	if (!ret)
		ret = c->skeleton ? dw_split_decode(d, c, e) : dw_decode_dies(d, c, e);
	if (ret)
		c->failed = true;
	return ret;
}

static int cmp_lo(const void *a, const void *b)
{
	const struct curange *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every unit decoded and its line sequences indexed, once; false: out of memory. */
static bool gnu_seq_index(struct psym_dwarf *d, struct psym_err *e)
{
	size_t n = 0, k = 0;

	if (d->gnu_seqs_built)
		return true;
	for (size_t i = 0; i < d->ncus; i++) {
		struct cu *c = &d->cus[i];

		if (!c->decoded && dw_decode_cu(d, c, e) == PSYM_ENOMEM)
			return false;
		n += c->failed ? 0 : c->nseqs;
	}
	d->gnu_seqs_built = true;
	if (!n)
		return true;
	d->gnu_seqs = calloc(n, sizeof(*d->gnu_seqs));
	if (!d->gnu_seqs) {
		d->gnu_seqs_built = false;
		return false;
	}
	for (size_t i = 0; i < d->ncus; i++)
		for (size_t j = 0; !d->cus[i].failed && j < d->cus[i].nseqs && k < n; j++)
			d->gnu_seqs[k++] = (struct curange){ .lo = d->cus[i].seqs[j].lo,
							     .hi = d->cus[i].seqs[j].hi,
							     .cu = (uint32_t)i };
	qsort(d->gnu_seqs, k, sizeof(*d->gnu_seqs), cmp_lo);
	for (size_t i = 0; i < k; i++)
		d->gnu_seqs[i].maxhi = i && d->gnu_seqs[i - 1].maxhi > d->gnu_seqs[i].hi
					       ? d->gnu_seqs[i - 1].maxhi
					       : d->gnu_seqs[i].hi;
	d->ngnu_seqs = k;
	return true;
}

/*
 * GNU addr2line 2.40 (gnu_lines): an address outside every unit's ranges
 * (padding after a function whose last row runs on) is answered by the
 * first unit whose line table holds it, as binutils adds each sequence's
 * range to its unit's.
 */
static struct cu *gnu_line_cu(struct psym_dwarf *d, uint64_t a, const struct row **row,
			      struct psym_err *e)
{
	size_t k;
	uint32_t best = UINT32_MAX;

	if (!gnu_seq_index(d, e))
		return NULL;
	k = PSYM_LOWER_BOUND(0, d->ngnu_seqs, i, d->gnu_seqs[i].lo > a);
	for (size_t steps = 0; k > 0 && steps < 4096; k--, steps++) {
		const struct curange *r = &d->gnu_seqs[k - 1];

		if (r->maxhi <= a)
			break;
		if (a < r->hi && r->cu < best && dw_find_row(&d->cus[r->cu], a))
			best = r->cu;
	}
	if (best == UINT32_MAX)
		return NULL;
	*row = dw_find_row(&d->cus[best], a);
	return &d->cus[best];
}

/* DW_LANG_* binutils 2.40 demangles nothing of (its mangle_style 0). */
static bool plain_language(uint16_t lang)
{
	static const uint16_t plain[] = { 0x1,	0x2,  0x5,    0x6,    0x7,    0x9,    0xc,   0xf,
					  0x12, 0x1d, 0x8001, 0x8004, 0x8006, 0x8007, 0x8765 };

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (lang == plain[i])
			return true;
	return false;
}

const struct psym_dwarf_gnu *psym_dwarf_gnu_frames(const struct psym_dwarf *d)
{
	return d->gnu;
}

int psym_dwarf_lookup(struct psym_dwarf *d, uint64_t a, const struct psym_frame **frames,
		      size_t *np, struct psym_err *e)
{
	uint32_t chain[MAX_FRAMES], cands[MAX_CU_CANDIDATES];
	size_t ncands = dw_find_cus(d, a, cands), depth = 0, n = 0;
	const struct row *row = NULL;
	struct cu *c = NULL, *fc;
	struct psym_dwarf *fd;
	uint32_t top = NONE;

	/* Overlapping CU ranges happen (e.g. with LTO): take the first that knows a. */
	for (size_t i = 0; i < ncands; i++) {
		struct cu *cand = &d->cus[cands[i]];

		if (!cand->decoded) {
			int ret = dw_decode_cu(d, cand, e);

			if (ret == PSYM_ENOMEM)
				return ret;
		}
		if (cand->failed)
			continue;
		/* A skeleton's functions are in its split unit, its lines here. */
		top = dw_find_top(cand->split_cu ? cand->split_cu : cand, a);
		row = dw_find_row(cand, a);
		if (top != NONE || row) {
			c = cand;
			break;
		}
	}
	if (!c && !ncands && d->o.gnu_lines)
		c = gnu_line_cu(d, a, &row, e);
	if (!c)
		return PSYM_NOENT;
	fc = c->split_cu ? c->split_cu : c;
	fd = c->split_d ? c->split_d : d;
	if (top != NONE) {
		uint32_t cur = top;

		chain[depth++] = cur;
		while (depth < MAX_FRAMES) {
			uint32_t next = dw_find_kid(fc, &fc->entries[cur], a);

			if (next == NONE)
				break;
			depth += dw_empty_between(fc, cur, next, chain + depth, MAX_FRAMES - depth);
			if (depth == MAX_FRAMES)
				break;
			chain[depth++] = cur = next;
		}
	}
	if (depth == 0) {
		/* Lines but no function DIE: the caller names it from the symbols. */
		d->frames[0] = (struct psym_frame){
			.name = NULL,
			.file = row_file(c, row),
			.line = row->line,
			.column = row->column & ROW_COLMASK,
			.discriminator = dw_row_discriminator(c, row),
		};
		d->gnu[0] = (struct psym_dwarf_gnu){ 0 };
		*frames = d->frames;
		*np = 1;
		return 0;
	}
	/* Innermost first. */
	for (size_t i = depth; i-- > 0;) {
		struct entry *en = &fc->entries[chain[i]];
		struct psym_frame *f = &d->frames[n++];

		if (!en->resolved)
			dw_entry_names(fd, en, fc, c);
		f->name = en->name ? en->name : en->linkage;
		f->linkage_name = en->linkage;
		f->start_line = en->decl_line;
		f->start_file = en->decl_file;
		f->start_address = en->low_pc;
		f->has_start_address = en->has_low_pc;
		f->discriminator = 0;
		if (d->o.gnu_lines)
			d->gnu[n - 1] = (struct psym_dwarf_gnu){
				.id = (uint64_t)(uintptr_t)en,
				.low = en->gnu_low,
				.plain = plain_language(fc->language ? fc->language : c->language),
			};
		if (i == depth - 1) {
			f->file = row ? row_file(c, row) : NULL;
			f->line = row ? row->line : 0;
			f->column = row ? row->column & ROW_COLMASK : 0;
			f->discriminator = row ? dw_row_discriminator(c, row) : 0;
		} else {
			const struct entry *callee = &fc->entries[chain[i + 1]];

			/*
			 * In split units too, the skeleton's file table (as
			 * llvm-symbolizer reads call_file; clang writes no
			 * .debug_line.dwo at all).
			 */
			f->file = dw_cu_file(c, callee->call_file);
			f->line = callee->call_line;
			f->column = callee->call_column;
			/* The call site's own discriminator, as addr2line and llvm-symbolizer. */
			f->discriminator = d->o.discriminators ? callee->call_discriminator : 0;
		}
	}
	*frames = d->frames;
	*np = n;
	return 0;
}
