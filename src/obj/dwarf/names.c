/* SPDX-License-Identifier: MIT */
/*
 * Names through abstract_origin / specification, cached.
 */
#include "config.h"

#include <stdlib.h>

#include "die.h"
#include "line.h"
#include "names.h"
#include "unit.h"

static struct origin *origin_find(struct psym_dwarf *d, uint64_t off)
{
	if (!d->caporigins)
		return NULL;
	for (size_t i = hash_off(off) & (d->caporigins - 1); d->origins[i].off;
	     i = (i + 1) & (d->caporigins - 1))
		if (d->origins[i].off == off)
			return &d->origins[i];
	return NULL;
}

static void origin_put(struct psym_dwarf *d, const struct origin *o)
{
	size_t j;

	if ((d->norigins + 1) * 2 > d->caporigins) {
		size_t ncap = d->caporigins ? d->caporigins * 2 : 4096;
		struct origin *n = calloc(ncap, sizeof(*n));

		if (!n)
			return; /* the cache is an optimization only */
		for (size_t i = 0; i < d->caporigins; i++) {
			if (!d->origins[i].off)
				continue;
			for (j = hash_off(d->origins[i].off) & (ncap - 1); n[j].off;
			     j = (j + 1) & (ncap - 1))
				;
			n[j] = d->origins[i];
		}
		free(d->origins);
		d->origins = n;
		d->caporigins = ncap;
	}
	for (j = hash_off(o->off) & (d->caporigins - 1); d->origins[j].off;
	     j = (j + 1) & (d->caporigins - 1))
		;
	d->origins[j] = *o;
	d->norigins++;
}

static inline bool names_done(const struct origin *r)
{
	return r->name && r->linkage && r->decl_line && r->decl_file_state != DECL_FILE_NONE;
}

static inline void names_merge(struct origin *r, const struct origin *from)
{
	if (!r->name)
		r->name = from->name;
	if (!r->linkage)
		r->linkage = from->linkage;
	if (!r->decl_line)
		r->decl_line = from->decl_line;
	if (r->decl_file_state == DECL_FILE_NONE) {
		r->decl_file_state = from->decl_file_state;
		r->decl_file = from->decl_file;
	}
}

/*
 * The file a DW_AT_decl_file index names: in unit u of src, the unit fc
 * the lookup is in takes c's file table (its own, or its skeleton's); any
 * other unit (another CU, a dwz partial unit here or in the alternate
 * file) its own, read for it; a split file's other units name none.
 */
static const char *decl_file_name(struct psym_dwarf *src, struct cu *u, uint64_t idx,
				  const struct cu *fc, const struct cu *c)
{
	struct psym_err e = { 0 };

	if (u == fc)
		return dw_cu_file(c, idx);
	if (fc != c)
		return NULL;
	if (dw_decode_lines(src, u, &e))
		return NULL;
	return dw_cu_file(u, idx);
}

/*
 * Names and decl_line of the DIE at off and what it refers to through
 * abstract_origin / specification: the first of each along the chain.
 * Bounded hops; the result for off is cached.
 */
static struct origin resolve_origin(struct psym_dwarf *d, uint64_t off, const struct cu *fc,
				    const struct cu *c)
{
	struct origin r = { .off = off }, *cached = origin_find(d, off);
	uint64_t cur = off;

	if (cached)
		return *cached;
	for (int hop = 0; hop < MAX_ORIGIN_HOPS && !names_done(&r); hop++) {
		struct cu *u;
		struct die x;
		struct origin here = { 0 };
		/* A DIE of the alternate file: its own references stay in it. */
		struct psym_dwarf *src = cur & DW_ALT_REF ? d->alt : d;

		if (hop > 0 && (cached = origin_find(d, cur)) != NULL) {
			names_merge(&r, cached);
			break;
		}
		if (!src || !dw_die_at(src, cur & ~DW_ALT_REF, &u, &x))
			break; /* no alternate file: what the main file gives */
		here.name = dw_resolve_str(src, u, &x.name);
		here.linkage = dw_resolve_str(src, u, &x.linkage);
		here.decl_line =
			x.decl_line > 0 && x.decl_line <= UINT32_MAX ? (uint32_t)x.decl_line : 0;
		here.decl_file_state = x.decl_file_state;
		if (x.decl_file_state == DECL_FILE_INDEX && r.decl_file_state == DECL_FILE_NONE)
			here.decl_file = decl_file_name(src, u, (uint64_t)x.decl_file, fc, c);
		names_merge(&r, &here);
		cur = x.origin != NOREF ? x.origin : x.spec;
		if (cur == NOREF)
			break;
		if (src != d)
			cur |= DW_ALT_REF;
	}
	r.off = off;
	if (off)
		origin_put(d, &r);
	return r;
}

void dw_entry_names(struct psym_dwarf *d, struct entry *en, const struct cu *fc, const struct cu *c)
{
	struct origin r = { .name = en->name,
			    .linkage = en->linkage,
			    .decl_line = en->decl_line,
			    .decl_file_state = en->decl_file_state };

	en->resolved = true;
	if (en->decl_file_state == DECL_FILE_INDEX)
		r.decl_file = dw_cu_file(c, en->decl_file_idx);
	if (!names_done(&r) && en->origin != NOREF) {
		struct origin o = resolve_origin(d, en->origin, fc, c);

		names_merge(&r, &o);
	}
	en->name = r.name;
	en->linkage = r.linkage;
	en->decl_line = r.decl_line;
	en->decl_file = r.decl_file_state == DECL_FILE_INDEX ? r.decl_file : NULL;
}
