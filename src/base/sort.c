/* SPDX-License-Identifier: MIT */
/* Sorting integer keys (sort.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sort.h"

int psym_sort_u64(uint64_t *v, size_t n)
{
	return psym_sort_u64_from(v, n, 0);
}

/* Few keys: insertion by bits from_bit..63, stable (a radix pass costs more). */
#define SMALL 64

static void insertion_sort(uint64_t *v, size_t n, unsigned from_bit)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] >> from_bit > x >> from_bit; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

int psym_sort_u64_from(uint64_t *v, size_t n, unsigned from_bit)
{
	uint64_t *tmp;

	if (n < SMALL || from_bit >= 64) {
		psym_sort_u64_with(v, n, from_bit, NULL);
		return 0;
	}
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return PSYM_ENOMEM;
	psym_sort_u64_with(v, n, from_bit, tmp);
	free(tmp);
	return 0;
}

void psym_sort_u64_with(uint64_t *v, size_t n, unsigned from_bit, uint64_t *tmp)
{
	uint64_t *src = v, *dst = tmp, all_or = 0, all_and = ~(uint64_t)0;
	size_t count[2048];

	if (n < 2 || from_bit >= 64)
		return;
	if (n < SMALL) {
		insertion_sort(v, n, from_bit);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		all_or |= v[i];
		all_and &= v[i];
	}
	/* 11-bit digits, least significant first; digits all keys share are skipped. */
	for (unsigned shift = from_bit; shift < 64; shift += 11) {
		size_t sum = 0;

		if ((((all_or ^ all_and) >> shift) & 2047) == 0)
			continue;
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 2047]++] = src[i];
		uint64_t *t = src;

		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}
