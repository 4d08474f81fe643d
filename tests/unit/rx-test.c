/* SPDX-License-Identifier: MIT */
/*
 * The regex module's caps and refusals, without Go (tests/rx.sh compares
 * the answers with Go's regexp): what Go refuses is refused with Go's
 * words, programs over PSYM_RX_MAX_PROG and nesting past
 * PSYM_RX_MAX_DEPTH are refused, the largest programs under the cap
 * compile, and long texts through ambiguous patterns give the right
 * answers.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rx.h"
#include "tap.h"

/* The error of compiling p, or "ok". */
static const char *compile_msg(const char *p)
{
	static struct psym_err e;
	struct psym_rx *rx;

	e = (struct psym_err){ 0 };
	if (psym_rx_compile(p, &rx, &e))
		return e.msg;
	psym_rx_free(rx);
	return "ok";
}

static int matches(const char *p, const char *t, size_t n)
{
	struct psym_rx *rx;
	struct psym_err e = { 0 };
	int m;

	if (psym_rx_compile(p, &rx, &e))
		return -1;
	m = psym_rx_match(rx, t, n);
	psym_rx_free(rx);
	return m;
}

/* s repeated n times, then tail. */
static char *rep(const char *s, size_t n, const char *tail)
{
	size_t l = strlen(s);
	char *b = malloc(l * n + strlen(tail) + 1);

	if (!b)
		exit(1);
	for (size_t i = 0; i < n; i++)
		memcpy(b + i * l, s, l);
	strcpy(b + l * n, tail);
	return b;
}

int main(void)
{
	char *p, *t;
	struct psym_rx *rx;
	struct psym_err e = { 0 };

	is_str(compile_msg("((a{255}){255}){255}"), "invalid repeat count: `{255}`",
	       "nested counts over 1000 refused (issue 38)");
	is_str(compile_msg("(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1Z"),
	       "invalid escape sequence: `\\5`", "back-references refused (issue 38)");
	is_str(compile_msg("(?=x)"), "invalid or unsupported Perl syntax: `(?=`", "lookahead");
	is_str(compile_msg("(?<!x)"), "invalid or unsupported Perl syntax: `(?<`", "lookbehind");
	is_str(compile_msg("x{1001}"), "invalid repeat count: `{1001}`", "a count over 1000");
	is_str(compile_msg("x{1000}"), "ok", "a count of 1000");
	is_str(compile_msg("\\pL"), "Unicode classes are not supported by psym: `\\pL`",
	       "\\pL refused by psym alone");
	is_str(compile_msg("a\xff"), "invalid UTF-8: `\xff`", "a pattern that is not UTF-8");

	/* 600 x \w{1000}: 600,002 instructions, 7.2 MB; 700 x: over 8 MB. */
	p = rep("\\w{1000}", 600, "");
	ok(psym_rx_compile(p, &rx, &e) == 0, "600 x \\w{1000} compiles");
	ok(psym_rx_prog_size(rx) <= PSYM_RX_MAX_PROG && psym_rx_prog_size(rx) > 7000000,
	   "its program is under the cap (%zu bytes)", psym_rx_prog_size(rx));
	ok(!psym_rx_match(rx, "short", 5), "and a short name does not match it");
	psym_rx_free(rx);
	free(p);
	p = rep("\\w{1000}", 700, "");
	is_str(compile_msg(p), "expression too large (psym caps a compiled program at 8 MB)",
	       "700 x \\w{1000} refused, the cap named");
	free(p);
	/* Counts that multiply past the cap without a product over 1000. */
	p = rep("(?:(?:\\w{1000}){1}|x)", 800, "");
	ok(strstr(compile_msg(p), "too large") != NULL, "800 alternations of \\w{1000} refused");
	free(p);

	/* Nesting. */
	p = rep("(", 1000, "");
	t = rep(")", 1000, "");
	{
		char *q = malloc(strlen(p) + strlen(t) + 2);

		sprintf(q, "%sa%s", p, t);
		is_str(compile_msg(q), "ok", "1000 nested groups");
		free(q);
	}
	free(p);
	free(t);
	p = rep("(", 1001, "");
	is_str(compile_msg(p), "expression nests too deeply", "1001 nested groups refused");
	free(p);

	/* Long texts, ambiguous patterns: linear, and right. */
	t = rep("a", 100000, "");
	is_int(matches("(a|aa)*b", t, strlen(t)), 0, "100k a's: (a|aa)*b no");
	is_int(matches("^(a|aa)*$", t, strlen(t)), 1, "100k a's: ^(a|aa)*$ yes");
	is_int(matches("(a*)*a{1000}$", t, strlen(t)), 1, "100k a's: (a*)*a{1000}$ yes");
	is_int(matches("(x+x+)+y", t, strlen(t)), 0, "100k a's: (x+x+)+y no");
	is_int(matches("^a{999}$", t, strlen(t)), 0, "100k a's: ^a{999}$ no");
	free(t);

	/* Embedded NULs are text too (psym_rx_match takes a length). */
	is_int(matches("a.b", "a\0b", 3), 1, "a.b matches a NUL b");
	is_int(matches("^a$", "a\0", 2), 0, "^a$ does not match a NUL");
	is_int(matches("", "", 0), 1, "the empty pattern matches the empty text");
	is_int(matches("[^\\s\\S]", "abc", 3), 0, "an empty class matches nothing");
	return tap_done();
}
