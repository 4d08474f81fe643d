/* SPDX-License-Identifier: MIT */
/*
 * Debian packages (.deb) as a source of debug files.
 *
 * A .deb is an ar archive whose data.tar.{xz,zst,gz} member holds the files.
 * psym_deb_extract_debug() extracts only the files below usr/lib/debug/
 * that the profiles need (by build ID, and the dwz alternate files those
 * name, found in a second pass) into a cache
 * directory and returns the path of the extracted usr/lib/debug, which is
 * then searched like any --debug-dir.
 *
 * The package is untrusted: member and entry sizes are checked, names with
 * "..", absolute names, links and devices are never written, bytes written
 * and file count are capped, nothing is written outside the cache, and
 * every file is written to a temporary name and renamed when whole.
 */
#ifndef PSYM_DEB_H
#define PSYM_DEB_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct psym_deb_limits {
	uint64_t max_bytes; /* bytes written per package and run (default 2 GiB) */
	uint64_t max_files; /* files written (default 10,000) */
};

/*
 * Make the debug files of deb_path for these build IDs (lowercase hex)
 * available under cache_root/NAME-SIZE-MTIME (created if needed): members
 * .build-id/NN/REST.debug whose build ID is wanted, members elsewhere below
 * usr/lib/debug/ whose ELF build ID is wanted (also linked as
 * .build-id/NN/REST.debug), and .dwz/ files. An entry grows over runs; the
 * package is read again only when it has a wanted build ID that the entry
 * lacks. build_ids NULL: every debug file (tests). On success *debug_root
 * is a malloc'd path (caller frees) to the extracted usr/lib/debug.
 * limits may be NULL for the defaults.
 */
int psym_deb_extract_debug(const char *deb_path, const char *cache_root,
			   const struct psym_deb_limits *limits, const char *const *build_ids,
			   size_t n_build_ids, char **debug_root, struct psym_err *e);

/* Remove a directory tree that psym created (a temporary extraction root). */
void psym_deb_remove_tree(const char *path);

/*
 * Parse a .deb held in memory and call fn for every regular file below
 * usr/lib/debug/ (path relative to the package root, contents streamed in
 * pieces: fn is called with len 0 and data NULL at the end of each file).
 * Used by the extractor and by the fuzz target. fn returns 0 to go on.
 */
typedef int (*psym_deb_file_fn)(void *ud, const char *path, uint64_t size,
				const unsigned char *data, size_t len);
int psym_deb_parse_mem(const unsigned char *buf, size_t len, const char *name,
		       const struct psym_deb_limits *limits, psym_deb_file_fn fn, void *ud,
		       struct psym_err *e);

#endif
