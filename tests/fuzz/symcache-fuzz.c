/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the persistent symbol cache reader. The input is written as
 * a cache file, opened (checked whole), looked up at many addresses, given
 * one new answer and written back merged (then read again).
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symcache.h"

#define VARIANT "i-" PACKAGE_VERSION

static char dir[64];

/* At exit: the cache directory this process made goes, with what is in it. */
static void remove_dir(void)
{
	char sub[128];
	DIR *d;

	snprintf(sub, sizeof(sub), "%s/v%d", dir, PSYM_SYMCACHE_VERSION);
	d = opendir(sub);
	if (d) {
		struct dirent *de;

		while ((de = readdir(d))) {
			char f[400];

			if (de->d_name[0] == '.')
				continue;
			snprintf(f, sizeof(f), "%s/%s", sub, de->d_name);
			unlink(f);
		}
		closedir(d);
	}
	rmdir(sub);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128];
	struct psym_symcache *c = NULL;
	struct psym_err e = { 0 };
	const struct psym_frame *fr;
	struct psym_frame add = { .name = "added", .file = "f.c", .line = 7 };
	size_t n;
	bool fresh;
	FILE *f;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/psym-symcache-fuzz.%ld", (long)getpid());
		snprintf(path, sizeof(path), "%s/v%d", dir, PSYM_SYMCACHE_VERSION);
		mkdir(dir, 0700);
		mkdir(path, 0700);
		atexit(remove_dir);
	}
	snprintf(path, sizeof(path), "%s/v%d/k.psc", dir, PSYM_SYMCACHE_VERSION);
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (psym_symcache_open(dir, "k", VARIANT, &c, NULL, &e) != 0)
		return 0;
	for (uint64_t a = 0; a < 0x2000; a += 7)
		psym_symcache_lookup(c, a, &fr, &n);
	psym_symcache_lookup(c, 0x401000, &fr, &n);
	psym_symcache_lookup(c, UINT64_MAX, &fr, &n);
	/* A new answer must read back (an address already cached keeps its own). */
	fresh = !psym_symcache_lookup(c, 0x1234, &fr, &n);
	psym_symcache_add(c, 0x1234, &add, 1);
	psym_symcache_save(c, &e);
	psym_symcache_close(c);
	if (fresh && psym_symcache_open(dir, "k", VARIANT, &c, NULL, &e) == 0) {
		if (!psym_symcache_lookup(c, 0x1234, &fr, &n) || n != 1 ||
		    strcmp(fr[0].name, "added"))
			abort(); /* what was written must read back */
		psym_symcache_close(c);
	}
	return 0;
}
