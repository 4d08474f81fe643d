/* SPDX-License-Identifier: MIT */
/*
 * The symbolize driver: fills Function and Line entries into a profile.
 *
 * Prepare (pid labels, locations bucketed by mapping); plan: classify every
 * mapping once into the located-object table (objtab.h) and locate every
 * object in one pass; resolve: per mapping, open its resolver from the
 * table, turn each runtime address into the address the resolver takes
 * (to_vaddr) and ask for frames, innermost first. Frames become pprof
 * Lines whose Functions are interned (deduplicated) across the profile. A
 * per-mapping summary is returned as data, and so are --explain
 * (explain_fn) and the warnings and notes (note_fn).
 */
#ifndef PSYM_SYMBOLIZE_H
#define PSYM_SYMBOLIZE_H

#include <stdbool.h>
#include <stdio.h>

#include "binary.h"
#include "demangle.h"
#include "elffile.h"
#include "lean.h"
#include "locate.h"
#include "mapping.h"
#include "objtab.h"
#include "pprof.h"
#include "resdesc.h"
#include "unwindprof.h"

/*
 * What --explain says, as data, in the order it happens; the caller words
 * and prints it (cli/). The library writes none of it.
 */
enum psym_explain_kind {
	PSYM_EXPLAIN_OBJECT,  /* obj: a located object of the plan, once, before any is
			       * resolved (mapping_id: the first mapping naming it) */
	PSYM_EXPLAIN_TRIED,   /* path, verdict: a candidate tried when it was needed (a
			       * debug, alternate or kernel file, a perf map, an index,
			       * the symbol cache); split-DWARF files from the table after
			       * the mapping's lookups, before its DESC */
	PSYM_EXPLAIN_MAPPING, /* mapping_id, name, build_id: a file mapping about to be
			       * resolved */
	PSYM_EXPLAIN_DESC,    /* desc: what a mapping's resolver says of it, after */
};

struct psym_explain_ev {
	enum psym_explain_kind kind;
	uint64_t mapping_id;
	const char *name, *build_id;	 /* MAPPING */
	const struct psym_located *obj;	 /* OBJECT */
	const char *path, *verdict;	 /* TRIED */
	const struct psym_resdesc *desc; /* DESC */
};

/* A run's notes that are not --explain (not with quiet), as data; the caller words them. */
enum psym_note_kind {
	PSYM_NOTE_WARNING,	/* desc: what a mapping's resolver said, for its one-time
				* warning (psym_resdesc_warning; may be none) */
	PSYM_NOTE_MAIN_BINARY,	/* mapping_id, name: the mapping --main-binary applies to,
				* when not the first one (same_build_id: by build ID,
				* else the first user-space mapping) */
	PSYM_NOTE_SKIPPED,	/* name, skipped, records: a kallsyms copy, perf map or
				* jitdump read with malformed lines (records) skipped */
	PSYM_NOTE_SIDE_REFUSED, /* name, why: a side file refused (psym_side_file_refused) */
	PSYM_NOTE_NO_USTACKS,	/* name: the profile's user stacks need unwinding
				* (psym-collect --stack-copy) but its side dir has no such
				* file (PSYM_USTACKS_NAME):
				* only kernel frames and the leaf are known
				* (psym_symbolize_file) */
	PSYM_NOTE_UNWOUND,	/* unwound: the user stacks were unwound first, with these
				* counts (psym_symbolize_file) */
};

struct psym_note {
	enum psym_note_kind kind;
	uint64_t mapping_id;
	const char *name;
	bool same_build_id;
	const struct psym_resdesc *desc;
	size_t skipped;
	bool records;
	const struct psym_unwindprof_stats *unwound; /* UNWOUND */
	const char *why;			     /* SIDE_REFUSED */
};

