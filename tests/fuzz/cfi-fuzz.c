/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the CFI reader and the unwinder. The input is an ELF image
 * (its .eh_frame, .eh_frame_hdr, .debug_frame are read); rows are looked
 * up at the start, middle and end of the first FDEs' ranges, and a stack
 * made of the input's last 512 bytes is unwound from registers taken
 * from its first bytes, as x86-64's and as AArch64's registers.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "elffile.h"
#include "unwind.h"

static int find(void *arg, uint64_t pc, struct psym_unwind_obj *obj)
{
	(void)pc;
	memset(obj, 0, sizeof(*obj));
	obj->cfi[0] = arg;
	return 0;
}

/* Also the signal-frame rule: pcs with bit 4 set are taken as the trampoline. */
static int find_a64(void *arg, uint64_t pc, struct psym_unwind_obj *obj)
{
	find(arg, pc, obj);
	obj->sigreturn = (pc & 0x10) != 0;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_elf_limits lim = { .max_sections = 4096, .max_symbols = 1 << 16 };
	struct psym_cfi_limits clim = { .max_fdes = 1 << 16, .max_steps = 10000 };
	struct psym_err e = { 0 };
	struct psym_elf *elf = NULL;
	struct psym_cfi *cfi = NULL;
	struct psym_cfi_row row;
	void *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (psym_elf_open_mem(copy, size, true, "fuzz", &lim, &elf, &e) != 0)
		return 0;
	if (psym_cfi_open(elf, &clim, &cfi, &e) == 0) {
		struct psym_unwind_regs regs = { 0 };
		size_t slen = size < 512 ? size : 512;
		struct psym_unwind_stack stk = { 0x7ff000, data + size - slen, slen };
		struct psym_unwind_result res;
		uint64_t pcs[32];

		for (uint64_t a = 0; a < 0x20000; a += 0x3f1)
			psym_cfi_find(cfi, a, &row, &e);
		psym_cfi_find(cfi, UINT64_MAX, &row, &e);
		for (size_t i = 0; i < PSYM_CFI_NREGS && (i + 1) * 8 <= size; i++)
			memcpy(&regs.r[i], data + i * 8, 8);
		regs.valid = 0x1ffff;
		regs.r[PSYM_X86_RSP] = 0x7ff000 + (regs.r[PSYM_X86_RSP] & 0xff);
		for (uint64_t pc = 0x1000; pc < 0x6000; pc += 0x101) {
			regs.r[PSYM_X86_RA] = pc;
			psym_unwind(&regs, &stk, find, cfi, pcs, 32, &res);
		}
		/* The same stacks as AArch64's (x29/x30 frame records, PAC bits). */
		regs.machine = 183; /* EM_AARCH64 */
		regs.valid = ((uint64_t)1 << PSYM_A64_NREGS) - 1;
		regs.r[PSYM_A64_SP] = 0x7ff000 + (regs.r[PSYM_A64_SP] & 0xf0);
		for (uint64_t pc = 0x1000; pc < 0x6000; pc += 0x104) {
			regs.r[PSYM_A64_PC] = pc;
			psym_unwind(&regs, &stk, find_a64, cfi, pcs, 32, &res);
		}
		psym_cfi_close(cfi);
	}
	psym_elf_close(elf);
	return 0;
}
