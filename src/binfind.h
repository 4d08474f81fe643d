/* SPDX-License-Identifier: MIT */
/*
 * Finding the binary of a mapping, in this order:
 *   1. --main-binary FILE, for the first mapping only (like pprof's command
 *      line), when given;
 *   2. each search directory (--binary-path, then $PPROF_BINARY_PATH) with
 *      pprof's conventions: DIR/BUILDID/BASENAME, DIR/BUILDID/ *,
 *      DIR/BUILDID, DIR/PATH/BUILDID, DIR/BASENAME, DIR/PATH;
 *   3. the mapping's own path under the sysroot (default "/").
 * A candidate whose build ID differs from the mapping's is rejected. Only
 * regular files are opened; ".." in a profile's path never leaves the
 * sysroot.
 */
#ifndef PSYM_BINFIND_H
#define PSYM_BINFIND_H

#include <stddef.h>

#include "debugfind.h"
#include "elffile.h"

struct psym_binfind_opts {
	const char *const *search; /* search directories, in order */
	size_t n_search;
	const char *sysroot;       /* NULL or "" = "/" */
	psym_explain_fn explain;   /* may be NULL */
	void *explain_ud;
	const struct psym_elf_limits *elf_limits;
};

/*
 * Find and open the binary for a mapping named `path` (already cleaned of
 * " (deleted)") with build ID `build_id` (NULL or "" if unknown). override
 * is --main-binary for the first mapping, else NULL. Returns 0 with *out,
 * or PSYM_NOENT with a one-line reason in why (the most telling rejection).
 */
int psym_binfind(const struct psym_binfind_opts *o, const char *path, const char *build_id,
		 const char *override, struct psym_elf **out, char *why, size_t whysz,
		 struct psym_err *e);

/*
 * Lexically normalize an absolute or relative path: drop "." and empty
 * components, resolve ".." without ever going above the root. Writes
 * "/a/b" form into buf. False if it does not fit.
 */
bool psym_path_normalize(const char *path, char *buf, size_t bufsz);

#endif
