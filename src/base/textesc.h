/* SPDX-License-Identifier: MIT */
/*
 * Escaping of text that comes from input (names from profiles, symbol
 * tables, side files, a core's file paths) on its way out: the one owner
 * of both escapes psym writes.
 *
 * Text reports: C0 control characters and DEL are shown, not sent (\n,
 * \r, \t, else \xNN), so that a name cannot forge a line or drive the
 * terminal; every other byte is written as it is, so that reports stay
 * byte-identical to pprof's on names without control characters.
 *
 * JSON strings: quotes, backslashes and control characters escaped, and
 * the result valid UTF-8: each invalid sequence (its maximal valid prefix,
 * or one byte) becomes U+FFFD, as llvm-symbolizer's JSON writer does.
 */
#ifndef PSYM_TEXTESC_H
#define PSYM_TEXTESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "psym.h"

/* A sink for escaped bytes: put n bytes of s. */
typedef void (*psym_put_fn)(void *ud, const char *s, size_t n);

/* Whether s[0..n) holds a byte text output escapes (a C0 control or DEL). */
bool psym_text_needs_escape(const char *s, size_t n);

/* s[0..n) to put, control characters escaped. */
void psym_text_escape(const char *s, size_t n, psym_put_fn put, void *ud);
/* The same to out; psym_text_puts (psym.h) the same of a string. */
void psym_text_write(FILE *out, const char *s, size_t n);
/*
 * The same into buf[sz] (NUL-terminated; an escape is never cut in two).
 * Returns the length written.
 */
size_t psym_text_escape_buf(char *buf, size_t sz, const char *s, size_t n);

/* The JSON string (with its quotes) of the NUL-terminated s to put. */
/*
 * The length of the valid UTF-8 sequence at s[0..n) (1 for ASCII), or 0;
 * when 0, *bad is the length of its maximal valid prefix (at least 1),
 * which is one U+FFFD (Unicode's "substitution of maximal subparts", as
 * LLVM does). The one UTF-8 rule of the JSON and XML writers.
 */
size_t psym_utf8_len(const unsigned char *s, size_t n, size_t *bad);

void psym_json_escape(const char *s, psym_put_fn put, void *ud);
/* The same to out: psym_json_string (psym.h). */

#endif
