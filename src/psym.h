/* SPDX-License-Identifier: MIT */
/*
 * libpsym: the public header, the only one the psym and psym-collect mains
 * include. Each module's own header states ownership and lifetimes.
 *
 *   error, reason     error codes and psym_err; reasons as data
 *   arena, compress, fileio   capped memory, decompression, safe file I/O
 *   pprof, pprofpack, builder, show   profiles: read, validate, write, dump
 *   buildid, elffile  ELF facts
 *   locate            every rule for finding binaries and debug files
 *   resolver(s), registry   frames for addresses, one interface
 *   symbolize, batch  the driver, one profile or many
 *   report, crashlog  top/folded/flame; the crash-log filter
 *   collectprof       the collector's profile builder
 */
#ifndef PSYM_H
#define PSYM_H

#include "arena.h"
#include "batch.h"
#include "builder.h"
#include "collectprof.h"
#include "hostid.h"
#include "buildid.h"
#include "compress.h"
#include "crashlog.h"
#include "deb.h"
#include "demangle.h"
#include "error.h"
#include "fileio.h"
#include "locate.h"
#include "merge.h"
#include "pprof.h"
#include "pprofpack.h"
#include "readlimits.h"
#include "reason.h"
#include "registry.h"
#include "report.h"
#include "resolvers.h"
#include "show.h"
#include "symbolize.h"

#endif
