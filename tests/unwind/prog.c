/*
 * Known call tree for the unwinding tests, built -O2 -fomit-frame-pointer:
 * main -> a -> b -> recurse^4 -> leaf, a callback from glibc's qsort,
 * a signal handler, and calls through the PLT (puts, getpid).
 * prog LOOPS SCALE: per loop, leaf runs 10*SCALE iterations under the
 * recursion, 11*SCALE under each of qsort's ~17 comparisons of 8 ints,
 * 20*SCALE in the signal handler.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile long sink;
static long scale = 1; /* argv[2]: work per leaf call, for profiling */

__attribute__((noinline)) void leaf(long n)
{
	for (long i = 0; i < (n + 10) * scale; i++)
		sink += i;
}

__attribute__((noinline)) long recurse(long n)
{
	long r;

	if (n == 0) {
		leaf(n);
		return sink;
	}
	r = recurse(n - 1);
	return r + n * sink;
}

static int cmp(const void *x, const void *y)
{
	leaf(1);
	return *(const int *)x - *(const int *)y;
}

static void handler(int sig)
{
	leaf(sig);
}

__attribute__((noinline)) void b(int loops)
{
	int v[8] = { 5, 3, 7, 1, 0, 2, 6, 4 };

	for (int i = 0; i < loops; i++) {
		recurse(3);
		qsort(v, 8, sizeof(v[0]), cmp);
		raise(SIGUSR1);
		sink += getpid();
	}
}

__attribute__((noinline)) void a(int loops)
{
	b(loops);
	sink++;
}

int main(int argc, char **argv)
{
	if (argc > 2)
		scale = atol(argv[2]);
	signal(SIGUSR1, handler);
	puts("start");
	a(argc > 1 ? atoi(argv[1]) : 1);
	return (int)(sink & 1);
}
