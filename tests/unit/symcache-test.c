/* SPDX-License-Identifier: MIT */
/*
 * The symbol cache against its file changing under it: truncated or
 * overwritten in place after open (answers must stay those of the file as it
 * was opened, never SIGBUS or wild offsets), damaged before open (ignored and
 * reported as damaged, unlike a file of other options), and the temporaries
 * of a writer killed before its rename (removed for dead PIDs only).
 * Closing writes nothing (issue 49: no file is written from a destructor);
 * save writes this run's answers once, and nothing is added after it.
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symcache.h"
#include "tap.h"

#define N 20000
#define VARIANT "i-test"

static char names[N][16];
static char dir[64], path[160];

static void make_cache(void)
{
	struct psym_symcache *c;
	struct psym_err e = { 0 };

	for (int i = 0; i < N; i++)
		snprintf(names[i], sizeof(names[i]), "fn_%d", i);
	psym_symcache_open(dir, "k", VARIANT, &c, NULL, &e);
	for (int i = 0; i < N; i++) {
		struct psym_frame f = { .name = names[i], .file = "f.c", .line = i + 1 };

		psym_symcache_add(c, 0x1000 + 16 * (uint64_t)i, &f, 1);
	}
	psym_symcache_save(c, &e);
	psym_symcache_close(c);
}

/* Every address answered as written? */
static int all_answers_right(struct psym_symcache *c)
{
	for (int i = 0; i < N; i++) {
		const struct psym_frame *fr;
		size_t n;

		if (psym_symcache_lookup(c, 0x1000 + 16 * (uint64_t)i, &fr, &n) != 1 || n != 1 ||
		    strcmp(fr[0].name, names[i]) != 0 || fr[0].line != i + 1)
			return 0;
	}
	return 1;
}

/* Open, let change() damage the file, look everything up: in a child. */
static void under_change(const char *what, void (*change)(void))
{
	pid_t pid;
	int st;

	make_cache();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct psym_symcache *c;
		struct psym_err e = { 0 };
		const char *note = NULL;

		if (psym_symcache_open(dir, "k", VARIANT, &c, &note, &e) != 0 || note)
			_exit(3);
		change();
		_exit(all_answers_right(c) ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "file %s after open: answers unchanged (%s %d)",
	   what, WIFSIGNALED(st) ? "signal" : "exit",
	   WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

static void truncate_zero(void)
{
	truncate(path, 0);
}

static void overwrite(void)
{
	struct stat st;
	int fd = open(path, O_WRONLY);
	char *junk;

	if (fd < 0 || fstat(fd, &st) != 0)
		_exit(4);
	junk = malloc((size_t)st.st_size);
	memset(junk, 0xff, (size_t)st.st_size);
	if (write(fd, junk, (size_t)st.st_size) != st.st_size)
		_exit(4);
	close(fd);
	free(junk);
}

static void damaged_before_open(void)
{
	struct psym_symcache *c;
	struct psym_err e = { 0 };
	const struct psym_frame *fr;
	const char *note = NULL;
	struct stat st;
	size_t n;

	make_cache();
	stat(path, &st);
	truncate(path, st.st_size / 2);
	psym_symcache_open(dir, "k", VARIANT, &c, &note, &e);
	ok(note && psym_symcache_damaged(c), "truncated before open: damaged (%s)",
	   note ? note : "no note");
	is_int(psym_symcache_lookup(c, 0x1000, &fr, &n), 0, "truncated before open: no answers");
	psym_symcache_save(c, &e);
	psym_symcache_close(c);

	make_cache();
	psym_symcache_open(dir, "k", "n-other", &c, &note, &e);
	ok(note && !psym_symcache_damaged(c), "other options: ignored, not damaged (%s)",
	   note ? note : "no note");
	psym_symcache_save(c, &e);
	psym_symcache_close(c);
}

static void close_writes_nothing(void)
{
	struct psym_frame f = { .name = "saved", .file = "s.c", .line = 7 }, g = f;
	const struct psym_frame *fr;
	struct psym_symcache *c;
	struct psym_err e = { 0 };
	struct stat st;
	char cmd[128];
	size_t n;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/v*", dir);
	if (system(cmd) != 0)
		return;
	psym_symcache_open(dir, "k", VARIANT, &c, NULL, &e);
	psym_symcache_add(c, 0x500, &f, 1);
	psym_symcache_close(c);
	ok(stat(path, &st) != 0, "close without save: no cache file written");
	psym_symcache_open(dir, "k", VARIANT, &c, NULL, &e);
	psym_symcache_add(c, 0x500, &f, 1);
	is_int(psym_symcache_save(c, &e), 0, "save: %s", e.msg);
	ok(stat(path, &st) == 0, "save writes the file");
	g.name = "after";
	psym_symcache_add(c, 0x600, &g, 1);
	is_int(psym_symcache_lookup(c, 0x600, &fr, &n), 0, "nothing is added after save");
	is_int(psym_symcache_save(c, &e), 0, "a second save does nothing");
	psym_symcache_close(c);
	psym_symcache_open(dir, "k", VARIANT, &c, NULL, &e);
	ok(psym_symcache_lookup(c, 0x500, &fr, &n) == 1 && n == 1 && !strcmp(fr[0].name, "saved"),
	   "what was saved reads back");
	is_int(psym_symcache_lookup(c, 0x600, &fr, &n), 0, "what came after save was not written");
	psym_symcache_close(c);
}

static void stale_temporaries(void)
{
	struct psym_symcache *c;
	struct psym_err e = { 0 };
	struct psym_frame f = { .name = "x" };
	char dead[200], live[200], other[200];
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0); /* a PID that no longer exists */
	snprintf(dead, sizeof(dead), "%s/v%d/k.psc.tmp.%ld.AbCdEf", dir, PSYM_SYMCACHE_VERSION,
		 (long)pid);
	snprintf(live, sizeof(live), "%s/v%d/k.psc.tmp.%ld.AbCdEf", dir, PSYM_SYMCACHE_VERSION,
		 (long)getpid());
	snprintf(other, sizeof(other), "%s/v%d/k.psc.tmpx%ld.AbCdEf", dir, PSYM_SYMCACHE_VERSION,
		 (long)pid);
	fclose(fopen(dead, "w"));
	fclose(fopen(live, "w"));
	fclose(fopen(other, "w"));
	psym_symcache_open(dir, "k", VARIANT, &c, NULL, &e);
	psym_symcache_add(c, 0x99, &f, 1);
	is_int(psym_symcache_save(c, &e), 0, "write with temporaries around: %s", e.msg);
	psym_symcache_close(c);
	ok(access(dead, F_OK) != 0, "temporary of a dead writer removed");
	ok(access(live, F_OK) == 0, "temporary of a live writer kept");
	ok(access(other, F_OK) == 0, "a file not named like a temporary kept");
	unlink(live);
	unlink(other);
}

int main(void)
{
	char cmd[128];

	snprintf(dir, sizeof(dir), "%s/psym-symcache-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return 99;
	snprintf(path, sizeof(path), "%s/v%d/k.psc", dir, PSYM_SYMCACHE_VERSION);
	under_change("truncated to 0 bytes", truncate_zero);
	under_change("overwritten in place", overwrite);
	damaged_before_open();
	stale_temporaries();
	close_writes_nothing();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 99;
	return tap_done();
}
