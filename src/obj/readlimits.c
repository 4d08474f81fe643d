/* SPDX-License-Identifier: MIT */
/* Every reader's caps, by name (readlimits.h). */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "readlimits.h"

static const struct psym_limit_def defs[] = {
	{ "elf-sections", PSYM_LIMIT_SIZE, offsetof(struct psym_reader_limits, elf.max_sections),
	  65536, "sections in one ELF file" },
	{ "elf-symbols", PSYM_LIMIT_SIZE, offsetof(struct psym_reader_limits, elf.max_symbols),
	  16ULL << 20, "function symbols in one ELF file" },
	{ "dwarf-depth", PSYM_LIMIT_SIZE, offsetof(struct psym_reader_limits, dwarf_depth), 512,
	  "DWARF DIE nesting depth" },
	{ "dwarf-entries", PSYM_LIMIT_SIZE, offsetof(struct psym_reader_limits, dwarf_entries),
	  16ULL << 20, "functions and inlined calls in one compile unit" },
	{ "dwarf-rows", PSYM_LIMIT_SIZE, offsetof(struct psym_reader_limits, dwarf_rows),
	  64ULL << 20, "line-table rows in one compile unit" },
	{ "dwarf-section-bytes", PSYM_LIMIT_U64,
	  offsetof(struct psym_reader_limits, dwarf_section_bytes), 4ULL << 30,
	  "bytes of one DWARF section once decompressed" },
	{ "dwarf-compress-ratio", PSYM_LIMIT_U64,
	  offsetof(struct psym_reader_limits, dwarf_compress_ratio), 200,
	  "decompressed/compressed size of a DWARF section over 16 MiB" },
	{ "perfmap-entries", PSYM_LIMIT_SIZE,
	  offsetof(struct psym_reader_limits, perfmap.max_entries), 16ULL << 20,
	  "perf map / jitdump entries of one process" },
	{ "perfmap-names", PSYM_LIMIT_SIZE,
	  offsetof(struct psym_reader_limits, perfmap.max_name_bytes), 1ULL << 30,
	  "bytes of JIT names of one process" },
	{ "perfmap-bytes", PSYM_LIMIT_SIZE,
	  offsetof(struct psym_reader_limits, perfmap.max_file_bytes), 1ULL << 30,
	  "bytes of one perf map or jitdump file" },
	{ "kallsyms-symbols", PSYM_LIMIT_SIZE,
	  offsetof(struct psym_reader_limits, kallsyms_symbols), 16ULL << 20,
	  "kernel symbols in a kallsyms copy" },
	{ "kallsyms-bytes", PSYM_LIMIT_SIZE, offsetof(struct psym_reader_limits, kallsyms_bytes),
	  256ULL << 20, "bytes of a kallsyms copy" },
	{ "deb-bytes", PSYM_LIMIT_U64, offsetof(struct psym_reader_limits, deb.max_bytes),
	  2ULL << 30, "bytes extracted from one .deb" },
	{ "deb-files", PSYM_LIMIT_U64, offsetof(struct psym_reader_limits, deb.max_files), 10000,
	  "files extracted from one .deb" },
	{ "open-objects", PSYM_LIMIT_SIZE, offsetof(struct psym_reader_limits, open_objects), 1024,
	  "binaries open at once (least recently used closed past it)" },
	{ "cfi-fdes", PSYM_LIMIT_SIZE, offsetof(struct psym_reader_limits, cfi_fdes), 4ULL << 20,
	  "CFI frame descriptions indexed in one file (unwinding)" },
	{ "unwind-sample-steps", PSYM_LIMIT_U64,
	  offsetof(struct psym_reader_limits, unwind_sample_steps), 1ULL << 20,
	  "CFA instructions run to unwind one sample (memoized rows are free)" },
	{ "unwind-steps", PSYM_LIMIT_U64, offsetof(struct psym_reader_limits, unwind_steps),
	  64ULL << 20, "CFA instructions run to unwind all samples of a run together" },
	{ "debuginfod-bytes", PSYM_LIMIT_U64, offsetof(struct psym_reader_limits, debuginfod_bytes),
	  2ULL << 30, "bytes of one file downloaded from debuginfod" },
	{ "core-bytes", PSYM_LIMIT_U64, offsetof(struct psym_reader_limits, core_bytes),
	  64ULL << 30, "bytes of a compressed core once inflated (in a temporary file)" },
	{ "cfi-steps", PSYM_LIMIT_SIZE, offsetof(struct psym_reader_limits, cfi_steps), 100000,
	  "CFA instructions run for one frame (unwinding)" },
};

#define NDEFS (sizeof(defs) / sizeof(defs[0]))

void psym_reader_limits_default(struct psym_reader_limits *l)
{
	memset(l, 0, sizeof(*l));
	psym_limits_defaults(defs, NDEFS, l);
}

int psym_reader_limits_set(struct psym_reader_limits *l, const char *spec, struct psym_err *e)
{
	return psym_limits_set(defs, NDEFS, l, spec, e);
}

void psym_reader_limits_print(const struct psym_reader_limits *l, FILE *out)
{
	psym_limits_print(defs, NDEFS, l, out);
}
