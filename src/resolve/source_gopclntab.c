/* SPDX-License-Identifier: MIT */
/*
 * Go's .gopclntab as an answer source (source.h): functions, files, lines
 * and inline frames of a Go binary without DWARF, and of the code its
 * DWARF has no function for (assembly, some runtime code).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "gopclntab.h"
#include "source.h"

struct gopclntab_source {
	struct psym_gopclntab *t;
	char words[200]; /* "symbols from .gopclntab (Go 1.20+ layout, no inline frames: why)" */
};

static int gopclntab_open(const struct psym_source_env *env, void **out)
{
	struct gopclntab_source *s;
	struct psym_gopclntab *t = NULL;
	struct psym_err e = { 0 };
	const char *path = psym_elf_path(env->elf), *noinl;
	int ret = psym_gopclntab_open_elf(env->elf, &t, &e);

	if (ret) {
		/* None there says nothing; a damaged one is worth saying. */
		if (e.msg[0]) {
			struct psym_reason why = { 0 };

			psym_reason_set(&why, PSYM_R_BAD_FILE, "%s", e.msg);
			env->note(env->ud, e.msg, false);
			env->tried(env->ud, PSYM_TRY_SOURCE, path, &why);
		}
		return PSYM_NOENT;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		psym_gopclntab_close(t);
		return PSYM_NOENT;
	}
	s->t = t;
	noinl = psym_gopclntab_no_inlines_why(t);
	snprintf(s->words, sizeof(s->words), "symbols from .gopclntab (%s layout%s%s)",
		 psym_gopclntab_layout(t), noinl ? ", no inline frames: " : "", noinl ? noinl : "");
	env->used(env->ud, PSYM_TRY_SOURCE, path, s->words, noinl ? PSYM_TRY_NO_INLINES : 0);
	*out = s;
	return 0;
}

static int gopclntab_lookup(void *st, uint64_t vaddr, struct psym_frame *frames, size_t max,
			    size_t *n, struct psym_err *e)
{
	struct gopclntab_source *s = st;

	return psym_gopclntab_lookup(s->t, vaddr, frames, max, n, e);
}

static int gopclntab_boundaries(void *st, uint64_t **out, size_t *n, struct psym_err *e)
{
	struct gopclntab_source *s = st;

	return psym_gopclntab_boundaries(s->t, out, n, e);
}

static void gopclntab_describe(const void *st, struct psym_resitem *it)
{
	const struct gopclntab_source *s = st;

	it->role = PSYM_RES_SOURCE;
	it->note = s->words;
	it->flags = psym_gopclntab_has_inlines(s->t) ? 0 : PSYM_RESITEM_NO_INLINES;
}

static void gopclntab_close(void *st)
{
	struct gopclntab_source *s = st;

	psym_gopclntab_close(s->t);
	free(s);
}

const struct psym_source_ops psym_source_gopclntab = {
	.kind = "gopclntab",
	.open_found = gopclntab_open,
	.fills_gaps = true,
	.of_binary = true, /* the binary's own table */
	.lookup = gopclntab_lookup,
	.boundaries = gopclntab_boundaries,
	.describe = gopclntab_describe,
	.close = gopclntab_close,
};
