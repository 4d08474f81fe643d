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
#include <strings.h>
#include <sys/stat.h>

#include <unistd.h>
#include <libdeflate.h>

#include "buildid.h"
#include "fileio.h"
#include "locate.h"

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

bool psym_build_id_equal(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
	return !*a && !*b;
}

bool psym_build_id_path(const char *dir, const char *build_id, const char *suffix, char *buf,
			size_t bufsz)
{
	char lower[PSYM_BUILD_ID_HEX_MAX];
	int n;

	if (!build_id || !psym_build_id_valid(build_id) || strlen(build_id) >= sizeof(lower))
		return false;
	strcpy(lower, build_id);
	psym_build_id_lower(lower); /* the trees are named in lowercase */
	n = snprintf(buf, bufsz, "%s/.build-id/%.2s/%s%s", dir, lower, lower + 2,
		     suffix ? suffix : "");
	return n > 0 && (size_t)n < bufsz;
}

int psym_file_crc32(const char *path, uint32_t *crcp, struct psym_err *e)
{
	unsigned char buf[1 << 16];
	uint32_t crc = 0;
	int fd = psym_open_regular(path, e);
	ssize_t n;

	if (fd < 0)
		return fd;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return psym_err_set(e, PSYM_EIO, "cannot read '%s': %s", path,
					    strerror(errno));
		}
		crc = libdeflate_crc32(crc, buf, (size_t)n);
	}
	close(fd);
	*crcp = crc;
	return 0;
}

/* ---- candidates: pure functions ----------------------------------------- */

/* Format a candidate into buf and offer it; true when fn stops. */
static bool offer(psym_cand_fn fn, void *ud, enum psym_cand_rule rule, char *buf, size_t bufsz,
		  const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static bool offer(psym_cand_fn fn, void *ud, enum psym_cand_rule rule, char *buf, size_t bufsz,
		  const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, bufsz, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= bufsz)
		return false; /* too long to be a path: skipped */
	return fn(ud, buf, rule);
}

bool psym_locate_binary_candidates(const struct psym_locate_opts *o, const struct psym_objkey *k,
				   psym_cand_fn fn, void *ud)
{
	char norm[PATH_MAX], cand[PATH_MAX * 2], bid[PSYM_BUILD_ID_HEX_MAX] = "";
	const char *base, *sysroot = o->sysroot && *o->sysroot ? o->sysroot : "/";

	if (k->named)
		return fn(ud, k->named, PSYM_CAND_NAMED);
	if (!k->path || !psym_path_normalize(k->path, norm, sizeof(norm)))
		return false;
	/* A build ID that becomes a path must be plain hex. */
	if (k->build_id && psym_build_id_valid(k->build_id) && strlen(k->build_id) < sizeof(bid)) {
		strcpy(bid, k->build_id);
		psym_build_id_lower(bid);
	}
	base = strrchr(norm, '/');
	base = base ? base + 1 : norm;
	for (size_t i = 0; i < o->n_search; i++) {
		const char *dir = o->search[i];

		if (bid[0]) {
			if (*base && offer(fn, ud, PSYM_CAND_BUILDID_BASE, cand, sizeof(cand),
					   "%s/%s/%s", dir, bid, base))
				return true;
			if (offer(fn, ud, PSYM_CAND_BUILDID_DIR, cand, sizeof(cand), "%s/%s", dir,
				  bid) ||
			    offer(fn, ud, PSYM_CAND_BUILDID, cand, sizeof(cand), "%s/%s", dir,
				  bid) ||
			    offer(fn, ud, PSYM_CAND_PATH_BUILDID, cand, sizeof(cand), "%s%s/%s",
				  dir, norm, bid))
				return true;
		}
		if (*base &&
		    (offer(fn, ud, PSYM_CAND_BASENAME, cand, sizeof(cand), "%s/%s", dir, base) ||
		     offer(fn, ud, PSYM_CAND_PATH, cand, sizeof(cand), "%s%s", dir, norm)))
			return true;
	}
	/* A relative path (a crash log's ./prog) is where the user is. */
	if (strcmp(sysroot, "/") == 0)
		return offer(fn, ud, PSYM_CAND_SYSROOT, cand, sizeof(cand), "%s",
			     k->path[0] == '/' ? norm : k->path);
	return offer(fn, ud, PSYM_CAND_SYSROOT, cand, sizeof(cand), "%s%s", sysroot, norm);
}

/* A debuglink is a plain file name, never a path. */
static bool plain_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

