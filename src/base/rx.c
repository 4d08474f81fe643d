/* SPDX-License-Identifier: MIT */
/*
 * Go/RE2-syntax regular expressions matched by simulating their NFA (see
 * rx.h). Three steps: a recursive-descent parser builds a tree of nodes,
 * checking every count and the program size it implies before anything is
 * expanded; the compiler emits the program (one instruction per rune
 * class, assertion, split or jump); the matcher runs the text through the
 * program with two sparse sets of live instructions.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rx.h"

#define MAX_RUNE 0x10FFFFu
#define BAD_RUNE 0xFFFDu
#define NONE UINT32_MAX

/* Flags of a group. */
enum {
	F_FOLD = 1,  /* i */
	F_MULTI = 2, /* m */
	F_DOTNL = 4, /* s */
	F_UNGREEDY = 8,
};

/* Empty-width assertions. */
enum {
	A_BEGIN_TEXT,
	A_END_TEXT,
	A_BEGIN_LINE,
	A_END_LINE,
	A_WORD,
	A_NOT_WORD,
};

enum {
	N_EMPTY,
	N_CLASS,
	N_ASSERT,
	N_CAT,
	N_ALT,
	N_STAR,
	N_PLUS,
	N_QUEST,
	N_REP,
};

struct node {
	uint8_t op;
	uint8_t as;	  /* N_ASSERT: A_* */
	uint32_t cls;	  /* N_CLASS: index into classes */
	uint32_t sub;	  /* first child (N_CAT, N_ALT, repeats) */
	uint32_t next;	  /* next sibling */
	int min, max;	  /* N_REP; max -1: no bound */
	uint32_t prod;	  /* Go's product of nested repeat counts, capped at 1001 */
	uint64_t size;	  /* instructions this node compiles to */
	uint32_t nsub;	  /* children */
	uint32_t lastsub; /* last child */
};

struct range {
	uint32_t lo, hi;
};

struct cls {
	uint32_t first, n; /* in ranges */
};

enum {
	I_CLASS,
	I_ASSERT,
	I_SPLIT,
	I_JMP,
	I_MATCH,
};

struct inst {
	uint32_t op : 8;
	uint32_t arg : 24; /* I_ASSERT: A_*; unused otherwise */
	uint32_t x, y;	   /* I_CLASS: class; I_SPLIT: both ways; I_JMP: x */
};

/* A set of instruction numbers: insertion and lookup in O(1), clear in O(1). */
struct sset {
	uint32_t *sparse, *dense;
	uint32_t n;
};

struct psym_rx {
	struct inst *prog;
	uint32_t ninst;
	struct range *ranges;
	size_t nrange;
	struct cls *cls;
	size_t ncls;
	bool anchored; /* begins with \A: only position 0 can start a match */
	struct sset cur, nxt;
	uint32_t *stack;
};

struct parser {
	const char *pat, *p, *end;
	struct node *nodes;
	size_t nn, cap;
	struct range *tmp; /* the class being built */
	size_t ntmp, tmpcap;
	struct psym_rx *rx;
	size_t rangecap, clscap;
	int depth;
	struct psym_err *e;
	int err;
};

#define MAX_INSTS ((uint64_t)PSYM_RX_MAX_PROG / sizeof(struct inst))

/* ---- UTF-8 ------------------------------------------------------------------- */

/* The rune at s (n > 0 bytes left), as Go's utf8.DecodeRune: bad bytes are U+FFFD, width 1. */
static size_t decode(const unsigned char *s, size_t n, uint32_t *r)
{
	uint32_t c = s[0], min;
	size_t w;

	if (c < 0x80) {
		*r = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		w = 2;
		c &= 0x1F;
		min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		w = 3;
		c &= 0x0F;
		min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		w = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		*r = BAD_RUNE;
		return 1;
	}
	if (n < w) {
		*r = BAD_RUNE;
		return 1;
	}
	for (size_t i = 1; i < w; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*r = BAD_RUNE;
			return 1;
		}
		c = c << 6 | (s[i] & 0x3F);
	}
	if (c < min || c > MAX_RUNE || (c >= 0xD800 && c <= 0xDFFF)) {
		*r = BAD_RUNE;
		return 1;
	}
	*r = c;
	return w;
}

static bool is_word(int64_t r)
{
	return (r >= '0' && r <= '9') || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') ||
	       r == '_';
}

/* ---- case folding: ASCII and Latin-1 ------------------------------------------- */

/* The runes that fold together with r (r included), at most 3; returns how many. */
static int fold_orbit(uint32_t r, uint32_t o[3])
{
	static const uint32_t special[][3] = {
		{ 'K', 'k', 0x212A },	{ 'S', 's', 0x17F }, { 0xC5, 0xE5, 0x212B },
		{ 0xB5, 0x39C, 0x3BC }, { 0xFF, 0x178, 0 },  { 0xDF, 0x1E9E, 0 },
	};

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		for (int j = 0; j < 3; j++)
			if (special[i][j] == r && r) {
				int n = special[i][2] ? 3 : 2;

				memcpy(o, special[i], (size_t)n * sizeof(*o));
				return n;
			}
	o[0] = r;
	if ((r >= 'A' && r <= 'Z') || (r >= 0xC0 && r <= 0xDE && r != 0xD7)) {
		o[1] = r + 32;
		return 2;
	}
	if ((r >= 'a' && r <= 'z') || (r >= 0xE0 && r <= 0xFE && r != 0xF7)) {
		o[1] = r - 32;
		return 2;
	}
	return 1;
}

