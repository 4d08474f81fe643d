/* SPDX-License-Identifier: MIT */
/* Sorting integer keys: a least-significant-digit radix sort. */
#ifndef PSYM_SORT_H
#define PSYM_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sort v[n] in place, ascending (11-bit digits; digits all keys share are skipped). 0 or PSYM_ENOMEM. */
int psym_sort_u64(uint64_t *v, size_t n);

#endif
