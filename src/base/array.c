/* SPDX-License-Identifier: MIT */
/* Growing an array by doubling (array.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "array.h"

void *psym_array_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t max)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return arr;
	if (!max || max > SIZE_MAX / elem)
		max = SIZE_MAX / elem;
	if (need > max)
		return NULL;
	if (n > max)
		n = max; /* a cap under the first size: the cap is the size */
	while (n < need)
		n = n > max / 2 ? max : n * 2;
	p = realloc(arr, n * elem);
	if (!p)
		return NULL;
	*cap = n;
	return p;
}
