/* SPDX-License-Identifier: MIT */
/*
 * Building an object's index (index.h) from psym's own answers: the file
 * resolver's answer (binary.h) at every address where it may change,
 * equal neighbours merged. What the index answers is therefore what the
 * DWARF and symbol tables answer, byte for byte.
 */
#ifndef PSYM_BUILD_H
#define PSYM_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "binary.h"
#include "error.h"
#include "store.h"

struct psym_index_built {
	char build_id[PSYM_BUILD_ID_HEX_MAX];
	char path[4096]; /* where it was written (a temporary file for HTTP) */
	uint64_t size;	 /* bytes */
	double seconds;
	size_t boundaries, runs, groups;
};

/*
 * Build b's index into the store s. PSYM_NOENT (why in e) when b cannot be
 * indexed (no build ID, no complete DWARF), another process is building
 * it, or (unless again) the store already has a good one; other errors
 * negative. The build ID is claimed in the store before any work, so two
 * machines never build one index at once.
 */
int psym_index_build(struct psym_binary *b, struct psym_index_store *s, bool again,
		     struct psym_index_built *out, struct psym_err *e);

/*
 * The same in a detached background process (fork), from what b already
 * decoded: the caller goes on at once. Counted in the store's builds.
 */
void psym_index_build_background(struct psym_binary *b, struct psym_index_store *s);

#endif
