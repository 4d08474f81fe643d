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

#define PSYM_SHA256_HEX 65 /* 64 lowercase hex digits and '\0' */

void psym_sha256(const void *buf, size_t len, uint8_t out[32]);
/* The digest of buf as lowercase hex into hex[PSYM_SHA256_HEX]. */
void psym_sha256_hex(const void *buf, size_t len, char hex[PSYM_SHA256_HEX]);

#endif
