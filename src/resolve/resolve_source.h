/* SPDX-License-Identifier: MIT */
/*
 * An answer source answering alone, as a resolver: the file the user
 * named for a source (by its option, "gsym"), with no binary beside it
 * (psym addr --gsym FILE). Addresses are the file's own; nothing is
 * cached or indexed (the file is the index).
 */
#ifndef PSYM_RESOLVE_SOURCE_H
#define PSYM_RESOLVE_SOURCE_H

#include "resolver.h"

/*
 * 0 with *out (psym_resolver_destroy), PSYM_EUSAGE when the source of
 * that option needs a binary, PSYM_EBADINPUT naming the file when it
 * cannot be read.
 */
int psym_source_resolver_new(const char *option, const char *path, struct psym_resolver **out,
			     struct psym_err *e);

#endif
