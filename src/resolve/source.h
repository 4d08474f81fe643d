/* SPDX-License-Identifier: MIT */
/*
 * Answer sources of a binary beside its DWARF: tables that give functions,
 * files, lines and inline frames for a binary without DWARF (a GSYM file,
 * Go's .gopclntab), or where its DWARF has no function. binary.c asks them
 * in the order of psym_sources[] (sources.c): a new source is one file
 * with its ops, and one line there.
 *
 * When a binary's debug information is first needed (binary.c):
 *   1. a source the user named (open_named) answers instead of the DWARF;
 *   2. else the DWARF of the binary or of its separate debug file;
 *   3. else the first source found for the binary (open_found) answers;
 *   4. else MiniDebugInfo's symbols.
 * A source that fills_gaps is also opened beside DWARF: its answers are
 * used where the DWARF has no function, and its boundaries join the
 * index's (src/index/build.c). One of_binary answering a binary without
 * DWARF is indexed and cached as DWARF is.
 */
#ifndef PSYM_SOURCE_H
#define PSYM_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elffile.h"
#include "err.h"
#include "frame.h"
#include "objtab.h"
#include "resolver.h"

struct psym_binary_opts;

/* What a source is opened with, and where it reports. */
struct psym_source_env {
	struct psym_elf *elf; /* the binary (its build ID, its sections) */
	const struct psym_binary_opts *o;
	/*
	 * --explain, as data in the object's located-object table entry
	 * (objtab.h): a file tried and why it was refused, or one used with
	 * what its words need (detail, PSYM_TRY_* flags).
	 */
	void (*tried)(void *ud, enum psym_tryrole role, const char *path,
		      const struct psym_reason *why);
	void (*used)(void *ud, enum psym_tryrole role, const char *path, const char *detail,
		     unsigned flags);
	/*
	 * The binary's note for the report (why no lines): replace, or only
	 * when no note was made yet.
	 */
	void (*note)(void *ud, const char *msg, bool replace);
	void *ud;
};

struct psym_source_ops {
	const char *kind;   /* "gsym", "gopclntab" */
	const char *option; /* the option naming its file ("gsym": --gsym FILE), or NULL */
	/*
	 * The file the user named with the source's option, answering
	 * instead of the DWARF. 0: opened, into *out; PSYM_NOENT: not usable
	 * (said through env). NULL: this kind is never named.
	 */
	int (*open_named)(const struct psym_source_env *env, const char *path, void **out);
	/*
	 * open_named takes env->elf NULL: the file answers alone, with no
	 * binary (psym addr --gsym FILE), for the binary's ELF addresses.
	 */
	bool alone;
	/* Found for the binary (its build ID, its own sections): as open_named. */
	int (*open_found)(const struct psym_source_env *env, void **out);
	bool fills_gaps; /* opened beside DWARF: answers where it has no function */
	/*
	 * Read from the binary itself (open_found only): its answers depend
	 * on the build alone, so the index and the answer cache keep them,
	 * as they keep DWARF answers.
	 */
	bool of_binary;
	/* Frames at vaddr, innermost first, into frames[max], count in *n. */
	int (*lookup)(void *s, uint64_t vaddr, struct psym_frame *frames, size_t max, size_t *n,
		      struct psym_err *e);
	/* Where its answers may change, malloc'd, any order; NULL: none given. */
	int (*boundaries)(void *s, uint64_t **out, size_t *n, struct psym_err *e);
	/* What answers, for the report: its item (resolver.h's role and fields). Borrowed. */
	void (*describe)(const void *s, struct psym_resitem *it);
	void (*close)(void *s);
};

/* The sources, in the order they are asked; NULL-terminated. */
extern const struct psym_source_ops *const psym_sources[];
#define PSYM_SOURCES_MAX 8

/* The source whose option is name, or NULL. */
const struct psym_source_ops *psym_source_by_option(const char *name);

extern const struct psym_source_ops psym_source_gsym;
extern const struct psym_source_ops psym_source_gopclntab;

#endif
