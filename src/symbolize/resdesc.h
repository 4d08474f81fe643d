/* SPDX-License-Identifier: MIT */
/*
 * The text of a resolver's description (struct psym_resdesc, resolver.h),
 * composed in one place for every command: the summary's "from ..." part,
 * the --explain lines and the one-time warning. Resolvers give data; the
 * words are here.
 */
#ifndef PSYM_RESDESC_H
#define PSYM_RESDESC_H

#include <stddef.h>

#include "resolver.h"

/* One line: where the answers came from ("from 'a.out', with lines"). */
void psym_resdesc_summary(const struct psym_resdesc *d, char *buf, size_t bufsz);

/* --explain: how (lines joined by "\n    "); "" when nothing to add. */
void psym_resdesc_explain(const struct psym_resdesc *d, char *buf, size_t bufsz);

/* The one-time warning of a damaged cache or index file; "" when none. */
void psym_resdesc_warning(const struct psym_resdesc *d, char *buf, size_t bufsz);

#endif
