/* SPDX-License-Identifier: MIT */
/* The atoms of a regular expression: escapes and classes (see rx_atom.h). */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "rx_atom.h"
#include "rx_node.h"

static int hexval(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The next rune of the pattern; an invalid byte is an error. */
int rx_next_rune(struct parser *P, uint32_t *r)
{
	size_t w = rx_decode((const unsigned char *)P->p, (size_t)(P->end - P->p), r);

	if (*r == BAD_RUNE && w == 1 && (unsigned char)*P->p >= 0x80)
		return rx_perr(P, "invalid UTF-8", P->p, (size_t)(P->end - P->p));
	P->p += w;
	return 0;
}

/* The first byte in [s, end) that is not part of valid UTF-8, or NULL. */
const char *rx_bad_utf8(const char *s, const char *end)
{
	while (s < end) {
		uint32_t r;
		size_t w = rx_decode((const unsigned char *)s, (size_t)(end - s), &r);

		if (r == BAD_RUNE && w == 1 && (unsigned char)*s >= 0x80)
			return s;
		s += w;
	}
	return NULL;
}

/*
 * A Perl class \d \s \w (upper case: negated) into tmp, folded and negated
 * as Go does: c is the letter.
 */
int rx_perl_class(struct parser *P, int c, int flags)
{
	size_t from = P->ntmp;
	int lc = c | 0x20;

	if (lc == 'd')
		rx_tmp_add(P, '0', '9');
	else if (lc == 's') {
		rx_tmp_add(P, '\t', '\n');
		rx_tmp_add(P, '\f', '\r');
		rx_tmp_add(P, ' ', ' ');
	} else {
		rx_tmp_add(P, '0', '9');
		rx_tmp_add(P, 'A', 'Z');
		rx_tmp_add(P, 'a', 'z');
		rx_tmp_add(P, '_', '_');
	}
	if (P->err)
		return P->err;
	if (flags & F_FOLD)
		rx_tmp_fold(P, from);
	else
		rx_tmp_clean(P, from);
	if (!P->err && c != lc)
		rx_tmp_negate(P, from);
	return P->err;
}

/* [:name:] or [:^name:] at P->p (inside a class), into tmp. */
static int posix_class(struct parser *P, int flags)
{
	static const struct {
		const char *name;
		const char *ranges; /* pairs of bytes */
	} tab[] = {
		{ "alnum", "09AZaz" },	 { "alpha", "AZaz" },
		{ "ascii", "\x01\x7f" }, /* and NUL, added below */
		{ "blank", "\t\t  " },	 { "cntrl", "\x01\x1f\x7f\x7f" },
		{ "digit", "09" },	 { "graph", "!~" },
		{ "lower", "az" },	 { "print", " ~" },
		{ "punct", "!/:@[`{~" }, { "space", "\t\r  " },
		{ "upper", "AZ" },	 { "word", "09AZaz__" },
		{ "xdigit", "09AFaf" },
	};
	const char *start = P->p, *close;
	bool neg = false;
	size_t from = P->ntmp, len;

	close = NULL;
	for (const char *c = P->p + 2; c + 1 < P->end; c++)
		if (c[0] == ':' && c[1] == ']') {
			close = c;
			break;
		}
	if (!close)
		return 1; /* not a named class: '[' is a literal */
	P->p += 2;
	if (*P->p == '^') {
		neg = true;
		P->p++;
	}
	len = (size_t)(close - P->p);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strlen(tab[i].name) != len || memcmp(tab[i].name, P->p, len))
			continue;
		for (const char *r = tab[i].ranges; *r; r += 2)
			rx_tmp_add(P, (unsigned char)r[0], (unsigned char)r[1]);
		if (!strcmp(tab[i].name, "ascii") || !strcmp(tab[i].name, "cntrl"))
			rx_tmp_add(P, 0, 0);
		if (P->err)
			return P->err;
		if (flags & F_FOLD)
			rx_tmp_fold(P, from);
		else
			rx_tmp_clean(P, from);
		if (!P->err && neg)
			rx_tmp_negate(P, from);
		P->p = close + 2;
		return P->err;
	}
	return rx_perr(P, "invalid character class range", start, (size_t)(close + 2 - start));
}

/*
 * An escape at P->p (the backslash) that stands for one rune (Go's
 * parseEscape): octal, hex, the C escapes, punctuation.
 */
