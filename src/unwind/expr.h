/* SPDX-License-Identifier: MIT */
/*
 * DWARF expressions as CFI uses them (DW_CFA_def_cfa_expression,
 * DW_CFA_expression, DW_CFA_val_expression): a stack machine over the
 * unwound frame's registers and the copied stack memory. PLT entries and
 * signal trampolines need them.
 *
 * The expression is untrusted: the stack holds at most 64 values, at most
 * 10000 operations run (branches can loop), reads go through the caller's
 * bounds-checked callback, and operations that make no sense in CFI
 * (register locations, pieces, calls, TLS) end evaluation with an error.
 */
#ifndef PSYM_UNWIND_EXPR_H
#define PSYM_UNWIND_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfi.h"
#include "error.h"

/* Read size (1, 2, 4, 8) bytes at addr: 0, or non-zero when not readable. */
typedef int (*psym_expr_read_fn)(void *arg, uint64_t addr, unsigned size, uint64_t *val);

struct psym_expr_ctx {
	const uint64_t *regs; /* PSYM_CFI_NREGS values */
	uint64_t valid;	      /* bit i: regs[i] is known */
	psym_expr_read_fn read;
	void *arg;
	bool swap; /* operands in the other byte order */
};

/*
 * Evaluate expr with initial stack contents push (the CFA for register
 * rules) when has_push. 0 with *out the top of the stack, or a negative
 * code with e set.
 */
int psym_expr_eval(const struct psym_expr_ctx *ctx, const uint8_t *expr, size_t len, bool has_push,
		   uint64_t push, uint64_t *out, struct psym_err *e);

#endif
