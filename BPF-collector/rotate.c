/* SPDX-License-Identifier: MIT */
/* psym-collect --rotate: window names and pruning (rotate.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "rotate.h"
#include "sidenames.h"

#define MAX_WINDOWS 100000 /* window files looked at in the directory */
/*
 * Files with more than one link (the shared copies of PSYM_SIDE_SHARED,
 * linked into each window's side directory) are counted once: at most
 * this many distinct ones, and this many in one side directory; beyond,
 * a file counts in each window that has it (never too little).
 */
#define MAX_LINKED 4096
#define MAX_WINDOW_LINKED 8

/* The directory part of pattern ("." when none) and where its name starts. */
static const char *split(const char *pattern, char *dir, size_t n)
{
	const char *slash = strrchr(pattern, '/');

	if (!slash) {
		snprintf(dir, n, ".");
		return pattern;
	}
	snprintf(dir, n, "%.*s", slash == pattern ? 1 : (int)(slash - pattern), pattern);
	return slash + 1;
}

int rotate_check(const char *pattern, struct psym_err *e)
{
	char dir[4096];
	const char *base = split(pattern, dir, sizeof(dir));
	const char *p;
	bool conv = false;

	if (strlen(pattern) >= sizeof(dir))
		return psym_err_set(e, PSYM_EUSAGE, "--rotate output pattern too long");
	if (strchr(dir, '%'))
		return psym_err_set(e, PSYM_EUSAGE,
				    "--rotate: the directory of '%s' must not change (no %%)",
				    pattern);
	for (p = base; (p = strchr(p, '%')) != NULL; p += 2) {
		if (!p[1])
			return psym_err_set(e, PSYM_EUSAGE, "--rotate: '%s' ends with %%", pattern);
		if (p[1] != '%')
			conv = true;
	}
	if (!conv)
		return psym_err_set(
			e, PSYM_EUSAGE,
			"--rotate: '%s' has no time conversion (e.g. %%Y%%m%%dT%%H%%M%%SZ)",
			pattern);
	return 0;
}

int rotate_name(const char *pattern, time_t t, int seq, char *out, size_t n, struct psym_err *e)
{
	char pat[4200];
	const char *last = NULL;
	struct tm tm;
	size_t len;

	for (const char *p = pattern; (p = strchr(p, '%')) != NULL && p[1]; p += 2)
		if (p[1] != '%')
			last = p;
	if (seq > 0 && last) {
		if ((size_t)snprintf(pat, sizeof(pat), "%.*s-%d%s", (int)(last + 2 - pattern),
				     pattern, seq, last + 2) >= sizeof(pat))
			return psym_err_set(e, PSYM_ELIMIT, "--rotate output pattern too long");
	} else {
		snprintf(pat, sizeof(pat), "%s", pattern);
	}
	gmtime_r(&t, &tm);
	/* The pattern is the user's own -o, checked by rotate_check. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	len = strftime(out, n, pat, &tm);
#pragma GCC diagnostic pop
	if (len == 0 || len >= n - 1)
		return psym_err_set(e, PSYM_ELIMIT, "--rotate: the name made from '%s' is too long",
				    pattern);
	return 0;
}

/* The fnmatch pattern of the names pattern makes: each conversion a '*'. */
static void to_glob(const char *base, char *g, size_t n)
{
	size_t k = 0;

	for (const char *p = base; *p && k + 3 < n; p++) {
		if (p[0] == '%' && p[1]) {
			if (p[1] == '%') {
				g[k++] = '%';
			} else if (k == 0 || g[k - 1] != '*') {
				g[k++] = '*';
			}
			p++;
			continue;
		}
		if (strchr("*?[\\", *p))
			g[k++] = '\\';
		g[k++] = *p;
	}
	g[k] = '\0';
}

/* A file linked from several windows, by (st_dev, st_ino): its bytes, once. */
struct linked {
	uint64_t dev, ino, bytes;
	uint32_t windows; /* kept windows that link it */
};

struct linkset {
	struct linked *l; /* MAX_LINKED, allocated at the first */
	size_t n;
};

struct window {
	char *name;
	int64_t mtime_ns;
	uint64_t bytes;			    /* its own: the files no other window has */
	uint32_t linked[MAX_WINDOW_LINKED]; /* indexes into the linkset */
	uint8_t nlinked;
};

static int by_age(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns < y->mtime_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The linkset's entry of a file with several links (a new one with no
 * window yet), or -1 when the set is full or out of memory.
 */
static long linked_at(struct linkset *ls, const struct stat *st)
{
	for (size_t i = 0; i < ls->n; i++)
		if (ls->l[i].dev == (uint64_t)st->st_dev && ls->l[i].ino == (uint64_t)st->st_ino)
			return (long)i;
	if (!ls->l && !(ls->l = calloc(MAX_LINKED, sizeof(*ls->l))))
		return -1;
	if (ls->n == MAX_LINKED)
		return -1;
	ls->l[ls->n] = (struct linked){ (uint64_t)st->st_dev, (uint64_t)st->st_ino,
					(uint64_t)st->st_size, 0 };
	return (long)ls->n++;
}

/*
 * The regular files in dirfd/name (one level: a side directory) into w:
 * a file with one link to its own bytes, one with more to the linkset
 * (once per window). Returns the bytes it adds to the windows' total.
 */
static uint64_t side_bytes(int dfd, const char *name, struct window *w, struct linkset *ls)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	uint64_t sum = 0;
	struct stat st;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		long k = -1;
		bool seen = false;

		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (st.st_nlink > 1 && w->nlinked < MAX_WINDOW_LINKED)
			k = linked_at(ls, &st);
		if (k < 0) {
			w->bytes += (uint64_t)st.st_size;
			sum += (uint64_t)st.st_size;
			continue;
		}
		for (uint8_t i = 0; i < w->nlinked; i++)
			seen |= w->linked[i] == (uint32_t)k;
		if (seen)
			continue;
		w->linked[w->nlinked++] = (uint32_t)k;
		if (ls->l[k].windows++ == 0)
			sum += ls->l[k].bytes;
	}
	closedir(d);
	return sum;
}

