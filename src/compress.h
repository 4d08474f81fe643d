/* SPDX-License-Identifier: MIT */
/*
 * Decompression with hard output caps (gzip/zlib here; other formats are
 * added by the readers that need them). A stream that would inflate past the
 * cap is an error (PSYM_ELIMIT), never an unbounded allocation.
 */
#ifndef PSYM_COMPRESS_H
#define PSYM_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

bool psym_is_gzip(const unsigned char *buf, size_t len);

/*
 * Inflate gzip data (concatenated members allowed) into a malloc'd buffer
 * of at most max bytes. name is used in messages.
 */
int psym_gunzip(const unsigned char *in, size_t len, size_t max, const char *name,
		unsigned char **out, size_t *outlen, struct psym_err *e);

/*
 * Decode an xz stream (e.g. MiniDebugInfo's .gnu_debugdata) into a
 * malloc'd buffer of at most max bytes; decoder memory is capped too.
 */
int psym_unxz(const unsigned char *in, size_t len, size_t max, const char *name,
	      unsigned char **out, size_t *outlen, struct psym_err *e);

/* Deterministic gzip (mtime 0) into a malloc'd buffer. */
int psym_gzip(const unsigned char *in, size_t len, unsigned char **out,
	      size_t *outlen, struct psym_err *e);

#endif
