/* SPDX-License-Identifier: MIT */
/*
 * The object finder (locate.h): the verifier, which opens each candidate
 * (candidates.c) in turn, checks it against what is wanted (build ID,
 * debuglink CRC, the sysroot), records a reason for each one refused, and
 * falls back to debuginfod. Kernel, vDSO and JIT objects are found in
 * kernobj.c.
 */
#include "config.h"

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

#include "array.h"
#include "buildid.h"
#include "htlhash.h"
#include "fileio.h"
#include "locate.h"
#include "locate_int.h"

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

void psym_cands_push(struct psym_cands *c, const char *path, const char *verdict)
{
	struct psym_cand_tried *v;
	size_t cap, lp, lv;
	char *b;

	if (!c)
		return;
	cap = c->n;
	if (c->n == PSYM_CANDS_MAX ||
	    !(v = psym_array_grow(c->v, &cap, c->n + 1, sizeof(*v), PSYM_CANDS_MAX))) {
		c->lost++;
		return;
	}
	c->v = v;
	lp = strlen(path) + 1;
	lv = strlen(verdict) + 1;
	b = malloc(lp + lv);
	if (!b) {
		c->lost++;
		return;
	}
	memcpy(b, path, lp);
	memcpy(b + lp, verdict, lv);
	v[c->n++] = (struct psym_cand_tried){ .path = b, .verdict = b + lp };
}

void psym_cands_free(struct psym_cands *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	*c = (struct psym_cands){ 0 };
}

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
	psym_cands_push(s->o->cands, path, msg);
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
/* A file known only by its htlhash (htlhash.h): the candidate's hash decides. */
static bool htlhash_matches(struct search *s, const char *path)
{
	const char *want = s->build_id + sizeof(PSYM_HTLHASH_PREFIX) - 1;
	char h[PSYM_HTLHASH_HEX];
	struct psym_err e = { 0 };

	if (psym_file_htlhash(path, h, &e)) {
		verdict(s, path, PSYM_R_BAD_FILE, 3, "rejected: %s", e.msg);
		return false;
	}
	if (strcasecmp(h, want)) {
		verdict(s, path, PSYM_R_BUILD_ID_MISMATCH, 5,
			"htlhash mismatch: rejected: htlhash %s, want %s", h, want);
		return false;
	}
	verdict(s, path, PSYM_R_NONE, 0, "used (htlhash matches)");
	return true;
}

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
		if (named)
			psym_cands_push(s->o->cands, path, e.msg);
		return false;
	}
	if (s->want == WANT_BINARY && s->build_id && psym_build_id_is_htlhash(s->build_id)) {
		if (!htlhash_matches(s, path))
			goto reject;
		s->found = elf;
		return true;
	}
	bid = psym_elf_build_id(elf);
	if (!bid && s->build_id && psym_build_id_is_go(s->build_id))
		bid = psym_elf_go_build_id(elf); /* a Go build ID is wanted: the file's */
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
	} else if (!s->build_id && !named && s->want == WANT_BINARY) {
		/* Nothing to check it against (psym_located_unverified): a rebuilt file answers wrongly. */
		verdict(s, path, PSYM_R_NONE, 0,
			"used, unverified (the mapping has no build ID: any file at this path "
			"is taken)");
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
	/*
	 * The distributions' trees (REST, REST.debug), then perf's build-ID
	 * cache (~/.debug, perf archive): REST is a directory holding the
	 * binary's copy as elf and its debug file as debug.
	 */
	static const char *const binary_sfx[] = { "", "/elf", ".debug", "/debug" },
				 *const debug_sfx[] = { ".debug", "/debug" };
	static const enum psym_cand_rule binary_rule[] = { PSYM_CAND_TREE, PSYM_CAND_PERF_ELF,
							   PSYM_CAND_TREE_DEBUG,
							   PSYM_CAND_PERF_DEBUG },
					 debug_rule[] = { PSYM_CAND_TREE_DEBUG,
							  PSYM_CAND_PERF_DEBUG };
	const char *const *sfx = binary_first ? binary_sfx : debug_sfx;
	const enum psym_cand_rule *rule = binary_first ? binary_rule : debug_rule;
	size_t nsfx = binary_first ? 4 : 2;
	char path[PATH_MAX * 2];

	char key[PSYM_BUILD_ID_HEX_MAX];

	/*
	 * A Go build ID: the binary a psym archive packed under its key
	 * (psym_go_build_id_key), checked by its Go build ID; no debuginfod.
	 */
	if (s->build_id && binary_first && psym_go_build_id_key(s->build_id, key) == 0) {
		for (size_t i = 0; i < s->o->n_debug_dirs; i++)
			if (psym_build_id_path(s->o->debug_dirs[i], key, "", path, sizeof(path)) &&
			    try_candidate(s, path, PSYM_CAND_TREE))
				return true;
		return false;
	}
	if (!s->build_id || !psym_build_id_valid(s->build_id))
		return false;
	/* A binary in any dir before a debug file standing in for it. */
	for (size_t k = 0; k < nsfx; k++)
		for (size_t i = 0; i < s->o->n_debug_dirs; i++)
			if (psym_build_id_path(s->o->debug_dirs[i], s->build_id, sfx[k], path,
					       sizeof(path)) &&
			    try_candidate(s, path, rule[k]))
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
	if (s.build_id && psym_build_id_is_go(s.build_id))
		verdict(&s, "(build ID)", PSYM_R_NONE, 0,
			"'%.128s' is a Go build ID: checked in files found by path (or under its "
			"key in the .build-id trees, as psym archive packs them)",
			s.build_id);
	else if (s.build_id && psym_build_id_is_htlhash(s.build_id))
		verdict(&s, "(build ID)", PSYM_R_NONE, 0,
			"'%.64s' is an htlhash: checked in files found by path", s.build_id);
	else if (s.build_id && !psym_build_id_valid(s.build_id))
		verdict(&s, "(build ID)", PSYM_R_NONE, 0, "'%.64s' is not hex: not used in paths",
			s.build_id);
	if (!k->named && k->path && !psym_path_normalize(k->path, real, sizeof(real)))
		psym_reason_set(why, PSYM_R_NOT_FOUND, "path too long");
	if (o->sysroot && *o->sysroot && strcmp(o->sysroot, "/") != 0 &&
	    realpath(o->sysroot, real) && strcmp(real, "/") != 0)
		s.sysroot_real = real;
	else if (o->foreign_paths && !k->named && k->path && k->path[0] != '/')
		verdict(&s, k->path, PSYM_R_OUTSIDE_ROOT, 2,
			"refused: a relative path from another host is not looked up in the "
			"current directory (give --sysroot or --binary-path)");
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
	if (debuglink && !psym_locate_plain_name(debuglink))
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
		k.binary_base = slash ? slash + 1 : given;
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
	if (!psym_locate_alt_recorded(k, rec, sizeof(rec)))
		verdict(&s, k->path ? k->path : "(alternate file)", PSYM_R_NONE, 0,
			"not searched: the recorded path cannot be made absolute");
	else if (!psym_locate_alt_allowed(o, k, rec))
		verdict(&s, rec, PSYM_R_OUTSIDE_ROOT, 2,
			"not searched: outside the debug dirs and the debug file's directory");
	if (!psym_locate_alt_candidates(o, k, try_candidate, &s) && !s.found && !s.err)
		try_debuginfod(&s, PSYM_DEBUGINFOD_DEBUGINFO);
	return finish(&s, out);
}
