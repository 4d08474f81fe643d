/* SPDX-License-Identifier: MIT */
/*
 * The CFI of the objects one run unwinds through, each read once at its
 * first use and kept for every process or core that maps it: the source a
 * psym_space takes (psym_space_set_cfi_source with psym_cfiset_get and the
 * set). Objects are keyed by their psym_elf, which the caller keeps open
 * as long as the set.
 */
#ifndef PSYM_CFISET_H
#define PSYM_CFISET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfi.h"
#include "elffile.h"
#include "hashtab.h"

struct psym_cfiset {
	const struct psym_cfi_limits *lim; /* borrowed */
	struct psym_cfiset_obj **objs;
	size_t n, cap;
	struct psym_hashtab by_elf;
};

/* An empty set whose objects are read within lim (borrowed, kept). */
void psym_cfiset_init(struct psym_cfiset *s, const struct psym_cfi_limits *lim);

/*
 * The CFI of elf (NULL: none, unreadable, or out of memory), and whether
 * it has the kernel's signal return trampoline __kernel_rt_sigreturn (at
 * *sigret). ud is the set: the shape of psym_space_cfi_fn (space.h).
 */
struct psym_cfi *psym_cfiset_get(void *ud, const struct psym_elf *elf, bool *has_sigret,
				 uint64_t *sigret);

/* Close every object's CFI; after the spaces that borrow them are freed. */
void psym_cfiset_free(struct psym_cfiset *s);

#endif
