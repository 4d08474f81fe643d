/* SPDX-License-Identifier: MIT */
/* Inside the object finder: the rules candidates.c and locate.c share. */
#ifndef PSYM_LOCATE_INT_H
#define PSYM_LOCATE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "locate.h"

/* A debuglink is a plain file name, never a path ("", ".", ".." neither). */
bool psym_locate_plain_name(const char *s);
/* An alternate file's recorded path made absolute and normalized; false when it cannot be. */
bool psym_locate_alt_recorded(const struct psym_alt_key *k, char *buf, size_t bufsz);
/* May the recorded path (normalized) be opened: under a place debug files are? */
bool psym_locate_alt_allowed(const struct psym_locate_opts *o, const struct psym_alt_key *k,
			     const char *rec);

#endif
