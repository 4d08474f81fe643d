/* SPDX-License-Identifier: MIT */
/*
 * The text of a resolver's description (struct psym_resdesc, resolver.h:
 * a list of {role, path, reason, counts} items), composed in one place for
 * every command: the summary's "from ..." part, the --explain lines and
 * the one-time warnings. Resolvers give items; the words are here.
 */
#ifndef PSYM_RESDESC_H
#define PSYM_RESDESC_H

#include <stddef.h>

#include "resolver.h"

/* One line: where the answers came from ("from 'a.out', with lines"). */
void psym_resdesc_summary(const struct psym_resdesc *d, char *buf, size_t bufsz);

/* --explain: how (lines joined by "\n    "); "" when nothing to add. */
void psym_resdesc_explain(const struct psym_resdesc *d, char *buf, size_t bufsz);

/*
 * The one-time warnings of a mapping: a damaged cache or index file, Go's
 * table without inline frames; lines joined by "\n", "" when none.
 */
void psym_resdesc_warning(const struct psym_resdesc *d, char *buf, size_t bufsz);

/*
 * psym addr's warnings, said once like llvm-symbolizer's: a damaged index
 * (answered from the debug information instead), why the debug
 * information could not be read, Go's table without inline frames; lines
 * joined by "\n", "" when none.
 */
void psym_resdesc_addr_warnings(const struct psym_resdesc *d, char *buf, size_t bufsz);

/*
 * The files tried since the resolver's last describe (its debug file's
 * candidates, its DWARF, alternate and split files, symbol tables, answer
 * sources; the TRIED item), in order: how many, and the i-th one's path
 * (borrowed) and verdict, worded into verdict ("not found", "split unit
 * used (dwo id matches)"). --explain says each one as "tried" (before the
 * description's own lines).
 */
size_t psym_resdesc_ntried(const struct psym_resdesc *d);
void psym_resdesc_tried(const struct psym_resdesc *d, size_t i, const char **path, char *verdict,
			size_t verdictsz);

/* The file answered for (the BINARY item's path), or NULL: not a file. */
const char *psym_resdesc_path(const struct psym_resdesc *d);

#endif
