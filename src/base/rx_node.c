/* SPDX-License-Identifier: MIT */
/*
 * The parse tree of a regular expression: errors in Go's words, the rune
 * sets of classes (merged, case-folded, negated), and the nodes, each
 * carrying the size of the program it compiles to (see rx_node.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rx_node.h"

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
int rx_perr(struct parser *P, const char *code, const char *s, size_t n)
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

int rx_nomem(struct parser *P)
{
	if (!P->err)
		P->err = psym_err_set(P->e, PSYM_ENOMEM, "out of memory");
	return P->err;
}

int rx_too_large(struct parser *P)
{
	if (P->err)
		return P->err;
	P->err = psym_err_set(P->e, PSYM_EUSAGE,
			      "expression too large (psym caps a compiled program at %u MB)",
			      PSYM_RX_MAX_PROG >> 20);
	return P->err;
}

/* ---- rune classes ------------------------------------------------------------ */

int rx_tmp_add(struct parser *P, uint32_t lo, uint32_t hi)
{
	if (P->ntmp == P->tmpcap) {
		size_t nc = P->tmpcap ? P->tmpcap * 2 : 16;
		struct range *t;

		if (nc > (1u << 24))
			return rx_too_large(P);
		t = realloc(P->tmp, nc * sizeof(*t));
		if (!t)
			return rx_nomem(P);
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
void rx_tmp_clean(struct parser *P, size_t from)
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
int rx_tmp_fold(struct parser *P, size_t from)
{
	static const uint32_t extra[] = { 0x178, 0x17F, 0x39C, 0x3BC, 0x1E9E, 0x212A, 0x212B };
	size_t n = P->ntmp;

	for (size_t i = from; i < n; i++) {
		uint32_t lo = P->tmp[i].lo, hi = P->tmp[i].hi;

		for (uint32_t r = lo; r <= hi && r <= 0xFF; r++) {
			uint32_t o[3];
			int k = fold_orbit(r, o);

			for (int j = 0; j < k; j++)
				if (o[j] != r && rx_tmp_add(P, o[j], o[j]))
					return P->err;
		}
		for (size_t x = 0; x < sizeof(extra) / sizeof(extra[0]); x++)
			if (extra[x] >= lo && extra[x] <= hi) {
				uint32_t o[3];
				int k = fold_orbit(extra[x], o);

				for (int j = 0; j < k; j++)
					if (rx_tmp_add(P, o[j], o[j]))
						return P->err;
			}
	}
	rx_tmp_clean(P, from);
	return 0;
}

/* Replace tmp[from..] (clean) by its complement in 0..MAX_RUNE. */
int rx_tmp_negate(struct parser *P, size_t from)
{
	size_t n = P->ntmp - from;
	struct range *old = malloc((n ? n : 1) * sizeof(*old));
	uint32_t next = 0;

	if (!old)
		return rx_nomem(P);
	if (n)
		memcpy(old, P->tmp + from, n * sizeof(*old));
	P->ntmp = from;
	for (size_t i = 0; i < n; i++) {
		if (old[i].lo > next && rx_tmp_add(P, next, old[i].lo - 1))
			break;
		next = old[i].hi + 1;
	}
	if (!P->err && next <= MAX_RUNE)
		rx_tmp_add(P, next, MAX_RUNE);
	free(old);
	return P->err;
}

/* Make tmp[from..] a class of the program; its node number in *node. */
uint32_t rx_class_node(struct parser *P, size_t from)
{
	struct psym_rx *rx = P->rx;
	size_t n;
	uint32_t id;

	rx_tmp_clean(P, from);
	n = P->ntmp - from;
	if (rx->nrange + n > P->rangecap) {
		size_t nc = P->rangecap ? P->rangecap : 64;
		struct range *t;

		while (nc < rx->nrange + n)
			nc *= 2;
		if (nc * sizeof(*t) > PSYM_RX_MAX_PROG) {
			rx_too_large(P);
			return NONE;
		}
		t = realloc(rx->ranges, nc * sizeof(*t));
		if (!t) {
			rx_nomem(P);
			return NONE;
		}
		rx->ranges = t;
		P->rangecap = nc;
	}
	if (rx->ncls == P->clscap) {
		size_t nc = P->clscap ? P->clscap * 2 : 16;
		struct cls *t = realloc(rx->cls, nc * sizeof(*t));

		if (!t) {
			rx_nomem(P);
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
	id = rx_new_node(P, N_CLASS);
	if (id != NONE)
		P->nodes[id].cls = (uint32_t)rx->ncls++;
	return id;
}

/* ---- nodes ------------------------------------------------------------------- */

uint32_t rx_new_node(struct parser *P, int op)
{
	struct node *n;

	if (P->err)
		return NONE;
	if (P->nn == P->cap) {
		size_t nc = P->cap ? P->cap * 2 : 64;
		struct node *t;

		if (nc * sizeof(*t) > 4 * (size_t)PSYM_RX_MAX_PROG) {
			rx_too_large(P);
			return NONE;
		}
		t = realloc(P->nodes, nc * sizeof(*t));
		if (!t) {
			rx_nomem(P);
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
void rx_add_child(struct parser *P, uint32_t l, uint32_t c)
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
		rx_too_large(P);
}

/* A rune class node for one rune, folded when asked. */
uint32_t rx_rune_node(struct parser *P, uint32_t r, int flags)
{
	size_t from = P->ntmp;

	if (rx_tmp_add(P, r, r))
		return NONE;
	if ((flags & F_FOLD) && rx_tmp_fold(P, from))
		return NONE;
	return rx_class_node(P, from);
}
/* An assertion node. */
uint32_t rx_assert_node(struct parser *P, int as)
{
	uint32_t n = rx_new_node(P, N_ASSERT);

	if (n != NONE)
		P->nodes[n].as = (uint8_t)as;
	return n;
}
