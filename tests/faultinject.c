/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD shim for fault-injection tests (like curl's torture runs).
 *
 *   PSYM_FI_MALLOC=N   the Nth malloc/calloc/realloc/strdup after the program's
 *                      first getopt_long() call fails with ENOMEM
 *   PSYM_FI_IO=N       the Nth fwrite/fflush/fsync/fclose/rename/mkstemp fails
 *                      with ENOSPC (fclose still closes the stream)
 *   PSYM_FI_COUNT=FILE at exit, write "MALLOCS IOS" counted after arming
 *
 * Counting starts at the first getopt_long() so that the C library's own
 * start-up allocations are never failed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long fail_malloc = -1, fail_io = -1, n_malloc, n_io;
static int armed;
static const char *count_file;

/* dlsym itself may allocate: serve those from a small static pool. */
static char pool[8192];
static size_t pool_used;
static int in_init;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

static void init(void)
{
	if (real_malloc || in_init)
		return;
	in_init = 1;
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
	in_init = 0;
}

static void *pool_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (pool_used + n > sizeof(pool))
		return NULL;
	p = pool + pool_used;
	pool_used += n;
	return p;
}

static int should_fail_malloc(void)
{
	if (!armed)
		return 0;
	return ++n_malloc == fail_malloc;
}

static int should_fail_io(void)
{
	if (!armed)
		return 0;
	return ++n_io == fail_io;
}

void *malloc(size_t n)
{
	init();
	if (!real_malloc)
		return pool_alloc(n);
	if (should_fail_malloc()) {
		errno = ENOMEM;
		return NULL;
	}
	return real_malloc(n);
}

void *calloc(size_t n, size_t s)
{
	init();
	if (!real_calloc) {
		void *p = pool_alloc(n * s);

		if (p)
			memset(p, 0, n * s);
		return p;
	}
	if (should_fail_malloc()) {
		errno = ENOMEM;
		return NULL;
	}
	return real_calloc(n, s);
}

void *realloc(void *p, size_t n)
{
	init();
	if (should_fail_malloc()) {
		errno = ENOMEM;
		return NULL;
	}
	return real_realloc(p, n);
}

void free(void *p)
{
	if ((char *)p >= pool && (char *)p < pool + sizeof(pool))
		return;
	init();
	real_free(p);
}

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

#define IO_WRAP(ret_t, name, failval, params, args)                                                \
	ret_t name params                                                                          \
	{                                                                                          \
		static ret_t(*real) params;                                                        \
		if (!real)                                                                         \
			real = (ret_t(*) params)dlsym(RTLD_NEXT, #name);                           \
		if (should_fail_io()) {                                                            \
			errno = ENOSPC;                                                            \
			return failval;                                                            \
		}                                                                                  \
		return real args;                                                                  \
	}

IO_WRAP(size_t, fwrite, 0, (const void *b, size_t s, size_t n, FILE *f), (b, s, n, f))
IO_WRAP(int, fflush, EOF, (FILE * f), (f))
IO_WRAP(int, fsync, -1, (int fd), (fd))
IO_WRAP(int, rename, -1, (const char *a, const char *b), (a, b))
IO_WRAP(int, mkstemp, -1, (char *t), (t))

int fclose(FILE *f)
{
	static int (*real)(FILE *);

	if (!real)
		real = (int (*)(FILE *))dlsym(RTLD_NEXT, "fclose");
	if (should_fail_io()) {
		real(f);
		errno = ENOSPC;
		return EOF;
	}
	return real(f);
}

int getopt_long(int argc, char *const argv[], const char *optstring, const struct option *longopts,
		int *longindex)
{
	static int (*real)(int, char *const[], const char *, const struct option *, int *);

	if (!real)
		real = dlsym(RTLD_NEXT, "getopt_long");
	armed = 1;
	return real(argc, argv, optstring, longopts, longindex);
}

__attribute__((constructor)) static void fi_start(void)
{
	const char *m = getenv("PSYM_FI_MALLOC"), *io = getenv("PSYM_FI_IO");

	if (m)
		fail_malloc = strtol(m, NULL, 10);
	if (io)
		fail_io = strtol(io, NULL, 10);
	count_file = getenv("PSYM_FI_COUNT");
}

__attribute__((destructor)) static void fi_end(void)
{
	FILE *f;

	if (!count_file)
		return;
	armed = 0;
	f = fopen(count_file, "w");
	if (f) {
		fprintf(f, "%ld %ld\n", n_malloc, n_io);
		fclose(f);
	}
}
