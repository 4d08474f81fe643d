/* SPDX-License-Identifier: MIT */
/*
 * perf.data as an input kind (in_perf.c): file and pipe mode, compressed
 * records, --call-graph dwarf stack copies for the unwinder (issue 50).
 */
#ifndef PSYM_IN_PERF_H
#define PSYM_IN_PERF_H

#include <stdbool.h>
#include <stddef.h>

#include "input.h"

extern const struct psym_input_kind psym_input_perf;

/* PERFILE2 in either byte order (a big-endian one is then refused in one line). */
bool psym_perf_sniff(const unsigned char *buf, size_t len);

#endif
