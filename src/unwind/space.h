/* SPDX-License-Identifier: MIT */
/*
 * The address space of one sampled process for unwinding: its file
 * mappings, each with the opened ELF (and optionally its debug file),
 * and the CFI of each file read once on first use. psym_space_find() is
 * the psym_unwind_find_fn.
 */
#ifndef PSYM_UNWIND_SPACE_H
#define PSYM_UNWIND_SPACE_H

#include <stdint.h>

#include "cfi.h"
#include "elffile.h"
#include "error.h"
#include "unwind.h"

struct psym_space;

int psym_space_new(const struct psym_cfi_limits *lim, struct psym_space **out, struct psym_err *e);
/* Destroys the CFI read; the ELFs stay the caller's. Accepts NULL. */
void psym_space_free(struct psym_space *s);

/*
 * A mapping [start, end) of file offset `offset` of elf (borrowed; must
 * outlive s), with debug (borrowed, may be NULL) for .debug_frame.
 * At most 65536 mappings.
 */
int psym_space_add(struct psym_space *s, uint64_t start, uint64_t end, uint64_t offset,
		   const struct psym_elf *elf, const struct psym_elf *debug, struct psym_err *e);

/* psym_unwind_find_fn over a struct psym_space. */
int psym_space_find(void *space, uint64_t pc, struct psym_unwind_obj *obj);

/*
 * Take each file's CFI from fn (which owns it, and may return NULL for
 * none) instead of opening it per space, and where its AArch64 signal
 * return trampoline is (*sigret, true; false: none): a run with many
 * processes, or many PROCESS records of one, indexes each object's CFI
 * and searches its symbols once, and shares its memoized rows. Set
 * before the first lookup.
 */
typedef struct psym_cfi *(*psym_space_cfi_fn)(void *ud, const struct psym_elf *elf,
					      bool *has_sigret, uint64_t *sigret);
void psym_space_set_cfi_source(struct psym_space *s, psym_space_cfi_fn fn, void *ud);

#endif
