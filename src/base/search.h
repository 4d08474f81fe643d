/* SPDX-License-Identifier: MIT */
/*
 * Binary search over anything indexable: the one lower-bound loop of the
 * tree (scripts/check-owners keeps it the only one).
 */
#ifndef PSYM_SEARCH_H
#define PSYM_SEARCH_H

#include <stddef.h>

/*
 * The first index i in [lo, hi) for which cond holds, hi when none. cond,
 * an expression of the index named i, must be false over a prefix of the
 * range and true over the rest: a sorted array's lower bound is
 * "v[i] >= key", its upper bound "v[i] > key". A macro, so the compiler
 * sees the comparison inline: the symbol, DWARF and CFI lookups cost what
 * a loop written out would.
 */
#define PSYM_LOWER_BOUND(lo, hi, i, cond)                                                          \
	({                                                                                         \
		size_t psym_lb_lo_ = (lo), psym_lb_hi_ = (hi);                                     \
		while (psym_lb_lo_ < psym_lb_hi_) {                                                \
			size_t i = psym_lb_lo_ + (psym_lb_hi_ - psym_lb_lo_) / 2;                  \
			if (cond)                                                                  \
				psym_lb_hi_ = i;                                                   \
			else                                                                       \
				psym_lb_lo_ = i + 1;                                               \
		}                                                                                  \
		psym_lb_lo_;                                                                       \
	})

#endif
