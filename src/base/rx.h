/* SPDX-License-Identifier: MIT */
/*
 * Regular expressions with the syntax and yes/no answers of Go's regexp
 * (RE2 syntax), which is what `go tool pprof` compiles its -focus, -ignore,
 * -hide, -show and -tagfocus arguments with, matched in time linear in the
 * text: the pattern is compiled to a small NFA program and the text is run
 * through it one rune at a time with the set of live states (Thompson's
 * simulation), never by backtracking.
 *
 * Syntax: literals, `.`, classes `[...]` (ranges, negation, `[:alpha:]` and
 * the other ASCII classes, `\d \w \s \D \W \S`), the escapes `\a \f \t \n \r
 * \v \x41 \x{263a} \101 \Q...\E` and `\` before punctuation, the anchors `^ $
 * \A \z \b \B`, groups `(...)`, `(?:...)`, `(?P<name>...)`, `(?<name>...)`,
 * alternation, `* + ? {n} {n,} {n,m}` and their lazy forms, and the flags
 * `(?imsU)` / `(?i:...)` / `(?-i)`. Text and pattern are UTF-8; a byte that is
 * not part of valid UTF-8 is one rune U+FFFD, as in Go.
 *
 * Refused as Go refuses them: back-references (`\1`), lookaround (`(?=`,
 * `(?!`, `(?<=`, `(?<!`), a repetition count over 1000 (also as a product of
 * nested counts, as Go counts it), `a**`. Refused by psym alone: the Unicode
 * classes `\pL`, `\p{Greek}` (no Unicode tables here), a compiled program of
 * more than PSYM_RX_MAX_PROG bytes, groups nested more than 1000 deep.
 *
 * Limitation: case folding, `(?i)`, knows ASCII and Latin-1 (with the
 * Kelvin sign, the long s, the Angstrom sign, the micro sign, capital sharp
 * s and Y with diaeresis in their orbits); other letters match only as
 * written.
 *
 * Cost: compiling takes time and memory in proportion to the pattern and
 * the program (at most PSYM_RX_MAX_PROG bytes, plus about twice that of
 * scratch for matching); matching takes O(length of text x program size)
 * time and no memory.
 */
#ifndef PSYM_RX_H
#define PSYM_RX_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* The cap on a compiled program (RE2's default is about 8 MB too). */
#define PSYM_RX_MAX_PROG (8u << 20)
/* The deepest nesting of groups. */
#define PSYM_RX_MAX_DEPTH 1000

struct psym_rx;

/*
 * Compile pattern (NUL-terminated) into *out, to be freed with
 * psym_rx_free. A pattern Go refuses, or psym cannot run within its caps,
 * gives PSYM_EUSAGE with e->msg saying why in Go's words, e.g.
 * "invalid escape sequence: `\1`" (the caller names the option and the
 * pattern); PSYM_ENOMEM when memory runs out.
 */
int psym_rx_compile(const char *pattern, struct psym_rx **out, struct psym_err *e);

/*
 * Whether some part of text (n bytes, NULs included) matches, as Go's
 * regexp.MatchString: an unanchored search. Uses scratch memory kept in rx,
 * so one rx must not be used by two threads at once.
 */
bool psym_rx_match(struct psym_rx *rx, const char *text, size_t n);

/* Bytes of instructions in the compiled program (for tests). */
size_t psym_rx_prog_size(const struct psym_rx *rx);

void psym_rx_free(struct psym_rx *rx);

#endif
