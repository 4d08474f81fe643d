/* SPDX-License-Identifier: MIT */
/*
 * Offline unwinding of one sampled user stack: the registers at the
 * sample and a copy of the top of the stack go in, the caller chain comes
 * out. Each frame is unwound with the CFI of the object that holds its pc
 * (found through the caller's callback), falling back to the frame
 * pointer (rbp) where a frame has no CFI. Unwinding stops cleanly at the
 * outermost frame, at a read outside the copied bytes, at a rule that
 * cannot be applied, when the stack pointer does not move up, at the
 * frame cap, or when a CFA-step budget is spent. A signal frame may leave
 * the stack pointer where it was (sigaltstack), but at most
 * PSYM_UNWIND_MAX_SIGNAL_STAYS times per sample and never twice at the
 * same pc and stack pointer: a loop of signal frames stops as no-progress.
 *
 * Addresses out are those a profile records, with the frame-pointer
 * mode's rule: the leaf's pc as sampled, every caller's return address
 * minus one (inside the call instruction), except a signal trampoline's
 * pc (its CFI says 'S') and the pc the signal interrupted, which are
 * exact (as libdw and gdb give them).
 */
#ifndef PSYM_UNWIND_UNWIND_H
#define PSYM_UNWIND_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfi.h"
#include "unwregs.h"

/* Signal frames per sample that may leave the stack pointer where it was. */
#define PSYM_UNWIND_MAX_SIGNAL_STAYS 8

/* The copy of the user stack: bytes of [sp, sp + len) at sampling time. */
struct psym_unwind_stack {
	uint64_t sp;
	const uint8_t *bytes;
	size_t len;
};

/*
 * The object that holds pc: its CFI tables, searched in order (the
 * binary's .eh_frame, then a debug file's .debug_frame; NULL entries are
 * skipped), and the bias: ELF vaddr = pc - bias.
 */
struct psym_unwind_obj {
	struct psym_cfi *cfi[2];
	uint64_t bias[2];
	/* pc is the kernel's signal return trampoline (AArch64's vDSO
	 * __kernel_rt_sigreturn): the interrupted registers are in the signal
	 * frame at the stack pointer (arch.h). */
	bool sigreturn;
};

/* 0 with *obj filled, or PSYM_NOENT when pc is in no known object. */
typedef int (*psym_unwind_find_fn)(void *arg, uint64_t pc, struct psym_unwind_obj *obj);

enum psym_unwind_stop {
	PSYM_UNWIND_END = 0,	  /* the outermost frame: return address undefined or 0 */
	PSYM_UNWIND_OUT_OF_STACK, /* needed bytes beyond the copy */
	PSYM_UNWIND_BAD_RULE,	  /* CFI that cannot be applied, or no CFI and no frame pointer */
	PSYM_UNWIND_NO_PROGRESS,  /* the stack pointer did not move up */
	PSYM_UNWIND_DEPTH,	  /* the frame cap */
	PSYM_UNWIND_BUDGET,	  /* the sample's or the run's CFA-step budget is spent */
	PSYM_UNWIND_NSTOPS
};

const char *psym_unwind_stop_name(enum psym_unwind_stop s);

struct psym_unwind_result {
	size_t n;	   /* addresses written */
	size_t cfi_frames; /* callers found through CFI */
	size_t fp_frames;  /* callers found through the frame pointer */
	enum psym_unwind_stop stop;
	char why[160];	/* the detail of a BAD_RULE or BUDGET stop */
	uint64_t steps; /* CFA instructions run for this sample (memoized rows: 0) */
	/* pcs[guessed] is the first caller found through the frame pointer because
	 * the frame below had no CFI (0: none); those on depend on that guess. */
	size_t guessed;
	bool no_cfi; /* the frame it stopped at had no CFI (no object, or no FDE for it) */
};

/*
 * Budgets of CFA instructions (psym_cfi_steps), so that hostile CFI cannot
 * make a run take hours: per sample, and for all samples of a run
 * together (run_used carries over between calls). 0: no such budget.
 */
struct psym_unwind_budget {
	uint64_t sample_steps; /* --limit unwind-sample-steps */
	uint64_t run_steps;    /* --limit unwind-steps */
	uint64_t run_used;
};

/*
 * Unwind into pcs[0..max). regs must have rip and rsp. Never fails: what
 * was found is in pcs and res says why it stopped.
 */
void psym_unwind_budgeted(const struct psym_unwind_regs *regs, const struct psym_unwind_stack *stk,
			  psym_unwind_find_fn find, void *arg, uint64_t *pcs, size_t max,
			  struct psym_unwind_budget *budget, struct psym_unwind_result *res);
/* Same without budgets. */
void psym_unwind(const struct psym_unwind_regs *regs, const struct psym_unwind_stack *stk,
		 psym_unwind_find_fn find, void *arg, uint64_t *pcs, size_t max,
		 struct psym_unwind_result *res);

#endif
