/* Inline chains, several functions, static helpers: psym addr on the .o. */
#include <stddef.h>

static inline int sq(int x)
{
	return x * x;
}

static inline int poly(int x)
{
	return sq(x) + 3 * x + 1;
}

int sum_poly(const int *v, size_t n)
{
	int s = 0;

	for (size_t i = 0; i < n; i++)
		s += poly(v[i]);
	return s;
}

static int __attribute__((noinline)) helper(int a, int b)
{
	if (a > b)
		return poly(a) - b;
	return sq(b) + a;
}

int run(int n)
{
	int table[64];
	int s = 0;

	for (int i = 0; i < n && i < 64; i++) {
		table[i] = helper(i, n - i);
		s += table[i];
	}
	return s + sum_poly(table, (size_t)n);
}
