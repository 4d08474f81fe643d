/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the ELF reader: headers, build ID, PT_LOADs and address
 * normalization, symbol tables with PLT synthesis and lookups, debuglink,
 * MiniDebugInfo.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elffile.h"

static void poke(struct psym_elf *elf)
{
	const struct psym_elf_load *loads;
	struct psym_frame fr;
	const char *name;
	uint32_t crc;
	size_t n = psym_elf_loads(elf, &loads);

	(void)psym_elf_build_id(elf);
	(void)psym_elf_go_build_id(elf);
	(void)psym_elf_has_dwarf(elf);
	(void)psym_elf_debuglink(elf, &name, &crc);
	for (size_t i = 0; i < n && i < 8; i++) {
		uint64_t v;

		psym_elf_normalize(elf, 0x400000, 0x800000, loads[i].offset & ~0xfffULL,
				   0x400000 + (loads[i].offset & 0xfff) + 1, &v);
		psym_elf_lookup(elf, loads[i].vaddr, &fr);
		psym_elf_lookup(elf, loads[i].vaddr + loads[i].filesz / 2, &fr);
	}
	psym_elf_lookup(elf, 0, &fr);
	psym_elf_lookup(elf, UINT64_MAX, &fr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_elf_limits lim = { .max_sections = 4096, .max_symbols = 1 << 16 };
	struct psym_err e = { 0 };
	struct psym_elf *elf = NULL, *mini = NULL;
	void *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (psym_elf_open_mem(copy, size, true, "fuzz", &lim, &elf, &e) != 0)
		return 0;
	poke(elf);
	if (psym_elf_open_minidebuginfo(elf, &mini, &e) == 0) {
		poke(mini);
		psym_elf_add_symbols(elf, mini, &e);
		psym_elf_adopt(elf, mini);
		poke(elf);
	}
	psym_elf_close(elf);
	return 0;
}
