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

/* The most frames one address gets (a deeper inline chain is cut). */
#define PSYM_MAX_FRAMES 256

struct psym_frame {
	const char *name;	  /* name as the source spells it (DW_AT_name,
				   * symbol name, JIT name); never NULL from a
				   * resolver ("" when unknown); the DWARF reader
				   * itself gives NULL for unnamed DIEs */
	const char *linkage_name; /* mangled/system name, NULL when none */
	const char *file;	  /* source file of `line`, NULL if unknown */
	int64_t line;		  /* 0 if unknown */
	int64_t column;		  /* 0 if unknown */
	int64_t start_line;	  /* line of the function's declaration, 0 if unknown */
	const char *start_file;	  /* its file (DW_AT_decl_file, as llvm-symbolizer
				   * reads it), NULL if unknown */
	uint64_t start_address;	  /* this frame's own DW_AT_low_pc: an inlined
				   * call's or the function's (has_start_address) */
	bool has_start_address;
	uint32_t discriminator; /* line-table discriminator of `line` (innermost
				   * frame, when asked for: psym addr), 0 if none */
};

#endif
