/* SPDX-License-Identifier: MIT */
/*
 * The OpenTelemetry eBPF profiler's file identity for files without a GNU
 * build ID (its FileID, shipped as process.executable.build_id.htlhash):
 * SHA-256 over the file's first 4096 bytes, its last 4096 bytes (the whole
 * file twice when shorter) and its length as a big-endian u64, truncated to
 * 16 bytes, in lowercase hex. A mapping known by it carries the build ID
 * "htlhash:HEX" (not hex: it never reaches a .build-id path or debuginfod);
 * the locator checks each candidate file by this hash instead.
 */
#ifndef PSYM_HTLHASH_H
#define PSYM_HTLHASH_H

#include <stdbool.h>

#include "error.h"

#define PSYM_HTLHASH_PREFIX "htlhash:"
#define PSYM_HTLHASH_HEX 33 /* 32 hex digits and '\0' */

/* True when s is "htlhash:" and 32 hex digits. */
bool psym_build_id_is_htlhash(const char *s);

/* The hash of the regular file at path into hex. 0, or a negative code with e set. */
int psym_file_htlhash(const char *path, char hex[PSYM_HTLHASH_HEX], struct psym_err *e);

#endif
