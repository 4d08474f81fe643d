/* SPDX-License-Identifier: MIT */
/*
 * psym_rx_compile: parse the pattern (rx_parse.c), then emit its program,
 * one instruction per rune class, assertion, split or jump.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rx_node.h"
#include "rx_parse.h"

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
	root = rx_parse_alt(&P, &flags);
	if (!P.err && P.p < P.end) /* a ')' with no '(' */
		rx_perr(&P, "unexpected )", pattern, (size_t)(P.end - pattern));
	if (P.err)
		goto fail;
	n = P.nodes[root].size + 1;
	if (n > MAX_INSTS) {
		rx_too_large(&P);
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
		rx_nomem(&P);
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
