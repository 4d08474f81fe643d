/* SPDX-License-Identifier: MIT */
/*
 * psym addr's answers made in address order, written in input order.
 * Lookups are cheaper when the addresses of one function come together
 * (.gopclntab decodes a function's pc tables once for all of them), so
 * the inputs of a chunk are kept (text and key), answered in the order of
 * their keys into memory, and written out in their own order: the same
 * bytes as answering each in turn. Only for inputs that are all there (a
 * file, the arguments): a pipe's are answered as they come.
 */
#ifndef PSYM_ADDR_ORDER_H
#define PSYM_ADDR_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "psym.h"

struct addr_order;

/* One input answered onto out (key: as given to addr_order_add). */
typedef void (*addr_answer_fn)(void *ud, const char *text, size_t lineno, bool overlong,
			       uint64_t key, FILE *out);

/* A chunk of at most max inputs (and 4 MiB of their text); NULL: out of memory. */
struct addr_order *addr_order_new(size_t max);
void addr_order_free(struct addr_order *q);

/*
 * Keep an input: its text (copied), line number, whether it was too long,
 * and its key (ties keep input order). False when the chunk is full or
 * memory is short: flush, then add again.
 */
bool addr_order_add(struct addr_order *q, const char *text, size_t lineno, bool overlong,
		    uint64_t key);

/*
 * Answer the kept inputs through fn in key order into memory, write the
 * answers to out in input order, and empty the chunk. Without memory for
 * that, they are answered straight onto out in input order.
 */
void addr_order_flush(struct addr_order *q, addr_answer_fn fn, void *ud, FILE *out);

#endif