int rx_escape_rune(struct parser *P, uint32_t *r)
{
	const char *start = P->p;
	uint32_t c;

	P->p++;
	if (P->p >= P->end)
		return rx_perr(P, "trailing backslash at end of expression", P->p, 0);
	if (rx_next_rune(P, &c))
		return P->err;
	if (c >= '1' && c <= '7') {
		/* One digit alone would be a back-reference: not supported. */
		if (P->p >= P->end || *P->p < '0' || *P->p > '7')
			goto bad;
	}
	if (c >= '0' && c <= '7') {
		uint32_t v = c - '0';

		for (int i = 0; i < 2 && P->p < P->end && *P->p >= '0' && *P->p <= '7'; i++)
			v = v * 8 + (uint32_t)(*P->p++ - '0');
		*r = v;
		return 0;
	}
	switch (c) {
	case 'x':
		if (P->p >= P->end)
			goto bad;
		if (*P->p == '{') {
			uint32_t v = 0;
			int nd = 0;

			P->p++;
			while (P->p < P->end && hexval(*P->p) >= 0) {
				v = v * 16 + (uint32_t)hexval(*P->p++);
				if (v > MAX_RUNE)
					goto bad;
				nd++;
			}
			if (!nd || P->p >= P->end || *P->p != '}') {
				if (P->p < P->end && *P->p != '}')
					P->p++; /* Go shows the rune that stopped it */
				goto bad;
			}
			P->p++;
			*r = v;
			return 0;
		}
		if (P->p + 1 >= P->end || hexval(P->p[0]) < 0 || hexval(P->p[1]) < 0) {
			/* Go reads two runes, then looks at them. */
			for (int i = 0; i < 2 && P->p < P->end; i++)
				if (rx_next_rune(P, &c))
					return P->err;
			goto bad;
		}
		*r = (uint32_t)(hexval(P->p[0]) * 16 + hexval(P->p[1]));
		P->p += 2;
		return 0;
	case 'a': *r = 7; return 0;
	case 'f': *r = 12; return 0;
	case 'n': *r = 10; return 0;
	case 'r': *r = 13; return 0;
	case 't': *r = 9; return 0;
	case 'v': *r = 11; return 0;
	default:
		if (c < 0x80 && !is_alnum((int)c)) {
			*r = c;
			return 0;
		}
		break;
	}
bad:
	return rx_perr(P, "invalid escape sequence", start, (size_t)(P->p - start));
}

/* \p and \P: Unicode classes, which psym has no tables for. */
int rx_unicode_class(struct parser *P)
{
	const char *start = P->p;
	const char *end = P->p + 3 <= P->end ? P->p + 3 : P->end;

	if (P->p + 2 < P->end && P->p[2] == '{') {
		const char *c = memchr(P->p, '}', (size_t)(P->end - P->p));

		end = c ? c + 1 : P->end;
	}
	if (P->err)
		return P->err;
	P->err =
		psym_err_set(P->e, PSYM_EUSAGE, "Unicode classes are not supported by psym: `%.*s`",
			     (int)(end - start), start);
	return P->err;
}

/* A class [...] at P->p. */
uint32_t rx_parse_class(struct parser *P, int flags)
{
	const char *start = P->p;
	size_t from = P->ntmp;
	bool neg = false, first = true;

	P->p++;
	if (P->p < P->end && *P->p == '^') {
		neg = true;
		P->p++;
	}
	while (P->p < P->end && (*P->p != ']' || first)) {
		const char *item = P->p;
		uint32_t lo, hi;

		first = false;
		if (*P->p == '[' && P->p + 1 < P->end && P->p[1] == ':') {
			int r = posix_class(P, flags);

			if (r < 0)
				return NONE;
			if (r == 0)
				continue;
		}
		if (*P->p == '\\' && P->p + 1 < P->end) {
			int c = P->p[1];

			if (c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W') {
				P->p += 2;
				if (rx_perl_class(P, c, flags))
					return NONE;
				continue;
			}
			if (c == 'p' || c == 'P') {
				rx_unicode_class(P);
				return NONE;
			}
		}
		if (*P->p == '\\') {
			if (rx_escape_rune(P, &lo))
				return NONE;
		} else if (rx_next_rune(P, &lo)) {
			return NONE;
		}
		hi = lo;
		if (P->p + 1 < P->end && *P->p == '-' && P->p[1] != ']') {
			P->p++;
			if (*P->p == '\\') {
				if (rx_escape_rune(P, &hi))
					return NONE;
			} else if (rx_next_rune(P, &hi)) {
				return NONE;
			}
			if (hi < lo) {
				rx_perr(P, "invalid character class range", item,
					(size_t)(P->p - item));
				return NONE;
			}
		}
		{
			size_t f = P->ntmp;

			if (rx_tmp_add(P, lo, hi))
				return NONE;
			if ((flags & F_FOLD) && rx_tmp_fold(P, f))
				return NONE;
		}
	}
	if (P->p >= P->end) {
		rx_perr(P, "missing closing ]", start, (size_t)(P->end - start));
		return NONE;
	}
	P->p++;
	rx_tmp_clean(P, from);
	if (neg && rx_tmp_negate(P, from))
		return NONE;
	return rx_class_node(P, from);
}
