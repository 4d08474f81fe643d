/* SPDX-License-Identifier: MIT */
/*
 * From the collector's stack-copy side file to a profile: every sample's
 * user stack is unwound with the CFI of the files its process had mapped
 * (found through psym's usual lookups: paths, build IDs, debug dirs,
 * debuginfod, the saved vDSO), then added with its kernel stack to a
 * collector profile builder (collectprof.h), which aggregates identical
 * stacks and records callers as return address - 1.
 */
#ifndef PSYM_UNWIND_UNWINDPROF_H
#define PSYM_UNWIND_UNWINDPROF_H

#include <stdbool.h>
#include <stdio.h>

#include "cfi.h"
#include "collectprof.h"
#include "locate.h"
#include "pprof.h"
#include "unwind.h"
#include "ustacks.h"

struct psym_unwindprof_opts {
	const struct psym_locate_opts *locate; /* NULL: paths as recorded only */
	struct psym_cfi_limits cfi;
	size_t max_frames;     /* 0: 512 */
	uint64_t sample_steps; /* CFA steps per sample (--limit unwind-sample-steps); 0: none */
	uint64_t run_steps;    /* CFA steps for the run (--limit unwind-steps); 0: none */
};

struct psym_unwindprof_stats {
	size_t samples, frames, cfi_frames, fp_frames;
	size_t no_maps;			  /* samples of a process with no PROCESS record */
	size_t stops[PSYM_UNWIND_NSTOPS]; /* why each sample's unwinding ended */
	size_t files, files_missing;	  /* objects looked for, not found */
	size_t max_stack_len;		  /* the largest stack copy of a sample (bytes) */
	char missing[4][256];		  /* the first files not found, with their reason */
	size_t nmissing;
	uint64_t steps;	      /* CFA instructions run in all */
	char budget_why[160]; /* the first budget stop's reason */
};

/* The comment psym-collect --stack-copy puts into its provisional profile. */
#define PSYM_USTACKS_COMMENT                                                                       \
	"psym-collect: user stacks need unwinding: stack copies in OUT.d/ustacks.gz"

/* True when the profile carries PSYM_USTACKS_COMMENT. */
bool psym_unwindprof_needed(const struct psym_profile *p);

/*
 * The profile with every sample of the side file unwound: period, times
 * and the kernel mapping (its range and build ID) come from in, the
 * samples and the user mappings from the side file. *out is a new
 * profile (validated), the caller's to free.
 */
int psym_unwindprof_profile(const struct psym_profile *in, const char *side_file,
			    const struct psym_unwindprof_opts *o, const struct psym_limits *lim,
			    struct psym_profile **out, struct psym_unwindprof_stats *st,
			    struct psym_err *e);

/*
 * Records from elsewhere than a side file (perf.data's --call-graph dwarf
 * samples, src/input/): fn delivers them to ops as psym_ustacks_read()
 * does, PROCESS records before the samples they cover.
 */
struct psym_unwindprof_src {
	int (*fn)(void *ud, const struct psym_ustacks_reader_ops *ops, void *ops_ud,
		  struct psym_err *e);
	void *ud;
};

/* psym_unwindprof_profile() from side_file, or from src when side_file is NULL. */
int psym_unwindprof_profile_from(const struct psym_profile *in, const char *side_file,
				 const struct psym_unwindprof_src *src,
				 const struct psym_unwindprof_opts *o,
				 const struct psym_limits *lim, struct psym_profile **out,
				 struct psym_unwindprof_stats *st, struct psym_err *e);

#endif
