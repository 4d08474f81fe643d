/* SPDX-License-Identifier: MIT */
/*
 * Address ranges of DIEs. Empty ranges and ranges at address 0 (discarded
 * functions) are dropped.
 */
#include "config.h"

#include <stdlib.h>

#include "ranges.h"

static int push_range(struct rangebuf *b, uint64_t lo, uint64_t hi)
{
	if (!(hi > lo && lo != 0))
		return 0;
	if (b->n == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 256;
		struct erange *n;

		if (ncap > UINT32_MAX)
			return -1;
		n = realloc(b->r, ncap * sizeof(*n));
		if (!n)
			return -1;
		b->r = n;
		b->cap = ncap;
	}
	b->r[b->n++] = (struct erange){ lo, hi };
	return 1;
}

int dw_die_ranges(const struct psym_dwarf *d, const struct cu *u, const struct die *x,
		  uint64_t base, struct rangebuf *b)
{
	int n = 0, r;

	if (x->has_low && x->has_high) {
		uint64_t lo = x->low_pc, hi = x->high_pc;

		if (form_is_addrx(x->low_form) && !dw_read_addrx(d, u, lo, &lo))
			return 0;
		if (form_is_addrx(x->high_form)) {
			if (!dw_read_addrx(d, u, hi, &hi))
				return 0;
		} else if (form_is_const(x->high_form)) {
			hi = lo + hi;
		}
		return push_range(b, lo, hi);
	}
	if (!x->has_ranges)
		return 0;
	if (u->version >= 5 || x->ranges_form == FORM_rnglistx) {
		uint64_t off = x->ranges;
		struct cur c;

		if (x->ranges_form == FORM_rnglistx) {
			uint64_t rbase = u->has_rng_base ? u->rng_base : 0;

			if (off > (UINT64_MAX - rbase) / u->offsz)
				return 0;
			c = sec_cur(d, S_RNGLISTS, rbase + off * u->offsz);
			off = rd_off(&c, u->offsz);
			if (!c.ok || off > UINT64_MAX - rbase)
				return 0;
			off += rbase;
		}
		c = sec_cur(d, S_RNGLISTS, off);
		for (size_t k = 0; c.ok; k++) {
			uint8_t kind = rd_u8(&c);
			uint64_t a1, a2;

			if (!c.ok || kind == RLE_end_of_list)
				break;
			switch (kind) {
			case RLE_base_addressx:
				if (!dw_read_addrx(d, u, rd_uleb(&c), &base))
					return n;
				continue;
			case RLE_startx_endx:
				a1 = rd_uleb(&c);
				a2 = rd_uleb(&c);
				if (!c.ok || !dw_read_addrx(d, u, a1, &a1) ||
				    !dw_read_addrx(d, u, a2, &a2))
					return n;
				break;
			case RLE_startx_length:
				a1 = rd_uleb(&c);
				a2 = rd_uleb(&c);
				if (!c.ok || !dw_read_addrx(d, u, a1, &a1))
					return n;
				a2 += a1;
				break;
			case RLE_offset_pair:
				a1 = base + rd_uleb(&c);
				a2 = base + rd_uleb(&c);
				break;
			case RLE_base_address: base = rd_un(&c, u->addr_size); continue;
			case RLE_start_end:
				a1 = rd_un(&c, u->addr_size);
				a2 = rd_un(&c, u->addr_size);
				break;
			case RLE_start_length:
				a1 = rd_un(&c, u->addr_size);
				a2 = a1 + rd_uleb(&c);
				break;
			default: return n;
			}
			if (!c.ok)
				break;
			r = push_range(b, a1, a2);
			if (r < 0)
				return -1;
			n += r;
		}
		return n;
	}
	{
		/* DWARF 4 split units: offsets from the skeleton's ranges base. */
		struct cur c = sec_cur(d, S_RANGES, x->ranges + u->ranges_base);
		uint64_t maxaddr =
			u->addr_size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * u->addr_size)) - 1;

		while (c.ok) {
			uint64_t a1 = rd_un(&c, u->addr_size), a2 = rd_un(&c, u->addr_size);

			if (!c.ok || (a1 == 0 && a2 == 0))
				break;
			if (a1 == maxaddr) {
				base = a2;
				continue;
			}
			r = push_range(b, a1 + base, a2 + base);
			if (r < 0)
				return -1;
			n += r;
		}
	}
	return n;
}
