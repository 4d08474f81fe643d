/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: kernel modules as kmod installs them. The input is taken
 * as a compressed module (.ko.xz, .ko.zst, .ko.gz by its magic bytes) or
 * else as a .ko itself; the ELF image is opened, its code sections placed
 * through a made-up kallsyms (every symbol at 0xffffffffc0000000 + its
 * value + 64 KiB per section index), and its DWARF opened (relocations
 * applied: elfreloc.c) and looked up at the placed addresses.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dwarfsym.h"
#include "elffile.h"
#include "kmod.h"

#define BASE 0xffffffffc0000000ULL

static int fake_addr(void *ud, const char *name, uint64_t *addr)
{
	size_t *calls = ud;

	(*calls)++;
	*addr = BASE + ((uint64_t)(unsigned char)name[0] << 16);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_dwarf_opts o = { .inlines = true,
				     .max_depth = 64,
				     .max_entries = 1 << 16,
				     .max_rows = 1 << 18,
				     .max_section = 64 << 20,
				     .max_memory = 256 << 20,
				     .threads = 1 };
	struct psym_elf *elf = NULL;
	struct psym_dwarf *d = NULL;
	struct psym_err e = { 0 };
	size_t calls = 0;
	int r;

	/* Small cap: a bomb must be refused, not decoded. */
	r = psym_kmod_open_compressed("fuzz.ko.xz", data, size, 64 << 20, NULL, &elf, &e);
	if (r == PSYM_NOENT) {
		void *copy = malloc(size ? size : 1);

		if (!copy)
			return 0;
		memcpy(copy, data, size);
		r = psym_elf_open_mem(copy, size, true, "fuzz.ko", NULL, &elf, &e);
	}
	if (r)
		return 0;
	psym_kmod_place(elf, fake_addr, &calls);
	if (psym_dwarf_open(elf, &o, &d, &e) == 0) {
		const struct psym_frame *fr;
		size_t n;

		for (uint64_t a = 0; a < 0x400; a += 7)
			psym_dwarf_lookup(d, BASE + ((uint64_t)'p' << 16) + a, &fr, &n, &e);
		for (uint64_t a = 0, va; a < 0x400; a += 11)
			if (psym_elf_section_addr(elf, ".text", a, &va) == 0)
				psym_dwarf_lookup(d, va, &fr, &n, &e);
		psym_dwarf_close(d);
	}
	psym_elf_close(elf);
	return 0;
}
