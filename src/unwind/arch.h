/* SPDX-License-Identifier: MIT */
/*
 * What the offline unwinder needs to know of a machine: where its pc and
 * stack pointer are kept, which registers a callee preserves, how a
 * return address is cleaned (AArch64 pointer authentication), the frame
 * pointer rule for code without CFI, and the kernel's signal frame.
 * x86-64 (arch.c) and AArch64 (arch_aarch64.c).
 */
#ifndef PSYM_UNWIND_ARCH_H
#define PSYM_UNWIND_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "expr.h"
#include "unwregs.h"

/* What an arch rule did. */
enum psym_arch_step {
	PSYM_ARCH_OK = 0,
	PSYM_ARCH_OUT_OF_STACK, /* needed bytes beyond the copy */
	PSYM_ARCH_NO_RULE	/* nothing to go by (no frame pointer) */
};

struct psym_unwind_arch {
	uint16_t machine; /* EM_* */
	const char *name;
	unsigned nregs;			/* register slots used (a side file's regs) */
	unsigned pc, sp, fp;		/* slots of the pc, the stack and frame pointers */
	uint64_t callee_saved;		/* bit i: slot i survives a call unless a rule says */
	uint64_t (*strip)(uint64_t ra); /* a return address as code address */
	bool leaf_keeps_sp; /* a caller may have the callee's sp (return address in a register) */
	/*
	 * No CFI for cur's pc: the frame-pointer chain gives the caller. exact:
	 * cur's pc was not reached by a return (the leaf, an interrupted pc),
	 * so its registers are the ones it runs with.
	 */
	enum psym_arch_step (*frame_pointer)(const struct psym_unwind_regs *cur, bool exact,
					     psym_expr_read_fn read, void *stk,
					     struct psym_unwind_regs *out);
	/*
	 * cur's pc is the signal return trampoline: the caller is the
	 * interrupted context, saved by the kernel in the signal frame. NULL
	 * where the CFI of the trampoline says it all (x86-64's 'S' FDEs).
	 */
	enum psym_arch_step (*sigreturn)(const struct psym_unwind_regs *cur, psym_expr_read_fn read,
					 void *stk, struct psym_unwind_regs *out);
};

/* The arch of machine (0 is x86-64, as the side file's first version); NULL when unknown. */
const struct psym_unwind_arch *psym_unwind_arch_of(unsigned machine);

/* AArch64's (arch_aarch64.c). */
extern const struct psym_unwind_arch psym_arch_aarch64;

#endif