/* ---- errors ------------------------------------------------------------------ */

/* Go's wording: "CODE: `TEXT`", TEXT from s for n bytes. */
static int perr(struct parser *P, const char *code, const char *s, size_t n)
{
	if (P->err)
		return P->err;
	if (s)
		psym_err_set(P->e, PSYM_EUSAGE, "%s: `%.*s`", code, (int)(n > 200 ? 200 : n), s);
	else
		psym_err_set(P->e, PSYM_EUSAGE, "%s", code);
	P->err = PSYM_EUSAGE;
	return P->err;
}

static int nomem(struct parser *P)
{
	if (!P->err)
		P->err = psym_err_set(P->e, PSYM_ENOMEM, "out of memory");
	return P->err;
}

static int too_large(struct parser *P)
{
	if (P->err)
		return P->err;
	P->err = psym_err_set(P->e, PSYM_EUSAGE,
			      "expression too large (psym caps a compiled program at %u MB)",
			      PSYM_RX_MAX_PROG >> 20);
	return P->err;
}

/* ---- rune classes ------------------------------------------------------------ */

static int tmp_add(struct parser *P, uint32_t lo, uint32_t hi)
{
	if (P->ntmp == P->tmpcap) {
		size_t nc = P->tmpcap ? P->tmpcap * 2 : 16;
		struct range *t;

		if (nc > (1u << 24))
			return too_large(P);
		t = realloc(P->tmp, nc * sizeof(*t));
		if (!t)
			return nomem(P);
		P->tmp = t;
		P->tmpcap = nc;
	}
	P->tmp[P->ntmp++] = (struct range){ lo, hi };
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort and merge tmp[from..]. */
static void tmp_clean(struct parser *P, size_t from)
{
	struct range *r = P->tmp + from;
	size_t n = P->ntmp - from, o = 0;

	if (!n)
		return;
	qsort(r, n, sizeof(*r), cmp_range);
	for (size_t i = 1; i < n; i++) {
		if (r[i].lo <= r[o].hi + 1) {
			if (r[i].hi > r[o].hi)
				r[o].hi = r[i].hi;
		} else {
			r[++o] = r[i];
		}
	}
	P->ntmp = from + o + 1;
}

/* Add to tmp[from..] every rune that folds with one in it. */
static int tmp_fold(struct parser *P, size_t from)
{
	static const uint32_t extra[] = { 0x178, 0x17F, 0x39C, 0x3BC, 0x1E9E, 0x212A, 0x212B };
	size_t n = P->ntmp;

	for (size_t i = from; i < n; i++) {
		uint32_t lo = P->tmp[i].lo, hi = P->tmp[i].hi;

		for (uint32_t r = lo; r <= hi && r <= 0xFF; r++) {
			uint32_t o[3];
			int k = fold_orbit(r, o);

			for (int j = 0; j < k; j++)
				if (o[j] != r && tmp_add(P, o[j], o[j]))
					return P->err;
		}
		for (size_t x = 0; x < sizeof(extra) / sizeof(extra[0]); x++)
			if (extra[x] >= lo && extra[x] <= hi) {
				uint32_t o[3];
				int k = fold_orbit(extra[x], o);

				for (int j = 0; j < k; j++)
					if (tmp_add(P, o[j], o[j]))
						return P->err;
			}
	}
	tmp_clean(P, from);
	return 0;
}

/* Replace tmp[from..] (clean) by its complement in 0..MAX_RUNE. */
static int tmp_negate(struct parser *P, size_t from)
{
	size_t n = P->ntmp - from;
	struct range *old = malloc((n ? n : 1) * sizeof(*old));
	uint32_t next = 0;

	if (!old)
		return nomem(P);
	if (n)
		memcpy(old, P->tmp + from, n * sizeof(*old));
	P->ntmp = from;
	for (size_t i = 0; i < n; i++) {
		if (old[i].lo > next && tmp_add(P, next, old[i].lo - 1))
			break;
		next = old[i].hi + 1;
	}
	if (!P->err && next <= MAX_RUNE)
		tmp_add(P, next, MAX_RUNE);
	free(old);
	return P->err;
}

/* Make tmp[from..] a class of the program; its node number in *node. */
static uint32_t new_node(struct parser *P, int op);

static uint32_t class_node(struct parser *P, size_t from)
{
	struct psym_rx *rx = P->rx;
	size_t n;
	uint32_t id;

	tmp_clean(P, from);
	n = P->ntmp - from;
	if (rx->nrange + n > P->rangecap) {
		size_t nc = P->rangecap ? P->rangecap : 64;
		struct range *t;

		while (nc < rx->nrange + n)
			nc *= 2;
		if (nc * sizeof(*t) > PSYM_RX_MAX_PROG) {
			too_large(P);
			return NONE;
		}
		t = realloc(rx->ranges, nc * sizeof(*t));
		if (!t) {
			nomem(P);
			return NONE;
		}
		rx->ranges = t;
		P->rangecap = nc;
	}
	if (rx->ncls == P->clscap) {
		size_t nc = P->clscap ? P->clscap * 2 : 16;
		struct cls *t = realloc(rx->cls, nc * sizeof(*t));

		if (!t) {
			nomem(P);
			return NONE;
		}
		rx->cls = t;
		P->clscap = nc;
	}
	if (n) /* an empty class, [^\s\S], may have no range array yet */
		memcpy(rx->ranges + rx->nrange, P->tmp + from, n * sizeof(struct range));
	rx->cls[rx->ncls] = (struct cls){ (uint32_t)rx->nrange, (uint32_t)n };
	rx->nrange += n;
	P->ntmp = from;
	id = new_node(P, N_CLASS);
	if (id != NONE)
		P->nodes[id].cls = (uint32_t)rx->ncls++;
	return id;
}

/* ---- nodes ------------------------------------------------------------------- */

static uint32_t new_node(struct parser *P, int op)
{
	struct node *n;

	if (P->err)
		return NONE;
	if (P->nn == P->cap) {
		size_t nc = P->cap ? P->cap * 2 : 64;
		struct node *t;

		if (nc * sizeof(*t) > 4 * (size_t)PSYM_RX_MAX_PROG) {
			too_large(P);
			return NONE;
		}
		t = realloc(P->nodes, nc * sizeof(*t));
		if (!t) {
			nomem(P);
			return NONE;
		}
		P->nodes = t;
		P->cap = nc;
	}
	n = &P->nodes[P->nn];
	memset(n, 0, sizeof(*n));
	n->op = (uint8_t)op;
	n->sub = n->next = n->lastsub = NONE;
	n->prod = 1;
	n->size = op == N_EMPTY ? 0 : 1;
	return (uint32_t)P->nn++;
}

/* Append child c to list node l (N_CAT or N_ALT), updating size and prod. */
static void add_child(struct parser *P, uint32_t l, uint32_t c)
{
	struct node *L = &P->nodes[l], *C = &P->nodes[c];

	if (L->lastsub == NONE)
		L->sub = c;
	else
		P->nodes[L->lastsub].next = c;
	L->lastsub = c;
	L->nsub++;
	L->size += C->size + (L->op == N_ALT && L->nsub > 1 ? 2 : 0);
	if (C->prod > L->prod)
		L->prod = C->prod;
	if (L->size > MAX_INSTS)
		too_large(P);
}

/* A rune class node for one rune, folded when asked. */
static uint32_t rune_node(struct parser *P, uint32_t r, int flags)
{
	size_t from = P->ntmp;

	if (tmp_add(P, r, r))
		return NONE;
	if ((flags & F_FOLD) && tmp_fold(P, from))
		return NONE;
	return class_node(P, from);
}

/* ---- the parser -------------------------------------------------------------- */

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(int c)
{
	return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

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
static int next_rune(struct parser *P, uint32_t *r)
{
	size_t w = decode((const unsigned char *)P->p, (size_t)(P->end - P->p), r);

	if (*r == BAD_RUNE && w == 1 && (unsigned char)*P->p >= 0x80)
		return perr(P, "invalid UTF-8", P->p, (size_t)(P->end - P->p));
	P->p += w;
	return 0;
}

/* The first byte in [s, end) that is not part of valid UTF-8, or NULL. */
static const char *bad_utf8(const char *s, const char *end)
{
	while (s < end) {
		uint32_t r;
		size_t w = decode((const unsigned char *)s, (size_t)(end - s), &r);

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
static int perl_class(struct parser *P, int c, int flags)
{
	size_t from = P->ntmp;
	int lc = c | 0x20;

	if (lc == 'd')
		tmp_add(P, '0', '9');
	else if (lc == 's') {
		tmp_add(P, '\t', '\n');
		tmp_add(P, '\f', '\r');
		tmp_add(P, ' ', ' ');
	} else {
		tmp_add(P, '0', '9');
		tmp_add(P, 'A', 'Z');
		tmp_add(P, 'a', 'z');
		tmp_add(P, '_', '_');
	}
	if (P->err)
		return P->err;
	if (flags & F_FOLD)
		tmp_fold(P, from);
	else
		tmp_clean(P, from);
	if (!P->err && c != lc)
		tmp_negate(P, from);
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
			tmp_add(P, (unsigned char)r[0], (unsigned char)r[1]);
		if (!strcmp(tab[i].name, "ascii") || !strcmp(tab[i].name, "cntrl"))
			tmp_add(P, 0, 0);
		if (P->err)
			return P->err;
		if (flags & F_FOLD)
			tmp_fold(P, from);
		else
			tmp_clean(P, from);
		if (!P->err && neg)
			tmp_negate(P, from);
		P->p = close + 2;
		return P->err;
	}
	return perr(P, "invalid character class range", start, (size_t)(close + 2 - start));
}

/*
 * An escape at P->p (the backslash) that stands for one rune (Go's
 * parseEscape): octal, hex, the C escapes, punctuation.
 */
static int escape_rune(struct parser *P, uint32_t *r)
{
	const char *start = P->p;
	uint32_t c;

	P->p++;
	if (P->p >= P->end)
		return perr(P, "trailing backslash at end of expression", P->p, 0);
	if (next_rune(P, &c))
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
				if (next_rune(P, &c))
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
	return perr(P, "invalid escape sequence", start, (size_t)(P->p - start));
}

/* \p and \P: Unicode classes, which psym has no tables for. */
static int unicode_class(struct parser *P)
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
static uint32_t parse_class(struct parser *P, int flags)
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
				if (perl_class(P, c, flags))
					return NONE;
				continue;
			}
			if (c == 'p' || c == 'P') {
				unicode_class(P);
				return NONE;
			}
		}
		if (*P->p == '\\') {
			if (escape_rune(P, &lo))
				return NONE;
		} else if (next_rune(P, &lo)) {
			return NONE;
		}
		hi = lo;
		if (P->p + 1 < P->end && *P->p == '-' && P->p[1] != ']') {
			P->p++;
			if (*P->p == '\\') {
				if (escape_rune(P, &hi))
					return NONE;
			} else if (next_rune(P, &hi)) {
				return NONE;
			}
			if (hi < lo) {
				perr(P, "invalid character class range", item,
				     (size_t)(P->p - item));
				return NONE;
			}
		}
		{
			size_t f = P->ntmp;

			if (tmp_add(P, lo, hi))
				return NONE;
			if ((flags & F_FOLD) && tmp_fold(P, f))
				return NONE;
		}
	}
	if (P->p >= P->end) {
		perr(P, "missing closing ]", start, (size_t)(P->end - start));
		return NONE;
	}
	P->p++;
	tmp_clean(P, from);
	if (neg && tmp_negate(P, from))
		return NONE;
	return class_node(P, from);
}

