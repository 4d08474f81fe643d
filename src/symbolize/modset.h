/* SPDX-License-Identifier: MIT */
/*
 * Binaries named one at a time: the driver of the commands that look
 * addresses up by module rather than by profile (psym addr's one binary,
 * the crash-log filter's modules). Each module, a path as named with its
 * build ID (or NULL) and a file standing for it (-e, or NULL), is an entry
 * of a located-object table (objtab.h), located the first time it is
 * named, and opened once through the resolver registry, as symbolize opens
 * a mapping's file: the same file resolver, answer sources, index and
 * answer cache. The caller looks addresses up with the resolver, asks it
 * to describe itself, and ends the run with psym_modset_finish (the index
 * build policy). One thread.
 */
#ifndef PSYM_MODSET_H
#define PSYM_MODSET_H

#include <stdbool.h>
#include <stddef.h>

#include "binary.h"
#include "error.h"
#include "objtab.h"
#include "reason.h"
#include "resolver.h"

struct psym_modset;

/*
 * An empty set of at most max modules, found and opened with bo (its
 * locate options, limits, index store; borrowed, it must outlive the
 * set). NULL: out of memory.
 */
struct psym_modset *psym_modset_new(const struct psym_binary_opts *bo, size_t max);

/*
 * The module named: added on first mention and located then (*first is
 * true: x->tried holds every candidate and its verdict, for --explain).
 * 0 with *x, or a negative code (past max modules: PSYM_ELIMIT).
 */
int psym_modset_find(struct psym_modset *s, const char *path, const char *build_id,
		     const char *named, struct psym_located **x, bool *first, struct psym_err *e);

/*
 * The module's resolver, opened on its first use: 0 with *r, PSYM_NOENT
 * with why (no file answers for it; said again on each call), or a
 * negative error. *opened (may be NULL) is true when this call tried to
 * open it: a caller's first word on the module.
 */
int psym_modset_open(struct psym_modset *s, struct psym_located *x, struct psym_resolver **r,
		     bool *opened, struct psym_reason *why, struct psym_err *e);

/*
 * The answer every command gives for an address of a module (its opened
 * resolver r): for a relocatable object (.o, .ko), or with section (-j)
 * set, addr is an offset in that section (NULL: the first executable one
 * that long) and is placed in psym's layout of the object first; then the
 * code's frames, else the data object or absolute symbol holding it,
 * named as llvm-symbolizer and addr2line name data (no line, its start as
 * the frame's). *vaddr (may be NULL) gets the address looked up. Returns
 * the number of frames in fr (0: nothing holds it, or the offset is in no
 * section).
 */
size_t psym_modset_answer(struct psym_resolver *r, const char *section, uint64_t addr,
			  uint64_t *vaddr, struct psym_frames *fr);

/* The run is over: the opened resolvers act on what they learned (index builds). */
void psym_modset_finish(struct psym_modset *s);
void psym_modset_free(struct psym_modset *s);

#endif
