/* SPDX-License-Identifier: MIT */
/*
 * Decompression with hard output caps: gzip and xz into buffers of at most
 * a cap (a stream that would inflate past it is an error, PSYM_ELIMIT,
 * never an unbounded allocation), and zlib / zstd streams of a known size
 * (compressed ELF sections) into the caller's buffer.
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

/*
 * Decode zstd frames laid end to end (a compressed kernel module, a
 * systemd-coredump core) into a malloc'd buffer of at most max bytes; the
 * decoder's window is capped at 2^27 too.
 */
int psym_unzstd(const unsigned char *in, size_t len, size_t max, const char *name,
		unsigned char **out, size_t *outlen, struct psym_err *e);

/* Stream formats of psym_decompress_into(): the ELFCOMPRESS_* values. */
enum psym_zformat {
	PSYM_ZLIB = 1,
	PSYM_ZSTD = 2
};

/*
 * One-shot decoding of a whole zlib (RFC 1950) or zstd stream into the
 * caller's buffer out[cap] (which may be mmap'd, and filled on another
 * thread: this allocates only the decoder and sets no psym_err, so the
 * caller words the message). *got is the number of bytes decoded.
 * PSYM_EBADINPUT when the stream is corrupt or would decode past cap,
 * PSYM_ENOMEM when no decoder could be made.
 */
int psym_decompress_into(enum psym_zformat f, const void *in, size_t len, void *out, size_t cap,
			 size_t *got);

/* Deterministic gzip (mtime 0) into a malloc'd buffer. */
int psym_gzip(const unsigned char *in, size_t len, unsigned char **out, size_t *outlen,
	      struct psym_err *e);

/* One zstd frame of in at level (1..19; the frame records its size). */
int psym_zstd(const unsigned char *in, size_t len, int level, unsigned char **out, size_t *outlen,
	      struct psym_err *e);

/*
 * Append in, compressed as one more gzip member (as psym_gzip), to the
 * malloc'd buffer *out of *outlen bytes and capacity *outcap (all 0/NULL
 * to start), growing it. Members laid end to end are one gzip stream to
 * every reader.
 */
int psym_gzip_append(const unsigned char *in, size_t len, unsigned char **out, size_t *outlen,
		     size_t *outcap, struct psym_err *e);

#endif