bool psym_locate_link_tails(const char *debug_dir, const char *bindir_abs, const char *debuglink,
			    psym_cand_fn fn, void *ud)
{
	char buf[PATH_MAX * 2];
	const char *tail = bindir_abs;

	if (!bindir_abs || bindir_abs[0] != '/' || !plain_name(debuglink))
		return false;
	/* "/a/b/c": "b/c", then "c" ("a/b/c" is the DEBUGDIR/BINDIR rule). */
	tail = strchr(tail + 1, '/');
	while (tail) {
		tail++;
		while (*tail == '/')
			tail++;
		if (!*tail)
			break;
		if (offer(fn, ud, PSYM_CAND_LINK_TAIL, buf, sizeof(buf), "%s/%s/%s", debug_dir,
			  tail, debuglink))
			return true;
		tail = strchr(tail, '/');
	}
	return false;
}

bool psym_locate_debug_candidates(const struct psym_locate_opts *o, const struct psym_debug_key *k,
				  psym_cand_fn fn, void *ud)
{
	char buf[PATH_MAX * 2];
	const char *dir = k->binary_dir && strcmp(k->binary_dir, "/") != 0 ? k->binary_dir : "";
	const char *adir =
		k->binary_dir_abs && strcmp(k->binary_dir_abs, "/") != 0 ? k->binary_dir_abs : "";

	if (k->build_id && psym_build_id_valid(k->build_id)) {
		for (size_t i = 0; i < o->n_debug_dirs; i++)
			if (psym_build_id_path(o->debug_dirs[i], k->build_id, ".debug", buf,
					       sizeof(buf)) &&
			    fn(ud, buf, PSYM_CAND_TREE_DEBUG))
				return true;
	}
	if (!k->debuglink || !plain_name(k->debuglink))
		return false;
	if (k->binary_dir &&
	    (offer(fn, ud, PSYM_CAND_LINK_BESIDE, buf, sizeof(buf), "%s/%s", dir, k->debuglink) ||
	     offer(fn, ud, PSYM_CAND_LINK_DOTDEBUG, buf, sizeof(buf), "%s/.debug/%s", dir,
		   k->debuglink)))
		return true;
	for (size_t i = 0; i < o->n_debug_dirs; i++) {
		if (k->binary_dir_abs && offer(fn, ud, PSYM_CAND_LINK_DEBUGDIR, buf, sizeof(buf),
					       "%s%s/%s", o->debug_dirs[i], adir, k->debuglink))
			return true;
		if (psym_locate_link_tails(o->debug_dirs[i], adir, k->debuglink, fn, ud))
			return true;
		if (offer(fn, ud, PSYM_CAND_LINK_FLAT, buf, sizeof(buf), "%s/%s", o->debug_dirs[i],
			  k->debuglink))
			return true;
	}
	return false;
}

