/* SPDX-License-Identifier: MIT */
/*
 * psym-collect --rotate's pruning (BPF-collector/rotate.c) on a made-up
 * directory of windows whose side directories hard-link one shared copy,
 * as save_shared makes them: --max-disk counts the copy once, and once
 * windows are removed the shared copies no window links go, while names
 * not ours, symbolic links, copies linked elsewhere and an untrusted
 * shared directory are left alone.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rotate.h"
#include "sidenames.h"
#include "tap.h"

#define KALLSYMS                                                                                   \
	"kallsyms-00000000-0000-0000-0000-000000000000-"                                           \
	"0000000000000000000000000000000000000000000000000000000000000001.zst"
#define VDSO "vdso-0000000000000000000000000000000000000000000000000000000000000002.so.zst"
#define VDSO2 "vdso-0000000000000000000000000000000000000000000000000000000000000003.so.zst"
#define KSYMLINK                                                                                   \
	"kallsyms-00000000-0000-0000-0000-000000000000-"                                           \
	"0000000000000000000000000000000000000000000000000000000000000004.zst"

static char dir[64];

static void put(const char *rel, size_t len)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	f = fopen(p, "wb");
	if (!f)
		return;
	for (size_t i = 0; i < len; i++)
		fputc('x', f);
	fclose(f);
}

static bool exists(const char *rel)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return lstat(p, &st) == 0;
}

static void link_rel(const char *from, const char *to)
{
	char a[512], b[512];

	snprintf(a, sizeof(a), "%s/%s", dir, from);
	snprintf(b, sizeof(b), "%s/%s", dir, to);
	if (link(a, b) != 0)
		perror(b);
}

/* Window N: a 100-byte profile at time N, and its side directory. */
static void window(int n, bool shared)
{
	char rel[256], p[512];
	struct timespec t[2] = { { 1000000 + n, 0 }, { 1000000 + n, 0 } };

	snprintf(rel, sizeof(rel), "cpu-%d.pb.gz.d", n);
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	mkdir(p, 0755);
	snprintf(rel, sizeof(rel), "cpu-%d.pb.gz.d/kallsyms.dyn", n);
	put(rel, 50);
	if (shared) {
		snprintf(rel, sizeof(rel), "cpu-%d.pb.gz.d/" KALLSYMS, n);
		link_rel(PSYM_SIDE_SHARED "/" KALLSYMS, rel);
	}
	snprintf(rel, sizeof(rel), "cpu-%d.pb.gz", n);
	put(rel, 100);
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	utimensat(AT_FDCWD, p, t, 0);
}

static nlink_t links(const char *rel)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return lstat(p, &st) == 0 ? st.st_nlink : 0;
}

int main(void)
{
	char pattern[128], newest[128], p[512], target[128];
	int r;

	snprintf(dir, sizeof(dir), "%s", "/tmp/rotate-test.XXXXXX");
	if (!mkdtemp(dir))
		return 99;
	snprintf(pattern, sizeof(pattern), "%s/cpu-%%s.pb.gz", dir);
	snprintf(p, sizeof(p), "%s/" PSYM_SIDE_SHARED, dir);
	mkdir(p, 0755);
	put(PSYM_SIDE_SHARED "/" KALLSYMS, 10000);
	for (int n = 1; n <= 4; n++)
		window(n, true);
	is_int(links(PSYM_SIDE_SHARED "/" KALLSYMS), 5, "the shared copy has 4 windows' links");

	/* 10000 once + 4 windows of 150: 10600; a budget of 10450 takes one. */
	snprintf(newest, sizeof(newest), "%s/cpu-4.pb.gz", dir);
	r = rotate_prune(pattern, newest, 0, 10000 + 3 * 150, NULL);
	is_int(r, 1, "--max-disk: the shared copy counts once (one window removed, not three)");
	ok(!exists("cpu-1.pb.gz") && !exists("cpu-1.pb.gz.d"),
	   "the oldest window went, with its side directory");
	ok(exists("cpu-2.pb.gz") && exists("cpu-3.pb.gz") && exists("cpu-4.pb.gz"),
	   "three windows stay");
	is_int(links(PSYM_SIDE_SHARED "/" KALLSYMS), 4,
	       "the shared copy stays, linked by 3 windows");
	r = rotate_prune(pattern, newest, 0, 10000 + 3 * 150, NULL);
	is_int(r, 0, "within the budget: nothing more removed");

	/* Copies that no window links, and things that are not ours. */
	put(PSYM_SIDE_SHARED "/" VDSO, 10);
	put(PSYM_SIDE_SHARED "/" VDSO2, 10);
	link_rel(PSYM_SIDE_SHARED "/" VDSO2, "elsewhere");
	put(PSYM_SIDE_SHARED "/notours.zst", 10);
	put("target", 10);
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(p, sizeof(p), "%s/" PSYM_SIDE_SHARED "/" KSYMLINK, dir);
	if (symlink(target, p) != 0)
		perror(p);
	r = rotate_prune(pattern, newest, 1, 0, NULL);
	is_int(r, 2, "--keep 1: two windows removed");
	ok(!exists(PSYM_SIDE_SHARED "/" VDSO), "a shared copy no window links is removed");
	ok(exists(PSYM_SIDE_SHARED "/" KALLSYMS), "the copy the kept window links stays");
	ok(exists(PSYM_SIDE_SHARED "/" VDSO2), "a copy linked from elsewhere stays");
	ok(exists(PSYM_SIDE_SHARED "/notours.zst"), "a name not ours stays");
	ok(exists(PSYM_SIDE_SHARED "/" KSYMLINK) && exists("target"),
	   "a symbolic link with our name stays, and what it names");

	/* The last window that links the copy goes: so does the copy. */
	window(5, false);
	snprintf(newest, sizeof(newest), "%s/cpu-5.pb.gz", dir);
	r = rotate_prune(pattern, newest, 1, 0, NULL);
	is_int(r, 1, "--keep 1 again: the window with the link removed");
	ok(!exists(PSYM_SIDE_SHARED "/" KALLSYMS), "the copy its last window linked is removed");

	/* A shared directory others can write is not ours: nothing in it goes. */
	put(PSYM_SIDE_SHARED "/" VDSO, 10);
	snprintf(p, sizeof(p), "%s/" PSYM_SIDE_SHARED, dir);
	chmod(p, 0777);
	window(6, false);
	snprintf(newest, sizeof(newest), "%s/cpu-6.pb.gz", dir);
	r = rotate_prune(pattern, newest, 1, 0, NULL);
	is_int(r, 1, "--keep 1: a window removed");
	ok(exists(PSYM_SIDE_SHARED "/" VDSO), "an untrusted shared directory is left alone");

	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	if (system(p) != 0)
		printf("# cannot remove %s\n", dir);
	return tap_done();
}
