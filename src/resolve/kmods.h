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
#include "objtab.h"
#include "pprof.h"
#include "readlimits.h"

struct psym_kmods;

/*
 * Each module's file is searched once for kernel entry x of table t
 * (objtab.h: where it was found, every candidate and its verdict) and
 * reopened from there by a later set of the same entry; t and x may be
 * NULL (searched once per set). t, x, lo, bo and ks are borrowed and must
 * outlive the set.
 */
int psym_kmods_new(struct psym_objtab *t, struct psym_located *x, const struct psym_locate_opts *lo,
		   const struct psym_binary_opts *bo, const struct psym_kallsyms *ks,
		   struct psym_kmods **out, struct psym_err *e);
void psym_kmods_free(struct psym_kmods *m);

/*
 * Frames of a running-kernel address in module ("ext4", no brackets),
 * innermost first, into frames[max]; 0 when the module's file is not
 * found, cannot be placed or has no line for it. Strings live as long as
 * m.
 */
size_t psym_kmods_resolve(struct psym_kmods *m, const char *module, uint64_t addr,
			  struct psym_frame *frames, size_t max);

/* One module a profile needs: release NULL when unknown, build_id NULL when not recorded. */
typedef int (*psym_kmods_want_fn)(void *ud, const char *module, const char *release,
				  const char *build_id);

/*
 * The kernel modules p's kernel frames fall in, found as the symbolizer
 * finds them, before any file is looked for (--debug-pkg extracts only
 * these): the kallsyms copy it uses (kallsyms, else side_dir/kallsyms)
 * names each frame's module; the release is psym_hostid_profile_release's,
 * the build ID psym-collect's record side_dir/modules. fn is called once
 * per module and returns 0 to go on; its first other value is returned.
 * Without a kallsyms copy no module frame can be placed: none is wanted.
 */
int psym_kmods_profile_wants(const struct psym_profile *p, const char *side_dir,
			     const char *kallsyms, const struct psym_reader_limits *lim,
			     psym_kmods_want_fn fn, void *ud, struct psym_err *e);

#endif