/* Is path (normalized) dir itself or below it? */
static bool path_under(const char *path, const char *dir)
{
	char nd[PATH_MAX];
	size_t n;

	if (!dir || !psym_path_normalize(dir, nd, sizeof(nd)))
		return false;
	if (strcmp(nd, "/") == 0)
		return path[0] == '/';
	n = strlen(nd);
	return strncmp(path, nd, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* The recorded path made absolute and normalized; false when it cannot be. */
static bool alt_recorded(const struct psym_alt_key *k, char *buf, size_t bufsz)
{
	char joined[PATH_MAX * 2];
	int n;

	if (!k->path || !*k->path)
		return false;
	if (k->path[0] == '/')
		return psym_path_normalize(k->path, buf, bufsz);
	if (!k->debug_dir || k->debug_dir[0] != '/')
		return false; /* relative to nothing we know */
	n = snprintf(joined, sizeof(joined), "%s/%s", k->debug_dir, k->path);
	return n > 0 && (size_t)n < sizeof(joined) && psym_path_normalize(joined, buf, bufsz);
}

static const char usr_debug[] = "/usr/lib/debug";

/* May the recorded path (normalized) be opened: under a place debug files are? */
static bool alt_allowed(const struct psym_locate_opts *o, const struct psym_alt_key *k,
			const char *rec)
{
	if (path_under(rec, usr_debug) || path_under(rec, k->debug_dir))
		return true;
	for (size_t i = 0; i < o->n_debug_dirs; i++)
		if (path_under(rec, o->debug_dirs[i]))
			return true;
	return false;
}

/* ---- split DWARF: .dwo and .dwp candidates ------------------------------ */

/* The last component of a path, when it is a plain file name; else NULL. */
static const char *plain_base(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	return plain_name(b) ? b : NULL;
}

/* DIR and a name below it that ".." cannot leave; false when too long. */
static bool offer_below(psym_cand_fn fn, void *ud, enum psym_cand_rule rule, const char *dir,
			const char *name, bool *stop)
{
	char norm[PATH_MAX], buf[PATH_MAX * 2];

	*stop = false;
	if (!psym_path_normalize(name, norm, sizeof(norm)) || strcmp(norm, "/") == 0)
		return false;
	*stop = offer(fn, ud, rule, buf, sizeof(buf), "%s%s", strcmp(dir, "/") ? dir : "", norm);
	return true;
}

bool psym_locate_dwo_candidates(const struct psym_locate_opts *o, const struct psym_dwo_key *k,
				psym_cand_fn fn, void *ud)
{
	char buf[PATH_MAX * 2], bindir[PATH_MAX];
	const char *name = k->dwo_name, *base;
	bool stop;

	if (!name || !*name)
		return false;
	/* BASENAME alone only when it differs from the name as written. */
	base = strchr(name, '/') ? plain_base(name) : NULL;
	if (name[0] == '/') {
		if (offer(fn, ud, PSYM_CAND_DWO_AS_NAMED, buf, sizeof(buf), "%s", name))
			return true;
	} else if (k->comp_dir && *k->comp_dir) {
		if (offer(fn, ud, PSYM_CAND_DWO_AS_NAMED, buf, sizeof(buf), "%s%s%s", k->comp_dir,
			  k->comp_dir[strlen(k->comp_dir) - 1] == '/' ? "" : "/", name))
			return true;
	}
	if (k->binary_path &&
	    snprintf(bindir, sizeof(bindir), "%s", k->binary_path) < (int)sizeof(bindir)) {
		char *slash = strrchr(bindir, '/');

		if (!slash)
			strcpy(bindir, ".");
		else if (slash == bindir)
			strcpy(bindir, "/");
		else
			*slash = '\0';
		if (name[0] != '/' &&
		    offer_below(fn, ud, PSYM_CAND_DWO_BESIDE, bindir, name, &stop) && stop)
			return true;
		if (base && offer(fn, ud, PSYM_CAND_DWO_BESIDE, buf, sizeof(buf), "%s/%s",
				  strcmp(bindir, "/") ? bindir : "", base))
			return true;
	}
	for (size_t i = 0; i < o->n_dwo_dirs; i++) {
		const char *dir = o->dwo_dirs[i];

		if (offer_below(fn, ud, PSYM_CAND_DWO_DIR, dir, name, &stop) && stop)
			return true;
		if (name[0] != '/' && k->comp_dir && k->comp_dir[0] == '/' &&
		    snprintf(buf, sizeof(buf), "%s/%s", k->comp_dir, name) < (int)sizeof(buf)) {
			char joined[PATH_MAX * 2];

			strcpy(joined, buf);
			if (offer_below(fn, ud, PSYM_CAND_DWO_DIR, dir, joined, &stop) && stop)
				return true;
		}
		if (base && offer(fn, ud, PSYM_CAND_DWO_DIR, buf, sizeof(buf), "%s/%s", dir, base))
			return true;
	}
	return false;
}

bool psym_locate_dwp_candidates(const struct psym_locate_opts *o, const char *binary_path,
				psym_cand_fn fn, void *ud)
{
	char buf[PATH_MAX * 2];
	const char *base = binary_path ? plain_base(binary_path) : NULL;

	if (o->dwp && *o->dwp && fn(ud, o->dwp, PSYM_CAND_DWP_NAMED))
		return true;
	if (binary_path &&
	    offer(fn, ud, PSYM_CAND_DWP_BESIDE, buf, sizeof(buf), "%s.dwp", binary_path))
		return true;
	for (size_t i = 0; base && i < o->n_debug_dirs; i++)
		if (offer(fn, ud, PSYM_CAND_DWP_DEBUGDIR, buf, sizeof(buf), "%s/%s.dwp",
			  o->debug_dirs[i], base))
			return true;
	return false;
}

bool psym_locate_alt_candidates(const struct psym_locate_opts *o, const struct psym_alt_key *k,
				psym_cand_fn fn, void *ud)
{
	char rec[PATH_MAX], buf[PATH_MAX * 2];
	bool have = alt_recorded(k, rec, sizeof(rec)), allowed = have && alt_allowed(o, k, rec);

	if (allowed && fn(ud, rec, PSYM_CAND_ALT_RECORDED))
		return true;
	if (have && path_under(rec, usr_debug) && strlen(rec) > sizeof(usr_debug) - 1) {
		const char *rest = rec + sizeof(usr_debug) - 1;

		for (size_t i = 0; i < o->n_debug_dirs; i++) {
			int n = snprintf(buf, sizeof(buf), "%s%s", o->debug_dirs[i], rest);

			if (n < 0 || (size_t)n >= sizeof(buf) || (allowed && strcmp(buf, rec) == 0))
				continue; /* too long, or the recorded path again */
			if (fn(ud, buf, PSYM_CAND_ALT_DEBUGDIR))
				return true;
		}
	}
	if (k->build_id && psym_build_id_valid(k->build_id)) {
		for (size_t i = 0; i < o->n_debug_dirs; i++)
			if (psym_build_id_path(o->debug_dirs[i], k->build_id, ".debug", buf,
					       sizeof(buf)) &&
			    fn(ud, buf, PSYM_CAND_ALT_TREE))
				return true;
	}
	return false;
}

/* ---- the verifier ---------------------------------------------------------- */

enum want {
	WANT_BINARY,
	WANT_DEBUG
};

struct search {
	const struct psym_locate_opts *o;
	enum want want;
	const char *build_id;  /* wanted, or NULL */
	const char *debuglink; /* for WANT_DEBUG: the binary's debuglink */
	uint32_t crc;
	const char *binary_path;  /* for WANT_DEBUG: never the binary itself */
	const char *sysroot_real; /* realpath of a sysroot other than "/" */
	struct psym_reason *why;
	struct psym_elf *found;
	struct psym_err *e;
	int err;
};

static void verdict(struct search *s, const char *path, enum psym_reason_code code, int rank,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void verdict(struct search *s, const char *path, enum psym_reason_code code, int rank,
		    const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s->o->explain)
		s->o->explain(s->o->explain_ud, path, msg);
	/* debuginfod's later answer (the debug file after the executable) is the newer news. */
	if (code == PSYM_R_DEBUGINFOD && s->why->code == PSYM_R_DEBUGINFOD)
		s->why->code = PSYM_R_NONE;
	if (code != PSYM_R_NONE)
		psym_reason_offer(s->why, code, rank, "%.600s: %s", path, msg);
}

/* A sysroot candidate whose symlinks lead out of the sysroot. */
static bool outside_root(struct search *s, const char *path)
{
	char real[PATH_MAX];
	size_t n;

	if (!s->sysroot_real || !realpath(path, real))
		return false;
	n = strlen(s->sysroot_real);
	if (strncmp(real, s->sysroot_real, n) == 0 && (real[n] == '/' || real[n] == '\0'))
		return false;
	verdict(s, path, PSYM_R_OUTSIDE_ROOT, 2, "leads outside the sysroot (%s)", real);
	return true;
}

/* Try one file; true when the search is over (found, or a hard error). */
static bool try_file(struct search *s, const char *path, enum psym_cand_rule rule)
{
	bool named = rule == PSYM_CAND_NAMED;
	bool link = rule >= PSYM_CAND_LINK_BESIDE && rule <= PSYM_CAND_LINK_FLAT;
	struct psym_err e = { 0 };
	struct psym_elf *elf;
	const char *bid;
	int ret;

	if (rule == PSYM_CAND_SYSROOT && outside_root(s, path))
		return false;
	if (s->binary_path && psym_same_file(path, s->binary_path)) {
		verdict(s, path, PSYM_R_NONE, 0, "is the binary itself");
		return false;
	}
	ret = psym_elf_open(path, s->o->elf_limits, &elf, &e);
	if (ret == PSYM_ENOMEM) {
		s->err = psym_err_set(s->e, ret, "%s", e.msg);
		return true;
	}
	if (ret) {
		struct stat st;

		if (stat(path, &st) != 0)
			verdict(s, path, PSYM_R_NOT_FOUND, 1, "not found");
		else if (ret == PSYM_ENOTREG)
			verdict(s, path, PSYM_R_NOT_REGULAR, 2, "not a regular file");
		else if (named) /* the user's own file: its error as the reader words it */
			psym_reason_offer(s->why, PSYM_R_BAD_FILE, 3, "%s", e.msg);
		else
			verdict(s, path, PSYM_R_BAD_FILE, 3, "%s",
				ret == PSYM_EBADELF ? "not an ELF file" : e.msg);
		if (named && s->o->explain)
			s->o->explain(s->o->explain_ud, path, e.msg);
		return false;
	}
	bid = psym_elf_build_id(elf);
	if (s->build_id && bid && !psym_build_id_equal(bid, s->build_id)) {
		verdict(s, path, PSYM_R_BUILD_ID_MISMATCH, 5,
			"build ID mismatch: rejected: build ID %s, want %s", bid, s->build_id);
		goto reject;
	}
	if (s->build_id && !bid && !named) {
		verdict(s, path, PSYM_R_NO_BUILD_ID, 4,
			"rejected: the file has no build ID, want %s (name it explicitly to "
			"use it)",
			s->build_id);
		goto reject;
	}
	if (link && !(s->build_id && bid)) {
		uint32_t crc;

		if (psym_file_crc32(path, &crc, &e) != 0) {
			verdict(s, path, PSYM_R_BAD_FILE, 3, "rejected: %s", e.msg);
			goto reject;
		}
		if (crc != s->crc) {
			verdict(s, path, PSYM_R_CRC_MISMATCH, 4,
				"rejected: CRC %08x, debuglink says %08x", crc, s->crc);
			goto reject;
		}
		verdict(s, path, PSYM_R_NONE, 0, "used (debuglink CRC matches)");
	} else if (s->build_id && !bid) {
		verdict(s, path, PSYM_R_NONE, 0,
			"used as named (the file has no build ID to check)");
	} else if (s->want == WANT_BINARY && psym_elf_is_debug_only(elf)) {
		verdict(s, path, PSYM_R_NONE, 0,
			"used in place of the binary: a debug file (build ID matches)");
	} else {
		verdict(s, path, PSYM_R_NONE, 0, "used%s",
			s->build_id ? " (build ID matches)" : "");
	}
	s->found = elf;
	return true;
reject:
	psym_elf_close(elf);
	return false;
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
			done = try_file(s, names[i], PSYM_CAND_BUILDID_BASE);
		free(names[i]);
	}
	return done;
}

static bool try_candidate(void *ud, const char *path, enum psym_cand_rule rule)
{
	struct search *s = ud;

	if (rule == PSYM_CAND_BUILDID_DIR)
		return try_dir_entries(s, path);
	if (rule != PSYM_CAND_NAMED && rule != PSYM_CAND_SYSROOT && access(path, F_OK) != 0) {
		verdict(s, path, PSYM_R_NOT_FOUND, 1, "not found");
		return false;
	}
	return try_file(s, path, rule);
}

/* What debuginfod has for a build ID, as a verified ELF file. */
static bool try_debuginfod(struct search *s, enum psym_debuginfod_kind kind)
{
	struct psym_debuginfod_req r = { .kind = kind };
	char id[PSYM_BUILD_ID_HEX_MAX];
	struct psym_err e = { 0 };
	bool done;

	if (!s->o->debuginfod || !s->build_id || !psym_build_id_valid(s->build_id) ||
	    strlen(s->build_id) >= sizeof(id))
		return false;
	strcpy(id, s->build_id);
	psym_build_id_lower(id); /* debuginfod's URLs are lowercase */
	r.build_id = id;
	if (psym_debuginfod_fetch(s->o->debuginfod, &r, 1, &e) != 0) {
		verdict(s, s->build_id, PSYM_R_DEBUGINFOD, 2, "debuginfod: %s", e.msg);
		return false;
	}
	if (!r.path) {
		verdict(s, s->build_id, PSYM_R_DEBUGINFOD, 2, "%s", r.reason);
		return false;
	}
	done = try_file(s, r.path, PSYM_CAND_TREE);
	psym_debuginfod_reqs_free(&r, 1);
	return done;
}

/* Files of the wanted build ID: the .build-id trees, then debuginfod. */
static bool by_build_id(struct search *s, bool binary_first)
{
	static const char *const binary_sfx[] = { "", ".debug" }, *const debug_sfx[] = { ".debug" };
	const char *const *sfx = binary_first ? binary_sfx : debug_sfx;
	size_t nsfx = binary_first ? 2 : 1;
	char path[PATH_MAX * 2];

	if (!s->build_id || !psym_build_id_valid(s->build_id))
		return false;
	for (size_t i = 0; i < s->o->n_debug_dirs; i++)
		for (size_t k = 0; k < nsfx; k++)
			if (psym_build_id_path(s->o->debug_dirs[i], s->build_id, sfx[k], path,
					       sizeof(path)) &&
			    try_candidate(s, path,
					  k == 0 && binary_first ? PSYM_CAND_TREE
								 : PSYM_CAND_TREE_DEBUG))
				return true;
	if (binary_first && try_debuginfod(s, PSYM_DEBUGINFOD_EXECUTABLE))
		return true;
	return try_debuginfod(s, PSYM_DEBUGINFOD_DEBUGINFO);
}

static int finish(struct search *s, struct psym_elf **out)
{
	if (s->err) {
		psym_elf_close(s->found);
		return s->err;
	}
	if (!s->found) {
		if (s->why->code == PSYM_R_NONE)
			psym_reason_set(s->why, PSYM_R_NOT_FOUND, "not found");
		return PSYM_NOENT;
	}
	*out = s->found;
	return 0;
}

int psym_locate_binary(const struct psym_locate_opts *o, const struct psym_objkey *k,
		       struct psym_elf **out, struct psym_reason *why, struct psym_err *e)
{
	struct search s = { .o = o, .want = WANT_BINARY, .why = why, .e = e };
	char real[PATH_MAX];

	memset(why, 0, sizeof(*why));
	if (k->build_id && *k->build_id)
		s.build_id = k->build_id;
	if (s.build_id && !psym_build_id_valid(s.build_id))
		verdict(&s, "(build ID)", PSYM_R_NONE, 0, "'%.64s' is not hex: not used in paths",
			s.build_id);
	if (!k->named && k->path && !psym_path_normalize(k->path, real, sizeof(real)))
		psym_reason_set(why, PSYM_R_NOT_FOUND, "path too long");
	if (o->sysroot && *o->sysroot && strcmp(o->sysroot, "/") != 0 &&
	    realpath(o->sysroot, real) && strcmp(real, "/") != 0)
		s.sysroot_real = real;
	if (!psym_locate_binary_candidates(o, k, try_candidate, &s) && !s.found && !k->named)
		by_build_id(&s, true);
	return finish(&s, out);
}

int psym_locate_by_build_id(const struct psym_locate_opts *o, const char *build_id,
			    struct psym_elf **out, struct psym_reason *why, struct psym_err *e)
{
	struct search s = { .o = o, .want = WANT_BINARY, .build_id = build_id, .why = why, .e = e };

	memset(why, 0, sizeof(*why));
	if (!build_id || !psym_build_id_valid(build_id)) {
		psym_reason_set(why, PSYM_R_NOT_FOUND, "'%.64s' is not a build ID",
				build_id ? build_id : "");
		return PSYM_NOENT;
	}
	by_build_id(&s, true);
	return finish(&s, out);
}

int psym_locate_debug_file(const struct psym_locate_opts *o, const char *build_id,
			   const char *binary_path, const char *debuglink, uint32_t crc,
			   struct psym_elf **out, struct psym_reason *why, struct psym_err *e)
{
	struct search s = { .o = o, .want = WANT_DEBUG, .why = why, .e = e };
	struct psym_debug_key k = {
		.build_id = build_id,
		.debuglink = debuglink,
		.debuglink_crc = crc,
	};
	char real[PATH_MAX], given[PATH_MAX], *slash;

	memset(why, 0, sizeof(*why));
	s.build_id = build_id;
	s.binary_path = binary_path;
	s.crc = crc;
	if (debuglink && !plain_name(debuglink))
		verdict(&s, debuglink, PSYM_R_NONE, 0,
			"not searched: debuglink is not a plain file name");
	/* The binary's directory as given, and absolute, for the debuglink rules. */
	if (binary_path && snprintf(given, sizeof(given), "%s", binary_path) < (int)sizeof(given)) {
		slash = strrchr(given, '/');
		if (!slash)
			k.binary_dir = ".";
		else if (slash == given)
			k.binary_dir = "/";
		else {
			*slash = '\0';
			k.binary_dir = given;
		}
	}
	if (binary_path && realpath(binary_path, real) && (slash = strrchr(real, '/'))) {
		*slash = '\0';
		k.binary_dir_abs = real[0] ? real : "/";
	}
	if (k.build_id && !psym_build_id_valid(k.build_id)) {
		verdict(&s, "(build-id)", PSYM_R_NONE, 0,
			"not searched: build ID '%.40s' is not hex", k.build_id);
		k.build_id = NULL;
	}
	if (!psym_locate_debug_candidates(o, &k, try_candidate, &s) && !s.found && !s.err)
		try_debuginfod(&s, PSYM_DEBUGINFOD_DEBUGINFO);
	return finish(&s, out);
}

int psym_locate_debug(const struct psym_locate_opts *o, struct psym_elf *binary,
		      struct psym_elf **out, struct psym_reason *why, struct psym_err *e)
{
	const char *link = NULL;
	uint32_t crc = 0;

	psym_elf_debuglink(binary, &link, &crc);
	return psym_locate_debug_file(o, psym_elf_build_id(binary), psym_elf_path(binary), link,
				      crc, out, why, e);
}

int psym_locate_alt(const struct psym_locate_opts *o, const struct psym_alt_key *k,
		    struct psym_elf **out, struct psym_reason *why, struct psym_err *e)
{
	struct search s = { .o = o, .want = WANT_DEBUG, .why = why, .e = e };
	char rec[PATH_MAX];

	memset(why, 0, sizeof(*why));
	if (!k->build_id || !psym_build_id_valid(k->build_id)) {
		psym_reason_set(why, PSYM_R_NOT_FOUND,
				"alternate file '%.512s': no build ID to check",
				k->path ? k->path : "");
		return PSYM_NOENT;
	}
	s.build_id = k->build_id;
	if (!alt_recorded(k, rec, sizeof(rec)))
		verdict(&s, k->path ? k->path : "(alternate file)", PSYM_R_NONE, 0,
			"not searched: the recorded path cannot be made absolute");
	else if (!alt_allowed(o, k, rec))
		verdict(&s, rec, PSYM_R_OUTSIDE_ROOT, 2,
			"not searched: outside the debug dirs and the debug file's directory");
	if (!psym_locate_alt_candidates(o, k, try_candidate, &s) && !s.found && !s.err)
		try_debuginfod(&s, PSYM_DEBUGINFOD_DEBUGINFO);
	return finish(&s, out);
}

/* ---- kernel, vDSO and JIT objects ------------------------------------------- */

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void explain(const struct psym_locate_opts *o, const char *path, const char *verdict)
{
	if (o->explain)
		o->explain(o->explain_ud, path, verdict);
}

/* A vmlinux must define _text; a guess by path needs agreeing build IDs. */
static bool vmlinux_ok(const struct psym_locate_opts *o, struct psym_elf *elf, const char *want,
		       const char *path, bool explicit, uint64_t *text, struct psym_reason *why)
{
	const char *have = psym_elf_build_id(elf);

	if (want && *want && have && !psym_build_id_equal(want, have)) {
		psym_reason_set(why, PSYM_R_BUILD_ID_MISMATCH,
				"'%s': build ID %s is not the profiled kernel's (%s)", path, have,
				want);
		explain(o, path, "rejected: build IDs differ");
		return false;
	}
	if (!explicit && (!want || !*want || !have)) {
		explain(o, path, "rejected: build IDs unknown or differ");
		return false;
	}
	if (psym_elf_find_symbol(elf, "_text", text) != 0 &&
	    psym_elf_find_symbol(elf, "_stext", text) != 0) {
		psym_reason_set(why, PSYM_R_NO_VMLINUX, "'%s': no _text symbol (not a vmlinux?)",
				path);
		return false;
	}
	return true;
}

int psym_locate_vmlinux(const struct psym_locate_opts *o, const char *build_id,
			struct psym_elf **out, uint64_t *text, struct psym_reason *why,
			struct psym_err *e)
{
	struct psym_reason r2 = { 0 };
	struct psym_elf *elf = NULL;
	struct psym_err le = { 0 };
	char path[4][600];
	size_t np = 0;
	int ret;

	memset(why, 0, sizeof(*why));
	if (build_id && !*build_id)
		build_id = NULL;
	if (o->vmlinux) {
		ret = psym_elf_open(o->vmlinux, o->elf_limits, &elf, &le);
		if (ret == PSYM_ENOMEM)
			return psym_err_set(e, ret, "%s", le.msg);
		if (ret) {
			psym_reason_set(why, PSYM_R_BAD_FILE, "%s", le.msg);
			return PSYM_NOENT;
		}
		if (!vmlinux_ok(o, elf, build_id, o->vmlinux, true, text, why)) {
			psym_elf_close(elf);
			return PSYM_NOENT;
		}
		goto found;
	}
	if (build_id) {
		ret = psym_locate_by_build_id(o, build_id, &elf, &r2, e);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			if (vmlinux_ok(o, elf, build_id, psym_elf_path(elf), true, text, why))
				goto found;
			psym_elf_close(elf);
			elf = NULL;
		}
	}
	if (o->release) {
		snprintf(path[np++], sizeof(path[0]), "/usr/lib/debug/boot/vmlinux-%s", o->release);
		snprintf(path[np++], sizeof(path[0]), "/usr/lib/debug/lib/modules/%s/vmlinux",
			 o->release);
		snprintf(path[np++], sizeof(path[0]), "/boot/vmlinux-%s", o->release);
		snprintf(path[np++], sizeof(path[0]), "/lib/modules/%s/build/vmlinux", o->release);
	}
	for (size_t i = 0; i < np; i++) {
		ret = psym_elf_open(path[i], o->elf_limits, &elf, &le);
		if (ret == PSYM_ENOMEM)
			return psym_err_set(e, ret, "%s", le.msg);
		if (ret) {
			explain(o, path[i], "not found");
			continue;
		}
		if (vmlinux_ok(o, elf, build_id, path[i], false, text, why))
			goto found;
		psym_elf_close(elf);
		elf = NULL;
	}
	if (why->code == PSYM_R_NONE)
		psym_reason_set(why, PSYM_R_NO_VMLINUX, "no vmlinux for kernel build ID %s",
				build_id ? build_id : "(unknown)");
	return PSYM_NOENT;
found:
	explain(o, psym_elf_path(elf), "vmlinux used");
	*out = elf;
	return 0;
}

