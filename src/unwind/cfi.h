/* SPDX-License-Identifier: MIT */
/*
 * Call-frame information of one ELF file: .eh_frame (indexed through
 * .eh_frame_hdr when it has a usable binary-search table, else scanned)
 * and .debug_frame (scanned, inflated when SHF_COMPRESSED). A lookup runs
 * the CIE's and FDE's CFA programs up to the address and gives the row:
 * how to compute the CFA and where each register of the caller was saved.
 *
 * The sections are untrusted: every read is bounds-checked, the index
 * has a cap (--limit cfi-fdes), a CFA program runs at most --limit
 * cfi-steps instructions, remember_state nests at most 16 deep, and
 * DWARF expressions are only borrowed here (expr.h evaluates them with
 * their own caps). Register numbers are DWARF's x86-64 ones; rules for
 * registers beyond the return-address column are ignored.
 */
#ifndef PSYM_UNWIND_CFI_H
#define PSYM_UNWIND_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elffile.h"
#include "error.h"

/* DWARF register numbers of x86-64 (System V psABI, figure 3.36). */
enum psym_x86_reg {
	PSYM_X86_RAX = 0,
	PSYM_X86_RDX = 1,
	PSYM_X86_RCX = 2,
	PSYM_X86_RBX = 3,
	PSYM_X86_RSI = 4,
	PSYM_X86_RDI = 5,
	PSYM_X86_RBP = 6,
	PSYM_X86_RSP = 7,
	/* 8..15: r8..r15 */
	PSYM_X86_RA = 16, /* return address column: the caller's rip */
	PSYM_X86_NREGS = 17
};

/*
 * DWARF register numbers of AArch64 (AADWARF64): x0..x30 are 0..30 (x29
 * the frame pointer, x30 the link register and the CIEs' return-address
 * column), sp is 31. Slot 32 holds the frame's pc, which has no DWARF
 * column: the unwinder keeps it there (arch.h).
 */
enum psym_a64_reg {
	PSYM_A64_FP = 29,
	PSYM_A64_LR = 30,
	PSYM_A64_SP = 31,
	PSYM_A64_PC = 32,
	PSYM_A64_NREGS = 33
};

/* Register slots of a row and of the unwinder's state: the largest set. */
#define PSYM_CFI_NREGS 33

enum psym_cfi_how {
	PSYM_CFI_UNDEF = 0,  /* not recoverable (the return address: outermost frame) */
	PSYM_CFI_SAME,	     /* unchanged in the caller */
	PSYM_CFI_OFFSET,     /* saved at CFA + off */
	PSYM_CFI_VAL_OFFSET, /* value is CFA + off */
	PSYM_CFI_REG,	     /* in register reg */
	PSYM_CFI_EXPR,	     /* saved at the address the expression gives */
	PSYM_CFI_VAL_EXPR,   /* value is what the expression gives */
	PSYM_CFI_UNSET	     /* no rule given: callee-saved ones are SAME on x86-64 */
};

struct psym_cfi_rule {
	uint8_t how;
	uint16_t reg;
	int64_t off;
	const uint8_t *expr; /* borrowed from the section */
	size_t exprlen;
};

struct psym_cfi_row {
	/* CFA: register + offset (how == PSYM_CFI_REG) or an expression (PSYM_CFI_EXPR). */
	struct psym_cfi_rule cfa;
	struct psym_cfi_rule reg[PSYM_CFI_NREGS];
	bool signal_frame;	     /* 'S' augmentation: the pc is not a return address */
	bool swap;		     /* section byte order differs from ours (expressions) */
	bool debug_frame;	     /* found in .debug_frame rather than .eh_frame */
	uint16_t ra;		     /* the CIE's return-address column */
	uint64_t fde_start, fde_end; /* the FDE's pc range (ELF vaddrs) */
};

/* Caps against hostile CFI; 0 fields take the defaults. */
struct psym_cfi_limits {
	size_t max_fdes;  /* FDEs indexed per file, default 4 million */
	size_t max_steps; /* CFA instructions run per lookup, default 100000 */
};

struct psym_cfi;

/*
 * Read the CFI of elf (which must outlive the result: expressions and
 * sections are borrowed). PSYM_NOENT when the file has neither
 * .eh_frame nor .debug_frame; an error when they are unusable as a whole.
 */
int psym_cfi_open(const struct psym_elf *elf, const struct psym_cfi_limits *lim,
		  struct psym_cfi **out, struct psym_err *e);
void psym_cfi_close(struct psym_cfi *cfi);

/* Number of FDEs indexed (.eh_frame_hdr entries count as indexed). */
size_t psym_cfi_nfdes(const struct psym_cfi *cfi);

/*
 * The unwind row for ELF virtual address vaddr. 0, PSYM_NOENT when no FDE
 * covers it, or a negative code (bad CIE/FDE, a cap hit) with e set.
 */
int psym_cfi_find(struct psym_cfi *cfi, uint64_t vaddr, struct psym_cfi_row *row,
		  struct psym_err *e);

/*
 * CFA instructions run by this object's lookups so far, for budgets across
 * lookups (psym_unwind_budget). Rows (and errors) are memoized per address:
 * a repeated lookup costs no steps. Accepts NULL (0).
 */
uint64_t psym_cfi_steps(const struct psym_cfi *cfi);

#endif
