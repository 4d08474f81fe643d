/* SPDX-License-Identifier: MIT */
#ifndef PSYM_INPUT_LOOKS_H
#define PSYM_INPUT_LOOKS_H

#include <stddef.h>

/*
 * What buf (a file's first len bytes, gzip undone) looks like, for "not a
 * profile" messages: "an ELF core file (psym stack reads cores)", "a
 * perf.data file (PERFILE2)", ...; NULL when its bytes name nothing.
 */
const char *psym_input_looks_like(const unsigned char *buf, size_t len);

#endif
