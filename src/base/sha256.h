/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4) of a buffer: the content hash that names a side
 * file psym-collect shares between profiles (a kallsyms copy per boot),
 * checked again by psym on what it reads.
 */
#ifndef PSYM_SHA256_H
#define PSYM_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define PSYM_SHA256_HEX 65 /* 64 lowercase hex digits and '\0' */

void psym_sha256(const void *buf, size_t len, uint8_t out[32]);
/* The digest of buf as lowercase hex into hex[PSYM_SHA256_HEX]. */
void psym_sha256_hex(const void *buf, size_t len, char hex[PSYM_SHA256_HEX]);
/*
 * Is buf's digest want (lowercase hex, as a content-addressed name gives
 * it)? 0, or PSYM_EBADINPUT with "'PATH': content has SHA-256 ..., its
 * name says ...: not this WHAT, refused".
 */
int psym_sha256_verify(const void *buf, size_t len, const char *want, const char *path,
		       const char *what, struct psym_err *e);

#endif
