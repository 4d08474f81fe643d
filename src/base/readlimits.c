// SPDX-License-Identifier: MIT
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "readlimits.h"

enum kind {
	K_SIZE,
	K_U64
};

static const struct limit_def {
	const char *name;
	enum kind kind;
	size_t off;
	unsigned long long def;
	const char *what;
} defs[] = {
	{ "elf-sections", K_SIZE, offsetof(struct psym_reader_limits, elf.max_sections), 65536,
	  "sections in one ELF file" },
	{ "elf-symbols", K_SIZE, offsetof(struct psym_reader_limits, elf.max_symbols), 16ULL << 20,
	  "function symbols in one ELF file" },
	{ "dwarf-depth", K_SIZE, offsetof(struct psym_reader_limits, dwarf_depth), 512,
	  "DWARF DIE nesting depth" },
	{ "dwarf-entries", K_SIZE, offsetof(struct psym_reader_limits, dwarf_entries), 16ULL << 20,
	  "functions and inlined calls in one compile unit" },
	{ "dwarf-rows", K_SIZE, offsetof(struct psym_reader_limits, dwarf_rows), 64ULL << 20,
	  "line-table rows in one compile unit" },
	{ "dwarf-section-bytes", K_U64, offsetof(struct psym_reader_limits, dwarf_section_bytes),
	  4ULL << 30, "bytes of one DWARF section once decompressed" },
	{ "dwarf-compress-ratio", K_U64, offsetof(struct psym_reader_limits, dwarf_compress_ratio),
	  200, "decompressed/compressed size of a DWARF section over 16 MiB" },
	{ "perfmap-entries", K_SIZE, offsetof(struct psym_reader_limits, perfmap.max_entries),
	  16ULL << 20, "perf map / jitdump entries of one process" },
	{ "perfmap-names", K_SIZE, offsetof(struct psym_reader_limits, perfmap.max_name_bytes),
	  1ULL << 30, "bytes of JIT names of one process" },
	{ "perfmap-bytes", K_SIZE, offsetof(struct psym_reader_limits, perfmap.max_file_bytes),
	  1ULL << 30, "bytes of one perf map or jitdump file" },
	{ "kallsyms-symbols", K_SIZE, offsetof(struct psym_reader_limits, kallsyms_symbols),
	  16ULL << 20, "kernel symbols in a kallsyms copy" },
	{ "kallsyms-bytes", K_SIZE, offsetof(struct psym_reader_limits, kallsyms_bytes),
	  256ULL << 20, "bytes of a kallsyms copy" },
	{ "deb-bytes", K_U64, offsetof(struct psym_reader_limits, deb.max_bytes), 2ULL << 30,
	  "bytes extracted from one .deb" },
	{ "deb-files", K_U64, offsetof(struct psym_reader_limits, deb.max_files), 10000,
	  "files extracted from one .deb" },
	{ "open-objects", K_SIZE, offsetof(struct psym_reader_limits, open_objects), 1024,
	  "binaries open at once (least recently used closed past it)" },
	{ "cfi-fdes", K_SIZE, offsetof(struct psym_reader_limits, cfi_fdes), 4ULL << 20,
	  "CFI frame descriptions indexed in one file (unwinding)" },
	{ "unwind-sample-steps", K_U64, offsetof(struct psym_reader_limits, unwind_sample_steps),
	  1ULL << 20, "CFA instructions run to unwind one sample (memoized rows are free)" },
	{ "unwind-steps", K_U64, offsetof(struct psym_reader_limits, unwind_steps), 64ULL << 20,
	  "CFA instructions run to unwind all samples of a run together" },
	{ "debuginfod-bytes", K_U64, offsetof(struct psym_reader_limits, debuginfod_bytes),
	  2ULL << 30, "bytes of one file downloaded from debuginfod" },
	{ "cfi-steps", K_SIZE, offsetof(struct psym_reader_limits, cfi_steps), 100000,
	  "CFA instructions run for one frame (unwinding)" },
};

#define NDEFS (sizeof(defs) / sizeof(defs[0]))

static void put(struct psym_reader_limits *l, const struct limit_def *d, unsigned long long v)
{
	char *p = (char *)l + d->off;

	if (d->kind == K_SIZE)
		*(size_t *)(void *)p = (size_t)v;
	else
		*(uint64_t *)(void *)p = v;
}

static unsigned long long get(const struct psym_reader_limits *l, const struct limit_def *d)
{
	const char *p = (const char *)l + d->off;

	return d->kind == K_SIZE ? *(const size_t *)(const void *)p
				 : *(const uint64_t *)(const void *)p;
}

void psym_reader_limits_default(struct psym_reader_limits *l)
{
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < NDEFS; i++)
		put(l, &defs[i], defs[i].def);
}

bool psym_parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	case '\0': break;
	default: return false;
	}
	if (*end || (shift && v > (ULLONG_MAX >> shift)))
		return false;
	*out = v << shift;
	return *out > 0;
}

int psym_reader_limits_set(struct psym_reader_limits *l, const char *spec, struct psym_err *e)
{
	const char *eq = strchr(spec, '=');
	unsigned long long v;

	for (size_t i = 0; eq && i < NDEFS; i++) {
		if (strlen(defs[i].name) != (size_t)(eq - spec) ||
		    strncmp(defs[i].name, spec, (size_t)(eq - spec)) != 0)
			continue;
		if (!psym_parse_size(eq + 1, &v) || (defs[i].kind == K_SIZE && v > SIZE_MAX))
			return psym_err_set(e, PSYM_EUSAGE,
					    "--limit %s: '%s' is not a positive size", defs[i].name,
					    eq + 1);
		put(l, &defs[i], v);
		return 0;
	}
	return psym_err_set(e, PSYM_EUSAGE,
			    "--limit '%s': want NAME=N with NAME one of those of --limit help",
			    spec);
}

void psym_reader_limits_print(const struct psym_reader_limits *l, FILE *out)
{
	for (size_t i = 0; i < NDEFS; i++)
		fprintf(out, "%-19s %12llu  %s\n", defs[i].name, get(l, &defs[i]), defs[i].what);
}
