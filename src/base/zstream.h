/* SPDX-License-Identifier: MIT */
/*
 * Decompression as a stream, from one file descriptor to another, in
 * memory of its own size only (fixed buffers and the decoder: a zstd
 * window of at most 128 MiB, an xz decoder of at most 256 MiB): for
 * inputs too large to hold inflated, such as a compressed core, which is
 * inflated into a temporary file (fileio.h psym_anon_tmpfile) and read
 * from there. The output is capped: past max bytes, PSYM_ELIMIT naming
 * the cap and how to raise it.
 */
#ifndef PSYM_ZSTREAM_H
#define PSYM_ZSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum psym_zstream_kind {
	PSYM_ZS_NONE,
	PSYM_ZS_ZSTD,
	PSYM_ZS_XZ,
	PSYM_ZS_GZIP
};

/* The format the first bytes magic[0..len) start, or PSYM_ZS_NONE. */
enum psym_zstream_kind psym_zstream_sniff(const unsigned char *magic, size_t len);

/*
 * Decode the whole stream of format kind read from in (from its current
 * offset to its end; concatenated frames or members allowed) into out (at
 * its current offset), at most max bytes; *outlen is how many were
 * written. name is the input in messages, raise how to raise max ("--limit
 * core-bytes=N"). PSYM_EBADINPUT corrupt or truncated, PSYM_ELIMIT past
 * max or the decoder's memory cap, PSYM_EIO a read or write failed (a full
 * disk), PSYM_ENOMEM.
 */
int psym_zstream_to_fd(enum psym_zstream_kind kind, int in, int out, uint64_t max, const char *name,
		       const char *raise, uint64_t *outlen, struct psym_err *e);

#endif