static uint32_t parse_alt(struct parser *P, int *flags);

/*
 * After "(?" at P->p - 2: flags, a named group or a non-capturing group.
 * Returns 0 for a flags-only group (flags changed), 1 when a group follows
 * (its flags in *inner), -1 on error.
 */
static int perl_group(struct parser *P, const char *open, int *flags, int *inner)
{
	int f = *flags, sign = 1;
	bool sawflag = false;

	if (P->p < P->end && (*P->p == 'P' || *P->p == '<')) {
		const char *name;

		if (*P->p == 'P')
			P->p++;
		if (P->p + 1 >= P->end || *P->p != '<') { /* "(?P" and "(?P<" at the end too */
			perr(P, "invalid or unsupported Perl syntax", open, (size_t)(P->p - open));
			return -1;
		}
		if (open[2] == '<' && P->p + 1 < P->end && (P->p[1] == '=' || P->p[1] == '!')) {
			perr(P, "invalid or unsupported Perl syntax", open,
			     (size_t)(P->p + 1 - open));
			return -1;
		}
		name = ++P->p;
		while (P->p < P->end && *P->p != '>')
			P->p++;
		if (P->p >= P->end) {
			const char *bad = bad_utf8(name, P->end);

			if (bad)
				perr(P, "invalid UTF-8", bad, (size_t)(P->end - bad));
			perr(P, "invalid named capture", open, (size_t)(P->end - open));
			return -1;
		}
		if (P->p == name) {
			perr(P, "invalid named capture", open, (size_t)(P->p + 1 - open));
			return -1;
		}
		{
			const char *bad = bad_utf8(name, P->p);

			if (bad) {
				perr(P, "invalid UTF-8", bad, (size_t)(P->p - bad));
				return -1;
			}
		}
		for (const char *c = name; c < P->p; c++)
			if (!is_alnum(*c) && *c != '_') {
				perr(P, "invalid named capture", open, (size_t)(P->p + 1 - open));
				return -1;
			}
		P->p++;
		*inner = *flags;
		return 1;
	}
	while (P->p < P->end) {
		char c = *P->p++;
		int bit = 0;

		switch (c) {
		case 'i': bit = F_FOLD; break;
		case 'm': bit = F_MULTI; break;
		case 's': bit = F_DOTNL; break;
		case 'U': bit = F_UNGREEDY; break;
		case '-':
			if (sign < 0)
				goto bad;
			sign = -1;
			sawflag = false;
			continue;
		case ':':
		case ')':
			if (sign < 0 && !sawflag)
				goto bad;
			if (c == ':') {
				*inner = f;
				return 1;
			}
			*flags = f;
			return 0;
		default:
			if (bad_utf8(P->p - 1, P->end) == P->p - 1) {
				perr(P, "invalid UTF-8", P->p - 1, (size_t)(P->end - P->p + 1));
				return -1;
			}
			goto bad;
		}
		f = sign > 0 ? f | bit : f & ~bit;
		sawflag = true;
	}
bad:
	perr(P, "invalid or unsupported Perl syntax", open, (size_t)(P->p - open));
	return -1;
}

