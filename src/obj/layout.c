/* SPDX-License-Identifier: MIT */
/* A file's layout, relative to its anchor (layout.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hashtab.h"
#include "layout.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	return psym_fnv1a(&v, sizeof(v), h);
}

void psym_elf_layout(const struct psym_elf *elf, struct psym_layout *out)
{
	const struct psym_elf_load *loads;
	size_t nloads = psym_elf_loads(elf, &loads), nscn = psym_elf_nsections(elf);
	uint64_t anchor = UINT64_MAX, h = PSYM_FNV1A_INIT;

	for (size_t i = 0; i < nloads; i++)
		if (loads[i].vaddr < anchor)
			anchor = loads[i].vaddr;
	for (size_t i = 1; !nloads && i < nscn; i++) {
		uint64_t a = psym_elf_scn_addr(elf, i);

		if (a && a < anchor)
			anchor = a;
	}
	if (anchor == UINT64_MAX)
		anchor = 0;
	for (size_t i = 0; i < nloads; i++) {
		h = mix(h, loads[i].vaddr - anchor);
		h = mix(h, loads[i].memsz);
		h = mix(h, loads[i].flags);
	}
	/* Sections with an address: where they are, and their name and size when they have contents. */
	for (size_t i = 1; i < nscn; i++) {
		uint64_t a = psym_elf_scn_addr(elf, i);
		struct psym_elf_scn s;

		if (!a)
			continue;
		h = mix(h, a - anchor); /* not i: removing debug sections renumbers */
		if (psym_elf_scn(elf, i, &s) == 0) {
			h = psym_fnv1a(s.name, strlen(s.name) + 1, h);
			h = mix(h, s.len);
		}
	}
	out->anchor = anchor;
	out->hash = h;
	snprintf(out->tag, sizeof(out->tag), "L%016llx", (unsigned long long)h);
}