/* The image in memory with build_id: 0 with *out, PSYM_NOENT (none), or an error. */
static int vdso_in_memory(const struct psym_locate_opts *o, const char *build_id,
			  struct psym_elf **out, struct psym_reason *why, struct psym_err *e)
{
	for (size_t i = 0; build_id && i < o->n_vdso_images; i++) {
		const struct psym_mem_image *im = &o->vdso_images[i];
		struct psym_err le = { 0 };
		void *copy;
		int ret;

		if (strcasecmp(im->build_id, build_id))
			continue;
		copy = malloc(im->len ? im->len : 1);
		if (!copy)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		memcpy(copy, im->bytes, im->len);
		ret = psym_elf_open_mem(copy, im->len, true, im->name, o->elf_limits, out, &le);
		if (ret == PSYM_ENOMEM)
			return psym_err_set(e, ret, "%s", le.msg);
		if (ret) {
			explain(o, im->name, le.msg);
			psym_reason_set(why, PSYM_R_BAD_FILE, "%s", le.msg);
			continue;
		}
		explain(o, im->name, "vDSO image used");
		return 0;
	}
	return PSYM_NOENT;
}

int psym_locate_vdso(const struct psym_locate_opts *o, const char *build_id, struct psym_elf **out,
		     struct psym_reason *why, struct psym_err *e)
{
	char cands[3][4200];
	size_t n = 0;
	int ret;

