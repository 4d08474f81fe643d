/*
 * Short-lived real programs for psym-collect's churn test and bench.
 *
 *   shortlived SPIN_MS LIFE_MS
 *     spins on the CPU for SPIN_MS milliseconds inside its own function (so
 *     samples land in this binary), sleeps until LIFE_MS have passed, exits.
 *   shortlived --churn RATE SECONDS SPIN_MS
 *     the driver (named "churn"): starts RATE of those a second for SECONDS
 *     (lives of 5 to 20 ms), reaps them, and prints how many it started.
 *     posix_spawn from one small process keeps the rate where a shell
 *     loop on a loaded machine falls far behind.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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

static void sleep_ms(double ms)
{
	struct timespec rest;

	if (ms <= 0)
		return;
	rest.tv_sec = (time_t)(ms / 1e3);
	rest.tv_nsec = (long)((ms - rest.tv_sec * 1e3) * 1e6);
	nanosleep(&rest, NULL);
}

static int churn(const char *self, double rate, double secs, const char *spin)
{
	double t0 = now_ms(), end = t0 + secs * 1e3;
	long n = 0, failed = 0;

	prctl(PR_SET_NAME, "churn", 0, 0, 0);
	while (now_ms() < end) {
		char life[16];
		char *argv[] = { "shortlived", (char *)spin, life, NULL };
		pid_t pid;

		snprintf(life, sizeof(life), "%ld", 5 + n * 7 % 16);
		if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0)
			failed++;
		n++;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		sleep_ms(t0 + n * 1e3 / rate - now_ms());
	}
	while (wait(NULL) > 0)
		;
	fprintf(stderr, "churn: %ld processes in %.0f ms (%ld failed to start)\n", n - failed,
		now_ms() - t0, failed);
	return 0;
}

int main(int argc, char **argv)
{
	double t0 = now_ms(), spin, life, left;
	volatile unsigned long sink;

	if (argc == 5 && !strcmp(argv[1], "--churn")) {
		/* Its real path: exec'ing /proc/self/exe would name them "exe". */
		char self[4096];
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (len <= 0)
			return 1;
		self[len] = '\0';
		return churn(self, atof(argv[2]), atof(argv[3]), argv[4]);
	}
	spin = argc > 1 ? atof(argv[1]) : 2;
	life = argc > 2 ? atof(argv[2]) : 10;
	sink = shortlived_spin(t0 + spin);
	(void)sink;
	left = t0 + life - now_ms();
	sleep_ms(left);
	return 0;
}