/* Go's parseRepeat at P->p ('{'): true with the counts, or false (a literal '{'). */
static bool parse_count(struct parser *P, const char **after, long *min, long *max)
{
	const char *c = P->p + 1;

	for (int k = 0; k < 2; k++) {
		const char *d = c;
		long v = 0;

		while (c < P->end && is_digit(*c)) {
			if (v <= 100000)
				v = v * 10 + (*c - '0');
			c++;
		}
		if (c == d) {
			if (k == 0)
				return false;
			v = -1; /* {n,} */
		} else if (c - d >= 2 && *d == '0') {
			return false;
		}
		if (k == 0)
			*min = v;
		else
			*max = v;
		if (c >= P->end)
			return false;
		if (*c == '}') {
			if (k == 0)
				*max = v;
			*after = c + 1;
			return true;
		}
		if (k == 1 || *c != ',')
			return false;
		c++;
	}
	return false;
}

/* A repetition operator at P->p applied to node x; returns the new node. */
static uint32_t parse_repeat(struct parser *P, uint32_t x)
{
	const char *op = P->p;
	long min = 0, max = -1;
	int kind;
	uint32_t n;
	struct node *X, *N;
	uint64_t s;

	switch (*P->p) {
	case '*':
		kind = N_STAR;
		P->p++;
		break;
	case '+':
		kind = N_PLUS;
		P->p++;
		break;
	case '?':
		kind = N_QUEST;
		P->p++;
		break;
	default: {
		const char *after;

		parse_count(P, &after, &min, &max); /* the caller knows it parses */
		P->p = after;
		kind = N_REP;
		if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)) {
			perr(P, "invalid repeat count", op, (size_t)(P->p - op));
			return NONE;
		}
	}
	}
	if (P->p < P->end && *P->p == '?')
		P->p++; /* lazy: the same yes/no answer */
	n = new_node(P, kind);
	if (n == NONE)
		return NONE;
	X = &P->nodes[x];
	N = &P->nodes[n];
	N->sub = N->lastsub = x;
	N->nsub = 1;
	N->min = (int)min;
	N->max = (int)max;
	N->prod = X->prod;
	s = X->size;
	switch (kind) {
	case N_STAR: N->size = s + 2; break;
	case N_PLUS:
	case N_QUEST: N->size = s + 1; break;
	default:
		if (max < 0)
			N->size = min == 0 ? s + 2 : (uint64_t)min * s + 1;
		else
			N->size = (uint64_t)min * s + (uint64_t)(max - min) * (s + 1);
		{
			/* Go's repeatIsValid: the product of nested counts at most 1000. */
			long m = max < 0 ? min : max;
			uint64_t prod = (uint64_t)m * X->prod;

			if (m == 0)
				N->prod = 0;
			else
				N->prod = prod > 1001 ? 1001 : (uint32_t)prod;
			if ((min >= 2 || max >= 2) && prod > 1000) {
				perr(P, "invalid repeat count", op, (size_t)(P->p - op));
				return NONE;
			}
		}
		break;
	}
	if (N->size > MAX_INSTS) {
		too_large(P);
		return NONE;
	}
	return n;
}

