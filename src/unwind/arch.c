/* SPDX-License-Identifier: MIT */
/* The machines the offline unwinder knows; x86-64's rules. */
#include "config.h"

#include <elf.h>
#include <string.h>

#include "arch.h"

static uint64_t x86_strip(uint64_t ra)
{
	return ra;
}

/* rbp points at the saved rbp, the return address above it. */
static enum psym_arch_step x86_frame_pointer(const struct psym_unwind_regs *cur, bool exact,
					     psym_expr_read_fn read, void *stk,
					     struct psym_unwind_regs *out)
{
	uint64_t fp = cur->r[PSYM_X86_RBP], ra, saved;

	(void)exact;

	if (!(cur->valid & ((uint64_t)1 << PSYM_X86_RBP)))
		return PSYM_ARCH_NO_RULE;
	if (fp > UINT64_MAX - 16 || read(stk, fp, 8, &saved) != 0 || read(stk, fp + 8, 8, &ra) != 0)
		return PSYM_ARCH_OUT_OF_STACK;
	memset(out, 0, sizeof(*out));
	out->machine = cur->machine;
	out->r[PSYM_X86_RBP] = saved;
	out->r[PSYM_X86_RSP] = fp + 16;
	out->r[PSYM_X86_RA] = ra;
	out->valid = ((uint64_t)1 << PSYM_X86_RBP) | ((uint64_t)1 << PSYM_X86_RSP) |
		     ((uint64_t)1 << PSYM_X86_RA);
	/* Other callee-saved registers are not known past a frame without CFI. */
	return PSYM_ARCH_OK;
}

static const struct psym_unwind_arch arch_x86_64 = {
	.machine = EM_X86_64,
	.name = "x86-64",
	.nregs = PSYM_X86_NREGS,
	.pc = PSYM_X86_RA,
	.sp = PSYM_X86_RSP,
	.fp = PSYM_X86_RBP,
	/* rbx, rbp, r12..r15 (System V psABI) */
	.callee_saved = (1u << PSYM_X86_RBX) | (1u << PSYM_X86_RBP) | (1u << 12) | (1u << 13) |
			(1u << 14) | (1u << 15),
	.strip = x86_strip,
	.frame_pointer = x86_frame_pointer,
	.sigreturn = NULL,
};

const struct psym_unwind_arch *psym_unwind_arch_of(unsigned machine)
{
	switch (machine) {
	case 0:
	case EM_X86_64: return &arch_x86_64;
	case EM_AARCH64: return &psym_arch_aarch64;
	default: return NULL;
	}
}
