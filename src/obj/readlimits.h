/* SPDX-License-Identifier: MIT */
/*
 * Caps on what one input may make psym do, for every reader: ELF section
 * and symbol counts, DWARF nesting and per-CU sizes, perf map entries,
 * kallsyms symbols, .deb extraction. Each has a default that real inputs
 * never reach; `--limit NAME=N` raises (or lowers) one. Hitting a cap is a
 * clear error for that input, never a crash. The profile's own caps
 * (input size, decompressed size, memory) are struct psym_limits in pprof.h.
 */
#ifndef PSYM_READLIMITS_H
#define PSYM_READLIMITS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "deb.h"
#include "elffile.h"
#include "error.h"
#include "limitparse.h"
#include "perfmap.h"

struct psym_reader_limits {
	struct psym_elf_limits elf;
	size_t dwarf_depth, dwarf_entries, dwarf_rows;
	uint64_t dwarf_section_bytes;  /* one DWARF section, decompressed */
	uint64_t dwarf_compress_ratio; /* its claimed size over its compressed size */
	/*
	 * All of one file's decompressed DWARF sections together: the
	 * profile's --max-memory, set by the caller (0: no such cap).
	 */
	uint64_t memory;
	struct psym_perfmap_limits perfmap;
	size_t kallsyms_symbols, kallsyms_bytes;
	struct psym_deb_limits deb;
	size_t open_objects;			    /* objects open at once (resolve/registry.h) */
	size_t cfi_fdes, cfi_steps;		    /* unwinding (unwind/cfi.h) */
	uint64_t unwind_sample_steps, unwind_steps; /* unwinding budgets (unwind/unwind.h) */
	uint64_t debuginfod_bytes;		    /* one download (locate/debuginfod.h) */
	uint64_t core_bytes; /* a compressed core inflated (obj/core.h max_decompressed) */
};

void psym_reader_limits_default(struct psym_reader_limits *l);

/* Apply "NAME=N" (N with optional K/M/G suffix); PSYM_EUSAGE when bad. */
int psym_reader_limits_set(struct psym_reader_limits *l, const char *spec, struct psym_err *e);

/* One line per limit: name, current value, what it bounds. */
void psym_reader_limits_print(const struct psym_reader_limits *l, FILE *out);

#endif
