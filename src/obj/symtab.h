/* SPDX-License-Identifier: MIT */
/*
 * A sorted address -> name table: the one shape behind ELF symbol tables,
 * kernel symbols (kallsyms) and JIT perf maps.
 *
 * Entries are pushed in any order (the count is capped), then
 * psym_symtab_finish() sorts them and gives every entry its end; lookups
 * then binary-search. Two rules decide which entry answers an address:
 *
 *   PSYM_SYMTAB_NEAREST  (ELF, kallsyms) aliases at one address are merged
 *                        into the best one (sized before zero-size, then
 *                        lowest rank, then largest size,
 *                        then the latest pushed or the smallest name); an
 *                        address belongs to the entry starting closest
 *                        below it that still covers it, and a zero-size
 *                        entry covers up to the next entry, bounded by the
 *                        region (section) holding it and by max_extent;
 *                        one that no region holds (when there are
 *                        regions) covers its own address only.
 *   PSYM_SYMTAB_LATEST   (perf maps) entries overlap freely and are never
 *                        merged; of those covering an address the one
 *                        pushed last wins, as a JIT reuses code memory.
 *
 * Names and files are borrowed: the caller keeps them alive (an arena
 * beside the table) as long as the table.
 */
#ifndef PSYM_SYMTAB_H
#define PSYM_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum psym_symtab_rule {
	PSYM_SYMTAB_NEAREST,
	PSYM_SYMTAB_LATEST,
};

struct psym_sym {
	uint64_t addr, size;
	uint64_t end;	     /* set by psym_symtab_finish (saturates at UINT64_MAX) */
	const char *name;    /* display name */
	const char *linkage; /* system name, or NULL */
	const char *file;    /* source file or kernel module, or NULL */
	uint32_t rank;	     /* lower wins among aliases at one address */
	uint32_t seq;	     /* push order, set by psym_symtab_push */
};

/* An address range [start, end) that bounds zero-size entries inside it. */
struct psym_addr_region {
	uint64_t start, end;
	size_t order; /* among overlapping regions the lowest order bounds */
};

struct psym_symtab_opts {
	enum psym_symtab_rule rule;
	size_t max_entries;	/* 0: 16 M; at most 4 G */
	const char *what;	/* for the limit message: "symbols", "JIT entries" */
	const char *limit_flag; /* "--limit elf-symbols=N" */
	bool alias_by_name;	/* NEAREST ties: smallest name, not the latest pushed */
	uint64_t max_extent;	/* NEAREST: a zero-size entry covers at most this (0: no cap) */
	/*
	 * NEAREST: how many entries below an address a lookup looks at for
	 * one that encloses it (0: 64). LATEST: how many it looks at for a
	 * later one (0: 1024).
	 */
	size_t scan_back;
};

struct psym_symtab {
	struct psym_symtab_opts o;
	struct psym_sym *s;
	size_t n, cap;
	uint32_t next_seq;
	uint64_t *maxend; /* LATEST: prefix maximum of end, to stop early */
	bool ready;
};

void psym_symtab_init(struct psym_symtab *t, const struct psym_symtab_opts *o);
void psym_symtab_free(struct psym_symtab *t);
/* Drop every entry (the options stay). */
void psym_symtab_clear(struct psym_symtab *t);

/*
 * Add an entry (addr, size, name, linkage, file, rank are read; seq is
 * assigned). src names the input in the error. PSYM_ELIMIT past the cap,
 * PSYM_ENOMEM.
 */
int psym_symtab_push(struct psym_symtab *t, const struct psym_sym *s, const char *src,
		     struct psym_err *e);

/*
 * Sort and compute ends. regions (any order, may be NULL) bound zero-size
 * entries: such an entry ends at the next entry, at the end of the region
 * holding its address, and max_extent after it, whichever comes first; the
 * last entry, when no region holds it and there is no max_extent, covers
 * its own address only (never the rest of the address space). Out of memory for the work space only loosens the
 * region bound. May be called again after more pushes.
 */
void psym_symtab_finish(struct psym_symtab *t, const struct psym_addr_region *regions,
			size_t nregions);

/* The entry that answers addr (after finish), or NULL. */
const struct psym_sym *psym_symtab_lookup(const struct psym_symtab *t, uint64_t addr);

/*
 * The entry starting closest at or below addr, whether it covers addr or
 * not (GNU addr2line's nearest symbol: padding after a function is named
 * after it), or NULL.
 */
const struct psym_sym *psym_symtab_before(const struct psym_symtab *t, uint64_t addr);

/* Entries after finish, sorted by address (NEAREST: one per address). */
static inline size_t psym_symtab_count(const struct psym_symtab *t)
{
	return t->n;
}

static inline const struct psym_sym *psym_symtab_at(const struct psym_symtab *t, size_t i)
{
	return &t->s[i];
}

#endif
