/* SPDX-License-Identifier: MIT */
/*
 * The grammar of a regular expression, by recursive descent with a depth
 * bound: alternation, concatenation, groups and their flags, repetition
 * (see rx_parse.h).
 */
#include "config.h"

#include <stdint.h>

#include "rx_atom.h"
#include "rx_node.h"
#include "rx_parse.h"

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
			rx_perr(P, "invalid or unsupported Perl syntax", open,
				(size_t)(P->p - open));
			return -1;
		}
		if (open[2] == '<' && P->p + 1 < P->end && (P->p[1] == '=' || P->p[1] == '!')) {
			rx_perr(P, "invalid or unsupported Perl syntax", open,
				(size_t)(P->p + 1 - open));
			return -1;
		}
		name = ++P->p;
		while (P->p < P->end && *P->p != '>')
			P->p++;
		if (P->p >= P->end) {
			const char *bad = rx_bad_utf8(name, P->end);

			if (bad)
				rx_perr(P, "invalid UTF-8", bad, (size_t)(P->end - bad));
			rx_perr(P, "invalid named capture", open, (size_t)(P->end - open));
			return -1;
		}
		if (P->p == name) {
			rx_perr(P, "invalid named capture", open, (size_t)(P->p + 1 - open));
			return -1;
		}
		{
			const char *bad = rx_bad_utf8(name, P->p);

			if (bad) {
				rx_perr(P, "invalid UTF-8", bad, (size_t)(P->p - bad));
				return -1;
			}
		}
		for (const char *c = name; c < P->p; c++)
			if (!is_alnum(*c) && *c != '_') {
				rx_perr(P, "invalid named capture", open,
					(size_t)(P->p + 1 - open));
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
			if (rx_bad_utf8(P->p - 1, P->end) == P->p - 1) {
				rx_perr(P, "invalid UTF-8", P->p - 1, (size_t)(P->end - P->p + 1));
				return -1;
			}
			goto bad;
		}
		f = sign > 0 ? f | bit : f & ~bit;
		sawflag = true;
	}
bad:
	rx_perr(P, "invalid or unsupported Perl syntax", open, (size_t)(P->p - open));
	return -1;
}

