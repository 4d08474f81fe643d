/* SPDX-License-Identifier: MIT */
/* The grammar of a regular expression: alternation, concatenation, groups, repetition. */
#ifndef PSYM_RX_PARSE_H
#define PSYM_RX_PARSE_H

#include "rx_int.h"

/*
 * Alternatives at P->p up to ')' or the end: the root of their tree, or
 * NONE with P->err set. *flags: the group's flags, which (?i) and the
 * like change.
 */
uint32_t rx_parse_alt(struct parser *P, int *flags);

#endif
