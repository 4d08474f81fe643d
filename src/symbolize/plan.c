/* SPDX-License-Identifier: MIT */
/* Locating a symbolize run's plan (plan.h). */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buildid.h"
#include "debuginfod.h"
#include "hashtab.h"
#include "plan.h"

/* A local candidate exists for the binary of k (no file is opened). */
static bool local_candidate(void *ud, const char *path, enum psym_cand_rule rule)
{
	struct stat st;

	(void)ud;
	(void)rule;
	return stat(path, &st) == 0;
}

/*
 * Binaries are located before any is resolved; for debuginfod that
 * means one parallel request, before the locate pass, for all binaries
 * that no local candidate (search dirs, sysroot, .build-id trees) can
 * supply, executable and debug file, under the session's one deadline.
 * The answers land in debuginfod's cache, where the locate pass (and a
 * binary's later search for its debug file) then find them at once.
 * Without this, objects were fetched one after another.
 */
static void prefetch_debuginfod(const struct psym_plan *pl)
{
	const struct psym_locate_opts *lo = pl->files_lo;
	struct psym_debuginfod_req *reqs;
	struct psym_err e = { 0 };
	char(*ids)[PSYM_BUILD_ID_HEX_MAX];
	size_t n = 0;

	if (!lo || !lo->debuginfod || !pl->n)
		return;
	reqs = calloc(pl->n * 2, sizeof(*reqs));
	ids = calloc(pl->n, sizeof(*ids));
	if (!reqs || !ids) {
		free(reqs);
		free(ids);
		return; /* the per-object lookups still ask */
	}
	for (size_t k = 0; k < pl->n; k++) {
		const struct psym_located *x = pl->obj[k];
		const char *bid = x ? x->build_id : "";
		char path[4200];
		struct psym_objkey key = { .path = x ? x->path : NULL, .build_id = bid };
		bool local = false, dup = false;

		if (!x || x->located || x->cls != PSYM_MAP_FILE || x->named || !*bid ||
		    !psym_build_id_valid(bid))
			continue;
		for (size_t i = 0; i < n && !dup; i++)
			dup = psym_build_id_equal(reqs[i].build_id, bid);
		if (dup || psym_locate_binary_candidates(lo, &key, local_candidate, NULL))
			continue;
		for (size_t i = 0; i < lo->n_debug_dirs && !local; i++)
			local = psym_build_id_path(lo->debug_dirs[i], bid, "", path,
						   sizeof(path)) &&
				local_candidate(NULL, path, PSYM_CAND_TREE);
		if (local || strlen(bid) >= sizeof(ids[0]))
			continue;
		strcpy(ids[n / 2], bid);
		psym_build_id_lower(ids[n / 2]); /* debuginfod's URLs are lowercase */
		reqs[n].build_id = reqs[n + 1].build_id = ids[n / 2];
		reqs[n].kind = PSYM_DEBUGINFOD_EXECUTABLE;
		reqs[n + 1].kind = PSYM_DEBUGINFOD_DEBUGINFO;
		n += 2;
	}
	if (n > 2) /* one object is asked for by its own lookup just as fast */
		psym_debuginfod_fetch(lo->debuginfod, reqs, n, &e);
	psym_debuginfod_reqs_free(reqs, n);
	free(reqs);
	free(ids);
}

/*
 * The plan's object at mapping k is met for the first time (each object is
 * said, or located, once): a set of the objects met, keyed by the pointer's
 * bytes in the plan (a scan of the mappings before each was quadratic:
 * 200,000 mappings are 2e10 comparisons). Out of memory, an object may be
 * met twice.
 */
static bool first_time(const struct psym_plan *pl, struct psym_hashtab *met, size_t k)
{
	struct psym_err e = { 0 };

	if (psym_hashtab_get(met, &pl->obj[k], sizeof(pl->obj[k]), NULL) == 0)
		return false;
	psym_hashtab_put(met, &pl->obj[k], sizeof(pl->obj[k]), pl->obj[k], &e);
	return true;
}

/* --explain: the located-object table, each object once, as located. */
static void explain_table(const struct psym_plan *pl)
{
	struct psym_hashtab met;

	psym_hashtab_init(&met, 0);
	for (size_t k = 0; k < pl->n; k++) {
		const struct psym_located *x = pl->obj[k];

		if (!x || !x->located || (x->cls != PSYM_MAP_FILE && x->cls != PSYM_MAP_VDSO))
			continue;
		if (first_time(pl, &met, k))
			pl->explain(pl->ud, k, x);
	}
	psym_hashtab_free(&met);
}

/*
 * JIT code: the perf maps of the processes its addresses can be in, into
 * its entry. For a profile of another machine, own_lo holds no perf map
 * dirs of this one (symbolize.c's setup): nothing of this machine's is
 * located.
 */
static int locate_perf_maps(const struct psym_plan *pl, struct psym_err *e)
{
	struct psym_hashtab met;
	int ret = 0;

	psym_hashtab_init(&met, 0);
	for (size_t k = 0; k < pl->n && !ret; k++) {
		struct psym_located *x = pl->obj[k];

		if (!x || x->cls != PSYM_MAP_ANON || !first_time(pl, &met, k))
			continue;
		ret = psym_objtab_locate_perf_maps(pl->own_tab, x, pl->own_lo, pl->pids, pl->npids,
						   e);
	}
	psym_hashtab_free(&met);
	return ret;
}

int psym_plan_locate(const struct psym_plan *pl, struct psym_err *e)
{
	int ret;

	prefetch_debuginfod(pl);
	ret = psym_objtab_locate(pl->files_tab, pl->files_lo, e);
	if (!ret && pl->own_tab != pl->files_tab)
		ret = psym_objtab_locate(pl->own_tab, pl->own_lo, e);
	if (!ret)
		ret = locate_perf_maps(pl, e);
	if (!ret && pl->explain)
		explain_table(pl);
	return ret;
}
