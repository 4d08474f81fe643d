/* SPDX-License-Identifier: MIT */
/*
 * libpsym: the public header used by the psym and psym-collect mains.
 *
 * Modules (one file pair each, see their headers for ownership rules):
 *   error    error codes, psym_strerror, struct psym_err
 *   arena    capped arena allocator (also the protobuf-c allocator)
 *   compress capped decompression
 *   fileio   regular-file-only input, atomic output
 *   pprof    profile read / validate / write
 *   builder  interning profile builder for writers
 *   show     text and JSON dumps
 *   buildid  GNU build IDs from notes, ELF files and the kernel
 */
#ifndef PSYM_H
#define PSYM_H

#include "arena.h"
#include "builder.h"
#include "buildid.h"
#include "deb.h"
#include "symbolize.h"
#include "compress.h"
#include "error.h"
#include "fileio.h"
#include "pprof.h"
#include "pprofpack.h"
#include "show.h"
#include "batch.h"

#endif
