/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols from a copy of /proc/kallsyms ("ADDR TYPE NAME [MODULE]"),
 * taken where the profile was collected. Text symbols only (t, T, w, W),
 * module symbols included; each extends to the next symbol. Streaming
 * parse with a fixed line buffer; entries capped. A copy whose addresses
 * are all zero (read without privileges) is an error, not an empty table.
 */
#ifndef PSYM_KALLSYMS_H
#define PSYM_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "frame.h"

struct psym_kallsyms;

/*
 * max_symbols 0: the default (16 M); max_bytes 0: the default (256 MiB), a
 * bigger file is refused (PSYM_ELIMIT) before it is read, /proc/kallsyms
 * (no size) when it passes the cap.
 */
int psym_kallsyms_open(const char *path, size_t max_symbols, size_t max_bytes,
		       struct psym_kallsyms **out, struct psym_err *e);
int psym_kallsyms_parse(const char *text, size_t len, const char *name, struct psym_kallsyms **out,
			struct psym_err *e);
void psym_kallsyms_free(struct psym_kallsyms *k);

/*
 * Kernel function at addr: frame->name is the symbol; for a module symbol
 * frame->file is "[module]" (how perf names the object). 0 or PSYM_NOENT.
 * Strings live as long as k.
 */
int psym_kallsyms_lookup(struct psym_kallsyms *k, uint64_t addr, struct psym_frame *frame);

/*
 * Every symbol of kernel module module (no brackets), through fn, in one
 * scan: a module's few hundred symbols without a scan per name.
 */
void psym_kallsyms_each_of_module(const struct psym_kallsyms *k, const char *module,
				  void (*fn)(void *ud, const char *name, uint64_t addr), void *ud);

/* Address of _text (or _stext), 0 when absent: KASLR relocation base. */
uint64_t psym_kallsyms_text_addr(const struct psym_kallsyms *k);
/* Lines that are not "ADDR TYPE NAME [MODULE]" (skipped). */
size_t psym_kallsyms_malformed(const struct psym_kallsyms *k);

#endif
