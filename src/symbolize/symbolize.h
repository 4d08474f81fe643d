/* SPDX-License-Identifier: MIT */
/*
 * The symbolize driver: fills Function and Line entries into a profile.
 *
 * Per mapping: classify it, find its binary (binfind), then for each of its
 * locations turn the runtime address into an ELF virtual address (per
 * address, through the PT_LOAD segments) and ask the resolvers for frames,
 * innermost first. Frames become pprof Lines whose Functions are interned
 * (deduplicated) across the profile. A per-mapping summary goes to the log.
 */
#ifndef PSYM_SYMBOLIZE_H
#define PSYM_SYMBOLIZE_H

#include <stdbool.h>
#include <stdio.h>

#include "binary.h"
#include "elffile.h"
#include "locate.h"
#include "pprof.h"

struct psym_symbolize_opts {
	const char *const *binary_path; /* --binary-path dirs + $PPROF_BINARY_PATH */
	size_t n_binary_path;
	const char *sysroot;	       /* NULL = "/" */
	const char *main_binary;       /* overrides the first mapping, or NULL */
	const char *const *debug_dirs; /* separate debug files, in order */
	size_t n_debug_dirs;
	struct psym_debuginfod *debuginfod; /* session (debuginfod.h), NULL: none */
	bool no_inlines;		    /* physical functions only */
	bool no_demangle;		    /* keep mangled names as Function.name */
	bool adjust_callers;		    /* look up address-1 for caller-only locations */
	bool force;			    /* replace existing lines */
	const char *side_dir;		    /* the collector's IN.d/ (kallsyms, vdso.so,
					 * perf-PID.map), or NULL */
	const char *kallsyms;		    /* copy of /proc/kallsyms, or NULL */
	const char *vdso;		    /* saved vDSO image, or NULL */
	const char *vmlinux;		    /* kernel image with symbols/DWARF, or NULL
					 * (else found by the kernel's build ID) */
	const char *const *perf_maps;	    /* perf maps / jitdumps for every process */
	size_t n_perf_maps;
	const char *const *perf_map_dirs; /* where perf-PID.map / jit-PID.dump live */
	size_t n_perf_map_dirs;
	bool perf_map_dirs_default;	  /* perf_map_dirs is this machine's default
					   * (/tmp), not named: used only for a
					   * profile recorded here (hostid.h) */
	int pid;			  /* process of a single-process profile, or 0 */
	bool explain;			  /* list every candidate tried */
	bool quiet;			  /* no per-mapping summary */
	bool progress;			  /* progress line on the log (a terminal) */
	FILE *log;			  /* summary stream (stderr); NULL = none */
	struct psym_reader_limits limits; /* caps for every reader (readlimits.h) */
	struct psym_bincache *shared;	  /* binaries shared by a batch's runs, or NULL */
	const char *cache_dir;		  /* persistent symbol cache (symcache.h), NULL: off */
	struct psym_index_store *index_store; /* per-build-ID indexes (store.h), NULL: off */
};

/*
 * Binaries opened once and shared by several psym_symbolize() calls, also
 * from several threads at once (a batch). Made from the options every run
 * of the batch shares (debug dirs, debuginfod, limits, inlines); those must
 * outlive it. --explain output is not given for shared binaries.
 */
struct psym_bincache;
struct psym_bincache *psym_bincache_new(const struct psym_symbolize_opts *o);
void psym_bincache_free(struct psym_bincache *c);

struct psym_symbolize_result {
	size_t locations;	 /* locations looked at */
	size_t resolved;	 /* given lines by this run */
	size_t kept;		 /* already had lines, kept */
	size_t unresolved_file;	 /* of file-backed mappings, left unresolved */
	size_t unresolved_other; /* of other mappings (kernel, JIT, ...) */
	size_t indexes_built;	 /* per-build-ID indexes built (or started in the
				  * background) for this run's objects */
};

/* The locator's options from the symbolize options (borrowing from both). */
void psym_symbolize_locate_opts(const struct psym_symbolize_opts *o,
				const struct psym_reader_limits *l, struct psym_locate_opts *lo);

/* The profile must have been validated. */
int psym_symbolize(struct psym_profile *p, const struct psym_symbolize_opts *o,
		   struct psym_symbolize_result *r, struct psym_err *e);

#endif
