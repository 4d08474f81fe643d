/* SPDX-License-Identifier: MIT */
/*
 * Inside the regular-expression engine of rx.h. A pattern goes through
 * three steps, one file each: the parser (rx_parse.c, the grammar, with
 * rx_atom.c for escapes and bracket classes) builds a tree of nodes
 * (rx_node.c, which also builds the rune sets of classes and words the
 * errors), checking every count and the program size it implies before
 * anything is expanded; the compiler (rx_compile.c) emits the program, one
 * instruction per rune class, assertion, split or jump; the matcher (rx.c)
 * runs the text through the program with two sparse sets of live
 * instructions.
 */
#ifndef PSYM_RX_INT_H
#define PSYM_RX_INT_H

#include <stdint.h>

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

/*
 * The rune at s (n > 0 bytes left), as Go's utf8.DecodeRune: bad bytes are
 * U+FFFD, width 1; returns the width.
 */
size_t rx_decode(const unsigned char *s, size_t n, uint32_t *r);

static inline bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_alnum(int c)
{
	return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

#endif
