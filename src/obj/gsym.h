/* SPDX-License-Identifier: MIT */
/*
 * GSYM files (LLVM's llvm-gsymutil --convert, format version 1) as a
 * symbol source: address -> function, inline chain, file:line.
 *
 * GSYM carries less than DWARF: no columns, no start (declaration)
 * lines, no discriminators, one name per function (the mangled name when
 * the DWARF had one, else a qualified name), and no linkage/display name
 * pair; answers from it therefore differ from DWARF answers there.
 *
 * The file is untrusted: mapped read-only, every table, offset, string
 * and LEB128 bounds-checked, inline nesting capped at PSYM_MAX_FRAMES.
 * Little-endian files only (what llvm-gsymutil writes on x86 and arm64).
 */
#ifndef PSYM_GSYM_H
#define PSYM_GSYM_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "frame.h"

#define PSYM_GSYM_SUFFIX ".gsym"

struct psym_gsym;

int psym_gsym_open(const char *path, struct psym_gsym **out, struct psym_err *e);
/* Over bytes in memory (borrowed; fuzzing). */
int psym_gsym_open_mem(const void *buf, size_t len, const char *name, struct psym_gsym **out,
		       struct psym_err *e);
void psym_gsym_close(struct psym_gsym *g);

const char *psym_gsym_path(const struct psym_gsym *g);
/* The UUID (the build ID) as lowercase hex, "" when the file has none. */
const char *psym_gsym_uuid(const struct psym_gsym *g);

/*
 * Frames for vaddr, innermost first, into f[max], *n set (0: not
 * covered). Returns 0 or PSYM_EBADINPUT (a damaged function record).
 * Strings live as long as g.
 */
int psym_gsym_lookup(struct psym_gsym *g, uint64_t vaddr, struct psym_frame *f, size_t max,
		     size_t *n, struct psym_err *e);

#endif
