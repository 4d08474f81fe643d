/* SPDX-License-Identifier: MIT */
/*
 * The side files psym-collect writes beside a profile OUT, in OUT.d/, and
 * psym reads back: one list of their names for the collector (writing and
 * clearing them), the located-object table (kallsyms, vDSO, perf maps),
 * the kernel-module resolver, the unwinder's reader and psym archive.
 * A new side file gets its name here first (doc/DESIGN.md).
 */
#ifndef PSYM_SIDENAMES_H
#define PSYM_SIDENAMES_H

#include <stdbool.h>
#include <string.h>

#define PSYM_SIDE_DIR_FMT "%s.d"	 /* the side directory of profile %s */
#define PSYM_SIDE_KALLSYMS "kallsyms"	 /* /proc/kallsyms, read as root */
#define PSYM_SIDE_VDSO "vdso.so"	 /* the vDSO image */
#define PSYM_SIDE_MODULES "modules"	 /* loaded kernel modules: name, build ID */
#define PSYM_SIDE_USTACKS "ustacks.gz"	 /* --stack-copy: registers and stack bytes */
#define PSYM_SIDE_PERF_MAP "perf-%d.map" /* a JIT's perf map, by pid */
#define PSYM_SIDE_JIT_DUMP "jit-%d.dump" /* a JIT's jitdump, by pid */

/* n (a file name, no directory) is prefix, something, suffix. */
static inline bool psym_side_name_is(const char *n, const char *prefix, const char *suffix)
{
	size_t len = strlen(n), pl = strlen(prefix), sl = strlen(suffix);

	return len > pl + sl && !strncmp(n, prefix, pl) && !strcmp(n + len - sl, suffix);
}

/* A perf map's name, perf-PID.map. */
static inline bool psym_side_is_perf_map(const char *n)
{
	return psym_side_name_is(n, "perf-", ".map");
}

/* A jitdump's name, jit-PID.dump. */
static inline bool psym_side_is_jit_dump(const char *n)
{
	return psym_side_name_is(n, "jit-", ".dump");
}

#endif
