/* SPDX-License-Identifier: MIT */
/*
 * Lines and inline frames for kernel-module frames: the kernel resolver
 * names a module address with kallsyms ("[ext4]"); this finds that
 * module's .ko with DWARF (psym_locate_module_roots, kmod.h), places its
 * code sections where kallsyms says the running kernel loaded them, and
 * resolves the address in it. Each module is looked for once; lookups
 * are serialized (modules are few, their frames rare next to the rest).
 */
#ifndef PSYM_KMODS_H
#define PSYM_KMODS_H

#include "binary.h"
#include "kallsyms.h"
#include "locate.h"

struct psym_kmods;

/* lo, bo and ks are borrowed and must outlive the set. */
int psym_kmods_new(const struct psym_locate_opts *lo, const struct psym_binary_opts *bo,
		   struct psym_kallsyms *ks, struct psym_kmods **out, struct psym_err *e);
void psym_kmods_free(struct psym_kmods *m);

/*
 * Frames of a running-kernel address in module ("ext4", no brackets),
 * innermost first, into frames[max]; 0 when the module's file is not
 * found, cannot be placed or has no line for it. Strings live as long as
 * m.
 */
size_t psym_kmods_resolve(struct psym_kmods *m, const char *module, uint64_t addr,
			  struct psym_frame *frames, size_t max);

#endif
