/* SPDX-License-Identifier: MIT */
/*
 * Debian packages (.deb) as a source of debug files.
 *
 * A .deb is an ar archive whose data.tar.{xz,zst,gz} member holds the files.
 * psym_deb_extract_debug() extracts only the regular files below
 * usr/lib/debug/ into a cache directory and returns the path of the
 * extracted usr/lib/debug, which is then searched like any --debug-dir.
 *
 * The package is untrusted: member and entry sizes are checked, names with
 * "..", absolute names, links and devices are never written, total size and
 * file count are capped, and nothing is written outside the cache.
 */
#ifndef PSYM_DEB_H
#define PSYM_DEB_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct psym_deb_limits {
	uint64_t max_bytes;  /* total bytes extracted (default 8 GiB) */
	uint64_t max_files;  /* files extracted (default 1,000,000) */
};

/*
 * Extract deb_path's usr/lib/debug tree under cache_root (created if
 * needed) unless an earlier run already did. On success *debug_root is a
 * malloc'd path (caller frees) to the extracted usr/lib/debug directory.
 * limits may be NULL for the defaults.
 */
int psym_deb_extract_debug(const char *deb_path, const char *cache_root,
			   const struct psym_deb_limits *limits, char **debug_root,
			   struct psym_err *e);

/*
 * Parse a .deb held in memory and call fn for every regular file below
 * usr/lib/debug/ (path relative to the package root, contents streamed in
 * pieces: fn is called with len 0 and data NULL at the end of each file).
 * Used by the extractor and by the fuzz target. fn returns 0 to go on.
 */
typedef int (*psym_deb_file_fn)(void *ud, const char *path, uint64_t size,
				const unsigned char *data, size_t len);
int psym_deb_parse_mem(const unsigned char *buf, size_t len, const char *name,
		       const struct psym_deb_limits *limits, psym_deb_file_fn fn,
		       void *ud, struct psym_err *e);

#endif
