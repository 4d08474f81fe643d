/* SPDX-License-Identifier: MIT */
/*
 * Kernel modules in a debug package, for deb.c: which members a run's
 * module wants (struct psym_deb_kmod) name, a member's build ID, and the
 * lines of a cache entry's index that record the module wants already
 * met, so that a later run with the same wants reads the package again
 * only when a file it kept has gone.
 *
 * Index lines (one per want, written by deb.c after a complete scan):
 *
 *   ko RELEASE NAME BUILD-ID PATH
 *
 * RELEASE "*" when any, NAME with '-' as '_', BUILD-ID "-" when unknown,
 * PATH the member kept for the want (relative to the entry) or "-" when
 * the package has none. The index is psym's own file, but a cache is
 * shared with whatever else writes there: lines are checked like input.
 */
#ifndef PSYM_DEBKMOD_H
#define PSYM_DEBKMOD_H

#include <stdbool.h>
#include <stddef.h>

#include "buildid.h"
#include "deb.h"

#define PSYM_DEBKMOD_PREFIX "usr/lib/debug/lib/modules/"

/*
 * Whether member path (normalized, relative to the package root) is a
 * module file below usr/lib/debug/lib/modules/RELEASE/; then its release
 * goes to rel[relsz] and *base points at its file name in path.
 */
bool psym_debkmod_member(const char *path, char *rel, size_t relsz, const char **base);

/* Whether want w names the module file base of release rel. */
bool psym_debkmod_matches(const struct psym_deb_kmod *w, const char *rel, const char *base);

/*
 * The build ID of a module file (an ELF file, or one compressed as
 * .ko.xz/.zst/.gz: name, the member's path, says which and is used in
 * messages) into id; *plain tells whether the file is ELF as it is. 0, or
 * a negative code (not ELF, no build ID, a bomb, ...).
 */
int psym_debkmod_build_id(const char *file, const char *name, char id[PSYM_BUILD_ID_HEX_MAX],
			  bool *plain);

/*
 * The index key of want w ("ko RELEASE NAME BUILD-ID") into buf; false
 * when it does not fit or w holds a character an index line cannot.
 */
bool psym_debkmod_key(const struct psym_deb_kmod *w, char *buf, size_t bufsz);

/*
 * Split an index line (no newline) "KEY PATH": false when it is not a
 * well-formed module line. *path_off is where PATH starts; the key is the
 * line up to the space before it.
 */
bool psym_debkmod_parse(const char *line, size_t *path_off);

#endif
