/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: DWARF index builder and lookups on an ELF opened by
 * elffile.c (the input goes into a memfd, opened as a file like a binary
 * is), decoding ahead on two threads, lookups. Split DWARF: the input is
 * also its own .dwp and the only .dwo candidate (corpus seed-split5 is a
 * binary carrying its split unit and a .debug_cu_index). Relocatable
 * objects (seed-rel-*) get their debug sections relocated (elfreloc.c).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dwarfsym.h"
#include "elffile.h"

/* The input itself, as the .dwp and as every .dwo. */
static void self_cand(void *ctx, psym_dwo_cand_fn fn, void *ud)
{
	fn(ud, ctx);
}

static void self_dwo(void *ctx, const char *comp_dir, const char *dwo_name, psym_dwo_cand_fn fn,
		     void *ud)
{
	(void)comp_dir;
	(void)dwo_name;
	fn(ud, ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct psym_dwo_finder finder = { .ctx = path, .dwo = self_dwo, .dwp = self_cand };
	struct psym_dwarf_opts o = { .inlines = true,
				     .max_depth = 64,
				     .max_entries = 1 << 16,
				     .max_rows = 1 << 18,
				     .max_section = 64 << 20,
				     .max_memory = 256 << 20,
				     .threads = 2,
				     .split = &finder };
	struct psym_dwarf *d = NULL;
	struct psym_elf *elf = NULL;
	struct psym_err e = { 0 };
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (psym_elf_open(path, NULL, &elf, &e) != 0) {
		close(fd);
		return 0;
	}
	if (psym_dwarf_open(elf, &o, &d, &e) == 0) {
		const struct psym_elf_load *l;
		const struct psym_frame *fr;
		size_t n, nl;
		char altpath[256], altid[130];

		/* dwz / supplementary forms: the file stands in as its own alternate file. */
		if (psym_dwarf_altlink(elf, altpath, sizeof(altpath), altid, sizeof(altid), &e) ==
			    0 ||
		    (size & 2))
			psym_dwarf_set_alt(d, elf, &e);

		/* Odd sizes: decode ahead on two threads first (lookups then find it done). */
		if (size & 1) {
			uint64_t want[0x3000 / 97 + 1];
			size_t nw = 0;

			for (uint64_t a = 0; a < 0x3000; a += 97)
				want[nw++] = a;
			psym_dwarf_prepare(d, want, nw, &e);
		}
		nl = psym_elf_loads(elf, &l);
		for (size_t i = 0; i < nl && i < 4; i++)
			for (uint64_t a = l[i].vaddr;
			     a < l[i].vaddr + l[i].filesz && a < l[i].vaddr + 4096; a += 61)
				psym_dwarf_lookup(d, a, &fr, &n, &e);
		for (uint64_t a = 0; a < 0x3000; a += 97)
			psym_dwarf_lookup(d, a, &fr, &n, &e);
		/* A relocatable object: offsets of its code sections (relocated DWARF). */
		for (uint64_t a = 0, va; psym_elf_is_rel(elf) && a < 0x3000; a += 13)
			if (psym_elf_section_addr(elf, NULL, a, &va) == 0)
				psym_dwarf_lookup(d, va, &fr, &n, &e);
		psym_dwarf_close(d);
	}
	psym_elf_close(elf);
	close(fd);
	return 0;
}