static bool is_repeat_op(struct parser *P)
{
	const char *after;
	long a, b;

	if (P->p >= P->end)
		return false;
	if (*P->p == '*' || *P->p == '+' || *P->p == '?')
		return true;
	return *P->p == '{' && parse_count(P, &after, &a, &b);
}

/* Where the repetition operator at P->p ends, its lazy '?' included. */
static const char *op_end(struct parser *P)
{
	const char *after = P->p + 1;
	long a, b;

	if (*P->p == '{')
		parse_count(P, &after, &a, &b);
	if (after < P->end && *after == '?')
		after++;
	return after;
}

/* An assertion node. */
static uint32_t assert_node(struct parser *P, int as)
{
	uint32_t n = new_node(P, N_ASSERT);

	if (n != NONE)
		P->nodes[n].as = (uint8_t)as;
	return n;
}

/* One concatenation: up to '|', ')' or the end. */
static uint32_t parse_cat(struct parser *P, int *flags)
{
	uint32_t cat = new_node(P, N_CAT), last = NONE;
	const char *lastop = NULL; /* where the last repetition operator began */

	if (cat == NONE)
		return NONE;
	P->nodes[cat].size = 0;
	while (!P->err && P->p < P->end && *P->p != '|' && *P->p != ')') {
		const char *tok = P->p;
		uint32_t x = NONE;

		if (is_repeat_op(P)) {
			const char *after = op_end(P);

			if (lastop) {
				long a, b;

				if (*P->p == '{' && parse_count(P, &after, &a, &b) &&
				    (a < 0 || a > 1000 || b > 1000 || (b >= 0 && a > b))) {
					perr(P, "invalid repeat count", P->p,
					     (size_t)(after - P->p));
					return NONE;
				}
				after = op_end(P);
				perr(P, "invalid nested repetition operator", lastop,
				     (size_t)(after - lastop));
				return NONE;
			}
			if (last == NONE) {
				long a, b;

				if (*P->p == '{' && parse_count(P, &after, &a, &b) &&
				    (a < 0 || a > 1000 || b > 1000 || (b >= 0 && a > b))) {
					perr(P, "invalid repeat count", P->p,
					     (size_t)(after - P->p));
					return NONE;
				}
				after = op_end(P);
				perr(P, "missing argument to repetition operator", P->p,
				     (size_t)(after - P->p));
				return NONE;
			}
			x = parse_repeat(P, last);
			if (x == NONE)
				return NONE;
			/* Replace the last child with x (the repeat of it). */
			{
				struct node *C = &P->nodes[cat];
				uint32_t prev = NONE;

				for (uint32_t i = C->sub; i != last; i = P->nodes[i].next)
					prev = i;
				if (prev == NONE)
					C->sub = x;
				else
					P->nodes[prev].next = x;
				C->lastsub = x;
				C->size = C->size - P->nodes[last].size + P->nodes[x].size;
				if (P->nodes[x].prod > C->prod)
					C->prod = P->nodes[x].prod;
				if (C->size > MAX_INSTS) {
					too_large(P);
					return NONE;
				}
			}
			last = x;
			lastop = tok;
			continue;
		}
		lastop = NULL;
		switch (*P->p) {
		case '(': {
			int inner = *flags;
			const char *open = P->p;

			P->p++;
			if (P->p < P->end && *P->p == '?') {
				int r;

				P->p++;
				r = perl_group(P, open, flags, &inner);
				if (r < 0)
					return NONE;
				if (r == 0)
					continue; /* flags only */
			}
			if (++P->depth > PSYM_RX_MAX_DEPTH) {
				perr(P, "expression nests too deeply", NULL, 0);
				return NONE;
			}
			x = parse_alt(P, &inner);
			P->depth--;
			if (x == NONE)
				return NONE;
			if (P->p >= P->end || *P->p != ')') {
				perr(P, "missing closing )", P->pat, (size_t)(P->end - P->pat));
				return NONE;
			}
			P->p++;
			break;
		}
		case '[': x = parse_class(P, *flags); break;
		case '.': {
			size_t from = P->ntmp;

			P->p++;
			if (*flags & F_DOTNL) {
				tmp_add(P, 0, MAX_RUNE);
			} else {
				tmp_add(P, 0, '\n' - 1);
				tmp_add(P, '\n' + 1, MAX_RUNE);
			}
			x = P->err ? NONE : class_node(P, from);
			break;
		}
		case '^':
			P->p++;
			x = assert_node(P, *flags & F_MULTI ? A_BEGIN_LINE : A_BEGIN_TEXT);
			break;
		case '$':
			P->p++;
			x = assert_node(P, *flags & F_MULTI ? A_END_LINE : A_END_TEXT);
			break;
		case '\\': {
			int c = P->p + 1 < P->end ? P->p[1] : 0;
			uint32_t r;

			switch (c) {
			case 'A':
				P->p += 2;
				x = assert_node(P, A_BEGIN_TEXT);
				break;
			case 'z':
				P->p += 2;
				x = assert_node(P, A_END_TEXT);
				break;
			case 'b':
				P->p += 2;
				x = assert_node(P, A_WORD);
				break;
			case 'B':
				P->p += 2;
				x = assert_node(P, A_NOT_WORD);
				break;
			case 'd':
			case 'D':
			case 's':
			case 'S':
			case 'w':
			case 'W': {
				size_t from = P->ntmp;

				P->p += 2;
				x = perl_class(P, c, *flags) ? NONE : class_node(P, from);
				break;
			}
			case 'p':
			case 'P': unicode_class(P); return NONE;
			case 'Q': {
				/* Literal text up to \E or the end. */
				const char *q = P->p + 2, *qe = q;

				while (qe < P->end &&
				       !(qe[0] == '\\' && qe + 1 < P->end && qe[1] == 'E'))
					qe++;
				P->p = q;
				while (!P->err && P->p < qe) {
					if (next_rune(P, &r))
						return NONE;
					x = rune_node(P, r, *flags);
					if (x == NONE)
						return NONE;
					add_child(P, cat, x);
					last = x;
				}
				P->p = qe < P->end ? qe + 2 : qe;
				continue;
			}
			default:
				if (escape_rune(P, &r))
					return NONE;
				x = rune_node(P, r, *flags);
				break;
			}
			break;
		}
		default: {
			uint32_t r;

			if (next_rune(P, &r))
				return NONE;
			x = rune_node(P, r, *flags);
			break;
		}
		}
		if (x == NONE)
			return NONE;
		add_child(P, cat, x);
		last = x;
	}
	return P->err ? NONE : cat;
}

