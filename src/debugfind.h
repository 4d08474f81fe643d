/* SPDX-License-Identifier: MIT */
/*
 * Finding separate debug files, in GDB's and elfutils' conventions:
 *
 *   1. DEBUGDIR/.build-id/NN/REST.debug for each debug dir, when the binary
 *      has a build ID (the candidate's own build ID must match);
 *   2. the .gnu_debuglink name in the binary's directory, in its .debug/
 *      subdirectory, and as DEBUGDIR/<binary's directory>/NAME for each
 *      debug dir (build ID checked when both have one, else the CRC32).
 *
 * Every place looked at is reported through an optional explain callback,
 * so `psym symbolize --explain` can show why a frame stayed an address.
 */
#ifndef PSYM_DEBUGFIND_H
#define PSYM_DEBUGFIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Called for each candidate: path tried and what was found there. */
typedef void (*psym_explain_fn)(void *ud, const char *path, const char *verdict);

struct psym_debugfind_opts {
	const char *const *dirs; /* debug dirs, searched in order */
	size_t n_dirs;
	psym_explain_fn explain; /* may be NULL */
	void *explain_ud;
};

/* What is known of the binary whose debug file is wanted. */
struct psym_debug_key {
	const char *build_id;    /* lowercase hex, or NULL */
	const char *binary_path; /* where the binary was found, or NULL */
	const char *debuglink;   /* .gnu_debuglink file name, or NULL */
	uint32_t debuglink_crc;  /* its CRC32 */
};

/*
 * Find the debug file. Returns 0 with *path (malloc'd, caller frees),
 * PSYM_NOENT when no candidate fits, or a negative error (ENOMEM).
 */
int psym_debugfind(const struct psym_debugfind_opts *o, const struct psym_debug_key *k,
		   char **path, struct psym_err *e);

/* DIR/.build-id/NN/REST.debug into buf; false if build_id is not sane hex. */
bool psym_build_id_path(const char *dir, const char *build_id, const char *suffix,
			char *buf, size_t bufsz);

/* CRC32 (the .gnu_debuglink polynomial, zlib's) of a whole regular file. */
int psym_file_crc32(const char *path, uint32_t *crc, struct psym_err *e);

#endif
