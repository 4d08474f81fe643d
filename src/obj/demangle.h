/* SPDX-License-Identifier: MIT */
/* Demangling of Itanium C++ and Rust (legacy and v0) names, via libiberty. */
#ifndef PSYM_DEMANGLE_H
#define PSYM_DEMANGLE_H

#include "psym.h"

/*
 * psym_demangle, psym_demangle_gnu, enum psym_demangle_mode,
 * psym_demangle_mode_parse: psym.h.
 */

/*
 * pprof's name for a function whose system name is sys, in mode: a
 * mangled name demangled and simplified; any other name that looks like
 * demangled C++ (has "::", "<>" or "[]") with its parentheses (SIMPLE,
 * TEMPLATES) and angle brackets (SIMPLE) removed, as pprof's heuristic
 * does. A malloc'd string (caller frees), or NULL when the name is sys
 * itself (or memory is short).
 */
char *psym_demangle_as(const char *sys, enum psym_demangle_mode mode);

#endif