/* Alternatives up to ')' or the end. */
static uint32_t parse_alt(struct parser *P, int *flags)
{
	uint32_t alt = NONE, first;

	first = parse_cat(P, flags);
	if (first == NONE)
		return NONE;
	while (P->p < P->end && *P->p == '|') {
		uint32_t c;

		if (alt == NONE) {
			alt = new_node(P, N_ALT);
			if (alt == NONE)
				return NONE;
			P->nodes[alt].size = 0;
			add_child(P, alt, first);
		}
		P->p++;
		c = parse_cat(P, flags);
		if (c == NONE)
			return NONE;
		add_child(P, alt, c);
		if (P->err)
			return NONE;
	}
	return alt == NONE ? first : alt;
}

/* ---- the compiler ------------------------------------------------------------ */

static uint32_t emit(struct psym_rx *rx, int op, uint32_t arg, uint32_t x, uint32_t y)
{
	uint32_t pc = rx->ninst++;

	rx->prog[pc] = (struct inst){ .op = (uint32_t)op, .arg = arg, .x = x, .y = y };
	return pc;
}

/* Emit node n; every size was checked, so prog has room. */
static void compile_node(struct psym_rx *rx, const struct node *nodes, uint32_t n)
{
	const struct node *N = &nodes[n];

	switch (N->op) {
	case N_EMPTY: break;
	case N_CLASS: emit(rx, I_CLASS, 0, N->cls, 0); break;
	case N_ASSERT: emit(rx, I_ASSERT, N->as, 0, 0); break;
	case N_CAT:
		for (uint32_t c = N->sub; c != NONE; c = nodes[c].next)
			compile_node(rx, nodes, c);
		break;
	case N_ALT: {
		uint32_t jumps = NONE; /* a chain of jumps to patch, through .x */

		for (uint32_t c = N->sub; c != NONE; c = nodes[c].next) {
			uint32_t split, j;

			if (nodes[c].next == NONE) {
				compile_node(rx, nodes, c);
				break;
			}
			split = emit(rx, I_SPLIT, 0, rx->ninst + 1, 0);
			compile_node(rx, nodes, c);
			j = emit(rx, I_JMP, 0, jumps, 0);
			jumps = j;
			rx->prog[split].y = rx->ninst;
		}
		while (jumps != NONE) {
			uint32_t nx = rx->prog[jumps].x;

			rx->prog[jumps].x = rx->ninst;
			jumps = nx;
		}
		break;
	}
	case N_STAR: {
		uint32_t split = emit(rx, I_SPLIT, 0, rx->ninst + 1, 0);

		compile_node(rx, nodes, N->sub);
		emit(rx, I_JMP, 0, split, 0);
		rx->prog[split].y = rx->ninst;
		break;
	}
	case N_PLUS: {
		uint32_t start = rx->ninst;

		compile_node(rx, nodes, N->sub);
		emit(rx, I_SPLIT, 0, start, rx->ninst + 1);
		break;
	}
	case N_QUEST: {
		uint32_t split = emit(rx, I_SPLIT, 0, rx->ninst + 1, 0);

		compile_node(rx, nodes, N->sub);
		rx->prog[split].y = rx->ninst;
		break;
	}
	case N_REP: {
		uint32_t splits = NONE;

		if (N->max < 0) {
			if (N->min == 0) {
				uint32_t split = emit(rx, I_SPLIT, 0, rx->ninst + 1, 0);

				compile_node(rx, nodes, N->sub);
				emit(rx, I_JMP, 0, split, 0);
				rx->prog[split].y = rx->ninst;
				break;
			}
			for (int i = 0; i < N->min - 1; i++)
				compile_node(rx, nodes, N->sub);
			{
				uint32_t start = rx->ninst;

				compile_node(rx, nodes, N->sub);
				emit(rx, I_SPLIT, 0, start, rx->ninst + 1);
			}
			break;
		}
		for (int i = 0; i < N->min; i++)
			compile_node(rx, nodes, N->sub);
		for (int i = N->min; i < N->max; i++) {
			uint32_t split = emit(rx, I_SPLIT, 0, rx->ninst + 1, splits);

			splits = split;
			compile_node(rx, nodes, N->sub);
		}
		while (splits != NONE) {
			uint32_t nx = rx->prog[splits].y;

			rx->prog[splits].y = rx->ninst;
			splits = nx;
		}
		break;
	}
	}
}

