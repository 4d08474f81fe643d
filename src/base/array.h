/* SPDX-License-Identifier: MIT */
/*
 * Growing an array by doubling, in one place: the caller keeps the
 * pointer, the count and the capacity; psym_array_grow makes room.
 *
 *	struct obj *p = psym_array_grow(objs, &cap, n + 1, sizeof(*p), MAX_OBJS);
 *	if (!p)
 *		return PSYM_ENOMEM;   (objs is unchanged and still the caller's)
 *	objs = p;
 */
#ifndef PSYM_ARRAY_H
#define PSYM_ARRAY_H

#include <stddef.h>

/*
 * The array arr (of *cap elements of size elem, NULL when *cap is 0)
 * reallocated to hold at least need elements: the capacity doubles from
 * 16, never past max elements (0: no cap but what size_t can count).
 * Returns the array (maybe moved; *cap updated), or NULL when need is
 * over max or memory ran out (arr and *cap unchanged).
 */
void *psym_array_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t max);

#endif
