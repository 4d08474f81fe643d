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
 * What the locate pass finds for an entry: the binary of a file-backed
 * mapping (locate.h's rules), the vDSO image, and for the kernel its
 * vmlinux image and kallsyms copy. The files an opened binary names
 * itself (its separate debug file, the alternate file its DWARF names,
 * its split-DWARF files) are located through the table too, into the
 * entry's side records (psym_objtab_locate_debug, _alt, _split_*), when
 * a lookup first needs them: an answer from the symbol cache or an index
 * needs none of them, and a run the cache answers opens no debug file.
 * Located once: a resolver opened again (the open cap) or another run of
 * a batch opens the file the entry recorded, with no new search.
 *
 * Thread-safe: a batch's runs share one table of binaries.
 */
#ifndef PSYM_OBJTAB_H
#define PSYM_OBJTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "elffile.h"
#include "error.h"
#include "locate.h"
#include "mapping.h"
#include "reason.h"

/*
 * What a file tried for an entry was wanted as (struct psym_objtab_try).
 * A search's candidate has the search's verdict; the others are data, and
 * their words are composed where the description is (symbolize/resdesc.c).
 */
enum psym_tryrole {
	PSYM_TRY_CANDIDATE,   /* a candidate of a search: verdict in the search's words */
	PSYM_TRY_DWO,	      /* a split unit's .dwo file */
	PSYM_TRY_DWP,	      /* the split DWARF package */
	PSYM_TRY_ALT,	      /* the alternate (dwz) / supplementary file, for the DWARF */
	PSYM_TRY_DWARF,	      /* a file's DWARF (refused: unreadable) */
	PSYM_TRY_SYMBOLS,     /* a debug file's symbol table (refused: unreadable) */
	PSYM_TRY_MINIDEBUG,   /* the binary's .gnu_debugdata symbol table (MiniDebugInfo) */
	PSYM_TRY_SOURCE,      /* an answer source's file (resolve/source.h): used, the
			       * verdict is the source's own words */
	PSYM_TRY_INDEX,	      /* a symbol index found for it (used: for every answer) */
	PSYM_TRY_INDEX_STORE, /* the index store asked (refused: why none was used) */
	PSYM_TRY_CACHE,	      /* its answer cache file (refused: why ignored) */
	PSYM_TRY_PERFMAP,     /* a process's perf map (JIT code) */
	PSYM_TRY_KALLSYMS,    /* the kernel's symbols (used: PSYM_TRY_PARSED_BEFORE) */
	PSYM_TRY_KMOD,	      /* a kernel module's file (used: verdict is its package, or "") */
};

#define PSYM_TRY_NO_INLINES 1u	      /* SOURCE used: no inline frames (verdict: why) */
#define PSYM_TRY_NO_DISCRIMINATORS 2u /* INDEX refused: made without discriminators */
#define PSYM_TRY_NOT_ASKED 4u	      /* INDEX_STORE: not asked, --gsym answers */
#define PSYM_TRY_PARSED_BEFORE 8u     /* KALLSYMS used: parsed before for the same boot */
#define PSYM_TRY_SUBSET 16u	      /* KALLSYMS used: the profile's subset of the symbols */

/* One file tried for an entry, and its verdict. */
struct psym_objtab_try {
	char *path;
	/*
	 * CANDIDATE: the search's verdict; the others: why refused, or when
	 * used what its words need ("", a layout).
	 */
	char *verdict;
	enum psym_tryrole role;
	bool used;	/* it answered (the words are the describer's) */
	unsigned flags; /* PSYM_TRY_* */
};

/*
 * A file located for an entry besides its own (its debug file, its DWARF's
 * alternate file), or the candidates of its split-DWARF files: the answer
 * and every candidate tried with its verdict.
 */
struct psym_locside {
	bool located;		       /* searched (the file, or why not, is known) */
	int status;		       /* 0: found; PSYM_NOENT: why says why */
	struct psym_reason why;	       /* when not found */
	const char *file;	       /* the file found, or NULL */
	struct psym_objtab_try *tried; /* candidates refused or used, in order */
	size_t ntried;
	size_t told; /* later: the files psym_objtab_news gave so far */
	size_t lost; /* later: files past the cap, not kept */
};

/* A kernel module's .ko under the kernel entry (kmods.c): found on its first frame. */
struct psym_objtab_kmod {
	char *name;		  /* as kallsyms names it, without brackets ("ext4") */
	struct psym_locside side; /* the .ko used, or why none, and every candidate */
};

/*
 * A perf map or jitdump candidate of one process, in locate.h's order: one
 * that exists, or one that is missing (said under --explain when the
 * loader reaches it); path NULL marks the pid as located.
 */
struct psym_objtab_perfmap {
	int pid;
	char *path;
	bool jitdump;
	bool missing;
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
	bool located;		     /* the pass has run for it */
	int status;		     /* 0: found; PSYM_NOENT: why says why; or an error */
	struct psym_reason_kept why; /* when not found */
	const char *file;	     /* the file found (binary, vDSO image), or NULL */
	const char *index; /* the symbol index that answers for it (when opened), or NULL */
	struct psym_objtab_try *tried; /* candidates refused or used, in order */
	size_t ntried;
	/*
	 * Files it names itself, located on first need (see above); each
	 * side is allocated when first recorded (NULL: not searched), so an
	 * entry of a plan of many objects stays small.
	 */
	struct psym_locside *debug; /* separate debug file */
	struct psym_locside *alt;   /* alternate (dwz) / supplementary DWARF file */
	/*
	 * Every file tried for it once it was opened, in order, for
	 * --explain (psym_objtab_tried): the candidates of its debug file
	 * and alternate file, the DWARF read, the split units, the symbol
	 * tables (no one file: only tried and lost are used).
	 */
	struct psym_locside *later;
	/* The kernel (PSYM_MAP_KERNEL, PSYM_MAP_KMODULE): */
	uint64_t text;			/* vmlinux's _text (file is the vmlinux) */
	struct psym_locside *kallsyms;	/* the kallsyms copy */
	struct psym_objtab_kmod *kmods; /* its modules' files, as frames needed them */
	size_t nkmods;
	/* JIT code (PSYM_MAP_ANON): the processes' perf maps, in locate.h's order. */
	struct psym_objtab_perfmap *perfmaps;
	size_t nperfmaps;
	/* private */
	struct psym_elf *elf; /* the opened file until taken */
	bool taken;
	bool perfmaps_unsorted; /* a pid located after a larger one */
};

struct psym_objtab;

/*
 * A file object with nothing to check its file against: no build ID, and
 * no file the user named for it. Its file is the one at its path, as pprof
 * takes it, and answers from it are unverified (the locator's verdict
 * says so too: "used, unverified").
 */
bool psym_located_unverified(const struct psym_located *x);

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

/*
 * Whether a locate pass records each entry's candidates and verdicts
 * (tried, ntried; default yes). A caller that never says them (psym
 * symbolize without --explain) turns it off: three candidates or more a
 * missing file, about 260 bytes a mapping of a profile of many.
 */
void psym_objtab_keep_tried(struct psym_objtab *t, bool keep);

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
 * The locate pass: every entry not located yet (a file entry without a
 * path, only a build ID, as psym addr --build-id names its object: any
 * file with that build ID, psym_locate_by_build_id) is located with lo (NULL:
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

/*
 * The separate debug file of x's binary (opened), located through the
 * table: the first call searches (psym_locate_debug with lo, every
 * candidate recorded in x->debug and in x->later; without t and x, in
 * lo's own candidate record, if any),
 * a later one opens the file recorded, or gives the reason recorded.
 * t and x may be NULL (an object outside any table): then it only
 * searches. Returns 0 with *out (the caller's), PSYM_NOENT with why, or
 * an error (not remembered).
 */
int psym_objtab_locate_debug(struct psym_objtab *t, struct psym_located *x,
			     const struct psym_locate_opts *lo, struct psym_elf *binary,
			     struct psym_elf **out, struct psym_reason *why, struct psym_err *e);

/* The same for the alternate file that x's DWARF names (psym_locate_alt), into x->alt. */
int psym_objtab_locate_alt(struct psym_objtab *t, struct psym_located *x,
			   const struct psym_locate_opts *lo, const struct psym_alt_key *k,
			   struct psym_elf **out, struct psym_reason *why, struct psym_err *e);

/*
 * Split DWARF stays per unit (a .dwo is wanted only when a lookup reaches
 * its skeleton unit; locating all up front would read every skeleton
 * unit): the candidates for one .dwo (dwo_name set) or for the .dwp
 * (dwo_name NULL).
 */
bool psym_objtab_split_candidates(const struct psym_locate_opts *lo, const char *binary_path,
				  const char *comp_dir, const char *dwo_name, psym_cand_fn fn,
				  void *ud);
/*
 * A file tried for x once it was opened (a split unit, its DWARF, a symbol
 * table: role) and its verdict (why: why refused, NULL: used), recorded in
 * x->later only; the candidates of psym_objtab_locate_debug and _alt go
 * there too. --explain reads them from there (psym_objtab_news). Nothing
 * is kept when t keeps no candidates (psym_objtab_keep_tried). t, x may be
 * NULL.
 */
void psym_objtab_tried(struct psym_objtab *t, struct psym_located *x, enum psym_tryrole role,
		       const char *path, const struct psym_reason *why);
/* The same for a file used, with what its words need (detail, PSYM_TRY_* flags). */
void psym_objtab_used(struct psym_objtab *t, struct psym_located *x, enum psym_tryrole role,
		      const char *path, const char *detail, unsigned flags);
/* A candidate of a search, in its words (PSYM_TRY_CANDIDATE). */
void psym_objtab_candidate(struct psym_objtab *t, struct psym_located *x, const char *path,
			   const char *verdict);
/* A refusal with flags that say why (why NULL: the flags say it all). */
void psym_objtab_refused(struct psym_objtab *t, struct psym_located *x, enum psym_tryrole role,
			 const char *path, const struct psym_reason *why, unsigned flags);
/*
 * The files tried for x since the last call (*tried, *n of them; *lost:
 * those past the cap), in order, then marked told. Borrowed: valid until
 * the next one is recorded for x (the object's resolver's next lookup,
 * which the registry serializes with its describe). t, x may be NULL.
 */
void psym_objtab_news(struct psym_objtab *t, struct psym_located *x,
		      const struct psym_objtab_try **tried, size_t *n, size_t *lost);

/*
 * The per-build-ID symbol index the object's binary opened (index/store.h:
 * looked up by the binary on its first lookup the symbol cache does not
 * answer, as a run the cache answers fetches no index), recorded in x.
 * t, x may be NULL.
 */
void psym_objtab_set_index(struct psym_objtab *t, struct psym_located *x, const char *path);

/*
 * The kallsyms copy the pass located for a kernel entry: its path into
 * buf and 0, or PSYM_NOENT with why.
 */
int psym_objtab_kallsyms(struct psym_objtab *t, struct psym_located *x, char *buf, size_t bufsz,
			 struct psym_reason *why);

/*
 * Kernel modules, through the kernel entry x: the first frame of a module
 * searches its .ko (kmods.c, with locate.h's module roots, the recorded
 * build ID and debuginfod) into a caller-owned record (psym_locside_push
 * for each candidate, then the answer), which psym_objtab_kmod_keep moves
 * into x (the first search kept wins; the record is emptied either way).
 * psym_objtab_kmod_known gives a later need (another run of a batch, the
 * kernel resolver reopened) the answer: 1 with the file (copied into
 * file, "" when none was usable, then why), 0 when not searched. t, x may
 * be NULL: nothing is known or kept.
 */
int psym_objtab_kmod_known(struct psym_objtab *t, struct psym_located *x, const char *module,
			   char *file, size_t filesz, struct psym_reason *why);
void psym_locside_push(struct psym_locside *s, const char *path, const char *verdict);
int psym_objtab_kmod_keep(struct psym_objtab *t, struct psym_located *x, const char *module,
			  struct psym_locside *s, struct psym_err *e);
void psym_locside_free(struct psym_locside *s);

/*
 * JIT code: the perf maps and jitdumps of each process in pids (locate.h's
 * psym_locate_perf_maps), recorded in x (a PSYM_MAP_ANON entry), with the
 * candidates that are missing. For the plan, which knows the profile's
 * processes. 0 or PSYM_ENOMEM.
 */
int psym_objtab_locate_perf_maps(struct psym_objtab *t, struct psym_located *x,
				 const struct psym_locate_opts *lo, const int *pids, size_t npids,
				 struct psym_err *e);

/*
 * The perf maps of pid recorded in x, in order, as psym_locate_perf_maps
 * gives them (fn returns true when the file loaded, to stop that kind of
 * file; each missing one before it, and each perf map loaded, recorded in
 * x->later for --explain); a pid the plan did not locate is located now,
 * with lo, into x.
 */
void psym_objtab_perf_maps(struct psym_objtab *t, struct psym_located *x,
			   const struct psym_locate_opts *lo, int pid, psym_perfmap_fn fn,
			   void *ud);

/* Entries in the order they were added. */
size_t psym_objtab_count(const struct psym_objtab *t);
struct psym_located *psym_objtab_at(struct psym_objtab *t, size_t i);

#endif
