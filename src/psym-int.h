/* SPDX-License-Identifier: MIT */
/*
 * libpsym's internal umbrella: the public header (psym.h) and every
 * module header the library's own programs drive directly. psym-collect
 * (BPF-collector/), the unit tests and the fuzz targets include it; psym's
 * main (cli/) includes psym.h only (scripts/check-api). Each module's own
 * header states ownership and lifetimes.
 *
 *   error, reason     error codes and psym_err; reasons as data
 *   arena, compress, fileio   capped memory, decompression, safe file I/O
 *   input             the front door: every input kind psym reads, one table
 *   pprof, pprofpack, builder, show   profiles: read, validate, write, dump
 *   buildid, elffile  ELF facts
 *   locate            every rule for finding binaries and debug files
 *   objtab            the located-object table: the plan of a run
 *   resolver(s), registry   frames for addresses, one interface
 *   symbolize, batch  the driver, one profile or many
 *   report, crashlog  top/folded/flame; the crash-log filter
 *   collectprof       the collector's profile builder
 */
#ifndef PSYM_INT_H
#define PSYM_INT_H

#include "psym.h"

#include "arena.h"
#include "array.h"
#include "archive.h"
#include "batch.h"
#include "bincache.h"
#include "builder.h"
#include "collectprof.h"
#include "hostid.h"
#include "kmod.h"
#include "kmods.h"
#include "buildid.h"
#include "compress.h"
#include "crashlog.h"
#include "deb.h"
#include "demangle.h"
#include "error.h"
#include "fileio.h"
#include "locate.h"
#include "merge.h"
#include "modset.h"
#include "objtab.h"
#include "lean.h"
#include "pprof.h"
#include "pprofpack.h"
#include "profread.h"
#include "readlimits.h"
#include "reason.h"
#include "registry.h"
#include "report.h"
#include "resdesc.h"
#include "resolvers.h"
#include "show.h"
#include "sidenames.h"
#include "symbolize.h"
#include "stack.h"
#include "build.h"
#include "index.h"
#include "input.h"
#include "otlp.h"
#include "store.h"

#endif