	memset(why, 0, sizeof(*why));
	ret = vdso_in_memory(o, build_id, out, why, e);
	if (ret != PSYM_NOENT)
		return ret;
	if (o->vdso)
		snprintf(cands[n++], sizeof(cands[0]), "%s", o->vdso);
	if (o->side_dir)
		snprintf(cands[n++], sizeof(cands[0]), "%s/vdso.so", o->side_dir);
	if (o->release)
		snprintf(cands[n++], sizeof(cands[0]), "/lib/modules/%s/vdso/vdso64.so",
			 o->release);
	psym_reason_set(why, PSYM_R_NO_VDSO,
			"no vDSO image (give --vdso FILE, or keep the collector's side directory)");
	for (size_t i = 0; i < n; i++) {
		struct psym_err le = { 0 };

		if (!is_file(cands[i])) {
			explain(o, cands[i], "not found");
			continue;
		}
		ret = psym_elf_open(cands[i], o->elf_limits, out, &le);
		if (ret == PSYM_ENOMEM)
			return psym_err_set(e, ret, "%s", le.msg);
		if (ret) {
			psym_reason_set(why, PSYM_R_BAD_FILE, "%s", le.msg);
			continue;
		}
		explain(o, cands[i], "vDSO image used");
		return 0;
	}
	return PSYM_NOENT;
}

