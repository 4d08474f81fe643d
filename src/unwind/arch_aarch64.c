/* SPDX-License-Identifier: MIT */
/*
 * AArch64 (AAPCS64, Linux): x19..x29 and sp survive a call, x29 is the
 * frame pointer and points at the frame record {caller's x29, x30}, x30
 * (the link register) is the CIEs' return-address column. A return
 * address may carry a pointer-authentication code in its top bits, which
 * is stripped. The kernel's signal frame (arch/arm64/kernel/signal.c,
 * struct rt_sigframe) lies at the stack pointer of the return trampoline
 * (__kernel_rt_sigreturn): siginfo (128 bytes), then the ucontext, whose
 * uc_mcontext (16-byte aligned, 176 bytes in) holds fault_address,
 * regs[31], sp, pc, pstate.
 */
#include "config.h"

#include <elf.h>
#include <string.h>

#include "arch.h"

/*
 * Linux gives user space 48-bit addresses (above that only to a process
 * that asks mmap for them, on a 52-bit kernel); the bits above hold the
 * PAC (from bit 48 up to 54) and the top byte a tag (TBI): both go.
 */
#define A64_VA_MASK ((UINT64_C(1) << 48) - 1)

static uint64_t a64_strip(uint64_t ra)
{
	return ra & A64_VA_MASK;
}

#define BIT(i) ((uint64_t)1 << (i))

/*
 * No CFI. Where the pc was not reached by a return (the leaf, or the pc a
 * signal interrupted), it is taken to be code that has not saved the
 * link register, as a PLT stub or a function's first instruction: the
 * caller is x30, at the same sp. Otherwise x29 points at {caller's x29,
 * return address}.
 */
static enum psym_arch_step a64_frame_pointer(const struct psym_unwind_regs *cur, bool exact,
					     psym_expr_read_fn read, void *stk,
					     struct psym_unwind_regs *out)
{
	uint64_t fp = cur->r[PSYM_A64_FP], ra, saved;

	if (exact && (cur->valid & BIT(PSYM_A64_LR)) && (cur->valid & BIT(PSYM_A64_SP)) &&
	    a64_strip(cur->r[PSYM_A64_LR]) != cur->r[PSYM_A64_PC]) {
		*out = *cur;
		out->r[PSYM_A64_PC] = a64_strip(cur->r[PSYM_A64_LR]);
		return PSYM_ARCH_OK;
	}

	if (!(cur->valid & BIT(PSYM_A64_FP)) || fp == 0)
		return PSYM_ARCH_NO_RULE;
	if (fp > UINT64_MAX - 16 || read(stk, fp, 8, &saved) != 0 || read(stk, fp + 8, 8, &ra) != 0)
		return PSYM_ARCH_OUT_OF_STACK;
	memset(out, 0, sizeof(*out));
	out->machine = cur->machine;
	out->r[PSYM_A64_FP] = saved;
	out->r[PSYM_A64_SP] = fp + 16;
	out->r[PSYM_A64_LR] = ra;
	out->r[PSYM_A64_PC] = a64_strip(ra);
	out->valid = BIT(PSYM_A64_FP) | BIT(PSYM_A64_SP) | BIT(PSYM_A64_LR) | BIT(PSYM_A64_PC);
	return PSYM_ARCH_OK;
}

/* struct rt_sigframe: siginfo 128, then ucontext: uc_mcontext at 176. */
#define SIGFRAME_MCONTEXT (128 + 176)
#define MCONTEXT_REGS 8 /* after fault_address */

static enum psym_arch_step a64_sigreturn(const struct psym_unwind_regs *cur, psym_expr_read_fn read,
					 void *stk, struct psym_unwind_regs *out)
{
	uint64_t base = cur->r[PSYM_A64_SP] + SIGFRAME_MCONTEXT + MCONTEXT_REGS, v;

	if (!(cur->valid & BIT(PSYM_A64_SP)) || base < cur->r[PSYM_A64_SP])
		return PSYM_ARCH_NO_RULE;
	memset(out, 0, sizeof(*out));
	out->machine = cur->machine;
	/* regs[0..30], sp, pc: slots 0..32 as the unwinder numbers them. */
	for (unsigned i = 0; i < PSYM_A64_NREGS; i++) {
		if (read(stk, base + 8 * i, 8, &v) != 0)
			return PSYM_ARCH_OUT_OF_STACK;
		out->r[i] = v;
		out->valid |= BIT(i);
	}
	return PSYM_ARCH_OK;
}

const struct psym_unwind_arch psym_arch_aarch64 = {
	.machine = EM_AARCH64,
	.name = "aarch64",
	.nregs = PSYM_A64_NREGS,
	.pc = PSYM_A64_PC,
	.sp = PSYM_A64_SP,
	.fp = PSYM_A64_FP,
	/* x19..x29 (AAPCS64; d8..d15 are not tracked) */
	.callee_saved = BIT(19) | BIT(20) | BIT(21) | BIT(22) | BIT(23) | BIT(24) | BIT(25) |
			BIT(26) | BIT(27) | BIT(28) | BIT(29),
	.strip = a64_strip,
	.leaf_keeps_sp = true,
	.frame_pointer = a64_frame_pointer,
	.sigreturn = a64_sigreturn,
};