struct psym_symbolize_opts {
	/*
	 * Where every file is looked for (binary path, sysroot, debug dirs,
	 * debuginfod, --vmlinux/--vdso/--kallsyms, perf map dirs, --dwo-dir,
	 * --dwp): the command's one set of discovery options, borrowed, never
	 * copied field by field. A run takes it as it is, adding only what is
	 * its own: the profile's side dir, --explain, the kernel release.
	 */
	const struct psym_locate_opts *locate;
	const char *main_binary;	  /* overrides the first mapping, or NULL */
	bool no_inlines;		  /* physical functions only */
	enum psym_demangle_mode demangle; /* how Function.name is made from the
					   * system name (pprof's modes) */
	bool adjust_callers;		  /* look up address-1 for caller-only locations */
	bool force;			  /* replace existing lines */
	const char *side_dir;		  /* the collector's IN.d/ (kallsyms, vdso.so,
					 * perf-PID.map), or NULL */
	const char *const *perf_maps;	  /* perf maps / jitdumps for every process */
	size_t n_perf_maps;
	bool perf_map_dirs_default; /* locate->perf_map_dirs is this machine's
					   * default (/tmp), not named: used only
					   * for a profile recorded here (hostid.h) */
	int pid;		    /* process of a single-process profile, or 0 */
	bool explain;		    /* list every candidate tried */
	bool quiet;		    /* no per-mapping summary (--explain: candidates only) */
	/*
	 * With explain: each --explain event, for the caller to print. NULL:
	 * none. Called on the run's thread.
	 */
	void (*explain_fn)(void *ud, const struct psym_explain_ev *ev);
	void *explain_ud;
	/* Each note (not with quiet), for the caller to print. NULL: none. */
	void (*note_fn)(void *ud, const struct psym_note *n);
	void *note_ud;
	/*
	 * Called every 1024 locations with the mapping position, the number
	 * of mappings and the locations resolved so far; with nmappings 0
	 * before a note or --explain event (a progress line is to be
	 * cleared). NULL: none. The caller decides what to show, and how.
	 */
	void (*progress)(void *ud, size_t mapping, size_t nmappings, size_t resolved);
	void *progress_ud;
	struct psym_reader_limits limits;     /* caps for every reader (readlimits.h) */
	struct psym_bincache *shared;	      /* binaries shared by a batch's runs, or NULL */
	const char *cache_dir;		      /* persistent symbol cache (symcache.h), NULL: off */
	struct psym_index_store *index_store; /* per-build-ID indexes (store.h), NULL: off */
	/*
	 * Output format of psym_symbolize_file: NULL or "pprof", or "otlp"
	 * (an OTLP input written back with its lines, any other converted:
	 * otlp.h), always raw protobuf.
	 */
	const char *out_format;
};

struct psym_bincache; /* bincache.h */

/* One mapping's outcome, for the summary the caller prints. */
struct psym_mapsum {
	uint64_t id;
	char *name; /* the mapping's file name (owned by the result) */
	enum psym_map_class cls;
	size_t done, todo, kept;     /* todo 0: all its locations had lines, kept */
	bool opened;		     /* an object answered for it */
	bool unverified;	     /* opened, but matched by path alone: the mapping
				      * has no build ID and the user named no file */
	char *from;		     /* where the answers came from (describe), or NULL */
	struct psym_reason_kept why; /* why none, or why some, were resolved */
};

struct psym_symbolize_result {
	size_t locations;	 /* locations looked at */
	size_t resolved;	 /* given lines by this run */
	size_t kept;		 /* already had lines, kept */
	size_t unresolved_file;	 /* of file-backed mappings, left unresolved */
	size_t unresolved_other; /* of other mappings (kernel, JIT, ...) */
	size_t no_mapping;	 /* locations without a mapping (in unresolved_other too) */
	size_t unverified;	 /* file mappings answered from a file matched by path
				  * alone (no build ID in the profile, none named) */
	/* Per mapping, in profile order (none with quiet): free with psym_symbolize_result_free. */
	struct psym_mapsum *maps;
	size_t nmaps;
	size_t indexes_built; /* per-build-ID indexes built (or started in the
				  * background) for this run's objects */
};

/* Frees the result's per-mapping outcomes (the counts stay). */
void psym_symbolize_result_free(struct psym_symbolize_result *r);

/*
 * The locator's options for one run: o->locate as it is, with the
 * profile's side dir (borrowing from o).
 */
void psym_symbolize_locate_opts(const struct psym_symbolize_opts *o, struct psym_locate_opts *lo);

/* The profile must have been validated (psym_lean_validate). */
int psym_symbolize(struct psym_lean *lp, const struct psym_symbolize_opts *o,
		   struct psym_symbolize_result *r, struct psym_err *e);

#endif
