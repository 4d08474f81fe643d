/* SPDX-License-Identifier: MIT */
/*
 * Merging profiles as pprof's profile.Merge does (go tool pprof A B ...):
 * the same sample types and period type required; the header combined
 * (earliest time as pprof picks it, durations summed, largest period,
 * comments once, the first default sample type); mappings unified by
 * size (rounded to 4 KiB), offset and build ID (else file), functions by
 * name, system name, file and start line, locations by mapping, address
 * relative to the mapping's start and lines, samples by locations and
 * labels (values summed). Only what a non-zero sample uses is kept, in the
 * order samples reach it; the first profile's first mapping stays first.
 *
 * With role[i] PSYM_MERGE_DIFF_BASE, profile i is a diff base as pprof's
 * -diff_base makes one: its values negated and its samples labelled
 * pprof::base=true. With PSYM_MERGE_SUBTRACT, as pprof's -base: its values
 * negated, unlabelled, so its samples cancel the same stacks of the others
 * (those that sum to zero go).
 */
#ifndef PSYM_MERGE_H
#define PSYM_MERGE_H

#include <stdbool.h>

#include "pprof.h"

/* The label pprof puts on the samples of a diff base. */
#define PSYM_DIFF_BASE_LABEL "pprof::base"

enum psym_merge_role {
	PSYM_MERGE_ADD,
	PSYM_MERGE_DIFF_BASE,
	PSYM_MERGE_SUBTRACT,
};

/*
 * A new profile (*out, arena capped by lim) merged from in[0..n). names[i]
 * names profile i in errors; role may be NULL (every profile added).
 * PSYM_EBADPROFILE when the types differ.
 */
int psym_profile_merge(struct psym_profile *const *in, const char *const *names,
		       const enum psym_merge_role *role, size_t n, const struct psym_limits *lim,
		       struct psym_profile **out, struct psym_err *e);

/*
 * pprof's Profile.Normalize (-normalize): scale p's values in place, per
 * sample type, by base's sum over p's sum (0 when p's is 0), so p's total
 * is base's; each value rounded half away from zero, and samples whose
 * scaled values are all 0 dropped. PSYM_EBADPROFILE when the types differ
 * (names name the profiles in that error).
 */
int psym_profile_normalize(struct psym_profile *p, const char *name,
			   const struct psym_profile *base, const char *base_name,
			   struct psym_err *e);

#endif
