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
 *   describe  one line for the summary: where the answers came from;
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
	void (*describe)(struct psym_resolver *r, char *buf, size_t bufsz);
	/* Extra lines for --explain (may be NULL). */
	void (*explain)(struct psym_resolver *r, char *buf, size_t bufsz);
	/* A warning to print once, e.g. a damaged cache file (may be NULL; "" none). */
	void (*warning)(struct psym_resolver *r, char *buf, size_t bufsz);
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

static inline void psym_resolver_describe(struct psym_resolver *r, char *buf, size_t bufsz)
{
	r->ops->describe(r, buf, bufsz);
}

static inline void psym_resolver_free(struct psym_resolver *r)
{
	if (r)
		r->ops->destroy(r);
}

#endif
