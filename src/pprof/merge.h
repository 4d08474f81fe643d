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

#endif
