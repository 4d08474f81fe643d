/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libdeflate.h>

#include "buildid.h"
#include "debugfind.h"
#include "fileio.h"

static void explain(const struct psym_debugfind_opts *o, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void explain(const struct psym_debugfind_opts *o, const char *path,
		    const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!o->explain)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->explain(o->explain_ud, path, msg);
}

bool psym_build_id_path(const char *dir, const char *build_id, const char *suffix,
			char *buf, size_t bufsz)
{
	int n;

	if (!build_id || !psym_build_id_valid(build_id))
		return false;
	n = snprintf(buf, bufsz, "%s/.build-id/%.2s/%s%s", dir, build_id, build_id + 2,
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

/*
 * Check one candidate. want_crc: check the CRC when build IDs cannot
 * decide. Returns 0 if it fits, PSYM_NOENT if not (explained).
 */
static int try_candidate(const struct psym_debugfind_opts *o, const struct psym_debug_key *k,
			 const char *path, bool want_crc)
{
	char bid[PSYM_BUILD_ID_HEX_MAX];
	struct psym_err e = { 0 };
	int ret;

	if (access(path, F_OK) != 0) {
		explain(o, path, "not found");
		return PSYM_NOENT;
	}
	if (k->binary_path && psym_same_file(path, k->binary_path)) {
		explain(o, path, "is the binary itself");
		return PSYM_NOENT;
	}
	ret = psym_elf_file_build_id(path, bid, &e);
	if (ret < 0) {
		explain(o, path, "rejected: %s", e.msg);
		return PSYM_NOENT;
	}
	if (k->build_id && ret == 0) {
		if (strcmp(bid, k->build_id) != 0) {
			explain(o, path, "rejected: build ID %s, want %s", bid, k->build_id);
			return PSYM_NOENT;
		}
		explain(o, path, "found (build ID matches)");
		return 0;
	}
	if (want_crc) {
		uint32_t crc;

		if (psym_file_crc32(path, &crc, &e) != 0) {
			explain(o, path, "rejected: %s", e.msg);
			return PSYM_NOENT;
		}
		if (crc != k->debuglink_crc) {
			explain(o, path, "rejected: CRC %08x, debuglink says %08x", crc,
				k->debuglink_crc);
			return PSYM_NOENT;
		}
		explain(o, path, "found (debuglink CRC matches)");
		return 0;
	}
	explain(o, path, "found");
	return 0;
}

static int found(const char *p, char **path, struct psym_err *e)
{
	*path = strdup(p);
	return *path ? 0 : psym_err_set(e, PSYM_ENOMEM, "out of memory");
}

int psym_debugfind(const struct psym_debugfind_opts *o, const struct psym_debug_key *k,
		   char **path, struct psym_err *e)
{
	char buf[PATH_MAX], bindir[PATH_MAX];

	if (k->build_id) {
		if (!psym_build_id_valid(k->build_id)) {
			explain(o, "(build-id)", "not searched: build ID '%.40s' is not hex",
				k->build_id);
		} else {
			for (size_t i = 0; i < o->n_dirs; i++) {
				if (!psym_build_id_path(o->dirs[i], k->build_id, ".debug", buf,
							sizeof(buf)))
					continue;
				if (try_candidate(o, k, buf, false) == 0)
					return found(buf, path, e);
			}
		}
	}
	if (!k->debuglink || !k->binary_path)
		return PSYM_NOENT;
	/* A debuglink is a plain file name: never a path. */
	if (!*k->debuglink || strchr(k->debuglink, '/') || !strcmp(k->debuglink, "..") ||
	    !strcmp(k->debuglink, ".")) {
		explain(o, k->debuglink, "not searched: debuglink is not a plain file name");
		return PSYM_NOENT;
	}
	{
		const char *slash = strrchr(k->binary_path, '/');
		size_t n = slash ? (size_t)(slash - k->binary_path) : 1;

		if (n >= sizeof(bindir))
			return PSYM_NOENT;
		if (slash)
			memcpy(bindir, k->binary_path, n);
		else
			bindir[0] = '.';
		bindir[n] = '\0';
		if (slash == k->binary_path)
			strcpy(bindir, "");
	}
	if (snprintf(buf, sizeof(buf), "%s/%s", bindir, k->debuglink) < (int)sizeof(buf) &&
	    try_candidate(o, k, buf, true) == 0)
		return found(buf, path, e);
	if (snprintf(buf, sizeof(buf), "%s/.debug/%s", bindir, k->debuglink) < (int)sizeof(buf) &&
	    try_candidate(o, k, buf, true) == 0)
		return found(buf, path, e);
	for (size_t i = 0; i < o->n_dirs; i++) {
		char abs[PATH_MAX];
		const char *d = bindir;

		/* DEBUGDIR/<absolute directory of the binary>/NAME */
		if (bindir[0] != '/') {
			if (!realpath(bindir[0] ? bindir : "/", abs))
				continue;
			d = abs;
		}
		if (snprintf(buf, sizeof(buf), "%s%s/%s", o->dirs[i], d, k->debuglink) <
			    (int)sizeof(buf) &&
		    try_candidate(o, k, buf, true) == 0)
			return found(buf, path, e);
	}
	return PSYM_NOENT;
}
