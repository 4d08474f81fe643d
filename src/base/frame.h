/* SPDX-License-Identifier: MIT */
/*
 * One symbolized frame: what becomes a pprof Line and its Function.
 *
 * Resolvers (resolver.h) return arrays of at most PSYM_MAX_FRAMES frames
 * innermost first: frames[0] is the innermost inlined function, the last
 * one the function that physically contains the address (pprof's order for
 * Location.line). Strings are borrowed from the resolver that produced
 * them and live as long as it does (or until its next lookup, as its
 * header says).
 */
#ifndef PSYM_FRAME_H
#define PSYM_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "psym.h"

/* The most frames one address gets (a deeper inline chain is cut). */
#define PSYM_MAX_FRAMES 256

/* struct psym_frame: psym.h. */

#endif
