/* SPDX-License-Identifier: MIT */
/*
 * The located-object table: the plan of a run. Every mapping of a profile
 * (every module of a log line, every file named with -e) is classified
 * once into a typed key; the keys are deduplicated (one key string, built
 * in one place, build IDs compared without regard to case); then every key
 * is located in one pass, and the entry records where its file came from
 * and every candidate that was tried and why it was refused. Resolvers
 * (resolvers.h) and the unwinder (unwindprof.h) are opened from the
 * entries afterwards; --explain prints the table.
 *
 * What a table entry locates itself: the binary of a file-backed mapping
 * (locate.h's rules) and the vDSO image. Kernel, kernel modules and JIT
 * code are located by their resolvers when opened (vmlinux and kallsyms,
 * perf maps per process); a binary's separate debug file, alternate file
 * and split-DWARF files are located by the binary when a lookup first
 * needs them, since an answer from the symbol cache needs none of them.
 * The index slot is for a per-build-ID symbol index file (filled by the
 * index module; NULL until then).
 *
 * Thread-safe: a batch's runs share one table of binaries.
 */
#ifndef PSYM_OBJTAB_H
#define PSYM_OBJTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "elffile.h"
#include "error.h"
#include "locate.h"
#include "mapping.h"
#include "reason.h"

/* One candidate a locate pass tried, and its verdict. */
struct psym_objtab_try {
	char *path;
	char *verdict;
};

/* One object of the plan. Fields are read-only to callers. */
struct psym_located {
	/* The typed key. */
	enum psym_map_class cls;
	const char *path;     /* cleaned file name the profile names; "" when not a file */
	const char *build_id; /* as first given (any case); "" when unknown */
	const char *named;    /* the file the user named for it (--main-binary, -e), or NULL */
	const char *key;      /* the one key string: class, named, path, lowercase build ID */
	/* The locate pass's answer. */
	bool located;		       /* the pass has run for it */
	int status;		       /* 0: found; PSYM_NOENT: why says why; or an error */
	struct psym_reason why;	       /* when not found */
	const char *file;	       /* the file found (binary, vDSO image), or NULL */
	const char *index;	       /* per-build-ID symbol index file (index module), or NULL */
	struct psym_objtab_try *tried; /* candidates refused or used, in order */
	size_t ntried;
	/* private */
	struct psym_elf *elf; /* the opened file until taken */
	bool taken;
};

struct psym_objtab;

/* An empty table of at most max objects (0: no cap). */
struct psym_objtab *psym_objtab_new(size_t max);
/*
 * At most this many located files stay open in the table until taken
 * (default PSYM_OBJTAB_DEFAULT_HELD); past it an entry keeps only where its
 * file is, and taking it opens the file again: a plan of many thousand
 * objects does not hold them all open at once.
 */
#define PSYM_OBJTAB_DEFAULT_HELD 1024
void psym_objtab_set_max_held(struct psym_objtab *t, size_t max_held);

/* Frees every entry and the files no one took. NULL is fine. */
void psym_objtab_free(struct psym_objtab *t);

/*
 * The typed key of a pprof mapping's file name (or a log's module path):
 * its class, and the name cleaned (psym_mapping_classify) into clean.
 */
enum psym_map_class psym_objkey_classify(const char *name, char *clean, size_t cleansz);

/*
 * The entry for a key, added when new (not yet located). path is the
 * cleaned name (ignored, stored as "", for objects that are not files),
 * build_id "" or NULL when unknown. Strings are copied. 0 with *out,
 * PSYM_ENOMEM or PSYM_ELIMIT with e set.
 */
int psym_objtab_add(struct psym_objtab *t, enum psym_map_class cls, const char *path,
		    const char *build_id, const char *named, struct psym_located **out,
		    struct psym_err *e);

/*
 * The locate pass: every entry not located yet is located with lo (NULL:
 * only the path as recorded). The opened files stay with the entries.
 * Returns 0, or a negative error (out of memory); "not found" is an
 * entry's status, not an error.
 */
int psym_objtab_locate(struct psym_objtab *t, const struct psym_locate_opts *lo,
		       struct psym_err *e);

/* Locate one entry now (for a streaming caller, e.g. the crash-log filter). */
int psym_objtab_locate_one(struct psym_objtab *t, struct psym_located *x,
			   const struct psym_locate_opts *lo, struct psym_err *e);

/*
 * The located file of an entry, handed over: the first call gives the
 * file the pass opened; a later one (its resolver was closed for the open
 * cap) opens the same file again. 0 with *out (the caller's), PSYM_NOENT
 * with why (the entry's reason), or an error.
 */
int psym_objtab_take_elf(struct psym_objtab *t, struct psym_located *x,
			 const struct psym_elf_limits *lim, struct psym_elf **out,
			 struct psym_reason *why, struct psym_err *e);

/*
 * The located file, borrowed (lives as long as the table), or NULL: not
 * found, taken, or not held (psym_objtab_set_max_held).
 */
struct psym_elf *psym_objtab_elf(struct psym_located *x);

/* Entries in the order they were added. */
size_t psym_objtab_count(const struct psym_objtab *t);
struct psym_located *psym_objtab_at(struct psym_objtab *t, size_t i);

#endif
