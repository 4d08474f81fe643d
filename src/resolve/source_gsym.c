/* SPDX-License-Identifier: MIT */
/*
 * GSYM files as an answer source (source.h): the file named by --gsym
 * answers instead of the DWARF, or alone, without the binary; else, for a
 * binary without DWARF, one whose UUID is its build ID, in the debug dirs'
 * .build-id trees (DIR/.build-id/NN/REST.gsym) and then in the index store.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binary.h"
#include "gsym.h"
#include "source.h"
#include "store.h"

struct gsym_source {
	struct psym_gsym *g;
	char words[PATH_MAX + 32]; /* "lines from the GSYM file 'P'" */
};

/* Open a GSYM file; want: the build ID it must have (NULL: named, any). */
static int try_gsym(const struct psym_source_env *env, const char *path, const char *want,
		    void **out)
{
	struct psym_err e = { 0 };
	struct psym_gsym *g = NULL;
	struct gsym_source *s;
	struct psym_reason why = { 0 };

	if (psym_gsym_open(path, &g, &e) != 0) {
		if (want && e.code == PSYM_NOENT)
			return PSYM_NOENT;
		env->note(env->ud, e.msg, true);
		psym_reason_set(&why, PSYM_R_BAD_FILE, "%s", e.msg);
		env->tried(env->ud, PSYM_TRY_SOURCE, path, &why);
		return PSYM_NOENT;
	}
	if (want && strcmp(psym_gsym_uuid(g), want) != 0) {
		psym_reason_set(&why, PSYM_R_BUILD_ID_MISMATCH,
				"GSYM file of UUID %s, not %s: not used",
				psym_gsym_uuid(g)[0] ? psym_gsym_uuid(g) : "(none)", want);
		env->tried(env->ud, PSYM_TRY_SOURCE, path, &why);
		psym_gsym_close(g);
		return PSYM_NOENT;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		psym_gsym_close(g);
		return PSYM_NOENT;
	}
	env->used(env->ud, PSYM_TRY_SOURCE, path,
		  "GSYM file used (no columns, start lines or discriminators)", 0);
	s->g = g;
	snprintf(s->words, sizeof(s->words), "lines from the GSYM file '%s'", psym_gsym_path(g));
	*out = s;
	return 0;
}

/* Named: any UUID (the user's word; alone, nothing to check it against). */
static int gsym_open_named(const struct psym_source_env *env, const char *path, void **out)
{
	return try_gsym(env, path, NULL, out);
}

/* A GSYM file for the build ID: in the debug dirs' .build-id trees, then the store. */
static int gsym_open_found(const struct psym_source_env *env, void **out)
{
	const struct psym_locate_opts *l = env->o->locate;
	const char *bid = psym_elf_build_id(env->elf);
	char path[PATH_MAX];

	if (!bid || strlen(bid) < 4)
		return PSYM_NOENT;
	for (size_t i = 0; l && i < l->n_debug_dirs; i++) {
		snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s" PSYM_GSYM_SUFFIX,
			 l->debug_dirs[i], bid, bid + 2);
		if (access(path, F_OK) == 0 && try_gsym(env, path, bid, out) == 0)
			return 0;
	}
	if (env->o->index_store) {
		char why[1024]; /* found and checked by the store (store.h) */

		if (psym_index_store_gsym(env->o->index_store, bid, path, sizeof(path), why,
					  sizeof(why)) == 0)
			return try_gsym(env, path, bid, out);
		if (why[0]) {
			struct psym_reason r = { 0 };

			psym_reason_set(&r, PSYM_R_BAD_FILE, "%s", why);
			env->tried(env->ud, PSYM_TRY_SOURCE, path, &r);
			env->note(env->ud, why, true);
		}
	}
	return PSYM_NOENT;
}

static int gsym_lookup(void *st, uint64_t vaddr, struct psym_frame *frames, size_t max, size_t *n,
		       struct psym_err *e)
{
	struct gsym_source *s = st;

	return psym_gsym_lookup(s->g, vaddr, frames, max, n, e);
}

static void gsym_describe(const void *st, struct psym_resitem *it)
{
	const struct gsym_source *s = st;

	it->role = PSYM_RES_SOURCE;
	it->path = psym_gsym_path(s->g);
	it->note = s->words;
}

static void gsym_close(void *st)
{
	struct gsym_source *s = st;

	psym_gsym_close(s->g);
	free(s);
}

const struct psym_source_ops psym_source_gsym = {
	.kind = "gsym",
	.option = "gsym",
	.open_named = gsym_open_named,
	.alone = true,
	.open_found = gsym_open_found,
	.lookup = gsym_lookup,
	.describe = gsym_describe,
	.close = gsym_close,
};
