/* SPDX-License-Identifier: MIT */
/*
 * Compile units: the index built at open, and finding units by offset and
 * by address.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "abbrev.h"
#include "ranges.h"
#include "unit.h"
#include "array.h"
#include "search.h"

static int add_cu(struct psym_dwarf *d, struct psym_err *e)
{
	struct cu *n = psym_array_grow(d->cus, &d->capcus, d->ncus + 1, sizeof(*n), 0);

	if (!n)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	d->cus = n;
	memset(&d->cus[d->ncus], 0, sizeof(d->cus[0]));
	return 0;
}

static int cmp_curange(const void *a, const void *b)
{
	const struct curange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->cu != y->cu)
		return x->cu < y->cu ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static int push_curange(struct psym_dwarf *d, uint64_t lo, uint64_t hi, uint32_t cu)
{
	struct curange *n =
		psym_array_grow(d->curanges, &d->capcuranges, d->ncuranges + 1, sizeof(*n), 0);

	if (!n)
		return PSYM_ENOMEM;
	d->curanges = n;
	d->curanges[d->ncuranges++] = (struct curange){ lo, hi, 0, cu };
	return 0;
}

/* The unit whose header is at .debug_info offset off (units are in file order). */
static long unit_at_header(const struct psym_dwarf *d, uint64_t off)
{
	size_t lo = PSYM_LOWER_BOUND(0, d->ncus, i, d->cus[i].off >= off);

	return lo < d->ncus && d->cus[lo].off == off ? (long)lo : -1;
}

/*
 * The ranges .debug_aranges gives each unit, added to those of the unit's
 * own DIE: the two disagree in real files (gcc -gdwarf-2 -gstrict-dwarf
 * gives a unit a low_pc/high_pc covering its .text part only, while its
 * functions in .text.startup, .text.unlikely or a section of their own
 * are in .debug_aranges; a unit whose code spans several sections may have
 * no range at all), and llvm-symbolizer and eu-addr2line find a function
 * through either. A set naming no unit is skipped; a malformed set ends
 * the section, keeping what came before.
 */
static int add_aranges(struct psym_dwarf *d)
{
	const struct section *s = &d->sec[S_ARANGES];
	uint64_t off = 0;

	while (off < s->len) {
		struct cur c = sec_cur(d, S_ARANGES, off);
		const uint8_t *start = c.p;
		unsigned offsz, asz, segsz;
		uint64_t ulen = rd_unit_length(&c, &offsz), info_off;
		long cu;

		if (!c.ok || ulen > cur_left(&c) || ulen < 2)
			break;
		off = (uint64_t)(c.p - s->p) + ulen;
		c.end = c.p + ulen;
		if (rd_u16(&c) != 2)
			continue;
		info_off = rd_off(&c, offsz);
		asz = rd_u8(&c);
		segsz = rd_u8(&c);
		if (!c.ok || (asz != 4 && asz != 8) || segsz != 0)
			continue;
		cu = unit_at_header(d, info_off);
		if (cu < 0 || !d->cus[cu].ab)
			continue;
		/* Tuples start at a multiple of twice the address size. */
		while (c.ok && (size_t)(c.p - start) % (2 * asz))
			rd_u8(&c);
		while (c.ok && cur_left(&c) >= 2 * (size_t)asz) {
			uint64_t a = rd_un(&c, asz), n = rd_un(&c, asz);

			if (!a && !n)
				break;
			if (!n || a + n < a)
				continue;
			if (push_curange(d, a, a + n, (uint32_t)cu))
				return PSYM_ENOMEM;
		}
	}
	return 0;
}