int psym_locate_kallsyms(const struct psym_locate_opts *o, char *buf, size_t bufsz,
			 struct psym_reason *why)
{
	memset(why, 0, sizeof(*why));
	if (o->kallsyms) {
		snprintf(buf, bufsz, "%s", o->kallsyms);
		return 0;
	}
	if (o->side_dir && snprintf(buf, bufsz, "%s/kallsyms", o->side_dir) < (int)bufsz &&
	    is_file(buf))
		return 0;
	psym_reason_set(why, PSYM_R_NO_KALLSYMS,
			"no kallsyms copy (give --kallsyms FILE, or keep the collector's side "
			"directory next to the profile)");
	return PSYM_NOENT;
}

void psym_locate_perf_maps(const struct psym_locate_opts *o, int pid, psym_perfmap_fn fn, void *ud)
{
	char path[4200];

	if (pid <= 0)
		return;
	for (int jit = 0; jit < 2; jit++) {
		for (size_t i = 0; i < 1 + o->n_perf_map_dirs; i++) {
			const char *dir = i == 0 ? o->side_dir : o->perf_map_dirs[i - 1];

			if (!dir)
				continue;
			if (jit)
				snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, pid);
			else
				snprintf(path, sizeof(path), "%s/perf-%d.map", dir, pid);
			if (!is_file(path)) {
				if (!jit)
					explain(o, path, "not found");
				continue;
			}
			if (fn(ud, path, jit))
				break; /* the first (newest: the saved snapshot) wins */
		}
	}
}

