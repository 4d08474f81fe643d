/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <ctype.h>
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
