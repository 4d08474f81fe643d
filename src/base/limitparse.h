/* SPDX-License-Identifier: MIT */
/*
 * Named caps set with `--limit NAME=N`: the parser, for any struct of
 * size_t / uint64_t fields described by a table. The caps themselves are
 * their readers' (obj/readlimits.h gathers them); base knows none.
 */
#ifndef PSYM_LIMITPARSE_H
#define PSYM_LIMITPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"

enum psym_limit_kind {
	PSYM_LIMIT_SIZE, /* a size_t field */
	PSYM_LIMIT_U64,	 /* a uint64_t field */
};

/* One named cap: where it lives in the struct, its default, what it bounds. */
struct psym_limit_def {
	const char *name;
	enum psym_limit_kind kind;
	size_t off;
	unsigned long long def;
	const char *what;
};

/* Every field of the table at base set to its default. */
void psym_limits_defaults(const struct psym_limit_def *defs, size_t n, void *base);
/* Apply "NAME=N" (N with optional K/M/G suffix); PSYM_EUSAGE when bad. */
int psym_limits_set(const struct psym_limit_def *defs, size_t n, void *base, const char *spec,
		    struct psym_err *e);
/* One line per cap: name, current value, what it bounds. */
void psym_limits_print(const struct psym_limit_def *defs, size_t n, const void *base, FILE *out);

#endif
