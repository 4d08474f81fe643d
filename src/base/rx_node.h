/* SPDX-License-Identifier: MIT */
/*
 * The parse tree of a regular expression (see rx_int.h): its nodes, the
 * rune sets that become its classes, and the parser's errors. Every
 * function here that can fail records the first error in P->err (with
 * P->e set) and returns it, or NONE for a node; once P->err is set, new
 * nodes are refused.
 */
#ifndef PSYM_RX_NODE_H
#define PSYM_RX_NODE_H

#include "rx_int.h"

/* Go's wording: "CODE: `TEXT`", TEXT from s for n bytes; s NULL: CODE alone. */
int rx_perr(struct parser *P, const char *code, const char *s, size_t n);
int rx_nomem(struct parser *P);
/* The program would pass PSYM_RX_MAX_PROG. */
int rx_too_large(struct parser *P);

/*
 * The class being built lives in P->tmp; a caller notes from = P->ntmp,
 * adds ranges, then makes tmp[from..] a class with rx_class_node.
 */
int rx_tmp_add(struct parser *P, uint32_t lo, uint32_t hi);
/* Sort and merge tmp[from..]. */
void rx_tmp_clean(struct parser *P, size_t from);
/* Add to tmp[from..] every rune that folds with one in it (ASCII, Latin-1). */
int rx_tmp_fold(struct parser *P, size_t from);
/* Replace tmp[from..] (clean) by its complement in 0..MAX_RUNE. */
int rx_tmp_negate(struct parser *P, size_t from);

/* A new node of kind op (N_*), or NONE. */
uint32_t rx_new_node(struct parser *P, int op);
/* Make tmp[from..] a class of the program; returns its node. */
uint32_t rx_class_node(struct parser *P, size_t from);
/* A rune class node for one rune, folded when flags has F_FOLD. */
uint32_t rx_rune_node(struct parser *P, uint32_t r, int flags);
/* An assertion node (A_*). */
uint32_t rx_assert_node(struct parser *P, int as);
/* Append child c to list node l (N_CAT or N_ALT), updating size and prod. */
void rx_add_child(struct parser *P, uint32_t l, uint32_t c);

#endif