/* ---- public ------------------------------------------------------------------ */

int psym_rx_compile(const char *pattern, struct psym_rx **out, struct psym_err *e)
{
	struct parser P = {
		.pat = pattern, .p = pattern, .end = pattern + strlen(pattern), .e = e
	};
	struct psym_rx *rx = calloc(1, sizeof(*rx));
	int flags = 0;
	uint32_t root;
	uint64_t n;

	*out = NULL;
	if (!rx)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	P.rx = rx;
	root = parse_alt(&P, &flags);
	if (!P.err && P.p < P.end) /* a ')' with no '(' */
		perr(&P, "unexpected )", pattern, (size_t)(P.end - pattern));
	if (P.err)
		goto fail;
	n = P.nodes[root].size + 1;
	if (n > MAX_INSTS) {
		too_large(&P);
		goto fail;
	}
	rx->prog = malloc((size_t)n * sizeof(*rx->prog));
	rx->cur.sparse = calloc((size_t)n, sizeof(uint32_t));
	rx->cur.dense = calloc((size_t)n, sizeof(uint32_t));
	rx->nxt.sparse = calloc((size_t)n, sizeof(uint32_t));
	rx->nxt.dense = calloc((size_t)n, sizeof(uint32_t));
	rx->stack = calloc((size_t)n, sizeof(uint32_t));
	if (!rx->prog || !rx->cur.sparse || !rx->cur.dense || !rx->nxt.sparse || !rx->nxt.dense ||
	    !rx->stack) {
		nomem(&P);
		goto fail;
	}
	compile_node(rx, P.nodes, root);
	emit(rx, I_MATCH, 0, 0, 0);
	rx->anchored = rx->prog[0].op == I_ASSERT && rx->prog[0].arg == A_BEGIN_TEXT;
	free(P.nodes);
	free(P.tmp);
	*out = rx;
	return 0;
fail:
	free(P.nodes);
	free(P.tmp);
	psym_rx_free(rx);
	return P.err;
}

