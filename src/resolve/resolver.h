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
 *             a short list of {role, path, reason, counts} items: the
 *             files, whether they had lines, the DWARF's units, the files
 *             tried, a one-time warning); the symbolize layer's
 *             resdesc.h turns it into the summary, --explain and warning
 *             lines;
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
#define PSYM_RESDESC_NOTE_ALWAYS                                                                   \
	1u			/* the DWARF item's note also with lines (may read the symbols) */
#define PSYM_RESDESC_NO_NOTE 2u /* no such note: the answers came from elsewhere */
#define PSYM_RESDESC_KEEP_WARNING 4u /* leave a one-time warning for a later describe */

/*
 * The role of one item of a description: which file, or which part of the
 * answer, it speaks of. The fields each role uses are said here; the words
 * are composed from them in one place (src/symbolize/resdesc.c).
 */
enum psym_resrole {
	PSYM_RES_BINARY,   /* path: the ELF file answered for (DEBUG_ONLY: a debug file
			    * standing in for the binary) */
	PSYM_RES_DWARF,	   /* path: the file the lines came from, NULL: no lines; n of
			    * total: its compile units decoded so far; note: why no
			    * lines (see the flags above), or NULL */
	PSYM_RES_ALT,	   /* why: the DWARF's alternate (dwz) file is missing */
	PSYM_RES_SPLIT,	   /* n of total: skeleton units used without their split unit
			    * (.dwo / .dwp), why */
	PSYM_RES_TRIED,	   /* tried, ntried: the files tried since the last describe (the
			    * table entry's later record: debug file candidates, DWARF,
			    * alternate, split units, symbol tables, answer sources), in
			    * order; lost: those past its cap */
	PSYM_RES_SOURCE,   /* path: an answer source's file (source.h); note: its own
			     * words ("lines from the GSYM file 'P'"); NO_INLINES: it
			     * gives no inline frames (warned once) */
	PSYM_RES_INDEX,	   /* path, of, build_id, size: a symbol index open for the file
			    * (USED: some answers came from it); DAMAGED: note says, once,
			    * why an index found was not used */
	PSYM_RES_CACHE,	   /* path: the persistent answer cache (USED: every answer came
			    * from it); DAMAGED: note says, once, why it was ignored */
	PSYM_RES_VMLINUX,  /* path: the kernel image */
	PSYM_RES_KALLSYMS, /* path: the kallsyms copy; NULL: neither kernel file, why */
	PSYM_RES_PERFMAP,  /* path: the last perf map read (NULL: none); total: how many */
	PSYM_RES_PROCESS,  /* n locations no sample names, looked up in pid: the profile's
			    * only process (ONLY), or the only one whose maps cover them */
	PSYM_RES_UNPLACED, /* n locations left unresolved, note: why */
};

#define PSYM_RESITEM_USED 1u	   /* answers came from it (see the role) */
#define PSYM_RESITEM_DAMAGED 2u	   /* found but not used: note, a one-time warning */
#define PSYM_RESITEM_DEBUG_ONLY 4u /* BINARY: a debug file standing in for the binary */
#define PSYM_RESITEM_NO_INLINES 8u /* SOURCE: no inline frames (warned) */
#define PSYM_RESITEM_ONLY 16u	   /* PROCESS: the profile's only process */

struct psym_objtab_try;

/* One item of a description. Strings and pointers are borrowed (psym_resdesc). */
struct psym_resitem {
	enum psym_resrole role;
	unsigned flags;			     /* PSYM_RESITEM_* */
	const char *path;		     /* the file, or NULL */
	const char *note;		     /* why, as a line of text, or NULL */
	const struct psym_reason *why;	     /* why, as a reason, or NULL */
	size_t n, total;		     /* counts: n of total (see the role) */
	const char *of, *build_id;	     /* INDEX: the file it was made from, its build ID */
	uint64_t size;			     /* INDEX: its bytes */
	int pid;			     /* PROCESS */
	const struct psym_objtab_try *tried; /* TRIED: files, ntried of them */
	size_t ntried, lost;		     /* lost: tried past the table's cap */
};

/* Items one description holds at most; more are dropped (and counted). */
#define PSYM_RESDESC_MAX_ITEMS 16

/*
 * Where a resolver's answers came from, as a list of items. Filled by
 * describe after the lookups (debug information loads lazily): each
 * resolver appends its own items, a wrapping one its own and then the
 * inner's. Strings are borrowed from the resolver and live until its next
 * call. Only flags is the caller's: it is kept, the list is cleared by
 * psym_resolver_describe.
 */
struct psym_resdesc {
	unsigned flags; /* PSYM_RESDESC_*, set by the caller */
	size_t n;	/* items used */
	size_t dropped; /* items that did not fit */
	struct psym_resitem item[PSYM_RESDESC_MAX_ITEMS];
};

/* Appends a copy of it; false (counted in dropped) when the list is full. */
static inline bool psym_resdesc_add(struct psym_resdesc *d, const struct psym_resitem *it)
{
	if (d->n >= PSYM_RESDESC_MAX_ITEMS) {
		d->dropped++;
		return false;
	}
	d->item[d->n++] = *it;
	return true;
}

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
	/*
	 * The file it answers for, borrowed for as long as r lives (its
	 * sections, its data symbols); NULL: none, or not a file. Optional.
	 */
	struct psym_elf *(*elf)(struct psym_resolver *r);
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

static inline struct psym_elf *psym_resolver_elf(struct psym_resolver *r)
{
	return r->ops->elf ? r->ops->elf(r) : NULL;
}

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
	d->n = 0;
	d->dropped = 0;
	r->ops->describe(r, d);
}

/* A wrapping resolver's describe: the inner's items after its own (the list kept). */
static inline void psym_resolver_describe_inner(struct psym_resolver *r, struct psym_resdesc *d)
{
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
