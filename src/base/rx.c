/* SPDX-License-Identifier: MIT */
/*
 * The matcher of rx.h: the text runs through the compiled program one rune
 * at a time with two sparse sets of live instructions (see rx_int.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "rx_int.h"
#include "search.h"

/* ---- UTF-8 ------------------------------------------------------------------- */

/* The rune at s (n > 0 bytes left), as Go's utf8.DecodeRune: bad bytes are U+FFFD, width 1. */
size_t rx_decode(const unsigned char *s, size_t n, uint32_t *r)
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
	size_t n = rx->cls[c].n, k;

	if (!n) /* an empty class, which may have no range array */
		return false;
	rg = rx->ranges + rx->cls[c].first;
	/* The ranges are sorted and apart: the first not wholly below r. */
	k = PSYM_LOWER_BOUND(0, n, i, r <= rg[i].hi);
	return k < n && r >= rg[k].lo;
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
		w = rx_decode(s, n, &r);
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
			w = rx_decode(s + pos, n - pos, &r2);
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
