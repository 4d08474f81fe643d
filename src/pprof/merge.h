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
 * With base[i] set, profile i is a diff base as pprof's -diff_base makes
 * one: its values negated and its samples labelled pprof::base=true.
 */
#ifndef PSYM_MERGE_H
#define PSYM_MERGE_H

#include <stdbool.h>

#include "pprof.h"

/* The label pprof puts on the samples of a diff base. */
#define PSYM_DIFF_BASE_LABEL "pprof::base"

/*
 * A new profile (*out, arena capped by lim) merged from in[0..n). names[i]
 * names profile i in errors; base may be NULL. PSYM_EBADPROFILE when the
 * types differ.
 */
int psym_profile_merge(struct psym_profile *const *in, const char *const *names, const bool *base,
		       size_t n, const struct psym_limits *lim, struct psym_profile **out,
		       struct psym_err *e);

#endif
