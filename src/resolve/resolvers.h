/* SPDX-License-Identifier: MIT */
/*
 * The resolvers psym has, each behind the interface of resolver.h:
 *
 *   file    an ELF file and its debug information (binary.h): symbols,
 *           lines, inline frames; addresses normalized through PT_LOADs;
 *           also the vDSO image;
 *   kernel  a vmlinux with DWARF relocated by the KASLR slide, else a
 *           kallsyms copy; kernel modules by kallsyms alone;
 *   jit     perf maps and jitdump files, per process;
 *   index   the per-build-ID index in front of a file's;
 *   cached  the persistent answer cache in front of another (a file's).
 */
#ifndef PSYM_RESOLVERS_H
#define PSYM_RESOLVERS_H

#include "binary.h"
#include "kallsyms.h"
#include "locate.h"
#include "perfmap.h"
#include "readlimits.h"
#include "resolver.h"

/*
 * An ELF file. Takes ownership of elf (also on failure); o must outlive
 * the resolver. kind names it in summaries ("file", "vdso").
 */
int psym_file_resolver_new(struct psym_elf *elf, const struct psym_binary_opts *o, const char *kind,
			   struct psym_resolver **out, struct psym_err *e);

/*
 * The file resolver of a located-object table's entry (objtab.h): the file
 * the entry located (PSYM_NOENT with why when it has none), and the files
 * that file names (debug, alternate, split DWARF) located through the
 * entry. t and x must outlive the resolver; lim: for opening the file again.
 */
struct psym_objtab;
struct psym_located;
int psym_file_resolver_open(struct psym_objtab *t, struct psym_located *x,
			    const struct psym_elf_limits *lim, const struct psym_binary_opts *o,
			    const char *kind, struct psym_resolver **out, struct psym_reason *why,
			    struct psym_err *e);

/*
 * The persistent answer cache (symcache.h) in front of another resolver,
 * keyed by the file's build ID and path. Takes ownership of inner (also on
 * failure). Strings are copied.
 */
struct psym_cached_opts {
	const char *dir;      /* the cache directory */
	const char *build_id; /* of the file answered for, or NULL */
	const char *path;     /* the file answered for */
	bool inlines;	      /* answers with inline frames (part of the cache's variant) */
	/* The file's layout (copied): addresses are kept relative to it, and named in the variant. */
	const struct psym_layout *layout;
	/* The answers so far depend on the build alone (final(final_ud)): keep them. */
	bool (*final)(void *final_ud);
	void *final_ud;
	/* Its located-object entry, where a cache file refused is said (NULL, NULL: none). */
	struct psym_objtab *tab;
	struct psym_located *x;
};
int psym_cached_resolver_new(struct psym_resolver *inner, const struct psym_cached_opts *o,
			     struct psym_resolver **out, struct psym_err *e);

/*
 * The per-build-ID index (src/index/) in front of a file resolver: the
 * index the store bopts->index_store has for bin's build ID answers every
 * lookup; without one (or once it proves damaged) inner answers. Takes
 * ownership of inner (also on failure). bin (the binary inner answers
 * from), bopts, tab and x (its located-object entry, where the index used
 * is recorded; NULL, NULL: none) must outlive the resolver.
 */
struct psym_index_resolver_opts {
	struct psym_binary *bin;
	const struct psym_binary_opts *bopts;
	struct psym_objtab *tab;
	struct psym_located *x;
};
int psym_index_resolver_new(struct psym_resolver *inner, const struct psym_index_resolver_opts *o,
			    struct psym_resolver **out, struct psym_err *e);

/*
 * A file a resolver read with malformed lines (a kallsyms copy, a perf
 * map) or records (a jitdump) skipped: for the caller to say. fn NULL:
 * not said.
 */
struct psym_skipped {
	void (*fn)(void *ud, const char *path, size_t n, bool records);
	void *ud;
};

/*
 * The kernel (x: a PSYM_MAP_KERNEL or PSYM_MAP_KMODULE entry of t, located):
 * the vmlinux the plan located (its DWARF through the same entry; not for
 * modules) and the kallsyms copy it located. bo (for the vmlinux's DWARF),
 * lo (kernel modules' files), t and x must outlive the resolver; lim caps
 * the kallsyms copy; sk (NULL: none) hears of its malformed lines.
 */
int psym_kernel_resolver_new(struct psym_objtab *t, struct psym_located *x,
			     const struct psym_locate_opts *lo, const struct psym_binary_opts *bo,
			     const struct psym_reader_limits *lim, const struct psym_skipped *sk,
			     struct psym_resolver **out, struct psym_err *e);

/*
 * JIT code: perf maps and jitdumps given for every process (files), else
 * those of each sample's process that the plan located into x (a
 * PSYM_MAP_ANON entry of t; psym_objtab_perf_maps), else the jitdumps the
 * recording mapped (recs, from the profile's comments: each used only
 * when its file is the one mapped, psym_jitdump_check). t, x, lo, recs and
 * sk (NULL: none; of each file's malformed lines) must outlive it.
 */
int psym_jit_resolver_new(struct psym_objtab *t, struct psym_located *x,
			  const struct psym_locate_opts *lo, const struct psym_perfmap_limits *lim,
			  const char *const *files, size_t nfiles, int pid,
			  const struct psym_jitdump_rec *recs, size_t nrecs,
			  const struct psym_skipped *sk, struct psym_resolver **out,
			  struct psym_err *e);

#endif