/* ---- kernel modules ---------------------------------------------------------- */

/* A release is one path component ("6.1.0-18-amd64"), never a way out. */
static bool plain_release(const char *r)
{
	return r && plain_name(r);
}

bool psym_locate_module_roots(const struct psym_locate_opts *o, psym_cand_fn fn, void *ud)
{
	char buf[PATH_MAX * 2];
	const char *sysroot = o->sysroot && *o->sysroot ? o->sysroot : "";

	for (size_t i = 0; i < o->n_modules_dirs; i++)
		if (offer(fn, ud, PSYM_CAND_MODULE_DIR, buf, sizeof(buf), "%s", o->modules_dirs[i]))
			return true;
	if (!plain_release(o->release))
		return false;
	for (size_t i = 0; i < o->n_debug_dirs; i++)
		if (offer(fn, ud, PSYM_CAND_MODULE_DEBUGDIR, buf, sizeof(buf), "%s/lib/modules/%s",
			  o->debug_dirs[i], o->release))
			return true;
	return offer(fn, ud, PSYM_CAND_MODULE_SYSROOT, buf, sizeof(buf), "%s/lib/modules/%s",
		     strcmp(sysroot, "/") == 0 ? "" : sysroot, o->release);
}

const char *psym_locate_debug_pkg(const struct psym_locate_opts *o, const char *path)
{
	for (size_t i = 0; o->debug_dir_pkgs && i < o->n_debug_dirs; i++) {
		size_t n = strlen(o->debug_dirs[i]);

		if (o->debug_dir_pkgs[i] && strncmp(path, o->debug_dirs[i], n) == 0 &&
		    path[n] == '/')
			return o->debug_dir_pkgs[i];
	}
	return NULL;
}
