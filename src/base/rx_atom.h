/* SPDX-License-Identifier: MIT */
/*
 * The atoms of a regular expression: runes of the pattern, escapes, and
 * the classes ([...], \d \s \w, [:alpha:]), read at P->p and moved past.
 * Errors as in rx_node.h.
 */
#ifndef PSYM_RX_ATOM_H
#define PSYM_RX_ATOM_H

#include "rx_int.h"

/* The next rune of the pattern; an invalid byte is an error. */
int rx_next_rune(struct parser *P, uint32_t *r);
/* The first byte in [s, end) that is not part of valid UTF-8, or NULL. */
const char *rx_bad_utf8(const char *s, const char *end);
/*
 * A Perl class \d \s \w (upper case: negated) into tmp, folded and negated
 * as Go does: c is the letter.
 */
int rx_perl_class(struct parser *P, int c, int flags);
/*
 * An escape at P->p (the backslash) that stands for one rune (Go's
 * parseEscape): octal, hex, the C escapes, punctuation.
 */
int rx_escape_rune(struct parser *P, uint32_t *r);
/* \p and \P at P->p: Unicode classes, which psym has no tables for (an error). */
int rx_unicode_class(struct parser *P);
/* A class [...] at P->p: its node, or NONE. */
uint32_t rx_parse_class(struct parser *P, int flags);

#endif
