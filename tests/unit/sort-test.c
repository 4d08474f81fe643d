/* SPDX-License-Identifier: MIT */
/*
 * base's radix sort (sort.h) against qsort(): random keys of every width,
 * keys that share digits (skipped passes), duplicates, n of 0, 1 and 2;
 * psym_sort_u64_from() must order by the high bits only and keep the
 * input order of keys equal there (a stable sort: the order a qsort by
 * (high bits, input position) gives). Below 64 keys the sort inserts
 * (the folded report sorts many such spans): the same checks at n 3..63,
 * and psym_sort_u64_with on the caller's scratch. search.h's lower bound
 * against a linear scan: every key of a sorted array with duplicates and
 * gaps, below and above them all, over every sub-range.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "sort.h"
#include "tap.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* For the stable oracle: the high 32 bits, then the input position (in the low 32). */
static int cmp_high_then_pos(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] >> 32 != y[0] >> 32)
		return x[0] >> 32 < y[0] >> 32 ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* n random keys of bits significant bits (a common prefix above them). */
static void fill(uint64_t *v, size_t n, unsigned bits)
{
	uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
	uint64_t prefix = rnd() & ~mask;

	for (size_t i = 0; i < n; i++)
		v[i] = prefix | (rnd() & mask);
}

static void check_full(size_t n, unsigned bits)
{
	uint64_t *v = malloc((n + 1) * sizeof(*v)), *w = malloc((n + 1) * sizeof(*w));

	fill(v, n, bits);
	memcpy(w, v, n * sizeof(*v));
	qsort(w, n, sizeof(*w), cmp_u64);
	is_int(psym_sort_u64(v, n), 0, "sort %zu keys of %u bits", n, bits);
	ok(n == 0 || memcmp(v, w, n * sizeof(*v)) == 0, "... as qsort orders them");
	free(v);
	free(w);
}

/* Keys whose high half repeats a lot, with a payload in the low half. */
static void check_from(size_t n, unsigned high_bits)
{
	uint64_t *v = malloc((n + 1) * sizeof(*v)), *pairs = malloc((2 * n + 1) * sizeof(*pairs));
	size_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		v[i] = (rnd() & (((uint64_t)1 << high_bits) - 1)) << 32 | (rnd() & 0xffffffffu);
		pairs[2 * i] = v[i];
		pairs[2 * i + 1] = i;
	}
	qsort(pairs, n, 2 * sizeof(*pairs), cmp_high_then_pos);
	is_int(psym_sort_u64_from(v, n, 32), 0, "sort %zu keys by bits 32.. (%u of them vary)", n,
	       high_bits);
	for (size_t i = 0; i < n; i++)
		bad += v[i] != pairs[2 * i];
	is_int(bad, 0, "... stable: equal high halves keep their input order");
	free(v);
	free(pairs);
}

static void check_with(size_t n)
{
	uint64_t *v = malloc((n + 1) * sizeof(*v)), *w = malloc((n + 1) * sizeof(*w));
	uint64_t *tmp = malloc((n + 1) * sizeof(*tmp));

	fill(v, n, 40);
	memcpy(w, v, n * sizeof(*v));
	qsort(w, n, sizeof(*w), cmp_u64);
	psym_sort_u64_with(v, n, 0, tmp);
	ok(n == 0 || memcmp(v, w, n * sizeof(*v)) == 0, "sort %zu keys with scratch as qsort", n);
	free(v);
	free(w);
	free(tmp);
}

/* The first i in [lo, hi) with v[i] >= key (or > key: upper), by hand. */
static size_t linear(const uint64_t *v, size_t lo, size_t hi, uint64_t key, bool upper)
{
	while (lo < hi && (upper ? v[lo] <= key : v[lo] < key))
		lo++;
	return lo;
}

static void check_lower_bound(void)
{
	uint64_t v[40];
	size_t n = sizeof(v) / sizeof(v[0]), bad = 0, tries = 0;

	for (size_t i = 0; i < n; i++)
		v[i] = 10 + 3 * (i / 3); /* runs of 3 equal keys, gaps of 3 */
	for (size_t lo = 0; lo <= n; lo++)
		for (size_t hi = lo; hi <= n; hi++)
			for (uint64_t key = 0; key < 10 + 3 * n / 3 + 5; key++) {
				size_t l = PSYM_LOWER_BOUND(lo, hi, i, v[i] >= key);
				size_t u = PSYM_LOWER_BOUND(lo, hi, i, v[i] > key);

				bad += l != linear(v, lo, hi, key, false);
				bad += u != linear(v, lo, hi, key, true);
				tries++;
			}
	is_int(bad, 0, "lower and upper bounds as a linear scan (%zu searches)", tries);
	is_int(PSYM_LOWER_BOUND(0, 0, i, v[i] >= 1), 0, "an empty range: its end");
}

int main(void)
{
	static const unsigned widths[] = { 1, 8, 11, 12, 22, 33, 40, 63, 64 };

	check_full(0, 64);
	check_full(1, 64);
	check_full(2, 64);
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		check_full(5000, widths[i]);
	check_full(100000, 64);
	check_from(0, 8);
	check_from(1, 8);
	check_from(20000, 3);
	check_from(20000, 12);
	check_from(20000, 32);
	for (size_t n = 3; n < 64; n += 7) {
		check_full(n, 64);
		check_from(n, 2);
		check_with(n);
	}
	check_with(1000);
	check_lower_bound();
	return tap_done();
}
