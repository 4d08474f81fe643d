/* SPDX-License-Identifier: MIT */
/*
 * The resolver interface: one shape for every source of frames (an ELF
 * file with its debug information, the kernel, JIT perf maps, the vDSO).
 * The symbolize driver talks to resolvers only through these calls and
 * never branches on the kind of mapping.
 *
 *   to_vaddr  runtime address in a mapping -> the address lookup takes
 *             (an ELF virtual address, or the runtime address itself);
 *   prepare   optional: the sorted addresses about to be looked up, so a
 *             resolver can do its heavy work up front (DWARF decodes the
 *             compile units they need on all cores);
 *   lookup    frames for one address, innermost first (0), nothing known
 *             (PSYM_NOENT, with a reason), or an error (negative);
 *   lookup_symbol  optional: the address a symbol name has (a crash log's
 *             "module(name+0x10)" frames), 0 or PSYM_NOENT;
 *   symbol_start  optional: the reverse, the start of the symbol holding
 *             an address (llvm-symbolizer's JSON StartAddress), from the
 *             binary's symbols and its debug file's, also when an index
 *             answered the lookups; 0 or PSYM_NOENT;
 *   describe  where the answers came from, as data (struct psym_resdesc:
 *             the files, whether they had lines, the DWARF's units, notes
 *             and a one-time warning); the symbolize layer's resdesc.h
 *             turns it into the summary, --explain and warning lines;
 *   destroy   frees it (NULL is fine through psym_resolver_free).
 *
 * Frame strings are borrowed from the resolver and live as long as it
 * does. Calls on one resolver are not thread-safe: the registry serializes
 * them.
 */
#ifndef PSYM_RESOLVER_H
#define PSYM_RESOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "frame.h"
#include "reason.h"

/* The mapping an address was sampled in, as the profile gives it. */
struct psym_mapinfo {
	uint64_t start, limit, file_offset;
	const char *build_id; /* "" when unknown */
};

/* What a lookup may need besides the address. */
struct psym_lookup_ctx {
	const struct psym_mapinfo *map; /* the mapping of the address */
	int pid;			/* process of the sample, 0 when unknown */
	/* With pid 0 (no sample has the location): the profile's processes. */
	const int *pids;
	size_t npids;
	/*
	 * Which run of the driver asks: each psym_symbolize() call has its
	 * own number, so a resolver shared by a batch can tell how many of
	 * its profiles used it (the index build policy). 0: not said.
	 */
	uint64_t run;
};

/*
 * Frames of one lookup, innermost first. stable: their strings stay at
 * the same addresses for the resolver's life, so the driver may remember
 * functions by them (funcmemo.h).
 */
struct psym_frames {
	struct psym_frame f[PSYM_MAX_FRAMES];
	size_t n;
	bool stable;
};

/* What describe may do to say why a file has no lines (psym_resdesc.flags). */
#define PSYM_RESDESC_NOTE_ALWAYS 1u  /* debug_note also with lines (may read the symbols) */
#define PSYM_RESDESC_NO_NOTE 2u	     /* no debug_note: the answers came from elsewhere */
#define PSYM_RESDESC_KEEP_WARNING 4u /* leave a one-time warning for a later describe */

/*
 * Where a resolver's answers came from. Filled by describe after the
 * lookups (debug information loads lazily); strings are borrowed from the
 * resolver and live until its next call. Only flags is the caller's: it is
 * kept, everything else is cleared by psym_resolver_describe.
 */
