/* SPDX-License-Identifier: MIT */
/* Sorting integer keys: a least-significant-digit radix sort. */
#ifndef PSYM_SORT_H
#define PSYM_SORT_H

#include <stddef.h>
#include <stdint.h>

#include "psym.h"

/* Sort v[n] in place, ascending (11-bit digits; digits all keys share are skipped). 0 or PSYM_ENOMEM. */
int psym_sort_u64(uint64_t *v, size_t n);

/*
 * The same by bits from_bit..63 only: keys equal there keep their order
 * (the sort is stable), so the low bits can carry a payload, such as a
 * position, that costs no pass. 0 or PSYM_ENOMEM (v untouched).
 */
int psym_sort_u64_from(uint64_t *v, size_t n, unsigned from_bit);
/* psym_sort_u64_with (psym.h): the same in the caller's scratch space. */

#endif