/* The position between two runes: prev and next are -1 at the ends. */
struct at {
	int64_t prev, next;
};

static bool assert_holds(int as, const struct at *a)
{
	switch (as) {
	case A_BEGIN_TEXT: return a->prev < 0;
	case A_END_TEXT: return a->next < 0;
	case A_BEGIN_LINE: return a->prev < 0 || a->prev == '\n';
	case A_END_LINE: return a->next < 0 || a->next == '\n';
	case A_WORD: return is_word(a->prev) != is_word(a->next);
	default: return is_word(a->prev) == is_word(a->next);
	}
}

static bool in_class(const struct psym_rx *rx, uint32_t c, uint32_t r)
{
	const struct range *rg;
	size_t lo = 0, hi = rx->cls[c].n;

	if (!hi) /* an empty class, which may have no range array */
		return false;
	rg = rx->ranges + rx->cls[c].first;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r < rg[mid].lo)
			hi = mid;
		else if (r > rg[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* Add pc and what it reaches without reading a rune; true when that reaches the match. */
static bool add_state(struct psym_rx *rx, struct sset *s, uint32_t pc, const struct at *a)
{
	uint32_t sp = 0;

#define PUSH(v)                                                                                    \
	do {                                                                                       \
		uint32_t v_ = (v);                                                                 \
		uint32_t i_ = s->sparse[v_];                                                       \
		if (!(i_ < s->n && s->dense[i_] == v_)) {                                          \
			s->sparse[v_] = s->n;                                                      \
			s->dense[s->n++] = v_;                                                     \
			rx->stack[sp++] = v_;                                                      \
		}                                                                                  \
	} while (0)
	PUSH(pc);
	while (sp) {
		const struct inst *in = &rx->prog[rx->stack[--sp]];

		switch (in->op) {
		case I_MATCH: return true;
		case I_JMP: PUSH(in->x); break;
		case I_SPLIT:
			PUSH(in->y);
			PUSH(in->x);
			break;
		case I_ASSERT:
			if (assert_holds((int)in->arg, a))
				PUSH((uint32_t)(in - rx->prog) + 1);
			break;
		default: break;
		}
	}
#undef PUSH
	return false;
}

bool psym_rx_match(struct psym_rx *rx, const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	struct sset *cur = &rx->cur, *nxt = &rx->nxt;
	struct at a = { -1, -1 };
	size_t pos = 0, w = 0;
	uint32_t r = 0;

	cur->n = 0;
	if (n) {
		w = decode(s, n, &r);
		a.next = r;
	}
	for (;;) {
		struct sset *t;
		uint32_t r2 = 0;

		if ((!rx->anchored || pos == 0) && add_state(rx, cur, 0, &a))
			return true;
		if (pos >= n || (rx->anchored && cur->n == 0))
			return false;
		/* Step over rune r at pos. */
		pos += w;
		a.prev = r;
		a.next = -1;
		if (pos < n) {
			w = decode(s + pos, n - pos, &r2);
			a.next = r2;
		}
		nxt->n = 0;
		for (uint32_t i = 0; i < cur->n; i++) {
			const struct inst *in = &rx->prog[cur->dense[i]];

			if (in->op == I_CLASS && in_class(rx, in->x, r) &&
			    add_state(rx, nxt, cur->dense[i] + 1, &a))
				return true;
		}
		r = r2;
		t = cur;
		cur = nxt;
		nxt = t;
	}
}

size_t psym_rx_prog_size(const struct psym_rx *rx)
{
	return rx ? rx->ninst * sizeof(struct inst) : 0;
}

void psym_rx_free(struct psym_rx *rx)
{
	if (!rx)
		return;
	free(rx->prog);
	free(rx->ranges);
	free(rx->cls);
	free(rx->cur.sparse);
	free(rx->cur.dense);
	free(rx->nxt.sparse);
	free(rx->nxt.dense);
	free(rx->stack);
	free(rx);
}