/* w is removed: the bytes that leave the total (a linked file's once no kept window has it). */
static uint64_t window_gone(const struct window *w, struct linkset *ls)
{
	uint64_t sum = w->bytes;

	for (uint8_t i = 0; i < w->nlinked; i++)
		if (--ls->l[w->linked[i]].windows == 0)
			sum += ls->l[w->linked[i]].bytes;
	return sum;
}

/*
 * The shared copies in dirfd's PSYM_SIDE_SHARED that no window links any
 * more removed: only regular files with one link whose name is one that
 * save_shared makes (sidenames.h); nothing else, and no link followed.
 * Another collector writing into the same directory may lose a copy it
 * made but has not linked yet: its side directory then gets its own.
 */
static void prune_shared(int dfd, const char *dir, FILE *log)
{
	int fd = openat(dfd, PSYM_SIDE_SHARED, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char boot[40], sha[65], why[200];
	struct dirent *de;
	struct stat st;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	/* Ours, as save_shared made it: else nothing in it is touched. */
	if (fstat(fd, &st) != 0 || !psym_stat_trusted(&st, why, sizeof(why))) {
		closedir(d);
		return;
	}
	while ((de = readdir(d))) {
		if (!psym_side_kallsyms_id(de->d_name, boot, sha) &&
		    !psym_side_vdso_sha(de->d_name, sha))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode) || st.st_nlink != 1)
			continue;
		if (unlinkat(fd, de->d_name, 0) == 0 && log)
			fprintf(log,
				"psym-collect: removed the shared copy '%s/%s/%s' (no window has it)\n",
				dir, PSYM_SIDE_SHARED, de->d_name);
	}
	closedir(d);
}

/* Remove dirfd/name's regular files and links (one level), then the directory. */
static void remove_side(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

int rotate_prune(const char *pattern, const char *newest, long keep, uint64_t max_bytes, FILE *log)
{
	char dir[4096], glob[4096], side[4200];
	const char *base = split(pattern, dir, sizeof(dir));
	const char *newbase = strrchr(newest, '/') ? strrchr(newest, '/') + 1 : newest;
	struct linkset ls = { NULL, 0 };
	struct window *w = NULL;
	size_t nw = 0, cap = 0, count;
	uint64_t total = 0;
	struct dirent *de;
	struct stat st;
	int removed = 0;
	DIR *d;

	if (!keep && !max_bytes)
		return 0;
	to_glob(base, glob, sizeof(glob));
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && nw < MAX_WINDOWS) {
		if (fnmatch(glob, de->d_name, FNM_PERIOD) != 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (nw == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct window *nwp = realloc(w, nc * sizeof(*w));

			if (!nwp)
				break;
			w = nwp;
			cap = nc;
		}
		memset(&w[nw], 0, sizeof(*w));
		w[nw].name = strdup(de->d_name);
		if (!w[nw].name)
			break;
		w[nw].mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		w[nw].bytes = (uint64_t)st.st_size;
		total += (uint64_t)st.st_size;
		snprintf(side, sizeof(side), PSYM_SIDE_DIR_FMT, de->d_name);
		total += side_bytes(dirfd(d), side, &w[nw], &ls);
		nw++;
	}
	qsort(w, nw, sizeof(*w), by_age);
	count = nw;
	for (size_t i = 0; i < nw; i++) {
		if (!((keep && count > (size_t)keep) || (max_bytes && total > max_bytes)))
			break;
		if (!strcmp(w[i].name, newbase))
			continue;
		if (unlinkat(dirfd(d), w[i].name, 0) != 0)
			continue;
		snprintf(side, sizeof(side), PSYM_SIDE_DIR_FMT, w[i].name);
		remove_side(dirfd(d), side);
		if (log)
			fprintf(log, "psym-collect: removed the old window '%s/%s'\n", dir,
				w[i].name);
		count--;
		total -= window_gone(&w[i], &ls);
		removed++;
	}
	if (removed)
		prune_shared(dirfd(d), dir, log);
	for (size_t i = 0; i < nw; i++)
		free(w[i].name);
	free(w);
	free(ls.l);
	closedir(d);
	return removed;
}
