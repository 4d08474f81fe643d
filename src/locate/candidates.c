/* SPDX-License-Identifier: MIT */
/*
 * Where to look (locate.h): the path rules (normalizing a path, the
 * build-ID tree's names) and the candidate paths for a binary, its separate
 * debug file (build-ID trees, the debuglink rules), split DWARF's .dwo and
 * .dwp files, an alternate (dwz) file and the kernel's module trees, in the
 * order they are tried. Pure functions of the options and the key: nothing
 * here opens a file; locate.c checks what is found at each candidate.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buildid.h"
#include "locate.h"
#include "locate_int.h"

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
	if (psym_build_id_is_go(a) || psym_build_id_is_go(b)) /* base64: case matters */
		return strcmp(a, b) == 0;
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
	/* A relative path (a crash log's ./prog) is where the user is; not a core's. */
	if (strcmp(sysroot, "/") == 0 && k->path[0] != '/' && o->foreign_paths)
		return false;
	if (strcmp(sysroot, "/") == 0)
		return offer(fn, ud, PSYM_CAND_SYSROOT, cand, sizeof(cand), "%s",
			     k->path[0] == '/' ? norm : k->path);
	return offer(fn, ud, PSYM_CAND_SYSROOT, cand, sizeof(cand), "%s%s", sysroot, norm);
}

/* A debuglink is a plain file name, never a path. */
bool psym_locate_plain_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

bool psym_locate_link_tails(const char *debug_dir, const char *bindir_abs, const char *debuglink,
			    psym_cand_fn fn, void *ud)
{
	char buf[PATH_MAX * 2];
	const char *tail = bindir_abs;

	if (!bindir_abs || bindir_abs[0] != '/' || !psym_locate_plain_name(debuglink))
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

/*
 * No debuglink: elfutils' BASENAME.debug beside the binary, in its .debug/
 * and under each debug dir by the binary's directory. Only with a build ID,
 * which then decides: without a debuglink there is no CRC to check.
 */
static bool name_debug_candidates(const struct psym_locate_opts *o, const struct psym_debug_key *k,
				  psym_cand_fn fn, void *ud)
{
	char buf[PATH_MAX * 2];
	const char *dir = k->binary_dir && strcmp(k->binary_dir, "/") != 0 ? k->binary_dir : "";
	const char *adir =
		k->binary_dir_abs && strcmp(k->binary_dir_abs, "/") != 0 ? k->binary_dir_abs : "";
	const char *b = k->binary_base;

	if (!b || !psym_locate_plain_name(b) || !k->build_id || !psym_build_id_valid(k->build_id))
		return false;
	if (k->binary_dir &&
	    (offer(fn, ud, PSYM_CAND_NAME_DEBUG, buf, sizeof(buf), "%s/%s.debug", dir, b) ||
	     offer(fn, ud, PSYM_CAND_NAME_DEBUG, buf, sizeof(buf), "%s/.debug/%s.debug", dir, b)))
		return true;
	for (size_t i = 0; i < o->n_debug_dirs && k->binary_dir_abs; i++)
		if (offer(fn, ud, PSYM_CAND_NAME_DEBUG, buf, sizeof(buf), "%s%s/%s.debug",
			  o->debug_dirs[i], adir, b))
			return true;
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
			if ((psym_build_id_path(o->debug_dirs[i], k->build_id, ".debug", buf,
						sizeof(buf)) &&
			     fn(ud, buf, PSYM_CAND_TREE_DEBUG)) ||
			    (psym_build_id_path(o->debug_dirs[i], k->build_id, "/debug", buf,
						sizeof(buf)) &&
			     fn(ud, buf, PSYM_CAND_PERF_DEBUG)))
				return true;
	}
	if (!k->debuglink)
		return name_debug_candidates(o, k, fn, ud);
	if (!psym_locate_plain_name(k->debuglink))
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
bool psym_locate_alt_recorded(const struct psym_alt_key *k, char *buf, size_t bufsz)
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
bool psym_locate_alt_allowed(const struct psym_locate_opts *o, const struct psym_alt_key *k,
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
	return psym_locate_plain_name(b) ? b : NULL;
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
	bool have = psym_locate_alt_recorded(k, rec, sizeof(rec)),
	     allowed = have && psym_locate_alt_allowed(o, k, rec);

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

/* ---- kernel modules ---------------------------------------------------------- */

/* A release is one path component ("6.1.0-18-amd64"), never a way out. */
static bool plain_release(const char *r)
{
	return r && psym_locate_plain_name(r);
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
