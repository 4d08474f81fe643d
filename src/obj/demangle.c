/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

/* Past a <source-name> (a length, then that many characters) at p; NULL: bad. */
static const char *skip_source_name(const char *p)
{
	size_t n = 0;

	while (isdigit((unsigned char)*p) && n < 1 << 16)
		n = n * 10 + (size_t)(*p++ - '0');
	if (strnlen(p, n) < n)
		return NULL;
	return p + n;
}

/* Past a substitution (St, Sa, S_, S0_, SA_...) at p. */
static const char *skip_subst(const char *p)
{
	if (islower((unsigned char)p[1]))
		return p + 2;
	p = strchr(p, '_');
	return p ? p + 1 : NULL;
}

/* Past the template arguments I...E at p, nested ones and literals too. */
static const char *skip_args(const char *p)
{
	int depth = 0;

	do {
		if (isdigit((unsigned char)*p)) {
			p = skip_source_name(p);
		} else if (*p == 'S') {
			p = skip_subst(p);
		} else if (*p == 'L') {
			p = strchr(p, 'E'); /* a literal: Lb0E, Li100E */
			p = p ? p + 1 : NULL;
		} else {
			if (*p == 'I' || *p == 'N' || *p == 'X' || *p == 'J')
				depth++;
			else if (*p == 'E')
				depth--;
			p++;
		}
	} while (p && *p && depth > 0 && depth < 256);
	return p && depth == 0 ? p : NULL;
}

/*
 * Where the inheriting constructor (CI1, CI2, gcc's CI4) of the nested
 * name of mangled starts, walked component by component; NULL: none.
 */
static const char *inheriting_ctor_at(const char *m)
{
	const char *p = m + 2;

	if (*p++ != 'N')
		return NULL;
	while (*p == 'r' || *p == 'V' || *p == 'K' || *p == 'R' || *p == 'O')
		p++;
	while (p && *p && *p != 'E') {
		if (p[0] == 'C' && p[1] == 'I' && p[2] >= '1' && p[2] <= '5')
			return p;
		if (isdigit((unsigned char)*p))
			p = skip_source_name(p);
		else if (*p == 'S')
			p = skip_subst(p);
		else if (*p == 'I')
			p = skip_args(p);
		else if (*p == 'L')
			p++; /* internal linkage, before a source name */
		else
			return NULL; /* operators, local names: never an inheriting constructor */
	}
	return NULL;
}

/*
 * Where the "::" before the last component of out[0..end) starts, at
 * template and parenthesis depth 0, scanning back from end; -1: none.
 */
static long last_sep(const char *out, size_t end)
{
	int depth = 0;

	for (size_t i = end; i-- > 1;) {
		char c = out[i];

		if (c == '>' || c == ')')
			depth++;
		else if ((c == '<' || c == '(') && depth > 0)
			depth--;
		else if (depth == 0 && c == ':' && out[i - 1] == ':')
			return (long)i - 1;
	}
	return -1;
}

/*
 * An inheriting constructor (Itanium "CI1"/"CI2", gcc's "CI4", and the base class it
 * comes from) is named by libiberty after the base: Derived<long>::Base(long,
 * int). LLVM's demangler, llvm-symbolizer and gdb name it after its own
 * class, as every constructor is: Derived<long>::Derived(long, int); psym
 * does too, so that a frame has one name whichever way the debug
 * information was packaged (a DW_AT_name path or a linkage-name path). out
 * (libiberty's answer for name) is returned as it is, or replaced.
 */
static char *inheriting_ctor(const char *name, char *out)
{
	const char *ci = inheriting_ctor_at(name);
	size_t n = strlen(out), pe = n, cls, clen, blen;
	long ls, cs;
	char lenbuf[24], *fixed;
	int depth = 0;

	if (!ci)
		return out;
	/* The parameter list: the parentheses that close the name. */
	if (n && out[n - 1] == ')') {
		for (size_t i = n; i-- > 0;) {
			if (out[i] == ')')
				depth++;
			else if (out[i] == '(' && --depth == 0) {
				pe = i;
				break;
			}
		}
	}
	ls = last_sep(out, pe);
	if (ls < 0)
		return out;
	cs = last_sep(out, (size_t)ls);
	cls = cs < 0 ? 0 : (size_t)cs + 2;
	for (clen = 0; cls + clen < (size_t)ls && out[cls + clen] != '<'; clen++)
		;
	blen = pe - ((size_t)ls + 2);
	/* The last component must be the base the mangled name inherits from. */
	if (!clen || out[cls] == '(' || !blen || memchr(out + ls + 2, '<', blen))
		return out;
	snprintf(lenbuf, sizeof(lenbuf), "%zu", blen);
	{
		const char *b = strstr(ci + 3, lenbuf);

		if (!b || strncmp(b + strlen(lenbuf), out + ls + 2, blen) != 0)
			return out;
	}
	if (clen == blen && !memcmp(out + cls, out + ls + 2, blen))
		return out;
	fixed = malloc(n - blen + clen + 1);
	if (!fixed)
		return out;
	memcpy(fixed, out, (size_t)ls + 2);
	memcpy(fixed + ls + 2, out + cls, clen);
	memcpy(fixed + ls + 2 + clen, out + pe, n - pe + 1);
	free(out);
	return fixed;
}