int dw_index_cus(struct psym_dwarf *d, struct psym_err *e)
{
	struct rangebuf rb = { 0 };
	uint64_t off = 0;
	size_t len = d->sec[S_INFO].len;
	int ret = 0;

	while (off < len) {
		struct cur c = sec_cur(d, S_INFO, off);
		unsigned offsz;
		uint64_t ulen = rd_unit_length(&c, &offsz), next, abbrev_off;
		struct cu *u;
		const struct abbrev *a;
		struct die x;
		uint8_t ut = UT_compile;
		bool over;

		if (!c.ok || ulen > cur_left(&c)) {
			d->bad_units++;
			break; /* a truncated or corrupt tail: keep what came before */
		}
		next = (uint64_t)(c.p - d->sec[S_INFO].p) + ulen;
		c.end = c.p + ulen;
		ret = add_cu(d, e);
		if (ret)
			goto out;
		u = &d->cus[d->ncus];
		u->off = off;
		u->end = next;
		u->offsz = (uint8_t)offsz;
		u->version = rd_u16(&c);
		off = next;
		if (u->version < 2 || u->version > 5) {
			d->bad_units++;
			continue;
		}
		if (u->version >= 5) {
			ut = rd_u8(&c);
			u->addr_size = rd_u8(&c);
			abbrev_off = rd_off(&c, offsz);
			if (ut == UT_skeleton || ut == UT_split_compile) {
				u->dwo_id = rd_u64(&c);
				u->has_dwo_id = true;
			} else if (ut == UT_type || ut == UT_split_type)
				continue;
		} else {
			abbrev_off = rd_off(&c, offsz);
			u->addr_size = rd_u8(&c);
		}
		if (!c.ok || (u->addr_size != 4 && u->addr_size != 8 && u->addr_size != 2 &&
			      u->addr_size != 1)) {
			d->bad_units++;
			continue;
		}
		u->unit_type = ut;
		u->die_off = (uint64_t)(c.p - d->sec[S_INFO].p);
		u->ab = dw_abtab_get(d, abbrev_off, &over);
		if (!u->ab && over) {
			d->bad_units++;
			continue; /* this unit is left out */
		}
		if (!u->ab) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			goto out;
		}
		a = abbrev_find(u->ab, rd_uleb(&c));
		if (!c.ok || !a || !dw_read_die(&c, u, a, &x)) {
			d->bad_units++;
			continue;
		}
		u->str_off_base = x.has_str_off_base ? x.str_off_base : 8;
		u->addr_base = x.addr_base;
		u->rng_base = x.rng_base;
		u->has_rng_base = x.has_rng_base;
		u->stmt_list = x.stmt_list;
		u->has_stmt = x.has_stmt;
		u->comp_dir = dw_resolve_str(d, u, &x.comp_dir);
		u->language = x.language <= UINT16_MAX ? (uint16_t)x.language : 0;
		if (u->version < 5 && x.has_dwo_id) { /* GNU split DWARF 4 */
			u->dwo_id = x.dwo_id;
			u->has_dwo_id = true;
		}
		u->skeleton = !d->dwo && u->has_dwo_id && (ut == UT_skeleton || u->version < 5);
		if (u->skeleton) {
			u->dwo_name = dw_resolve_str(d, u, &x.dwo_name);
			u->dwo_ranges_base = x.gnu_ranges_base;
		}
		if (x.has_low) {
			u->low_pc = x.low_pc;
			if (form_is_addrx(x.low_form) && !dw_read_addrx(d, u, x.low_pc, &u->low_pc))
				u->low_pc = 0;
		}
		rb.n = 0;
		if (dw_die_ranges(d, u, &x, u->low_pc, &rb) < 0) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < rb.n; i++) {
			if (push_curange(d, rb.r[i].lo, rb.r[i].hi, (uint32_t)d->ncus)) {
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				goto out;
			}
		}
		u->ranged = rb.n > 0;
		if (!u->ranged && (x.has_low || x.has_ranges) && !d->nocode_units++)
			d->nocode_name = dw_resolve_str(d, u, &x.name);
		else if (!u->ranged && !d->nocode_units && !d->nocode_name)
			d->nocode_name = dw_resolve_str(d, u, &x.name);
		d->ncus++;
		if (d->ncus >= UINT32_MAX - 1) {
			ret = psym_err_set(e, PSYM_ELIMIT, "'%s': too many compile units", d->path);
			goto out;
		}
	}
	if (d->sec[S_ARANGES].len && add_aranges(d)) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	if (d->ncuranges)
		qsort(d->curanges, d->ncuranges, sizeof(*d->curanges), cmp_curange);
	/* A range both the unit and .debug_aranges give is kept once. */
	if (d->ncuranges) {
		size_t k = 1;

		for (size_t i = 1; i < d->ncuranges; i++) {
			const struct curange *r = &d->curanges[i], *p = &d->curanges[k - 1];

			if (r->lo != p->lo || r->hi != p->hi || r->cu != p->cu)
				d->curanges[k++] = *r;
		}
		d->ncuranges = k;
	}
	for (size_t i = 0; i < d->ncuranges; i++) {
		uint64_t prev = i ? d->curanges[i - 1].maxhi : 0;

		d->curanges[i].maxhi = d->curanges[i].hi > prev ? d->curanges[i].hi : prev;
	}
out:
	free(rb.r);
	return ret;
}

void dw_cu_free(struct cu *c)
{
	free(c->entries);
	free(c->ranges);
	free(c->tops);
	free(c->kids);
	free(c->rows);
	free(c->seqs);
	free(c->discs);
	free(c->files);
}

struct cu *dw_unit_of_offset(struct psym_dwarf *d, uint64_t off)
{
	size_t lo = PSYM_LOWER_BOUND(0, d->ncus, i, d->cus[i].off > off);

	if (lo == 0)
		return NULL;
	{
		struct cu *u = &d->cus[lo - 1];

		return off >= u->die_off && off < u->end && u->ab ? u : NULL;
	}
}

/* Read the DIE at a .debug_info offset. */
bool dw_die_at(struct psym_dwarf *d, uint64_t off, struct cu **up, struct die *x)
{
	struct cu *u = dw_unit_of_offset(d, off);
	const struct abbrev *a;
	struct cur c;

	if (!u)
		return false;
	c = sec_cur(d, S_INFO, off);
	c.end = d->sec[S_INFO].p + u->end;
	a = abbrev_find(u->ab, rd_uleb(&c));
	if (!c.ok || !a || !dw_read_die(&c, u, a, x))
		return false;
	*up = u;
	return true;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The CUs whose ranges hold a, lowest .debug_info offset first (as
 * llvm-symbolizer picks among overlapping CUs). Returns how many.
 */
size_t dw_find_cus(const struct psym_dwarf *d, uint64_t a, uint32_t *out)
{
	size_t lo = PSYM_LOWER_BOUND(0, d->ncuranges, i, d->curanges[i].lo > a), n = 0;

	/*
	 * GNU addr2line (gnu_lines) asks the units in .debug_info order: the
	 * first ones of all that hold a are kept, not the last found.
	 */
	for (size_t k = lo, steps = 0;
	     k > 0 && (n < MAX_CU_CANDIDATES || d->o.gnu_lines) && steps < 4096; k--, steps++) {
		const struct curange *r = &d->curanges[k - 1];
		size_t top = 0;

		if (r->maxhi <= a)
			break;
		if (a < r->hi) {
			bool dup = false;

			for (size_t i = 0; i < n; i++) {
				dup |= out[i] == r->cu;
				top = out[i] > out[top] ? i : top;
			}
			if (!dup && n < MAX_CU_CANDIDATES)
				out[n++] = r->cu;
			else if (!dup && r->cu < out[top])
				out[top] = r->cu;
		}
	}
	qsort(out, n, sizeof(*out), cmp_u32);
	return n;
}