struct psym_resdesc {
	unsigned flags;	  /* PSYM_RESDESC_*, set by the caller */
	const char *kind; /* the ops' kind of the resolver that answered */
	/* An ELF file (kinds file, vdso; a cached one says so in symcache). */
	const char *path;		   /* the binary, or the debug file standing in for it */
	bool debug_only;		   /* path is a debug file standing in for the binary */
	const char *dwarf_path;		   /* the file the lines came from, NULL: no lines */
	const char *alt_note;		   /* why the DWARF's alternate file is missing, or NULL */
	const char *debug_note;		   /* why there are no lines (see flags), or NULL */
	size_t units, decoded;		   /* the DWARF's compile units, and decoded so far */
	size_t split_units, split_missing; /* skeleton units, those without a split unit */
	struct psym_reason split_why;	   /* why (split_missing > 0) */
	/* An answer source (a GSYM file, Go's table): "lines from ...", or NULL. */
	const char *source_note;
	/* A symbol index file (index.h), open for the file; NULL: none. */
	const char *index_path, *index_source, *index_build_id;
	uint64_t index_size;
	bool index_answered;	  /* some answers came from it */
	const char *index_damage; /* once: why an index found was not used, or NULL */
	/* The persistent answer cache in front of the file (kind "cached"). */
	const char *symcache_path;
	bool from_symcache;	     /* every answer came from it */
	const char *symcache_damage; /* once: why the cache file was ignored, or NULL */
	/* The kernel: vmlinux and kallsyms files, or why neither was found. */
	const char *vmlinux_path, *kallsyms_path;
	const struct psym_reason *kernel_why;
	/* JIT: the last perf map read, how many, and addresses without a sample. */
	const char *perfmap_path; /* NULL: no perf map */
	size_t perfmaps;
	size_t by_only, by_cover, unplaced;
	int only_pid, cover_pid;
	const char *unplaced_why;
};

struct psym_resolver;

struct psym_resolver_ops {
	const char *kind; /* "file", "kernel", "jit", "vdso" */
	bool needs_pid;	  /* lookup uses ctx->pid (the driver finds it only then) */
	int (*to_vaddr)(struct psym_resolver *r, const struct psym_mapinfo *m, uint64_t addr,
			uint64_t *vaddr);
	int (*prepare)(struct psym_resolver *r, const uint64_t *vaddrs, size_t n,
		       struct psym_err *e);
	int (*lookup)(struct psym_resolver *r, const struct psym_lookup_ctx *ctx, uint64_t vaddr,
		      struct psym_frames *out, struct psym_reason *why);
	int (*lookup_symbol)(struct psym_resolver *r, const char *name, uint64_t *vaddr);
	int (*symbol_start)(struct psym_resolver *r, uint64_t vaddr, uint64_t *start);
	void (*describe)(struct psym_resolver *r, struct psym_resdesc *d);
	/*
	 * The run is over (psym_resolver_finish): act on what it learned,
	 * such as building an index by policy. Optional; never from destroy.
	 */
	void (*finish)(struct psym_resolver *r);
	void (*destroy)(struct psym_resolver *r);
};

/* The common head of every resolver (the first member of each kind). */
struct psym_resolver {
	const struct psym_resolver_ops *ops;
};

static inline int psym_resolver_to_vaddr(struct psym_resolver *r, const struct psym_mapinfo *m,
					 uint64_t addr, uint64_t *vaddr)
{
	return r->ops->to_vaddr(r, m, addr, vaddr);
}

static inline int psym_resolver_prepare(struct psym_resolver *r, const uint64_t *vaddrs, size_t n,
					struct psym_err *e)
{
	return r->ops->prepare ? r->ops->prepare(r, vaddrs, n, e) : 0;
}

static inline int psym_resolver_lookup(struct psym_resolver *r, const struct psym_lookup_ctx *ctx,
				       uint64_t vaddr, struct psym_frames *out,
				       struct psym_reason *why)
{
	out->n = 0;
	out->stable = false;
	return r->ops->lookup(r, ctx, vaddr, out, why);
}

static inline int psym_resolver_lookup_symbol(struct psym_resolver *r, const char *name,
					      uint64_t *vaddr)
{
	return r->ops->lookup_symbol ? r->ops->lookup_symbol(r, name, vaddr) : PSYM_NOENT;
}

static inline int psym_resolver_symbol_start(struct psym_resolver *r, uint64_t vaddr,
					     uint64_t *start)
{
	return r->ops->symbol_start ? r->ops->symbol_start(r, vaddr, start) : PSYM_NOENT;
}

static inline void psym_resolver_describe(struct psym_resolver *r, struct psym_resdesc *d)
{
	unsigned flags = d->flags;

	*d = (struct psym_resdesc){ .flags = flags, .kind = r->ops->kind };
	r->ops->describe(r, d);
}

/*
 * Called by the driver once its lookups are done, on the thread that owns
 * the run (src/symbolize/, cli/): a wrapping resolver passes it inward.
 */
static inline void psym_resolver_finish(struct psym_resolver *r)
{
	if (r && r->ops->finish)
		r->ops->finish(r);
}

static inline void psym_resolver_free(struct psym_resolver *r)
{
	if (r)
		r->ops->destroy(r);
}

#endif
