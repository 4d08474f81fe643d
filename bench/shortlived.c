/*
 * A short-lived real program for bench/churn.sh: spins on the CPU for
 * SPIN_MS milliseconds inside its own function (so samples land in this
 * binary), then sleeps until LIFE_MS have passed, and exits.
 * Usage: shortlived SPIN_MS LIFE_MS
 */
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

__attribute__((noinline)) static unsigned long shortlived_spin(double until)
{
	unsigned long x = 1;

	while (now_ms() < until)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

int main(int argc, char **argv)
{
	double t0 = now_ms(), spin = argc > 1 ? atof(argv[1]) : 2, life = argc > 2 ? atof(argv[2]) : 10;
	volatile unsigned long sink = shortlived_spin(t0 + spin);
	struct timespec rest;
	double left = t0 + life - now_ms();

	(void)sink;
	if (left > 0) {
		rest.tv_sec = (time_t)(left / 1e3);
		rest.tv_nsec = (long)((left - rest.tv_sec * 1e3) * 1e6);
		nanosleep(&rest, NULL);
	}
	return 0;
}
