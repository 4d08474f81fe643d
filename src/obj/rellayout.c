/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>

#include "rellayout.h"

int psym_elf_rel_layout(void *handle, const char *path, size_t nsections, uint64_t **secaddr,
			struct psym_err *e)
{
	Elf *elf = handle;
	uint64_t next = PSYM_REL_BASE, *a = calloc(nsections, sizeof(*a));

	if (!a)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 1; i < nsections; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;
		uint64_t align;

		if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (sh.sh_addr) {
			a[i] = sh.sh_addr;
			continue;
		}
		align = sh.sh_addralign > 1 ? sh.sh_addralign : 1;
		if (align & (align - 1))
			align = 1; /* not a power of two: no alignment to keep */
		if (__builtin_add_overflow(next, align - 1, &next))
			goto overflow;
		next &= ~(align - 1);
		a[i] = next;
		if (__builtin_add_overflow(next, sh.sh_size, &next))
			goto overflow;
	}
	*secaddr = a;
	return 0;
overflow:
	free(a);
	return psym_err_set(e, PSYM_EBADELF, "'%s': section sizes add up past 2^64", path);
}
