/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: DWARF index builder and lookups on an ELF opened by
 * elffile.c (the input goes into a memfd, opened as a file like a binary
 * is), decoding ahead on two threads, lookups.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dwarfsym.h"
#include "elffile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_dwarf_opts o = { .inlines = true,
				     .max_depth = 64,
				     .max_entries = 1 << 16,
				     .max_rows = 1 << 18,
				     .max_section = 64 << 20,
				     .max_memory = 256 << 20,
				     .threads = 2 };
	struct psym_dwarf *d = NULL;
	struct psym_elf *elf = NULL;
	struct psym_err e = { 0 };
	char path[64];
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
		psym_dwarf_close(d);
	}
	psym_elf_close(elf);
	close(fd);
	return 0;
}
