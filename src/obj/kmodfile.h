/* SPDX-License-Identifier: MIT */
/*
 * A kernel module's file, below the ELF reader: its names (.ko, and the
 * compressed forms kmod installs: .ko.xz, .ko.zst, .ko.gz) and the
 * decompression of a compressed one into an ELF image. elffile.c opens a
 * compressed module with it; kmod.h finds and places modules.
 */
#ifndef PSYM_KMODFILE_H
#define PSYM_KMODFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* Default cap on a decompressed module: 1 GiB (amdgpu.ko with DWARF is ~0.5). */
#define PSYM_KMOD_MAX_BYTES ((size_t)1 << 30)

/* True for a name ending in .ko, .ko.xz, .ko.zst or .ko.gz. */
bool psym_kmod_name_is(const char *path);

/* Length of path[n]'s module extension (.ko.debug too), 0 when it has none. */
size_t psym_kmod_ext_len(const char *path, size_t n);

/*
 * Decompress a module (xz, zstd or gzip by their magic bytes) into a
 * malloc'd *out[*outlen] of at most max bytes (0: PSYM_KMOD_MAX_BYTES),
 * and at most 64 times len plus 64 MiB (no module compresses better: a
 * bomb is refused early). PSYM_ELIMIT past those, PSYM_NOENT when buf is
 * not one of these formats, PSYM_EBADELF when it decompresses to no ELF
 * file.
 */
int psym_kmod_decompress(const char *path, const unsigned char *buf, size_t len, size_t max,
			 unsigned char **out, size_t *outlen, struct psym_err *e);

#endif