/* Counts Go refuses: {n,m} with n or m over 1000, or n > m. */
static bool bad_count(long min, long max)
{
	return min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max);
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
		if (bad_count(min, max)) {
			rx_perr(P, "invalid repeat count", op, (size_t)(P->p - op));
			return NONE;
		}
	}
	}
	if (P->p < P->end && *P->p == '?')
		P->p++; /* lazy: the same yes/no answer */
	n = rx_new_node(P, kind);
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
				rx_perr(P, "invalid repeat count", op, (size_t)(P->p - op));
				return NONE;
			}
		}
		break;
	}
	if (N->size > MAX_INSTS) {
		rx_too_large(P);
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

/* One concatenation being parsed. */
struct catstate {
	uint32_t node;	    /* the N_CAT node */
	uint32_t last;	    /* its last child, NONE before the first */
	const char *lastop; /* where the last repetition operator began, NULL after an atom */
};

/* Append node x (NONE: an error, returned as -1) to the concatenation. */
static int cat_push(struct parser *P, struct catstate *c, uint32_t x)
{
	if (x == NONE)
		return -1;
	rx_add_child(P, c->node, x);
	c->last = x;
	return 0;
}

/*
 * A repetition operator at P->p that has nothing to repeat: Go's error,
 * code over the text from `from` to the operator's end, unless the count
 * itself is invalid.
 */
static void misplaced_repeat(struct parser *P, const char *from, const char *code)
{
	const char *after;
	long a, b;

	if (*P->p == '{' && parse_count(P, &after, &a, &b) && bad_count(a, b)) {
		rx_perr(P, "invalid repeat count", P->p, (size_t)(after - P->p));
		return;
	}
	after = op_end(P);
	rx_perr(P, code, from, (size_t)(after - from));
}

/* Replace the concatenation's last child by x, the repeat of it. */
static int replace_last(struct parser *P, struct catstate *c, uint32_t x)
{
	struct node *C = &P->nodes[c->node];
	uint32_t prev = NONE;

	for (uint32_t i = C->sub; i != c->last; i = P->nodes[i].next)
		prev = i;
	if (prev == NONE)
		C->sub = x;
	else
		P->nodes[prev].next = x;
	C->lastsub = x;
	C->size = C->size - P->nodes[c->last].size + P->nodes[x].size;
	if (P->nodes[x].prod > C->prod)
		C->prod = P->nodes[x].prod;
	if (C->size > MAX_INSTS) {
		rx_too_large(P);
		return -1;
	}
	c->last = x;
	return 0;
}

/* The repetition operator at P->p (tok) applied to the last child. */
static int cat_repeat(struct parser *P, struct catstate *c, const char *tok)
{
	uint32_t x;

	if (c->lastop) {
		misplaced_repeat(P, c->lastop, "invalid nested repetition operator");
		return -1;
	}
	if (c->last == NONE) {
		misplaced_repeat(P, P->p, "missing argument to repetition operator");
		return -1;
	}
	x = parse_repeat(P, c->last);
	if (x == NONE || replace_last(P, c, x))
		return -1;
	c->lastop = tok;
	return 0;
}

/* A group at P->p ('('), or a flags-only group, which appends nothing. */
static int parse_group(struct parser *P, int *flags, struct catstate *c)
{
	int inner = *flags;
	const char *open = P->p;
	uint32_t x;

	P->p++;
	if (P->p < P->end && *P->p == '?') {
		int r;

		P->p++;
		r = perl_group(P, open, flags, &inner);
		if (r < 0)
			return -1;
		if (r == 0)
			return 0; /* flags only */
	}
	if (++P->depth > PSYM_RX_MAX_DEPTH) {
		rx_perr(P, "expression nests too deeply", NULL, 0);
		return -1;
	}
	x = rx_parse_alt(P, &inner);
	P->depth--;
	if (x == NONE)
		return -1;
	if (P->p >= P->end || *P->p != ')') {
		rx_perr(P, "missing closing )", P->pat, (size_t)(P->end - P->pat));
		return -1;
	}
	P->p++;
	return cat_push(P, c, x);
}

/* '.' at P->p: any rune, '\n' only with the s flag. */
static uint32_t parse_dot(struct parser *P, int flags)
{
	size_t from = P->ntmp;

	P->p++;
	if (flags & F_DOTNL) {
		rx_tmp_add(P, 0, MAX_RUNE);
	} else {
		rx_tmp_add(P, 0, '\n' - 1);
		rx_tmp_add(P, '\n' + 1, MAX_RUNE);
	}
	return P->err ? NONE : rx_class_node(P, from);
}

/* \Q at P->p: literal text up to \E or the end, a node per rune. */
static int parse_quoted(struct parser *P, int flags, struct catstate *c)
{
	const char *q = P->p + 2, *qe = q;
	uint32_t r;

	while (qe < P->end && !(qe[0] == '\\' && qe + 1 < P->end && qe[1] == 'E'))
		qe++;
	P->p = q;
	while (!P->err && P->p < qe) {
		if (rx_next_rune(P, &r))
			return -1;
		if (cat_push(P, c, rx_rune_node(P, r, flags)))
			return -1;
	}
	P->p = qe < P->end ? qe + 2 : qe;
	return 0;
}

/* \A \z \b \B at P->p: the assertion as. */
static uint32_t escaped_assert(struct parser *P, int as)
{
	P->p += 2;
	return rx_assert_node(P, as);
}

/* A backslash at P->p outside a class: an assertion, a class, \Q...\E or one rune. */
static int parse_backslash(struct parser *P, int flags, struct catstate *c)
{
	int ch = P->p + 1 < P->end ? P->p[1] : 0;
	uint32_t x, r;

	switch (ch) {
	case 'A': x = escaped_assert(P, A_BEGIN_TEXT); break;
	case 'z': x = escaped_assert(P, A_END_TEXT); break;
	case 'b': x = escaped_assert(P, A_WORD); break;
	case 'B': x = escaped_assert(P, A_NOT_WORD); break;
	case 'd':
	case 'D':
	case 's':
	case 'S':
	case 'w':
	case 'W': {
		size_t from = P->ntmp;

		P->p += 2;
		x = rx_perl_class(P, ch, flags) ? NONE : rx_class_node(P, from);
		break;
	}
	case 'p':
	case 'P': rx_unicode_class(P); return -1;
	case 'Q': return parse_quoted(P, flags, c);
	default:
		if (rx_escape_rune(P, &r))
			return -1;
		x = rx_rune_node(P, r, flags);
		break;
	}
	return cat_push(P, c, x);
}

/* One atom at P->p (not a repetition operator), appended to the concatenation. */
static int parse_atom(struct parser *P, int *flags, struct catstate *c)
{
	uint32_t x, r;

	switch (*P->p) {
	case '(': return parse_group(P, flags, c);
	case '[': x = rx_parse_class(P, *flags); break;
	case '.': x = parse_dot(P, *flags); break;
	case '^':
		P->p++;
		x = rx_assert_node(P, *flags & F_MULTI ? A_BEGIN_LINE : A_BEGIN_TEXT);
		break;
	case '$':
		P->p++;
		x = rx_assert_node(P, *flags & F_MULTI ? A_END_LINE : A_END_TEXT);
		break;
	case '\\': return parse_backslash(P, *flags, c);
	default:
		if (rx_next_rune(P, &r))
			return -1;
		x = rx_rune_node(P, r, *flags);
		break;
	}
	return cat_push(P, c, x);
}

/* One concatenation: up to '|', ')' or the end. */
static uint32_t parse_cat(struct parser *P, int *flags)
{
	struct catstate c = { rx_new_node(P, N_CAT), NONE, NULL };

	if (c.node == NONE)
		return NONE;
	P->nodes[c.node].size = 0;
	while (!P->err && P->p < P->end && *P->p != '|' && *P->p != ')') {
		const char *tok = P->p;

		if (is_repeat_op(P)) {
			if (cat_repeat(P, &c, tok))
				return NONE;
			continue;
		}
		c.lastop = NULL;
		if (parse_atom(P, flags, &c))
			return NONE;
	}
	return P->err ? NONE : c.node;
}

/* Alternatives up to ')' or the end. */
uint32_t rx_parse_alt(struct parser *P, int *flags)
{
	uint32_t alt = NONE, first;

	first = parse_cat(P, flags);
	if (first == NONE)
		return NONE;
	while (P->p < P->end && *P->p == '|') {
		uint32_t c;

		if (alt == NONE) {
			alt = rx_new_node(P, N_ALT);
			if (alt == NONE)
				return NONE;
			P->nodes[alt].size = 0;
			rx_add_child(P, alt, first);
		}
		P->p++;
		c = parse_cat(P, flags);
		if (c == NONE)
			return NONE;
		rx_add_child(P, alt, c);
		if (P->err)
			return NONE;
	}
	return alt == NONE ? first : alt;
}
