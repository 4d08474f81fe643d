/* SPDX-License-Identifier: MIT */
/*
 * Locating a symbolize run's plan: the objects its mappings need, each a
 * typed key of a located-object table (objtab.h), are located in one
 * pass before any is resolved. For debuginfod that is one parallel
 * request for all binaries no local candidate can supply; for JIT code,
 * the perf maps of the processes it can be in; with --explain, each
 * located object is said once.
 */
#ifndef PSYM_PLAN_H
#define PSYM_PLAN_H

#include <stddef.h>

#include "error.h"
#include "locate.h"
#include "objtab.h"

struct psym_plan {
	struct psym_located **obj; /* by mapping position (n of them); NULL: nothing to do */
	size_t n;
	struct psym_objtab *files_tab;		 /* binaries (a batch's, or own_tab) */
	struct psym_objtab *own_tab;		 /* the run's other objects */
	const struct psym_locate_opts *files_lo; /* how each table's keys are located */
	const struct psym_locate_opts *own_lo;
	const int *pids; /* the processes JIT code can be in (their perf maps) */
	size_t npids;
	/* --explain (NULL: not asked): a located file or vDSO, once, at its first mapping k. */
	void (*explain)(void *ud, size_t k, const struct psym_located *x);
	void *ud;
};

/* Locate every object of the plan. 0 or a negative code (detail in e). */
int psym_plan_locate(const struct psym_plan *pl, struct psym_err *e);

#endif
