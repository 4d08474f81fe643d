/* SPDX-License-Identifier: MIT */
/*
 * Debian packages (.deb) as a source of debug files.
 *
 * A .deb is an ar archive whose data.tar.{xz,zst,gz} member holds the files.
 * psym_deb_extract() extracts only the files below usr/lib/debug/ that the
 * profiles need (by build ID, the dwz alternate files those name, found in
 * a second pass, and kernel modules by name and release) into a cache
 * directory and returns the path of the extracted usr/lib/debug, which is
 * then searched like any --debug-dir.
 *
 * The package is untrusted: member and entry sizes are checked, names with
 * "..", absolute names, links and devices are never written, bytes written
 * and file count are capped, a member to extract that claims more than 64
 * times the package's compressed data (plus 64 MiB) is refused as a bomb,
 * nothing is written outside the cache, and every file is written to a
 * temporary name and renamed when whole.
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
 * A kernel module a run needs (resolve/kmods.h says which): the package's
 * usr/lib/debug/lib/modules/RELEASE/.../NAME.ko[.xz|.zst|.gz|.debug]
 * (Debian's linux-image-*-dbg, Fedora's kernel-debuginfo layout), any
 * directory below RELEASE. Module files under usr/lib/debug/lib/modules/
 * are taken only this way, never read whole to learn their build IDs (a
 * kernel's debug package holds thousands).
 */
struct psym_deb_kmod {
	const char *name;     /* as kallsyms names it; '-' and '_' alike */
	const char *release;  /* uname release; NULL: any (then build_id is set) */
	const char *build_id; /* lowercase hex, or NULL: unknown (any file of the name) */
};

/* What a run wants of a package. */
struct psym_deb_want {
	const char *const *build_ids; /* lowercase hex; NULL: every debug file (tests) */
	size_t n_build_ids;
	const struct psym_deb_kmod *kmods;
	size_t n_kmods;
};

/*
 * Make the debug files of deb_path that want names available under
 * cache_root/NAME-SIZE-MTIME (created if needed): members
 * .build-id/NN/REST.debug whose build ID is wanted, members elsewhere below
 * usr/lib/debug/ (kernel modules aside) whose ELF build ID is wanted (also
 * linked as .build-id/NN/REST.debug), the .dwz/ files those name, and the
 * wanted kernel modules: a module file whose want has a build ID is kept
 * only when it has that build ID (an uncompressed one is linked as
 * .build-id/NN/REST.debug too). An entry grows over runs; the package is
 * read again only when the entry lacks something wanted that the package
 * has (or may have: a module never asked for). On success *debug_root is a
 * malloc'd path (caller frees) to the extracted usr/lib/debug. limits may
 * be NULL for the defaults.
 */
int psym_deb_extract(const char *deb_path, const char *cache_root,
		     const struct psym_deb_limits *limits, const struct psym_deb_want *want,
		     char **debug_root, struct psym_err *e);

/* psym_deb_extract() for build IDs only (NULL: every debug file). */
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

/*
 * The same over a package file (size bytes at fd), asking sel first for
 * each file whether to stream it (1 yes, 0 skip it, negative: an error
 * that ends the walk): the cache extractor's reader (debcache.c). Only
 * files streamed count against the limits.
 */
typedef int (*psym_deb_select_fn)(void *ud, const char *path, uint64_t size);
int psym_deb_walk_fd(int fd, uint64_t size, const char *name, const struct psym_deb_limits *limits,
		     psym_deb_select_fn sel, psym_deb_file_fn fn, void *ud, struct psym_err *e);

#endif
