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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PSYM_SIDE_DIR_FMT "%s.d"      /* the side directory of profile %s */
#define PSYM_SIDE_KALLSYMS "kallsyms" /* /proc/kallsyms, read as root (old) */
/*
 * Since then, the copy is zstd-compressed and named by the boot it was
 * taken on and its content's SHA-256: kallsyms-BOOTID-SHA256.zst. The
 * collector keeps one per boot in PSYM_SIDE_SHARED beside its outputs and
 * links it into each side directory; psym parses it once per batch and
 * checks the content against the name.
 */
#define PSYM_SIDE_KALLSYMS_PFX "kallsyms-"
#define PSYM_SIDE_KALLSYMS_SFX ".zst"
/* The copy's lines that change while the kernel runs (BPF programs, ftrace
 * and kprobe trampolines: "[bpf]", "[__builtin__...]"), kept per profile. */
#define PSYM_SIDE_KALLSYMS_DYN "kallsyms.dyn"
#define PSYM_SIDE_SHARED ".psym-shared" /* beside OUT: a boot's kallsyms, once */
/*
 * Since then, by default, only the lines the profile's kernel addresses
 * need, zstd-compressed, in the subset format of obj/kallsyms.h (a header
 * line, symbols, bounds where the full table's next symbol starts, "end"):
 * psym names no address the subset leaves out. Preferred to the copies
 * above when both are there; psym-collect --kallsyms full writes those.
 */
#define PSYM_SIDE_KALLSYMS_SUBSET "kallsyms.subset.zst"

#define PSYM_SIDE_VDSO "vdso.so" /* the vDSO image (old) */
/* Since then: zstd-compressed, named by its SHA-256, shared as kallsyms is. */
#define PSYM_SIDE_VDSO_PFX "vdso-"
#define PSYM_SIDE_VDSO_SFX ".so.zst"
#define PSYM_SIDE_MODULES "modules"		 /* loaded kernel modules: name, build ID */
#define PSYM_SIDE_USTACKS "ustacks.gz"		 /* --stack-copy: registers and stack bytes */
#define PSYM_SIDE_PERF_MAP "perf-%d.map"	 /* a JIT's perf map, by pid (old) */
#define PSYM_SIDE_PERF_MAP_ZST "perf-%d.map.zst" /* the same, zstd-compressed */
#define PSYM_SIDE_JIT_DUMP "jit-%d.dump"	 /* a JIT's jitdump, by pid */

/* The side directory of the profile at path, allocated; NULL: out of memory. */
static inline char *psym_side_dir(const char *path)
{
	char *d;

	return asprintf(&d, PSYM_SIDE_DIR_FMT, path) < 0 ? NULL : d;
}

/* n (a file name, no directory) is prefix, something, suffix. */
static inline bool psym_side_name_is(const char *n, const char *prefix, const char *suffix)
{
	size_t len = strlen(n), pl = strlen(prefix), sl = strlen(suffix);

	return len > pl + sl && !strncmp(n, prefix, pl) && !strcmp(n + len - sl, suffix);
}

/*
 * A content-addressed kallsyms copy's name: its boot ID (a UUID, or
 * "unknown") into boot[40] and SHA-256 (64 lowercase hex digits) into
 * sha[65]. False for any other name.
 */
static inline bool psym_side_kallsyms_id(const char *n, char *boot, char *sha)
{
	size_t len = strlen(n), pl = strlen(PSYM_SIDE_KALLSYMS_PFX);
	size_t sl = strlen(PSYM_SIDE_KALLSYMS_SFX), bl;

	if (!psym_side_name_is(n, PSYM_SIDE_KALLSYMS_PFX, PSYM_SIDE_KALLSYMS_SFX) ||
	    len < pl + 1 + 1 + 64 + sl)
		return false;
	bl = len - pl - 1 - 64 - sl;
	if (bl >= 40 || n[pl + bl] != '-')
		return false;
	for (size_t i = 0; i < bl; i++) {
		char c = n[pl + i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-'))
			return false;
	}
	for (size_t i = 0; i < 64; i++) {
		char c = n[pl + bl + 1 + i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	memcpy(boot, n + pl, bl);
	boot[bl] = '\0';
	memcpy(sha, n + pl + bl + 1, 64);
	sha[64] = '\0';
	return true;
}

/* A content-addressed vDSO image's name, vdso-SHA256.so.zst: sha[65]. */
static inline bool psym_side_vdso_sha(const char *n, char *sha)
{
	size_t pl = strlen(PSYM_SIDE_VDSO_PFX);

	if (!psym_side_name_is(n, PSYM_SIDE_VDSO_PFX, PSYM_SIDE_VDSO_SFX) ||
	    strlen(n) != pl + 64 + strlen(PSYM_SIDE_VDSO_SFX))
		return false;
	for (size_t i = 0; i < 64; i++) {
		char c = n[pl + i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	memcpy(sha, n + pl, 64);
	sha[64] = '\0';
	return true;
}

/* A perf map's name, perf-PID.map. */
static inline bool psym_side_is_perf_map(const char *n)
{
	return psym_side_name_is(n, "perf-", ".map") || psym_side_name_is(n, "perf-", ".map.zst");
}

/* A jitdump's name, jit-PID.dump. */
static inline bool psym_side_is_jit_dump(const char *n)
{
	return psym_side_name_is(n, "jit-", ".dump");
}

#endif
