/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binfind.h"

bool psym_path_normalize(const char *path, char *buf, size_t bufsz)
{
	size_t len = 0;
	const char *p = path;

	if (bufsz < 2)
		return false;
	buf[0] = '\0';
	while (*p) {
		const char *seg;
		size_t n;

		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - seg);
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (len > 0 && buf[len - 1] != '/')
				len--;
			if (len > 0)
				len--; /* the slash */
			buf[len] = '\0';
			continue;
		}
		if (len + 1 + n + 1 > bufsz)
			return false;
		buf[len++] = '/';
		memcpy(buf + len, seg, n);
		len += n;
		buf[len] = '\0';
	}
	if (len == 0) {
		buf[0] = '/';
		buf[1] = '\0';
	}
	return true;
}

struct search {
	const struct psym_binfind_opts *o;
	const char *build_id;
	char why[1024];
	int why_rank; /* how telling the current reason is */
	struct psym_elf *found;
	struct psym_err *e;
	int err;
};

static void note(struct search *s, const char *path, int rank, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void note(struct search *s, const char *path, int rank, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s->o->explain)
		s->o->explain(s->o->explain_ud, path, msg);
	if (rank > s->why_rank) {
		s->why_rank = rank;
		snprintf(s->why, sizeof(s->why), "%.600s: %s", path, msg);
	}
}

static bool same_build_id(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
	return !*a && !*b;
}

/* Try one candidate; true when the search is over (found or hard error). */
static bool try(struct search *s, const char *path)
{
	struct psym_err e = { 0 };
	struct psym_elf *elf;
	const char *bid;
	int ret;

	ret = psym_elf_open(path, s->o->elf_limits, &elf, &e);
	if (ret == PSYM_ENOMEM) {
		s->err = psym_err_set(s->e, ret, "%s", e.msg);
		return true;
	}
	if (ret) {
		struct stat st;

		if (stat(path, &st) != 0)
			note(s, path, 1, "not found");
		else if (ret == PSYM_ENOTREG)
			note(s, path, 2, "not a regular file");
		else
			note(s, path, 3, "%s", ret == PSYM_EBADELF ? "not an ELF file" : e.msg);
		return false;
	}
	bid = psym_elf_build_id(elf);
	if (s->build_id && bid && !same_build_id(bid, s->build_id)) {
		note(s, path, 4, "build ID mismatch (file has %s, profile says %s)", bid,
		     s->build_id);
		psym_elf_close(elf);
		return false;
	}
	if (s->build_id && !bid)
		note(s, path, 0, "used (the file has no build ID to check)");
	else
		note(s, path, 0, "used%s", s->build_id ? " (build ID matches)" : "");
	s->found = elf;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR/BUILDID/ *: every regular file in the build-ID directory, sorted. */
static bool try_dir_entries(struct search *s, const char *dir)
{
	char *names[256];
	size_t n = 0;
	struct dirent *de;
	bool done = false;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while ((de = readdir(d)) && n < 256) {
		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0)
			break;
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!done)
			done = try(s, names[i]);
		free(names[i]);
	}
	return done;
}

int psym_binfind(const struct psym_binfind_opts *o, const char *path, const char *build_id,
		 const char *override, struct psym_elf **out, char *why, size_t whysz,
		 struct psym_err *e)
{
	struct search s = { .o = o, .e = e };
	char norm[PATH_MAX], cand[PATH_MAX * 2];
	const char *base, *sysroot = o->sysroot && *o->sysroot ? o->sysroot : "/";

	if (build_id && *build_id)
		s.build_id = build_id;
	snprintf(s.why, sizeof(s.why), "not found");
	if (override) {
		if (try(&s, override))
			goto done;
		goto done;
	}
	if (!psym_path_normalize(path, norm, sizeof(norm))) {
		snprintf(why, whysz, "path too long");
		return PSYM_NOENT;
	}
	base = strrchr(norm, '/');
	base = base ? base + 1 : norm;
	/* A build ID that will become a path must be plain hex. */
	if (s.build_id && !psym_build_id_valid(s.build_id)) {
		note(&s, "(build ID)", 0, "'%.64s' is not hex: not used in paths", s.build_id);
	}
	for (size_t i = 0; i < o->n_search; i++) {
		const char *dir = o->search[i];

		if (s.build_id && psym_build_id_valid(s.build_id)) {
			snprintf(cand, sizeof(cand), "%s/%s/%s", dir, s.build_id, base);
			if (*base && try(&s, cand))
				goto done;
			snprintf(cand, sizeof(cand), "%s/%s", dir, s.build_id);
			if (try_dir_entries(&s, cand))
				goto done;
			if (try(&s, cand))
				goto done;
			snprintf(cand, sizeof(cand), "%s%s/%s", dir, norm, s.build_id);
			if (try(&s, cand))
				goto done;
		}
		if (*base) {
			snprintf(cand, sizeof(cand), "%s/%s", dir, base);
			if (try(&s, cand))
				goto done;
			snprintf(cand, sizeof(cand), "%s%s", dir, norm);
			if (try(&s, cand))
				goto done;
		}
	}
	/* The mapping's own path under the sysroot. */
	if (strcmp(sysroot, "/") == 0) {
		snprintf(cand, sizeof(cand), "%s", norm);
	} else {
		char rroot[PATH_MAX], rcand[PATH_MAX];

		snprintf(cand, sizeof(cand), "%s%s", sysroot, norm);
		/* Symlinks inside the sysroot must not lead out of it either. */
		if (realpath(sysroot, rroot) && realpath(cand, rcand) &&
		    strcmp(rroot, "/") != 0 &&
		    (strncmp(rcand, rroot, strlen(rroot)) != 0 ||
		     (rcand[strlen(rroot)] != '/' && rcand[strlen(rroot)] != '\0'))) {
			note(&s, cand, 2, "leads outside the sysroot (%s)", rcand);
			goto done;
		}
	}
	try(&s, cand);
done:
	if (s.err)
		return s.err;
	if (s.found) {
		*out = s.found;
		return 0;
	}
	snprintf(why, whysz, "%s", s.why);
	return PSYM_NOENT;
}