char *psym_demangle(const char *name)
{
	size_t len;
	char *out;

	if (!name || name[0] != '_')
		return NULL;
	/* _Z: Itanium C++ and Rust legacy; _R: Rust v0. */
	if (name[1] != 'Z' && name[1] != 'R')
		return NULL;
	len = strlen(name);
	if (len > 1 << 16)
		return NULL;
	/*
	 * libiberty tries a name as Rust before C++. A legacy Rust name is
	 * _ZN...17h<16 hex digits>E: any other _Z name goes to the C++
	 * demangler at once (the Rust attempt scanned every name for
	 * nothing), and only if that finds nothing is the full search made,
	 * so the answer is the full search's.
	 */
	if (name[1] == 'Z' && !(len > 23 && name[2] == 'N' && name[len - 1] == 'E' &&
				!memcmp(name + len - 20, "17h", 3))) {
		out = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_GNU_V3);
		if (out)
			return inheriting_ctor(name, out);
	}
	out = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	return out && name[1] == 'Z' ? inheriting_ctor(name, out) : out;
}

char *psym_demangle_gnu(const char *name)
{
	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R') || strlen(name) > 1 << 16)
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}

int psym_demangle_mode_parse(const char *s)
{
	static const char *const names[] = { "default", "templates", "full", "none" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/*
 * The length of the operator's symbol after "operator" at s (s points
 * past it): "()", "<<=", "->*"... 0 when none (a conversion operator,
 * new, delete: a space follows), and then the caller reads on as usual.
 */
static size_t op_len(const char *s)
{
	static const char *const ops[] = { "<=>", "<<=", ">>=", "->*", "()", "[]", "<<", ">>",
					   "<=",  ">=",	 "->",	"==",  "!=", "&&", "||", "++",
					   "--",  "+=",	 "-=",	"*=",  "/=", "%=", "&=", "|=",
					   "^=",  "<",	 ">",	"+",   "-",  "*",  "/",	 "%",
					   "^",	  "&",	 "|",	"~",   "!",  "=",  ",",	 "\"\"" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i]);

		if (!strncmp(s, ops[i], n))
			return n;
	}
	return 0;
}

/* An "operator" keyword at s[i]: the length of it and its symbol, else 0. */
static size_t operator_at(const char *s, size_t i)
{
	if (strncmp(s + i, "operator", 8) || (i && ident_char(s[i - 1])) || ident_char(s[i + 8]))
		return 0;
	return 8 + op_len(s + i + 8);
}

/*
 * Past the template arguments "<...>" that open at s[i]: angle brackets
 * counted outside parentheses (libiberty writes an expression argument
 * in parentheses, "(a)>(b)"), operator names skipped. 0: unbalanced.
 */
static size_t skip_targs(const char *s, size_t i, size_t *budget)
{
	long depth = 0, paren = 0;

	while (s[i] && *budget) {
		size_t op = operator_at(s, i);
		char c = s[i];

		if (op) {
			i += op;
			continue;
		}
		if (c == '(')
			paren++;
		else if (c == ')' && --paren < 0)
			return 0;
		else if (!paren && c == '<')
			depth++;
		else if (!paren && c == '>' && --depth == 0)
			return i + 1;
		i++;
		--*budget;
	}
	return 0;
}

/*
 * A demangled name (libiberty's, without parameters) without its template
 * arguments, as pprof's demangler prints with NoTemplateParams: every
 * "<...>" goes, operator names stay whole ("operator<", "operator<<",
 * "operator()"), and the space libiberty puts between "operator<" and its
 * arguments goes with them. In place.
 */
static void strip_templates(char *s)
{
	/*
	 * Each '<' scans ahead for its '>': a hostile name of unbalanced '<'
	 * would make that quadratic, so the scans share a budget linear in
	 * the name; past it the rest is left as it is.
	 */
	size_t i = 0, o = 0, budget = 16 * strlen(s) + 4096;

	while (s[i]) {
		size_t op = operator_at(s, i), end;

		if (op) {
			memmove(s + o, s + i, op);
			o += op;
			i += op;
			if (s[i] == ' ' && s[i + 1] == '<' && skip_targs(s, i + 1, &budget))
				i++;
			continue;
		}
		if (s[i] == '<' && (end = skip_targs(s, i, &budget)) != 0) {
			i = end;
			continue;
		}
		s[o++] = s[i++];
	}
	s[o] = '\0';
}

