/* SPDX-License-Identifier: MIT */
/*
 * The registers of one frame, the type the unwinder (unwind.h) and the
 * machines' rules (arch.h) share: a header of its own, so that neither
 * includes the other's.
 */
#ifndef PSYM_UNWREGS_H
#define PSYM_UNWREGS_H

#include <stdint.h>

#include "cfi.h"

/*
 * Register values by DWARF number, of the machine named (EM_X86_64, 0
 * taken as it, or EM_AARCH64; arch.h): x86-64's r[PSYM_X86_RA] is rip,
 * AArch64's pc is in r[PSYM_A64_PC].
 */
struct psym_unwind_regs {
	uint64_t r[PSYM_CFI_NREGS];
	uint64_t valid; /* bit i: r[i] is known */
	uint16_t machine;
};

#endif