/*
 * libiberty now and then closes two template argument lists as ">>" (when
 * its output buffer was flushed between them); pprof's demangler always
 * writes "> >". A new string with the space put back (out is freed), or
 * out itself when nothing is missing or memory is short.
 */
static char *space_closers(char *out)
{
	size_t n = strlen(out), i = 0, o = 0;
	long paren = 0;
	char *fixed = malloc(2 * n + 1);

	if (!fixed)
		return out;
	while (out[i]) {
		size_t op = operator_at(out, i);

		if (op) {
			memcpy(fixed + o, out + i, op);
			o += op;
			i += op;
			continue;
		}
		if (out[i] == '(')
			paren++;
		else if (out[i] == ')')
			paren--;
		else if (out[i] == '>' && !paren && o && fixed[o - 1] == '>')
			fixed[o++] = ' ';
		fixed[o++] = out[i++];
	}
	fixed[o] = '\0';
	free(out);
	return fixed;
}

/* pprof's removeMatching: every outermost open...close group goes; in place. */
static void remove_matching(char *s, char open, char close)
{
	size_t i, o = 0, first = 0;
	long nesting = 0;

	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (c == open && nesting++ == 0)
			first = o;
		if (c == close && --nesting < 0) {
			memmove(s + o, s + i, strlen(s + i) + 1); /* mismatch: the rest as it is */
			return;
		}
		s[o++] = c;
		if (c == close && nesting == 0)
			o = first;
	}
	s[o] = '\0';
}

/* pprof's looksLikeDemangledCPlusPlus. */
static bool looks_demangled(const char *s)
{
	if (strstr(s, ".<") || strstr(s, "]).")) /* Java's class.<init>, Go generics */
		return false;
	return strpbrk(s, "<>[]") || strstr(s, "::");
}

/* _R (Rust v0), or _ZN...17h<16 hex digits>E (Rust legacy). */
static bool is_rust(const char *s, size_t len)
{
	if (s[1] == 'R')
		return true;
	if (len <= 23 || s[2] != 'N' || s[len - 1] != 'E' || memcmp(s + len - 20, "17h", 3))
		return false;
	for (size_t i = len - 17; i < len - 1; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* A C++ name demangled as pprof's demangler does in mode; NULL: not one. */
static char *demangle_cxx(const char *sys, enum psym_demangle_mode mode)
{
	size_t len = strcspn(sys, ".");
	char *name, *out;

	if (len > 1 << 16)
		return NULL;
	name = malloc(len + 1);
	if (!name)
		return NULL;
	/*
	 * Without parameters libiberty reads no further than the name (as
	 * pprof's demangler does, clone suffixes dropped); the full form
	 * drops them (NoClones) by reading the name up to its first '.'
	 * (pprof's reads parameters up to a '.' too, and fails on any other
	 * tail, such as a symbol version, as libiberty does).
	 */
	memcpy(name, sys, len);
	name[len] = '\0';
	if (mode == PSYM_DEMANGLE_FULL)
		out = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_GNU_V3);
	else
		out = cplus_demangle(sys, DMGL_ANSI | DMGL_GNU_V3);
	if (out)
		out = inheriting_ctor(name, out);
	free(name);
	if (out && mode == PSYM_DEMANGLE_SIMPLE)
		strip_templates(out);
	else if (out && strstr(out, ">>"))
		out = space_closers(out);
	return out;
}

char *psym_demangle_as(const char *sys, enum psym_demangle_mode mode)
{
	size_t len;
	char *out;

	if (!sys || mode == PSYM_DEMANGLE_NONE)
		return NULL;
	if (mode == PSYM_DEMANGLE_CLONES)
		return psym_demangle(sys);
	len = strnlen(sys, (1 << 16) + 1);
	if (len > 1 << 16)
		return NULL;
	if (sys[0] == '_' && (sys[1] == 'Z' || sys[1] == 'R')) {
		/* Rust: the path as the demangler writes it, in every mode. */
		out = is_rust(sys, len) ? psym_demangle(sys) : demangle_cxx(sys, mode);
		if (out)
			return out;
	}
	if (mode == PSYM_DEMANGLE_FULL || !looks_demangled(sys))
		return NULL;
	out = strdup(sys);
	if (!out)
		return NULL;
	remove_matching(out, '(', ')');
	if (mode == PSYM_DEMANGLE_SIMPLE)
		remove_matching(out, '<', '>');
	if (!strcmp(out, sys)) {
		free(out);
		return NULL;
	}
	return out;
}
